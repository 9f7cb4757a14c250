"""Circuit schedules with a reconfiguration delay (Solstice, Eclipse), and the
two baselines they are measured against.

    >>> import numpy as np
    >>> from permnet.gen.traffic.schedule import schedule_demand
    >>> D = np.array([[0, 3, 1], [1, 0, 3], [3, 1, 0]], float)
    >>> r = schedule_demand(D, 1, delay=1.0, horizon=10.0)
    >>> r.ours.served >= r.solstice.served
    True

**Model** (Liu et al., "Scheduling techniques for hybrid circuit/packet
networks", CoNEXT 2015, Section 3; Bojja Venkatakrishnan et al., "Costly
circuits, submodular schedules", SIGMETRICS 2016).  Every node has S
circuit ports, one per plane.  A schedule is a sequence of configurations
c = 1..C, each S permutations ``P_c1..P_cS`` (plane y links i to
``P_cy[i]``) held for a duration ``t_c``; every configuration is preceded by
the reconfiguration delay ``delta`` during which no circuit carries
traffic, and ``sum_c (delta + t_c) <= T`` (the horizon).  The demand
``D[i, j]`` is a time at line rate, all present at the start; a circuit
i -> j serves it at rate 1, so the demand served directly is

    served = sum_{i,j} min(D[i,j], sum_c t_c m_c(i,j)),  m_c(i,j) = #{y : P_cy[i] = j},

reported as a fraction of ``sum D``.  Two hops (``two_hop``): the demand
left after the direct service may be relayed i -> k -> j over circuits of
the schedule whose capacity the direct service left unused, with the relay
holding the data across configurations; reported as an upper estimate
(``served_two_hop``: the max-flow bound of the leftover capacities, see
:func:`two_hop_served`).

Demand scaling: the planner's demand has any unit; :func:`schedule_demand`
scales it so that the busiest port (largest row or column sum) needs
``load * S * T`` (``load`` = 1: its S ports busy for the whole horizon).

**Baselines**, reimplemented from the papers, for one plane and extended to
S planes the same way: their sequence of (matching, duration) pairs is cut
into groups of S consecutive matchings, each group one configuration held
for the longest duration of the group (a short group at the end is padded
with copies of its first matching), and the configurations are played in
order until the horizon ends (the last one cut short).

* *Birkhoff-von Neumann*: the demand is stuffed to a matrix whose row and
  column sums all equal the largest line sum L (northwest-corner filling of
  the row and column deficits), then decomposed by repeatedly taking any
  perfect matching on the support for the smallest entry on it (Birkhoff
  1946; von Neumann 1953).
* *Solstice* (Liu et al., Algorithm 1): QuickStuff (the deficits are first
  added to the entries already non-zero, then to zero entries), then
  BigSlice: r is the largest power of two at most the largest entry; while
  the matrix is non-zero, if the entries >= r hold a perfect matching, that
  matching is scheduled for the smallest entry on it and subtracted, else
  r is halved.

**Ours**: the configurations of both baselines are candidates; for a set of
candidate configurations the durations are re-optimised by a linear
program (maximise the direct service subject to the horizon, HiGHS via
:func:`scipy.optimize.linprog`), configurations left with no duration are
dropped (each frees a delay) and the LP solved again; the sets tried are
the prefixes of Solstice's and of BvN's sequences that fit the horizon
(a baseline serving under 90 % of the other's is skipped), extended one
configuration at a time while that helps (at most 3).  Solstice's own
durations are feasible for the LP over its prefix, so ours serves at least
Solstice's fraction (and BvN's), whatever the workload.

**Speed** (a schedule for M = 1024 in well under a second): both baselines
peel their matchings with :func:`_peel`, which keeps the matching from one
step to the next and re-matches only the rows whose edge fell below the
threshold, by augmenting paths over the dense matrix (in numba), instead of
a Hopcroft-Karp from scratch per step; and the LP merges pairs of equal
coverage into piecewise-linear segments (:func:`_lp_groups`), which leaves
it with as many constraints as distinct coverages (41 instead of 168,000
for the uniform demand at M = 1024, S = 4) and the same optimum.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from permnet.gen.errors import require
from permnet.gen.traffic.demand import check_demand

__all__ = ["Schedule", "ScheduleReport", "schedule_demand", "served_direct", "two_hop_served", "bvn", "solstice",
           "stuff_northwest", "quick_stuff", "optimise_durations"]

#: relative size under which a matrix entry counts as zero
EPS = 1e-9
#: at most this many candidate configurations enter one LP
MAX_LP_CONFIGS = 256
#: configurations added one at a time after a baseline's prefix
MAX_EXTENSIONS = 3


@dataclass
class Schedule:
    """``configs[c, y]`` is permutation y of configuration c, held ``durations[c]``
    after a delay; ``served`` the fraction of the demand served directly."""

    method: str
    configs: np.ndarray
    durations: np.ndarray
    served: float = 0.0
    served_two_hop: float | None = None
    seconds: float = 0.0

    @property
    def count(self) -> int:
        return len(self.durations)

    def as_dict(self, configs: bool = False) -> dict:
        out = {"method": self.method, "configurations": self.count, "served": self.served,
               "durations_us": [round(float(t), 6) for t in self.durations], "seconds": round(self.seconds, 3)}
        if self.served_two_hop is not None:
            out["served_two_hop"] = self.served_two_hop
        if configs:
            out["configs"] = self.configs.tolist()
        return out


@dataclass
class ScheduleReport:
    nodes: int
    degree: int
    delay: float
    horizon: float
    load: float
    demand_us: float
    ours: Schedule
    solstice: Schedule
    bvn: Schedule
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"nodes": self.nodes, "degree": self.degree, "reconfig_delay_us": self.delay,
                "horizon_us": self.horizon, "load": self.load, "demand_us": self.demand_us,
                "ours": self.ours.as_dict(), "solstice": self.solstice.as_dict(), "bvn": self.bvn.as_dict()}


# ------------------------------------------------------------------ service

def _multiplicity(configs, durations, M):
    """Circuit time per pair, sum_c t_c m_c(i, j), as a dense M x M matrix."""
    configs = np.asarray(configs, dtype=np.int64).reshape(len(durations), -1, M)
    idx = (configs + np.arange(M) * M).reshape(-1)
    w = np.repeat(np.asarray(durations, dtype=np.float64), configs.shape[1] * M)
    return np.bincount(idx, weights=w, minlength=M * M).reshape(M, M)


def served_direct(D, configs, durations) -> float:
    """Demand served directly (module docstring), as a fraction of ``sum D``."""
    M = D.shape[0]
    cap = _multiplicity(configs, durations, M)
    np.fill_diagonal(cap, 0.0)
    return float(np.minimum(D, cap).sum() / D.sum())


@njit(cache=True)
def _relay(c):
    """relay[i, j] = sum_k min(c[i, k], c[k, j]) for i != j, k not in {i, j}."""
    M = c.shape[0]
    out = np.zeros((M, M))
    for i in range(M):
        for k in range(M):
            a = c[i, k]
            if a <= 0 or k == i:
                continue
            for j in range(M):
                if j != i and j != k:
                    out[i, j] += min(a, c[k, j])
    return out


def two_hop_served(D, configs, durations) -> float:
    """Direct service plus an upper estimate of two-hop relaying: for each
    source i, what it still needs may go i -> k -> j over leftover circuit
    time, bounded by i's leftover out-capacity, j's leftover in-capacity and
    the per-relay capacities (min(cap(i,k), cap(k,j)) summed over k)."""
    M = D.shape[0]
    cap = _multiplicity(configs, durations, M)
    np.fill_diagonal(cap, 0.0)
    direct = np.minimum(D, cap)
    left_d = D - direct
    left_c = cap - direct
    relay = _relay(left_c)
    extra = np.minimum(left_d, relay)
    # no port relays more than its leftover capacity
    out_ok = np.minimum(extra.sum(axis=1), left_c.sum(axis=1))
    in_ok = np.minimum(extra.sum(axis=0), left_c.sum(axis=0))
    return float((direct.sum() + min(out_ok.sum(), in_ok.sum())) / D.sum())


def _truncate(seq, S, M, delay, horizon):
    """Group a (matching, duration) sequence S at a time and play it until the horizon."""
    configs, durations = [], []
    used = 0.0
    slack = EPS * horizon if math.isfinite(horizon) else 0.0
    for g in range(0, len(seq), S):
        group = [p for p, _ in seq[g:g + S]]
        t = max(d for _, d in seq[g:g + S])
        while len(group) < S:
            group.append(group[0])
        room = horizon - used - delay
        if room <= slack:
            break
        t = min(t, room)
        configs.append(np.array(group))
        durations.append(t)
        used += delay + t
    if not configs:
        return np.empty((0, S, M), np.int64), np.empty(0)
    return np.array(configs, dtype=np.int64), np.array(durations)


# --------------------------------------------------------------- stuffing

@njit(cache=True)
def _fill(A, a, b, existing_first):
    M = A.shape[0]
    if existing_first:
        for i in range(M):
            for j in range(M):
                if A[i, j] > 0 and a[i] > 0 and b[j] > 0:
                    add = min(a[i], b[j])
                    A[i, j] += add
                    a[i] -= add
                    b[j] -= add
    i = 0
    j = 0
    while i < M and j < M:                  # northwest corner on the deficits
        if a[i] <= 0:
            i += 1
            continue
        if b[j] <= 0:
            j += 1
            continue
        add = min(a[i], b[j])
        A[i, j] += add
        a[i] -= add
        b[j] -= add
    return A


def _stuff(D, existing_first):
    A = D.copy()
    L = max(A.sum(axis=1).max(), A.sum(axis=0).max())
    a = L - A.sum(axis=1)
    b = L - A.sum(axis=0)
    tol = EPS * L
    a[a < tol] = 0.0
    b[b < tol] = 0.0
    return _fill(A, a, b, existing_first), L


def stuff_northwest(D):
    """BvN's stuffing: row and column deficits to the largest line sum L filled northwest-corner first."""
    return _stuff(D, False)


