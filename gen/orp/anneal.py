"""Simulated annealing for the order/radix problem (Yasudo et al., Section 5).

    >>> from permnet.gen.orp.anneal import anneal
    >>> res = anneal(64, 8, evaluations=3000, seed=1)
    >>> res.graph.n, res.graph.r, res.haspl < 4.0
    (64, 8, True)

The paper's flow: pick m = m_opt (:func:`permnet.gen.orp.bounds.m_opt`),
build a random host-switch graph (hosts spread evenly, a ring through all
switches so it is connected, the remaining ports paired at random), then
anneal.  Moves:

* ``swap`` (Fig. 2, regular host-switch graphs): switch links {a,b},{c,d}
  become {a,d},{b,c} (or {a,c},{b,d}); host counts never change.
* ``swing`` (Figs. 3-4, any host distribution): the 2-neighbour swing.
  Step 1, swing(a, b, c): {a,b},{c,h} -> {a,c},{b,h} (a host of c moves to
  b); if the SA rejects it, step 2, swing(d, c, b) on another link {d,c}
  moves a host back and turns the whole move into a swap; if that is
  rejected too the graph is restored.

The energy is the h-ASPL (exact, :func:`weighted_distance_sum` after each
move); the temperature falls geometrically from ``t0`` to ``t1`` over the
budget (seconds or evaluations).  By default ``t0`` follows the size of a
move: a fraction of the median h-ASPL change of random swaps on the start
graph, at most 2e-3 (:func:`auto_t0`).  A move that cuts a host off is rejected.
Everything is seeded: the same arguments give the same graph (for a time
budget, the same graph for the same number of evaluations performed).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from permnet.gen.errors import require
from permnet.gen.orp.hostswitch import (HostSwitchGraph, check_order_radix, even_host_counts, pair_free_ports,
                                        weighted_distance_sum)
from permnet.gen.orp.bounds import m_opt

__all__ = ["fits", "initial_graph", "auto_t0", "anneal", "SearchResult", "search"]

BIG = 1 << 60
#: the most hosts ``search`` takes: twice the largest Graph Golf instance (65536, gen/orp/records.py);
#: m_opt alone scans 4n switch counts and each evaluation is a BFS from every switch
MAX_SEARCH_HOSTS = 1 << 17
T0_MAX = 2e-3        # the fixed start temperature of earlier versions; the automatic one never exceeds it
AUTO_T0_SCALE = 0.3  # start temperature / median |h-ASPL change| of a random swap (auto_t0)
_IDLE_CHUNKS = 50  # give up after this many chunks of steps without one valid move (tiny graphs)


def fits(n: int, m: int, r: int) -> bool:
    """Whether :func:`initial_graph` can build a connected graph of m switches:
    hosts spread evenly, a ring through the switches (each needs 2 free
    ports), or failing that a path with the fullest switches at its ends."""
    if m < 1 or n < 1:
        return False
    hi = -(-n // m)
    if hi > r:
        return False
    if m == 1:
        return True
    if m == 2:
        return r - hi >= 1
    if r - hi >= 2:
        return True
    # path: only the (up to two) switches holding hi hosts may sit at the ends
    n_hi = n % m or m
    return n_hi <= 2 and r - hi >= 1 and r - (hi - 1) >= 2


def initial_graph(n: int, m: int, r: int, seed: int = 0) -> HostSwitchGraph:
    """Hosts spread evenly, a ring (or a path, Section 5's connected start)
    through the switches, other ports paired at random."""
    check_order_radix(n, r)
    require(m >= 1, f"switches must be >= 1, got {m}")
    require(fits(n, m, r), f"{n} hosts on {m} switches of radix {r}: no connected start graph "
                           f"(each switch needs 2 ports for other switches, or 1 at the ends of a path)")
    rng = np.random.default_rng(seed)
    counts = even_host_counts(n, m)
    if m == 1:
        return HostSwitchGraph.from_counts(n, r, counts, [])
    if m == 2:
        edges = [(0, 1)]
    elif (r - counts).min() >= 2:
        edges = [(s, (s + 1) % m) for s in range(m)]
    else:  # a path 0 - 2 - 3 - ... - (m-1) - 1: switches 0 and 1 (the fullest) at the ends
        order = [0] + list(range(2, m)) + [1]
        edges = [(order[k], order[k + 1]) for k in range(m - 1)]
    free = r - counts - np.bincount(np.array(edges).reshape(-1), minlength=m)
    return HostSwitchGraph.from_counts(n, r, counts, edges + pair_free_ports(free, rng))


@njit(cache=True)
def _energy(m, eu, ev, count, dweight):
    """The weighted distance sum, plus ``dweight`` per hop of host diameter
    (0: the paper's h-ASPL; n(n-1): Graph Golf's order, diameter first)."""
    total, diam, ok = weighted_distance_sum(m, eu, ev, count)
    return total + dweight * diam if ok else BIG


@njit(cache=True)
def _incidence(m, r, eu, ev):
    inc = np.full((m, r + 1), -1, np.int64)
    incn = np.zeros(m, np.int64)
    for e in range(eu.shape[0]):
        for x in (eu[e], ev[e]):
            inc[x, incn[x]] = e
            incn[x] += 1
    return inc, incn


@njit(cache=True)
def _detach(inc, incn, x, e):
    for k in range(incn[x]):
        if inc[x, k] == e:
            incn[x] -= 1
            inc[x, k] = inc[x, incn[x]]
            inc[x, incn[x]] = -1
            return


@njit(cache=True)
def _attach(inc, incn, x, e):
    inc[x, incn[x]] = e
    incn[x] += 1


@njit(cache=True)
def _set_end(eu, ev, inc, incn, e, old, new):
    """Move the ``old`` end of edge e to ``new``."""
    if eu[e] == old:
        eu[e] = new
    else:
        ev[e] = new
    _detach(inc, incn, old, e)
    _attach(inc, incn, new, e)


@njit(cache=True)
def _accept(delta, temp):
    if delta <= 0:
        return True
    if temp <= 0:
        return False
    return np.random.random() < math.exp(-delta / temp)


@njit(cache=True)
def _run(m, r, eu, ev, count, pairs, steps, k0, k_total, t0, t1, mode, seed,
         best_eu, best_ev, best_count, cur, best, dweight):
    """Run ``steps`` SA steps (global step index k0..); returns (cur, best, evaluations)."""
    np.random.seed(seed)
    inc, incn = _incidence(m, r, eu, ev)
    E = eu.shape[0]
    evals = 0
    for k in range(steps):
        frac = (k0 + k) / max(k_total, 1)
        temp = t0 * (t1 / t0) ** min(frac, 1.0)
        if mode == 0 or E < 2:
            # swap {a,b},{c,d} -> {a,d},{b,c}
            e1 = np.random.randint(E)
            e2 = np.random.randint(E)
            if e1 == e2:
                continue
            a, b = eu[e1], ev[e1]
            if np.random.random() < 0.5:
                a, b = b, a
            c, d = eu[e2], ev[e2]
            if a == d or b == c:
                continue
            _set_end(eu, ev, inc, incn, e1, b, d)
            _set_end(eu, ev, inc, incn, e2, d, b)
            new = _energy(m, eu, ev, count, dweight)
            evals += 1
            if new < BIG and _accept((new - cur) / pairs, temp):
                cur = new
            else:
                _set_end(eu, ev, inc, incn, e2, b, d)
                _set_end(eu, ev, inc, incn, e1, d, b)
        else:
            # 2-neighbour swing: swing(a, b, c), then swing(d, c, b)
            e1 = np.random.randint(E)
            a, b = eu[e1], ev[e1]
            if np.random.random() < 0.5:
                a, b = b, a
            c = np.random.randint(m)
            if count[c] == 0 or c == a or c == b:
                continue
            _set_end(eu, ev, inc, incn, e1, b, c)
            count[c] -= 1
            count[b] += 1
            new = _energy(m, eu, ev, count, dweight)
            evals += 1
            if new < BIG and _accept((new - cur) / pairs, temp):
                cur = new
            else:
                # pick another link {d, c} of c with d != b
                e2 = -1
                if incn[c] > 1:
                    for _ in range(4):
                        cand = inc[c, np.random.randint(incn[c])]
                        other = ev[cand] if eu[cand] == c else eu[cand]
                        if cand != e1 and other != b:
                            e2 = cand
                            break
                done = False
                if e2 >= 0:
                    _set_end(eu, ev, inc, incn, e2, c, b)
                    count[b] -= 1
                    count[c] += 1
                    new = _energy(m, eu, ev, count, dweight)
                    evals += 1
                    if new < BIG and _accept((new - cur) / pairs, temp):
                        cur = new
                        done = True
                    else:
                        _set_end(eu, ev, inc, incn, e2, b, c)
                        count[c] -= 1
                        count[b] += 1
                if not done:
                    count[b] -= 1
                    count[c] += 1
                    _set_end(eu, ev, inc, incn, e1, c, b)
        if cur < best:
            best = cur
            best_eu[:] = eu
            best_ev[:] = ev
            best_count[:] = count
    return cur, best, evals


def auto_t0(m, eu, ev, count, samples: int, seed: int, scale: float = AUTO_T0_SCALE,
            t1: float = 1e-6, t0_max: float = T0_MAX) -> tuple[float, int]:
    """(start temperature, evaluations spent): ``scale`` times the median
    |change of h-ASPL| over ``samples`` random swaps {a,b},{c,d} ->
    {a,d},{c,b} of the graph (each undone; cutting swaps skipped), clipped
    to [10 t1, t0_max].  The h-ASPL moves by ~1e-2 per swap on 40 switches
    and ~1e-4 on 300 switches of (3800, 30): one fixed temperature is either
    too cold for the first or a random walk for most of the budget on the
    second.  Seeded: the same graph and seed give the same temperature."""
    rng = np.random.default_rng(seed * 7 + 3)
    pairs = float(count.sum() * (count.sum() - 1))
    base = _energy(m, eu, ev, count, 0.0)
    deltas, spent = [], 0
    for _ in range(4 * samples):
        if len(deltas) >= samples or len(eu) < 2:
            break
        e1, e2 = (int(x) for x in rng.integers(len(eu), size=2))
        b, d = ev[e1], ev[e2]
        if e1 == e2 or eu[e1] == d or eu[e2] == b:
            continue
        ev[e1], ev[e2] = d, b
        new = _energy(m, eu, ev, count, 0.0)
        ev[e1], ev[e2] = b, d
        spent += 1
        if new < BIG:
            deltas.append(abs(new - base) / pairs)
    med = float(np.median(deltas)) if deltas else 0.0
    t0 = scale * med if med > 0 else t0_max
    return float(min(t0_max, max(10 * t1, t0))), spent


@dataclass
class SearchResult:
    graph: HostSwitchGraph
    haspl: float
    diameter: int | None
    evaluations: int
    seconds: float
    seed: int

    def as_dict(self, lower_bound: float | None = None) -> dict:
        d = {"hosts": self.graph.n, "switches": self.graph.m, "radix": self.graph.r, "haspl": self.haspl,
             "diameter": self.diameter, "evaluations": self.evaluations, "seconds": round(self.seconds, 3),
             "seed": self.seed}
        if lower_bound is not None:
            d["haspl_lb"] = lower_bound
            d["gap_to_lb"] = self.haspl - lower_bound
        return d


def anneal(n: int, r: int, *, m: int | None = None, seconds: float | None = None,
           evaluations: int | None = None, seed: int = 0, mode: str = "swing", start: HostSwitchGraph | None = None,
           t0: float | None = None, t1: float = 1e-6, progress=None, objective: str = "haspl",
           t0_scale: float = AUTO_T0_SCALE) -> SearchResult:
    """Anneal one host-switch graph.  Budget: ``seconds`` and/or
    ``evaluations`` (default 20 000 evaluations).  ``objective``: ``"haspl"``
    (the paper) or ``"golf"`` (Graph Golf's ranking: host diameter first, then
    h-ASPL; each hop of diameter weighs as 1.0 of h-ASPL in the energy).
    ``t0=None``: the start temperature is ``t0_scale`` times the median
    h-ASPL change of a few random swaps of the start graph, at most
    ``T0_MAX * t0_scale / AUTO_T0_SCALE`` (:func:`auto_t0`; those
    evaluations count in the budget): a tenth of the scale, a tenth of the cap."""
    check_order_radix(n, r)
    require(mode in ("swing", "swap"), f"mode must be swing or swap, got {mode!r}")
    if seconds is None and evaluations is None:
        evaluations = 20000
    require(seconds is None or seconds > 0, "--seconds must be > 0")
    require(evaluations is None or evaluations > 0, "--evals must be > 0")
    g = start if start is not None else initial_graph(n, m or m_opt(n, r), r, seed)
    require(g.n == n and g.r == r, f"start graph has n={g.n}, r={g.r}; expected n={n}, r={r}")
    eu, ev = g.edges[:, 0].copy(), g.edges[:, 1].copy()
    count = g.counts().astype(np.int64)
    pairs = float(n * (n - 1))
    require(objective in ("haspl", "golf"), f"objective must be haspl or golf, got {objective!r}")
    dweight = pairs if objective == "golf" else 0.0
    cur = _energy(g.m, eu, ev, count, dweight)
    require(cur < BIG, "the start graph leaves hosts disconnected")
    require(t0 is None or t0 > 0, f"t0 must be > 0, got {t0}")
    best = cur
    best_eu, best_ev, best_count = eu.copy(), ev.copy(), count.copy()
    modei = 1 if mode == "swing" else 0
    total_k = evaluations if evaluations is not None else 10 ** 12
    # steps between budget checks: about 0.2 s of work.  Estimated from the size, not timed, so that
    # the random stream (reseeded per chunk) and hence an evaluation-budget run stay deterministic.
    work = -(-int((count > 0).sum()) // 64) * (2 * len(eu) + g.m) * 5
    chunk = int(max(1, min(200, 2e7 // max(work, 1))))
    k, evals, t_start = 0, 0, time.perf_counter()
    if t0 is None:
        t0, evals = auto_t0(g.m, eu, ev, count, max(8, min(48, chunk)), seed, t0_scale, t1,
                            T0_MAX * t0_scale / AUTO_T0_SCALE)
    idle = 0  # consecutive chunks in which no move could even be tried
    if g.m == 1 or len(eu) == 0:
        idle = _IDLE_CHUNKS  # nothing to move: one switch, or no switch link
    while idle < _IDLE_CHUNKS:
        elapsed = time.perf_counter() - t_start
        if seconds is not None and elapsed >= seconds:
            break
        if evaluations is not None and evals >= evaluations:
            break
        if seconds is not None:
            # time budget: the schedule follows elapsed time
            k_now, k_tot = int(1e6 * elapsed / seconds), 10 ** 6
        else:
            k_now, k_tot = evals, total_k
        cur, best, done = _run(g.m, r, eu, ev, count, pairs, chunk, k_now, k_tot, t0, t1, modei,
                               (seed * 1_000_003 + k) % (2 ** 31), best_eu, best_ev, best_count, cur, best, dweight)
        k += chunk
        evals += done
        idle = idle + 1 if done == 0 else 0
        if progress is not None:
            progress(evals, 2 + cur / pairs, 2 + best / pairs)
    out = HostSwitchGraph.from_counts(n, r, best_count, np.stack([best_eu, best_ev], axis=1))
    return SearchResult(out, out.haspl(), out.diameter(), evals, time.perf_counter() - t_start, seed)


def _worker(args):
    n, r, m, seconds, evaluations, seed, mode = args
    res = anneal(n, r, m=m, seconds=seconds, evaluations=evaluations, seed=seed, mode=mode)
    return res.graph.to_edges_text(), res.evaluations, res.seconds, seed


def check_search_size(n: int) -> None:
    """Refuse more than :data:`MAX_SEARCH_HOSTS` hosts before any work."""
    require(n <= MAX_SEARCH_HOSTS, f"the search takes at most {MAX_SEARCH_HOSTS} hosts (twice the largest "
                                   f"Graph Golf instance), got n={n}")


def search(n: int, r: int, *, m: int | None = None, seconds: float | None = None, evaluations: int | None = None,
           seed: int = 0, workers: int = 1, mode: str = "swing", dask: str | None = None,
           start: HostSwitchGraph | None = None, show_progress: bool = False) -> SearchResult:
    """Independent restarts (seeds seed, seed+1, ...) on ``workers`` local
    processes, or on a Dask cluster (``dask="local"`` starts a local one,
    otherwise a scheduler address); the best graph wins (ties: lowest seed)."""
    from permnet.gen.orp.hostswitch import parse_edges
    from permnet.gen.parallel import map_jobs

    require(workers >= 1, f"workers must be >= 1, got {workers}")
    check_search_size(n)
    m = start.m if start is not None else (m or m_opt(n, r))
    if workers == 1 and dask is None:
        bar = None
        if show_progress:
            from tqdm import tqdm
            bar = tqdm(total=evaluations, unit="eval", desc=f"anneal n={n} r={r} m={m}", leave=False)

        def progress(evals, cur, best):
            if bar is not None:
                bar.n = evals
                bar.set_postfix(current=f"{cur:.5f}", best=f"{best:.5f}", refresh=False)
                bar.refresh()
        res = anneal(n, r, m=m, seconds=seconds, evaluations=evaluations, seed=seed, mode=mode, start=start,
                     progress=progress)
        if bar is not None:
            bar.close()
        return res
    require(start is None, "--start works with one worker")
    jobs = [(n, r, m, seconds, evaluations, seed + i, mode) for i in range(workers)]
    t = time.perf_counter()
    results = map_jobs(_worker, jobs, workers, dask, desc="anneals")
    best = None
    for text, evals, secs, s in results:
        g = parse_edges(text)
        h = g.haspl()
        if best is None or h < best[0] - 1e-15:
            best = (h, g, evals, s)
    h, g, _, s = best
    total_evals = sum(e for _, e, _, _ in results)
    return SearchResult(g, h, g.diameter(), total_evals, time.perf_counter() - t, s)
