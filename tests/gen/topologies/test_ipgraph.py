"""IP graphs (Yeh & Parhami): the paper's examples, Theorem 3.2 sizes,
Theorems 4.1/4.3 diameters against exact search, and routing by sorting
checked by walking every path with the generators themselves."""

import itertools
import json
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from permnet.gen.errors import PermnetError
from permnet.gen.topologies import families
from permnet.gen.topologies import ipgraph as ip
from cli_runner import run


def simple(topo):
    """networkx graph without self-loops or repeated arcs."""
    G = nx.DiGraph() if topo.directed else nx.Graph()
    G.add_nodes_from(range(topo.n))
    G.add_edges_from((a, b) for a, b in zip(topo.tails.tolist(), topo.heads.tolist()) if a != b)
    return G


def arcs(topo, relabel=None):
    r = relabel or list(range(topo.n))
    return sorted((r[a], r[b]) for a, b in zip(topo.tails.tolist(), topo.heads.tolist()) if a != b)


def test_paper_example_123321():
    g = ip.ip_graph("123321", "(1,2);(1,3);456123")
    assert g.topology.n == 36
    assert [g.label_text(int(v)) for v in g.succ[0]] == ["213321", "321321", "321123"]


def test_paper_star_graph_example():
    g = ip.ip_graph("123654", ["(1,2)", "(1,3)", "(1,4)", "(1,5)", "(1,6)"])
    assert [g.label_text(int(v)) for v in g.succ[0]] == ["213654", "321654", "623154", "523614", "423651"]
    assert g.topology.n == 720
    # explicit isomorphism: symbols are coded in order of first use, so a
    # label is a permutation of 0..5; the star graph numbers them lexicographically
    rank = {p: i for i, p in enumerate(itertools.permutations(range(6)))}
    to_star = [rank[tuple(row.tolist())] for row in g.labels]
    assert arcs(g.topology, to_star) == arcs(families.star_graph(6))


@pytest.mark.parametrize("cycle,line", [("(1,2)", "2134"), ("(1,2,3)", "3124"), ("(1,2)(3,4)", "2143"),
                                        ("(1 4)", "4231"), ("(2,4,3)", "1342")])
def test_cycle_and_one_line_notation_agree(cycle, line):
    a, b = ip.parse_generator(cycle, 4), ip.parse_generator(line, 4)
    assert a.tolist() == b.tolist()
    # the cycle moves the symbol at a_i to a_{i+1}
    label = np.array(list("wxyz"))
    moved = label[a]
    if cycle == "(1,2,3)":
        assert "".join(moved) == "ywxz"


@pytest.mark.parametrize("bad", ["(1,2", "(1,5)", "(1,1)", "(1,2)(2,3)", "1234x", "1123", "12", "()", "(a,b)"])
def test_bad_generators(bad):
    with pytest.raises(PermnetError):
        ip.parse_generator(bad, 4)


@pytest.mark.parametrize("n", [2, 3])
def test_hcn_is_hsn_of_hypercube(n):
    # Section 2 / 3.2: HCN(n,n) without diameter links = HSN(2, Q_n).
    h = ip.hcn(n)
    s = ip.super_ip("hsn", 2, f"hypercube:{n}")
    assert h.topology.n == s.topology.n == 4 ** n
    # same label space, built from the paper's T_{2,2n} versus the generic super-generator
    to_s = [s.index[row.tobytes()] for row in h.labels]
    assert arcs(h.topology, to_s) == arcs(s.topology)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_de_bruijn_as_ip_graph(n):
    g = ip.de_bruijn_ip(n)
    assert g.topology.directed and g.topology.n == 2 ** n
    # pair i of the label is 12 or 21: bit b_i, b_1 most significant; then
    # L rotates the pairs and L-bar also flips the moved one: shift left, append any bit
    value = [int("".join("1" if row[2 * i] else "0" for i in range(n)), 2) for row in g.labels]
    assert arcs(g.topology, value) == arcs(families.de_bruijn(2, n))


@pytest.mark.parametrize("spec,graph", [("hypercube:3", lambda: families.hypercube(3)),
                                        ("star:4", lambda: families.star_graph(4)),
                                        ("petersen", families.petersen),
                                        ("complete:5", lambda: families._topology("K5", 5, list(
                                            itertools.combinations(range(5), 2)), False)),
                                        ("ring:7", lambda: families.torus(7, 1))])
def test_nuclei_are_the_named_graphs(spec, graph):
    assert nx.vf2pp_is_isomorphic(simple(ip.nucleus(spec).topology), simple(graph()))


GROUP = {"hsn": math.factorial, "superflip": math.factorial, "ring-cn": lambda l: l, "complete-cn": lambda l: l,
         "directed-cn": lambda l: l, "rhsn": math.factorial}   # rhsn: the box group is S_l for l <= 3
GRID = [(fam, l, nuc, sym) for fam in ip.SUPER_FAMILIES for l in (2, 3) for nuc in
        ("hypercube:2", "complete:3", "ring:5", "petersen") for sym in (False, True)
        if not (nuc == "petersen" and sym and l == 3)]


