"""LDI topology and metrics against eq. (1), BFS and the paper's Table 1."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from oracles import all_pairs, bfs
from permnet.gen.errors import PermnetError
from permnet.gen.topologies import ldi
from permnet.gen.graph.metrics import Digraph, distance_stats
from permnet.gen.analysis.report import ldi_summary


@st.composite
def ldi_params(draw, max_m=2000):
    S = draw(st.integers(2, 16))
    M = draw(st.integers(S + 1, max_m))
    return M, S


@given(ldi_params())
def test_successors_are_eq1(p):
    M, S = p
    succ = ldi.successors(M, S)
    n = np.random.default_rng(M).integers(0, M, 20)
    for v in n:
        assert [(S * int(v) + L) % M for L in range(S)] == succ[v].tolist()


@given(ldi_params(max_m=2000))
def test_diameter_formula_matches_bfs_from_node_0_and_random_nodes(p):
    # The closed-form h (S^(h-1) < M <= S^h) against plain BFS eccentricities.
    M, S = p
    succ = ldi.successors(M, S).tolist()
    h = ldi.diameter(M, S)
    assert S ** (h - 1) < M <= S ** h
    assert max(bfs(succ, 0).values()) == h      # node 0 needs all h hops
    for s in np.random.default_rng(S).integers(0, M, 5):
        assert max(bfs(succ, int(s)).values()) <= h
    assert ldi.moore_diameter_bound(M, S) <= h


@given(ldi_params(max_m=150))
def test_bitparallel_metrics_match_plain_bfs(p):
    M, S = p
    stats = distance_stats(Digraph.from_successors(ldi.successors(M, S)))
    ok, diam, avg = all_pairs(ldi.successors(M, S).tolist())
    assert stats.strongly_connected == ok
    assert stats.diameter == diam
    assert stats.avg_hops == pytest.approx(avg)
    assert stats.hop_counts.sum() == M * (M - 1)


def test_metrics_on_a_disconnected_digraph():
    # Two directed 3-cycles: no strong connectivity, no diameter.
    g = Digraph.from_arcs(6, [0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3])
    s = distance_stats(g)
    assert not s.strongly_connected and s.diameter is None and s.reached.tolist() == [3] * 6


@pytest.mark.parametrize("S,h,avg", [(64, 2, 1.9), (16, 3, 2.9), (8, 4, 3.8), (4, 6, 5.6)])
def test_table1(S, h, avg):
    # Melhem Table 1 (M = 4096).  The paper's averages come from simulation
    # and are printed to one decimal (1.984 is printed as 1.9).
    s = ldi_summary(4096, S)
    assert s.diameter == h == s.diameter_formula
    assert abs(s.avg_hops - avg) < 0.1
    assert s.bandwidth_factor == pytest.approx(S / h)


def test_moore_bound_and_bandwidth_examples():
    assert ldi.moore_diameter_bound(4096, 8) == 4
    assert ldi.bandwidth_factor(4096, 4) == pytest.approx(4 / 6)   # "0.75B" in the paper is 4B/6
    assert ldi.bandwidth_factor(4096, 8) == 2.0


def test_de_bruijn_equivalence():
    # M = S^h: LDI(M,S) is the de Bruijn graph (shift left, append a digit).
    S, h = 3, 3
    M = S ** h
    for n in range(M):
        digits = [(n // S ** i) % S for i in range(h)][::-1]
        for y in range(S):
            shifted = digits[1:] + [y]
            assert sum(d * S ** (h - 1 - i) for i, d in enumerate(shifted)) == ldi.successors(M, S)[n, y]


@pytest.mark.parametrize("M,S", [(3, 3), (2, 3), (10, 1), (10, 0), (5, -2)])
def test_bad_parameters(M, S):
    with pytest.raises(PermnetError):
        ldi.successors(M, S)
