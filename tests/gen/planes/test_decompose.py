"""Plane decomposition: every plane a permutation, together the edge multiset."""

from math import gcd

import numpy as np
import pytest
from hypothesis import given, strategies as st

from oracles import is_perm, planes_match_edges
from permnet.gen.errors import PermnetError
from permnet.gen.planes import decompose as planes
from permnet.gen.graph.coloring import edge_colour_regular_bipartite


def eq3(M, S, n, y):
    """Melhem eq. (3), typed in from the paper."""
    return (S * n + (y - n // S) % S) % M


def test_where_eq3_holds():
    # Mechanical check of the characterisation in permnet.gen.planes.decompose.
    for S in range(2, 13):
        for M in range(S + 1, 700):
            holds = all(is_perm([eq3(M, S, n, y) for n in range(M)]) for y in range(S))
            assert holds == (M % (S * S) == 0 and gcd(M // (S * S), S) == 1), (M, S)
            assert holds == planes.formula3_valid(M, S)


def test_eq3_fails_for_de_bruijn_sizes():
    # LDI(8,2) = de Bruijn with 8 nodes: eq. (3) sends nodes 0 and 4 to node 0.
    assert eq3(8, 2, 0, 0) == eq3(8, 2, 4, 0) == 0
    with pytest.raises(PermnetError, match="eq. \\(3\\)"):
        planes.ldi_planes(4096, 8, "formula3")


def test_sigma_sets_of_ldi_9_3():
    # Melhem Section 3, the three sets sigma_0..sigma_2 as printed.
    sigma = [
        [(0, 0), (1, 3), (2, 6), (3, 2), (4, 5), (5, 8), (6, 1), (7, 4), (8, 7)],
        [(0, 1), (1, 4), (2, 7), (3, 0), (4, 3), (5, 6), (6, 2), (7, 5), (8, 8)],
        [(0, 2), (1, 5), (2, 8), (3, 1), (4, 4), (5, 7), (6, 0), (7, 3), (8, 6)],
    ]
    for method in ("formula3", "residue"):
        p = planes.ldi_planes(9, 3, method).planes
        assert [list(enumerate(row.tolist())) for row in p] == sigma


def test_eq2_as_printed_is_not_a_permutation():
    # Eq. (2) prints "n mod S"; that reading maps nodes 0 and 3 of LDI(9,3) both to 0.
    M, S, y = 9, 3, 0
    dest = [(S * n + (y - n % S) % S) % M for n in range(M)]
    assert not is_perm(dest)


@st.composite
def params(draw):
    S = draw(st.integers(2, 16))
    return draw(st.integers(S + 1, 2000)), S


@given(params())
def test_auto_planes_are_exact(p):
    M, S = p
    res = planes.ldi_planes(M, S)
    assert res.method == ("residue" if M % S == 0 else "gcd")
    assert planes_match_edges(res.planes, M, S)


@given(params())
def test_colouring_planes_are_exact(p):
    M, S = p
    assert planes_match_edges(planes.ldi_planes(M, S, "colouring").planes, M, S)


@given(st.integers(2, 16).flatmap(lambda S: st.tuples(st.just(S), st.integers(2, 2000 // S))))
def test_residue_form_for_every_multiple_of_s(p):
    S, m = p
    M = S * m
    if M <= S:
        return
    assert planes_match_edges(planes.ldi_planes(M, S, "residue").planes, M, S)


@given(st.integers(1, 200), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_colouring_random_regular_multigraphs(n, d, seed):
    # Union of d random permutations: a d-regular bipartite multigraph.
    rng = np.random.default_rng(seed)
    left = np.tile(np.arange(n), d)
    right = np.concatenate([rng.permutation(n) for _ in range(d)])
    colour = edge_colour_regular_bipartite(left, right, n)
    assert sorted(set(colour.tolist())) == list(range(d))
    for c in range(d):
        sel = colour == c
        assert is_perm(left[sel].tolist()) and is_perm(right[sel].tolist())


def test_colouring_rejects_irregular():
    with pytest.raises(PermnetError, match="regular"):
        edge_colour_regular_bipartite([0, 0, 1], [0, 1, 1], 2)


def test_check_planes_rejects_bad_planes():
    from permnet.gen.topologies import ldi
    p = planes.ldi_planes(9, 3).planes.copy()
    planes.check_planes(p, ldi.successors(9, 3))
    p[0, 0], p[0, 1] = p[0, 1], p[0, 0]
    with pytest.raises(PermnetError):
        planes.check_planes(p, ldi.successors(9, 3))
    p = planes.ldi_planes(9, 3).planes.copy()
    p[1, 0] = p[1, 1]
    with pytest.raises(PermnetError, match="not a permutation"):
        planes.check_planes(p, ldi.successors(9, 3))


@given(params())
def test_gcd_form_planes_are_exact(p):
    M, S = p
    assert planes_match_edges(planes.ldi_planes(M, S, "gcd").planes, M, S)
