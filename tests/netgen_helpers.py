"""The live-traffic generators' RTL (hdl/hil/netgen.py, hdl/hil/deflgen.py) driven in the Amaranth
simulator as the HIL tests compare it with the model: the packets the generators create and the
counters after a run."""

from amaranth.sim import Simulator

from permnet.hdl.hil.netgen import COUNTERS, PATTERN_CODES


def run_rtl(dut, M, params, start, stop, cycles, pokes=(None,)):
    """Drive the parameters, then one run of ``cycles`` cycles per entry of ``pokes`` (called
    after every tick of its run, or None), a one-cycle ``clear`` between runs (it resets the
    network, the generators, the counters and the cycle, so every run starts as the first from
    reset: one elaboration serves several runs). Per run, the rows the generators create and
    every counter read after its last cycle."""
    out = []

    async def tb(ctx):
        ctx.set(dut.pattern, PATTERN_CODES[params.pattern])
        for sig, v in ((dut.rate, params.rate), (dut.size, params.size), (dut.seed, params.seed),
                       (dut.hot, params.hot), (dut.hot_frac, params.hot_frac), (dut.start, start), (dut.stop, stop)):
            ctx.set(sig, v)
        for n in range(M):
            ctx.set(dut.perm[n], params.perm[n] if params.perm else 0)
        for i, poke in enumerate(pokes):
            if i:
                ctx.set(dut.clear, 1)
                await ctx.tick()
                ctx.set(dut.clear, 0)
            made, counters = [], {}
            for _ in range(cycles):
                c = ctx.get(dut.cycle)
                for n, g in enumerate(dut.gens):
                    if ctx.get(g.valid):
                        made.append((c, n, ctx.get(g.dst), params.size))
                await ctx.tick()
                if poke is not None:
                    poke(ctx)
            counters.update({name: [ctx.get(getattr(dut, name)[n]) for n in range(M)] for name in COUNTERS})
            counters["cycle"] = ctx.get(dut.cycle)
            out.append((made, counters))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return out
