"""Topology families (issue 5, first part): sizes, degrees and diameters
against closed forms, metrics against networkx."""

import json

import networkx as nx
import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.topologies import families as f
from permnet.gen.topologies import ldi
from cli_runner import run

CASES = [
    # (topology, nodes, degree, diameter from the literature)
    (lambda: f.de_bruijn(2, 5), 32, 2, 5),
    (lambda: f.de_bruijn(3, 3), 27, 3, 3),
    (lambda: f.kautz(2, 3), 12, 2, 3),
    (lambda: f.kautz(3, 3), 36, 3, 3),
    (lambda: f.imase_itoh(2, 12), 12, 2, 3),          # II(2,12) is Kautz K(2,3)
    (lambda: f.shufflenet(2, 3), 24, 2, 5),           # 2k - 1
    (lambda: f.shufflenet(4, 4), 1024, 4, 7),         # Melhem: S=4, M=1024 gives 7 (LDI gives 5)
    (lambda: f.torus(5, 2), 25, 4, 4),                # n floor(k/2)
    (lambda: f.mesh(4, 3), 64, 6, 9),                 # n (k-1)
    (lambda: f.hypercube(6), 64, 6, 6),
    (lambda: f.star_graph(5), 120, 4, 6),             # floor(3(k-1)/2)
    (lambda: f.cube_connected_cycles(5), 160, 3, 10),  # 2n + floor(n/2) - 2
    (lambda: f.petersen(), 10, 3, 2),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_family_closed_forms_and_networkx(case):
    make, n, d, diam = CASES[case]
    t = make()
    m = t.metrics()
    assert (m.nodes, m.degree, m.diameter) == (n, d, diam)
    G = t.networkx()
    if t.directed:
        dist = dict(nx.all_pairs_shortest_path_length(nx.DiGraph(G)))
    else:
        dist = dict(nx.all_pairs_shortest_path_length(nx.Graph(G)))
    total = sum(v for row in dist.values() for v in row.values())
    assert m.avg_hops == pytest.approx(total / (n * (n - 1)))
    assert m.moore_diameter_bound <= diam


def test_de_bruijn_is_ldi():
    # Melhem Section 2: for M = S^h, LDI(M, S) is the de Bruijn graph.
    t = f.de_bruijn(3, 4)
    succ = ldi.successors(81, 3)
    assert sorted(zip(t.tails.tolist(), t.heads.tolist())) == sorted((v, int(w)) for v in range(81) for w in succ[v])


@pytest.mark.parametrize("bad", [lambda: f.kautz(1, 3), lambda: f.torus(2, 3), lambda: f.star_graph(12),
                                 lambda: f.imase_itoh(3, 3), lambda: f.cube_connected_cycles(2)])
def test_bad_parameters(bad):
    with pytest.raises(PermnetError):
        bad()


def test_cli_examples(tmp_path):
    out = json.loads(run("topo", "kautz", "--degree", 2, "--diameter", 3, "--json").stdout)
    assert (out["nodes"], out["degree"], out["diameter"]) == (12, 2, 3)
    out = json.loads(run("topo", "shufflenet", "--degree", 4, "--columns", 4, "--json").stdout)
    assert (out["nodes"], out["diameter"]) == (1024, 7) and "avg_hops" in out
    run("topo", "hypercube", "--dims", 4, "-o", tmp_path / "q.graphml")
    assert nx.diameter(nx.read_graphml(tmp_path / "q.graphml")) == 4
    run("topo", "torus", "-k", 4, "-n", 2, "-o", tmp_path / "t.txt")
    assert len((tmp_path / "t.txt").read_text().splitlines()) == 32
    run("topo", "petersen", "-o", tmp_path / "p.json")
    assert len(json.loads((tmp_path / "p.json").read_text())["edges"]) == 15
    p = run("topo", "star", "-k", 12, check=False)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1


# Doty, Table 1: degree-3 chordal rings with their printed chord lengths.
DOTY_TABLE1 = [(6, 100, [50, 11, 89, 21, 79]), (7, 180, [153, 16, 116, 27, 64, 164]),
               (8, 280, [140, 101, 73, 17, 179, 207, 263]),
               (9, 462, [231, 37, 16, 139, 247, 425, 79, 446, 383, 215, 323]),
               (10, 708, [632, 685, 23, 208, 601, 107, 483, 500, 76, 225, 433, 275])]


@pytest.mark.parametrize("k,n,chords", DOTY_TABLE1)
def test_doty_table1_rings_have_the_printed_diameter(k, n, chords):
    m = f.chordal_ring(n, chords).metrics()
    assert (m.nodes, m.degree, m.min_degree, m.diameter) == (n, 3, 3, k)


def test_chordal_ring_matches_networkx_and_higher_degree():
    t = f.chordal_ring(24, [12, 7, 17])        # order 3: class 0 opposite, classes 1 and 2 paired
    G = nx.Graph(t.networkx())
    assert nx.diameter(G) == t.metrics().diameter and all(d == 3 for _, d in G.degree())
    t4 = f.chordal_ring(36, [[13, 11], [23, 7], [29, 25]])   # order 3, degree 4: every class to both others
    m = t4.metrics()
    assert m.degree == m.min_degree == 4 and m.connected


@pytest.mark.parametrize("n,chords,msg", [
    (100, [50, 11, 88, 21, 79], "inconsistent pairing"),
    (99, [50, 11, 89], "must be even"),
    (100, [1, 99, 50, 50, 50], "duplicates a ring link"),
    (30, [15, 4, 11, 7], "must divide"),
])
def test_chordal_ring_rejects_invalid_pairings(n, chords, msg):
    with pytest.raises(PermnetError, match=msg):
        f.chordal_ring(n, chords)


def test_cyclic_product_of_petersen_graphs():
    # Doty: degree d_G + 2 = 5, n_G^m nodes, diameter <= m k_G + m - 1.
    for m in (2, 3):
        p = f.cyclic_product(f.petersen(), m).metrics()
        assert p.nodes == 10 ** m and p.diameter <= 2 * m + m - 1
        assert p.degree == (5 if m > 2 else 4)


def test_cli_chordal_and_product():
    out = json.loads(run("topo", "chordal", "--nodes", 100, "--chords", "50,11,89,21,79", "--json").stdout)
    assert (out["nodes"], out["degree"], out["diameter"]) == (100, 3, 6)
    p = run("topo", "chordal", "--nodes", 100, "--chords", "50,11,88,21,79", check=False)
    assert p.returncode == 2 and "inconsistent pairing" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    out = json.loads(run("topo", "product", "--graph", "petersen", "--copies", 3, "--json").stdout)
    assert out["nodes"] == 1000 and out["degree"] == 5


@pytest.mark.parametrize("args,family", [(("topo", "torus", "-k", 5, "-n", 2), "torus"),
                                         (("topo", "kautz", "-d", 2, "-D", 3), "kautz"),
                                         (("topo", "hsn", "--levels", 3, "--nucleus", "hypercube:2"), "hsn"),
                                         (("topo", "chordal", "--nodes", 100, "--chords", "50,11,89,21,79"),
                                          "chordal")])
def test_family_planes_carry_exactly_the_links(tmp_path, args, family):
    from permnet import ocsconfig
    from permnet.gen.topologies import ipgraph

    cfg = tmp_path / "cfg.pairs"
    run(*args, "--planes", cfg)
    planes = ocsconfig.read(cfg).planes
    n = planes.shape[1]
    for row in planes:
        assert sorted(row.tolist()) == list(range(n))          # every plane is a permutation
    got = sorted((i, int(j)) for row in planes for i, j in enumerate(row))
    if family == "hsn":
        # one plane per generator: plane j sends v to the label v[g_j]
        g = ipgraph.super_ip("hsn", 3, "hypercube:2")
        want = sorted((v, g.index[g.labels[v][gen].tobytes()]) for gen in g.generators for v in range(n))
    else:
        t = {"torus": lambda: f.torus(5, 2), "kautz": lambda: f.kautz(2, 3),
             "chordal": lambda: f.chordal_ring(100, [50, 11, 89, 21, 79])}[family]()
        want = sorted(zip(t.tails.tolist(), t.heads.tolist()))
    assert got == want
    assert run("verify", "--config", cfg, "--intended", cfg).returncode == 0


def test_planes_need_a_regular_topology(tmp_path):
    p = run("topo", "mesh", "-k", 3, "-n", 2, "--planes", tmp_path / "m.json", check=False)
    assert p.returncode == 2 and "regular" in p.stderr and not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("family,nodes,degree,params", [
    ("debruijn", 27, 3, {}), ("kautz", 36, 3, {}), ("torus", 64, 4, {"radix": 8, "dims": 2}),
    ("torus", 27, 6, {"radix": 3, "dims": 3}), ("hypercube", 16, 4, {}), ("imase-itoh", 20, 3, {})])
def test_by_size_builds_the_member_with_that_many_nodes_and_that_degree(family, nodes, degree, params):
    from permnet.gen.topologies.families import by_size

    topo, name, solved = by_size(family, nodes, degree)
    assert solved == params and topo.n == nodes
    G = nx.MultiDiGraph()                  # undirected families hold both directions of every edge
    G.add_nodes_from(range(nodes))
    G.add_edges_from(zip(topo.tails.tolist(), topo.heads.tolist()))
    assert {d for _, d in G.out_degree()} == {degree} == {d for _, d in G.in_degree()}


@pytest.mark.parametrize("family,nodes,degree", [("debruijn", 28, 3), ("kautz", 35, 3), ("torus", 63, 4),
                                                 ("torus", 16, 3), ("hypercube", 15, 4), ("star", 24, 3)])
def test_by_size_refuses_sizes_the_family_does_not_have(family, nodes, degree):
    from permnet.gen.errors import PermnetError
    from permnet.gen.topologies.families import by_size

    with pytest.raises(PermnetError):
        by_size(family, nodes, degree)
