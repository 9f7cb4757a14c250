"""RegisterDecode: a block's logic addresses its registers by name; the
decode hits exactly the declared offsets (simulated), and elaboration fails
when a declared register is not decoded or an undeclared one is used."""

import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from permnet.gen.errors import PermnetError
from permnet.gen.hil import regmap as R
from permnet.hdl.hil.csr import RegisterDecode
from permnet.hdl.hil.top import DESIGNS, HilTop

REGS = [R.Register("t", "ctrl", 0x001, "RW"), R.Register("t", "push", 0x010, "W", 8, window=True),
        R.Register("t", "tab", 0x100, "RO", 5, array=True)]


def test_decode_by_name_hits_the_declared_offsets():
    m = Module()
    off, we, re, wdata, rdata = Signal(12), Signal(), Signal(), Signal(32), Signal(32)
    ctrl, pushes = Signal(32), Signal(8)
    regs = RegisterDecode(m, REGS, off=off, we=we, re=re, rdata=rdata)
    with m.If(regs.write("ctrl")):
        m.d.sync += ctrl.eq(wdata)
    with m.If(regs.write("push")):
        m.d.sync += pushes.eq(pushes + 1)
    with m.If(re):
        m.d.sync += rdata.eq(0)
    regs.read({"ctrl": ctrl, "tab": [100 + k for k in range(5)]})
    regs.check()
    got = {}

    async def bench(ctx):
        async def write(a, v):
            ctx.set(off, a)
            ctx.set(wdata, v)
            ctx.set(we, 1)
            await ctx.tick()
            ctx.set(we, 0)

        async def read(a):
            ctx.set(off, a)
            ctx.set(re, 1)
            await ctx.tick()
            ctx.set(re, 0)
            return ctx.get(rdata)

        for a in [0x000, 0x002, 0x00F, 0x018, 0x0FF]:       # around the registers: nothing happens
            await write(a, 0xBAD)
        got["before"] = (await read(0x001), ctx.get(pushes))
        await write(0x001, 0x1234)
        for a in range(0x010, 0x018):                       # every address of the window pushes
            await write(a, 1)
        got["ctrl"] = await read(0x001)
        got["pushes"] = ctx.get(pushes)
        got["tab"] = [await read(0x100 + k) for k in range(5)]
        got["outside"] = [await read(a) for a in (0x105, 0x010, 0x000)]

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got["before"] == (0, 0)
    assert got["ctrl"] == 0x1234 and got["pushes"] == 8
    assert got["tab"] == [100, 101, 102, 103, 104]
    assert got["outside"] == [0, 0, 0]


def test_undecoded_or_undeclared_registers_fail():
    m = Module()
    sig = dict(off=Signal(12), we=Signal(), re=Signal(), rdata=Signal(32))
    regs = RegisterDecode(m, REGS, **sig)
    regs.write("ctrl")
    with pytest.raises(PermnetError, match=r"not decoded: ctrl \(read\), tab \(read\), push \(write\)"):
        regs.check()
    with pytest.raises(PermnetError, match="t_nope is not declared"):
        regs.write("nope")
    with pytest.raises(PermnetError, match="read-only"):
        regs.write("tab")


def test_every_design_decodes_its_whole_map():
    """Elaborating a top level runs every block's check() (the "all" design
    is elaborated by the HIL model build of tests/hil, the others here)."""
    from amaranth.back import rtlil

    assert set(DESIGNS) == set(R.DESIGNS)
    for design in ("crossbar", "benes", "nexthop"):
        rtlil.convert(HilTop(design, ports=4, width=4, size=4, slots=2, M=9, S=3))


def test_a_declared_block_without_logic_fails(monkeypatch):
    monkeypatch.setattr(R, "BLOCKS", dict(R.BLOCKS))
    monkeypatch.setattr(R, "BASES", dict(R.BASES))
    monkeypatch.setattr(R, "DESIGNS", {**R.DESIGNS, "probe": ("sys", "probe", "identifier_mem")})
    R.block("probe", 0xE000)(lambda: [R.reg("ctrl", 0x000, "RW")])
    from amaranth.back import rtlil

    with pytest.raises(PermnetError, match="block\\(s\\) probe of regmap.DESIGNS have no logic"):
        rtlil.convert(HilTop("probe"))
