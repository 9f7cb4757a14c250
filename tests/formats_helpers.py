"""Shared helpers for tests/formats: random partial permutations and a
reference that reads cross-connect labels out of a rendering with its own
regular expressions (not the parsers under test)."""

import re

import numpy as np


def partial_permutation(rng: np.random.Generator, n: int, holes: int) -> np.ndarray:
    """A random permutation of 0..n-1 with ``holes`` ingresses left unconnected."""
    row = rng.permutation(n).astype(np.int64)
    if holes:
        row[rng.choice(n, size=min(holes, n), replace=False)] = -1
    return row


def labels(fmt: str, text: str) -> list[tuple[int, int]]:
    """(ingress, egress) port labels as written in ``text``, in order."""
    if fmt == "polatis":
        out = []
        for a, b in re.findall(r"\(@([\d,]*)\),\(@([\d,]*)\)", text):
            ins = [int(x) for x in a.split(",") if x]
            outs = [int(x) for x in b.split(",") if x]
            assert len(ins) == len(outs)
            out += list(zip(ins, outs))
        return out
    if fmt == "tl1":
        return [(int(a), int(b)) for a, b in re.findall(r"^ENT-PATCH::(\d+),(\d+):\d+;$", text, re.M)]
    if fmt == "netconf":
        return [(int(a), int(b)) for a, b in
                re.findall(r"<pair><ingress>(\d+)</ingress><egress>(\d+)</egress></pair>", text)]
    if fmt == "sonic":
        return [(int(a), int(b)) for a, b in re.findall(r"^config ocs cross-connect add (\d+)A-(\d+)B$", text, re.M)]
    if fmt == "csv":
        return [(int(a), int(b)) for _, a, b in re.findall(r"^(\d+),(\d+),(\d+)$", text, re.M)]
    if fmt == "pairs":
        return [(int(a), int(b)) for a, b in re.findall(r"^(\d+) (\d+)$", text, re.M)]
    raise ValueError(fmt)
