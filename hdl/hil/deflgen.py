"""Live traffic and counters around a network of deflection routers (issue 41):
the ``network`` HIL design with ``switching="deflection"``.

:class:`DeflectionGen` is :class:`permnet.hdl.hil.netgen.NetworkGen` with
:class:`permnet.hdl.deflect_net.DeflectionNetwork` (wire planes) in place of
the VC network IP: the same generators (:class:`permnet.hdl.hil.netgen.TrafficGen`),
the same bypassed source queues, the same ports and counters
(:data:`permnet.hdl.hil.netgen.COUNTERS`), so the ``netgen`` register block and
the host (:mod:`permnet.hil.netrun`) are unchanged. What differs:

* packets are single flits (deflection routing); the ``size`` port is ignored
  and every packet counts one flit;
* the flit carries ``Cat(t0, dst, data)`` in the router's payload: the
  creation cycle (latency), the destination (``misdelivered``) and ``W`` bits
  of :func:`permnet.hdl.hil.netgen.payload_of` ``(t0, 0)`` (``payload_errors``);
* every ejection port's ``ready`` is high: a flit ejected in cycle t is
  counted in its handshake cycle t + 1, latency ``t + 2 - t0`` (creation to
  the end of the handshake's cycle, as
  :func:`permnet.sim.netsim.deflect.deflection_trace` and netsim count it).

Counters of cycle c are visible from c + 1; ``clear`` resets the routers,
the queues, the cycle and the counters; ``hold`` stops the cycle counter and
the generators (the routers keep running: an idle network stays idle).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, ResetInserter, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.hil.netgen import RATE_BITS
from permnet.hdl.deflect_net import DeflectionNetwork
from permnet.hdl.hil.netgen import COUNTERS, _tree, payload_of, run_window
from permnet.hdl.router import bits

__all__ = ["DeflectionGen"]


class DeflectionGen(wiring.Component):
    """The deflection network of ``planes`` (S x M wire planes) with a generator, a
    ``queue``-deep source queue and the counters :data:`COUNTERS` per node (module doc).
    ``ejection`` (E) and ``stages`` (P) are :class:`permnet.hdl.deflect_net.DeflectionNetwork`'s;
    ``flit_width`` the checked payload bits (0: none).

    Ports: those of :class:`permnet.hdl.hil.netgen.NetworkGen` (``clear``, ``hold``,
    ``pattern``, ``rate``, ``size`` (ignored), ``seed``, ``hot``, ``hot_frac``, ``start``,
    ``stop``, ``perm[n]``; out ``cycle`` and ``<counter>[n]``)."""

    switching = "deflection"

    def __init__(self, planes, *, ejection: int = 2, stages: int = 1, flit_width: int = 0, queue: int = 16,
                 cycle_bits: int = 32, counter_bits: int = 32):
        require(queue >= 1, f"queue must be >= 1 descriptor, got {queue}")
        require(cycle_bits >= 8 and counter_bits >= 8, "cycle and counter widths must be >= 8 bits")
        M = len(planes[0])
        self.nb, self.cb, self.cw, self.W, self.Q = bits(M - 1), cycle_bits, counter_bits, flit_width, queue
        self.net = DeflectionNetwork(planes, ejection=ejection, width=cycle_bits + self.nb + flit_width,
                                     stages=stages)
        self.M, self.S, self.E, self.P = self.net.M, self.net.S, self.net.E, self.net.P
        self.zb = 8
        members = {"clear": In(1), "hold": In(1), "pattern": In(3), "rate": In(RATE_BITS + 1), "size": In(self.zb),
                   "seed": In(64), "hot": In(self.nb), "hot_frac": In(RATE_BITS + 1), "start": In(cycle_bits),
                   "stop": In(cycle_bits), "perm": In(self.nb).array(M), "cycle": Out(cycle_bits)}
        members |= {name: Out(counter_bits).array(M) for name in COUNTERS}
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        M, net, cb, nb, W = self.M, self.net, self.cb, self.nb, self.W
        m.submodules.net = ResetInserter({"sync": self.clear})(net)
        cycle, active, count = run_window(m, self, M)
        for n, g in enumerate(self.gens):
            # the source queue, bypassed when empty: a new descriptor reaches inj in its creation cycle
            q = SyncFIFO(width=nb + cb, depth=self.Q)
            m.submodules[f"queue{n}"] = ResetInserter({"sync": self.clear})(q)
            new = Cat(g.dst, cycle)
            front = Signal(nb + cb, name=f"front{n}")
            m.d.comb += front.eq(Mux(q.r_rdy, q.r_data, new))
            dst, t0 = front[:nb], front[nb:]
            inj = net.inj[n]
            data = [payload_of(t0, Const(0, 1), W)] if W else []
            m.d.comb += [inj.valid.eq(q.r_rdy | g.valid), inj.payload.dst.eq(dst),
                         inj.payload.payload.eq(Cat(t0, dst, *data)),
                         q.r_en.eq(inj.ready), q.w_data.eq(new), q.w_en.eq(g.valid & (q.r_rdy | ~inj.ready))]
            c = {name: count[name][n] for name in COUNTERS}
            took = inj.valid & inj.ready
            upd = {"gen_packets": c["gen_packets"] + g.valid,
                   "dropped": c["dropped"] + (q.w_en & ~q.w_rdy),
                   "inj_packets": c["inj_packets"] + took, "inj_flits": c["inj_flits"] + took}
            ejs = list(net.ej[n])
            m.d.comb += [e.ready.eq(1) for e in ejs]
            got = [e.valid for e in ejs]
            f_t0 = [e.payload.payload[:cb] for e in ejs]
            f_dst = [e.payload.payload[cb:cb + nb] for e in ejs]
            lats = [Mux(v, (cycle + 1 - t)[:cb], 0) for v, t in zip(got, f_t0)]
            upd["ej_packets"] = c["ej_packets"] + _tree(got, lambda a, b: a + b)
            upd["ej_flits"] = c["ej_flits"] + _tree(got, lambda a, b: a + b)
            upd["lat_sum"] = c["lat_sum"] + _tree(lats, lambda a, b: a + b)
            upd["lat_max"] = _tree([c["lat_max"]] + lats, lambda a, b: Mux(a > b, a, b))
            upd["misdelivered"] = c["misdelivered"] + _tree(
                [v & (d != n) for v, d in zip(got, f_dst)], lambda a, b: a + b)
            if W:
                upd["payload_errors"] = c["payload_errors"] + _tree(
                    [v & (e.payload.payload[cb + nb:] != payload_of(t, Const(0, 1), W))
                     for v, e, t in zip(got, ejs, f_t0)], lambda a, b: a + b)
            for name in COUNTERS:
                m.d.comb += getattr(self, name)[n].eq(c[name])
                if name in upd:
                    m.d.sync += c[name].eq(upd[name])
        with m.If(self.clear):
            m.d.sync += [cycle.eq(0)] + [s.eq(0) for name in COUNTERS for s in count[name]]
        return m
