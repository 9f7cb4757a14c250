"""Real (seconds-long) yosys + nextpnr runs of tiny designs: distributed RAM on the ECP5 and the
constrained clock pin on both targets.

The ECP5's logic tile (PLC) has 4 SLICEs of 2 LUT4s. A TRELLIS_DPR16X4 (16 words x 4 bits,
one asynchronous read port) keeps its 64 bits in the four LUT4s of SLICEs A and B and its
write port (TRELLIS_RAMW) in SLICE C, whose two LUT4s can then hold nothing else: it takes
6 LUT4 sites. A memory of W bits x 16 words with R asynchronous read ports needs
ceil(W / 4) DPR16X4 per read port (one read port each, so each read port gets a copy)."""

import functools

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

import permnet.hdl.synth as synth

DPR_WORDS, DPR_BITS, DPR_SITES = 16, 4, 2 + 2 + 2


class AsyncReadMemory(wiring.Component):
    """``Memory(shape=width, depth=16)``: one write port and ``reads`` comb (asynchronous) read ports."""

    def __init__(self, width, reads):
        self.width, self.reads = width, reads
        super().__init__({"waddr": In(4), "wdata": In(width), "we": In(1),
                          "raddr": In(4).array(reads), "rdata": Out(width).array(reads)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=self.width, depth=DPR_WORDS, init=[])
        w = mem.write_port()
        m.d.comb += [w.addr.eq(self.waddr), w.data.eq(self.wdata), w.en.eq(self.we)]
        for i in range(self.reads):
            r = mem.read_port(domain="comb")
            m.d.comb += [r.addr.eq(self.raddr[i]), self.rdata[i].eq(r.data)]
        return m


@functools.cache
def synthesized(width, reads, target):
    """``synth.synthesize`` of ``AsyncReadMemory(width, reads)``: one run (3 to 4 s of yosys and
    nextpnr) for both tests of the 8-bit ECP5 memory."""
    return synth.synthesize(AsyncReadMemory(width, reads), target)


@pytest.mark.parametrize("reads", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_an_async_read_memory_is_dpr16x4_cells_and_their_lut4_sites(reads):
    width = 8
    r = synthesized(width, reads, "ecp5")
    cells = reads * -(-width // DPR_BITS)
    assert r["lutram"] == cells
    # luts (the placed LUT4 sites less the output chain) hold at least the RAM's sites
    assert r["luts"] >= DPR_SITES * cells
    assert "fits" not in r and r["fmax_mhz"] is not None


@pytest.mark.parametrize("target,pin", [("ecp5", "G2"), pytest.param("ice40", "35", marks=pytest.mark.slow)])
def test_nextpnr_places_clk_on_the_boards_clock_pin(target, pin):
    """nextpnr's log names the Bel it gave the constrained ``clk`` (so the constraint matched a cell)."""
    r = synthesized(8 if target == "ecp5" else 4, 1, target)      # the ECP5's: the memory above
    assert r["clk_pin"] == pin and r["clk_bel"]
