"""Link stages (issue 24): registers on every link's forward path, in the RTL
routers and in the simulator (``Config(link_stages=L)``); the self-test
network's checkers hold the simulator's delivery cycles and stay silent."""

import pytest
from amaranth.sim import Simulator

from permnet.gen.routing import tables
from permnet.hdl.network import NetworkRTL
from permnet.hdl.network import random_trace
from permnet.sim import netsim


def delivered(rows, M, **cfg):
    text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
    ref = netsim.simulate(tables.network("ldi", M, cfg.pop("S")), netsim.parse_trace(text, M), 1.0,
                          netsim.Config(log=len(rows) + 1, **cfg))
    done = {int(a[0]): int(a[4]) for a in ref.log}
    return [done[i] for i in range(len(rows))], ref.cycles


@pytest.mark.parametrize("M,S,router,switching,buffer,stages", [
    pytest.param(9, 3, "nexthop", "vct", 4, 1, marks=pytest.mark.slow),
    (8, 2, "table", "wormhole", 2, 2)])
def test_link_stages_cycle_exact(M, S, router, switching, buffer, stages):
    """Every packet delivered in the simulator's cycle with L link stages, which is later
    than without them by at least L cycles per packet."""
    t = tables.network("ldi", M, S).table
    rows = random_trace(M, 40, 16, 4, seed=M)
    kw = dict(S=S, vcs=t.max_hops, buffer=buffer, switching=switching)
    want, cycles = delivered(rows, M, link_stages=stages, **kw)
    flat, _ = delivered(rows, M, **kw)
    assert sum(a - b for a, b in zip(want, flat)) >= stages * len(rows)       # every hop took longer
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), rows, vcs=t.max_hops, buffer=buffer,
                     wormhole=switching == "wormhole", expected=want, router=router, link_stages=stages)
    out = {}

    async def tb(ctx):
        for _ in range(cycles + 5):
            if ctx.get(dut.done):
                out["error"] = ctx.get(dut.error)
                return
            await ctx.tick()
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    assert out == {"error": 0}
