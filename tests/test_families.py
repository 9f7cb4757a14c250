"""Topology families (issue 5, first part): sizes, degrees and diameters
against closed forms, metrics against networkx."""

import json

import networkx as nx
import pytest

from permnet.errors import PermnetError
from permnet.gen import families as f
from permnet.gen import ldi
from test_cli import run

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
    assert (m["nodes"], m["degree"], m["diameter"]) == (n, d, diam)
    G = t.networkx()
    if t.directed:
        dist = dict(nx.all_pairs_shortest_path_length(nx.DiGraph(G)))
    else:
        dist = dict(nx.all_pairs_shortest_path_length(nx.Graph(G)))
    total = sum(v for row in dist.values() for v in row.values())
    assert m["avg_hops"] == pytest.approx(total / (n * (n - 1)))
    assert m["moore_diameter_bound"] <= diam


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
