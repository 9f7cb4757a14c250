"""Online routing on meshes (Theorems 1, 2) and butterfly congestion (Figure 5)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st

from permnet.gen.errors import PermnetError
from permnet.sim.butterfly import bit_reversal, route_butterfly
from permnet.sim.mesh import route_mesh


@pytest.mark.parametrize("n", range(1, 7))
def test_theorem1_every_permutation(n):
    for p in itertools.permutations(range(n)):
        r = route_mesh(n, 1, p)
        assert r.steps <= 2 * (n - 1) and r.max_buffer <= 3


@given(st.integers(2, 40), st.integers(0, 2 ** 32 - 1))
def test_theorem1_random(n, seed):
    r = route_mesh(n, 1, np.random.default_rng(seed).permutation(n))
    assert r.steps <= 2 * (n - 1) and r.max_buffer <= 3


@given(st.integers(2, 12), st.integers(0, 2 ** 32 - 1))
def test_theorem2_random(n, seed):
    r = route_mesh(n, 2, np.random.default_rng(seed).permutation(n * n))
    assert r.steps <= 4 * (n - 1) and r.max_buffer <= n


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_theorem2_buffer_bound_is_reached_by_transpose(n):
    # Row r of the transpose all goes to column r: the diagonal node collects a whole row.
    t = [(i % n) * n + i // n for i in range(n * n)]
    r = route_mesh(n, 2, t)
    assert r.max_buffer == n and r.steps <= 4 * (n - 1)


def test_identity_takes_no_steps():
    assert route_mesh(5, 2, list(range(25))).steps == 0


def walk_loads(d, perm):
    """Walk each path edge by edge: level l -> l+1 sets bit l to the destination's."""
    load = {}
    for a in range(2 ** d):
        row = a
        load[(0, row)] = load.get((0, row), 0) + 1
        for lv in range(d):
            row = (row & ~(1 << lv)) | (perm[a] & (1 << lv))
            load[(lv + 1, row)] = load.get((lv + 1, row), 0) + 1
        assert row == perm[a]
    return load


@pytest.mark.parametrize("d", range(1, 9))
def test_butterfly_loads_match_walk(d):
    for perm in (bit_reversal(d), np.random.default_rng(d).permutation(2 ** d)):
        r = route_butterfly(d, perm)
        load = walk_loads(d, perm.tolist())
        assert r.max_node_load == max(load.values())
        assert all(r.node_load[lv, row] == c for (lv, row), c in load.items())


def test_figure5_hot_spot():
    r = route_butterfly(4, bit_reversal(4))
    assert r.hot_spot == (2, 0) and r.max_node_load == 4
    for d in range(2, 12):
        assert route_butterfly(d, bit_reversal(d)).max_node_load == 2 ** (d // 2)


def test_bad_sizes():
    with pytest.raises(PermnetError, match="16 nodes"):
        route_mesh(4, 2, list(range(8)))
    with pytest.raises(PermnetError, match="BF"):
        route_butterfly(3, list(range(4)))