def quick_stuff(D):
    """Solstice's QuickStuff: deficits added to non-zero entries first, then northwest corner."""
    return _stuff(D, True)


# -------------------------------------------------------------- baselines

@njit(cache=True)
def _augment(A, r, row_of, col_of, u, seen, stamp, prev, queue, start, indptr, indices, at):
    """One augmenting path from the free row u over the entries ``A >= r``
    (breadth first over alternating paths; a column counts as seen when
    ``seen[j] == stamp``); True when u got matched.  Row i's candidate
    columns are ``indices[indptr[i]:indptr[i + 1]]`` (A's support when the
    peeling began: entries only fall), scanned cyclically after position
    ``start[i]``, where the column it was last matched to sits: when a peeled
    matching empties that entry the next one is usually free (a uniform
    demand peels the shifts s -> s + k one after another).  ``at[j]``: the
    position of column j in the list of the row that reached it."""
    queue[0] = u
    head, tail = 0, 1
    while head < tail:
        i = queue[head]
        head += 1
        lo = indptr[i]
        deg = indptr[i + 1] - lo
        k = start[i]
        for _ in range(deg):
            k += 1
            if k == deg:
                k = 0
            j = indices[lo + k]
            if A[i, j] >= r and seen[j] != stamp:
                seen[j] = stamp
                prev[j] = i
                at[j] = k
                if col_of[j] < 0:               # a free column: flip the path back to u
                    while True:
                        row = prev[j]
                        nxt = row_of[row]
                        row_of[row] = j
                        col_of[j] = row
                        start[row] = at[j]
                        if row == u:
                            return True
                        j = nxt
                queue[tail] = col_of[j]
                tail += 1
    return False


