"""Order/radix search over the switch count m as well as the graph (Yasudo et al., Sections 3.2 and 5).

    >>> from permnet.gen.orp.sweep import sweep
    >>> res = sweep(128, 24)                  # the clique case: returned, not annealed
    >>> res.method, res.result.graph.m, round(res.result.haspl, 6)
    ('clique', 8, 2.878445)

The paper anneals at m = m_opt, the minimiser of the continuous Moore bound
(formula (2)); the best published 2021 graphs often use more switches
(432 hosts of radix 12 on 216 switches where m_opt = 101), so the switch
count is searched too:

1. **Clique** (Section 3.2).  When ``n <= m (r - m + 1)`` for some m, the
   m-clique with the fewest switches, filled greedily, is optimal: every host
   pair is 2 or 3 hops apart and it has the most same-switch pairs.  It is
   returned without annealing (unless a switch count or a start graph is given).
2. **Sweep** (``sweep > 1``): candidate switch counts around m_opt
   (:func:`candidate_switch_counts`: m_opt, 1.25 m_opt and the regular
   counts ceil(n / h) for h hosts per switch, from 0.8 m_opt up).  Phase 1
   anneals every candidate ``restarts`` times with a share (40 %) of the
   budget; phase 2 continues the best graph found, from ``restarts`` seeds at
   a tenth of the start temperature, with the rest.  The swing move
   (Figs. 3-4) moves hosts between switches, so host distributions are free.
   Structured start graphs are more phase-1 candidates, annealed from that
   graph instead of a random one; their phase-1 results are ``by_start``
   (label: h-ASPL):

   * ``"polarity q<q>"``: when a polarity graph holds the hosts
     (:mod:`permnet.gen.orp.polarity`, q^2 + q + 1 switches of diameter 2),
     the one with the switch count nearest m_opt;
   * ``"relay h<h>m<m>"``: the relay graphs of :mod:`permnet.gen.orp.relay`
     (h hosts on each edge switch, the other switches of m host-less relays;
     :func:`relay_candidates`), annealed with the swap move so that their
     host counts stay;
   * ``"lift h<h>m<m>"``: the best cyclic lift of :mod:`permnet.gen.orp.lift`
     (a regular switch graph of small diameter, searched in the job itself
     with :data:`LIFT_SHARE` of its budget; :func:`lift_candidates`), the
     hosts spread evenly.

   Phase 2 continues the best graph with the move it was annealed with.
3. Without a sweep: ``restarts`` independent anneals at one m (m_opt or the
   given one), the best wins.

``objective="golf"`` ranks as Graph Golf does (host diameter first, then
h-ASPL); the default is the paper's h-ASPL alone.

Jobs run on ``workers`` local processes (concurrent.futures), or on a Dask
cluster when ``scheduler`` is an address (``"local"`` starts one here).
Budgets: ``evaluations`` per anneal (deterministic for a seed: the same
arguments give the same graph, on any number of workers), or ``seconds``
of wall time for the whole search (not deterministic: the number of
evaluations done depends on the machine).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.orp.anneal import AUTO_T0_SCALE, SearchResult, anneal, check_search_size, fits
from permnet.gen.orp.bounds import m_opt
from permnet.gen.orp.hostswitch import HostSwitchGraph, check_order_radix, parse_edges
from permnet.gen.orp.polarity import polarity_order_near, polarity_start
from permnet.gen.orp.lift import TRIES_PER_EVALUATION, lift_candidates, lift_start
from permnet.gen.orp.relay import relay_candidates, relay_start
from permnet.gen.parallel import at_once, map_jobs

__all__ = ["candidate_switch_counts", "sweep", "SweepResult", "run_jobs"]

PHASE1_SHARE = 0.4
LIFT_SHARE = 0.5  # of a lift candidate's job: the lift search; the anneal from it gets the rest
COST_CAP = 3e9  # m^2 r: above this one evaluation takes about a second; such m are not swept


def _affordable(m: int, r: int, mo: int) -> bool:
    """Whether m switches are cheap enough to anneal: m^2 r within :data:`COST_CAP`
    (or within the cost of ``mo``, m_opt, which is always searched)."""
    return m * m * r <= max(COST_CAP, mo * mo * r)


def candidate_switch_counts(n: int, r: int, k: int) -> list[int]:
    """Up to k switch counts: m_opt, 1.25 m_opt and ceil(n/h) for h hosts per
    switch (regular host distributions), between 0.8 m_opt and max(n, 1.3 m_opt),
    at most 2 hosts short of the radix per switch, spread evenly over the sorted
    list (m_opt always kept)."""
    check_order_radix(n, r)
    require(k >= 1, f"sweep must be >= 1, got {k}")
    mo = m_opt(n, r)
    if not fits(n, mo, r):  # tiny radix: the fewest switches above m_opt that hold the hosts (m = n always does)
        mo = next(m for m in range(mo, n + 1) if fits(n, m, r))
    if k == 1:
        return [mo]
    lo, hi = max(2, math.ceil(0.8 * mo)), max(n, math.ceil(1.3 * mo))
    cands = {mo, math.ceil(1.25 * mo)} | {math.ceil(n / h) for h in range(1, r - 1)}
    cands = sorted(m for m in cands if lo <= m <= hi and _affordable(m, r, mo) and fits(n, m, r))
    if mo not in cands:
        cands = sorted(set(cands) | {mo})
    if len(cands) <= k:
        return cands
    idx = {int(round(x)) for x in np.linspace(0, len(cands) - 1, k)}
    pick = [cands[i] for i in sorted(idx)]
    if mo not in pick:
        pick[min(range(len(pick)), key=lambda i: abs(math.log(pick[i] / mo)))] = mo
    return sorted(set(pick))


def _job(args):
    """One anneal (module level so that processes and Dask can pickle it).
    The start is None (random), a graph as edges text, or ``"lift"``: a lift
    on the job's m switches, searched here with :data:`LIFT_SHARE` of the job's budget."""
    n, r, m, seconds, evaluations, seed, mode, start_text, t0, objective, t0_scale = args
    try:
        if start_text == "lift":
            t = time.perf_counter()
            start = lift_start(n, r, m, seed, seconds=LIFT_SHARE * seconds if seconds else None,
                               tries=evaluations * TRIES_PER_EVALUATION if evaluations else None)
            seconds = max(seconds - (time.perf_counter() - t), 1e-3) if seconds else None
        else:
            start = parse_edges(start_text, "start") if start_text else None
        res = anneal(n, r, m=None if start else m, seconds=seconds, evaluations=evaluations, seed=seed,
                     mode=mode, start=start, t0=t0, objective=objective, t0_scale=t0_scale)
    except PermnetError as exc:  # this m cannot hold the hosts: reported, not fatal
        return {"m": m, "seed": seed, "error": str(exc)}
    return {"m": m, "seed": seed, "mode": mode, "edges": res.graph.to_edges_text(), "haspl": res.haspl,
            "diameter": res.diameter, "evaluations": res.evaluations, "seconds": res.seconds}


def run_jobs(jobs: list, workers: int = 1, scheduler: str | None = None) -> list:
    """Map :func:`_job` over ``jobs``: serially, on local processes, or on Dask
    (:func:`permnet.gen.parallel.map_jobs`)."""
    return map_jobs(_job, jobs, workers, scheduler, desc="anneals")


@dataclass
class SweepResult:
    result: SearchResult
    method: str  # "clique", "anneal" or "sweep"
    by_switches: dict = field(default_factory=dict)  # m -> best h-ASPL of phase 1 (or an error)
    by_start: dict = field(default_factory=dict)  # "relay h7m112" -> best h-ASPL of phase 1 (structured starts)

    def as_dict(self, lower_bound: float | None = None) -> dict:
        d = self.result.as_dict(lower_bound) | {"method": self.method}
        if self.by_switches:
            d["by_switches"] = {str(m): v for m, v in sorted(self.by_switches.items())}
        if self.by_start:
            d["by_start"] = dict(self.by_start)
        return d


def _best(outs: list, objective: str = "haspl"):
    ok = [o for o in outs if "edges" in o]
    key = (lambda o: (o["diameter"] if objective == "golf" else 0, o["haspl"], o["m"], o["seed"]))
    return min(ok, key=key) if ok else None


def sweep(n: int, r: int, *, m: int | None = None, sweep: int = 1, seconds: float | None = None,
          evaluations: int | None = None, seed: int = 0, workers: int = 1, restarts: int | None = None,
          scheduler: str | None = None, mode: str = "swing", start: HostSwitchGraph | None = None,
          t0: float | None = None, objective: str = "haspl") -> SweepResult:
    """Search the order/radix problem (n, r); see the module docstring."""
    check_order_radix(n, r)
    require(workers >= 1, f"workers must be >= 1, got {workers}")
    check_search_size(n)
    require(sweep >= 1, f"sweep must be >= 1, got {sweep}")
    require(m is None or m >= 1, f"switches must be >= 1, got {m}")
    require(seconds is None or (math.isfinite(seconds) and seconds > 0), "seconds must be > 0")
    require(evaluations is None or evaluations > 0, "evaluations must be > 0")
    require(mode in ("swing", "swap"), f"mode must be swing or swap, got {mode!r}")
    require(objective in ("haspl", "golf"), f"objective must be haspl or golf, got {objective!r}")
    restarts = restarts or workers
    require(restarts >= 1, f"restarts must be >= 1, got {restarts}")
    if start is not None:
        require(start.n == n and start.r == r, f"start graph has n={start.n}, r={start.r}; expected n={n}, r={r}")
        require(sweep == 1, "a start graph fixes the switch count: no sweep")
    t_begin = time.perf_counter()
    if m is None and start is None:
        try:
            g = HostSwitchGraph.clique(n, r)
        except PermnetError:
            g = None
        if g is not None:
            return SweepResult(SearchResult(g, g.haspl(), g.diameter(), 0, time.perf_counter() - t_begin, seed),
                               "clique")
    if seconds is None and evaluations is None:
        evaluations = 20000
    slots = at_once(workers, scheduler, restarts)
    start_text = start.to_edges_text() if start is not None else None
    ms = [start.m] if start is not None else ([m] if m is not None else candidate_switch_counts(n, r, sweep))
    if len(ms) == 1:
        jobs = [(n, r, ms[0], seconds * slots / restarts if seconds else None, evaluations, seed + i, mode,
                 start_text, t0, objective, AUTO_T0_SCALE) for i in range(restarts)]
        outs = run_jobs(jobs, workers, scheduler)
        best = _best(outs, objective)
        if best is None:
            raise PermnetError(outs[0]["error"])
        g = parse_edges(best["edges"])
        return SweepResult(SearchResult(g, g.haspl(), g.diameter(), sum(o.get("evaluations", 0) for o in outs),
                                        time.perf_counter() - t_begin, best["seed"]), "anneal")
    # phase 1: every candidate m, `restarts` seeds each, from random graphs; then the structured starts
    # (polarity, relay and lift graphs) as more candidates: (m, start of seed i, label, move)
    cands = [(mm, lambda i: None, None, mode) for mm in ms]
    if m is None:
        q = polarity_order_near(n, r, m_opt(n, r))
        if q is not None:
            cands.append((q * q + q + 1, lambda i, q=q: polarity_start(n, r, q, seed + i).to_edges_text(),
                          f"polarity q{q}", mode))
        cands += [(mm, lambda i, h=h, mm=mm: relay_start(n, r, h, mm, seed + i).to_edges_text(),
                   f"relay h{h}m{mm}", "swap")
                  for h, mm in relay_candidates(n, r) if _affordable(mm, r, m_opt(n, r))]
        cands += [(mm, lambda i: "lift", f"lift h{h}m{mm}", mode) for h, mm in lift_candidates(n, r)]
    n_jobs = len(cands) * restarts
    per = PHASE1_SHARE * seconds * at_once(workers, scheduler, n_jobs) / n_jobs if seconds else None
    jobs = [(n, r, mm, per, evaluations, seed + i, md, start(i), t0, objective, AUTO_T0_SCALE)
            for mm, start, _, md in cands for i in range(restarts)]
    outs = run_jobs(jobs, workers, scheduler)
    by_m: dict = {}
    by_start: dict = {}
    for (mm, _, label, _), o in zip([c for c in cands for _ in range(restarts)], outs):
        table, key = (by_start, label) if label is not None else (by_m, o["m"])
        if "edges" in o:
            prev = table.get(key, math.inf)
            table[key] = min(prev if isinstance(prev, float) else math.inf, o["haspl"])
        else:
            table.setdefault(key, o["error"])
    best = _best(outs, objective)
    if best is None:
        raise PermnetError(f"no switch count in {ms} can hold n={n} hosts of radix {r}")
    # phase 2: continue the best graph at a lower temperature
    left = seconds - (time.perf_counter() - t_begin) if seconds else None
    if left is None or left > 0.5:
        per2 = left * at_once(workers, scheduler, restarts) / restarts if left else None
        jobs2 = [(n, r, best["m"], per2, evaluations, seed + 7919 + i, best["mode"], best["edges"],
                  None if t0 is None else t0 / 10, objective, AUTO_T0_SCALE / 10) for i in range(restarts)]
        outs2 = run_jobs(jobs2, workers, scheduler)
        b2 = _best(outs2, objective)
        if b2 is not None and _best([b2, best], objective) is b2:
            best = b2
        outs += outs2
    g = parse_edges(best["edges"])
    return SweepResult(SearchResult(g, g.haspl(), g.diameter(), sum(o.get("evaluations", 0) for o in outs),
                                    time.perf_counter() - t_begin, best["seed"]), "sweep", by_m, by_start)
