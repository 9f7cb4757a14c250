"""Schedules replayed by a small replayer written here; the baselines checked
against exhaustive and LP optima on small matrices."""

from itertools import combinations, permutations

import numpy as np
import pytest
from scipy.optimize import linprog

from permnet.gen.errors import PermnetError
from permnet.gen.traffic.patterns import pattern
from permnet.gen.traffic.schedule import (bvn, optimise_durations, quick_stuff, schedule_demand, solstice,
                                          stuff_northwest)


def replay(D, sched, delay, horizon):
    """Play the configurations in order: a delay, then every circuit serves its pair for the duration."""
    M = D.shape[0]
    left = D.copy()
    clock = 0.0
    for conf, t in zip(sched.configs, sched.durations):
        assert conf.shape[1] == M
        for p in conf:
            assert sorted(p.tolist()) == list(range(M))           # each entry a permutation
        assert t > 0
        clock += delay + t
        cap = np.zeros((M, M))
        for p in conf:
            for i in range(M):
                if p[i] != i:
                    cap[i, p[i]] += t
        left -= np.minimum(left, cap)
    assert clock <= horizon * (1 + 1e-9)
    return 1 - left.sum() / D.sum()


def scaled(D, S, horizon, load=1.0):
    line = max(D.sum(axis=1).max(), D.sum(axis=0).max())
    return D * (load * S * horizon / line)


WORKLOADS = [("skewed", 32, 1), ("skewed", 32, 4), ("stencil2d", 36, 4), ("uniform", 16, 1), ("hotspot", 16, 2),
             ("transpose", 16, 1), ("ring-allreduce", 12, 1), ("bit-reversal", 32, 2)]


@pytest.mark.parametrize("name,M,S", WORKLOADS)
def test_schedules_replay_and_ours_serves_at_least_solstice(name, M, S):
    delay, horizon = 30.0, 1500.0
    D = pattern(name, M, seed=2)
    r = schedule_demand(D, S, delay, horizon)
    Ds = scaled(D, S, horizon)
    for s in (r.ours, r.solstice, r.bvn):
        assert replay(Ds, s, delay, horizon) == pytest.approx(s.served, abs=1e-9)
        assert s.configs.shape[1:] == (S, M)
    assert r.ours.served >= r.solstice.served - 1e-9 and r.ours.served >= r.bvn.served - 1e-9


def test_stuffing_reaches_equal_line_sums_without_lowering_entries():
    rng = np.random.default_rng(1)
    D = rng.random((6, 6)) * (rng.random((6, 6)) < 0.4)
    np.fill_diagonal(D, 0)
    D[0, 1] = 5
    for stuff in (stuff_northwest, quick_stuff):
        A, L = stuff(D)
        assert (A >= D - 1e-12).all() and L == pytest.approx(max(D.sum(0).max(), D.sum(1).max()))
        assert np.allclose(A.sum(axis=0), L) and np.allclose(A.sum(axis=1), L)
    # QuickStuff raises existing entries first: no new entry where a row's own entries could absorb the deficit
    A, _ = quick_stuff(np.array([[0, 2, 1], [1, 0, 0], [1, 0, 0.5]], float))
    assert np.allclose(A.sum(axis=1), 3) and np.allclose(A.sum(axis=0), 3)


def test_bvn_without_delay_takes_the_lp_minimum_time():
    """Birkhoff: with no delay the matchings' total time equals the minimum time
    any set of permutation durations needs to serve D (an LP over all 4! permutations)."""
    rng = np.random.default_rng(3)
    D = rng.random((4, 4))
    np.fill_diagonal(D, 0)
    perms = list(permutations(range(4)))
    A_ub = np.zeros((16, len(perms)))
    for k, p in enumerate(perms):
        for i in range(4):
            A_ub[i * 4 + p[i], k] = -1
    lp = linprog(np.ones(len(perms)), A_ub=A_ub, b_ub=-D.reshape(-1), bounds=(0, None), method="highs")
    seq = bvn(D, 1, 0.0, 1e9)
    total = sum(t for _, t in seq)
    assert total == pytest.approx(lp.fun)
    served = np.zeros((4, 4))
    for m, t in seq:
        served[np.arange(4), m] += t
    assert (served >= D - 1e-9).all()
    sol = solstice(D, 1, 0.0, 1e9)
    assert sum(t for _, t in sol) == pytest.approx(lp.fun)          # Solstice too: it decomposes the stuffed matrix


def test_lp_durations_match_exhaustive_best_on_a_small_case():
    """Two configurations of 3 nodes, every choice of permutations, durations by a fine grid:
    the LP durations are never beaten, and ours is at least the best pair found."""
    D = np.array([[0, 4, 1], [1, 0, 4], [4, 1, 0]], float)
    delay, horizon = 1.0, 8.0
    perms = [np.array(p) for p in permutations(range(3))]
    best_grid = 0.0
    for a, b in combinations(range(len(perms)), 2):
        confs = np.array([[perms[a]], [perms[b]]])
        t, served = optimise_durations(D, confs, delay, horizon)
        assert t.sum() <= horizon - 2 * delay + 1e-9
        for x in np.linspace(0, horizon - 2 * delay, 61):
            cap = np.zeros((3, 3))
            cap[np.arange(3), perms[a]] += x
            cap[np.arange(3), perms[b]] += horizon - 2 * delay - x
            np.fill_diagonal(cap, 0)
            g = np.minimum(D, cap).sum()
            assert g <= served + 1e-9
            best_grid = max(best_grid, g)
    r = schedule_demand(D, 1, delay, horizon, load=D.sum(axis=1).max() / horizon)
    assert r.ours.served * D.sum() >= best_grid - 1e-6