@njit(cache=True)
def _peel(A, r, tol, limit, halve):
    """Perfect matchings among the entries ``A >= r``, each taken for its smallest
    entry and subtracted from A (in place), at most ``limit``; when the entries
    >= r hold no perfect matching, r is halved (``halve``, Solstice's BigSlice)
    or the peeling stops (BvN).  The matching is kept from one step to the
    next: only the edges that fell below r are dropped and their rows
    re-matched by augmenting paths, so a step costs a few augmentations rather
    than a whole Hopcroft-Karp (a free row without an augmenting path proves
    that no perfect matching exists, Berge 1957).  Entries left below ``tol``
    are set to 0.  Returns (matchings, durations)."""
    M = A.shape[0]
    indptr = np.zeros(M + 1, np.int64)
    for i in range(M):
        n = 0
        for j in range(M):
            if A[i, j] > 0:
                n += 1
        indptr[i + 1] = indptr[i] + n
    indices = np.empty(indptr[M], np.int64)
    for i in range(M):
        n = indptr[i]
        for j in range(M):
            if A[i, j] > 0:
                indices[n] = j
                n += 1
    row_of = np.full(M, -1, np.int64)
    col_of = np.full(M, -1, np.int64)
    seen = np.zeros(M, np.int64)
    prev = np.empty(M, np.int64)
    at = np.empty(M, np.int64)
    queue = np.empty(M, np.int64)
    start = np.full(M, -1, np.int64)
    room = min(limit, 64)                   # grown by doubling: limit may be far above what is peeled
    perms = np.empty((room, M), np.int64)
    durs = np.empty(room)
    n = 0
    stamp = 0
    while n < limit and r > tol:
        for i in range(M):
            j = row_of[i]
            if j >= 0 and A[i, j] < r:
                row_of[i] = -1
                col_of[j] = -1
        ok = True
        for i in range(M):
            if row_of[i] < 0:
                stamp += 1
                if not _augment(A, r, row_of, col_of, i, seen, stamp, prev, queue, start, indptr, indices, at):
                    ok = False
                    break
        if not ok:
            if not halve:
                break
            r /= 2
            continue
        t = np.inf
        for i in range(M):
            t = min(t, A[i, row_of[i]])
        for i in range(M):
            j = row_of[i]
            A[i, j] -= t
            if A[i, j] < tol:
                A[i, j] = 0.0
        if n == room:
            room = min(limit, 2 * room)
            grown = np.empty((room, M), np.int64)
            grown[:n] = perms
            perms = grown
            longer = np.empty(room)
            longer[:n] = durs
            durs = longer
        perms[n] = row_of
        durs[n] = t
        n += 1
    return perms[:n], durs[:n]


