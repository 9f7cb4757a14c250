"""The simulator's deflection-router network (issue 41) against the spec,
:func:`permnet.gen.routing.deflection.route_step`: the compiled loop equal to
the same loop run by CPython; its delivery log equal, packet for packet and
cycle for cycle, to a plain network of ``route_step`` calls (random traffic,
random ejection back-pressure, both allocators, one- and two-cycle hops);
every packet delivered once to its destination; the livelock bound under
saturating adversarial traffic; the CLI's one-line refusals."""

import numpy as np
import pytest

from netsim_helpers import back_pressure, deflect_equals_cpython, random_trace, run_main, spec_network
from permnet.gen.errors import PermnetError
from permnet.gen.routing import tables
from permnet.gen.routing.deflection import age_bits, distances, hop_bound, neutral_masks, productive_masks
from permnet.sim import netsim
from permnet.sim.netsim import deflect, deflect_kernel


@pytest.mark.parametrize("M,S,allocator,K,E", [(16, 4, "permutation", 1, 2), (16, 4, "permutation", 2, 1),
                                               (16, 4, "ideal", 1, 2), (16, 4, "ideal", 2, 4),
                                               (27, 3, "ideal", 1, 2), (27, 3, "ideal", 2, 3)])
def test_delivery_log_equals_a_network_of_route_step(M, S, allocator, K, E):
    net = tables.network("ldi", M, S)
    rng = np.random.default_rng(M * 10 + K + E)
    cycles = 320
    rows = random_trace(rng, M, int(0.5 * M * 150), 150)            # half a packet per node per cycle, 150 cycles
    ready = back_pressure(rng, cycles, M, E, 0.6, 220)
    ref = spec_network(net.planes, rows, E=E, K=K, allocator=allocator, ready=ready, cycles=cycles)
    got = netsim.deflection_trace(net.planes, rows, cycles=cycles, E=E, link_stages=K - 1, allocator=allocator,
                                  ej_ready=ready)
    assert len(ref) > 0.9 * len(rows)
    assert {d.serial: tuple(d)[1:] for d in got} == ref
    # every packet delivered exactly once, at its destination, not before it could be
    assert sorted(d.serial for d in got) == list(range(len(rows)))
    dist = distances(net.planes)
    for d in got:
        c, s, t = rows[d.serial]
        assert (d.src, d.dst, d.node) == (s, t, t) and d.injected >= c and 0 <= d.port < E
        assert d.hops >= max(dist[s, t], 1) and d.handshake >= d.injected + d.hops * K + 1


def test_a_packet_alone_takes_shortest_paths():
    """200 cycles apart, no flit meets another: handshake = created + dist K + 1, hops = dist."""
    net = tables.network("ldi", 64, 4)
    dist = distances(net.planes)
    rng = np.random.default_rng(5)
    rows = [(200 * i, *map(int, rng.choice(64, 2, replace=False))) for i in range(40)]
    for K in (1, 3):
        got = netsim.deflection_trace(net.planes, rows, cycles=200 * 40, link_stages=K - 1)
        assert len(got) == 40
        for d in got:
            c, s, t = rows[d.serial]
            assert d.injected == c and d.hops == dist[s, t] and d.handshake == c + dist[s, t] * K + 1


def test_compiled_loop_equals_cpython():
    """Synthetic traffic (hot spot) with back-pressure: every output array of the numba loop
    equals that of the same function run by CPython (``py_func``)."""
    net = tables.network("ldi", 16, 4)
    rng = np.random.default_rng(2)
    ready = back_pressure(rng, 200, 16, 2, 0.7, 120)
    for ideal in (False, True):
        stats = deflect_equals_cpython(net.planes, ready, ideal=ideal)
        assert stats[deflect_kernel.STAT_FIELDS.index("delivered")] > 500


# Adversarial traffic for the livelock bound: at load 1 every node sends every cycle, all of it to
# node 0 (hotspot:0:1.0), and node 0 has one ejection port. Every node injects whenever a slot is free,
# so the network stays nearly full (M S K flits) while node 0 takes at most one a cycle: by Little's law
# a flit spends about M S K cycles, M S hops, in the network, and some flit more. That is far above the
# diameter D, and D (K = 1) or K (D + 1) (K > 1) times below hop_bound, whose proof lets every older flit
# take up to D (D + 1) hops alone, which flits that all converge on one node do not. The 10% hot spot
# is issue 41's case.
ADVERSARIAL = "hotspot:0:1.0"


