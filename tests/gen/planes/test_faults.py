"""Faults (Melhem Section 4): damaged networks and re-embedding."""

from collections import Counter
from itertools import combinations

import pytest

from oracles import all_pairs, bfs, ldi_edges
from permnet.gen.errors import PermnetError
from permnet.gen.planes.faults import damaged_digraph, fault_report, reembed_planes


def damaged_adj(M, S, failed):
    alive = [n for n in range(M) if n not in failed]
    idx = {n: i for i, n in enumerate(alive)}
    return [[idx[(S * n + L) % M] for L in range(S) if (S * n + L) % M in idx] for n in alive], alive


def test_figure_6b_three_faults_isolate_nodes_0_and_3():
    rep = fault_report(15, 5, [1, 2, 4])
    assert rep.connected is False and rep.diameter is None
    assert rep.as_dict()["damaged"]["connected"] is False and rep.as_dict()["diameter"] is None
    adj, alive = damaged_adj(15, 5, {1, 2, 4})
    for v in (0, 3):
        assert {alive[i] for i in bfs(adj, alive.index(v))} == {0, 3}


def test_ldi_15_5_survives_any_two_faults_with_diameter_3():
    # Section 4: S - ceil(S/G) - 1 = 2 faults keep LDI(15,5) connected, diameter <= 3.
    for failed in combinations(range(15), 2):
        rep = fault_report(15, 5, list(failed))
        ok, diam, _ = all_pairs(damaged_adj(15, 5, set(failed))[0])
        assert rep.connected is ok is True
        assert rep.diameter == diam <= 3


@pytest.mark.parametrize("S", [3, 4, pytest.param(5, marks=pytest.mark.slow)])   # S = 5: 2,300 fault sets
def test_de_bruijn_ldi_s2_survives_s_minus_2_faults(S):
    # LDI(S^2, S) stays connected under any S-2 faults, diameter <= 3.
    M = S * S
    for failed in combinations(range(M), S - 2):
        g, _ = damaged_digraph(M, S, failed)
        from permnet.gen.graph.metrics import distance_stats
        s = distance_stats(g)
        assert s.strongly_connected and s.diameter <= 3


@pytest.mark.parametrize("M,S,failed", [(15, 5, [1, 2, 4]), (100, 7, [0, 50, 99]), (64, 4, list(range(0, 64, 5)))])
def test_reembedding_is_ldi_on_survivors(M, S, failed):
    planes = reembed_planes(M, S, failed)
    alive = [n for n in range(M) if n not in failed]
    Mf = len(alive)
    got = Counter()
    for row in planes:
        assert [int(row[f]) for f in failed] == [-1] * len(failed)
        used = [int(row[n]) for n in alive]
        assert sorted(used) == alive                       # a permutation of the survivors
        got.update((alive.index(n), alive.index(int(row[n]))) for n in alive)
    assert got == ldi_edges(Mf, S)


@pytest.mark.parametrize("failed,msg", [([1, 1], "twice"), ([15], "out of range"), ([-1], "out of range"),
                                        (list(range(10)), "survivors")])
def test_bad_failed_lists(failed, msg):
    with pytest.raises(PermnetError, match=msg):
        fault_report(15, 5, failed)
