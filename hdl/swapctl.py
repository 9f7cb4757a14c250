"""The drain protocol of a lossless plane swap (issue 24, item 4).

Melhem's planes are switches that get reconfigured (around faults, Section 4;
for an application, Sections 1 and 5). Changing a plane under a flit in flight
would deliver it to the wrong router or break the credit loop of its link (the
upstream credit counter counts the slots of the old downstream buffer). The
swap is therefore done on an empty network:

1. ``req`` (a cycle in which ``req`` is high and no swap is under way) starts
   a swap: from the next cycle ``pause`` is high, so no packet *starts*
   (the routers take no injection descriptor); packets already in a lane
   finish, and every flit in the network keeps moving.
2. The network *drains*: ``idle`` (from the routers: no flit in a buffer, a
   lane or a link stage) rises once the last flit has been ejected.
3. In the first paused cycle with ``idle`` high, ``commit`` is high: the plane
   set copies its shadow configuration into the active one and the routers
   copy their shadow route tables, at the same clock edge, so the new planes
   and the routes that go with them take effect together in the next cycle.
   Nothing moves in that cycle (no flit, no injection), and every credit
   counter is full, so any re-pairing of outputs and inputs is consistent.
4. From the next cycle ``pause`` is low again and ``done`` pulses for one
   cycle; ``cycles`` holds the swap's length.

Timing: a request in cycle t0 whose network is idle from cycle t_i on
commits in cycle ``t_c = max(t0 + 1, t_i)``, ``done`` is high in ``t_c + 1``
and ``cycles = t_c - t0`` (the cycles injection was paused; at least 1,
saturating at ``2**cycle_bits - 1``). With no ejection back-pressure the
network is idle the cycle after the last flit of the packets it held is
ejected, or once that flit's credit has passed the credit and plane registers. A request while a swap is under way is ignored; the shadow
configuration may be written before the request or during the drain, up to
the commit cycle (a write in the commit cycle lands in the shadow only).
:class:`permnet.hdl.netip.NetworkIP` feeds ``idle`` through a register per node
(each node's idle of the previous cycle, while paused), so in a network t_i is
the cycle after the first idle paused cycle.
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require

__all__ = ["SwapControl"]


class SwapControl(wiring.Component):
    """Ports: ``req`` (in), ``idle`` (in, the network holds no flit), ``pause`` (out, ``copies``
    bits, all equal: no new packet may start; one register per copy, each with the drain's
    next-state function of its own value, so a network gives each node its own and the
    signal does not fan out across the chip), ``commit`` (out, one cycle: shadow -> active everywhere),
    ``draining`` (out, a swap is under way; equal to ``pause``), ``done`` (out, one-cycle
    pulse the cycle after the commit), ``cycles`` (out, the last swap's length). Timing in the
    module docstring."""

    def __init__(self, cycle_bits: int = 16, copies: int = 1):
        require(1 <= cycle_bits <= 32, f"swap cycle counter must be 1..32 bits, got {cycle_bits}")
        require(copies >= 1, f"copies must be >= 1, got {copies}")
        super().__init__({"req": In(1), "idle": In(1), "pause": Out(copies), "commit": Out(1), "draining": Out(1),
                          "done": Out(1), "cycles": Out(cycle_bits)})

    def elaborate(self, platform):
        m = Module()
        draining = Signal()
        count = Signal.like(self.cycles)
        top = (1 << len(count)) - 1
        m.d.comb += [self.draining.eq(draining), self.commit.eq(draining & self.idle)]
        for p in self.pause:        # draining's next state (below), each copy from its own value
            m.d.sync += p.eq(Mux(p, ~self.idle, self.req))
        m.d.sync += self.done.eq(self.commit)
        with m.If(~draining):
            with m.If(self.req):
                m.d.sync += [draining.eq(1), count.eq(1)]
        with m.Elif(self.idle):
            m.d.sync += [draining.eq(0), self.cycles.eq(count)]
        with m.Else():
            m.d.sync += count.eq(Mux(count == top, top, count + 1))
        return m
