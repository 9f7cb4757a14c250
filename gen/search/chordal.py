"""Search for large chordal rings of given degree and diameter (Doty, Section 3).

    >>> from permnet.gen.search.chordal import find_ring
    >>> hit = find_ring(30, 3, 4, orders=[3, 5], budget=20_000, seed=1)
    >>> hit is not None and hit.diameter <= 4
    True

A chordal ring of order r on n nodes (r | n) is the ring 0-1-...-(n-1)
plus, for node i, chords i -> i + w for every w in ``chords[i mod r]``
(:func:`permnet.gen.topologies.families.chordal_ring`).  Each residue class has d-2
*chord slots*; the slots are matched in pairs: a slot of class p matched
with a slot of class q carries a chord w = q - p (mod r) and the partner slot
carries n - w, so every chord is one edge seen from both ends.  A slot
matched with itself carries n/2 (only when r divides n/2).  Doty counts
(n/r)^(r/2) chord choices per pairing for degree 3.

Because i -> i + r is an automorphism, the r sources 0..r-1 give every
distance.  The score of a ring is the number of (source, node) pairs farther
apart than k, found by a bit-parallel BFS (bit s of ``reach[v]`` = source s
has reached v), so r <= 64.  Score 0 means diameter <= k.

For each n the search runs exhaustively over every pairing and chord choice
when that space is at most ``exhaustive_limit`` rings, and otherwise runs a
local search (change one slot pair's chord, keep the change unless the score
grows) from random pairings, in parallel restarts with their own seeds, so
the result is the same for any number of threads.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from permnet.gen.errors import require
from permnet.gen.graph.metrics import _popcount

__all__ = ["RingHit", "find_ring", "search", "search_diameters", "SearchRow", "DOTY_TABLE1", "DOTY_TABLE2_C"]

# Doty, Table 1: degree 3, diameter -> (nodes, order, chords)
DOTY_TABLE1 = {6: (100, 5, [50, 11, 89, 21, 79]), 7: (180, 6, [153, 16, 116, 27, 64, 164]),
               8: (280, 7, [140, 101, 73, 17, 179, 207, 263]),
               9: (462, 11, [231, 37, 16, 139, 247, 425, 79, 446, 383, 215, 323]),
               10: (708, 12, [632, 685, 23, 208, 601, 107, 483, 500, 76, 225, 433, 275])}

# Doty, Table 2: the chordal-ring entries (marked C) for degrees 3-6, (degree, diameter) -> nodes.
# (6, 7) = 7090 is printed above the 7000-node search limit the text states; it is listed as printed.
DOTY_TABLE2_C = {(3, 6): 100, (3, 7): 180, (3, 8): 280, (3, 9): 462, (3, 10): 708,
                 (4, 3): 36, (4, 4): 92, (4, 5): 188, (4, 6): 378, (4, 7): 856, (4, 8): 1872, (4, 9): 3708,
                 (4, 10): 7000,
                 (5, 3): 60, (5, 4): 164, (5, 5): 400, (5, 6): 1014, (5, 7): 2604, (5, 8): 7000,
                 (6, 3): 94, (6, 4): 284, (6, 5): 820, (6, 6): 2604, (6, 7): 7090}


#: the largest degree searched (Doty tabulates 3-6): a ring of order r has r*(degree-2)
#: chord slots, and a larger degree only makes every run longer, never useful
MAX_DEGREE = 64
#: the most nodes a searched ring may have (each evaluation is a BFS over the ring)
MAX_RING_NODES = 1 << 20

# ------------------------------------------------------------------ kernels

@njit(cache=True)
def _valid(n, chords):
    """Chords of a class must be distinct, not 0 or +-1 (ring links)."""
    r, c = chords.shape
    for a in range(r):
        for s in range(c):
            w = chords[a, s]
            if w <= 1 or w >= n - 1:
                return False
            for t in range(s):
                if chords[a, t] == w:
                    return False
    return True


@njit(cache=True)
def _score(n, k, chords, reach, nxt):
    """(source, node) pairs at distance > k, sources 0..r-1 (bit-parallel BFS)."""
    r, c = chords.shape
    full = (np.uint64(1) << np.uint64(r)) - np.uint64(1) if r < 64 else ~np.uint64(0)
    reach[:] = 0
    for s in range(r):
        reach[s] = np.uint64(1) << np.uint64(s)
    for _ in range(k):
        p = 0
        done = True
        for v in range(n):
            w = reach[v] | reach[v - 1 if v > 0 else n - 1] | reach[v + 1 if v < n - 1 else 0]
            for t in range(c):
                u = v + chords[p, t]
                if u >= n:
                    u -= n
                w |= reach[u]
            nxt[v] = w
            if w != full:
                done = False
            p += 1
            if p == r:
                p = 0
        reach, nxt = nxt, reach
        if done:
            return 0
    missing = 0
    for v in range(n):
        missing += _popcount(full & ~reach[v])
    return missing


@njit(cache=True, inline="always")
def _rand(state):
    """xorshift64*: next value of the generator held in state[0]."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(11)


