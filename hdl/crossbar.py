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

With K > 1 the K configurations of egress e are kept in a small RAM of two
banks (distributed RAM on an FPGA, no flip-flop per configuration bit): the
active bank is read at the current slot, the ``cfg`` stream fills the other
bank, and commit flips the bank bit.  With K = 1 the configuration is in
flip-flops (active and shadow).

With K > 1 the plane steps through its K configurations, slot s lasting
``duration[s]`` cycles (0 counts as 1), restarting from slot 0 at commit.
Model: :func:`permnet.sim.reference.crossbar`.

Timing (also written into the Verilog header, :data:`TIMING_NOTES`):

* with K > 1, ``commit`` is ignored (no error, nothing changes) until *both*
  streams are complete: all K*N ``cfg`` words and all K ``dur`` words.  A
  host that streams only the configuration and pulses ``commit`` sees no
  change; wait for ``o_loaded`` = 1 before the pulse;
* ``o_slot`` shows the slot whose configuration selects the value that
  ``o_data`` takes at the next clock edge: ``o_data`` in cycle t+1 is
  ingress ``select[o_slot(t)][e]`` of ``i_data`` in cycle t;
* the clock edge that takes ``commit`` still uses the old configuration; from
  the next cycle ``o_slot`` = 0 under the new configuration, for
  max(duration[0], 1) cycles, then 1, ...;
* a disabled egress (``enable`` = 0) outputs 0 (registered like the rest).
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Module, Mux, Signal
from amaranth.lib.memory import Memory
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.hdl.datapath import bits, shadow_loader
from permnet.hdl.muxtree import mux_ecp5

__all__ = ["CrossbarPlane", "DUR_BITS", "TIMING_NOTES", "entry_layout", "stream_words"]

TIMING_NOTES = [
    "commit: ignored until every cfg word (K*N) and, with K > 1 slots, every one of the K dur words",
    "  has been streamed (o_loaded = 1); pulse commit only while o_loaded is high.",
    "o_slot: the slot whose configuration selects o_data at the next clock edge",
    "  (o_data in cycle t+1 = ingress select[o_slot(t)][e] of i_data in cycle t).",
    "After the commit edge: slot 0 of the new configuration for max(dur[0],1) cycles, then slot 1, ...",
    "A disabled egress (enable = 0) outputs 0, registered like the others.",
]

DUR_BITS = 16


def entry_layout(ports: int) -> data.StructLayout:
    return data.StructLayout({"ingress": bits(ports - 1), "enable": 1})


def stream_words(selects, ports: int) -> list[int]:
    """The ``cfg`` stream beats for configurations given as per-egress
    ingress lists (-1 = disabled): ``enable << ingress_bits | ingress``."""
    b = bits(ports - 1)
    return [((1 << b) | s) if s >= 0 else 0 for sel in selects for s in sel]


class CrossbarPlane(wiring.Component):
    #: ``"ecp5"``: the output multiplexers as hand-mapped ECP5 cells
    #: (:mod:`permnet.hdl.muxtree`, synthesis only, 0.5 LUT4 per crosspoint bit at 16
    #: ports, 0.53 at 32); None: plain Amaranth (simulators, any family).  Set on an
    #: instance before elaboration.
    cells = None

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

    @property
    def notes(self) -> list[str]:
        """Lines for the Verilog header comment (timing of commit and o_slot)."""
        return list(TIMING_NOTES)

    def elaborate(self, platform):
        m = Module()
        N, W, K = self.ports, self.width, self.slots
        layout = entry_layout(N)

        def entry(s):
            return {"ingress": max(s, 0), "enable": int(s >= 0)}

        dur_act = Array(Signal(DUR_BITS, name=f"dur_{k}", init=self.durations[k]) for k in range(K))
        dur_shd = Array(Signal(DUR_BITS, name=f"dsh_{k}") for k in range(K))
        slot = Signal(bits(K - 1), name="slot")
        if K > 1:
            # TDM: the K configurations of egress e live in a small RAM of two
            # banks (distributed RAM on FPGAs, no flip-flop per configuration
            # bit): the active bank is read at the current slot, the stream
            # fills the other one, and commit flips the bank bit.
            bank = Signal(name="bank")
            ld_slot = Signal(bits(K - 1), name="cfg_slot")
            ld_eg = Signal(bits(N - 1), name="cfg_egress")
            cfg_done = Signal(name="cfg_done")
            m.d.comb += self.cfg.ready.eq(~cfg_done)
            take = self.cfg.valid & self.cfg.ready
            sb = bits(K - 1)
            selects = []
            for e in range(N):
                mem = Memory(shape=layout.as_shape().width, depth=2 << sb,
                             init=[layout.const(entry(self.init[k][e])).as_value().value if k < K else 0
                                   for k in range(1 << sb)])
                m.submodules[f"cfgram_{e}"] = mem
                wp = mem.write_port()
                rp = mem.read_port(domain="comb")
                m.d.comb += [wp.addr.eq(Cat(ld_slot, ~bank)), wp.data.eq(self.cfg.payload.as_value()),
                             wp.en.eq(take & (ld_eg == e)), rp.addr.eq(Cat(slot, bank))]
                selects.append(layout(rp.data))
            with m.If(take):
                with m.If(ld_eg == N - 1):
                    m.d.sync += ld_eg.eq(0)
                    with m.If(ld_slot == K - 1):
                        m.d.sync += [ld_slot.eq(0), cfg_done.eq(1)]
                    with m.Else():
                        m.d.sync += ld_slot.eq(ld_slot + 1)
                with m.Else():
                    m.d.sync += ld_eg.eq(ld_eg + 1)
        else:
            active = [Signal(layout, name=f"act_0_{e}", init=entry(self.init[0][e])) for e in range(N)]
            shadow = Array(Signal(layout, name=f"shd_{i}") for i in range(N))
            cfg_done = shadow_loader(m, self.cfg, shadow, N, "cfg")
            selects = active

        # loading the shadow copy
        if K > 1:
            dur_done = shadow_loader(m, self.dur, dur_shd, K, "dur")
            loaded = cfg_done & dur_done
        else:
            loaded = cfg_done
        m.d.comb += self.o_loaded.eq(loaded)

        # TDM slot counter
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
            if K > 1:
                m.d.sync += bank.eq(~bank)
            else:
                m.d.sync += [active[e].eq(shadow[e]) for e in range(N)]
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
            sel = selects[e]
            if self.cells == "ecp5":
                # hand-mapped N:1 per bit (LUT4 + PFUMX + L6MUX21); the enable
                # becomes the register's synchronous reset
                ing = Signal(bits(N - 1), name=f"ing_{e}")
                en = Signal(name=f"en_{e}")
                m.d.comb += [ing.eq(sel.ingress), en.eq(sel.enable)]
                for k in range(W):
                    z = mux_ecp5(m, [self.i_data[i * W + k] for i in range(N)], ing, f"x{e}_{k}")
                    m.d.sync += self.o_data[e * W + k].eq(z & en)
                continue
            with m.If(sel.enable):
                m.d.sync += self.o_data[e * W:(e + 1) * W].eq(inputs[sel.ingress])
            with m.Else():
                m.d.sync += self.o_data[e * W:(e + 1) * W].eq(0)
        return m
