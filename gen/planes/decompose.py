"""Decomposition of a regular digraph into permutations (switching planes).

    >>> from permnet.gen.planes import decompose as planes
    >>> p = planes.ldi_planes(9, 3, method="formula3")
    >>> p.planes[0].tolist()              # sigma_0 of Melhem Section 3
    [0, 3, 6, 2, 5, 8, 1, 4, 7]

Plane y is a permutation: ingress (source node) i is connected to egress
``planes[y][i]``.  Together the S planes carry exactly the edge multiset of
LDI(M, S), self-loops included (Melhem, Section 3).

Which closed form holds where (checked mechanically, ``tests/test_planes.py``)
-------------------------------------------------------------------------------
* ``formula3`` -- the paper's eq. (3), ``Dest(n,y) = (Sn + (y - n div S) mod S) mod M``.
  It is a permutation **iff M = S^2 k with gcd(k, S) = 1**.  In particular
  it fails for every ``M = S^h`` with h >= 3 (LDI(8,2): nodes 0 and 4 collide),
  so it cannot be used for LDI(4096, 8).
* ``residue`` -- for every M divisible by S (every M of Theorem 3's form),
  with m = M/S: ``Dest(n,y) = S (n mod m) + (y - n div m) mod S``.  Proof:
  nodes n = r + t m (t = 0..S-1) share the successor block [S r, S r + S),
  the blocks of different r tile 0..M-1, and for fixed y the S nodes of a
  block get the S distinct offsets (y - t) mod S.  It coincides with eq. (3)
  when M = S^2.
* ``gcd`` -- every M and S, with g = gcd(S, M), M' = M/g, S' = S/g; node
  n = t + k M' (t = n mod M', k = n div M'):
  ``Dest(n,y) = g ((S' t + y div g) mod M') + (k + y) mod g``.
  Proof: S n mod M = g (S' t mod M'), so with L = a g + b (a < S', b < g)
  the arc n -> (S n + L) mod M is n -> g ((S' t + a) mod M') + b.  Plane y
  takes a = y div g, b = (k + y) mod g: t -> S' t + a is a bijection mod M'
  (gcd(S', M') = 1) and k -> (k + y) mod g one of 0..g-1, so every plane is
  a permutation; for a node, y = 0..S-1 gives every pair (a, b) once, i.e.
  every L once.  For g = 1 it is ``(S n + y) mod M``.  Used by ``auto``
  whenever S does not divide M: O(S M) arithmetic, no search.
* ``colouring`` -- any M and S: the S-regular bipartite multigraph (sources
  on the left, destinations on the right) is edge-coloured with S colours
  (:mod:`permnet.gen.graph.coloring`); the general path, kept for any
  regular topology and as an independent cross-check.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.graph.permutations import is_permutation
from permnet.gen.topologies import ldi
from permnet.gen.graph.coloring import edge_colour_regular_bipartite
from permnet.gen.planes.methods import PLANE_METHODS

__all__ = ["Planes", "formula3_valid", "ldi_planes", "decompose", "check_planes", "is_permutation"]

METHODS = PLANE_METHODS


@dataclass(frozen=True)
class Planes:
    """``planes[y][i]`` is the egress of ingress i in plane y (-1: unconnected)."""

    planes: np.ndarray
    method: str

    @property
    def count(self) -> int:
        return self.planes.shape[0]

    @property
    def ports(self) -> int:
        return self.planes.shape[1]


def formula3_valid(M: int, S: int) -> bool:
    """Where eq. (3) is a permutation: ``M = S^2 k`` with ``gcd(k, S) = 1``."""
    return M % (S * S) == 0 and gcd(M // (S * S), S) == 1


def _formula3(M: int, S: int) -> np.ndarray:
    n = np.arange(M, dtype=np.int64)[None, :]
    y = np.arange(S, dtype=np.int64)[:, None]
    return (S * n + (y - n // S) % S) % M


def _residue(M: int, S: int) -> np.ndarray:
    m = M // S
    n = np.arange(M, dtype=np.int64)[None, :]
    y = np.arange(S, dtype=np.int64)[:, None]
    return S * (n % m) + (y - n // m) % S


def _gcd_form(M: int, S: int) -> np.ndarray:
    g = gcd(S, M)
    Mp, Sp = M // g, S // g
    n = np.arange(M, dtype=np.int64)
    t, k = n % Mp, n // Mp
    base = Sp * t                                     # < S' M', no overflow
    out = np.empty((S, M), dtype=np.int64)
    for y in range(S):
        out[y] = g * ((base + y // g) % Mp) + (k + y) % g
    return out


def decompose(succ: np.ndarray) -> np.ndarray:
    """Split a digraph given as an (n, d) successor array, every in-degree
    also d, into d permutations (an (d, n) array) by bipartite edge colouring."""
    succ = np.asarray(succ, dtype=np.int64)
    n, d = succ.shape
    left = np.repeat(np.arange(n, dtype=np.int64), d)
    right = succ.reshape(-1)
    colour = edge_colour_regular_bipartite(left, right, n)
    out = np.empty((d, n), dtype=np.int64)
    out[colour, left] = right
    return out


def ldi_planes(M: int, S: int, method: str = "auto") -> Planes:
    """The S switching planes of LDI(M, S).

    ``method``: ``auto`` (residue when S divides M, else gcd),
    ``formula3``, ``residue``, ``gcd`` or ``colouring``; a closed form asked
    for where it does not hold is an error, never a wrong answer.
    """
    ldi.check_params(M, S)
    from permnet.gen.limits import check_memory
    # the S x M int64 planes and the closed forms' temporaries of the same shape
    check_memory(f"the {S} planes of LDI({M},{S})", 32 * M * S)
    if method == "auto":
        method = "residue" if M % S == 0 else "gcd"
    if method == "formula3":
        require(formula3_valid(M, S),
                f"eq. (3) is a permutation only for M = S^2*k with gcd(k,S)=1; not for M={M}, S={S}")
        out = _formula3(M, S)
    elif method == "residue":
        require(M % S == 0, f"the residue form needs S | M; S={S} does not divide M={M}")
        out = _residue(M, S)
    elif method == "gcd":
        out = _gcd_form(M, S)
    elif method == "colouring":
        out = decompose(ldi.successors(M, S))
    else:
        raise PermnetError(f"unknown plane method {method!r}; choose from {', '.join(METHODS)}")
    return Planes(out, method)


def check_planes(planes: np.ndarray, succ: np.ndarray) -> None:
    """Raise :class:`PermnetError` unless every plane is a permutation and the
    planes together are exactly the edge multiset of ``succ``."""
    planes = np.asarray(planes)
    n, d = succ.shape
    require(planes.shape == (d, n), f"expected {d} planes of {n} ports, got shape {planes.shape}")
    for y, row in enumerate(planes):
        require(is_permutation(row), f"plane {y} is not a permutation")
    got = np.sort(planes.T, axis=1)
    want = np.sort(succ, axis=1)
    bad = np.nonzero(np.any(got != want, axis=1))[0]
    require(bad.size == 0, f"planes do not carry the links of node {bad[0] if bad.size else -1}")


def successor_array(n: int, tails, heads) -> np.ndarray:
    """(n, d) successors of a digraph whose every out- and in-degree is d
    (undirected graphs: both arc directions), else a :class:`PermnetError`."""
    tails = np.asarray(tails, dtype=np.int64)
    heads = np.asarray(heads, dtype=np.int64)
    out_deg = np.bincount(tails, minlength=n)
    in_deg = np.bincount(heads, minlength=n)
    d = int(out_deg.max()) if n else 0
    require(d >= 1 and out_deg.min() == d and in_deg.min() == in_deg.max() == d,
            f"planes need every in- and out-degree equal (a d-regular topology); out-degrees "
            f"{int(out_deg.min())}..{d}, in-degrees {int(in_deg.min())}..{int(in_deg.max())}")
    order = np.lexsort((heads, tails))
    return heads[order].reshape(n, d)


def topology_planes(built) -> Planes:
    """Switching planes of any built family: an IP graph's generators are
    already permutations of its nodes (one plane each, self-loops kept as a
    port looped to itself); any other d-regular topology is split by
    bipartite edge colouring (Koenig: d perfect matchings exist)."""
    succ = getattr(built, "succ", None)
    if succ is not None:
        planes = np.ascontiguousarray(succ.T)
        if all(is_permutation(row) for row in planes):
            check_planes(planes, succ)
            return Planes(planes, "generators")
        # the ports of a quotient (QCN): a regular multigraph, not one permutation per column
        planes = decompose(np.asarray(succ, dtype=np.int64))
        check_planes(planes, succ)
        return Planes(planes, "colouring")
    succ = successor_array(built.n, built.tails, built.heads)
    planes = decompose(succ)
    check_planes(planes, succ)
    return Planes(planes, "colouring")
