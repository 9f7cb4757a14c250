"""Recursively connected complete networks RCC(l, K_m) as super-IP graphs (the
complete nucleus with RHSN's recursive swaps): Corollary 4.2's diameter
(D_G + 1) log_{M_N} N - 1 = 2l - 1 against the exact diameter by networkx BFS."""

import math

import networkx as nx
import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.topologies import ipgraph as ip


def nx_graph(topo):
    G = nx.Graph()
    G.add_nodes_from(range(topo.n))
    G.add_edges_from((a, b) for a, b in zip(topo.tails.tolist(), topo.heads.tolist()) if a != b)
    return G


@pytest.mark.parametrize("levels,m", [(2, 2), (2, 5), (3, 3), (3, 4), (4, 2), (4, 3), (4, 4), (5, 3), (6, 2),
                                      (8, 2)])
def test_corollary_4_2_diameter(levels, m):
    g = ip.rcc(levels, f"K{m}")
    N = g.topology.n
    assert N == m ** levels                                             # Theorem 3.2
    G = nx_graph(g.topology)
    assert nx.is_connected(G)
    exact = nx.diameter(G)
    dg = 1                                                              # the complete nucleus
    assert exact == round((dg + 1) * math.log(N, m)) - 1 == 2 * levels - 1
    assert exact == g.diameter_formula()                                # l D_G + t, t found by search
    # degree: m - 1 nucleus links and one per recursive swap
    assert max(d for _, d in G.degree()) == m - 1 + math.ceil(math.log2(levels))


@pytest.mark.parametrize("levels,m,t_s", [(2, 3, 2), (3, 3, 4), (4, 3, 6)])
def test_symmetric_rcc_follows_theorem_4_3_not_corollary_4_2(levels, m, t_s):
    g = ip.rcc(levels, f"complete:{m}", symmetric=True)
    exact = nx.diameter(nx_graph(g.topology))
    assert g.t() == t_s and exact == levels + t_s == g.diameter_formula()
    assert exact > 2 * levels - 1          # the corollary is for the repeated-symbol seed only


def test_rcc_is_rhsn_of_a_complete_graph_and_named_rcc():
    a = ip.rcc(4, "K3")
    b = ip.super_ip("rhsn", 4, "complete:3")
    assert a.topology.name == "rcc" and a.topology.params["nucleus"] == "K3"
    assert sorted(zip(a.topology.tails.tolist(), a.topology.heads.tolist())) == \
        sorted(zip(b.topology.tails.tolist(), b.topology.heads.tolist()))


@pytest.mark.parametrize("spec", ["Q3", "hypercube:2", "ring:5", "petersen", "star:3"])
def test_rcc_needs_a_complete_nucleus(spec):
    with pytest.raises(PermnetError, match="complete graph"):
        ip.rcc(2, spec)


def test_short_nucleus_names():
    assert ip.nucleus_spec("Q7") == "hypercube:7" and ip.nucleus_spec("K5") == "complete:5"
    assert ip.nucleus_spec("ring:5") == "ring:5"
    assert ip.nucleus("Q3").topology.n == 8 and ip.nucleus("K5").topology.n == 5


def test_cli_topo_rcc_route_and_planes(tmp_path):
    import json

    from cli_runner import run
    from permnet import ocsconfig

    cfg = tmp_path / "rcc.json"
    out = json.loads(run("topo", "rcc", "--levels", 4, "--nucleus", "K3", "--json", "--planes", cfg).stdout)
    assert (out["family"], out["nodes"], out["diameter"], out["diameter_formula"]) == ("rcc", 81, 7, 7)
    assert ocsconfig.read(cfg).planes.shape == (4, 81)                  # 2 rotations of K3, 2 swaps
    r = json.loads(run("route", "superip", "--family", "rcc", "--levels", 4, "--nucleus", "K3", "--src", 0,
                       "--dst", 80, "--json").stdout)
    assert r["hops"] <= 7 and r["path"][0] == 0 and r["path"][-1] == 80
    p = run("topo", "rcc", "--levels", 2, "--nucleus", "Q3", check=False)
    assert p.returncode == 2 and "complete graph" in p.stderr and len(p.stderr.strip().splitlines()) == 1
