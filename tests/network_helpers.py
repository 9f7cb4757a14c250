"""Helpers for the tests of the RTL network's self-test top (``permnet rtl network``)."""

from amaranth.sim import Simulator


def selftest_run(dut, M, max_cycles, readback=()):
    """``{serial: delivery cycle}``, the sticky error, and the read-back word of every
    ``(plane, addr)`` in ``readback`` (read through ``cfg`` after the traffic)."""
    got, out = {}, {}

    async def tb(ctx):
        for _ in range(max_cycles):
            cyc = ctx.get(dut.cycle)
            for n in range(M):
                for k in range(dut.K):
                    if ctx.get(dut.tail_valid[n][k]):
                        s = ctx.get(dut.tail_serial[n][k])
                        assert s not in got, f"packet {s} delivered twice"
                        got[s] = cyc + 1
            if ctx.get(dut.done):
                break
            await ctx.tick()
        out["error"] = ctx.get(dut.error)
        for y, a in readback:
            ctx.set(dut.cfg.plane, y)
            ctx.set(dut.cfg.addr, a)
            await ctx.tick()
            out[y, a] = ctx.get(dut.cfg.rdata)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return got, out