def _budget_matchings(S, delay, horizon, M):
    """Matchings the horizon can hold, S a configuration; never more than the peeling can
    produce (each matching empties at least one of the M^2 entries)."""
    slots = horizon / delay if delay > 0 else 4096.0
    return S * (int(min(slots, M * M)) + 1)


def bvn(D, S: int, delay: float, horizon: float, limit: int | None = None):
    """Birkhoff-von Neumann: (matching, duration) pairs of the stuffed demand, largest first,
    at most ``limit`` (default: as many as the horizon can hold)."""
    A, L = stuff_northwest(D)
    limit = limit or _budget_matchings(S, delay, horizon, D.shape[0])
    tol = EPS * L
    perms, durs = _peel(A, np.nextafter(tol, np.inf), tol, limit, False)
    seq = [(perms[k], float(durs[k])) for k in range(len(durs))]
    seq.sort(key=lambda x: -x[1])
    return seq


def solstice(D, S: int, delay: float, horizon: float, limit: int | None = None):
    """Solstice (QuickStuff + BigSlice), (matching, duration) pairs in its order."""
    A, L = quick_stuff(D)
    limit = limit or _budget_matchings(S, delay, horizon, D.shape[0])
    tol = EPS * L
    top = A.max()
    if top <= tol:
        return []
    r = 2.0 ** math.floor(math.log2(top))
    perms, durs = _peel(A, r, tol, limit, True)
    return [(perms[k], float(durs[k])) for k in range(len(durs))]


