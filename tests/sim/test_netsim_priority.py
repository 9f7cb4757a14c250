"""The deflection model's priority (issue 41, item 3): ``age`` (oldest first, the RTL's), ``random``
(a fresh seeded key a flit and cycle) and ``golden`` (CHIPPER's golden packet), model only.

The compiled loop against a plain network of the spec's ``route_step`` calls with the spec's keys,
cycle for cycle; every packet delivered once; reproducible for a seed; random's hop count beyond
age's under a hot spot; the CLI's option and its one-line refusal."""

import json

import numpy as np
import pytest

from netsim_helpers import back_pressure, deflect_equals_cpython, random_trace, run_main, spec_network
from permnet.gen.errors import PermnetError
from permnet.gen.routing import tables
from permnet.gen.routing.deflection import (GOLDEN_IDS, distances, golden_epoch, golden_hop_bound, golden_id,
                                            hop_bound, random_key)
from permnet.sim import netsim


def _lowbias32(x):
    """The hash the spec names (C. Wellons, hash-prospector), in numpy's uint32 arithmetic."""
    x = np.uint32(x)
    with np.errstate(over="ignore"):
        x ^= x >> np.uint32(16)
        x *= np.uint32(0x7FEB352D)
        x ^= x >> np.uint32(15)
        x *= np.uint32(0x846CA68B)
        x ^= x >> np.uint32(16)
    return int(x)


def test_random_key_is_three_rounds_of_lowbias32():
    for seed, t, serial in ((0, 0, 0), (1, 2, 3), (2**40 + 7, 12345, 99), (5, 2**33 + 1, 2**32 + 4)):
        want = _lowbias32(_lowbias32(_lowbias32(seed % 2**32) ^ (t % 2**32)) ^ (serial % 2**32))
        assert random_key(seed, t, serial) == want
    keys = {random_key(3, t, s) for t in range(40) for s in range(40)}
    assert len(keys) > 1590                           # fresh keys: a cycle and a packet each change it


def test_golden_id_rotates_over_every_packet_id():
    M, L = 8, 3
    ids = [golden_id(t, M, L) for t in range(M * GOLDEN_IDS * L)]
    assert ids[0] == ids[L - 1] == (0, 0) and ids[L] == (1, 0) and ids[M * L] == (0, 1)
    assert set(ids) == {(s, q) for s in range(M) for q in range(GOLDEN_IDS)}
    assert golden_id(M * GOLDEN_IDS * L, M, L) == (0, 0)
    assert golden_epoch(3, 2) == 8 and golden_hop_bound(16, 2) == (16 * GOLDEN_IDS + 1) * 3


@pytest.mark.parametrize("priority,allocator,K,E,B", [("random", "permutation", 1, 2, 0), ("random", "ideal", 2, 1, 0),
                                                      ("golden", "permutation", 1, 2, 0),
                                                      ("golden", "ideal", 2, 2, 2)])
def test_delivery_log_equals_a_network_of_route_step(priority, allocator, K, E, B):
    """Random traffic with random back-pressure on LDI(16,4): the model's log is the spec network's,
    packet for packet and cycle for cycle; every packet delivered exactly once, at its destination."""
    M, S, cycles, seed = 16, 4, 400, 7
    net = tables.network("ldi", M, S)
    rng = np.random.default_rng(K * 10 + E + B)
    rows = sorted(random_trace(rng, M, int(0.6 * M * 150), 150), key=lambda r: r[0])
    ready = back_pressure(rng, cycles, M, E, 0.6, 260)
    ref = spec_network(net.planes, rows, E=E, K=K, allocator=allocator, ready=ready, cycles=cycles,
                       priority=priority, seed=seed, side_buffer=B)
    got = netsim.deflection_trace(net.planes, rows, cycles=cycles, E=E, link_stages=K - 1, allocator=allocator,
                                  ej_ready=ready, side_buffer=B, priority=priority, seed=seed)
    assert {d.serial: tuple(d)[1:] for d in got} == ref
    assert sorted(d.serial for d in got) == list(range(len(rows)))
    assert all(d.node == d.dst == rows[d.serial][2] and d.src == rows[d.serial][1] for d in got)
    # and the priority decided something: the log is not age's
    age = netsim.deflection_trace(net.planes, rows, cycles=cycles, E=E, link_stages=K - 1, allocator=allocator,
                                  ej_ready=ready, side_buffer=B)
    assert age != got


def test_compiled_loop_equals_cpython():
    """Hot-spot traffic with back-pressure: the numba loop's outputs equal CPython's (``py_func``), for
    random and golden priority, in the signature netsim compiles."""
    net = tables.network("ldi", 16, 4)
    ready = (np.random.default_rng(3).random((200, 16, 2)) < 0.7).astype(np.uint8)
    for priority in (1, 2):
        deflect_equals_cpython(net.planes, ready, ideal=priority == 2, seed=5, priority=priority)


def _cfg(**kw):
    return netsim.Config(switching="deflection", packet_size=1, **kw)