def livelock_run(M, S, K, allocator, traffic, deflect="any", side_buffer=0):
    """Load 1, E = 1, every ejection queue drained, source queues of 16 packets: 2 x the bound's cycles
    (hop_bound x K) of traffic, measured, and up to as many again until every packet created in them
    is delivered. A flit of the window that never arrives keeps the run going to its end, 2 x the
    bound's cycles after the window, with more hops than the bound (hops_max_in_flight) unless it
    waited at its source; one that takes more hops before it arrives shows in hops_max.
    Returns (result, bound)."""
    net = tables.network("ldi", M, S)
    D = int(distances(net.planes).max())
    bound = hop_bound(M, S, D, K, side_buffer)
    cfg = netsim.Config(switching="deflection", packet_size=1, ejection_width=1, link_stages=K - 1,
                        deflection_allocator=allocator, deflect=deflect, side_buffer=side_buffer, queue=16,
                        warmup=0, cycles=2 * bound * K, drain=2 * bound * K)
    r = netsim.simulate(net, netsim.pattern(traffic, M), 1.0, cfg)
    assert r.cycles >= 2 * bound * K and r.delivered_total > 0.5 * r.cycles and r.deflection_rate > 0.3
    assert r.hops_max <= bound and r.hops_max_in_flight <= bound, (r.hops_max, r.hops_max_in_flight, bound)
    return r, bound


@pytest.mark.parametrize("M,S,traffic,least", [(16, 4, ADVERSARIAL, 2), (16, 4, "hotspot:0:0.1", 4),
                                               (64, 4, ADVERSARIAL, 2),
                                               pytest.param(64, 4, "hotspot:0:0.1", 4, marks=pytest.mark.slow)])
def test_livelock_bound_under_saturation(M, S, traffic, least):
    """No flit, delivered or still in the network, took more hops than hop_bound(M, S, D, K) (K = 1:
    M S D; K = 2: M S K (D + 1)), and some flit took at least M S / least hops (all to node 0: about
    M S, e.g. 64 of 128 on LDI(16,4), 254 of 768 on LDI(64,4); 10% hot spot: about M S / 2)."""
    for K, alloc in ((1, "permutation"), (2, "ideal")):
        r, bound = livelock_run(M, S, K, alloc, traffic)
        assert r.hops_max >= M * S // least


def test_load_point_statistics():
    """A light load: all delivered; hops >= shortest; deflection rate from the hops."""
    net = tables.network("ldi", 64, 4)
    cfg = netsim.Config(switching="deflection", packet_size=1, warmup=100, cycles=400, log=10**5)
    r = netsim.simulate(net, netsim.pattern("uniform", 64), 0.1, cfg)
    dist = distances(net.planes)
    assert r.stable and r.delivered == r.measured > 2000
    src, dst, hops = r.log[:, 1], r.log[:, 2], r.log[:, 5]
    assert (hops >= dist[src, dst]).all() and r.hops_max == hops.max()
    assert 1 <= r.hops_ratio < 1.2 and 0 <= r.deflection_rate < 0.1
    assert r.latency_avg >= deflect.zero_load_latency(net.planes) - 0.05
    d = r.as_dict()
    assert {"deflection_rate", "hops_ratio", "hops_max"} <= set(d)
    assert "hops_max" not in netsim.simulate(net, netsim.pattern("uniform", 64), 0.1,
                                             netsim.Config(warmup=10, cycles=50)).as_dict()


@pytest.mark.parametrize("kwargs,needle", [
    (dict(packet_size=4), "single-flit"), (dict(packet_size=1, vcs=2), "vcs"),
    (dict(packet_size=1, buffer=4), "buffer"), (dict(packet_size=1, ejection_width=5), "1..S"),
    (dict(packet_size=1, deflection_allocator="best"), "allocator"),
])
def test_config_refusals(kwargs, needle):
    net = tables.network("ldi", 16, 4)
    with pytest.raises(PermnetError, match=needle):
        netsim.simulate(net, netsim.pattern("uniform", 16), 0.1, netsim.Config(switching="deflection", **kwargs))


BASE = ["netsim", "-M", "16", "-S", "4", "--cycles", "200", "--warmup", "50", "--switching", "deflection"]


def test_cli_deflection_run(capsys):
    r = run_main(BASE + ["--load", "0.2", "--ejection-width", "1", "--deflection-allocator", "ideal"], capsys)
    assert r.exit_code == 0, r.stderr
    for phrase in ("Deflection rate = ", "Hops vs shortest = ", "Hops max = "):
        assert phrase in r.output