# ------------------------------------------------------------------- ours

@njit(cache=True)
def _coverage(D, configs):
    """The pairs (i, j), i != j, with demand that some configuration links, in
    order of ``i M + j``, and their links: for each (pair, configuration)
    linking it, the pair's index, the configuration and its multiplicity m_c
    (planes of c linking the pair).  A counting sort by pair (stable, so a
    pair's configurations stay in order) over the M^2 keys."""
    C, S, M = configs.shape
    first = np.zeros(M * M + 1, np.int32)
    n = 0
    for c in range(C):
        for y in range(S):
            for i in range(M):
                j = configs[c, y, i]
                if j != i and D[i, j] > 0:
                    first[i * M + j + 1] += 1
                    n += 1
    for k in range(M * M):
        first[k + 1] += first[k]
    cfgs = np.empty(n, np.int64)
    for c in range(C):
        for y in range(S):
            for i in range(M):
                j = configs[c, y, i]
                if j != i and D[i, j] > 0:
                    cfgs[first[i * M + j]] = c
                    first[i * M + j] += 1
    owner = np.empty(n, np.int64)
    cfg = np.empty(n, np.int64)
    mult = np.zeros(n, np.int64)
    pairs = np.empty(n, np.int64)
    r = -1
    P = -1
    lo = 0
    for key in range(M * M):
        hi = first[key]                     # after the fill: the end of the key's entries
        for k in range(lo, hi):
            if k == lo:
                P += 1
                pairs[P] = key
            if k == lo or cfgs[k] != cfgs[k - 1]:
                r += 1
                owner[r] = P
                cfg[r] = cfgs[k]
            mult[r] += 1
        lo = hi
    return pairs[:P + 1], owner[:r + 1], cfg[:r + 1], mult[:r + 1]


@njit(cache=True)
def _cover_codes(P, owner, digit, base):
    """A pair's coverage, its (configuration c, m) links in order, as one integer:
    the digits ``c (S + 1) + m`` (all >= 1, so lengths differ too) in base ``base`` (Horner)."""
    cover = np.zeros(P, np.int64)
    for k in range(len(owner)):
        cover[owner[k]] = cover[owner[k]] * base + digit[k]
    return cover


@njit(cache=True)
def _segments(gidx, dem, G):
    """Segments of the groups' piecewise-linear service (:func:`_lp_groups`):
    pairs sorted by group (a counting sort), then by demand within the group
    (skipped when already in order); per distinct (group, demand v_k) one
    segment of length v_k - v_{k-1} and slope #{p in group : D_p >= v_k}."""
    P = len(gidx)
    start = np.zeros(G + 1, np.int64)
    for p in range(P):
        start[gidx[p] + 1] += 1
    for g in range(G):
        start[g + 1] += start[g]
    fill = start[:G].copy()
    v = np.empty(P)
    for p in range(P):
        v[fill[gidx[p]]] = dem[p]
        fill[gidx[p]] += 1
    sg = np.empty(P, np.int64)
    length = np.empty(P)
    slope = np.empty(P)
    U = 0
    for g in range(G):
        lo, hi = start[g], start[g + 1]
        for k in range(lo + 1, hi):
            if v[k] < v[k - 1]:
                v[lo:hi] = np.sort(v[lo:hi])
                break
        prev = 0.0
        for k in range(lo, hi):
            if k == lo or v[k] != prev:
                sg[U] = g
                length[U] = v[k] - prev
                slope[U] = hi - k
                U += 1
                prev = v[k]
    return sg[:U], length[:U], slope[:U]


