"""Cyclic-lift start graphs for the order/radix search: regular switch graphs of small diameter.

    >>> from permnet.gen.orp.lift import lift_candidates, lift_start
    >>> lift_candidates(80, 6)                    # (hosts per switch h, switches m)
    [(2, 40)]
    >>> g = lift_start(80, 6, 40, seed=1, tries=100_000)
    >>> g.m, g.diameter(), round(g.haspl(), 6)    # the published 2021 graph: 4.455696, host diameter 5
    (40, 5, 4.455696)

A voltage graph (Gross and Tucker, *Topological Graph Theory*, Section 2.1)
is a small *base* multigraph on b vertices whose edges u-v carry a
*voltage* a in Z_c.  Its cyclic lift has the m = b c vertices (u, i),
i in Z_c, and the edges (u, i)-(v, i + a) for every base edge and every i:
each base edge becomes c edges, so a k-regular base (a loop counts twice)
lifts to a k-regular graph.  Z_c acts on the lift by i -> i + 1, so every
vertex of one fibre {(u, i)} sees the same distances, and breadth-first
search from the b vertices (u, 0) gives the distance sum and the diameter
of the whole lift: c times fewer searches than m, and a search space (the
base and its voltages) far smaller than the graphs.  Random voltage graphs
with local search are how Exoo found many of the largest known graphs of
given degree and diameter.

Search (:func:`lift_search`): for base orders b dividing m (1 <= b <= 16,
c = m / b >= 3, b k even), in turn: a random k-regular base multigraph
(stubs paired at random, loops allowed), random voltages, then
:data:`CLIMB` moves, kept when the key (diameter, pairs at the diameter,
distance sum) does not grow: with probability :data:`BASE_SWAP` two base
edges u-v, x-y exchange their ends (u-y, x-v, voltages kept; the base stays
k-regular), otherwise one voltage is redrawn.  A lift with a self-loop (a
loop of voltage 0) or a repeated edge (a loop of voltage c/2, or two
parallel base edges of one voltage) is not simple and is discarded.  The
best lift by (diameter, distance sum) is kept.  Both kinds of move matter:
on 40 vertices of degree 4, voltage moves alone reached diameter 3 in 4 of
6 ten-second runs with b = 8 and in none with b = 4, 5 or 10; with base
moves too, all base orders in turn, all 8 runs did, in 0.3-7.4 s (median
2.7 s).

Why it matters for (80, 6): Graph Golf ranks by host diameter first.  40
switches of 2 hosts leave 4 ports each, and host diameter 5 needs a
4-regular switch graph of diameter 3 on 40 vertices; the largest known has
41 (Allwright), and random graphs annealed for minutes keep a few pairs at
distance 4.  The lift search finds one in seconds.  Its distance sum is
also the least possible: a vertex of degree at most 4 has at most 4
vertices at distance 1 and 4 * 3 = 12 at distance 2, so its distances to
the other 39 add up to at least 4 + 2 * 12 + 3 * 23 = 97, and the lift
meets that at every vertex.  Hence h-ASPL
(40 * 2 + 4 * (40 * 97 / 2 + 2 * 780)) / C(80, 2) = 4.455696 is the least
over all graphs of 40 switches with 2 hosts each, and equals the published
graph's.  Abelian lifts do not scale: for 1024 switches of degree 9, 60 s
of search (voltage moves only) stayed at switch ASPL 3.39 (the published
graph: 3.09), so only switch counts up to :data:`LIFT_MAX_SWITCHES` are
candidates.

Candidates (:func:`lift_candidates`): switch counts m = ceil(n / h) (h
hosts per switch, spread evenly) between 0.8 and 1.3 m_opt and at most
:data:`LIFT_MAX_SWITCHES`, whose degree k = r - h is at least 3 and admits a
base order; the :data:`LIFT_CANDIDATES` nearest m_opt.  :func:`lift_start`
puts the hosts evenly on the best lift found (the switches with one host
fewer have a spare port, linked at random like the other start graphs).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from permnet.gen.errors import require
from permnet.gen.graph.metrics import one_source_bfs
from permnet.gen.orp.bounds import m_opt
from permnet.gen.orp.hostswitch import HostSwitchGraph, check_order_radix, even_host_counts, pair_free_ports

__all__ = ["LiftResult", "base_orders", "lift_edges", "lift_search", "lift_candidates", "lift_start"]

CLIMB = 200               # moves per random base
BASE_SWAP = 0.3           # share of the moves that rewire the base (the rest redraw a voltage)
MAX_BASE = 16             # largest base order b
LIFT_MAX_SWITCHES = 128   # larger abelian lifts lose to annealed random graphs (module docstring)
LIFT_CANDIDATES = 2
TRIES_PER_EVALUATION = 10  # lifts scored per anneal evaluation of the job's budget (evaluation budgets)
_INVALID = (1 << 62, 0, 0)


@njit(cache=True)
def _lift_key(b, c, k, bu, bv, volt):
    """(simple, diameter, pairs at the diameter, distance sum) of the cyclic
    lift; distances over ordered pairs, from the b vertices (u, 0) times c;
    diameter 2^30 when the lift is disconnected."""
    m = b * c
    succ = np.empty((k, m), np.int64)    # succ[p, x]: the p-th neighbour of vertex x
    fill = np.zeros(m, np.int64)
    for j in range(bu.shape[0]):
        u, v, s = bu[j], bv[j], volt[j]
        for i in range(c):
            x = u * c + i
            y = v * c + (i + s) % c
            if x == y:
                return False, 0, 0, 0
            succ[fill[x], x] = y
            fill[x] += 1
            succ[fill[y], y] = x
            fill[y] += 1
    for u in range(b):           # a repeated neighbour in one fibre repeats in all of them
        x = u * c
        for p in range(k):
            for q in range(p):
                if succ[p, x] == succ[q, x]:
                    return False, 0, 0, 0
    diam, at, total = 0, 0, 0
    for u in range(b):
        t, ecc, n_ecc, reached = one_source_bfs(succ, u * c)
        if reached < m:
            return True, 1 << 30, 0, 0
        total += t
        if ecc > diam:
            diam, at = ecc, 0
        if ecc == diam:
            at += n_ecc
    return True, diam, at * c, total * c


def base_orders(m: int, k: int) -> list[int]:
    """Base orders b that lift to m vertices of degree k: b | m, m / b >= 3, b k even."""
    return [b for b in range(1, MAX_BASE + 1) if m % b == 0 and m // b >= 3 and b * k % 2 == 0]


def lift_edges(b: int, c: int, bu, bv, volt) -> np.ndarray:
    """The lift's edges ((u, i), (v, i + a)) as vertex pairs u c + i, v c + (i + a) mod c."""
    i = np.arange(c)
    bu, bv, volt = (np.asarray(x, np.int64) for x in (bu, bv, volt))
    eu = (bu[:, None] * c + i[None, :]).ravel()
    ev = (bv[:, None] * c + (i[None, :] + volt[:, None]) % c).ravel()
    return np.stack([eu, ev], axis=1)