@pytest.mark.parametrize("argv,needle", [
    (BASE + ["--vcs", "3"], "--vcs"), (BASE + ["--buffer", "8"], "--buffer"),
    (BASE + ["--credit-stages", "1"], "--credit-stages"), (BASE + ["--allocator", "combined"], "--allocator"),
    (BASE + ["--lanes", "2"], "--lanes"), (BASE + ["--ejection", "port"], "--ejection"),
    (BASE + ["--packet-size", "4"], "single-flit"), (BASE + ["--ejection-width", "5"], "1..S"),
    (["netsim", "-M", "27", "-S", "3", "--switching", "deflection"], "ideal allocator"),
    (["netsim", "-M", "16", "-S", "4", "--ejection-width", "1"], "--switching deflection"),
])
def test_cli_refusals_are_one_line(argv, needle, capsys):
    r = run_main(argv, capsys)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("permnet: error:") and needle in lines[0], r.stderr


def test_a_trace_packet_of_two_flits_is_refused(tmp_path, capsys):
    """Deflection routers carry packets of one flit: a trace holding a 2-flit packet is refused
    as such, by netsim (one line, exit 2) and by the cycle-exact trace model."""
    trace = tmp_path / "t.txt"
    trace.write_text("0 0 3 1\n1 2 5 2\n")
    r = run_main(BASE + ["--trace", trace], capsys)
    assert r.exit_code == 2 and r.stderr.strip() == ("permnet: error: deflection routing carries single-flit "
                                                     "packets; the trace has a 2-flit packet"), r.stderr
    planes = tables.network("ldi", 16, 4).table.planes
    with pytest.raises(PermnetError, match=r"^deflection routing carries single-flit packets$"):
        deflect.deflection_trace(planes, [(0, 0, 3, 1), (1, 2, 5, 2)], cycles=10)
    assert len(deflect.deflection_trace(planes, [(0, 0, 3, 1), (1, 2, 5, 1)], cycles=40)) == 2


def test_kernel_reads_the_stop_flag():
    """A stop flag set before the first cycle: no cycle runs (``_interruptible`` sets it at a signal)."""
    net = tables.network("ldi", 16, 4)
    planes, dist, masks, diameter = deflect.tables(net.planes)
    e = np.zeros(0, np.int64)
    stats = deflect_kernel.simulate(planes, masks, dist, 2, False, 1, 255, 16, deflect_kernel.UNIFORM,
                                    np.zeros(1, np.int64), 0.5, 0, 0.0, np.zeros((1, 1)), e, e, e, 0, 100, 200, 0, 0,
                                    np.zeros((0, 1, 1), np.uint8), np.ones(1, np.int64),
                                    np.zeros_like(masks), 0, 0, 1)[0]
    assert stats[deflect_kernel.STAT_FIELDS.index("cycles")] == 0


