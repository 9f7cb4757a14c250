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

The columns and links are also functions (:func:`switch_stage`,
:func:`relink`, :func:`traverse`) for other tops: :class:`permnet.hdl.planes.PlaneSet`
runs the same network backwards for its credit path (the inverse permutation).
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

__all__ = ["BenesNetwork", "layout", "switch_stage", "relink", "traverse"]


def layout(size: int, network: str = "benes"):
    """(switch first positions per stage, links) of the N-wire network."""
    r = router.route(np.arange(size), network)
    return [r.stage_switches(s).tolist() for s in range(r.stages)], router.links(r)


def switch_stage(m, wires, firsts, word, cells=None, name="s"):
    """One column of 2x2 switches: the switch j on positions (p, p+1),
    p = ``firsts[j]``, swaps its two wires when bit j of ``word`` is 1.
    Returns the N wires after the column (positions without a switch pass).
    ``cells == "ecp5"``: every output bit one hand-placed LUT4 2:1 mux."""
    W = len(wires[0])
    out = list(wires)
    for j, p in enumerate(firsts):
        a, b = Signal(W, name=f"{name}_{p}_a"), Signal(W, name=f"{name}_{p}_b")
        if cells == "ecp5":
            # one LUT4 per output bit (Z = C ? B : A); abc never sees
            # the chain, so it cannot fold stages into wide functions
            x = Signal(name=f"{name}_{p}_x")
            m.d.comb += x.eq(word[j])
            for k in range(W):
                m.d.comb += [a[k].eq(lut_mux2(m, wires[p][k], wires[p + 1][k], x, f"{name}_{p}_a{k}")),
                             b[k].eq(lut_mux2(m, wires[p + 1][k], wires[p][k], x, f"{name}_{p}_b{k}"))]
        else:
            with m.If(word[j]):
                m.d.comb += [a.eq(wires[p + 1]), b.eq(wires[p])]
            with m.Else():
                m.d.comb += [a.eq(wires[p]), b.eq(wires[p + 1])]
        out[p], out[p + 1] = a, b
    return out


def relink(wires, links_row, inverse=False):
    """The wires after the links between two stages: position p moves to
    ``links_row[p]`` (``inverse``: back from there)."""
    if inverse:
        return [wires[int(links_row[p])] for p in range(len(wires))]
    moved = [None] * len(wires)
    for p, q in enumerate(links_row):
        moved[int(q)] = wires[p]
    return moved


def traverse(m, switches, links, wires, words, cells=None, *, reverse=False, name="b"):
    """The N wires through the whole network, combinationally, stage s set
    by ``words[s]``.  Forward: input i leaves at output P(i), P the
    permutation the words were routed for.  ``reverse``: enter at the
    outputs and go back through the same stages in reverse order with the
    same settings; the wire entering at output m leaves at input P^-1(m).

    Why the reverse is the inverse: as a map of wire positions (applied
    right to left) the T-stage network is
    P = X_{T-1} L_{T-2} X_{T-2} ... L_0 X_0, with X_s the permutation the
    switches of stage s apply and L_s the links after stage s.  A 2x2
    switch, straight or crossed, is an involution and the switches of a
    stage touch disjoint pairs, so X_s^-1 = X_s and
    P^-1 = X_0 L_0^-1 X_1 ... L_{T-2}^-1 X_{T-1}: stage T-1 first, then the
    links undone, ..., stage 0 last, every stage with its own setting --
    which is the reverse traversal.  So the backward word entering at
    output P(n) leaves at input n."""
    order = range(len(switches) - 1, -1, -1) if reverse else range(len(switches))
    last = len(switches) - 1
    for s in order:
        if reverse and s < last:
            wires = relink(wires, links[s], inverse=True)
        wires = switch_stage(m, wires, switches[s], words[s], cells, f"{name}{s}")
        if not reverse and s < last:
            wires = relink(wires, links[s])
    return wires


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
            out = switch_stage(m, wires, self.switches[s], cfg[s], self.cells, f"s{s}")
            if self.pipeline_mask >> s & 1:
                regs = [Signal(W, name=f"r{s}_{k}") for k in range(N)]
                m.d.sync += [r.eq(v) for r, v in zip(regs, out)]
                out = regs
                later = [Signal(self.word_bits, name=f"c{s}_{t}") for t in range(s + 1, S)]
                m.d.sync += [r.eq(cfg[t]) for r, t in zip(later, range(s + 1, S))]
                cfg = cfg[:s + 1] + later
            wires = relink(out, self.links[s]) if s < S - 1 else out
        m.d.comb += self.o_data.eq(Cat(*wires))
        return m
