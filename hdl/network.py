"""The sealed self-test of the network RTL (issue 14): trace generators and
ejection checkers around :class:`permnet.hdl.netip.NetworkIP`.

The network (M routers, :class:`permnet.hdl.router.Router`, through S planes)
is the same router model as the cycle-level simulator (``permnet.sim.netsim``, whose
docstring states it), so it delivers the same packets at the same cycles. This
top adds, per node:

* a trace generator (a ROM of ``(cycle, dst, size, serial)`` rows in cycle
  order, at most one row per node per cycle); a row is a packet *created* at
  its cycle; the rows created but not yet taken are the source queue; the
  front row is the router's injection descriptor (it moves into the lowest
  free of ``lanes`` injection lanes and may send its head in the same cycle);
* with ``flit_width`` W > 0 the payload of each lane flit,
  :func:`flit_payload` of its serial and index (the flits carry ``serial``
  as a tag and ``payload`` as data through every FIFO and plane);
* ejection of one flit per input VC per cycle (the routers' ``eject="vc"``);
  ``tail_valid[n][k]`` / ``tail_serial[n][k]`` pulse in the cycle a tail is
  ejected;
* ejection checkers: with ``expected`` (the cycle after the tail of each
  packet leaves, by serial, e.g. from the simulator) the sticky ``error``
  output rises on any tail ejected at another cycle; ``done`` rises when
  every packet has been delivered. With W > 0 every ejected flit's payload
  is compared with :func:`flit_payload` of its serial and index, and a
  mismatch sets ``error`` too (``eject_valid/serial/idx/payload[n][k]``
  show each ejected flit).

Routing (``router="nexthop"`` or ``"table"``) is described in
:mod:`permnet.hdl.routes`; the planes are wires (:class:`permnet.hdl.netip.WirePlanes`)
or, with ``planes="crossbar"`` or ``"benes"``, a run-time
:class:`permnet.hdl.planes.PlaneSet` reset to the same planes, whose ``cfg``
port is a port of this top (combinational planes: the timing, and so the
simulator's cycles, are those of wires until a commit changes the planes;
the route tables stay those of the build, so a commit here must keep them
valid; the drained swap with new routes is
:class:`permnet.hdl.netstream.NetworkStream`'s).
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from permnet.gen.errors import require
from permnet.hdl.netip import NetworkIP, forward_ports, plane_set_factory
from permnet.hdl.routes import ROUTERS, NetworkRoutes

__all__ = ["NetworkRTL", "ROUTERS", "trace_roms", "random_trace", "flit_payload"]

# payload bit i is flipped where bit i mod 64 of this constant is set (so no payload is all zeros or a plain count)
_PAYLOAD_MASK = 0x9E3779B97F4A7C15


def _bits(n: int) -> int:
    return max(1, int(n).bit_length())


def _tree_sum(values):
    """Sum as a balanced tree (a long chain of additions recurses too deeply in Amaranth)."""
    values = list(values)
    if not values:
        return Const(0, 1)
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def random_trace(M: int, packets: int, span: int, max_size: int, seed: int = 0) -> list:
    """A seeded uniform trace ``(cycle, src, dst, size)`` with at most one packet per node per cycle
    (the RTL generators' limit) and ``src != dst``."""
    import numpy as np

    require(1 <= packets <= M * span, f"{packets} packets do not fit {M} nodes x {span} cycles (one per node per cycle)")
    require(M >= 2 and max_size >= 1, "need >= 2 nodes and packets of >= 1 flit")
    rng = np.random.default_rng([seed, 0x4e7])
    slots = rng.choice(M * span, size=packets, replace=False)
    rows = []
    for x in sorted(int(v) for v in slots):
        c, s = divmod(x, M)
        d = int(rng.integers(0, M - 1))
        rows.append((c, s, d + (d >= s), int(rng.integers(1, max_size + 1))))
    return rows


def _payload_mask(width: int) -> int:
    return sum(((_PAYLOAD_MASK >> (i % 64)) & 1) << i for i in range(width))


def flit_payload(serial: int, idx: int, width: int, idx_bits: int, serial_bits: int) -> int:
    """The payload of flit ``idx`` of packet ``serial``: the ``serial_bits + idx_bits`` bits
    ``serial << idx_bits | idx`` repeated (or truncated) to ``width`` bits, XOR a fixed mask.
    Every payload bit depends on the header, so the checker detects any corrupted bit."""
    n = serial_bits + idx_bits
    x = (serial << idx_bits) | idx
    return sum(((x >> (i % n)) & 1) << i for i in range(width)) ^ _payload_mask(width)


def trace_roms(rows, M: int):
    """Per-node rows ``(cycle, dst, size, serial)`` from trace rows ``(cycle, src, dst, size)``
    (serial = index in the stably cycle-sorted trace, as in the simulator)."""
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])
    per = [[] for _ in range(M)]
    for serial, i in enumerate(order):
        c, s, d, z = rows[i]
        per[s].append((c, d, z, serial))
    for n, r in enumerate(per):
        cycles = [c for c, *_ in r]
        require(len(set(cycles)) == len(cycles), f"node {n}: at most one trace packet per node per cycle in RTL")
    return per


