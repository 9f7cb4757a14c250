"""Permutation networks: every setting is replayed by a simulator written here."""

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from permnet.gen.errors import PermnetError
from permnet.gen.routing import benes
from permnet.gen.routing import pn
from permnet.switching import settings

from oracles import check, replay


@st.composite
def perms(draw, partial=False):
    n = draw(st.integers(2, 300))
    p = draw(st.permutations(list(range(n))))
    if partial:
        drop = draw(st.sets(st.integers(0, n - 1), max_size=n))
        p = [None if i in drop else v for i, v in enumerate(p)]
    return p


@given(perms(), st.sampled_from(["benes", "waksman"]))
def test_any_size_routes(p, network):
    s = settings(p, 2, network)
    desc = s.description()
    check(desc, p)
    n = len(p)
    assert len(desc["stages"]) == benes.depth(n)
    assert desc["switches"] == benes.switch_count(n, network) >= benes.lower_bound(n)


@given(perms(partial=True), st.sampled_from(["benes", "waksman"]))
def test_partial_permutations_and_idle_default(p, network):
    s = settings(p, 2, network)
    desc = s.description()
    check(desc, p)
    # Idle switches (no used signal through them) are straight: replay with
    # markers for used inputs and look at every crossed switch.
    v = [i if p[i] is not None else None for i in range(len(p))]
    for si, stage in enumerate(desc["stages"]):
        for sw in stage:
            a, b = sw["inputs"]
            if v[a] is None and v[b] is None:
                assert sw["state"] == 0
            if sw["state"] == 1:
                v[a], v[b] = v[b], v[a]
        if si < len(desc["stages"]) - 1:
            nxt = [None] * len(v)
            for pos, x in enumerate(v):
                nxt[desc["links"][si][pos]] = x
            v = nxt


@pytest.mark.parametrize("network", ["benes", "waksman"])
@pytest.mark.parametrize("n", range(2, 8))
def test_every_permutation_small(n, network):
    for p in itertools.permutations(range(n)):
        check(settings(list(p), 2, network).description(), p)


@pytest.mark.parametrize("k", range(1, 11))
def test_power_of_two_shape(k):
    N = 2 ** k
    r = benes.route(np.random.default_rng(k).permutation(N))
    assert r.stages == 2 * k - 1
    assert all(len(r.stage_switches(s)) == N // 2 for s in range(r.stages))
    assert r.switches == (2 * k - 1) * N // 2
    assert benes.switch_count(N, "waksman") == N * k - N + 1


def test_lower_bound():
    assert [benes.lower_bound(n) for n in (2, 3, 4, 8)] == [1, 3, 5, 16]
    assert benes.lower_bound(10 ** 6) == math.ceil(math.lgamma(10 ** 6 + 1) / math.log(2))


def test_paper_example_on_2_3_network():
    p = [4, 1, 0, 3, 2, 6, 5, 7]
    check(settings(p, 2).description(), p)
    r = pn.route(p, 2)
    desc = r.description()
    assert len(desc["stages"]) == 5 and all(len(st_) == 4 for st_ in desc["stages"])
    check(desc, p)


@given(st.integers(2, 6).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, max(1, int(math.log(700, n)))))),
       st.randoms(use_true_random=False))
def test_pn_random_radix_and_depth(nd, rnd):
    n, d = nd
    N = n ** d
    p = list(range(N))
    rnd.shuffle(p)
    desc = pn.route(p, n).description()
    assert len(desc["stages"]) == 2 * d - 1
    assert all(len(stage) == N // n for stage in desc["stages"])
    for stage in desc["stages"]:
        for sw in stage:
            assert sorted(sw["state"]) == list(range(n))
    check(desc, p)


def test_pn_partial():
    p = [None, 5, 0, None, 8, 1, 2, None, 3]
    check(settings(p, 3).description(), p)


@pytest.mark.parametrize("perm,msg", [
    ([0, 1, 1], "entry 2: output 1 repeats entry 1"),
    ([0, 3, 1], "entry 1: 3 out of range"),
    ([0, "a"], "entry 1"),
    ([], "empty"),
    ([0], "at least 2"),
])
def test_bad_permutations(perm, msg):
    with pytest.raises(PermnetError, match=msg):
        settings(perm)


def test_size_radix_mismatch():
    with pytest.raises(PermnetError, match="not a power of radix 3"):
        settings(list(range(10)), 3)


def test_large_random_is_verified():
    # 2^16 and a non-power of two; settings() replays before returning.
    for N in (2 ** 16, 100_003):
        p = np.random.default_rng(N).permutation(N)
        s = settings(p)
        assert s.switches == benes.switch_count(N)