def test_sigint_stops_a_long_deflection_run(tmp_path):
    import signal
    import subprocess
    import time

    from cli_runner import PERMNET

    # 10^7 cycles at 256 nodes run for many minutes unless the kernel sees the signal
    proc = subprocess.Popen(PERMNET + ["netsim", "-M", "256", "-S", "4", "--switching", "deflection", "--cycles",
                                       str(10 ** 7), "--load", "0.2"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["permnet: interrupted"] and out == ""


@pytest.mark.parametrize("allocator", ["permutation", "ideal"])
def test_saturated_ages_under_heavy_back_pressure(allocator):
    """Users rarely ready for 450 cycles: flits circle until their ages saturate at
    2**age_bits - 1 and keys tie (the tie-breaks of route_step); the logs still agree."""
    M, S, E, cycles = 16, 4, 1, 800
    net = tables.network("ldi", M, S)
    rng = np.random.default_rng(11)
    rows = random_trace(rng, M, 400, 100)
    ready = back_pressure(rng, cycles, M, E, 0.03, 450)
    ref = spec_network(net.planes, rows, E=E, K=1, allocator=allocator, ready=ready, cycles=cycles)
    got = netsim.deflection_trace(net.planes, rows, cycles=cycles, E=E, allocator=allocator, ej_ready=ready)
    assert {d.serial: tuple(d)[1:] for d in got} == ref and len(ref) == len(rows)
    age_max = (1 << age_bits(M, S, int(distances(net.planes).max()), 1)) - 1
    assert sum(d.handshake - d.injected > age_max + 1 for d in got) > 20


OPTIONS = [("nearest", 0), ("any", 4), ("nearest", 2)]


def test_neutral_masks():
    """Neutral outputs keep the distance: disjoint from the productive ones, and a productive, neutral
    or other output changes the BFS distance by -1, 0 or more than 0 (checked on the planes directly)."""
    net = tables.network("ldi", 64, 4)
    planes = np.asarray(net.planes)
    dist = distances(planes)
    prod, neut = productive_masks(planes, dist), neutral_masks(planes, dist)
    assert not (prod & neut).any() and neut.any()
    M = planes.shape[1]
    for n in range(0, M, 7):
        for d in range(M):
            for y in range(4):
                step = dist[planes[y, n], d] - dist[n, d]
                kind = 0 if d == n else (1 if prod[n, d] >> y & 1 else 2 if neut[n, d] >> y & 1 else 3)
                assert kind == 0 or (step == -1 if kind == 1 else step == 0 if kind == 2 else step > 0)


@pytest.mark.parametrize("deflect,B", OPTIONS)
@pytest.mark.parametrize("M,S,allocator,K,E", [(16, 4, "permutation", 1, 2), (16, 4, "ideal", 2, 1),
                                               (27, 3, "ideal", 1, 2)])
def test_options_delivery_log_equals_a_network_of_route_step(M, S, allocator, K, E, deflect, B):
    """The spec's options (model only): the kernel's log equals the route_step network, packet for
    packet, under random back-pressure; every packet delivered exactly once, at its destination."""
    net = tables.network("ldi", M, S)
    rng = np.random.default_rng(M + 7 * K + E + B)
    cycles = 320
    rows = random_trace(rng, M, int(0.6 * M * 150), 150)
    ready = back_pressure(rng, cycles, M, E, 0.6, 220)
    ref = spec_network(net.planes, rows, E=E, K=K, allocator=allocator, ready=ready, cycles=cycles, deflect=deflect,
                       side_buffer=B)
    got = netsim.deflection_trace(net.planes, rows, cycles=cycles, E=E, link_stages=K - 1, allocator=allocator,
                                  ej_ready=ready, deflect=deflect, side_buffer=B)
    assert {d.serial: tuple(d)[1:] for d in got} == ref
    assert sorted(d.serial for d in got) == list(range(len(rows)))
    for d in got:
        c, s, t = rows[d.serial]
        assert (d.src, d.dst, d.node) == (s, t, t) and d.injected >= c


def test_options_change_the_routes():
    """The same trace under each option gives another log than the default's (the options are live),
    and the side buffer takes flits in (entries counted by the kernel)."""
    net = tables.network("ldi", 16, 4)
    rng = np.random.default_rng(3)
    rows = random_trace(rng, 16, 1500, 150)
    base = netsim.deflection_trace(net.planes, rows, cycles=600)
    for deflect, B in OPTIONS:
        assert netsim.deflection_trace(net.planes, rows, cycles=600, deflect=deflect, side_buffer=B) != base
    cfg = netsim.Config(switching="deflection", packet_size=1, side_buffer=4, warmup=50, cycles=200)
    r = netsim.simulate(net, netsim.pattern("uniform", 16), 0.6, cfg)
    assert r.side_entered > 0.01 and 0 <= r.inject_stall <= 1


def test_options_compiled_loop_equals_cpython():
    net = tables.network("ldi", 16, 4)
    rng = np.random.default_rng(4)
    ready = back_pressure(rng, 200, 16, 2, 0.7, 120)
    for ideal, B in ((False, 3), (True, 2)):
        deflect_equals_cpython(net.planes, ready, ideal=ideal, nearest=True, B=B)


@pytest.mark.parametrize("K,alloc,dfl,B", [(1, "permutation", "nearest", 0),
                                            pytest.param(2, "ideal", "any", 4, marks=pytest.mark.slow),
                                            (1, "permutation", "nearest", 4)])
def test_options_livelock_bound_under_saturation(K, alloc, dfl, B):
    """LDI(64,4), all traffic to node 0 (ADVERSARIAL): with nearest, hop_bound as stated; with a side
    buffer, hop_bound(..., side_buffer=B) = M (S K + B) (D + 1). Some flit took at least M S / 2 hops
    (seen: 252 of 768 with nearest, 314 of 3072 and 394 of 2048 with B = 4)."""
    M, S = 64, 4
    r, bound = livelock_run(M, S, K, alloc, ADVERSARIAL, deflect=dfl, side_buffer=B)
    assert r.hops_max >= M * S // 2


def test_cli_options(capsys):
    """--deflect nearest and --side-buffer B reach the model: fewer deflections than the default at the same
    load and seed; refused without --switching deflection and outside 0..64, in one line."""
    import json

    def rate(extra):
        r = run_main(BASE + ["--load", "0.4", "--json"] + extra, capsys)
        assert r.exit_code == 0, r.stderr
        return json.loads(r.output)["deflection_rate"]

    base = rate([])
    assert rate(["--deflect", "nearest", "--side-buffer", "4"]) < base
    for argv, needle in ((["netsim", "-M", "16", "-S", "4", "--side-buffer", "2"], "--switching deflection"),
                         (["netsim", "-M", "16", "-S", "4", "--deflect", "nearest"], "--switching deflection"),
                         (BASE + ["--side-buffer", "65"], "0..64")):
        r = run_main(argv, capsys)
        lines = r.stderr.strip().splitlines()
        assert r.exit_code == 2 and len(lines) == 1 and needle in lines[0], r.stderr