def _lp_groups(D, configs):
    """The LP's data with pairs of equal coverage merged.  Pairs (i, j) with
    demand that some configuration links are grouped by their coverage (the
    configurations linking them, with multiplicity m_c); a group g with
    coverage m_g serves ``f_g(x) = sum_{p in g} min(D_p, x)`` at
    ``x = sum_c m_gc t_c``, concave and piecewise linear with a breakpoint at
    each distinct demand v_1 < v_2 < ... of the group: segment k has length
    v_k - v_{k-1} and slope #{p in g : D_p >= v_k}.  Returns (group of each
    segment, segment lengths, slopes, (groups, configs, m) of the links), or
    None when no configuration links a pair with demand."""
    C, S, M = configs.shape
    pairs, owner, cfg, mult = _coverage(D, np.ascontiguousarray(configs, dtype=np.int64))
    P = len(pairs)
    if P == 0:
        return None
    K = int(np.bincount(owner).max())
    base = C * (S + 1) + 1
    if base ** K < 1 << 62:             # a pair's coverage as one integer
        cover = _cover_codes(P, owner, cfg * (S + 1) + mult, base)
        _, gfirst, gidx = np.unique(cover, return_index=True, return_inverse=True)
        rep = np.zeros(P, bool)
        rep[gfirst] = True
        members = rep[owner]
        links = (gidx.reshape(-1)[owner[members]], cfg[members], mult[members])
        G = len(gfirst)
    else:                               # too wide to encode: one group a pair
        gidx = np.arange(P)
        links = (owner, cfg, mult)
        G = P
    sg, length, slope = _segments(gidx.reshape(-1).astype(np.int64), D.reshape(-1)[pairs], G)
    return sg, length, slope, links


def optimise_durations(D, configs, delay, horizon):
    """Durations maximising the direct service of ``configs`` (all of them
    played, a delay each) within the horizon: an LP; (durations, served demand).

    maximise sum_g sum_k slope_gk u_gk subject to sum_k u_gk <= sum_c m_gc t_c
    for every group g (:func:`_lp_groups`), 0 <= u_gk <= length_gk, t >= 0 and
    sum_c t_c <= T - C delta; equal to maximising the served demand
    ``sum_p min(D_p, sum_c m_pc t_c)`` because the slopes of a group fall
    from segment to segment, so an optimum fills them in order."""
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    C = len(configs)
    budget = horizon - C * delay
    if C == 0 or budget <= 0:
        return np.zeros(C), 0.0
    model = _lp_groups(D, configs)
    if model is None:
        return np.zeros(C), 0.0
    sg, length, slope, (lg, lc, lm) = model
    G, U = int(sg.max()) + 1, len(sg)
    cost = np.concatenate([np.zeros(C), -slope])
    rows = np.concatenate([sg, lg, np.full(C, G)])
    cols = np.concatenate([C + np.arange(U), lc, np.arange(C)])
    vals = np.concatenate([np.ones(U), -lm.astype(np.float64), np.ones(C)])
    A_ub = coo_matrix((vals, (rows, cols)), shape=(G + 1, C + U)).tocsr()
    b_ub = np.zeros(G + 1)
    b_ub[G] = budget
    bounds = np.column_stack([np.zeros(C + U), np.concatenate([np.full(C, np.inf), length])])
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        return np.zeros(C), 0.0
    t = np.clip(res.x[:C], 0.0, None)
    # never over budget after rounding
    if t.sum() > budget:
        t *= budget / t.sum()
    return t, -float(res.fun)


def _optimised(D, configs, delay, horizon):
    """LP durations for ``configs``, dropping configurations left without time and re-solving."""
    total = D.sum()
    cur = configs
    best = (np.zeros((0,) + configs.shape[1:], np.int64), np.zeros(0), 0.0)
    for _ in range(len(configs) + 1):
        if len(cur) == 0:
            break
        t, served = optimise_durations(D, cur, delay, horizon)
        live = t > EPS * horizon
        if served / total > best[2]:
            best = (cur[live], t[live], served / total)
        if live.all():
            break
        cur = cur[live]
    return best


