"""Cycle-level network simulator (issue 14): conservation, hop counts walked
from ldi.route / BFS, the zero-load formula hops + size, determinism, the
compiled loop equal to the same loop run by CPython, deadlock time-out."""

import networkx as nx
import numpy as np
import pytest

from netsim_helpers import compiled_equals_cpython
from permnet.gen.routing import tables
from permnet.gen.topologies import ldi
from permnet.sim import netsim
from permnet.sim.netsim import kernel


def trace_of(rows, M, buffer=None):
    text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
    return netsim.parse_trace(text, M, buffer)


def random_rows(rng, M, n, span, size=4):
    rows = []
    for _ in range(n):
        s, d = rng.integers(0, M, 2)
        rows.append((int(rng.integers(0, span)), int(s), int(d), int(size if size else rng.integers(1, 5))))
    return rows


@pytest.mark.parametrize("M,S", [(16, 4), (27, 3), (64, 8)])
def test_every_trace_packet_delivered_once_with_ldi_route_hops(M, S):
    net = tables.network("ldi", M, S)
    rng = np.random.default_rng(M)
    rows = random_rows(rng, M, 400, 2000, size=0)
    tr = trace_of(rows, M, 8)
    r = netsim.simulate(net, tr, 1.0, netsim.Config(log=10**5))
    assert not r.deadlock and r.delivered_total == len(rows) and r.in_flight == 0
    log = r.log
    assert sorted(log[:, 0].tolist()) == list(range(len(rows)))          # each exactly once
    order = np.argsort(np.asarray([c for c, *_ in rows]), kind="stable")
    for serial, src, dst, t0, done, hops, size in log.tolist():
        c, s, d, z = rows[order[serial]]
        assert (src, dst, size) == (s, d, z) and t0 == c
        assert hops == len(ldi.route(M, S, s, d).links[0])               # walked independently
        assert done - t0 >= hops + size                                   # never faster than zero load


@pytest.mark.parametrize("switching", ["vct", "wormhole"])
@pytest.mark.parametrize("topo,M,S,routing", [("ldi", 64, 4, "family"), ("ldi", 100, 7, "family"),
                                              ("torus", 36, 4, "family"), ("debruijn", 27, 3, "shortest")])
def test_zero_load_latency_is_hops_plus_size(topo, M, S, routing, switching):
    """Packets 200 cycles apart never meet: latency = hops + size exactly."""
    net = tables.network(topo, M, S, routing)
    g = nx.MultiDiGraph((u, int(net.planes[y][u])) for y in range(S) for u in range(M))
    rng = np.random.default_rng(1)
    rows = [(200 * i, *map(int, rng.integers(0, M, 2)), int(rng.integers(1, 9))) for i in range(60)]
    r = netsim.simulate(net, trace_of(rows, M), 1.0, netsim.Config(buffer=8, switching=switching, log=100))
    assert len(r.log) == 60
    for serial, src, dst, t0, done, hops, size in r.log.tolist():
        if routing == "shortest":
            assert hops == nx.shortest_path_length(g, src, dst)
        assert done - t0 == hops + size


def test_low_load_uniform_conserves_packets_and_matches_zero_load():
    net = tables.network("ldi", 64, 8)
    r = netsim.simulate(net, netsim.pattern("uniform", 64), 0.02, netsim.Config(cycles=1500, log=10**5))
    assert r.stable and r.delivered == r.measured > 1000
    assert r.created_total == r.delivered_total + r.in_flight + 0 and r.dropped == 0
    assert len(set(r.log[:, 0].tolist())) == len(r.log)
    zl = netsim.zero_load_latency(net.table, 4)
    assert zl <= r.latency_avg < zl + 1.0                                # little contention at 2% load
    assert abs(r.accepted - r.offered) < 0.003
    assert np.all(r.log[:, 1] != r.log[:, 2])                            # uniform never sends to itself
    for _, src, dst, _, _, hops, _ in r.log[:300].tolist():
        assert hops == len(ldi.route(64, 8, src, dst).links[0])