def test_random_priority_is_reproducible_and_not_age():
    """Same seed, same run; another seed, another run; the same seed under age priority: the same
    packets created (the keys draw nothing from the traffic's stream) but other routes."""
    net = tables.network("ldi", 16, 4)
    traffic = netsim.pattern("uniform", 16)
    kw = dict(warmup=50, cycles=300, log=10**5, seed=4)

    def run(**over):
        r = netsim.simulate(net, traffic, 0.6, _cfg(**(kw | over)))
        return r, r.log[np.argsort(r.log[:, 0])]

    a, la = run(priority="random")
    b, lb = run(priority="random")
    assert np.array_equal(la, lb) and a.as_dict() == b.as_dict()
    c, lc = run(priority="random", seed=5)
    assert not np.array_equal(la[:, :4], lc[:, :4])
    g, lg = run(priority="age")
    both = np.intersect1d(la[:, 0], lg[:, 0])
    ra, rg = la[np.isin(la[:, 0], both)], lg[np.isin(lg[:, 0], both)]
    assert len(both) > 2500 and np.array_equal(ra[:, :4], rg[:, :4])      # serial, src, dst, created
    assert (ra[:, 4:6] != rg[:, 4:6]).any(axis=1).sum() > 100              # delivered when, after how many hops
    assert a.stable and g.stable and a.delivered == a.measured
    assert a.delivered_total == a.created_total - a.in_flight and sorted(set(la[:, 0])) == list(la[:, 0])


def test_random_takes_more_hops_than_age_under_a_hot_spot():
    """Every node sends every packet to node 0 at load 1 on LDI(16,4) (the worst hot spot), drained:
    2,000 + 2,000 cycles; measured with seeds 1, 2, 3: age's most hops 36 each time (its bound 128),
    random's 240, 300, 397, golden's 291, 241, 241 (golden_hop_bound 771). Asserted with margin: random
    at least 3x age, each within its bound."""
    M, S = 16, 4
    net = tables.network("ldi", M, S)
    D = int(distances(net.planes).max())
    got = {}
    for priority in ("age", "random", "golden"):
        r = netsim.simulate(net, netsim.pattern("hotspot:0:1.0", M), 1.0,
                            _cfg(priority=priority, warmup=0, cycles=2000, drain=2000, seed=1))
        assert r.delivered_total > 1500
        got[priority] = max(r.hops_max, r.hops_max_in_flight)
    assert got["age"] <= hop_bound(M, S, D)
    assert got["random"] >= 3 * got["age"]
    assert got["golden"] <= golden_hop_bound(M, D)


def test_config_refuses_an_unknown_priority_and_vc_priority():
    net = tables.network("ldi", 16, 4)
    with pytest.raises(PermnetError, match=r"^priority must be age, random, golden, got 'oldest'$"):
        netsim.simulate(net, netsim.pattern("uniform", 16), 0.1, _cfg(priority="oldest"))
    with pytest.raises(PermnetError, match="priority are for deflection switching only"):
        netsim.simulate(net, netsim.pattern("uniform", 16), 0.1, netsim.Config(priority="random"))


BASE = ["netsim", "-M", "16", "-S", "4", "--cycles", "200", "--warmup", "50", "--load", "0.5", "--json"]


def test_cli_priority(capsys):
    """--priority reaches the model: the same seed gives the same report, age's differs."""
    out = {}
    for p in ("age", "random", "random"):
        r = run_main(BASE + ["--switching", "deflection", "--priority", p, "--seed", "2"], capsys)
        assert r.exit_code == 0, r.stderr
        out.setdefault(p, []).append(json.loads(r.output))
    assert out["random"][0] == out["random"][1] and out["random"][0] != out["age"][0]


@pytest.mark.parametrize("switching", ["vct", "wormhole"])
def test_cli_priority_is_refused_with_vc_switching(switching, capsys):
    r = run_main(BASE + ["--switching", switching, "--priority", "random"], capsys)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("permnet: error:") and "--priority" in lines[0], r.stderr


@pytest.mark.slow                   # 8.8 s: two worker processes start and load the kernel
def test_random_priority_sweep_is_the_same_on_two_processes():
    """A load point is a function of its configuration: the sweep's points on 2 local processes equal
    those run here, one after another."""
    from permnet.gen.parallel import Runner
    from permnet.sim.netsim.sweeps import sweep_all

    net = tables.network("ldi", 16, 4)
    cfg = _cfg(priority="random", warmup=50, cycles=300, seed=3).check(net.table.max_hops)
    item = [(net, netsim.pattern("hotspot:0:0.3", 16, 0), cfg)]
    here = sweep_all(item, [0.1, 0.2, 0.3, 0.4])[0]
    with Runner(2, progress=False) as r:
        two = sweep_all(item, [0.1, 0.2, 0.3, 0.4], runner=r)[0]
    assert here.as_dict() == two.as_dict() and len(here.points) >= 3
