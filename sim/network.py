"""Replay switch settings on an explicitly described network.

This simulator knows nothing about how settings were computed: it applies
each stage's switches and the links between stages to a vector of values,
exactly as the JSON description says (docs/reference/file-formats.md, "Beneš settings"):

* a switch reads the values at its ``inputs`` positions; for a 2x2 switch
  state 1 swaps them, for an n x n switch output k takes input ``state[k]``;
  the results are written back to the same positions;
* ``links[s][p]`` is the position that position p moves to after stage s.

Starting from ``[0, 1, ..., N-1]`` the result holds at position p the input
routed to output p.
"""

from __future__ import annotations

import numpy as np

__all__ = ["replay_description", "replay_2x2", "routed_permutation"]


def replay_description(desc: dict, values=None) -> np.ndarray:
    """Replay a JSON description (``stages`` with ``inputs``/``state``, ``links``)."""
    n = desc["size"]
    v = np.arange(n) if values is None else np.array(values)
    for s, stage in enumerate(desc["stages"]):
        for sw in stage:
            ins = np.asarray(sw["inputs"])
            st = sw["state"]
            if isinstance(st, list):
                v[ins] = v[ins[np.asarray(st)]]
            elif st == 1:
                v[ins] = v[ins[::-1]]
            elif st != 0:
                raise ValueError(f"stage {s}: bad 2x2 state {st!r}")
        if s < len(desc["stages"]) - 1:
            nxt = np.empty_like(v)
            nxt[np.asarray(desc["links"][s])] = v
            v = nxt
    return v


def replay_2x2(state: np.ndarray, links, values=None) -> np.ndarray:
    """Vectorised replay of 2x2 settings held as ``state[s, p]`` (the switch
    reading positions p and p+1; 255 = no switch) and ``links[s, p]``;
    ``links`` may also be a function s -> row, to keep one row in memory."""
    nstages, n = state.shape
    v = np.arange(n) if values is None else np.array(values)
    for s in range(nstages):
        crossed = np.nonzero(state[s] == 1)[0]
        bad = np.nonzero((state[s] != 0) & (state[s] != 1) & (state[s] != 255))[0]
        if bad.size:
            raise ValueError(f"stage {s}: bad state at position {bad[0]}")
        v[crossed], v[crossed + 1] = v[crossed + 1].copy(), v[crossed].copy()
        if s < nstages - 1:
            nxt = np.empty_like(v)
            nxt[links(s) if callable(links) else links[s]] = v
            v = nxt
    return v


def routed_permutation(outputs: np.ndarray) -> np.ndarray:
    """From the replayed vector (position p holds the input routed to output
    p) return ``perm`` with input i -> output perm[i]."""
    perm = np.empty_like(outputs)
    perm[outputs] = np.arange(len(outputs))
    return perm
