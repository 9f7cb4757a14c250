"""Routing: every path is walked independently and compared with BFS."""

import networkx as nx
import pytest
from hypothesis import given, strategies as st

from oracles import bfs, walk
from permnet.gen.errors import PermnetError
from permnet.gen.topologies import ldi


@st.composite
def melhem_case(draw):
    S = draw(st.integers(2, 16))
    G = draw(st.integers(2, S))
    h = draw(st.integers(2, 6))
    M = S ** (h - 1) * G
    if M > 2000:
        h = 2
        M = S * G
    src = draw(st.integers(0, M - 1))
    dst = draw(st.integers(0, M - 1))
    return M, S, h, G, src, dst


@given(melhem_case())
def test_melhem_routes_walk_in_h_hops_and_cover_all_first_links(c):
    M, S, h, G, src, dst = c
    r = ldi.route_melhem(M, S, src, dst, all_paths=True)
    top = dst // S ** (h - 1)
    allowed = [L for L in range(S) if (S * src + L) % G == top]
    assert [links[0] for links in r.links] == allowed
    for nodes, links in zip(r.paths, r.links):
        assert len(links) == h
        assert walk(M, S, src, links) == nodes and nodes[-1] == dst


@given(melhem_case())
def test_two_hop_shortcut_is_shortest(c):
    M, S, h, G, src, dst = c
    M = S * G  # the two-hop case of Section 4
    src, dst = src % M, dst % M
    r = ldi.route_melhem(M, S, src, dst, shortcut=True)
    dist = bfs(ldi.successors(M, S).tolist(), src)[dst]
    assert len(r.links[0]) == dist
    assert walk(M, S, src, r.links[0])[-1] == dst


@st.composite
def any_case(draw):
    S = draw(st.integers(2, 16))
    M = draw(st.integers(S + 1, 2000))
    return M, S, draw(st.integers(0, M - 1)), draw(st.integers(0, M - 1))


@given(any_case())
def test_shortest_routes_match_bfs_for_any_m(c):
    M, S, src, dst = c
    r = ldi.route_shortest(M, S, src, dst, all_paths=True)
    dist = bfs(ldi.successors(M, S).tolist(), src)[dst]
    for nodes, links in zip(r.paths, r.links):
        assert len(links) == dist
        assert walk(M, S, src, links) == nodes and nodes[-1] == dst
    assert len({tuple(p) for p in r.paths}) == len(r.paths)


@given(any_case())
def test_all_shortest_paths_are_found(c):
    M, S, src, dst = c
    if M > 300:
        return
    g = nx.DiGraph((n, int(v)) for n, row in enumerate(ldi.successors(M, S)) for v in row if v != n)
    g.add_nodes_from(range(M))
    if src == dst:
        expected = [[src]]
    else:
        expected = sorted(nx.all_shortest_paths(g, src, dst))
    assert sorted(ldi.route_shortest(M, S, src, dst, all_paths=True).paths) == expected


def test_paper_example_route_7_to_14_in_ldi_18_3():
    # Section 5 / Figure 7: first link 0 or 2, then 1, then 2.  The paper
    # names the middle nodes 10 or 15; walking link 1 from node 5 gives 16
    # (3*5 + 1), so "15" is a typo.
    r = ldi.route(18, 3, 7, 14, method="melhem", all_paths=True)
    assert r.links == [[0, 1, 2], [2, 1, 2]]
    assert r.paths == [walk(18, 3, 7, [0, 1, 2]), walk(18, 3, 7, [2, 1, 2])]
    assert r.paths[1] == [7, 5, 16, 14]


def test_two_hop_rule_as_printed_fails():
    # Section 4 prints "(Sn + L) mod G = d mod S" for the first step; with
    # that rule LDI(12,4) cannot route 0 -> 1, while d div S (Theorem 3) can.
    M, S, G = 12, 4, 3
    src, dst = 0, 1
    printed = [L for L in range(S) if (S * src + L) % G == dst % S]
    assert printed and all(walk(M, S, src, [L, dst % S])[-1] != dst for L in printed)
    assert ldi.route_melhem(M, S, src, dst).paths[0][-1] == dst


def test_auto_method_and_errors():
    assert ldi.route(4096, 8, 1, 2).method == "melhem-shortcut" or ldi.route(4096, 8, 1, 2).method == "melhem"
    assert ldi.route(100, 7, 1, 2).method == "shortest"
    with pytest.raises(PermnetError, match="not of that form"):
        ldi.route_melhem(100, 7, 1, 2)
    with pytest.raises(PermnetError, match="out of range"):
        ldi.route(100, 7, 1, 100)


@given(melhem_case())
def test_route_to_itself_stays_put_by_default(c):
    """The default route from a node to itself is the empty walk, for every h;
    without the shortcut Theorem 3's h-hop cycle is still returned and walks."""
    M, S, h, G, src, _ = c
    r = ldi.route(M, S, src, src)
    assert r.links == [[]] and r.paths == [[src]]
    raw = ldi.route(M, S, src, src, method="melhem", shortcut=False)
    assert all(len(links) == h and walk(M, S, src, links)[-1] == src for links in raw.links)
