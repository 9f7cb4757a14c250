"""Polarity start graphs and the sweep that uses them."""

import networkx as nx
import numpy as np
import pytest

from permnet.gen.orp.bounds import m_opt
from permnet.gen.orp.polarity import is_prime, polarity_edges, polarity_order_near, polarity_orders, polarity_start
from permnet.gen.orp.sweep import sweep
from search_helpers import host_switch_stats

# published 2021 h-ASPL, scored independently in tests/data/graphgolf/README.md
PUBLISHED = {(1281, 21): 3.976934523810, (3800, 30): 4.003158725981}


@pytest.mark.parametrize("q", [2, 3, 5, 7, 13])
def test_polarity_graph_is_the_known_diameter_two_graph(q):
    e = polarity_edges(q)
    G = nx.Graph()
    G.add_edges_from(e.tolist())
    m = q * q + q + 1
    assert G.number_of_nodes() == m and G.number_of_edges() == len(e)   # no repeated edge
    assert all(u != v for u, v in e.tolist())
    deg = sorted(d for _, d in G.degree())
    assert deg == [q] * (q + 1) + [q + 1] * (m - q - 1)                  # q+1 absolute points
    assert nx.diameter(G) == 2
    # two distinct points lie on exactly one line: exactly one common neighbour (or the pair is absolute-adjacent)
    for u, v in [(0, 1), (1, m - 1), (2, m // 2)]:
        common = len(set(G[u]) & set(G[v]))
        assert common in (0, 1) and (common == 1 or G.has_edge(u, v))


def test_polarity_orders_and_bad_q():
    assert polarity_orders(1281, 21) == [13] and polarity_orders(3800, 30) == [19]
    assert polarity_orders(432, 12) == [] and polarity_orders(1024, 10) == []
    assert [q for q in range(20) if is_prime(q)] == [2, 3, 5, 7, 11, 13, 17, 19]
    with pytest.raises(Exception):
        polarity_edges(4)


def test_polarity_start_beats_the_published_1281_21_graph():
    g = polarity_start(1281, 21, 13, seed=0)
    aspl, diam = host_switch_stats(g)          # networkx BFS over hosts and switches
    assert aspl == pytest.approx(g.haspl(), rel=1e-12) and diam == g.diameter() == 4
    assert aspl < PUBLISHED[(1281, 21)] - 0.05
    assert g.degrees().max() <= 21 and g.counts().sum() == 1281 and g.m == 183


def test_sweep_with_a_polarity_candidate_is_deterministic_and_valid():
    # (52, 8): q = 3 (13 switches of degree 4, 4 hosts each) and q = 5 (31 switches of degree 6) hold the hosts
    assert polarity_orders(52, 8) == [3, 5]
    q = polarity_order_near(52, 8, m_opt(52, 8))
    a = sweep(52, 8, sweep=3, evaluations=400, seed=1, workers=1, restarts=2)
    b = sweep(52, 8, sweep=3, evaluations=400, seed=1, workers=2, restarts=2)
    assert a.result.graph.to_edges_text() == b.result.graph.to_edges_text()
    assert f"polarity q{q}" in a.by_start
    g = a.result.graph
    aspl, diam = host_switch_stats(g)
    assert aspl == pytest.approx(a.result.haspl) and diam == a.result.diameter
    assert g.degrees().max() <= 8 and g.counts().sum() == 52
    assert a.result.haspl <= min(v for v in [*a.by_switches.values(), *a.by_start.values()]
                                 if isinstance(v, float)) + 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("n,r", [(1281, 21), (3800, 30)])
def test_record_search_beats_the_published_graph(n, r):
    from permnet.gen.orp.records import search_instance

    row, g = search_instance(n, r, 0, workers=1, evaluations=300)
    aspl, diam = host_switch_stats(g)
    assert aspl == pytest.approx(row.haspl, rel=1e-12) and diam == row.diameter
    assert aspl < PUBLISHED[(n, r)] and row.gap_pct < 0
    assert g.degrees().max() <= r and g.counts().sum() == n and np.isfinite(aspl)