class NetworkRTL(NetworkRoutes, wiring.Component):
    """``planes`` (S x M lists), route ``length`` (M x M) and ``hops`` (M x M x H), the trace rows;
    ``flit_width`` payload bits per flit (0: header-only flits); ``router``: ``"nexthop"`` (the
    divider-free unit, for Melhem's routing of LDI(M, S) only: checked against every route) or
    ``"table"`` (see :mod:`permnet.hdl.routes`, whose :class:`NetworkRoutes` this class is);
    ``link_stages`` registers on every link and ``credit_stages`` on every credit's way back
    (:class:`permnet.hdl.router.Router`);
    ``planes_kind``: ``wires``, ``crossbar`` or ``benes`` (module doc).

    ``ip`` is the :class:`permnet.hdl.netip.NetworkIP` and ``buffers[n, y, v]``
    holds the signals of the input VC buffer at node n, port y, VC v (``ent``: the entries as
    dicts of field signals, ``head``, ``count``), for fault injection in tests."""

    # :func:`permnet.hdl.synth.synthesize` maps it without ABC9's sequential mode (``-dff``), whose
    # run time on one flat network grows far faster than the design (LDI(4,2): 75 s against 8 s)
    synth_dff = False
    # and has nextpnr route it with router2 (LDI(16,4): 534 s; the default router had not finished in 40 min)
    synth_router = "router2"

    @property
    def synth_nodes(self) -> int:
        """The nodes of the network (:func:`permnet.hdl.synth.synthesize` reports LUTs per node)."""
        return self.M

    def __init__(self, planes, length, hops, rows, *, vcs: int, buffer: int = 8, lanes: int | None = None,
                 wormhole: bool = False, cycle_bits: int = 16, expected=None, flit_width: int = 0,
                 router: str = "table", link_stages: int = 0, planes_kind: str = "wires",
                 credit_stages: int = 0):
        self._init_routes(planes, length, hops, router)
        S, M = self.S, self.M
        require(buffer >= 2 and buffer & (buffer - 1) == 0, f"RTL buffers must be a power of two >= 2, got {buffer}")
        require(vcs >= 1, "vcs must be >= 1")
        require(flit_width >= 0, f"flit width must be >= 0, got {flit_width}")
        self.W = int(flit_width)
        self.V, self.B, self.L = vcs, buffer, lanes or S
        self.wormhole, self.link_stages = wormhole, link_stages
        self.roms = trace_roms(rows, M)
        self.npk = len(rows)
        self.cb = cycle_bits
        self.K = S * self.V + self.L
        self.nb = _bits(M - 1)
        self.hb = _bits(self.H)
        self.zb = _bits(max([z for _, _, _, z in rows] + [buffer]))
        self.sb = _bits(max(self.npk - 1, 1))
        self.expected = None if expected is None else [int(x) for x in expected]
        require(self.expected is None or len(self.expected) == self.npk, "one expected cycle per packet")
        self.planes_kind = planes_kind
        self.ip = NetworkIP(
            self, vcs=self.V, buffer=self.B, lanes=self.L, wormhole=self.wormhole, size_bits=self.zb,
            tags={"serial": self.sb}, data_fields={"payload": self.W} if self.W else None, eject="vc",
            link_stages=self.link_stages, plane_set=plane_set_factory(planes_kind, self.planes),
            credit_stages=credit_stages)
        wiring.Component.__init__(self, {"cycle": Out(cycle_bits), "delivered": Out(_bits(self.npk)),
                                         "done": Out(1), "error": Out(1)} | self.ip.control_ports)
        K = self.K
        self.tail_valid = [[Signal(name=f"tail_v_{n}_{k}") for k in range(K)] for n in range(M)]
        self.tail_serial = [[Signal(self.sb, name=f"tail_s_{n}_{k}") for k in range(K)] for n in range(M)]
        self.buffers = {(n, y, v): q for n, r in enumerate(self.ip.routers) for (y, v), q in r.buffers.items()}
        if self.W:
            self.eject_valid = [[Signal(name=f"ej_v_{n}_{k}") for k in range(K)] for n in range(M)]
            self.eject_serial = [[Signal(self.sb, name=f"ej_s_{n}_{k}") for k in range(K)] for n in range(M)]
            self.eject_idx = [[Signal(self.zb, name=f"ej_i_{n}_{k}") for k in range(K)] for n in range(M)]
            self.eject_payload = [[Signal(self.W, name=f"ej_p_{n}_{k}") for k in range(K)] for n in range(M)]

    @property
    def fields(self):
        return ("src", "dst", "hop", "size", "idx", "serial") + (("payload",) if self.W else ())

    def payload_of(self, serial, idx):
        """:func:`flit_payload` in hardware: wires and inverters."""
        x = Cat(idx, serial)
        return Cat(*[x[i % len(x)] for i in range(self.W)]) ^ Const(_payload_mask(self.W), self.W)

    def elaborate(self, platform):
        m = Module()
        M, K = self.M, self.K
        cycle = Signal(self.cb)
        m.d.sync += cycle.eq(cycle + 1)
        m.d.comb += self.cycle.eq(cycle)
        ip = m.submodules.ip = self.ip
        forward_ports(m, self, ip, ip.control_ports)
        delivered = Signal.like(self.delivered)
        m.d.comb += [self.delivered.eq(delivered), self.done.eq(delivered == self.npk)]
        for n in range(M):
            # the trace generator: the front row, once its cycle has come, is the injection descriptor
            rom = self.roms[n]
            nr = len(rom)
            tp = Signal(_bits(nr), name=f"tp{n}")
            rcyc = Array(Const(c, self.cb) for c, *_ in rom) if rom else Array([Const(0, self.cb)])
            rdst = Array(Const(d, self.nb) for _, d, _, _ in rom) if rom else Array([Const(0, self.nb)])
            rsz = Array(Const(z, self.zb) for _, _, z, _ in rom) if rom else Array([Const(1, self.zb)])
            rser = Array(Const(s, self.sb) for *_, s in rom) if rom else Array([Const(0, self.sb)])
            inj = ip.inj[n]
            m.d.comb += [inj.valid.eq((tp < nr) & (rcyc[tp] <= cycle)), inj.payload.dst.eq(rdst[tp]),
                         inj.payload.size.eq(rsz[tp]), inj.payload.serial.eq(rser[tp])]
            with m.If(inj.valid & inj.ready):
                m.d.sync += tp.eq(tp + 1)
            if self.W:
                for lane in ip.lane[n]:
                    m.d.comb += lane.data.payload.eq(self.payload_of(lane.tags.serial, lane.idx))
            for k in range(K):
                ej = ip.ej[n][k]
                m.d.comb += [self.tail_valid[n][k].eq(ej.valid & (ej.flit.idx == ej.flit.size - 1)),
                             self.tail_serial[n][k].eq(ej.flit.serial)]
                if self.W:
                    m.d.comb += [self.eject_valid[n][k].eq(ej.valid), self.eject_serial[n][k].eq(ej.flit.serial),
                                 self.eject_idx[n][k].eq(ej.flit.idx), self.eject_payload[n][k].eq(ej.flit.payload)]
        tails_this_cycle = [self.tail_valid[n][k] for n in range(M) for k in range(K)]
        m.d.sync += delivered.eq(delivered + _tree_sum(tails_this_cycle))
        # ejection checkers: a tail ejected in a cycle other than the expected one sets the sticky error
        error = Signal()
        m.d.comb += self.error.eq(error)
        bad = []
        if self.expected is not None:
            # due[serial]: packet serial is expected in this cycle (one comparator per packet, shared by all ports)
            due = Array(Signal(name=f"due{i}") for i in range(len(self.expected)))
            m.d.comb += [due[i].eq(Const(x, self.cb) == cycle + 1) for i, x in enumerate(self.expected)]
            bad += [self.tail_valid[n][k] & ~due[self.tail_serial[n][k]] for n in range(M) for k in range(K)]
        if self.W:
            # payload checkers: every ejected flit carries the payload of its serial and index
            bad += [self.eject_valid[n][k]
                    & (self.eject_payload[n][k] != self.payload_of(self.eject_serial[n][k], self.eject_idx[n][k]))
                    for n in range(M) for k in range(K)]
        if bad:
            with m.If(Cat(*bad).any()):
                m.d.sync += error.eq(1)
        return m