@njit(cache=True)
def _assign(n, pair_a, pair_b, value, chords):
    """Write chord values of slot pairs into the (r, d-2) chord table."""
    for p in range(pair_a.shape[0]):
        a, b = pair_a[p], pair_b[p]
        if b < 0:
            chords[a // chords.shape[1], a % chords.shape[1]] = n // 2
        else:
            chords[a // chords.shape[1], a % chords.shape[1]] = value[p]
            chords[b // chords.shape[1], b % chords.shape[1]] = n - value[p]


@njit(cache=True)
def _random_pairing(r, c, allow_half, state, pair_a, pair_b):
    """Random matching of the r*c slots; returns the number of pairs."""
    slots = r * c
    order = np.arange(slots)
    for i in range(slots - 1, 0, -1):
        j = _rand(state) % np.uint64(i + 1)
        order[i], order[int(j)] = order[int(j)], order[i]
    fixed = slots % 2
    if allow_half and fixed == 0 and _rand(state) % np.uint64(4) == 0:
        fixed = 2
    if fixed > slots:
        fixed = slots
    # a class may hold n/2 only once
    used = np.zeros(r, np.bool_)
    np_ = 0
    i = 0
    nf = 0
    while nf < fixed and i < slots:
        s = order[i]
        if not used[s // c]:
            used[s // c] = True
            pair_a[np_] = s
            pair_b[np_] = -1
            np_ += 1
            nf += 1
            order[i] = -1
        i += 1
    rest = np.empty(slots, np.int64)
    m = 0
    for i in range(slots):
        if order[i] >= 0:
            rest[m] = order[i]
            m += 1
    for i in range(0, m - 1, 2):
        pair_a[np_] = rest[i]
        pair_b[np_] = rest[i + 1]
        np_ += 1
    return np_


@njit(cache=True)
def _random_value(n, r, c, a, b, state):
    """A chord w from slot a to slot b: w = class(b) - class(a) (mod r), 2 <= w <= n-2."""
    base = ((b // c) - (a // c)) % r
    lo = base
    while lo < 2:
        lo += r
    hi = n - 2
    count = (hi - lo) // r + 1
    if count <= 0:
        return -1
    return lo + r * int(_rand(state) % np.uint64(count))


@njit(cache=True, parallel=True)
def _local_search(n, r, c, k, allow_half, seeds, steps):
    """One restart per seed; each returns its best score and chord table."""
    R = seeds.shape[0]
    best_score = np.empty(R, np.int64)
    best_chords = np.zeros((R, r, c), np.int64)
    evals = np.zeros(R, np.int64)
    for q in prange(R):
        state = np.array([np.uint64(seeds[q]) * np.uint64(0x9E3779B97F4A7C15) | np.uint64(1)])
        reach = np.zeros(n, np.uint64)
        nxt = np.zeros(n, np.uint64)
        pair_a = np.empty(r * c, np.int64)
        pair_b = np.empty(r * c, np.int64)
        value = np.zeros(r * c, np.int64)
        chords = np.zeros((r, c), np.int64)
        npairs = _random_pairing(r, c, allow_half, state, pair_a, pair_b)
        movable = 0
        for p in range(npairs):
            if pair_b[p] >= 0:
                value[p] = _random_value(n, r, c, pair_a[p], pair_b[p], state)
                movable += 1
        _assign(n, pair_a[:npairs], pair_b[:npairs], value, chords)
        big = n * r + 1
        cur = _score(n, k, chords, reach, nxt) if _valid(n, chords) else big
        best_score[q] = cur
        best_chords[q] = chords
        e = 1
        while e < steps and cur > 0 and movable > 0:
            p = int(_rand(state) % np.uint64(npairs))
            if pair_b[p] < 0:
                continue
            old = value[p]
            if _rand(state) % np.uint64(2) == 0:
                value[p] = _random_value(n, r, c, pair_a[p], pair_b[p], state)
            else:
                step = r * (1 + int(_rand(state) % np.uint64(3)))
                nv = old + step if _rand(state) % np.uint64(2) == 0 else old - step
                if 2 <= nv <= n - 2:
                    value[p] = nv
            _assign(n, pair_a[:npairs], pair_b[:npairs], value, chords)
            s = _score(n, k, chords, reach, nxt) if _valid(n, chords) else big
            e += 1
            if s <= cur:
                cur = s
                if s < best_score[q]:
                    best_score[q] = s
                    best_chords[q] = chords
            else:
                value[p] = old
        if cur == 0:
            _assign(n, pair_a[:npairs], pair_b[:npairs], value, chords)
            best_chords[q] = chords
            best_score[q] = 0
        evals[q] = e
    return best_score, best_chords, evals


@njit(cache=True)
def _exhaustive(n, r, c, k, pair_a, pair_b, choices_lo, choices_count):
    """Every chord choice of one pairing, in mixed-radix order; the first
    ring of diameter <= k (or none) and the number of rings scored."""
    reach = np.zeros(n, np.uint64)
    nxt = np.zeros(n, np.uint64)
    P = pair_a.shape[0]
    digit = np.zeros(P, np.int64)
    value = np.zeros(P, np.int64)
    chords = np.zeros((r, c), np.int64)
    scored = 0
    while True:
        for p in range(P):
            value[p] = choices_lo[p] + r * digit[p]
        _assign(n, pair_a, pair_b, value, chords)
        if _valid(n, chords):
            scored += 1
            if _score(n, k, chords, reach, nxt) == 0:
                return chords, scored
        p = 0
        while p < P:
            digit[p] += 1
            if digit[p] < choices_count[p]:
                break
            digit[p] = 0
            p += 1
        if p == P:
            return chords[:0], scored


# ------------------------------------------------------------------- driver

@dataclass
class RingHit:
    """A chordal ring found: n nodes, order r, chords per residue class."""

    n: int
    order: int
    chords: list
    diameter: int
    method: str
    evaluations: int

    def chord_text(self) -> str:
        if all(len(c) == 1 for c in self.chords):
            return ",".join(str(c[0]) for c in self.chords)
        return ";".join(",".join(map(str, c)) for c in self.chords)


def _pairings(r: int, c: int, allow_half: bool):
    """Every matching of the r*c slots (n/2 self-pairs at most once per class)."""
    slots = list(range(r * c))

    def rec(rest, used):
        if not rest:
            yield []
            return
        a, tail = rest[0], rest[1:]
        if allow_half and a // c not in used:
            for m in rec(tail, used | {a // c}):
                yield [(a, -1)] + m
        for i, b in enumerate(tail):
            for m in rec(tail[:i] + tail[i + 1:], used):
                yield [(a, b)] + m
    yield from rec(slots, frozenset())


def _space(n: int, r: int, c: int, allow_half: bool, limit: int):
    """Pairings with their chord ranges, or None when there are more than ``limit`` rings
    (or more than ``limit`` pairings: with no n/2 chord, r*c slots have (r*c-1)!! of them)."""
    pairings = 1
    for odd in range(r * c - 1, 0, -2):
        pairings *= odd
        if pairings > limit:
            return None          # also keeps _pairings' recursion (depth r*c) shallow
    out, total = [], 0
    for count, m in enumerate(_pairings(r, c, allow_half)):
        if count >= limit:
            return None
        lo, cnt = [], []
        for a, b in m:
            if b < 0:
                lo.append(n // 2)
                cnt.append(1)
                continue
            base = ((b // c) - (a // c)) % r
            first = base + r * math.ceil(max(0, 2 - base) / r)
            lo.append(first)
            cnt.append(max(0, (n - 2 - first) // r + 1))
        total += math.prod(cnt)
        if total > limit:
            return None
        out.append((m, lo, cnt))
    return out


def _reduce_order(chords: list) -> list:
    """The chord pattern's smallest period (the ring's true order, Doty's definition)."""
    r = len(chords)
    for p in range(1, r + 1):
        if r % p == 0 and all(chords[i] == chords[i % p] for i in range(r)):
            return chords[:p]
    return chords


def find_ring(n: int, degree: int, k: int, orders, budget: int = 200_000, seed: int = 0,
              exhaustive_limit: int = 100_000, restart_steps: int = 4000) -> RingHit | None:
    """A chordal ring on n nodes with the given degree and diameter <= k, or None.

    Tries each order r in ``orders`` (those dividing n); per order, an
    exhaustive search when the ring space is at most ``exhaustive_limit``,
    else local search with at most ``budget`` evaluations."""
    return _find(n, degree, k, orders, budget, seed, exhaustive_limit, restart_steps)[0]


def _find(n, degree, k, orders, budget, seed, exhaustive_limit, restart_steps=4000, deadline=None):
    """(ring or None, rings scored).  ``deadline`` (a perf_counter value) cuts
    the local search between batches of restarts."""
    c = degree - 2
    require(c >= 1, f"chordal rings need degree >= 3, got {degree}")
    require(not (degree % 2 and n % 2), f"degree {degree} is odd, so n must be even; n={n}")
    evaluations = 0
    for r in orders:
        if n % r or r > 64 or r * c < 1 or 2 * r > n:
            continue
        allow_half = (n // 2) % r == 0 and n % 2 == 0
        if (r * c) % 2 and not allow_half:
            continue                      # an odd number of slots needs an n/2 chord
        space = _space(n, r, c, allow_half, exhaustive_limit)
        if space is not None:
            for m, lo, cnt in space:
                if 0 in cnt:
                    continue
                if _late(deadline):
                    return None, evaluations
                pa = np.array([a for a, _ in m], np.int64)
                pb = np.array([b for _, b in m], np.int64)
                chords, scored = _exhaustive(n, r, c, k, pa, pb, np.array(lo, np.int64), np.array(cnt, np.int64))
                evaluations += scored
                if len(chords):
                    return _hit(n, chords, k, "exhaustive", evaluations), evaluations
            continue
        batch = 64
        done = 0
        while done < budget and not _late(deadline):
            steps = min(restart_steps, budget - done)
            seeds = np.arange(batch, dtype=np.int64) + seed * 1_000_003 + n * 7919 + r * 104729 + done
            # the batch's restarts run GROUP at a time, in seed order, so that the deadline is
            # looked at often; the first hit in seed order is the batch's hit, whatever the group size
            spent = 0
            for g in range(0, batch, GROUP):
                score, chords, ev = _local_search(n, r, c, k, allow_half, seeds[g:g + GROUP], steps)
                evaluations += int(ev.sum())
                spent += int(ev.sum())
                hits = np.nonzero(score == 0)[0]
                if len(hits):
                    return _hit(n, chords[hits[0]], k, "local", evaluations), evaluations
                if _late(deadline):
                    return None, evaluations
            done += spent
    return None, evaluations


#: restarts per call of the local-search kernel (between two looks at the deadline)
GROUP = 4


def _late(deadline) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


def _hit(n, chords, k, method, evaluations) -> RingHit:
    from permnet.gen.topologies.families import chordal_ring

    table = _reduce_order([sorted(int(w) for w in row) for row in chords])
    ring = chordal_ring(n, table)
    diameter = ring.metrics().diameter          # independent check with the metrics engine
    require(diameter is not None and diameter <= k, "internal: a search hit failed the exact check")
    return RingHit(n, len(table), table, diameter, method, evaluations)


@dataclass
class SearchRow:
    """The largest ring found for one diameter, with how the search went."""

    degree: int
    diameter: int
    hit: RingHit | None
    moore_bound: int
    tried_up_to: int
    seconds: float
    evaluations: int
    doty: int | None = None
    doty2: int | None = None  # Doty's Table 2 chordal-ring entry for (degree, diameter)
    stopped_by: str = ""      # "window", "moore bound", "evaluations" (deterministic) or "seconds"

    def as_dict(self) -> dict:
        h = self.hit
        return {"degree": self.degree, "diameter": self.diameter, "nodes": h.n if h else None,
                "order": h.order if h else None, "chords": h.chord_text() if h else None,
                "method": h.method if h else None, "moore_bound": self.moore_bound, "doty_table1": self.doty,
                "doty_table2": self.doty2,
                "tried_up_to": self.tried_up_to, "seconds": round(self.seconds, 2), "evaluations": self.evaluations,
                "stopped_by": self.stopped_by}


def undirected_moore(d: int, k: int, cap: int | None = None) -> int:
    """Doty eq. (1): 1 + d + d(d-1) + ... + d(d-1)^(k-1); with ``cap``, the
    sum stops growing once it passes ``cap`` (any value above it is returned)."""
    total, term = 1, d
    for _ in range(k):
        total += term
        if cap is not None and total > cap:
            break
        term *= d - 1
    return total


def search(degree: int, k: int, seconds: float = 120.0, budget: int = 200_000, max_order: int = 16,
           window: int = 16, start: int | None = None, seed: int = 0, progress: bool = True,
           exhaustive_limit: int = 100_000, evaluations: int | None = None) -> SearchRow:
    """Largest n (found) with a chordal ring of ``degree`` and diameter <= k.

    Walks n upwards from ``start`` (default: Doty's Table 2 entry when there
    is one, else an eighth of the Moore bound) in steps of 2 (odd degree) or
    1, doubling the step (up to 16 sizes) after every success; a failure after
    a jump walks back through the sizes the jump skipped, one at a time.  It
    stops after ``window`` consecutive sizes without a ring, at the Moore
    bound, after ``evaluations`` rings scored in all, or after ``seconds``.

    Determinism: everything but the wall clock is seeded, so a run that stops
    by the window, the Moore bound or ``evaluations`` gives the same ring for
    the same arguments on any machine and thread count.  A run cut by
    ``seconds`` (``stopped_by == "seconds"``) depends on the machine's speed."""
    from tqdm import tqdm

    require(3 <= degree <= MAX_DEGREE, f"degree must be in 3..{MAX_DEGREE}, got {degree}")
    require(k >= 2, f"diameter must be >= 2, got {k}")
    require(1 <= max_order <= 64, f"max order must be in 1..64, got {max_order}")
    require(seconds > 0 and budget > 0 and window > 0, "seconds, budget and window must be positive")
    require(evaluations is None or evaluations > 0, f"evaluations must be positive, got {evaluations}")
    moore = undirected_moore(degree, k, cap=8 * MAX_RING_NODES)
    step = 2 if degree % 2 else 1
    doty = DOTY_TABLE2_C.get((degree, k))
    if start is None:
        start = doty if doty is not None else max(2 * k + 2, (moore // 8) // step * step)
    require(start >= 3, f"start must be >= 3, got {start}")
    require(start <= MAX_RING_NODES, f"the search would start at {start} nodes, more than the {MAX_RING_NODES} "
                                     "a ring may have here: give a smaller --diameter or --start")
    last = min(moore, MAX_RING_NODES)
    n = start + (-start) % step
    best, misses, total = None, 0, 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    bar = tqdm(total=None, desc=f"d={degree} k={k}", unit="n", disable=not progress, leave=False)
    tried, done, stride = n, set(), step
    stopped_by = "moore bound"
    while True:
        if n > last:
            stopped_by = "moore bound" if n > moore else "node limit"
            break
        if misses >= window:
            stopped_by = "window"
            break
        if time.perf_counter() >= deadline:
            stopped_by = "seconds"
            break
        if evaluations is not None and total >= evaluations:
            stopped_by = "evaluations"
            break
        if n in done:
            n += step
            continue
        done.add(n)
        orders = [r for r in range(1, max_order + 1) if n % r == 0]
        cap = budget if evaluations is None else max(1, min(budget, evaluations - total))
        hit, ev = _find(n, degree, k, orders, cap, seed, exhaustive_limit, deadline=deadline)
        total += ev
        tried = max(tried, n)
        bar.update(1)
        if hit is not None:
            # gallop while rings are easy to find ...
            best, misses = hit, 0
            stride = min(2 * stride, 16 * step)
            n += stride
        else:
            misses += 1
            # ... and after a failed jump walk the sizes it skipped
            n = best.n + step if best is not None and stride > step else n + step
            stride = step
        bar.set_postfix(best=best.n if best else None, n=n)
    bar.close()
    row = SearchRow(degree, k, best, moore, tried, time.perf_counter() - t0, total,
                    DOTY_TABLE1.get(k, (None,))[0] if degree == 3 else None)
    row.doty2 = doty
    row.stopped_by = stopped_by
    return row


def search_diameters(degree: int, ks, *, seconds: float = 120.0, budget: int = 200_000, max_order: int = 16,
                     window: int = 16, start: int | None = None, seed: int = 0, progress: bool = True,
                     evaluations: int | None = None, workers: int = 1, scheduler: str | None = None) -> list[SearchRow]:
    """:func:`search` for each diameter in increasing order.  The first size
    tried is ``start`` if given, else Doty's Table 2 entry, else the ring found
    for the previous diameter (a ring of diameter <= k-1 also has diameter <= k).

    The diameters are independent jobs (:mod:`permnet.gen.parallel`: ``workers``
    local processes or a Dask ``scheduler``) except where a diameter starts from
    the previous one's ring: that one is started when the previous has ended.
    The rows are the same on any number of workers (but for ``seconds``, the
    time each took, and unless ``seconds`` cut a search)."""
    from permnet.gen.parallel import Runner

    ks = sorted(set(ks))
    with Runner(workers, scheduler, progress=False) as runner:
        alone = runner.serial
        opts = (seconds, budget, max_order, window, seed, progress and alone, evaluations)

        def submit(k, first):
            return runner.submit(_diameter_job, (degree, k, first, opts))

        fixed = {k: submit(k, start if start is not None else None) for k in ks
                 if start is not None or (degree, k) in DOTY_TABLE2_C}
        rows, prev = [], None
        for k in ks:
            row = runner.result(fixed[k] if k in fixed else submit(k, prev))
            rows.append(row)
            if row.hit:
                prev = row.hit.n
    return rows


def _diameter_job(job) -> SearchRow:
    """:func:`search` of one diameter (module level: processes and Dask pickle it by name)."""
    degree, k, first, (seconds, budget, max_order, window, seed, progress, evaluations) = job
    return search(degree, k, seconds, budget, max_order, window, first, seed, progress, evaluations=evaluations)
