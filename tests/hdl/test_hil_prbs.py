"""PRBS bank in the Amaranth simulator, with the datapath replaced by a
wire (egress e = ingress e): the generators' bit streams satisfy the
PRBS7 / PRBS31 recurrences (checked bit by bit here), PRBS7 has period 127,
the checkers count every word and no error on a clean line, and a flipped
bit costs between one and three error words."""

import pytest
from amaranth.hdl import Module
from amaranth.sim import Simulator

from permnet.hdl.hil.prbs import PrbsBank

TAPS = {7: (7, 6), 31: (31, 28)}


class Wired(PrbsBank):
    def elaborate(self, platform):
        m = super().elaborate(platform)
        m.d.sync += self.i_egress.eq(self.o_ingress)     # a one-cycle "datapath"
        return m


def simulate(poly, words, width=8, ports=3, inject=None):
    dut = Wired(ports, width, latency=1)
    streams = [[] for _ in range(ports)]
    regs = {}

    async def bench(ctx):
        async def write(addr, value):
            ctx.set(dut.addr, addr)
            ctx.set(dut.wdata, value)
            ctx.set(dut.we, 1)
            await ctx.tick()
            ctx.set(dut.we, 0)

        async def read(addr):
            ctx.set(dut.addr, addr)
            ctx.set(dut.re, 1)
            await ctx.tick()
            ctx.set(dut.re, 0)
            return ctx.get(dut.rdata)

        await write(0x001, (poly == 31) | 2)
        await write(0x002, words)
        if inject is not None:
            await write(0x003, inject)
        for _ in range(words + 4):
            _, _, data = await ctx.tick().sample(dut.o_ingress)
            for k in range(ports):
                w = (data >> (k * width)) & ((1 << width) - 1)
                streams[k].append(w)
        regs["words"] = [await read(0x400 + e) for e in range(ports)]
        regs["errors"] = [await read(0x800 + e) for e in range(ports)]

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return streams, regs


def bits_of(words, width):
    return [(w >> i) & 1 for w in words for i in range(width)]


@pytest.mark.parametrize("poly", [7, 31])
def test_generators_follow_the_recurrence_and_checkers_count(poly):
    words, width = 300, 8
    streams, regs = simulate(poly, words, width)
    L, t = TAPS[poly]
    for s in streams:
        b = bits_of(s[:words - 4], width)
        assert any(b)
        assert all(b[n] == b[n - L] ^ b[n - t] for n in range(L, len(b)))
    assert regs["words"] == [words] * 3 and regs["errors"] == [0] * 3


def test_prbs7_period():
    streams, _ = simulate(7, 300, width=1, ports=1)
    b = streams[0][:296]
    assert b[:127] == b[127:254] and b[:126] != b[1:127]   # 127 is prime: the period is exactly 127


def test_injected_bit_costs_one_to_three_error_words():
    _, regs = simulate(31, 200, inject=1)
    assert regs["errors"][0] == 0 and regs["errors"][2] == 0 and 1 <= regs["errors"][1] <= 3
