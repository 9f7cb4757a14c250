"""N x N crossbar plane with a shadow configuration and optional TDM slots.

Ports (Verilog names in brackets):

* ``i_data`` (``i_data``): N*W bits, ingress port k in bits [k*W, (k+1)*W);
* ``o_data`` (``o_data``): N*W bits, egress port e, **registered**: one cycle
  after ``i_data``, egress e carries ingress ``select[e]`` (0 when disabled);
* ``cfg`` (``cfg__payload``, ``cfg__valid``, ``cfg__ready``): a
  ``lib.stream`` of ``{ingress, enable}`` words, one per egress port,
  egress 0 first, slot 0 first (K*N words);
* ``dur`` (``dur__*``, only when K > 1): K slot durations in cycles;
* ``commit`` (``commit``): a one-cycle pulse that makes the loaded shadow
  configuration active at once; ignored until a full configuration (and all
  durations) has been loaded, so traffic never sees a half-loaded plane;
* ``o_loaded`` (``o_loaded``): a full shadow configuration waits for commit
  (the streams are not ready meanwhile);
* ``o_slot`` (``o_slot``): the active TDM slot.

With K > 1 the plane steps through its K configurations, slot s lasting
``duration[s]`` cycles (0 counts as 1), restarting from slot 0 at commit.
Model: :func:`permnet.sim.reference.crossbar`.
"""

from __future__ import annotations

from amaranth.hdl import Array, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.hdl.datapath import bits, shadow_loader

__all__ = ["CrossbarPlane", "DUR_BITS", "entry_layout", "stream_words"]

DUR_BITS = 16


def entry_layout(ports: int) -> data.StructLayout:
    return data.StructLayout({"ingress": bits(ports - 1), "enable": 1})


def stream_words(selects, ports: int) -> list[int]:
    """The ``cfg`` stream beats for configurations given as per-egress
    ingress lists (-1 = disabled): ``enable << ingress_bits | ingress``."""
    b = bits(ports - 1)
    return [((1 << b) | s) if s >= 0 else 0 for sel in selects for s in sel]


class CrossbarPlane(wiring.Component):
    def __init__(self, ports: int, width: int, *, slots: int = 1, init=None, durations=None):
        require(isinstance(ports, int) and ports >= 2, f"ports must be >= 2, got {ports}")
        require(isinstance(width, int) and width >= 1, f"width must be >= 1, got {width}")
        require(isinstance(slots, int) and slots >= 1, f"slots must be >= 1, got {slots}")
        self.ports, self.width, self.slots = ports, width, slots
        self.init = init if init is not None else [list(range(ports))] * slots
        require(len(self.init) == slots and all(len(s) == ports for s in self.init),
                f"init needs {slots} configurations of {ports} entries")
        self.durations = durations if durations is not None else [1] * slots
        members = {
            "i_data": In(ports * width), "o_data": Out(ports * width),
            "cfg": In(stream.Signature(entry_layout(ports))),
            "commit": In(1), "o_loaded": Out(1), "o_slot": Out(bits(slots - 1)),
        }
        if slots > 1:
            members["dur"] = In(stream.Signature(DUR_BITS))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        N, W, K = self.ports, self.width, self.slots
        layout = entry_layout(N)

        def entry(s):
            return {"ingress": max(s, 0), "enable": int(s >= 0)}

        active = Array(Array(Signal(layout, name=f"act_{k}_{e}", init=entry(self.init[k][e])) for e in range(N))
                       for k in range(K))
        shadow = Array(Signal(layout, name=f"shd_{i}") for i in range(K * N))
        dur_act = Array(Signal(DUR_BITS, name=f"dur_{k}", init=self.durations[k]) for k in range(K))
        dur_shd = Array(Signal(DUR_BITS, name=f"dsh_{k}") for k in range(K))

        # loading the shadow copy
        cfg_done = shadow_loader(m, self.cfg, shadow, K * N, "cfg")
        if K > 1:
            dur_done = shadow_loader(m, self.dur, dur_shd, K, "dur")
            loaded = cfg_done & dur_done
        else:
            loaded = cfg_done
        m.d.comb += self.o_loaded.eq(loaded)

        # TDM slot counter
        slot = Signal(bits(K - 1), name="slot")
        remaining = Signal(DUR_BITS, name="remaining", init=max(self.durations[0], 1) - 1)
        m.d.comb += self.o_slot.eq(slot)
        if K > 1:
            nxt = Signal(bits(K - 1), name="slot_next")
            m.d.comb += nxt.eq(Mux(slot == K - 1, 0, slot + 1))
            with m.If(remaining == 0):
                m.d.sync += slot.eq(nxt)
                with m.If(dur_act[nxt] == 0):
                    m.d.sync += remaining.eq(0)
                with m.Else():
                    m.d.sync += remaining.eq(dur_act[nxt] - 1)
            with m.Else():
                m.d.sync += remaining.eq(remaining - 1)

        # commit: the whole shadow becomes active in one cycle
        with m.If(self.commit & loaded):
            for k in range(K):
                for e in range(N):
                    m.d.sync += active[k][e].eq(shadow[k * N + e])
            m.d.sync += cfg_done.eq(0)
            if K > 1:
                m.d.sync += [dur_act[k].eq(dur_shd[k]) for k in range(K)]
                m.d.sync += [dur_done.eq(0), slot.eq(0)]
                with m.If(dur_shd[0] == 0):
                    m.d.sync += remaining.eq(0)
                with m.Else():
                    m.d.sync += remaining.eq(dur_shd[0] - 1)

        # registered output multiplexers
        inputs = Array(self.i_data[k * W:(k + 1) * W] for k in range(N))
        for e in range(N):
            sel = active[slot][e] if K > 1 else active[0][e]
            with m.If(sel.enable):
                m.d.sync += self.o_data[e * W:(e + 1) * W].eq(inputs[sel.ingress])
            with m.Else():
                m.d.sync += self.o_data[e * W:(e + 1) * W].eq(0)
        return m
