"""Static planes for an application's traffic (Melhem Sections 1, 5 and 6).

    >>> from permnet.gen.traffic.patterns import pattern
    >>> from permnet.gen.traffic.plan import plan_planes
    >>> r = plan_planes(pattern("transpose", 64), 4)
    >>> r.circuits, r.mean_hops, r.ldi_mean_hops > 1
    (1, 1.0, True)

Melhem's Section 1 sets the optical planes "to match the communication
requirement" of an application and embeds LDI(M, S) for the traffic without
locality; Section 5 dedicates K of the S planes to a regular pattern and the
other S - K to LDI(M, S - K); Section 6 asks how to configure those S - K.
Given a demand matrix D (``D[s, d]`` >= 0, zero diagonal) this module
chooses the planes:

1. **Circuits.**  C_1, C_2, ... are maximum-weight perfect matchings of the
   residual demand, taken one after another (a greedy Birkhoff-von Neumann
   peeling): ``C_k = argmax_P sum_s R_k[s, P(s)]`` over permutations P with no
   fixed point, then ``R_{k+1} = R_k`` with the entries of C_k set to 0 (a
   pair with a circuit is served on one hop; a second circuit would not
   shorten it).  Solved as a minimum-cost full bipartite matching
   (LAPJVsp, :func:`scipy.sparse.csgraph.min_weight_full_bipartite_matching`)
   over candidate arcs: every off-diagonal pair when M <= 512 (exact);
   above, each row's ``max(4 S, 32)`` largest demands plus the shifts s -> s +- 1
   (which guarantee a perfect matching): the heavy entries a maximum
   matching uses, in O(M k) instead of O(M^2) per matching.
2. **Free planes.**  The other S - K planes are LDI(M, S - K) (Melhem eq.
   (1), :func:`permnet.gen.planes.decompose.ldi_planes`) when S - K >= 2 and
   M > S - K; one free plane is the ring s -> s + 1 (it keeps the union
   strongly connected); with ``evaluations`` > 0 the free planes of the best
   K are then improved by arc swaps as in :mod:`permnet.gen.planes.mixed_search`
   (phase 2), scored by the demand-weighted objective below.
3. **K** is chosen by the objective, every K in 0..S tried: the smallest
   demand-weighted mean hop count wins, ties go to the smaller maximum link
   load, then to the smaller K (more planes left for random traffic).

**Objective.**  The union of the planes is the digraph with arcs
``n -> planes[y][n]``; ``h(s, d)`` is its shortest-path hop count and the
weighted mean is ``H = sum_{s,d} D[s,d] h(s,d) / sum_{s,d} D[s,d]``
(infinite when a pair with demand is unreachable).  **Link load** routes
each pair on one shortest path, the one of the deterministic BFS tree of s
(nodes taken from the queue in order, a node's planes in order 0..S-1, the
first arc that reaches a node is its tree arc); the load of link (y, n), the
circuit of plane y leaving node n, is the demand routed over it, and the
maximum over all links is reported in the demand's own units.

Speed: K is chosen on the weighted mean alone, computed by a bit-parallel
BFS (64 sources a machine word, as in :mod:`permnet.gen.graph.metrics`, over
frontier lists) that stops once a batch's sources have reached all their
destinations (one level for a stencil); the link loads need each source's
own BFS tree and are computed only for the K tied at the best mean (and for
LDI(M, S)).  Both run in numba over a fixed number of source batches, so
the sums do not depend on the thread count.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange

from permnet.gen.errors import require
from permnet.gen.planes.mixed_search import swap_images
from permnet.gen.traffic.demand import check_demand

__all__ = ["PlanResult", "RouteStats", "plan_planes", "route_stats", "circuit_planes", "free_planes"]

CHUNKS = 16
EXACT_MATCHING_NODES = 512


# the index of a word's lowest set bit by de Bruijn multiplication (Leiserson, Prokop and
# Randall, 1998): (x & -x) * B >> 58 is distinct for the 64 powers of two
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[(((1 << _i) * int(_DEBRUIJN)) % (1 << 64)) >> 58] = _i


@njit(cache=True, parallel=True)
def _hops_all(planes, DT, need, nbatch):
    """Sum of D[s, d] h(s, d) and the demand never reached, by bit-parallel BFS
    (64 sources a word, :mod:`permnet.gen.graph.metrics`) over frontier lists;
    ``DT`` is D transposed (``DT[v, s]``), ``need[s]`` the destinations of s.
    A batch stops once its sources have reached all their destinations."""
    S, M = planes.shape
    tot = np.zeros(nbatch)
    lost = np.zeros(nbatch)
    table = _DEBRUIJN_INDEX
    for b in prange(nbatch):
        s0 = b * 64
        ns = min(64, M - s0)
        seen = np.zeros(M, np.uint64)
        front = np.zeros(M, np.uint64)
        nxt = np.zeros(M, np.uint64)
        cur = np.empty(M, np.int64)
        new = np.empty(M, np.int64)
        ncur = 0
        missing = 0
        for j in range(ns):
            bit = np.uint64(1) << np.uint64(j)
            seen[s0 + j] = bit
            front[s0 + j] = bit
            cur[ncur] = s0 + j
            ncur += 1
            missing += need[s0 + j]
        level = 0
        acc = 0.0
        while missing > 0 and ncur > 0:
            level += 1
            nnew = 0
            for i in range(ncur):
                u = cur[i]
                f = front[u]
                front[u] = 0
                for p in range(S):
                    v = planes[p, u]
                    if f & ~seen[v]:
                        if nxt[v] == 0:
                            new[nnew] = v
                            nnew += 1
                        nxt[v] |= f
            ncur = 0
            for i in range(nnew):
                v = new[i]
                w = nxt[v] & ~seen[v]
                nxt[v] = 0
                if w:
                    seen[v] |= w
                    front[v] = w
                    cur[ncur] = v
                    ncur += 1
                    while w:
                        j = table[((w & (~w + np.uint64(1))) * _DEBRUIJN) >> np.uint64(58)]
                        w &= w - np.uint64(1)
                        d = DT[v, s0 + j]
                        if d > 0:
                            acc += level * d
                            missing -= 1
        tot[b] = acc
        if missing > 0:
            miss = 0.0
            for v in range(M):
                for j in range(ns):
                    if not (seen[v] >> np.uint64(j)) & np.uint64(1):
                        miss += DT[v, s0 + j]
            lost[b] = miss
    return tot, lost


@njit(cache=True, parallel=True)
def _route_all(planes, D, sources, need, nchunk):
    S, M = planes.shape
    ns = sources.shape[0]
    loads = np.zeros((nchunk, S, M))
    tot = np.zeros(nchunk)
    lost = np.zeros(nchunk)
    for c in prange(nchunk):
        dist = np.full(M, -1, np.int64)
        par = np.empty(M, np.int64)
        via = np.empty(M, np.int64)
        queue = np.empty(M, np.int64)
        acc = np.zeros(M)
        for k in range(c, ns, nchunk):
            s = sources[k]
            dist[s] = 0
            queue[0] = s
            acc[s] = 0.0
            head, tail = 0, 1
            left = need[k]
            while head < tail and left > 0:
                u = queue[head]
                head += 1
                du = dist[u] + 1
                for p in range(S):
                    v = planes[p, u]
                    if dist[v] < 0:
                        dist[v] = du
                        par[v] = u
                        via[v] = p
                        acc[v] = D[s, v]
                        queue[tail] = v
                        tail += 1
                        if D[s, v] > 0:
                            left -= 1
            got = 0.0
            for i in range(tail - 1, 0, -1):
                v = queue[i]
                a = acc[v]
                if a > 0:
                    got += D[s, v]
                    tot[c] += D[s, v] * dist[v]
                    loads[c, via[v], par[v]] += a
                    acc[par[v]] += a
            row = 0.0
            for v in range(M):
                row += D[s, v]
            lost[c] += row - got if left > 0 else 0.0
            for i in range(tail):
                dist[queue[i]] = -1
    return tot, lost, loads


@dataclass(frozen=True)
class RouteStats:
    """Demand-weighted mean hops (inf when demand is unreachable), the maximum
    link load under BFS-tree shortest-path routing, and the unreachable demand."""

    mean_hops: float
    max_link_load: float
    unreachable: float

    def as_dict(self) -> dict:
        return {"mean_hops": _num(self.mean_hops), "max_link_load": _num(self.max_link_load),
                "unreachable_demand": self.unreachable}


def _num(x):
    return x if math.isfinite(x) else "inf"


def _prepare(D):
    D = np.ascontiguousarray(D, dtype=np.float64)
    need = (D > 0).sum(axis=1).astype(np.int64)
    sources = np.nonzero(need)[0].astype(np.int64)
    return D, sources, need[sources], float(D.sum()), np.ascontiguousarray(D.T), need


def _mean_hops(planes, prepared) -> float:
    """The weighted mean hops alone (bit-parallel; inf when demand is unreachable)."""
    D, _, _, total, DT, need_all = prepared
    M = D.shape[0]
    tot, lost = _hops_all(np.ascontiguousarray(planes, dtype=np.int64), DT, need_all, (M + 63) // 64)
    return math.inf if float(lost.sum()) > 1e-12 * total else float(tot.sum()) / total


def _route(planes, prepared):
    D, sources, need, total = prepared[:4]
    planes = np.ascontiguousarray(planes, dtype=np.int64)
    tot, lost, loads = _route_all(planes, D, sources, need, min(CHUNKS, max(1, len(sources))))
    unreachable = float(lost.sum())
    if unreachable > 1e-12 * total:
        return RouteStats(math.inf, math.inf, unreachable)
    return RouteStats(float(tot.sum()) / total, float(loads.sum(axis=0).max()), 0.0)


def route_stats(planes, D) -> RouteStats:
    """Weighted mean hops and maximum link load of demand ``D`` on the union of ``planes``."""
    planes = np.asarray(planes, dtype=np.int64)
    D = check_demand(D, planes.shape[1])
    return _route(planes, _prepare(D))


@njit(cache=True, parallel=True)
def _top_k(D, k):
    """Column indices of the k largest off-diagonal entries of each row (ties: lowest index)."""
    M = D.shape[0]
    out = np.empty((M, k), np.int64)
    for s in prange(M):
        row = D[s].copy()
        row[s] = -1.0
        t = np.partition(-row, k - 1)[k - 1]         # minus the k-th largest value
        n = 0
        for v in range(M):
            if -row[v] < t:
                out[s, n] = v
                n += 1
        for v in range(M):
            if n < k and -row[v] == t:
                out[s, n] = v
                n += 1
    return out


def _candidates(D, S):
    """Candidate arcs (rows, cols) for the matchings: see the module docstring."""
    M = D.shape[0]
    n = np.arange(M)
    if M <= EXACT_MATCHING_NODES:
        rows, cols = np.nonzero(~np.eye(M, dtype=bool))
        return rows.astype(np.int64), cols.astype(np.int64)
    k = min(M - 1, max(4 * S, 32))
    top = _top_k(np.ascontiguousarray(D), k)
    rows = np.concatenate([np.repeat(n, k), n, n])
    cols = np.concatenate([top.ravel(), (n + 1) % M, (n - 1) % M])
    keep = rows != cols
    key = np.unique(rows[keep] * M + cols[keep])
    return key // M, key % M


def circuit_planes(D, count: int) -> np.ndarray:
    """``count`` circuit planes C_1..C_count peeled from ``D`` by maximum-weight
    perfect matchings without fixed points (module docstring, step 1)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    M = D.shape[0]
    rows, cols = _candidates(D, count)
    w = D[rows, cols].copy()
    out = np.empty((count, M), np.int64)
    for k in range(count):
        cost = (w.max() + 1.0) - w            # > 0: LAPJVsp ignores stored zeros
        r, c = min_weight_full_bipartite_matching(csr_matrix((cost, (rows, cols)), shape=(M, M)))
        plane = np.empty(M, np.int64)
        plane[r] = c
        out[k] = plane
        hit = plane[rows] == cols
        w[hit] = 0.0
    return out


