"""Switch settings for a permutation: route, verify by simulation, render.

The one path from a permutation to files: :func:`settings` routes it on a
Beneš/Waksman network (radix 2, any N) or an (n,d) permutation network
(radix n), replays the settings on the independent simulator
:mod:`permnet.sim.network`, and only then returns them; a mismatch raises
``RuntimeError`` (a bug, never silent output).

Hex files for ``$readmemh`` (shared with the RTL):

* ``stage_SS.hex``: one line per switch of stage SS, in the order of the
  JSON ``stages[SS]`` list (increasing first input position).  A 2x2 switch
  is ``0`` (straight) or ``1`` (crossed).  An n x n switch packs its state
  list with b = ceil(log2 n) bits per entry, entry k (the input shown on
  output k) in bits [k*b, (k+1)*b).
* ``config.hex`` (2x2 networks only): one line per stage, a word of
  floor(N/2) bits in which bit j is the state of the stage's j-th switch
  (unused high bits 0).  This is the word the RTL's configuration stream
  takes, stage 0 first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.fileio import atomic_write, read_text
from permnet.gen.routing import benes
from permnet.gen.routing import pn
from permnet.sim.network import replay_2x2, replay_description

__all__ = ["Settings", "settings", "parse_perm_text", "read_perm_file", "write_hex"]

UNUSED_TOKENS = {"x", "-", "_", "-1", "none", "null"}


def parse_perm_text(text: str) -> list:
    """``4,1,0,3`` (commas or white space); ``x``, ``-``, ``_`` or ``-1`` mark an unused input."""
    toks = [t for t in re.split(r"[,\s]+", text.strip()) if t]
    out: list = []
    for i, t in enumerate(toks):
        if t.lower() in UNUSED_TOKENS:
            out.append(None)
            continue
        try:
            out.append(int(t))
        except ValueError:
            raise PermnetError(f"entry {i}: {t!r} is not an integer") from None
    return out


def read_perm_file(path) -> list:
    """A JSON list (null = unused) or one integer per line."""
    text = read_text(path)
    if text.lstrip().startswith("["):
        try:
            vals = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PermnetError(f"{path}: malformed JSON list at line {exc.lineno}: {exc.msg}") from None
        return [None if v is None or v == -1 else v for v in vals]
    return parse_perm_text(text)


@dataclass
class Settings:
    size: int
    radix: int
    network: str
    route: object            # benes.BenesRoute or pn.PnRoute

    @property
    def stages(self) -> int:
        return self.route.stages if self.radix == 2 and self.network != "pn" else len(self.route.stages)

    @property
    def switches(self) -> int:
        return self.route.switches

    def description(self) -> dict:
        if isinstance(self.route, benes.BenesRoute):
            return benes.network_description(self.route)
        d = self.route.description()
        d["lower_bound"] = benes.lower_bound(self.size)
        return d

    def summary(self) -> dict:
        return {"size": self.size, "radix": self.radix, "network": self.network, "stages": self.stages,
                "switches": self.switches, "lower_bound": benes.lower_bound(self.size)}


def settings(perm, radix: int = 2, network: str = "benes") -> Settings:
    """Route and verify.  ``perm[i]`` is the output input i must reach (None: unused)."""
    require(len(perm) >= 1, "empty permutation")
    partial = any(v is None for v in perm) if not isinstance(perm, np.ndarray) else bool((perm < 0).any())
    if radix == 2 and network in benes.NETWORKS:
        r = benes.route(perm, network, partial=partial)
        out = replay_2x2(r.state, lambda s: benes.stage_links(r, s))
        s = Settings(r.size, 2, network, r)
    else:
        require(network in ("benes", "pn"), f"network {network!r} has only radix 2")
        r = pn.route(perm, radix, partial=partial)
        out = replay_description(r.description())
        s = Settings(r.size, radix, "pn", r)
    # Position p must hold the input routed to output p, for every used input.
    want = s.route.perm
    used = s.route.used
    got = np.empty_like(out)
    got[out] = np.arange(len(out))
    if not np.array_equal(got[used], want[used]):
        bad = int(np.nonzero(got[used] != want[used])[0][0])
        raise RuntimeError(f"internal error: simulated network sends input {bad} to {got[bad]}, "
                           f"requested {want[bad]}")
    return s


def _hex_lines(s: Settings) -> list[list[str]]:
    if isinstance(s.route, benes.BenesRoute):
        return [[format(int(v), "x") for v in s.route.state[st, s.route.stage_switches(st)]]
                for st in range(s.stages)]
    b = max(1, (s.radix - 1).bit_length())
    lines = []
    for stage in s.route.stages:
        rows = []
        for _, state in stage:
            word = 0
            for k, v in enumerate(state.tolist()):
                word |= int(v) << (k * b)
            rows.append(format(word, "x"))
        lines.append(rows)
    return lines


def write_hex(s: Settings, outdir) -> list[Path]:
    """Write ``stage_SS.hex`` files (and ``config.hex`` for 2x2 networks)."""
    out = Path(outdir)
    paths = []
    width = len(str(max(s.stages - 1, 0)))
    for st, rows in enumerate(_hex_lines(s)):
        paths.append(atomic_write(out / f"stage_{st:0{max(width, 2)}d}.hex", "\n".join(rows) + "\n"))
    if isinstance(s.route, benes.BenesRoute):
        digits = max(1, (s.size // 2 + 3) // 4)
        words = benes.stage_words(s.route)
        paths.append(atomic_write(out / "config.hex", "".join(f"{w:0{digits}x}\n" for w in words)))
    return paths
