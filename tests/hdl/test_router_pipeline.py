"""Link and credit stages (issue 24): registers on every link's forward path and on
every credit's way back, in the RTL routers and in the simulator
(``Config(link_stages=L, credit_stages=C)``); the self-test network's checkers
hold the simulator's delivery cycles and stay silent."""

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


# make test: LDI(4,2), the smallest network (the Amaranth simulator's build of the network is most
# of the cost); LDI(8,2) and LDI(9,3) under -m slow
@pytest.mark.parametrize("M,S,router,switching,buffer,stages,packets", [
    pytest.param(9, 3, "nexthop", "vct", 4, 1, 40, marks=pytest.mark.slow),
    pytest.param(8, 2, "table", "wormhole", 2, 2, 40, marks=pytest.mark.slow),
    (4, 2, "table", "wormhole", 2, 2, 20)])
def test_link_stages_cycle_exact(M, S, router, switching, buffer, stages, packets):
    """Every packet delivered in the simulator's cycle with L link stages, which is later
    than without them by at least L cycles per packet."""
    t = tables.network("ldi", M, S).table
    rows = random_trace(M, packets, 16, 4, seed=M)
    kw = dict(S=S, vcs=t.max_hops, buffer=buffer, switching=switching)
    want, cycles = delivered(rows, M, link_stages=stages, **kw)
    flat, _ = delivered(rows, M, **kw)
    assert sum(a - b for a, b in zip(want, flat)) >= stages * len(rows)       # every hop took longer
    assert run_selftest(t, rows, want, cycles, buffer=buffer, switching=switching, router=router,
                        link_stages=stages) == {"error": 0}


@pytest.mark.parametrize("M,S,router,switching,buffer,links,credits", [
    (4, 2, "table", "wormhole", 2, 1, 1),
    pytest.param(8, 2, "table", "wormhole", 2, 1, 1, marks=pytest.mark.slow),
    pytest.param(8, 2, "nexthop", "vct", 4, 0, 2, marks=pytest.mark.slow)])
def test_credit_stages_cycle_exact(M, S, router, switching, buffer, links, credits):
    """With C credit stages (and L link stages) every packet is delivered in the simulator's
    cycle; on this load (a packet at every node in each of 8 cycles) the slower credits delay
    the packets (the option is not inert)."""
    t = tables.network("ldi", M, S).table
    rows = random_trace(M, 8 * M, 8, 4, seed=M + credits)
    kw = dict(S=S, vcs=t.max_hops, buffer=buffer, switching=switching, link_stages=links)
    want, cycles = delivered(rows, M, credit_stages=credits, **kw)
    fast, _ = delivered(rows, M, **kw)
    assert sum(want) > sum(fast)                        # credits came back later
    assert run_selftest(t, rows, want, cycles, buffer=buffer, switching=switching, router=router,
                        link_stages=links, credit_stages=credits) == {"error": 0}


def run_selftest(t, rows, want, cycles, *, buffer, switching, router, **stages):
    """Run the self-test network until ``done``; its checkers compare against ``want``."""
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), rows, vcs=t.max_hops, buffer=buffer,
                     wormhole=switching == "wormhole", expected=want, router=router, **stages)
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
    return out


@pytest.mark.parametrize("router,M", [("table", 4), ("nexthop", 4), pytest.param("table", 8, marks=pytest.mark.slow),
                                      pytest.param("nexthop", 8, marks=pytest.mark.slow)])
def test_lanes_routed_without_the_source_rom(monkeypatch, router, M):
    """Above ``Router.SOURCE_ROM_NODES`` nodes a new packet's first hop comes from the node's
    own routing (table or next-hop unit) instead of the first-hop ROM: forced here on LDI(M,2),
    every packet is still delivered in the simulator's cycle."""
    from permnet.hdl.router import Router

    monkeypatch.setattr(Router, "SOURCE_ROM_NODES", 0)
    t = tables.network("ldi", M, 2).table
    rows = random_trace(M, 5 * M, 8, 4, seed=3)
    kw = dict(S=2, vcs=t.max_hops, buffer=4, switching="vct")
    want, cycles = delivered(rows, M, **kw)
    assert run_selftest(t, rows, want, cycles, buffer=4, switching="vct", router=router) == {"error": 0}
