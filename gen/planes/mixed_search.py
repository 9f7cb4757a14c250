"""Configuring the free planes of a mixed network (Melhem, Section 6's open question).

    >>> from permnet.gen.planes.mixed import user_permutations
    >>> from permnet.gen.planes.mixed_search import optimize_mixed
    >>> res = optimize_mixed(64, 4, user_permutations(["torus:8x8"], 64)[:2], evaluations=300, seed=1)
    >>> res.avg_hops <= res.ldi_avg_hops
    True

Given S planes of which K carry fixed permutations, choose the other S-K
permutations so that uniform random traffic over all S planes takes the
fewest hops: minimise the exact average shortest-path length of the union
digraph (every plane a permutation, so every node has out- and in-degree S).

The search starts from LDI(M, S-K), Melhem's configuration, and keeps the
best configuration seen, so it never reports worse than LDI:

1. **Translations** (when every user plane is a translation of a group
   Z_a x Z_b on the nodes, node = row*b + column: a ring, shifts, a 2D
   torus).  The free planes are taken as translations too, so the union is
   a Cayley digraph: vertex-transitive, hence its exact average distance is
   that of one source (one BFS of M S arcs per candidate).  Hill climbing
   over the S-K generators (replace one by a random group element), a share
   (40 %) of the budget.  Then a few random derangements (a random regular
   digraph beats abelian Cayley digraphs, which grow only polynomially).
2. **Arc swaps** on the incumbent: in one free plane, exchange the images of
   j random node pairs (the plane stays a permutation; fixed points are
   refused), j shrinking from M/16 to 1 over the budget; a move is kept when
   the exact all-pairs total (bit-parallel BFS from every node) does not grow.

Seeded: with an ``evaluations`` budget the result is the same for the same
seed; a ``seconds`` budget depends on the machine's speed.

**Restarts.** ``restarts`` R runs R such searches, independent chains with
seeds ``seed``, ``seed + 1``, ..., ``seed + R - 1`` (each its own budget of
``evaluations``; a ``seconds`` budget is shared so that the R chains on the
workers take about that wall time, and a chain in a worker process starts
its clock once the compiled kernels are loaded there), and keeps the chain
whose union has the fewest total hops, ties to the lower seed.  The chains are jobs of
:mod:`permnet.gen.parallel` (``workers`` local processes or a Dask
``scheduler``) and come back in seed order, so the answer is the same on any
number of workers.  R = 1 is the single search above.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np
from numba import njit

from permnet.gen.errors import require
from permnet.gen.graph.metrics import _popcount, one_source_bfs
from permnet.gen.parallel import at_once, check_parallel, map_jobs
from permnet.gen.planes.decompose import is_permutation, ldi_planes
from permnet.gen.topologies import ldi

__all__ = ["optimize_mixed", "MixedSearchResult", "union_total_hops", "translation_group"]

PHASE1_SHARE = 0.4
RANDOM_STARTS = 3


def _derangement(M, rng):
    """A random permutation without fixed points (a plane links no node to itself)."""
    while True:
        p = rng.permutation(M)
        fixed = np.nonzero(p == np.arange(M))[0]
        if len(fixed) == 0:
            return p
        if len(fixed) > 1:  # rotate the fixed points among themselves
            p[fixed] = p[np.roll(fixed, 1)]
            return p


def swap_images(plane: np.ndarray, j: int, rng) -> np.ndarray:
    """The search move on one plane: a copy of ``plane`` with the images of ``j`` random node pairs
    exchanged (a pair is skipped where the exchange would make a fixed point or leave it as is:
    ``x == y``, ``plane[y] == x`` or ``plane[x] == y``); the result is again a permutation."""
    plane = plane.copy()
    M = len(plane)
    for _ in range(j):
        x, y = rng.integers(M, size=2)
        if x == y or plane[y] == x or plane[x] == y:
            continue
        plane[x], plane[y] = plane[y], plane[x]
    return plane


@njit(cache=True)
def _all_pairs(inv):
    """(sum of d(u, v) over ordered pairs, diameter, strongly connected) of the
    digraph whose arcs are u -> plane[u]; ``inv[p]`` is the inverse of plane p
    (the predecessor of each node in plane p).  64 sources per pass."""
    S, M = inv.shape
    seen = np.zeros(M, np.uint64)
    front = np.zeros(M, np.uint64)
    nxt = np.zeros(M, np.uint64)
    total = 0
    diam = 0
    ok = True
    for b0 in range(0, M, 64):
        nb = min(64, M - b0)
        full = (np.uint64(1) << np.uint64(nb)) - np.uint64(1) if nb < 64 else ~np.uint64(0)
        seen[:] = 0
        front[:] = 0
        for j in range(nb):
            bit = np.uint64(1) << np.uint64(j)
            seen[b0 + j] = bit
            front[b0 + j] = bit
        level = 0
        while True:
            level += 1
            anything = False
            for v in range(M):
                w = np.uint64(0)
                for p in range(S):
                    w |= front[inv[p, v]]
                nxt[v] = w & ~seen[v]
            for v in range(M):
                w = nxt[v]
                front[v] = w
                if w:
                    anything = True
                    seen[v] |= w
                    total += _popcount(w) * level
                    if level > diam:
                        diam = level
            if not anything:
                break
        for v in range(M):
            if seen[v] != full:
                ok = False
    return total, diam, ok


def union_total_hops(planes: np.ndarray) -> tuple[int, int, bool]:
    """Exact (total hops over ordered pairs, diameter, strongly connected) of the union of planes."""
    planes = np.asarray(planes, dtype=np.int64)
    inv = np.empty_like(planes)
    for p in range(planes.shape[0]):
        inv[p, planes[p]] = np.arange(planes.shape[1])
    t, d, ok = _all_pairs(inv)
    return int(t), int(d), bool(ok)


def translation_group(M: int, user: list[np.ndarray]) -> tuple[int, int] | None:
    """(a, b) such that every user plane is a translation of Z_a x Z_b
    (node = row*b + column), the cyclic group Z_M tried first; None if none."""
    n = np.arange(M)
    for b in [1] + [b for b in range(2, M) if M % b == 0]:
        a = M // b
        r, c = n // b, n % b
        good = True
        for p in user:
            gr, gc = (int(p[0]) // b), (int(p[0]) % b)
            if not np.array_equal(p, ((r + gr) % a) * b + (c + gc) % b):
                good = False
                break
        if good:
            return a, b
    return None


def _translation(M, a, b, g):
    n = np.arange(M)
    return ((n // b + g // b) % a) * b + (n % b + g % b) % b


@dataclass
class MixedSearchResult:
    nodes: int
    degree: int
    user_planes: int
    planes: np.ndarray          # (S, M): the user planes, then the searched ones
    avg_hops: float
    diameter: int
    ldi_avg_hops: float         # the union with LDI(M, S-K), the start
    ldi_diameter: int
    method: str                 # steps that improved: "ldi" (none), "translations", "random start", "+arc swaps"
    group: str | None
    evaluations: int            # candidates scored, over every restart
    seconds: float
    seed: int                   # the first chain's seed
    restarts: int = 1           # independent chains (seeds seed .. seed + restarts - 1)
    best_seed: int | None = None  # the seed of the chain kept (None: seed)

    def as_dict(self) -> dict:
        return {"nodes": self.nodes, "degree": self.degree, "user_planes": self.user_planes,
                "avg_hops": self.avg_hops, "diameter": self.diameter, "ldi_avg_hops": self.ldi_avg_hops,
                "ldi_diameter": self.ldi_diameter, "improvement": self.ldi_avg_hops - self.avg_hops,
                "method": self.method, "group": self.group, "evaluations": self.evaluations,
                "seconds": round(self.seconds, 3), "seed": self.seed, "restarts": self.restarts,
                "best_seed": self.seed if self.best_seed is None else self.best_seed}


def optimize_mixed(M: int, S: int, user: list[tuple[str, np.ndarray]] | list[np.ndarray], *,
                   seconds: float | None = None, evaluations: int | None = None, seed: int = 0,
                   restarts: int = 1, workers: int = 1, scheduler: str | None = None,
                   progress: bool | None = None) -> MixedSearchResult:
    """Search the S-K free planes (see the module docstring).  Budget: ``seconds`` of wall time
    and/or ``evaluations`` (candidates scored; default 2000) per chain; ``restarts`` independent
    chains on ``workers`` local processes or a Dask ``scheduler`` (:mod:`permnet.gen.parallel`),
    the one of fewest hops kept (ties to the lower seed): the same answer on any of them."""
    perms = [np.asarray(p[1] if isinstance(p, tuple) else p, dtype=np.int64) for p in user]
    K = len(perms)
    require(K < S, f"{K} user planes leave no plane to search in S={S}")
    require(S - K >= 2, "LDI, the start, needs at least 2 free planes (K <= S-2)")
    ldi.check_params(M, S - K)
    for p in perms:
        require(len(p) == M and is_permutation(p), f"a user plane is not a permutation of 0..{M - 1}")
    require(seconds is None or (math.isfinite(seconds) and seconds > 0), "seconds must be > 0")
    require(evaluations is None or evaluations > 0, "evaluations must be > 0")
    require(isinstance(restarts, (int, np.integer)) and restarts >= 1, f"restarts must be >= 1, got {restarts}")
    check_parallel(workers, scheduler)
    if seconds is None and evaluations is None:
        evaluations = 2000
    t0 = time.perf_counter()
    fixed = np.array(perms, dtype=np.int64).reshape(K, M)
    slots = at_once(workers, scheduler, restarts)  # a wall-time budget is shared by the chains running at once
    per = None if seconds is None else seconds * slots / restarts
    warm = slots > 1 or scheduler is not None  # the chains run in worker processes
    outs = map_jobs(_chain_job, [(M, S, fixed, per, evaluations, seed + i, warm) for i in range(restarts)],
                    workers, scheduler, progress=progress, desc="restarts")
    i = min(range(restarts), key=lambda i: (outs[i].avg_hops, i))
    return replace(outs[i], evaluations=sum(o.evaluations for o in outs), seconds=time.perf_counter() - t0,
                   seed=seed, restarts=restarts, best_seed=seed + i)


def _chain_job(job) -> MixedSearchResult:
    """One chain of :func:`optimize_mixed` (module level: processes and Dask pickle it by name)."""
    M, S, fixed, seconds, evaluations, seed, warm = job
    if warm:  # a worker process: its compiled kernels loaded (seconds, when fresh) before the clock starts
        tiny = np.array([[1, 2, 0], [2, 0, 1]], dtype=np.int64)
        union_total_hops(tiny)
        one_source_bfs(tiny, 0)
    return _chain(M, S, fixed, seconds, evaluations, seed)


def _chain(M: int, S: int, fixed: np.ndarray, seconds: float | None, evaluations: int | None,
           seed: int) -> MixedSearchResult:
    """One search from LDI (the module docstring's steps 1 and 2) with its own seed and budget."""
    K = fixed.shape[0]
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    free = ldi_planes(M, S - K).planes.astype(np.int64)
    pairs = M * (M - 1)

    def score_all(fr):
        t, d, ok = union_total_hops(np.concatenate([fixed, fr]))
        return (t if ok else math.inf), d

    cur, ldi_d = score_all(free)
    ldi_avg = cur / pairs
    best, method, evals = cur, "ldi", 1

    def out_of_budget(share=1.0):
        if evaluations is not None and evals >= evaluations * share:
            return True
        return seconds is not None and time.perf_counter() - t0 >= seconds * share

    # 1. translations of a group the user planes belong to (a Cayley digraph: one source suffices)
    grp = translation_group(M, list(fixed)) if K else (M, 1)
    if grp is not None:
        a, b = grp
        gens = [int(rng.integers(1, M)) for _ in range(S - K)]
        cay = np.concatenate([fixed, np.array([_translation(M, a, b, g) for g in gens])])
        t, e, _, reached = one_source_bfs(cay, 0)
        c_cur = t * M if reached == M else math.inf
        while not out_of_budget(PHASE1_SHARE):
            q = int(rng.integers(S - K))
            old = gens[q]
            gens[q] = int(rng.integers(1, M))
            cay[K + q] = _translation(M, a, b, gens[q])
            t, e, _, reached = one_source_bfs(cay, 0)
            evals += 1
            c_new = t * M if reached == M else math.inf
            if c_new <= c_cur:
                c_cur = c_new
            else:
                gens[q] = old
                cay[K + q] = _translation(M, a, b, old)
        cand = cay[K:].copy()
        tot, _ = score_all(cand)          # the exact all-pairs check of the Cayley candidate
        evals += 1
        if tot < best:
            free, cur, best, method = cand, tot, tot, "translations"
    # 1b. random derangements (a random regular digraph is a strong start when the group is abelian,
    #     whose Cayley digraphs grow only polynomially)
    for _ in range(RANDOM_STARTS):
        if out_of_budget(PHASE1_SHARE + 0.1):
            break
        cand = np.array([_derangement(M, rng) for _ in range(S - K)])
        tot, _ = score_all(cand)
        evals += 1
        if tot < best:
            free, cur, best, method = cand, tot, tot, "random start"
    steps = []
    # 2. arc swaps in one free plane, j pairs at a time
    budget_evals = evaluations
    while not out_of_budget():
        frac = (evals / budget_evals) if budget_evals else (time.perf_counter() - t0) / seconds
        j = max(1, int(round((M / 16) * (1 - min(frac, 1.0)) ** 2)))
        q = int(rng.integers(S - K))
        plane = swap_images(free[q], j, rng)
        trial = free.copy()
        trial[q] = plane
        tot, _ = score_all(trial)
        evals += 1
        if tot <= cur:
            free, cur = trial, tot
            if tot < best:
                best = tot
                if not steps:
                    steps.append("arc swaps")
    method = "+".join([method] + steps) if method != "ldi" or not steps else steps[0]
    planes = np.concatenate([fixed, free])
    tot, d, ok = union_total_hops(planes)
    require(ok and tot == cur, "internal: the optimised union failed its exact re-check")
    return MixedSearchResult(M, S, K, planes, tot / pairs, d, ldi_avg, ldi_d, method,
                             None if grp is None else f"Z_{grp[0]} x Z_{grp[1]}" if grp[1] > 1 else f"Z_{grp[0]}",
                             evals, time.perf_counter() - t0, seed)
