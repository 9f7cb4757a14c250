"""Live traffic and counters around the network IP (issue 25): the
generators of :mod:`permnet.gen.hil.netgen` in gateware, a source queue per
node, and per-node counters, around :class:`permnet.hdl.netip.NetworkIP`.

Per node n, in the cycle whose global counter reads c:

* the generator (:class:`TrafficGen`) draws as the model does: active when
  ``start <= c < stop``, its xorshift64 register starts at ``seed ^ C_n``
  in cycle ``start`` and steps once per active cycle; it creates a packet
  descriptor ``(dst, size, t0 = c)``;
* the source queue (the simulator's source queue, ``queue`` descriptors): a
  new descriptor goes straight to the router's ``inj`` when the queue is
  empty (taken in its creation cycle if a lane is free, as in the
  simulator), otherwise behind the queued ones; a descriptor created while
  the queue is full is dropped and counted (``dropped``; the simulator
  fed the generator's trace never drops, so counts are only comparable
  while ``dropped`` is 0); its head is a register (:class:`SourceQueue`);
* the lanes carry the payload :func:`payload_of` of ``(t0, idx)`` (``t0``
  and ``src`` make the packet unique: one packet per node per cycle);
* ejection (the routers' ``eject="vc"``: one flit per input VC per cycle)
  feeds the counters.

Counters (``counter_bits`` wide, wrapping), per node: ``gen_packets``
(descriptors created), ``inj_packets`` / ``inj_flits`` (descriptors taken
by the router, flits leaving the lanes), ``ej_packets`` / ``ej_flits``
(tails and flits ejected here), ``lat_sum`` / ``lat_max`` (over packets
ejected here: ``c + 1 - t0`` at the tail, the simulator's latency, creation
to the end of the tail's cycle), ``misdelivered`` (tails ejected here with
another ``dst``), ``payload_errors`` (flits whose payload differs from
:func:`payload_of`), ``dropped``.  ``cycle`` is the global cycle counter;
``clear`` (one cycle) zeroes it and every counter and resets the network
(buffers, credits, arbiters, source queues: packets in flight are
discarded), so that every run starts from the simulator's initial state.  Counter updates of cycle c are visible from c + 1.
``hold`` (a level) stops the run's clock: the cycle counter keeps its value
and no generator draws, so the host can load planes into a cleared, idle
network before the run starts (a clear resets the run-time planes and route
tables to their reset contents too).

With ``swap=True`` (a loadable ``plane_set``) the network IP has the drained
plane swap (:mod:`permnet.hdl.swapctl`): its ``cfg``, ``rt``, ``swap_req``,
``swap_done``, ``swap_cycles``, ``swap_draining`` and ``idle`` ports are ports
here; while a swap drains the network the generators keep drawing and their
descriptors wait in the source queues.

Latency: the generator adds none (a descriptor is at ``inj`` in its creation
cycle); the router's timing is :class:`permnet.hdl.router.Router`'s.

Timing: what reaches a router's injection in the cycle it is created comes from registers
through a multiplexer or two: the window (``active``, ``first``) is registered a cycle ahead
(:func:`run_window`), each generator decides its packet a cycle ahead (:class:`TrafficGen`)
and the source queue's head is a register (:class:`SourceQueue`); the host's generator
parameters are therefore read a cycle ahead (:class:`TrafficGen`). On the ULX3S (ECP5-85,
nextpnr router2) the LDI(16,4) deflection design's critical path went from 51.0 ns (the cycle
counter's 32-bit compares, the generators' draw and multiplier, the queue's bypass, a router)
to 31.88 ns (``first``, the queue's head, a router): Fmax 19.61 -> 31.37 MHz, the board's
25 MHz met (docs/guide/hil-network.md, "On the ULX3S").
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, ResetInserter, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.hil.netgen import GOLDEN, MASK64, PATTERNS, RATE_BITS, destinations
from permnet.hdl.netip import NetworkIP, forward_ports
from permnet.hdl.routes import NetworkRoutes
from permnet.hdl.router import bits

__all__ = ["NetworkGen", "TrafficGen", "COUNTERS", "PATTERN_CODES", "payload_of", "run_window", "clear_counters",
           "SourceQueue"]

COUNTERS = ("gen_packets", "inj_packets", "inj_flits", "ej_packets", "ej_flits", "lat_sum", "lat_max",
            "misdelivered", "payload_errors", "dropped")
PATTERN_CODES = {p: i for i, p in enumerate(PATTERNS)}
# payload bit i is flipped where bit i mod 64 of this constant is set (no payload is all zeros or a plain count)
_PAYLOAD_MASK = 0xD1B54A32D192ED03


def _payload_mask(width: int) -> int:
    return sum(((_PAYLOAD_MASK >> (i % 64)) & 1) << i for i in range(width))


def payload_of(t0, idx, width: int):
    """The payload of flit ``idx`` of the packet created at ``t0`` (values or signals): the bits
    of ``t0 << len(idx) | idx`` repeated to ``width`` bits, XOR a fixed mask; in hardware wires and
    inverters."""
    x = Cat(idx, t0)
    return Cat(*[x[i % len(x)] for i in range(width)]) ^ Const(_payload_mask(width), width)


def _tree(values, op):
    values = list(values)
    while len(values) > 1:
        values = [op(values[i], values[i + 1]) if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def _xorshift(x):
    x = x ^ (x << 13)[:64]
    x = x ^ (x >> 7)
    return x ^ (x << 17)[:64]


class TrafficGen(wiring.Component):
    """The generator of node ``node`` of ``M`` (:mod:`permnet.gen.hil.netgen`, whose docstring
    states the draws). Inputs: ``active`` (this cycle is in ``[start, stop)``), ``first`` (it is
    ``start``), the host's parameters; outputs ``valid`` (a packet is created this cycle) and
    ``dst`` (combinational, same cycle). Patterns that :func:`destinations` refuses for this M
    (bitcomp, transpose) make the node send to itself, which never injects.

    The model's register x steps to ``x' = xorshift(first ? seed_state : x)`` in an active cycle
    and the cycle's draws are fields of x'. Here each cycle's packet is decided one cycle ahead,
    so that only ``first``, ``active`` and a multiplexer lie between registers and the router's
    injection (no xorshift, multiplier or compare): the register ``s`` holds ``xorshift(x)``
    (the model's x' when the active cycle is not the first; 0 = xorshift(0) at reset) and the
    registers ``next_made`` / ``next_dst`` hold the packet decision (``r < rate`` and not a
    fixed pattern's self-destination; the destination) of the state ``s`` will hold in the next
    cycle (``xorshift(first ? f : s)`` after an active cycle, ``s`` after another). The first
    active cycle's state ``f = xorshift(seed_state)`` depends on ``seed`` alone: its decision
    ``first_made`` / ``first_dst`` is a register too, recomputed every cycle. Then ``valid =
    active & (first ? first_made : next_made)``, ``dst`` likewise: the model's packets, cycle
    for cycle, with the host's parameters (``seed``, ``pattern``, ``rate``, ``hot``,
    ``hot_frac``, ``perm``) read a cycle ahead (one written in the cycle just before an active
    cycle would be seen a cycle late; the host writes them before the run's clear)."""

    def __init__(self, M: int, node: int):
        self.M, self.n = M, node
        self.nb = bits(M - 1)
        self.fixed = {}
        for p in ("bitcomp", "transpose"):
            try:
                self.fixed[p] = destinations(M, p)[node]
            except Exception:       # noqa: BLE001 -- refused for this M: the node never injects
                self.fixed[p] = node
        super().__init__({"active": In(1), "first": In(1), "pattern": In(3), "rate": In(RATE_BITS + 1),
                          "seed": In(64), "hot": In(self.nb), "hot_frac": In(RATE_BITS + 1),
                          "perm": In(self.nb), "valid": Out(1), "dst": Out(self.nb)})

    def _decide(self, m, x, name):
        """``(made, dst)`` of the draws of the 64-bit state ``x`` under the host's parameters
        (combinational; ``name`` prefixes the signals): ``r = x[0:16]``, ``u = x[16:32]``,
        ``h = x[32:48]``, :mod:`permnet.gen.hil.netgen`'s destinations."""
        M, n = self.M, self.n
        r, u, h = x[0:16], x[16:32], x[32:48]
        d = Signal(self.nb + 1, name=f"{name}_d")
        m.d.comb += d.eq((u * Const(M - 1, bits(M - 1))) >> RATE_BITS)
        uniform = Signal(self.nb, name=f"{name}_uniform")
        m.d.comb += uniform.eq(d + (d >= n))
        code = PATTERN_CODES
        dst = Signal(self.nb, name=f"{name}_dst_c")
        with m.Switch(self.pattern):
            with m.Case(code["hotspot"]):
                m.d.comb += dst.eq(Mux(h < self.hot_frac, self.hot, uniform))
            with m.Case(code["permutation"]):
                m.d.comb += dst.eq(self.perm)
            with m.Case(code["bitcomp"]):
                m.d.comb += dst.eq(self.fixed["bitcomp"])
            with m.Case(code["transpose"]):
                m.d.comb += dst.eq(self.fixed["transpose"])
            with m.Default():
                m.d.comb += dst.eq(uniform)
        fixed = (self.pattern == code["permutation"]) | (self.pattern == code["bitcomp"]) | \
            (self.pattern == code["transpose"])
        return (r < self.rate) & ~(fixed & (dst == n)), dst

    def elaborate(self, platform):
        m = Module()
        n = self.n
        # the first active cycle's state and decision, from seed alone (reset_less: not cleared)
        st = Signal(64, name="seed_state")
        m.d.comb += st.eq(self.seed ^ Const(((n + 1) * GOLDEN) & MASK64, 64))
        f = Signal(64, name="first_state")
        m.d.comb += f.eq(_xorshift(Mux(st == 0, 1, st)))
        f_made, f_dst = Signal(name="first_made", reset_less=True), Signal(self.nb, name="first_dst", reset_less=True)
        m.d.sync += Cat(f_made, f_dst).eq(Cat(*self._decide(m, f, "first")))
        # s = xorshift(x) and the decision of its next value; reset: x = s = 0, the decision of 0
        # under the parameters' reset values (rate 0: no packet; uniform: 0 + (0 >= n))
        s = Signal(64, name="next_state")
        s_made, s_dst = Signal(name="next_made"), Signal(self.nb, name="next_dst", init=int(n == 0))
        s_next = Signal(64, name="next_state_d")
        m.d.comb += s_next.eq(Mux(self.active, _xorshift(Mux(self.first, f, s)), s))
        m.d.sync += [s.eq(s_next), Cat(s_made, s_dst).eq(Cat(*self._decide(m, s_next, "next")))]
        m.d.comb += [self.dst.eq(Mux(self.first, f_dst, s_dst)),
                     self.valid.eq(self.active & Mux(self.first, f_made, s_made))]
        return m


class SourceQueue(wiring.Component):
    """A ``depth``-descriptor source queue, bypassed when empty, with its head in a register:
    what ``SyncFIFO(width, depth)`` with the bypass ``front = r_rdy ? r_data : new`` gives,
    cycle for cycle, without the memory read and the level compare before the consumer.

    Ports: ``new`` / ``new_valid`` (a descriptor created this cycle), ``ready`` (the consumer
    takes ``front`` this cycle when ``valid``), out ``valid`` (``front`` is a descriptor),
    ``front``, ``drop`` (``new`` is lost: the queue is full and ``new`` is not taken now).

    The queue is the head register ``head`` (``head_valid``) and a ``SyncFIFO`` of
    ``depth - 1`` behind it: ``head_valid`` is "the queue is not empty", ``front`` is
    ``head_valid ? head : new`` and ``valid = head_valid | new_valid``. A descriptor is kept
    when it is created and not taken (``new_valid & (head_valid | ~ready)``), unless the queue
    holds ``depth`` (``head_valid`` and the FIFO full: dropped, as ``SyncFIFO``'s ``w_rdy`` is
    low when full whatever is read); it goes to the head register when that is free after
    this cycle and the FIFO is empty, else into the FIFO; a taken head is replaced by the
    FIFO's first entry. So the order is the FIFO's and the occupancy (head + FIFO) is the
    single FIFO's in every cycle."""

    def __init__(self, width: int, depth: int):
        require(depth >= 1, f"queue must be >= 1 descriptor, got {depth}")
        self.width, self.depth = width, depth
        super().__init__({"new": In(width), "new_valid": In(1), "ready": In(1), "valid": Out(1),
                          "front": Out(width), "drop": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.fifo = fifo = SyncFIFO(width=self.width, depth=self.depth - 1)
        head, head_valid = Signal(self.width, name="head"), Signal(name="head_valid")
        pop = head_valid & self.ready
        keep = self.new_valid & (head_valid | ~self.ready)
        full = head_valid & ~fifo.w_rdy
        push = keep & ~full
        m.d.comb += [self.valid.eq(head_valid | self.new_valid), self.front.eq(Mux(head_valid, head, self.new)),
                     self.drop.eq(keep & full), fifo.w_data.eq(self.new)]
        # where a kept descriptor goes: the head register if it is free after this cycle and
        # nothing waits in the FIFO, else the FIFO
        to_head = push & (~head_valid | pop) & ~fifo.r_rdy
        m.d.comb += [fifo.w_en.eq(push & ~to_head), fifo.r_en.eq(pop)]
        with m.If(pop):
            m.d.sync += [head.eq(Mux(fifo.r_rdy, fifo.r_data, self.new)), head_valid.eq(fifo.r_rdy | push)]
        with m.Elif(to_head):
            m.d.sync += [head.eq(self.new), head_valid.eq(1)]
        return m


def run_window(m, top, M: int, aliases: dict | None = None):
    """The run's clock and window, one :class:`TrafficGen` per node and the per-node counters, as
    every HIL generator top (``NetworkGen``, ``DeflectionGen``) has them: ``cycle`` counts while
    ``hold`` is low and is zeroed by ``clear``; the generators are cleared with the run and kept
    in ``top.gens``. Returns ``(cycle, count)``: ``count[name][n]`` the counter registers
    of :data:`COUNTERS`, where ``aliases`` maps a counter to another whose registers it reads
    (:class:`permnet.hdl.hil.deflgen.DeflectionGen`: ``inj_flits`` is ``inj_packets``); the
    design updates them and zeroes them with :func:`clear_counters`.

    The window is registered: ``active`` (``start <= cycle < stop`` and not ``hold``) and
    ``first`` (``cycle == start``) are the 32-bit compares of the cycle counter's next value
    (0 at a clear, the same value while held, else + 1), taken one cycle ahead into the
    registers ``win`` and ``first``, so the 16 generators see registers and no compare of the
    counter lies before a router; ``active = win & ~hold`` keeps ``hold`` a level of the same
    cycle. ``start`` and ``stop`` are thus compared a cycle ahead: one written in the cycle just
    before the window's edge would move it by a cycle (the host writes them before the run's
    clear, and the register values at reset, 0 and 0, give the empty window)."""
    aliases = aliases or {}
    cycle, nxt = Signal(top.cb), Signal(top.cb, name="cycle_next")
    m.d.comb += nxt.eq(Mux(top.clear, 0, Mux(top.hold, cycle, cycle + 1)))
    m.d.sync += cycle.eq(nxt)
    m.d.comb += top.cycle.eq(cycle)
    win, first = Signal(name="win"), Signal(name="first", init=1)
    m.d.sync += [win.eq((nxt >= top.start) & (nxt < top.stop)), first.eq(nxt == top.start)]
    active = Signal()
    m.d.comb += active.eq(win & ~top.hold)
    count = {name: [Signal(top.cw, name=f"{name}{n}") for n in range(M)] for name in COUNTERS if name not in aliases}
    count |= {name: count[alias] for name, alias in aliases.items()}
    top.gens = []
    for n in range(M):
        g = TrafficGen(M, n)
        m.submodules[f"gen{n}"] = ResetInserter({"sync": top.clear})(g)
        top.gens.append(g)
        m.d.comb += [g.active.eq(active), g.first.eq(first), g.pattern.eq(top.pattern),
                     g.rate.eq(top.rate), g.seed.eq(top.seed), g.hot.eq(top.hot),
                     g.hot_frac.eq(top.hot_frac), g.perm.eq(top.perm[n])]
    return cycle, count


def clear_counters(m, top, count):
    """Zero every counter register of ``count`` (aliases once) in a ``clear`` cycle; after the
    counters' updates, so that the clear wins."""
    regs = {id(s): s for name in COUNTERS for s in count[name]}
    with m.If(top.clear):
        m.d.sync += [s.eq(0) for s in regs.values()]


class NetworkGen(NetworkRoutes, wiring.Component):
    """The network of ``planes`` (S x M), route ``length`` and ``hops`` (as
    :class:`permnet.hdl.network.NetworkRTL`) with a generator, a ``queue``-deep source queue
    and the counters :data:`COUNTERS` per node (module docstring). ``flit_width`` payload bits
    per flit (0: no payload, ``payload_errors`` stays 0); ``max_size`` the largest packet;
    ``plane_set`` and ``swap`` as :class:`permnet.hdl.netip.NetworkIP` (its control ports
    become ports here; with ``swap`` the routes are loadable, for routes of up to ``vcs`` hops).

    Ports: in ``clear``, ``hold``, ``pattern`` (:data:`PATTERN_CODES`), ``rate``, ``size``, ``seed``,
    ``hot``, ``hot_frac``, ``start``, ``stop``, ``perm[n]``; out ``cycle`` and, per counter
    name, ``<name>[n]``. After elaboration ``gens[n]`` are the generators (tests watch them)."""

    def __init__(self, planes, length, hops, *, vcs: int, buffer: int = 8, lanes: int | None = None,
                 wormhole: bool = False, router: str = "table", link_stages: int = 0, flit_width: int = 0,
                 max_size: int | None = None, queue: int = 16, cycle_bits: int = 32, counter_bits: int = 32,
                 plane_set=None, swap: bool = False):
        self._init_routes(planes, length, hops, router, loadable=swap, max_hops=vcs if swap else None)
        M = self.M
        require(queue >= 1, f"queue must be >= 1 descriptor, got {queue}")
        require(cycle_bits >= 8 and counter_bits >= 8, "cycle and counter widths must be >= 8 bits")
        self.V, self.B, self.L = vcs, buffer, lanes or self.S
        self.wormhole, self.link_stages, self.W, self.Q = wormhole, link_stages, flit_width, queue
        self.max_size = max_size or buffer
        require(wormhole or self.max_size <= buffer,
                f"virtual cut-through needs packets ({self.max_size} flits) no longer than the buffers ({buffer})")
        self.zb, self.nb, self.cb, self.cw = bits(self.max_size), bits(M - 1), cycle_bits, counter_bits
        self.ip = NetworkIP(self, vcs=vcs, buffer=buffer, lanes=self.L, wormhole=wormhole, size_bits=self.zb,
                            tags={"t0": cycle_bits}, data_fields={"payload": flit_width} if flit_width else None,
                            eject="vc", link_stages=link_stages, plane_set=plane_set, swap=swap)
        self.K = self.ip.K
        members = {"clear": In(1), "hold": In(1), "pattern": In(3), "rate": In(RATE_BITS + 1), "size": In(self.zb),
                   "seed": In(64), "hot": In(self.nb), "hot_frac": In(RATE_BITS + 1), "start": In(cycle_bits),
                   "stop": In(cycle_bits), "perm": In(self.nb).array(M), "cycle": Out(cycle_bits)}
        members |= {name: Out(counter_bits).array(M) for name in COUNTERS}
        members |= self.ip.control_ports
        wiring.Component.__init__(self, members)

    def elaborate(self, platform):
        m = Module()
        M, K, ip = self.M, self.K, self.ip
        # clear resets the network too (buffers, credits, round-robin pointers, source queues): every
        # run starts from the simulator's initial state, whatever the previous run left
        m.submodules.ip = ResetInserter({"sync": self.clear})(ip)
        forward_ports(m, self, ip, ip.control_ports)
        cycle, count = run_window(m, self, M)
        for n, g in enumerate(self.gens):
            # the source queue, bypassed when empty: a new descriptor reaches inj in its creation cycle
            q = SourceQueue(self.nb + self.zb + self.cb, self.Q)
            m.submodules[f"queue{n}"] = ResetInserter({"sync": self.clear})(q)
            inj = ip.inj[n]
            m.d.comb += [q.new.eq(Cat(g.dst, self.size, cycle)), q.new_valid.eq(g.valid), q.ready.eq(inj.ready),
                         inj.valid.eq(q.valid), Cat(inj.payload.dst, inj.payload.size, inj.payload.t0).eq(q.front)]
            c = {name: count[name][n] for name in COUNTERS}
            upd = {"gen_packets": c["gen_packets"] + g.valid,
                   "dropped": c["dropped"] + q.drop,
                   "inj_packets": c["inj_packets"] + (inj.valid & inj.ready),
                   "inj_flits": c["inj_flits"] + _tree([lane.pop for lane in ip.lane[n]], lambda a, b: a + b)}
            if self.W:
                for lane in ip.lane[n]:
                    m.d.comb += lane.data.payload.eq(payload_of(lane.tags.t0, lane.idx, self.W))
            ejs = [ip.ej[n][k] for k in range(K)]
            tails = [e.valid & (e.flit.idx == e.flit.size - 1) for e in ejs]
            lats = [Mux(t, (cycle + 1 - e.flit.t0)[:self.cb], 0) for t, e in zip(tails, ejs)]
            upd["ej_packets"] = c["ej_packets"] + _tree(tails, lambda a, b: a + b)
            upd["ej_flits"] = c["ej_flits"] + _tree([e.valid for e in ejs], lambda a, b: a + b)
            upd["lat_sum"] = c["lat_sum"] + _tree(lats, lambda a, b: a + b)
            upd["lat_max"] = _tree([c["lat_max"]] + lats, lambda a, b: Mux(a > b, a, b))
            upd["misdelivered"] = c["misdelivered"] + _tree(
                [t & (e.flit.dst != n) for t, e in zip(tails, ejs)], lambda a, b: a + b)
            if self.W:
                upd["payload_errors"] = c["payload_errors"] + _tree(
                    [e.valid & (e.flit.payload != payload_of(e.flit.t0, e.flit.idx, self.W)) for e in ejs],
                    lambda a, b: a + b)
            for name in COUNTERS:
                m.d.comb += getattr(self, name)[n].eq(c[name])
                if name in upd:
                    m.d.sync += c[name].eq(upd[name])
        clear_counters(m, self, count)
        return m
