"""Live traffic and counters around a network of deflection routers (issue 41):
the ``network`` HIL design with ``switching="deflection"``.

:class:`DeflectionGen` is :class:`permnet.hdl.hil.netgen.NetworkGen` with
:class:`permnet.hdl.deflect_net.DeflectionNetwork` (wire planes) in place of
the VC network IP: the same generators (:class:`permnet.hdl.hil.netgen.TrafficGen`),
the same bypassed source queues, the same ports and counters
(:data:`permnet.hdl.hil.netgen.COUNTERS`), so the ``netgen`` register block and
the host (:mod:`permnet.hil.netrun`) are unchanged. What differs:

* packets are single flits (deflection routing); the ``size`` port is ignored
  and every packet counts one flit: ``inj_flits`` is ``inj_packets`` and
  ``ej_flits`` is ``ej_packets`` by definition, so each pair is one register
  read at both names;
* the flit carries ``Cat(t0 mod 2^k, dst, data)`` in the router's payload: the
  creation cycle's low ``k = stamp_bits`` bits (latency, below), the destination
  (``misdelivered``: the router's ejection ports give ``src`` and the payload,
  not ``dst``, so the payload keeps its own copy) and ``W`` bits of
  :func:`permnet.hdl.hil.netgen.payload_of` ``(t0 mod 2^k, 0)`` (``payload_errors``);
  so ``k + log2 M + W`` payload bits (+ 1 epoch bit with run-time planes), not
  ``cycle_bits + log2 M + W``: every router datapath multiplexer and link register
  is that much narrower;
* every ejection port's ``ready`` is high: a flit ejected in cycle t is
  counted in its handshake cycle t + 1, latency ``L = t + 2 - t0`` (creation to
  the end of the handshake's cycle, as
  :func:`permnet.sim.netsim.deflect.deflection_trace` and netsim count it),
  computed as ``(c + 1 - (t0 mod 2^k)) mod 2^k`` with ``c = t + 1`` the
  handshake cycle: that is ``L mod 2^k``, so it equals ``L`` exactly while
  ``0 <= L < 2^k``. With k = 16 that is any latency below 65,536 cycles (queue
  wait included); the runs this design makes have latencies of tens to
  hundreds of cycles. A latency of 2^k or more would be counted as ``L mod 2^k``
  and show as a ``lat_sum`` / ``lat_max`` difference from the model, not pass
  silently. ``lat_max`` is the maximum of such values, so below 2^k: its
  register is ``k`` bits (the upper ``counter_bits - k`` bits read 0);
  ``lat_sum`` keeps ``counter_bits``.

Counters of cycle c are visible from c + 1; ``clear`` resets the routers,
the queues, the cycle and the counters (and run-time planes and masks to their
reset contents); ``hold`` stops the cycle counter and the generators (the
routers keep running: an idle network stays idle).

Run-time planes (``plane_kind`` ``crossbar`` or ``benes``): the network's
``cfg`` (plane shadows) and ``rt`` (each node's productive masks, one S-bit
entry per destination: :func:`permnet.hdl.deflect_net.mask_writes`) are ports
here, with the ports the ``netplanes`` block drives on the VC design
(:class:`permnet.hdl.hil.netgen.NetworkGen` with ``swap``), given the
deflection network's meaning: ``swap_req`` (or ``cfg.commit``) in cycle t
commits the planes' and masks' shadows at once, active from t + 1 (no drain:
a flit in flight takes the new routes where it is; :mod:`permnet.hdl.deflect_net`);
``swap_done`` pulses in t + 1; ``swap_draining`` is always 0; ``idle`` is high
while no flit is in the network (every flit injected has been taken from an
ejection port; the in-flight count of the cycle before). ``swap_cycles``:
the cycles from the last commit t to the handshake cycle of the last flit
injected in or before t (routed by the old planes at least once), 0 while
none has left: each flit carries one epoch bit (the parity of the commits
before its injection) beside its payload.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, ResetInserter, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.hil.netgen import RATE_BITS
from permnet.hdl.deflect import DEFAULT_EJECTION, DEFAULT_STAGES
from permnet.hdl.deflect_net import DeflectionNetwork
from permnet.hdl.hil.netgen import COUNTERS, SourceQueue, _tree, clear_counters, payload_of, run_window
from permnet.hdl.router import bits

__all__ = ["DeflectionGen"]


class DeflectionGen(wiring.Component):
    """The deflection network of ``planes`` (S x M wire planes) with a generator, a
    ``queue``-deep source queue and the counters :data:`COUNTERS` per node (module doc).
    ``ejection`` (E), ``stages`` (P) and ``plane_kind`` (``wires``, or ``crossbar`` / ``benes``
    loadable at run time) are :class:`permnet.hdl.deflect_net.DeflectionNetwork`'s;
    ``flit_width`` the checked payload bits (0: none); ``stamp_bits`` (k) the creation-cycle
    bits a flit and its queue entry carry, latencies exact below 2^k cycles (module doc).

    Ports: those of :class:`permnet.hdl.hil.netgen.NetworkGen` (``clear``, ``hold``,
    ``pattern``, ``rate``, ``size`` (ignored), ``seed``, ``hot``, ``hot_frac``, ``start``,
    ``stop``, ``perm[n]``; out ``cycle`` and ``<counter>[n]``); with run-time planes also
    ``cfg``, ``rt``, ``swap_req``, ``swap_done``, ``swap_draining``, ``swap_cycles`` and
    ``idle`` (module doc)."""

    switching = "deflection"

    def __init__(self, planes, *, ejection: int = DEFAULT_EJECTION, stages: int = DEFAULT_STAGES, flit_width: int = 0,
                 queue: int = 16, cycle_bits: int = 32, counter_bits: int = 32, stamp_bits: int = 16,
                 plane_kind: str = "wires"):
        require(queue >= 1, f"queue must be >= 1 descriptor, got {queue}")
        require(cycle_bits >= 8 and counter_bits >= 8, "cycle and counter widths must be >= 8 bits")
        require(8 <= stamp_bits <= min(cycle_bits, counter_bits),
                f"stamp_bits must be 8..min(cycle_bits, counter_bits), got {stamp_bits}")
        M = len(planes[0])
        self.nb, self.cb, self.cw, self.W, self.Q = bits(M - 1), cycle_bits, counter_bits, flit_width, queue
        self.k = stamp_bits
        self.loadable = plane_kind != "wires"
        self.net = DeflectionNetwork(planes, ejection=ejection, stages=stages, plane_kind=plane_kind,
                                     width=stamp_bits + self.nb + flit_width + self.loadable)
        self.M, self.S, self.E, self.P = self.net.M, self.net.S, self.net.E, self.net.P
        self.plane_kind = plane_kind
        self.zb = 8
        members = {"clear": In(1), "hold": In(1), "pattern": In(3), "rate": In(RATE_BITS + 1), "size": In(self.zb),
                   "seed": In(64), "hot": In(self.nb), "hot_frac": In(RATE_BITS + 1), "start": In(cycle_bits),
                   "stop": In(cycle_bits), "perm": In(self.nb).array(M), "cycle": Out(cycle_bits)}
        members |= {name: Out(counter_bits).array(M) for name in COUNTERS}
        if self.loadable:
            members |= self.net.control_ports | {"swap_req": In(1), "swap_draining": Out(1), "swap_done": Out(1),
                                                 "swap_cycles": Out(cycle_bits), "idle": Out(1)}
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        M, net, nb, W, k = self.M, self.net, self.nb, self.W, self.k
        m.submodules.net = ResetInserter({"sync": self.clear})(net)
        # one flit a packet: inj_flits / ej_flits read the inj_packets / ej_packets registers
        cycle, count = run_window(m, self, M, aliases={"inj_flits": "inj_packets", "ej_flits": "ej_packets"})
        epoch = Signal(name="epoch")            # parity of the commits so far (loadable planes)
        injected, taken = [], []
        for n, g in enumerate(self.gens):
            # the source queue, bypassed when empty: a new descriptor reaches inj in its creation cycle
            q = SourceQueue(nb + k, self.Q)
            m.submodules[f"queue{n}"] = ResetInserter({"sync": self.clear})(q)
            front = Signal(nb + k, name=f"front{n}")
            inj = net.inj[n]
            m.d.comb += [q.new.eq(Cat(g.dst, cycle[:k])), q.new_valid.eq(g.valid), q.ready.eq(inj.ready),   # t0 mod 2^k
                         front.eq(q.front)]
            dst, t0 = front[:nb], front[nb:]
            data = [payload_of(t0, Const(0, 1), W)] if W else []
            data += [epoch] if self.loadable else []
            m.d.comb += [inj.valid.eq(q.valid), inj.payload.dst.eq(dst), inj.payload.payload.eq(Cat(t0, dst, *data))]
            c = {name: count[name][n] for name in COUNTERS}
            took = inj.valid & inj.ready
            upd = {"gen_packets": c["gen_packets"] + g.valid,
                   "dropped": c["dropped"] + q.drop,
                   "inj_packets": c["inj_packets"] + took}
            ejs = list(net.ej[n])
            m.d.comb += [e.ready.eq(1) for e in ejs]
            got = [e.valid for e in ejs]
            injected.append(took)
            taken += [(e.valid, e.payload.payload[-1]) for e in ejs]
            f_t0 = [e.payload.payload[:k] for e in ejs]
            f_dst = [e.payload.payload[k:k + nb] for e in ejs]
            # (c + 1 - t0 mod 2^k) mod 2^k: the latency while it is below 2^k (module doc)
            lats = [Mux(v, (cycle[:k] + 1 - t)[:k], 0) for v, t in zip(got, f_t0)]
            upd["ej_packets"] = c["ej_packets"] + _tree(got, lambda a, b: a + b)
            upd["lat_sum"] = c["lat_sum"] + _tree(lats, lambda a, b: a + b)
            # lat_max < 2^k: only its low k bits are a register, the rest stay 0
            lat_max = c["lat_max"][:k]
            upd_max = _tree([lat_max] + lats, lambda a, b: Mux(a > b, a, b))
            upd["misdelivered"] = c["misdelivered"] + _tree(
                [v & (d != n) for v, d in zip(got, f_dst)], lambda a, b: a + b)
            if W:
                upd["payload_errors"] = c["payload_errors"] + _tree(
                    [v & (e.payload.payload[k + nb:k + nb + W] != payload_of(t, Const(0, 1), W))
                     for v, e, t in zip(got, ejs, f_t0)], lambda a, b: a + b)
            m.d.sync += lat_max.eq(upd_max)
            for name in COUNTERS:
                m.d.comb += getattr(self, name)[n].eq(c[name])
                if name in upd:
                    m.d.sync += c[name].eq(upd[name])
        clear_counters(m, self, count)
        if self.loadable:
            self._swap(m, cycle, epoch, injected, taken)
        return m

    def _swap(self, m, cycle, epoch, injected, taken):
        """The commit at ``swap_req``, its report and the in-flight count (module doc)."""
        net = self.net
        m.d.comb += [net.cfg.plane.eq(self.cfg.plane), net.cfg.addr.eq(self.cfg.addr),
                     net.cfg.data.eq(self.cfg.data), net.cfg.we.eq(self.cfg.we),
                     net.cfg.commit.eq(self.cfg.commit | self.swap_req), self.cfg.rdata.eq(net.cfg.rdata)]
        wiring.connect(m, wiring.flipped(self.rt), net.rt)
        commit = net.cfg.commit
        at = Signal(self.cb, name="swap_commit_cycle")
        done, cycles = Signal(name="swap_done_r"), Signal(self.cb, name="swap_cycles_r")
        flight = Signal(16, name="in_flight")
        m.d.sync += [done.eq(commit),
                     flight.eq(flight + _tree(injected, lambda a, b: a + b)
                               - _tree([v for v, _ in taken], lambda a, b: a + b))]
        with m.If(commit):
            m.d.sync += [epoch.eq(~epoch), at.eq(cycle), cycles.eq(0)]
        with m.Elif(_tree([v & (e != epoch) for v, e in taken], lambda a, b: a | b)):
            m.d.sync += cycles.eq(cycle - at)
        with m.If(self.clear):
            m.d.sync += [epoch.eq(0), at.eq(0), done.eq(0), cycles.eq(0), flight.eq(0)]
        m.d.comb += [self.swap_done.eq(done), self.swap_cycles.eq(cycles), self.swap_draining.eq(0),
                     self.idle.eq(flight == 0)]
