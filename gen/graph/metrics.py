"""Distance metrics of directed graphs by bit-parallel breadth-first search.

    >>> from permnet.gen.graph import metrics
    >>> from permnet.gen.topologies import ldi
    >>> g = metrics.Digraph.from_successors(ldi.successors(9, 3))
    >>> s = metrics.distance_stats(g)
    >>> s.diameter, s.strongly_connected
    (2, True)

Sixty-four sources are searched at once: ``reach[v]`` is a 64-bit word whose
bit j says that source j has reached v, and one level of BFS for all 64 is
``next[v] |= frontier[u]`` over every arc u -> v.  The cost is O(levels * m)
word operations per 64 sources instead of O(m) per source, and batches of
sources are split across cores with numba's ``prange``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange
from numba.core import types
from numba.extending import intrinsic

__all__ = ["Digraph", "DistanceStats", "distance_stats", "expand_frontier", "one_source_bfs"]


@dataclass(frozen=True)
class Digraph:
    """A directed (multi)graph on nodes ``0..n-1`` in CSR form: the arcs of u
    go to ``indices[indptr[u]:indptr[u+1]]``."""

    n: int
    indptr: np.ndarray
    indices: np.ndarray

    @classmethod
    def from_successors(cls, succ: np.ndarray) -> "Digraph":
        """From an (n, d) array of successors (every node out-degree d)."""
        succ = np.ascontiguousarray(succ, dtype=np.int64)
        n, d = succ.shape
        return cls(n, np.arange(0, n * d + 1, d, dtype=np.int64), succ.reshape(-1))

    @classmethod
    def from_arcs(cls, n: int, tails, heads) -> "Digraph":
        """From parallel arrays of arc tails and heads (any order)."""
        tails = np.asarray(tails, dtype=np.int64)
        heads = np.asarray(heads, dtype=np.int64)
        order = np.argsort(tails, kind="stable")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(tails, minlength=n), out=indptr[1:])
        return cls(n, indptr, heads[order])

    def arcs(self) -> tuple[np.ndarray, np.ndarray]:
        tails = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.indptr))
        return tails, self.indices


@dataclass(frozen=True)
class DistanceStats:
    """All-pairs distance summary.  ``hop_counts[k]`` counts ordered pairs of
    distinct nodes at distance k; ``eccentricity[u]`` is the largest finite
    distance from u; the diameter and average are None unless every node
    reaches every other node (strong connectivity)."""

    n: int
    strongly_connected: bool
    diameter: int | None
    avg_hops: float | None
    hop_counts: np.ndarray
    eccentricity: np.ndarray
    reached: np.ndarray  # nodes reached from each source, itself included

    def as_dict(self) -> dict:
        return {
            "nodes": self.n,
            "strongly_connected": self.strongly_connected,
            "diameter": self.diameter,
            "avg_hops": self.avg_hops,
            "hop_histogram": {str(k): int(c) for k, c in enumerate(self.hop_counts) if c},
        }


@intrinsic
def _popcount(_typingctx, x):
    """Population count of a uint64 (LLVM ctpop: one instruction on x86-64)."""
    if x != types.uint64:
        return None

    def codegen(_context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def expand_frontier(front, seen, nxt, full, push, indptr, indices, rptr, rind):
    """One level of the direction-optimising bit-parallel BFS (Beamer et al.,
    SC 2012); bit j of a word is source j, ``full`` has every source's bit.

    Push: ``nxt[v] |= front[u]`` over the arcs u -> v of the frontier (``nxt``
    must hold zeros).  Pull: every node v still missing some sources ORs
    ``front[u]`` over its in-arcs u -> v (``rptr``/``rind``; the same arrays
    as ``indptr``/``indices`` for an undirected graph) and stops as soon as
    all of them are found, which skips most arcs in the last levels.  Either
    way ``nxt[v] & ~seen[v]`` is then the set of sources first reaching v."""
    if push:
        for u in range(front.shape[0]):
            f = front[u]
            if f:
                for e in range(indptr[u], indptr[u + 1]):
                    nxt[indices[e]] |= f
    else:
        for v in range(front.shape[0]):
            need = full & ~seen[v]
            acc = np.uint64(0)
            if need:
                for e in range(rptr[v], rptr[v + 1]):
                    acc |= front[rind[e]]
                    if (acc & need) == need:
                        break
            nxt[v] = acc & need


@njit(cache=True, parallel=True)
def _bfs_batches(n, indptr, indices, rptr, rind, first, nbat, ecc, reached):
    """BFS from the 64-source batches first..first+nbat-1; fills ecc and
    reached for their sources and returns one hop histogram per batch.

    Direction-optimising (Beamer et al., SC 2012): a level is *pushed*
    (``nxt[v] |= front[u]`` over the arcs u -> v of the frontier) while the
    frontier is small, and *pulled* once it is large: every node v still
    missing some sources ORs ``front[u]`` over its in-arcs u -> v
    (``rptr``/``rind``) and stops as soon as all the missing sources are
    found, which skips most arcs in the last levels."""
    hist = np.zeros((nbat, n + 1), np.int64)
    m = indptr[n]
    for k in prange(nbat):
        s0 = (first + k) * 64
        ns = min(64, n - s0)
        full = (np.uint64(1) << np.uint64(ns)) - np.uint64(1) if ns < 64 else ~np.uint64(0)
        seen = np.zeros(n, np.uint64)
        front = np.zeros(n, np.uint64)
        nxt = np.zeros(n, np.uint64)
        for j in range(ns):
            front[s0 + j] |= np.uint64(1) << np.uint64(j)
            seen[s0 + j] |= np.uint64(1) << np.uint64(j)
        front_arcs = 0
        for j in range(ns):
            front_arcs += indptr[s0 + j + 1] - indptr[s0 + j]
        missing = n * ns - ns                # (source, node) pairs not reached yet
        level = 0
        while missing > 0:
            expand_frontier(front, seen, nxt, full, front_arcs * 2 < m, indptr, indices, rptr, rind)
            level += 1
            active = np.uint64(0)
            cnt = 0
            front_arcs = 0
            for v in range(n):
                w = nxt[v] & ~seen[v]            # a pushed level may also reach nodes seen before
                nxt[v] = 0
                front[v] = w
                if w:
                    seen[v] |= w
                    active |= w
                    cnt += np.int64(_popcount(w))
                    front_arcs += indptr[v + 1] - indptr[v]
            if cnt == 0:
                break
            missing -= cnt
            hist[k, level] += cnt
            for j in range(ns):
                if (active >> np.uint64(j)) & np.uint64(1):
                    ecc[s0 + j] = level
        if missing == 0:                     # every source of the batch reached every node
            for j in range(ns):
                reached[s0 + j] = n
        else:
            for v in range(n):
                w = seen[v]
                for j in range(ns):
                    if (w >> np.uint64(j)) & np.uint64(1):
                        reached[s0 + j] += 1
    return hist


@njit(cache=True)
def one_source_bfs(succ, src):
    """Breadth-first search from ``src`` over a successor table ``succ``
    (shape (d, n): ``succ[p, u]`` is u's p-th successor).  Returns (sum of
    the distances to the nodes reached, eccentricity, nodes at that
    distance, nodes reached)."""
    d, n = succ.shape
    dist = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    dist[src] = 0
    queue[0] = src
    head, tail = 0, 1
    total = 0
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u] + 1
        for p in range(d):
            v = succ[p, u]
            if dist[v] < 0:
                dist[v] = du
                total += du
                queue[tail] = v
                tail += 1
    ecc = dist[queue[tail - 1]]        # BFS order: the queue ends with the farthest nodes
    at = 0
    while at < tail and dist[queue[tail - 1 - at]] == ecc:
        at += 1
    return total, ecc, at, tail


@njit(cache=True)
def reverse_csr(n, indptr, indices):
    """In-arcs in CSR form (``rind[rptr[v]:rptr[v+1]]`` = tails of the arcs
    into v, in increasing order) by one counting sort: O(n + m)."""
    rptr = np.zeros(n + 1, np.int64)
    for e in range(indptr[n]):
        rptr[indices[e] + 1] += 1
    for v in range(n):
        rptr[v + 1] += rptr[v]
    fill = rptr[:n].copy()
    rind = np.empty(indptr[n], np.int64)
    for u in range(n):
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            rind[fill[v]] = u
            fill[v] += 1
    return rptr, rind


def _bfs_all(n, indptr, indices):
    # Batches go to the kernel a few at a time so the per-batch histograms
    # stay O(cores * n) in memory even for 10^5 nodes.
    nbatch = (n + 63) // 64
    # as many batches per call as 64 MB of histograms allow (at least 2 per thread)
    chunk = max(2 * numba.get_num_threads(), (64 << 20) // (8 * (n + 1)))
    ecc = np.zeros(n, np.int64)
    reached = np.zeros(n, np.int64)
    hist = np.zeros(n + 1, np.int64)
    rptr, rind = reverse_csr(n, indptr, indices)
    from tqdm import tqdm

    # a bar only on a terminal (tqdm's disable=None), and only when there is more than one call
    with tqdm(total=n, unit="source", desc="all-pairs BFS", disable=None if nbatch > chunk else True,
              leave=False) as bar:
        for first in range(0, nbatch, chunk):
            count = min(chunk, nbatch - first)
            hist += _bfs_batches(n, indptr, indices, rptr, rind, first, count, ecc, reached).sum(axis=0)
            bar.update(min(n, (first + count) * 64) - min(n, first * 64))
    return hist, ecc, reached


def distance_stats(g: Digraph) -> DistanceStats:
    """Diameter, average distance over ordered pairs of distinct nodes, the
    hop-count histogram and eccentricities of ``g`` (exact, all pairs)."""
    hist, ecc, reached = _bfs_all(g.n, g.indptr, g.indices)
    last = int(np.max(np.nonzero(hist)[0])) if hist.any() else 0
    hist = hist[: last + 1]
    connected = bool(np.all(reached == g.n))
    pairs = g.n * (g.n - 1)
    if connected:
        diam = int(ecc.max()) if g.n > 1 else 0
        avg = float(np.dot(np.arange(len(hist)), hist) / pairs) if pairs else 0.0
    else:
        diam, avg = None, None
    return DistanceStats(g.n, connected, diam, avg, hist, ecc, reached)