def free_planes(M: int, F: int) -> np.ndarray | None:
    """The F free planes: LDI(M, F) when F >= 2 and M > F, the ring when F = 1,
    none when F = 0; None when LDI(M, F) does not exist (M <= F)."""
    from permnet.gen.planes.decompose import ldi_planes

    if F == 0:
        return np.empty((0, M), np.int64)
    if F == 1:
        return ((np.arange(M) + 1) % M)[None, :].astype(np.int64)
    if M <= F:
        return None
    return ldi_planes(M, F).planes.astype(np.int64)


@dataclass
class PlanResult:
    """The planned planes (``planes[:circuits]`` the circuits, then the free
    planes), their figures, LDI(M, S)'s on the same demand, and every K tried."""

    nodes: int
    degree: int
    circuits: int
    planes: np.ndarray
    stats: RouteStats
    ldi: RouteStats | None
    tried: list = field(default_factory=list)      # (K, weighted mean hops) for every K evaluated
    free: str = ""
    evaluations: int = 0
    seconds: float = 0.0

    @property
    def mean_hops(self) -> float:
        return self.stats.mean_hops

    @property
    def max_link_load(self) -> float:
        return self.stats.max_link_load

    @property
    def ldi_mean_hops(self) -> float | None:
        return None if self.ldi is None else self.ldi.mean_hops

    def as_dict(self, planes: bool = True) -> dict:
        out = {"nodes": self.nodes, "degree": self.degree, "circuits": self.circuits, "free_planes": self.free,
               **self.stats.as_dict(),
               "ldi": None if self.ldi is None else {"topology": f"LDI({self.nodes},{self.degree})",
                                                     **self.ldi.as_dict()},
               "tried": [{"circuits": k, "mean_hops": _num(h)} for k, h in self.tried],
               "evaluations": self.evaluations, "seconds": round(self.seconds, 3)}
        if planes:
            out["planes"] = self.planes.tolist()
        return out