def _prefix_search(D, seq, S, delay, horizon):
    """The LP over the configurations a baseline plays, then over one more at a time while that helps."""
    M = D.shape[0]
    configs, _ = _truncate(seq, S, M, delay, horizon)
    allc, _ = _truncate(seq, S, M, 0.0, math.inf) if seq else (configs, None)
    n = len(configs)
    best = _optimised(D, configs, delay, horizon)
    stop = min(len(allc), MAX_LP_CONFIGS, n + MAX_EXTENSIONS)
    while n < stop:
        n += 1
        cand = _optimised(D, allc[:n], delay, horizon)
        if cand[2] <= best[2] * (1 + 1e-12):
            break
        best = cand
    return best


def _schedule(method, configs, durations, D, t0, two_hop):
    served = served_direct(D, configs, durations) if len(durations) else 0.0
    s2 = two_hop_served(D, configs, durations) if two_hop and len(durations) else None
    return Schedule(method, configs, durations, served, s2, time.perf_counter() - t0)


def schedule_demand(D, S: int, delay: float, horizon: float, *, load: float = 1.0,
                    two_hop: bool = False) -> ScheduleReport:
    """Ours, Solstice and BvN schedules of demand ``D`` on S planes (module docstring)."""
    D = check_demand(D)
    M = D.shape[0]
    require(isinstance(S, (int, np.integer)) and 1 <= S <= 64, f"degree S must be between 1 and 64, got {S}")
    for name, v in (("reconfiguration delay", delay), ("horizon", horizon), ("load", load)):
        require(math.isfinite(v) and v >= 0, f"{name} must be a finite number >= 0, got {v}")
    require(horizon > delay, f"the horizon ({horizon} us) must exceed the reconfiguration delay ({delay} us)")
    require(load > 0, "load must be > 0")
    from permnet.gen.limits import check_memory

    check_memory(f"scheduling {M} nodes (four dense {M} x {M} matrices)", 4 * 8 * M * M)
    line = max(D.sum(axis=1).max(), D.sum(axis=0).max())
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        scale = load * S * horizon / line
        D = D * scale
    require(math.isfinite(scale) and np.isfinite(D).all() and D.max() > 0,
            f"the demand cannot be scaled to load * S * horizon = {load:g} * {S} * {horizon:g} us: its busiest "
            f"port carries {line:g}, and the scaled weights are out of the range of a float; give weights nearer 1, "
            "or a smaller --load or --horizon")
    t0 = time.perf_counter()
    sol_seq = solstice(D, S, delay, horizon)
    c, t = _truncate(sol_seq, S, M, delay, horizon)
    sol = _schedule("solstice", c, t, D, t0, two_hop)
    t0 = time.perf_counter()
    bvn_seq = bvn(D, S, delay, horizon)
    c, t = _truncate(bvn_seq, S, M, delay, horizon)
    bv = _schedule("bvn", c, t, D, t0, two_hop)
    t0 = time.perf_counter()
    cands = [(sol.configs, sol.durations, sol.served, "solstice"), (bv.configs, bv.durations, bv.served, "bvn")]
    for seq, name, base in ((sol_seq, "solstice+lp", sol), (bvn_seq, "bvn+lp", bv)):
        if base.served < 0.9 * max(sol.served, bv.served):
            continue                    # a far worse start: not worth its LP
        c, t, _ = _prefix_search(D, seq, S, delay, horizon)
        cands.append((c, t, served_direct(D, c, t) if len(t) else 0.0, name))
    c, t, _, name = max(cands, key=lambda x: x[2])
    ours = _schedule(name, c, t, D, t0, two_hop)
    ours.seconds += sol.seconds + bv.seconds
    return ScheduleReport(M, S, float(delay), float(horizon), float(load), float(D.sum()), ours, sol, bv)
