"""Amaranth-simulator testbenches shared by the tests and ``permnet demo``.

Convention: each cycle the inputs are set, the outputs read (after the
combinational logic settles), then the clock ticks; a unit of latency L
shows at cycle t the result of the inputs of cycle t-L.
"""

from __future__ import annotations

import random

from amaranth.sim import Simulator

from permnet.hdl.crossbar import stream_words
from permnet.sim.reference import crossbar

__all__ = ["run_nexthop", "run_crossbar", "pack", "unpack"]


def pack(vals, w: int) -> int:
    return sum(int(v) << (k * w) for k, v in enumerate(vals))


def unpack(x: int, n: int, w: int) -> list[int]:
    return [(x >> (k * w)) & ((1 << w) - 1) for k in range(n)]


def run_nexthop(dut, cases, latency: int) -> list[tuple[int, int]]:
    """Drive (node, dest, hop) one per cycle; return (link, next) for each valid output
    (latency 0: a combinational unit, which has no clock; the inputs then change every 1 us)."""
    got = []
    sim = Simulator(dut)
    if latency:
        sim.add_clock(1e-6)

    async def tb(ctx):
        for c in list(cases) + [None] * latency:
            if c is None:
                ctx.set(dut.i_valid, 0)
            else:
                ctx.set(dut.i_valid, 1)
                ctx.set(dut.i_node, c[0])
                ctx.set(dut.i_dest, c[1])
                ctx.set(dut.i_hop, c[2])
            if ctx.get(dut.o_valid):
                got.append((ctx.get(dut.o_link), ctx.get(dut.o_next)))
            await (ctx.tick() if latency else ctx.delay(1e-6))
    sim.add_testbench(tb)
    sim.run()
    return got


def run_crossbar(dut, configs, durations, cycles: int, seed: int = 0) -> list[int]:
    """Load ``configs`` (per-egress ingress lists, one per slot) and
    ``durations`` through the streams, commit, drive random data and return
    the cycles whose output differs from the model (empty: all match)."""
    N, W, K = dut.ports, dut.width, dut.slots
    rng = random.Random(seed)
    errors: list[int] = []
    sim = Simulator(dut)
    sim.add_clock(1e-6)

    async def tb(ctx):
        for w in stream_words(configs, N):
            ctx.set(dut.cfg.payload.as_value(), w)
            ctx.set(dut.cfg.valid, 1)
            await ctx.tick()
        ctx.set(dut.cfg.valid, 0)
        for d in (durations if K > 1 else []):
            ctx.set(dut.dur.payload, d)
            ctx.set(dut.dur.valid, 1)
            await ctx.tick()
        if K > 1:
            ctx.set(dut.dur.valid, 0)
        if not (ctx.get(dut.o_loaded) == 1 and ctx.get(dut.cfg.ready) == 0):
            errors.append(-1)
        ctx.set(dut.commit, 1)
        await ctx.tick()
        ctx.set(dut.commit, 0)
        slot, remaining, prev = 0, max(durations[0], 1) - 1, None
        for t in range(cycles):
            data = [rng.randrange(1 << W) for _ in range(N)]
            ctx.set(dut.i_data, pack(data, W))
            if prev is not None and unpack(ctx.get(dut.o_data), N, W) != crossbar(configs[prev[1]], prev[0]):
                errors.append(t)
            if ctx.get(dut.o_slot) != slot:
                errors.append(t)
            prev = (data, slot)
            await ctx.tick()
            if K > 1:
                if remaining == 0:
                    slot = (slot + 1) % K
                    remaining = max(durations[slot], 1) - 1
                else:
                    remaining -= 1
    sim.add_testbench(tb)
    sim.run()
    return errors
