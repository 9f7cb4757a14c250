"""Beneš (or Waksman) network of 2x2 switch cells, any size N >= 2.

The structure is the one :mod:`permnet.gen.routing.benes` routes: the same stages,
the same switch positions, the same links, so the settings the router
writes load unchanged.

Ports (Verilog names): ``i_data``/``o_data`` (N*W bits, port k in bits
[k*W, (k+1)*W)); ``cfg`` (``cfg__payload``/``__valid``/``__ready``) takes one
word per stage, stage 0 first, of floor(N/2) bits with bit j the state of
the stage's j-th switch -- exactly the lines of ``config.hex`` written by
``permnet benes -o``; ``commit`` makes the loaded words active once all
stages have arrived (``o_loaded``).

``pipeline_mask`` bit s puts a register after stage s; the latency is the
number of set bits (0: combinational).  The stage configurations travel
through the same registers as the data, so a word that entered under one
configuration leaves under that configuration even when a commit happens
while it is in flight: a new configuration follows the old one without a
bubble.  Model: :func:`permnet.sim.reference.benes_outputs`.
"""

from __future__ import annotations

import numpy as np
from amaranth.hdl import Array, Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.routing import benes as router
from permnet.hdl.datapath import shadow_loader
from permnet.hdl.muxtree import lut_mux2

__all__ = ["BenesNetwork", "layout"]


def layout(size: int, network: str = "benes"):
    """(switch first positions per stage, links) of the N-wire network."""
    r = router.route(np.arange(size), network)
    return [r.stage_switches(s).tolist() for s in range(r.stages)], router.links(r)


class BenesNetwork(wiring.Component):
    #: ``"ecp5"``: every switch output bit a hand-placed LUT4 2:1 multiplexer
    #: (synthesis only: 2 LUT4 per switch per bit exactly).  yosys's default
    #: ECP5 mapping folds the chains of 2:1 multiplexers into wide LUT5-LUT7
    #: functions (PFUMX/L6MUX21) that duplicate shared stages: 8x8, 8 bits
    #: takes 1081 LUT4 + 410 PFUMX + 243 L6MUX21 there against 398 LUT4 with
    #: ``-nowidelut`` and 399 on iCE40, which has no wide functions.
    cells = None

    def __init__(self, size: int, width: int, *, network: str = "benes", pipeline_mask: int = 0, init=None):
        require(isinstance(size, int) and size >= 2, f"size must be >= 2, got {size}")
        require(isinstance(width, int) and width >= 1, f"width must be >= 1, got {width}")
        require(network in router.NETWORKS, f"unknown network {network!r}")
        self.size, self.width, self.network = size, width, network
        self.switches, self.links = layout(size, network)
        self.stages = len(self.switches)
        require(isinstance(pipeline_mask, int) and 0 <= pipeline_mask < (1 << self.stages),
                f"pipeline mask {pipeline_mask:#x} is longer than the {self.stages} stages")
        self.pipeline_mask = pipeline_mask
        self.word_bits = max(1, size // 2)
        self.init = init if init is not None else [0] * self.stages
        super().__init__({"i_data": In(size * width), "o_data": Out(size * width),
                          "cfg": In(stream.Signature(self.word_bits)), "commit": In(1), "o_loaded": Out(1)})

    @property
    def latency(self) -> int:
        return bin(self.pipeline_mask).count("1")

    def elaborate(self, platform):
        m = Module()
        N, W, S = self.size, self.width, self.stages
        shadow = Array(Signal(self.word_bits, name=f"shd_{s}") for s in range(S))
        active = [Signal(self.word_bits, name=f"act_{s}", init=self.init[s]) for s in range(S)]
        loaded = shadow_loader(m, self.cfg, shadow, S, "cfg")
        m.d.comb += self.o_loaded.eq(loaded)
        with m.If(self.commit & loaded):
            m.d.sync += [a.eq(shadow[s]) for s, a in enumerate(active)]
            m.d.sync += loaded.eq(0)

        wires = [self.i_data[k * W:(k + 1) * W] for k in range(N)]
        cfg = list(active)   # cfg[s]: the word stage s applies to the data at hand
        for s in range(S):
            out = list(wires)
            for j, p in enumerate(self.switches[s]):
                a, b = Signal(W, name=f"s{s}_{p}_a"), Signal(W, name=f"s{s}_{p}_b")
                if self.cells == "ecp5":
                    # one LUT4 per output bit (Z = C ? B : A); abc never sees
                    # the chain, so it cannot fold stages into wide functions
                    x = Signal(name=f"s{s}_{p}_x")
                    m.d.comb += x.eq(cfg[s][j])
                    for k in range(W):
                        m.d.comb += [a[k].eq(lut_mux2(m, wires[p][k], wires[p + 1][k], x, f"s{s}_{p}_a{k}")),
                                     b[k].eq(lut_mux2(m, wires[p + 1][k], wires[p][k], x, f"s{s}_{p}_b{k}"))]
                else:
                    with m.If(cfg[s][j]):
                        m.d.comb += [a.eq(wires[p + 1]), b.eq(wires[p])]
                    with m.Else():
                        m.d.comb += [a.eq(wires[p]), b.eq(wires[p + 1])]
                out[p], out[p + 1] = a, b
            if self.pipeline_mask >> s & 1:
                regs = [Signal(W, name=f"r{s}_{k}") for k in range(N)]
                m.d.sync += [r.eq(v) for r, v in zip(regs, out)]
                out = regs
                later = [Signal(self.word_bits, name=f"c{s}_{t}") for t in range(s + 1, S)]
                m.d.sync += [r.eq(cfg[t]) for r, t in zip(later, range(s + 1, S))]
                cfg = cfg[:s + 1] + later
            if s < S - 1:
                moved = [None] * N
                for p in range(N):
                    moved[int(self.links[s][p])] = out[p]
                out = moved
            wires = out
        m.d.comb += self.o_data.eq(Cat(*wires))
        return m
