"""Permutation networks: every setting is replayed by a simulator written here."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from permnet.gen.errors import PermnetError
from permnet.gen.routing import benes
from permnet.gen.routing import pn
from permnet.switching import settings

from oracles import check


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


# slow: in make test, test_unused_inputs_as_the_readme_states routes the same partial permutations,
# replays them and asks for every idle switch straight
@pytest.mark.slow
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
@pytest.mark.parametrize("n", [*range(2, 7), pytest.param(7, marks=pytest.mark.slow)])   # 7! = 5040: slow
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


# 4099 with every input used under -m slow: the partial 4099 cases route the completed
# permutation (docs/theory/protsenko.md) through the same three levels of big blocks
@pytest.mark.parametrize("partial,n,network", [
    pytest.param(partial, n, network, marks=[pytest.mark.slow] if n == 4099 and not partial else [])
    for partial in (False, True)
    for n in (benes.BIG_BLOCK, benes.BIG_BLOCK + 1, 2 * benes.BIG_BLOCK + 2, 4099)
    for network in ("benes", "waksman")])
def test_big_block_walk_against_the_oracle(n, network, partial):
    # blocks of BIG_BLOCK wires and more are coloured through the successor
    # array (odd and even sizes, Waksman's fixed switch, unused inputs):
    # the explicit description replayed by the test's own simulator
    rng = np.random.default_rng(n + partial)
    p = rng.permutation(n).tolist()
    if partial:
        p = [None if rng.random() < 0.3 else v for v in p]
    desc = settings(p, 2, network).description()
    check(desc, p)
    assert desc["switches"] == benes.switch_count(n, network)


@pytest.mark.parametrize("n,network,partial", [(benes.HUGE_BLOCK, "benes", False),
                                               (benes.HUGE_BLOCK + 3, "waksman", True)])
def test_huge_block_walk_both_ways(n, network, partial):
    # from HUGE_BLOCK wires the top block's cycles are walked both ways at
    # once; the settings are replayed by the stage-by-stage simulator
    from permnet.sim.network import replay_2x2

    rng = np.random.default_rng(n)
    p = rng.permutation(n)
    if partial:
        p[rng.random(n) < 0.3] = -1
    r = settings(p, 2, network).route                  # (checked by the compiled replay)
    for s in (0, r.stages - 1):
        assert r.stage_bits(s).any()                   # the top block's columns are set
    out = replay_2x2(r.state, benes.links(r))
    got = np.empty(n, np.int64)
    got[out] = np.arange(n)
    used = p >= 0
    assert (got[used] == p[used]).all()


def test_large_random_is_verified():
    # 2^16 and a non-power of two; settings() replays before returning.
    for N in (2 ** 16, 100_003):
        p = np.random.default_rng(N).permutation(N)
        s = settings(p)
        assert s.switches == benes.switch_count(N)


def _straighten_idle(desc, used):
    """The rule of docs/theory/protsenko.md applied by hand to the settings of the completed
    permutation: stage by stage, a switch whose two inputs both carry
    unused inputs is set straight (0); the values then move as that page says."""
    v = list(range(desc["size"]))
    stages = [[dict(sw) for sw in stage] for stage in desc["stages"]]
    for si, stage in enumerate(stages):
        for sw in stage:
            a, b = sw["inputs"]
            if not used[v[a]] and not used[v[b]]:
                sw["state"] = 0
            if sw["state"] == 1:
                v[a], v[b] = v[b], v[a]
        if si < len(stages) - 1:
            nxt = [None] * len(v)
            for pos, x in enumerate(v):
                nxt[desc["links"][si][pos]] = x
            v = nxt
    return stages, v


@given(perms(partial=True), st.sampled_from(["benes", "waksman"]))
def test_unused_inputs_as_the_readme_states(p, network):
    """docs/theory/protsenko.md: the completed permutation (unused inputs to the unused outputs
    in increasing order) is routed, then idle switches are set straight; so
    the unused inputs end on the unused outputs, in an order the network chooses."""
    n = len(p)
    used = [v is not None for v in p]
    free_out = sorted(set(range(n)) - {v for v in p if v is not None})
    full = list(p)
    for i, o in zip([i for i in range(n) if not used[i]], free_out):
        full[i] = o
    expect, v = _straighten_idle(settings(full, 2, network).description(), used)
    got = settings(p, 2, network).description()
    assert got["stages"] == expect
    check(got, p)
    reached = {i: pos for pos, i in enumerate(v)}
    assert sorted(reached[i] for i in range(n) if not used[i]) == free_out


def test_unused_inputs_readme_example():
    from oracles import replay
    v = replay(settings([None, 5, 3, 2, None, 6, 4]).description())
    assert [v.index(i) for i in (0, 4)] == [1, 0]      # input 4 reaches output 0, input 0 output 1


@pytest.mark.parametrize("n,network,partial", [(1 << 16, "benes", False), (40000, "waksman", False),
                                               (20001, "benes", True)])
def test_large_networks_all_cores_packed_files(tmp_path, n, network, partial):
    """Above the explicit-description limit: the threaded router, the packed
    settings, the compiled check and the streamed files agree with the
    stage-by-stage simulator of permnet.sim.network."""
    from permnet.sim.network import replay_2x2
    from permnet.switching import DESCRIBE_LIMIT, write_hex

    rng = np.random.default_rng(n)
    p = rng.permutation(n)
    if partial:
        p[rng.random(n) < 0.3] = -1
    s = settings(p, 2, network)
    r = s.route
    assert n > DESCRIBE_LIMIT
    out = replay_2x2(r.state, benes.links(r))          # independent of the packed replay
    got = np.empty(n, np.int64)
    got[out] = np.arange(n)
    used = p >= 0
    assert (got[used] == p[used]).all()
    assert sorted(got[~used].tolist()) == sorted(set(range(n)) - set(p[used].tolist()))
    assert (benes.replay(r, threads=True) == out).all() and (benes.replay(r, threads=False) == out).all()
    seq = benes.route(p, network, threads=False)
    assert (seq.bits == r.bits).all()
    write_hex(s, tmp_path)
    lines = (tmp_path / "config.hex").read_text().split()
    st = r.state
    for k in (0, r.stages // 2, r.stages - 1):
        row = st[k][st[k] != 255]
        assert int(lines[k], 16) == int("".join(map(str, row[::-1].tolist())), 2)
        assert (tmp_path / f"stage_{k:02d}.hex").read_text().split() == [str(int(b)) for b in row]
    with pytest.raises(PermnetError, match="up to 16384 wires"):
        s.description()


def test_configure_writes_while_checking_and_keeps_nothing_when_the_check_fails(tmp_path, monkeypatch):
    """``configure`` (``permnet benes -o``) writes the files while the replay
    check runs; the files are those of :func:`settings` + ``write_hex``, and a
    replay that disagrees leaves neither the folder nor a temporary file."""
    import permnet.switching as sw

    n = 1 << 15
    p = np.random.default_rng(7).permutation(n)
    s, desc = sw.configure(p, outdir=tmp_path / "ok")
    assert desc is None and (s.route.bits == settings(p).route.bits).all()
    sw.write_hex(settings(p), tmp_path / "ref")
    for f in sorted((tmp_path / "ref").iterdir()):
        assert (tmp_path / "ok" / f.name).read_bytes() == f.read_bytes()
    assert (tmp_path / "ok" / "network.json").exists()

    real = sw._replay
    monkeypatch.setattr(sw, "_replay", lambda s, threads=None: real(s, threads)[::-1].copy())  # a wrong network
    with pytest.raises(RuntimeError, match="simulated network sends input"):
        sw.configure(p, outdir=tmp_path / "bad")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["ok", "ref"]