def _key(k, s: RouteStats):
    return (s.mean_hops, s.max_link_load, k)


def _improve(planes, K, prepared, best: float, evaluations: int, seed: int):
    """Arc swaps in the free planes (mixed_search phase 2, weighted objective):
    swap the images of j random node pairs in one free plane, j shrinking from
    M/16 to 1, keep the move when the weighted mean hops does not grow."""
    S, M = planes.shape
    rng = np.random.default_rng(seed)
    cur = planes.copy()
    for e in range(evaluations):
        j = max(1, int(round((M / 16) * (1 - e / evaluations) ** 2)))
        q = int(rng.integers(K, S))
        plane = swap_images(cur[q], j, rng)
        trial = cur.copy()
        trial[q] = plane
        h = _mean_hops(trial, prepared)
        if h <= best:
            cur, best = trial, h
    return cur


def _improve_job(shared, seed: int):
    """One restart of :func:`_improve` (module level: processes and Dask pickle it by name)."""
    planes, K, prepared, evaluations = shared
    cur = _improve(planes, K, prepared, _mean_hops(planes, prepared), evaluations, seed)
    return _mean_hops(cur, prepared), cur


def plan_planes(D, S: int, *, evaluations: int = 0, seed: int = 0, restarts: int = 1, workers: int = 1,
                scheduler: str | None = None) -> PlanResult:
    """Plan S planes for demand ``D`` (module docstring); ``evaluations`` arc swaps
    of the free planes after K is chosen (0: LDI as it is), in each of ``restarts``
    independent chains (seeds ``seed``, ``seed + 1``, ...; the lowest weighted mean
    hops wins, ties to the lower seed), run as jobs on ``workers`` local processes or
    a Dask ``scheduler`` (:mod:`permnet.gen.parallel`): the same planes on any of them."""
    t0 = time.perf_counter()
    D = check_demand(D)
    M = D.shape[0]
    require(isinstance(S, (int, np.integer)) and 1 <= S <= 256, f"degree S must be between 1 and 256, got {S}")
    require(evaluations >= 0, f"evaluations must be >= 0, got {evaluations}")
    require(isinstance(restarts, (int, np.integer)) and restarts >= 1, f"restarts must be >= 1, got {restarts}")
    from permnet.gen.limits import check_memory

    check_memory(f"planning {M} nodes (four dense {M} x {M} matrices)", 4 * 8 * M * M)
    prepared = _prepare(D)
    circuits = circuit_planes(D, S)
    configs = {}
    tried = []
    for K in range(S + 1):
        free = free_planes(M, S - K)
        if free is not None:
            configs[K] = np.concatenate([circuits[:K], free])
            tried.append((K, _mean_hops(configs[K], prepared)))
    low = min(h for _, h in tried)
    # the bit-parallel sums differ from the per-source ones in the last digits: ties within 1e-9
    finalists = [k for k, h in tried if h <= low * (1 + 1e-9)] if math.isfinite(low) else [k for k, _ in tried]
    full = {k: _route(configs[k], prepared) for k in finalists}
    K = min(finalists, key=lambda k: _key(k, full[k]))
    planes, st = configs[K], full[K]
    F = S - K
    free_name = "none" if F == 0 else "ring" if F == 1 else f"LDI({M},{F})"
    if evaluations and F >= 1 and math.isfinite(st.mean_hops):
        from permnet.gen.parallel import Runner

        with Runner(workers, scheduler) as runner:
            outs = runner.map(_improve_job, [seed + i for i in range(restarts)],
                              shared=runner.share((planes, K, prepared, evaluations)), desc="arc-swap restarts")
        planes = min(enumerate(outs), key=lambda io: (io[1][0], io[0]))[1][1]
        st = _route(planes, prepared)
        free_name += "+arc-swaps"
    ldi_stats = None
    if S >= 2 and M > S:
        ldi_stats = full[0] if 0 in full else _route(configs[0], prepared)
    return PlanResult(M, S, K, planes, st, ldi_stats, tried, free_name, evaluations * restarts if F >= 1 else 0,
                      time.perf_counter() - t0)
