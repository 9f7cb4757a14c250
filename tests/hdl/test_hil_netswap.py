"""The live-traffic network on run-time planes (hdl/hil/netgen.py with ``swap=True``, crossbar
planes; Beneš planes under -m slow) in the Amaranth simulator: planes and routes loaded into a held, cleared run give
counters equal to the simulator on those planes; a swap in the middle of a run loses no packet
and misdelivers none."""

import pytest
from amaranth.sim import Simulator

from permnet.gen.hil.netgen import GenParams, rate_of, trace
from permnet.gen.routing import tables
from permnet.hdl.hil.netgen import COUNTERS, PATTERN_CODES, NetworkGen
from permnet.hdl.planes import PlaneSet
from permnet.planeload import swap_load
from permnet.sim import netsim
from permnet.sim.netsim.counters import predict

M, S, VCS = 8, 2, 3
# the ring and the ring by 3 steps (a chordal ring): routes of 3 hops at most, as LDI(8,2)'s, so 3
# VCs (a third less elaboration than the ring + reverse ring's 4 hops needed), other routes
RING = [[(n + 1) % M for n in range(M)], [(n + 3) % M for n in range(M)]]


def _dut(kind):
    t = tables.network("ldi", M, S).table
    rows = t.planes.tolist()
    return NetworkGen(rows, t.length.tolist(), t.hops.tolist(), vcs=VCS, buffer=4, flit_width=8, queue=16,
                      swap=True, plane_set=lambda fw, bw: PlaneSet(M, S, fw, bw, kind, rows))


LOADED = GenParams("uniform", rate=rate_of(0.25), size=3, seed=4)       # phase 1: ring planes loaded
SWAPPED = GenParams("uniform", rate=rate_of(0.3), size=3, seed=2)       # phase 2: LDI, swap to ring at 25
START, STOP1, STOP2, SWAP_AT = 5, 35, 45, 25


@pytest.fixture(scope="module", params=["crossbar", pytest.param("benes", marks=pytest.mark.slow)])
def runs(request):
    """One simulation (one elaboration) of two runs: the RING planes loaded into a held,
    cleared run, then (cleared again: LDI planes) a run that swaps to them at cycle 25."""
    dut = _dut(request.param)
    words = swap_load(RING, dut, request.param, only_changes=True)      # the shadows hold the reset words
    out = []

    async def write(ctx, words):
        """The plane and the route words side by side, one of each a cycle (independent ports)."""
        ports = ((dut.cfg, [dict(plane=y, addr=a, data=d) for y, a, d in words.planes]),
                 (dut.rt, [dict(node=n, addr=a, data=d) for n, a, d in words.routes]))
        for i in range(max(len(items) for _, items in ports)):
            for port, items in ports:
                ctx.set(port.we, i < len(items))
                for k, v in items[i].items() if i < len(items) else ():
                    ctx.set(getattr(port, k), v)
            await ctx.tick()
        for port, _ in ports:
            ctx.set(port.we, 0)

    async def run(ctx, params, stop, preload=None, swap_words=None, swap_cycle=None):
        res = {"swaps": []}
        ctx.set(dut.pattern, PATTERN_CODES[params.pattern])
        for sig, v in ((dut.rate, params.rate), (dut.size, params.size), (dut.seed, params.seed),
                       (dut.hot, params.hot), (dut.hot_frac, params.hot_frac), (dut.start, START), (dut.stop, stop)):
            ctx.set(sig, v)
        ctx.set(dut.clear, 1)
        ctx.set(dut.hold, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        if preload is not None:
            await write(ctx, preload)
            ctx.set(dut.swap_req, 1)
            await ctx.tick()
            ctx.set(dut.swap_req, 0)
            for _ in range(4):
                await ctx.tick()
            assert ctx.get(dut.cycle) == 0 and not ctx.get(dut.swap_draining)
        if swap_words is not None:
            await write(ctx, swap_words)
        ctx.set(dut.hold, 0)
        for _ in range(400):          # until the network is empty after the run
            c = ctx.get(dut.cycle)
            if c > stop + 1 and ctx.get(dut.idle) and not ctx.get(dut.swap_draining):
                break
            ctx.set(dut.swap_req, int(c == swap_cycle))
            if ctx.get(dut.swap_done):
                res["swaps"].append((c - 1, ctx.get(dut.swap_cycles)))
            await ctx.tick()
        res.update({name: [ctx.get(getattr(dut, name)[n]) for n in range(M)] for name in COUNTERS})
        res["cycle"] = ctx.get(dut.cycle)
        out.append(res)

    async def tb(ctx):
        await run(ctx, LOADED, STOP1, preload=words)
        await run(ctx, SWAPPED, STOP2, swap_words=words, swap_cycle=SWAP_AT)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return words, out


def test_loaded_planes_give_the_simulators_counters(runs):
    """The chordal ring (routes of up to 3 hops, shortest paths) loaded into LDI(8,2)'s planes."""
    words, (got, _) = runs
    rows = trace(M, LOADED, START, STOP1)
    cfg = netsim.Config(vcs=VCS, buffer=4, lanes=S)
    want = predict(words.table, rows, cfg)
    assert len(rows) > 30 and want["lat_sum"] != predict(tables.network("ldi", M, S), rows, cfg)["lat_sum"]
    for name in COUNTERS:
        assert got[name] == want[name], name


def test_a_swap_mid_run_loses_nothing(runs):
    _, (_, got) = runs
    rows = trace(M, SWAPPED, START, STOP2)
    assert len(got["swaps"]) == 1
    commit, length = got["swaps"][0]
    assert commit == SWAP_AT + length and length >= 2          # the network held flits at cycle 25
    assert got["ej_packets"] == [sum(1 for r in rows if r[2] == d) for d in range(M)]
    assert got["inj_packets"] == got["gen_packets"] == [sum(1 for r in rows if r[1] == s) for s in range(M)]
    assert got["ej_flits"] == [3 * k for k in got["ej_packets"]]
    assert got["misdelivered"] == got["payload_errors"] == got["dropped"] == [0] * M
