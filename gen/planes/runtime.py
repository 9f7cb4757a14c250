"""Configuration words of run-time loadable planes (:class:`permnet.hdl.planes.PlaneSet`).

    >>> from permnet.gen.planes.runtime import config_writes, decode_readback
    >>> w = config_writes("crossbar", [[1, 2, 0]])
    >>> [(y, a, f"{d:03b}") for y, a, d in w]          # enable bit, then the 2-bit destination
    [(0, 0, '101'), (0, 1, '110'), (0, 2, '100')]
    >>> decode_readback("crossbar", 3, [d for _, _, d in w])
    [1, 2, 0]

A plane y is a (partial) permutation P_y of the M nodes: output port y of
node n is wired to input port y of node P_y(n) (Melhem, eq. (3)); -1 (or
None) leaves node n's output unconnected.  A plane set is loaded by writes
``(plane, addr, data)``; this module computes them from the planes and turns
a read-back into the permutation again.  The hardware is the reader:

* ``crossbar``: one write per node, ``addr`` = n, ``data`` = ``enable << b |
  dest`` with b = bits(M - 1).  A connected node writes dest = P_y(n),
  enable 1.  The unconnected nodes are paired, in increasing order, with the
  outputs no node reaches and write that output with enable 0 (it disables
  both).  The M destinations of one plane are then always a permutation, so
  each write sets the backward selector of node n and the forward selector
  of output dest exactly once: no stale entry survives a full load.
* ``benes``: one write per stage, ``addr`` = s, ``data`` = the stage's
  settings word (bit j = the j-th switch of the stage crossed, the
  ``config.hex`` words of ``permnet benes``), from the looping algorithm of
  :mod:`permnet.gen.routing.benes` (any M >= 2); then ``addr`` = stages: the
  forward enable mask (bit m: some node reaches output m) and ``addr`` =
  stages + 1: the backward enable mask (bit n: node n's output is connected).
"""

from __future__ import annotations

import numpy as np

from permnet.gen.errors import require
from permnet.gen.graph.permutations import check_partial_permutation
from permnet.gen.routing import benes as router

__all__ = ["KINDS", "LOADABLE", "check_planes", "addr_bits", "data_bits", "dest_bits", "config_writes",
           "plane_writes", "decode_readback", "benes_stages", "pack_write"]

KINDS = ("wires", "crossbar", "benes")
LOADABLE = ("crossbar", "benes")


def _bits(x: int) -> int:
    return max(1, int(x).bit_length())


def check_planes(planes, M: int | None = None, S: int | None = None) -> np.ndarray:
    """The planes as an (S, M) int64 array, -1 for unconnected; errors name the plane."""
    rows = [[-1 if v is None else v for v in row] for row in planes]
    require(len(rows) >= 1, "at least one plane is needed")
    require(all(len(r) == len(rows[0]) for r in rows), "the planes must all have the same number of ports")
    arr = np.asarray(rows, dtype=np.int64)
    require(arr.shape[1] >= 2, f"planes need at least 2 ports, got {arr.shape[1]}")
    require(M is None or arr.shape[1] == M, f"planes have {arr.shape[1]} ports, the plane set {M}")
    require(S is None or arr.shape[0] == S, f"{arr.shape[0]} planes given, the plane set has {S}")
    for y, row in enumerate(arr):
        check_partial_permutation(row, f"plane {y}")
    return arr


def benes_stages(M: int, network: str = "benes") -> int:
    """Switch stages of the M-port network: 2 ceil(log2 M) - 1."""
    return router.depth(M)


def dest_bits(M: int) -> int:
    return _bits(M - 1)


def addr_bits(kind: str, M: int, network: str = "benes") -> int:
    """Width of ``cfg.addr``: a node (crossbar) or a stage / mask word (benes)."""
    require(kind in LOADABLE, f"{kind!r} planes have no configuration port")
    return dest_bits(M) if kind == "crossbar" else _bits(benes_stages(M, network) + 1)


def data_bits(kind: str, M: int, network: str = "benes") -> int:
    """Width of ``cfg.data``: enable + destination (crossbar), or M (a mask;
    the stage words of floor(M/2) bits are zero-extended)."""
    require(kind in LOADABLE, f"{kind!r} planes have no configuration port")
    return dest_bits(M) + 1 if kind == "crossbar" else M


def _word(bits) -> int:
    return sum(int(b) << i for i, b in enumerate(bits))


def plane_writes(kind: str, plane, network: str = "benes") -> list[tuple[int, int]]:
    """The ``(addr, data)`` writes of one plane (see the module docstring)."""
    p = np.asarray(plane, dtype=np.int64)
    M = len(p)
    if kind == "crossbar":
        b = dest_bits(M)
        hit = np.zeros(M, bool)
        hit[p[p >= 0]] = True
        spare = iter(np.flatnonzero(~hit).tolist())
        return [(n, (1 << b) | int(d)) if d >= 0 else (n, next(spare)) for n, d in enumerate(p.tolist())]
    require(kind == "benes", f"{kind!r} planes have no configuration port")
    r = router.route(p, network)
    words = list(enumerate(router.stage_words(r)))
    fwd = np.zeros(M, np.uint8)
    fwd[p[p >= 0]] = 1
    return words + [(r.stages, _word(fwd)), (r.stages + 1, _word(p >= 0))]


def config_writes(kind: str, planes, network: str = "benes") -> list[tuple[int, int, int]]:
    """Every ``(plane, addr, data)`` write that loads ``planes`` into a plane
    set of ``kind``, plane 0 first (commit once after the last)."""
    arr = check_planes(planes)
    return [(y, a, d) for y, row in enumerate(arr) for a, d in plane_writes(kind, row, network)]


def decode_readback(kind: str, M: int, words, network: str = "benes") -> list[int]:
    """The permutation (-1 unconnected) that one plane's read-back words
    describe: per node for a crossbar, per address (stage words then the two
    masks) for Beneš, which replays the settings through the network."""
    words = [int(w) for w in words]
    if kind == "crossbar":
        b = dest_bits(M)
        return [w & ((1 << b) - 1) if w >> b & 1 else -1 for w in words]
    require(kind == "benes", f"{kind!r} planes have no configuration port")
    stages = benes_stages(M, network)
    require(len(words) == stages + 2, f"{stages + 2} words expected for {M} ports, got {len(words)}")
    r = router.route(np.arange(M), network)       # the network's shape; the settings are replaced below
    for s in range(stages):
        row = np.zeros(M, np.uint8)
        for j, q in enumerate(r.stage_switches(s).tolist()):
            row[q] = words[s] >> j & 1
        r.bits[s] = np.packbits(row, bitorder="little")[:r.bits.shape[1]]
    at = router.replay(r, threads=False)          # position m holds the input routed to output m
    perm = [-1] * M
    for m, n in enumerate(at.tolist()):
        if words[stages + 1] >> n & 1:
            require(words[stages] >> m & 1, f"node {n} is connected but output {m} is masked off")
            perm[n] = m
    return perm


def pack_write(plane: int, addr: int, data: int, addr_bits: int, data_bits: int) -> int:
    """One write as a single word, ``plane | addr | data`` from the most
    significant end (the lines of ``permnet rtl planes``'s ``_cfg.hex``)."""
    return (plane << (addr_bits + data_bits)) | (addr << data_bits) | data
