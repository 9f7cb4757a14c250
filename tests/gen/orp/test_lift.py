"""Cyclic-lift start graphs: the lift's score against networkx, the (80, 6) record layout, the sweep candidate."""

import json
import math

import networkx as nx
import numpy as np
import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.orp.bounds import m_opt
from permnet.gen.orp.lift import (LIFT_MAX_SWITCHES, _lift_key, base_orders, lift_candidates, lift_edges,
                                  lift_search, lift_start)
from permnet.gen.orp.records import INSTANCES, PUBLISHED
from permnet.gen.orp.sweep import sweep
from permnet.graphgolf import read_edges
from cli_runner import run
from search_helpers import host_switch_stats


def _random_voltage_graph(rng, b, c, k):
    stubs = rng.permutation(np.repeat(np.arange(b, dtype=np.int64), k))
    return stubs[0::2].copy(), stubs[1::2].copy(), rng.integers(0, c, b * k // 2)


@pytest.mark.parametrize("m,k", [(12, 3), (40, 4), (30, 5), (36, 6), (27, 4)])
def test_lift_key_matches_networkx_on_random_voltage_graphs(m, k):
    rng = np.random.default_rng(m * 10 + k)
    seen = {"simple": 0, "not simple": 0}
    for _ in range(60):
        b = int(rng.choice(base_orders(m, k)))
        c = m // b
        bu, bv, volt = _random_voltage_graph(rng, b, c, k)
        simple, diam, at, total = _lift_key(b, c, k, bu, bv, volt)
        G = nx.MultiGraph()
        G.add_nodes_from(range(m))
        G.add_edges_from(lift_edges(b, c, bu, bv, volt).tolist())
        is_simple = nx.number_of_selfloops(G) == 0 and G.number_of_edges() == nx.Graph(G).number_of_edges()
        assert simple == is_simple
        seen["simple" if is_simple else "not simple"] += 1
        if not is_simple:
            continue
        assert all(d == k for _, d in G.degree())
        if not nx.is_connected(G):
            assert diam == 1 << 30
            continue
        dist = dict(nx.all_pairs_shortest_path_length(G))
        values = [d for row in dist.values() for d in row.values()]
        assert diam == max(values) and total == sum(values)
        assert at == sum(v == diam for v in values)
    assert seen["simple"] > 5


def test_lift_search_finds_the_least_distance_sum_of_a_4_regular_diameter_3_graph_on_40_vertices():
    res = lift_search(40, 4, tries=30_000, seed=1)      # seed 1 reaches the optimum by 30,000 tries (not by 10,000)
    G = nx.Graph()
    G.add_edges_from(res.edges.tolist())
    assert G.number_of_nodes() == 40 and G.number_of_edges() == 80 and all(d == 4 for _, d in G.degree())
    # diameter 3 and degree 4: at most 4 vertices at distance 1 and 4 * 3 at 2, so each vertex's distances
    # to the other 39 add up to at least 4 + 2 * 12 + 3 * 23 = 97
    assert nx.diameter(G) == 3 == res.diameter
    sums = [sum(nx.single_source_shortest_path_length(G, v).values()) for v in G]
    assert sums == [97] * 40 and res.total == sum(sums)


@pytest.mark.slow              # 100,000 lift tries: 20-36 s
def test_lift_start_equals_the_published_80_6_graph():
    g = lift_start(80, 6, 40, seed=1, tries=100_000)
    aspl, diam = host_switch_stats(g)          # networkx BFS over hosts and switches
    assert aspl == pytest.approx(g.haspl(), rel=1e-12) and diam == g.diameter() == 5
    published, switches, published_diam = PUBLISHED[(80, 6)]   # scored from the 2021 file in tests/data
    assert (g.m, diam) == (switches, published_diam) and aspl == pytest.approx(published, abs=1e-9)
    assert g.degrees().max() <= 6 and sorted(set(g.counts().tolist())) == [2]
    assert g.to_edges_text() == lift_start(80, 6, 40, seed=1, tries=100_000).to_edges_text()


def test_lift_start_with_uneven_hosts_links_the_spare_ports():
    g = lift_start(50, 8, 12, seed=0, tries=3000)    # 5 hosts on 2 switches, 4 on 10; degree 3 lift
    aspl, diam = host_switch_stats(g)
    assert aspl == pytest.approx(g.haspl(), rel=1e-12) and diam == g.diameter()
    assert sorted(g.counts().tolist()) == [4] * 10 + [5] * 2 and g.degrees().max() <= 8
    assert (g.edges[:, 0] != g.edges[:, 1]).all()


def test_lift_candidates_follow_the_rule():
    assert lift_candidates(80, 6) == [(2, 40)]
    found = {}
    for n, r in INSTANCES + [(50, 8), (160, 10)]:
        found[n, r] = cands = lift_candidates(n, r)
        # m_opt only where there is a candidate to bound: at 10,000 and 65,536 hosts it costs ~2 s
        mo = m_opt(n, r) if cands else None
        for h, m in cands:
            assert h == math.ceil(n / m) and r - h >= 3 and base_orders(m, r - h)
            assert 0.8 * mo <= m <= min(1.3 * mo, LIFT_MAX_SWITCHES)
    assert found[65536, 64] == []


def test_lift_bad_input_is_one_error():
    with pytest.raises(PermnetError, match="degree >= 3"):
        lift_start(80, 6, 20, tries=100)          # 4 hosts per switch leave degree 2
    with pytest.raises(PermnetError, match="seconds or tries"):
        lift_search(40, 4)
    assert base_orders(15, 3) == [] and lift_search(15, 3, tries=100) is None   # odd k needs an even b | m


@pytest.mark.slow      # a published-record check (the bench's Graph Golf table); worker independence: test_sweep.py
def test_sweep_anneals_the_lift_candidate_and_reaches_the_published_80_6_graph(tmp_path):
    # the example of docs/tutorials/records.md: the library on one worker, the CLI on two, the same graph
    a = sweep(80, 6, sweep=3, evaluations=10_000, seed=1, workers=1, restarts=2, objective="golf")
    out = json.loads(run("orp", "search", "-n", 80, "-r", 6, "--sweep", 3, "--evals", 10_000, "--seed", 1,
                         "--objective", "golf", "--workers", 2, "-o", tmp_path / "h80.edges", "--json").stdout)
    g = read_edges(tmp_path / "h80.edges")
    assert g.to_edges_text() == a.result.graph.to_edges_text()
    assert out["by_start"] == a.by_start and isinstance(a.by_start["lift h2m40"], float)
    aspl, diam = host_switch_stats(g)
    assert aspl == pytest.approx(out["haspl"]) and diam == out["diameter"] == 5
    assert aspl <= PUBLISHED[(80, 6)][0] + 1e-9
    assert g.degrees().max() <= 6 and g.counts().sum() == 80