def test_permutation_traffic_goes_where_the_pattern_says():
    M = 16
    net = tables.network("ldi", M, 4)
    bits = lambda v: format(v, "04b")  # noqa: E731
    expect = {"transpose": lambda s: int(bits(s)[2:] + bits(s)[:2], 2), "bitrev": lambda s: int(bits(s)[::-1], 2),
              "bitcomp": lambda s: M - 1 - s, "shuffle": lambda s: int(bits(s)[1:] + bits(s)[0], 2),
              "tornado": lambda s: (s + 7) % M}
    for name, f in expect.items():
        r = netsim.simulate(net, netsim.pattern(name, M), 0.2, netsim.Config(cycles=300, warmup=50, log=10**4))
        assert len(r.log) > 100
        for _, src, dst, *_ in r.log.tolist():
            assert dst == f(src) != src


def test_deterministic_for_a_seed():
    net = tables.network("ldi", 16, 4)
    tr = netsim.pattern("uniform", 16)
    cfg = netsim.Config(cycles=500, warmup=100, seed=7, log=10**4)
    a, b = netsim.simulate(net, tr, 0.4, cfg), netsim.simulate(net, tr, 0.4, cfg)
    assert a.as_dict(links=True) == b.as_dict(links=True) and np.array_equal(a.log, b.log)
    c = netsim.simulate(net, tr, 0.4, netsim.Config(cycles=500, warmup=100, seed=8, log=10**4))
    assert not np.array_equal(a.log, c.log)


def test_compiled_loop_equals_the_same_loop_in_cpython():
    stats = compiled_equals_cpython(tables.network("ldi", 9, 3).table, lanes=3)
    assert stats[kernel.STAT_FIELDS.index("delivered")] > 20


def test_one_vc_deadlocks_and_is_detected():
    net = tables.network("ldi", 16, 4)
    tr = netsim.pattern("uniform", 16)
    r = netsim.simulate(net, tr, 1.0, netsim.Config(vcs=1, cycles=3000, timeout=300))
    assert r.deadlock and not r.stable and r.in_flight > 0
    assert r.cycles <= r.deadlock_cycle + 302                           # stopped by the time-out, not the window
    ok = netsim.simulate(net, tr, 1.0, netsim.Config(vcs=2, cycles=3000, timeout=300))
    assert not ok.deadlock


def test_link_utilisation_counts_every_flit_hop():
    net = tables.network("ldi", 16, 4)
    rows = [(0, 3, 12, 4), (0, 5, 5, 2), (10, 0, 15, 3)]
    r = netsim.simulate(net, trace_of(rows, 16), 1.0, netsim.Config(log=10))
    flits = sum(len(ldi.route(16, 4, s, d).links[0]) * z for _, s, d, z in rows)
    assert round(float(r.link_utilisation.sum()) * r.cycles) == flits


def test_saturation_sweep():
    net = tables.network("ldi", 16, 4)
    sw = netsim.sweep(net, netsim.pattern("uniform", 16), netsim.loads("0.1:1:0.3"),
                      netsim.Config(cycles=600, warmup=200))
    assert sw.saturation is not None and 0.1 <= sw.saturation < 1.0
    assert [p.load for p in sw.points][:2] == [0.1, 0.4]
    assert sw.points[0].stable and not sw.points[-1].stable


@pytest.mark.parametrize("spec", ["0", "1.5", "-0.1", "0.5:0.1:0.1", "0.1:0.5:0", "x", "nan", "0.5:1.2:0.5"])
def test_bad_loads(spec):
    from permnet.gen.errors import PermnetError
    with pytest.raises(PermnetError):
        netsim.loads(spec)


@pytest.mark.parametrize("text", ["0 1 2", "0 1 x 4", "0 1 99 4", "-1 0 1 2", "0 1 2 0", "0 1 2 9", "# only\n"])
def test_malformed_traces(text):
    from permnet.gen.errors import PermnetError
    with pytest.raises(PermnetError):
        netsim.parse_trace(text, 16, 8)


def test_refined_saturation_lies_between_grid_points():
    net = tables.network("ldi", 16, 4)
    tr = netsim.pattern("uniform", 16)
    cfg = netsim.Config(cycles=600, warmup=200)
    grid = netsim.sweep(net, tr, netsim.loads("0.1:1:0.3"), cfg)
    fine = netsim.sweep(net, tr, netsim.loads("0.1:1:0.3"), cfg, refine=3)
    first_bad = next(p.load for p in grid.points if not p.stable)
    assert grid.saturation <= fine.saturation < first_bad
    loads = [p.load for p in fine.points]
    assert loads == sorted(loads) and len(loads) == len(grid.points) + 3
    at = next(p for p in fine.points if p.load == fine.saturation)
    assert at.stable
