"""Recursive hierarchical swapped networks as super-IP graphs: Corollary 4.2's diameter
(D_G + 1) log_{M_N} N - 1 against the exact diameter by networkx BFS."""

import math

import networkx as nx
import pytest

from permnet.gen.topologies import ipgraph as ip
from cli_runner import run


def nx_graph(topo):
    G = nx.Graph()
    G.add_nodes_from(range(topo.n))
    G.add_edges_from(zip(topo.tails.tolist(), topo.heads.tolist()))
    return G


@pytest.mark.parametrize("levels,nucleus,dg,mn", [(2, "hypercube:2", 2, 4), (4, "hypercube:1", 1, 2),
                                                  (4, "hypercube:2", 2, 4), (8, "hypercube:1", 1, 2)])
def test_corollary_4_2_diameter(levels, nucleus, dg, mn):
    h = ip.super_ip("rhsn", levels, nucleus)
    N = h.topology.n
    assert N == mn ** levels
    G = nx_graph(h.topology)
    assert nx.is_connected(G)
    assert nx.diameter(G) == round((dg + 1) * math.log(N, mn)) - 1 == h.diameter_formula()


def test_two_levels_is_hsn():
    a = ip.super_ip("rhsn", 2, "hypercube:2").topology
    b = ip.super_ip("hsn", 2, "hypercube:2").topology
    assert sorted(zip(a.tails.tolist(), a.heads.tolist())) == sorted(zip(b.tails.tolist(), b.heads.tolist()))
    p = run("topo", "rhsn", "--levels", 1, "--nucleus", "hypercube:1", check=False)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