def test_bad_schedule_parameters():
    D = pattern("uniform", 8)
    with pytest.raises(PermnetError, match="must exceed"):
        schedule_demand(D, 1, 10.0, 5.0)
    with pytest.raises(PermnetError, match="degree S"):
        schedule_demand(D, 0, 1.0, 5.0)
    with pytest.raises(PermnetError, match="finite"):
        schedule_demand(D, 1, float("nan"), 5.0)


def test_two_hop_relays_over_unused_circuits():
    """0 -> 2 has no circuit, but 0 -> 1 and 1 -> 2 idle for 3 units: 2 of its 2 units can be relayed."""
    from permnet.gen.traffic.schedule import served_direct, two_hop_served

    D = np.zeros((3, 3))
    D[0, 1], D[1, 2], D[0, 2] = 1.0, 1.0, 2.0
    configs = np.array([[[1, 2, 0]]])                 # 0 -> 1 -> 2 -> 0 for 4 units
    durations = np.array([4.0])
    assert served_direct(D, configs, durations) == pytest.approx(0.5)
    assert two_hop_served(D, configs, durations) == pytest.approx(1.0)
    assert two_hop_served(D, configs, np.array([1.5])) == pytest.approx((2 + 0.5) / 4)


def per_pair_lp(D, configs, delay, horizon):
    """The duration LP written out pair by pair (dense): maximise sum_p s_p with
    s_p <= D_p, s_p <= sum_c m_pc t_c and sum_c t_c <= T - C delay."""
    C, S, M = configs.shape
    pairs = [(i, j) for i in range(M) for j in range(M) if i != j and D[i, j] > 0]
    m = np.zeros((len(pairs), C))
    for k, (i, j) in enumerate(pairs):
        for c in range(C):
            m[k, c] = sum(configs[c, y, i] == j for y in range(S))
    P = len(pairs)
    A = np.zeros((P + 1, C + P))
    A[:P, :C] = -m
    A[:P, C:] = np.eye(P)
    A[P, :C] = 1
    b = np.r_[np.zeros(P), horizon - C * delay]
    bounds = [(0, None)] * C + [(0, D[i, j]) for i, j in pairs]
    res = linprog(np.r_[np.zeros(C), -np.ones(P)], A_ub=A, b_ub=b, bounds=bounds, method="highs")
    return -res.fun


@pytest.mark.parametrize("C,S,same", [(5, 2, False), (6, 3, False), (30, 2, True)])
def test_merged_lp_equals_the_per_pair_lp(C, S, same):
    """Pairs merged by coverage (with multiplicities: planes repeated inside a configuration)
    and by demand value; ``same``: every configuration the same, so a pair is covered 30
    times and the coverage is too long to encode (one group a pair)."""
    rng = np.random.default_rng(C + S)
    M = 7
    D = np.round(rng.random((M, M)) * 4) / 2 * (rng.random((M, M)) < 0.7)     # repeated values, zeros
    np.fill_diagonal(D, 0)
    configs = np.array([[rng.permutation(M) for _ in range(S)] for _ in range(C)])
    configs[:, -1] = configs[:, 0]                                               # m = 2 on plane 0's pairs
    if same:
        configs[:] = configs[0]
    delay, horizon = 0.5, 3 * C
    t, served = optimise_durations(D, configs, delay, horizon)
    assert served == pytest.approx(per_pair_lp(D, configs, delay, horizon), rel=1e-9, abs=1e-9)
    cap = np.zeros((M, M))
    for c in range(C):
        for y in range(S):
            cap[np.arange(M), configs[c, y]] += t[c]
    np.fill_diagonal(cap, 0)
    assert t.sum() <= horizon - C * delay + 1e-9
    assert np.minimum(D, cap).sum() == pytest.approx(served, rel=1e-9, abs=1e-9)


def test_solstice_and_bvn_matchings_decompose_the_stuffed_matrix():
    """With no delay and no limit the peeled matchings are permutations whose weighted sum is the
    stuffed matrix (BvN: every entry; Solstice: every entry it did not round to zero)."""
    rng = np.random.default_rng(5)
    D = rng.random((9, 9)) * (rng.random((9, 9)) < 0.5)
    np.fill_diagonal(D, 0)
    for peel, stuff in ((bvn, stuff_northwest), (solstice, quick_stuff)):
        A, L = stuff(D)
        seq = peel(D, 1, 0.0, 1e9, limit=10_000)
        total = np.zeros_like(A)
        for m, t in seq:
            assert sorted(m.tolist()) == list(range(9)) and t > 0
            total[np.arange(9), m] += t
        assert np.allclose(total, A, atol=1e-6 * L)
