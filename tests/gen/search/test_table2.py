"""Doty's Table 2 chordal-ring entries: the search reaches the small ones, the rings found are rebuilt
by ``permnet topo chordal`` and their diameter checked by an independent BFS; seeded runs repeat."""

import json

import networkx as nx
import pytest

from permnet.gen.search.chordal import DOTY_TABLE2_C, search
from cli_runner import run

# (degree, diameter, nodes) as printed in Doty's Table 2 (C entries), small enough for the test suite
SMALL = [(4, 3, 36), (5, 3, 60), (6, 3, 94)]


def read_edge_list(path):
    G = nx.Graph()
    for line in path.read_text().splitlines():
        a, b = line.split()
        G.add_edge(int(a), int(b))
    return G


@pytest.mark.parametrize("d,k,doty", SMALL)
def test_small_table2_entries_are_reached_and_rebuilt(tmp_path, d, k, doty):
    assert DOTY_TABLE2_C[(d, k)] == doty
    if d == 4:   # once through the CLI, the others through the library
        row = json.loads(run("search", "chordal", "--degree", d, "--diameter", k, "--evals", 250000, "--window", 2,
                             "--quiet", "--json").stdout)["rows"][0]
    else:
        row = search(d, k, window=2, progress=False, evaluations=250000).as_dict()
    assert row["doty_table2"] == doty and row["nodes"] >= doty
    path = tmp_path / "ring.edges"
    run("topo", "chordal", "-M", row["nodes"], "--chords", row["chords"], "-o", path)
    G = read_edge_list(path)
    assert G.number_of_nodes() == row["nodes"]
    assert {deg for _, deg in G.degree()} == {d}
    assert nx.diameter(G) <= k
    assert all(G.has_edge(i, (i + 1) % row["nodes"]) for i in range(row["nodes"]))   # it is a ring


def test_a_seeded_budget_gives_the_same_ring():
    a, b = (search(5, 3, window=2, progress=False, evaluations=60000, seed=3).as_dict() for _ in range(2))
    assert a["stopped_by"] in ("evaluations", "window", "moore bound")
    assert a | {"seconds": 0} == b | {"seconds": 0}