@dataclass(frozen=True)
class LiftResult:
    """The best lift found: its edges, diameter, distance sum over ordered
    vertex pairs, and the number of lifts scored."""
    edges: np.ndarray
    diameter: int
    total: int
    tries: int


def lift_search(m: int, k: int, *, seconds: float | None = None, tries: int | None = None,
                seed: int = 0) -> LiftResult | None:
    """Search cyclic lifts of k-regular base graphs for an m-vertex k-regular
    graph of least (diameter, distance sum); see the module docstring.
    Budget: ``tries`` lifts scored (deterministic for a seed) and/or ``seconds``;
    None when no base order fits or no simple connected lift was met."""
    require(m >= 4 and k >= 2, f"a lift needs m >= 4 vertices and degree k >= 2, got m={m}, k={k}")
    require(seconds is not None or tries is not None, "lift_search needs seconds or tries")
    orders = base_orders(m, k)
    if not orders:
        return None
    rng = np.random.default_rng(seed)
    best, best_key, done, t0, turn = None, None, 0, time.perf_counter(), 0
    while (tries is None or done < tries) and (seconds is None or time.perf_counter() - t0 < seconds):
        b = orders[turn % len(orders)]
        turn += 1
        c = m // b
        stubs = rng.permutation(np.repeat(np.arange(b, dtype=np.int64), k))
        bu, bv = stubs[0::2].copy(), stubs[1::2].copy()
        volt = rng.integers(0, c, bu.size)
        ok, d, at, tot = _lift_key(b, c, k, bu, bv, volt)
        cur = (d, at, tot) if ok else _INVALID
        done += 1
        for _ in range(CLIMB):
            swap = rng.random() < BASE_SWAP
            if swap:                      # u-v, x-y -> u-y, x-v
                i, j = rng.integers(bu.size, size=2)
                bv[[i, j]] = bv[[j, i]]
            else:
                j = rng.integers(bu.size)
                old = volt[j]
                volt[j] = rng.integers(0, c)
            ok, d, at, tot = _lift_key(b, c, k, bu, bv, volt)
            done += 1
            if ok and (d, at, tot) <= cur:
                cur = (d, at, tot)
            elif swap:
                bv[[i, j]] = bv[[j, i]]
            else:
                volt[j] = old
            if cur[0] < 1 << 30 and (best_key is None or (cur[0], cur[2]) < best_key):
                best_key = (cur[0], cur[2])
                best = lift_edges(b, c, bu, bv, volt)
    if best is None:
        return None
    return LiftResult(best, int(best_key[0]), int(best_key[1]), done)


def _degree(n: int, r: int, m: int) -> int:
    return r - -(-n // m)


def lift_candidates(n: int, r: int) -> list[tuple[int, int]]:
    """(h, m) pairs, h = ceil(n / m) hosts on the fullest switch (see the module docstring)."""
    check_order_radix(n, r)
    mo = m_opt(n, r)
    ms = {-(-n // h) for h in range(1, r - 2)}
    ok = [m for m in ms if 0.8 * mo <= m <= min(1.3 * mo, LIFT_MAX_SWITCHES)
          and _degree(n, r, m) >= 3 and base_orders(m, _degree(n, r, m))]
    ok.sort(key=lambda m: (abs(math.log(m / mo)), m))
    return sorted((-(-n // m), m) for m in ok[:LIFT_CANDIDATES])


def lift_start(n: int, r: int, m: int, seed: int = 0, *, seconds: float | None = None,
               tries: int | None = None) -> HostSwitchGraph:
    """The best lift of :func:`lift_search` (degree r - ceil(n/m)) as the switch
    graph, the n hosts spread evenly, spare ports linked at random."""
    check_order_radix(n, r)
    k = _degree(n, r, m)
    require(m >= 4 and k >= 3, f"{n} hosts on {m} switches of radix {r}: a lift needs degree >= 3, got {k}")
    res = lift_search(m, k, seconds=seconds, tries=tries, seed=seed)
    require(res is not None, f"no connected {k}-regular lift on {m} switches was found")
    counts = even_host_counts(n, m)
    extra = pair_free_ports(r - k - counts, np.random.default_rng(seed))
    edges = np.concatenate([res.edges, np.array(extra, np.int64).reshape(-1, 2)])
    return HostSwitchGraph.from_counts(n, r, counts, edges)
