"""The traffic generator model (gen/hil/netgen.py): rates, destinations and refusals."""

import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.hil import netgen
from permnet.gen.hil.netgen import GenParams, rate_of, trace


def test_xorshift_is_a_full_period_linear_map_on_a_small_check():
    # linear over GF(2): step(a ^ b) == step(a) ^ step(b), and no nonzero state maps to zero
    a, b = 0x0123456789ABCDEF, 0xFEDCBA9876543210
    assert netgen.step(a ^ b) == netgen.step(a) ^ netgen.step(b)
    assert all(netgen.step(1 << i) != 0 for i in range(64))
    assert all(netgen.seed_state(s, n) != 0 for s in (0, netgen.GOLDEN) for n in range(4))


@pytest.mark.parametrize("load", [0.1, 0.3, 0.7])
def test_uniform_rate_and_destinations(load):
    M, cycles = 9, 4000
    rows = trace(M, GenParams("uniform", rate=rate_of(load), size=3, seed=5), 10, 10 + cycles)
    assert abs(len(rows) / (M * cycles) - load) < 0.02
    assert all(10 <= c < 10 + cycles and s != d and 0 <= d < M and z == 3 for c, s, d, z in rows)
    assert len({(c, s) for c, s, _, _ in rows}) == len(rows)          # one packet per node per cycle
    assert [r[:2] for r in rows] == sorted(r[:2] for r in rows)        # cycle order, nodes in order
    for n in range(M):
        dsts = [d for _, s, d, _ in rows if s == n]
        counts = [dsts.count(d) for d in range(M) if d != n]
        assert min(counts) > 0.6 * len(dsts) / (M - 1)                 # every other node is reached


def test_fixed_patterns():
    M = 16
    bc = trace(M, GenParams("bitcomp", rate=1 << 16, size=2), 0, 3)
    assert len(bc) == 3 * M and all(d == 15 - s for _, s, d, _ in bc)
    tr = trace(M, GenParams("transpose", rate=1 << 16, size=2), 0, 2)
    assert {(s, d) for _, s, d, _ in tr} == {(4 * i + j, 4 * j + i) for i in range(4) for j in range(4) if i != j}
    perm = tuple((3 * n + 1) % M for n in range(M))
    pr = trace(M, GenParams("permutation", rate=1 << 15, size=1, perm=perm), 0, 200)
    assert all(d == perm[s] and d != s for _, s, d, _ in pr) and pr
    hs = trace(M, GenParams("hotspot", rate=1 << 15, size=1, hot=3, hot_frac=1 << 15), 0, 2000)
    share = sum(d == 3 for *_, d, _ in hs) / len(hs)
    assert 0.45 < share < 0.6                                          # half to the hot spot + 1/15 of the rest


def test_seed_changes_the_trace_and_start_stop_bound_it():
    p = GenParams("uniform", rate=rate_of(0.5), size=2, seed=1)
    assert trace(8, p, 0, 50) != trace(8, GenParams("uniform", rate=rate_of(0.5), size=2, seed=2), 0, 50)
    assert trace(8, p, 0, 50) == trace(8, p, 0, 50)
    assert trace(8, p, 7, 7) == []


@pytest.mark.parametrize("M,params", [
    (8, GenParams("transpose")), (12, GenParams("bitcomp")), (8, GenParams("permutation")),
    (8, GenParams("zigzag")), (8, GenParams(rate=70000)), (8, GenParams(hot=8)), (8, GenParams(size=0)),
])
def test_refusals(M, params):
    with pytest.raises(PermnetError):
        trace(M, params, 0, 10)