@pytest.mark.parametrize("fam,l,nuc,sym", GRID)
def test_size_and_diameter_theorems(fam, l, nuc, sym):
    g = ip.super_ip(fam, l, nuc, sym)
    M = g.nucleus.topology.n
    # Theorem 3.2 (and Section 3.5 for the symmetric variants)
    assert g.topology.n == M ** l * (GROUP[fam](l) if sym else 1)
    m = g.topology.metrics()
    assert m.connected
    # Theorems 4.1 / 4.3, with t found by search; Corollary 4.2 for the plain networks
    assert m.diameter == g.diameter_formula()
    DG = g.nucleus.topology.metrics().diameter
    if not sym:
        assert g.t() == l - 1
        assert m.diameter == round((DG + 1) * math.log(g.topology.n, M)) - 1
    assert g.topology.directed == (fam == "directed-cn" and l > 2)
    # Theorem 3.1: inter-cluster degree <= number of super-generators
    from permnet.gen.analysis.clusters import cluster_metrics
    c = cluster_metrics(g.topology, g.clusters(), m.diameter, m.degree)
    assert c.max_module_size == M and c.inter_cluster_degree <= len(g.box_perms)


@pytest.mark.slow
@pytest.mark.parametrize("fam,l,nuc,sym", [(fam, l, nuc, sym) for fam in ip.SUPER_FAMILIES for l in (4, 5)
                                           for nuc in ("hypercube:1", "complete:4", "ring:5", "hypercube:3")
                                           for sym in (False, True)])
def test_diameter_theorems_wide(fam, l, nuc, sym):
    try:
        g = ip.super_ip(fam, l, nuc, sym, max_nodes=120_000)
    except PermnetError:
        pytest.skip("larger than the sweep's limit")
    assert g.topology.metrics().diameter == g.diameter_formula()


def apply(gen, label):
    return label[gen]


def check_walk(g, path, src, dst):
    """Independent check: each hop applies one generator to the label."""
    assert path[0][0] == src and path[-1][0] == dst
    for (u, _), (v, _) in zip(path, path[1:]):
        assert any(np.array_equal(apply(gen, g.labels[u]), g.labels[v]) for gen in g.generators)


@given(st.sampled_from([("hsn", 3, "hypercube:2", False), ("hsn", 3, "hypercube:2", True),
                        ("ring-cn", 4, "complete:3", True), ("directed-cn", 3, "ring:4", True),
                        ("superflip", 3, "star:3", True), ("complete-cn", 3, "petersen", False)]),
       st.integers(0, 10 ** 9), st.integers(0, 10 ** 9))
def test_routing_by_sorting_walks_and_meets_the_bound(case, a, b):
    g = _cached(case)
    n = g.topology.n
    src, dst = a % n, b % n
    path = g.route(src, dst)
    check_walk(g, path, src, dst)
    assert len(path) - 1 <= _bound(case)


_CACHE = {}


def _cached(case):
    if case not in _CACHE:
        g = ip.super_ip(*case)
        _CACHE[case] = (g, g.diameter_formula())
    return _CACHE[case][0]


def _bound(case):
    return _CACHE[case][1]


def test_routing_worst_case_is_the_diameter():
    # Proof of Theorem 4.1: A'A'..A' -> B'B'..B' with d(A',B') = D_G needs l D_G + t hops.
    g = ip.super_ip("hsn", 3, "hypercube:2")
    a = g.labels[0][:4]
    b = a[[1, 0, 3, 2]]                       # antipode in Q_2
    dst = g.index[np.tile(b, 3).astype(np.uint8).tobytes()]
    path = g.route(0, dst)
    check_walk(g, path, 0, dst)
    assert len(path) - 1 == g.diameter_formula() == 8


def test_cli_ip_examples():
    out = json.loads(run("topo", "ip", "--seed", "123321", "--gens", "(1,2);(1,3);456123", "--json").stdout)
    assert out["nodes"] == 36 and out["degree"] == 3
    out = json.loads(run("topo", "hsn", "--levels", 3, "--nucleus", "hypercube:2", "--json").stdout)
    assert out["nodes"] == 64 and out["formula_holds"] and out["diameter"] == 8
    assert out["inter_cluster_diameter"] == 2 and out["ii_cost"] == out["inter_cluster_degree"] * 2
    out = json.loads(run("route", "superip", "--family", "ring-cn", "--levels", 3, "--nucleus", "complete:4",
                         "--symmetric", "--src", 5, "--dst", 150, "--json").stdout)
    g = ip.super_ip("ring-cn", 3, "complete:4", True)
    check_walk(g, list(zip(out["path"], [""] + out["generators"])), 5, 150)
    assert out["hops"] <= out["bound"]


@pytest.mark.parametrize("args,msg", [
    (("topo", "ip", "--seed", "1234", "--gens", "(1,2);21"), "not a permutation"),
    (("topo", "ip", "--seed", "1234", "--gens", "(1,9)"), "positions must be in 1..4"),
    (("topo", "hsn", "--levels", 1), "at least 2 levels"),
    (("topo", "superflip", "--levels", 3, "--nucleus", "hypercube:x"), "expected NAME:SIZE"),
    (("topo", "hsn", "--levels", 6, "--nucleus", "star:5"), "would have"),
    (("route", "superip", "--levels", 2, "--src", 0, "--dst", 99), "node numbers"),
])
def test_cli_ip_errors(args, msg):
    p = run(*args, check=False)
    assert p.returncode == 2 and msg in p.stderr and len(p.stderr.strip().splitlines()) == 1
