"""Routing tables over planes (issue 14) against ldi.route and BFS walked independently."""

import networkx as nx
import numpy as np
import pytest

from netsim_helpers import ldi_routes
from permnet.gen.routing import tables


@pytest.mark.parametrize("M,S", [(9, 3), (18, 3), (16, 4), (64, 8), (10, 3), (100, 7), (8, 2), (50, 4)])
def test_ldi_family_table_is_ldi_route(M, S):
    t = tables.network("ldi", M, S).table
    for (s, d), path in ldi_routes(M, S).items():
        assert t.nodes(s, d) == path
        assert t.length[s, d] == len(path) - 1


def _nx_graph(planes):
    g = nx.MultiDiGraph()
    g.add_nodes_from(range(planes.shape[1]))
    g.add_edges_from((u, int(planes[y][u])) for y in range(planes.shape[0]) for u in range(planes.shape[1]))
    return g


@pytest.mark.parametrize("topo,M,S", [("ldi", 64, 4), ("debruijn", 27, 3), ("kautz", 36, 3), ("torus", 25, 4),
                                      ("hypercube", 32, 5)])
def test_shortest_tables_are_shortest_and_walk_to_the_destination(topo, M, S):
    net = tables.network(topo, M, S, "shortest")
    dist = dict(nx.all_pairs_shortest_path_length(_nx_graph(net.planes)))
    for s in range(M):
        for d in range(M):
            path = net.table.nodes(s, d)
            assert path[0] == s and path[-1] == d
            assert len(path) - 1 == dist[s][d]


def test_torus_dimension_order():
    k, dims = 5, 2
    net = tables.network("torus", k ** dims, 2 * dims)
    for s in range(k ** dims):
        for d in range(k ** dims):
            path = net.table.nodes(s, d)
            digits = [[(v // k ** i) % k for i in range(dims)] for v in path]
            changed = [next(i for i in range(dims) if a[i] != b[i]) for a, b in zip(digits, digits[1:])]
            assert changed == sorted(changed)                   # dimension 0 first, then 1
            want = sum(min((d // k ** i - s // k ** i) % k, (s // k ** i - d // k ** i) % k) for i in range(dims))
            assert len(path) - 1 == want                        # minimal in every dimension


def test_bad_sizes_are_one_line_errors():
    from permnet.gen.errors import PermnetError
    for args in [("torus", 64, 5), ("debruijn", 63, 4), ("kautz", 64, 4), ("hypercube", 64, 5), ("ring", 8, 2)]:
        with pytest.raises(PermnetError):
            tables.network(*args)
