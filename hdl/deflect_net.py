"""Networks of deflection routers (issue 41): M
:class:`permnet.hdl.deflect.DeflectionRouter` joined by S planes.

:class:`DeflectionNetwork` is the routers and the planes with a ``lib.stream``
injection port and E ejection ports per node; :class:`DeflectionStream` puts
AXI-Stream endpoints on it (the names of :class:`permnet.hdl.netstream.NetworkStream`).

The planes are a plane set of :func:`permnet.hdl.netip.plane_set_factory`
(``wires``, or ``crossbar`` / ``benes`` loadable at run time) carrying a link
word ``Cat(valid, flit)`` forward and nothing back (no credits). Output y of
node n drives input y of node ``planes[y][n]`` combinationally, so a hop takes
the routers' P register stages (the spec's ``hop_cycles`` K = P). The
network's function, cycle for cycle, is every node's
:func:`permnet.gen.routing.deflection.route_step` on the flits its inputs
carry, the outputs reaching the next nodes' inputs P cycles later, through
the planes active in that later cycle: the model of
:func:`permnet.sim.netsim.deflect.deflection_trace` with ``link_stages = P - 1``
(``tests/hdl/test_deflect_net.py`` holds the RTL against both).

Swap without a drain (run-time planes): each router is built with its
loadable mask table (:class:`permnet.hdl.deflect.DeflectionRouter` with
``loadable``, its public ``rt`` port), the network's ``rt`` port writes the
shadow entries of the router ``rt.node`` names (:func:`mask_writes`), and the
plane set's ``cfg.commit`` is every router's ``rt.commit``: the planes' and
every node's shadow masks become active at the same clock edge. A flit in flight simply takes
the new routes from where it lands: every plane is a permutation, so every
output still reaches an input, and a flit leaves the network only by
ejection at its own destination. Nothing is lost or misdelivered; with P > 1
the flits in the routers' registers at the commit are allocated by the
masks of the cycle they entered (the spec's ``route_step`` of that cycle).
"""

from __future__ import annotations

import numpy as np
from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.routing import deflection as spec
from permnet.hdl.deflect import DEFAULT_EJECTION, DEFAULT_STAGES, DeflectionRouter
from permnet.hdl.netip import PLANE_KINDS, forward_ports, plane_set_factory
from permnet.hdl.router import route_port_signature

__all__ = ["DeflectionNetwork", "DeflectionStream", "MAX_NODES", "mask_writes"]

MAX_NODES = 64


def mask_writes(planes) -> list[tuple[int, int, int]]:
    """The ``(node, addr, data)`` writes of the ``rt`` port that load the productive masks of
    ``planes`` (S lists of M): ``data`` is node's mask for destination ``addr``
    (:func:`permnet.gen.routing.deflection.productive_masks`). Write them with the plane set's
    words (:meth:`permnet.hdl.planes.PlaneSet.writes`), then commit."""
    masks = spec.productive_masks(np.asarray(planes, dtype=np.int64))
    return [(n, d, int(masks[n][d])) for n in range(masks.shape[0]) for d in range(masks.shape[1])]


class DeflectionNetwork(wiring.Component):
    """M deflection routers on the S ``planes`` (``planes[y][n]``: the node output y of n
    reaches; the reset configuration of run-time planes).

    Ports
    -----
    ``inj[n]`` (in, ``lib.stream`` of ``dst, payload``): node n's injection port, router n's
    (``ready`` = a slot of router n is free this cycle; a flit taken in cycle t is on an output
    register from t + P). ``ej[n][e]`` (out, ``lib.stream`` of ``src, payload``): node n's
    ejection port e, router n's (a flit ejected in cycle t is valid from t + 1, held until
    taken). ``ejection``, ``width``, ``stages`` and ``cells`` are the routers'
    (:class:`permnet.hdl.deflect.DeflectionRouter`, whose docstring gives each stage's latency
    and the livelock bound); every router has the same age width.

    ``plane_kind`` ``crossbar`` or ``benes``: the planes are a run-time
    :class:`permnet.hdl.planes.PlaneSet` (its ``cfg`` port a port of this component) and every
    router's masks its loadable table, reached through ``rt``
    (:func:`permnet.hdl.router.route_port_signature` with ``node``: ``we`` writes ``data``, an
    S-bit mask, into router ``node``'s shadow entry for destination ``addr``, its ``rt`` port;
    ``rdata``, registered, is the active entry at ``(node, addr)`` of the previous cycle). ``cfg.commit`` in cycle t makes the planes' and the masks' shadows active
    together from t + 1: the swap, at any cycle, with traffic (module doc). The ages are as wide
    as the reset planes need (:func:`permnet.gen.routing.deflection.age_bits` of their diameter):
    planes of a larger diameter loaded later still deliver every flit once, but the stated hop
    bound needs ages that do not saturate, so build the network on the planes of the largest
    diameter it will carry.

    Timing: a flit injected at node s in cycle t and delivered along h hops is ejected at its
    destination in cycle t + P h at the earliest (no deflection) and valid on ``ej`` from the
    next cycle.
    """

    def __init__(self, planes, *, ejection: int = DEFAULT_EJECTION, width: int = 32, stages: int = DEFAULT_STAGES,
                 cells: str = "generic", plane_kind: str = "wires"):
        arr = np.asarray(planes, dtype=np.int64)
        require(arr.ndim == 2, "planes must be S lists of M nodes")
        S, M = arr.shape
        require(M <= MAX_NODES, f"the RTL network is for small networks (M <= {MAX_NODES}), got {M}")
        require(all(sorted(row) == list(range(M)) for row in arr.tolist()),
                "every plane must be a permutation of the nodes (wire planes join each output to one input)")
        require(plane_kind in PLANE_KINDS, f"unknown planes {plane_kind!r} (one of {', '.join(PLANE_KINDS)})")
        self.planes, self.S, self.M, self.plane_kind = arr.tolist(), S, M, plane_kind
        self.loadable = plane_kind != "wires"
        kw = dict(ejection=ejection, width=width, stages=stages, cells=cells, loadable=self.loadable)
        self.routers = [DeflectionRouter(self.planes, n, **kw) for n in range(M)]
        r0 = self.routers[0]
        self.E, self.P, self.K, self.age_bits, self.nb = r0.E, r0.P, r0.K, r0.age_bits, r0.nb
        self.fwd_width = 1 + r0.layout.as_shape().width
        self.plane_set = plane_set_factory(plane_kind, self.planes)(self.fwd_width, 1)
        self.control_ports = {name: member for name, member in self.plane_set.signature.members.items()
                              if name not in ("fwd_i", "fwd_o", "bwd_i", "bwd_o")}
        if self.loadable:
            self.control_ports["rt"] = In(route_port_signature(self.nb, S, self.nb))
        super().__init__({"inj": In(r0.inj.signature.flip()).array(M),
                          "ej": Out(r0.ej[0].signature).array(M, ejection)} | self.control_ports)

    def elaborate(self, platform):
        m = Module()
        planes = m.submodules.planes = self.plane_set
        for n, r in enumerate(self.routers):
            m.submodules[f"router{n}"] = r
            wiring.connect(m, wiring.flipped(self.inj[n]), r.inj)
            for e in range(self.E):
                wiring.connect(m, r.ej[e], wiring.flipped(self.ej[n][e]))
            for y in range(self.S):
                o, i = r.o[y], r.i[y]
                m.d.comb += [planes.fwd_i[y][n].eq(Cat(o.valid, o.flit)), Cat(i.valid, i.flit).eq(planes.fwd_o[y][n]),
                             planes.bwd_i[y][n].eq(0)]
        if self.loadable:
            self._masks(m)
            forward_ports(m, self, planes, {k: v for k, v in self.control_ports.items() if k != "rt"})
        return m

    def _masks(self, m):
        """The mask tables: each router's ``rt`` port (:class:`permnet.hdl.deflect.DeflectionRouter`),
        written when ``rt.node`` names it, committed by ``cfg.commit``; ``rdata`` registered."""
        rt = self.rt
        for n, r in enumerate(self.routers):
            m.d.comb += [r.rt.addr.eq(rt.addr), r.rt.data.eq(rt.data), r.rt.we.eq(rt.we & (rt.node == n)),
                         r.rt.commit.eq(self.cfg.commit)]
        rows = [r.rt.rdata for r in self.routers] + [Const(0, self.S)] * ((1 << self.nb) - self.M)
        m.d.sync += rt.rdata.eq(Array(rows)[rt.node])


class DeflectionStream(wiring.Component):
    """:class:`DeflectionNetwork` with an AXI-Stream injection and ejection port per node, named
    as :class:`permnet.hdl.netstream.NetworkStream` names them: ``n{d}_in_tvalid
    n{d}_in_tready n{d}_in_tdata n{d}_in_tlast n{d}_in_tdest`` and ``n{d}_out_t...`` the same;
    ``dest_error`` (sticky) rises when a beat named a ``tdest`` that is not a node (that beat is
    taken and dropped). The other arguments are :class:`DeflectionNetwork`'s; its control ports
    (``cfg``, ``rt`` with run-time planes) are ports of this top under the same names.

    A packet is one beat (one flit): ``tdata`` (W bits) and ``tdest``, its destination; the
    input ``tlast`` is ignored (every beat is a packet) and the output ``tlast`` is always 1, so
    a master or a slave written for the stream network connects unchanged. On the way out
    ``tdest`` is the source node.

    Injection: ``n{d}_in_tready`` is router d's ``inj.ready``: high iff one of its input slots
    is free this cycle (empty, or its flit ejected); low while none is (``tdest`` not a node:
    high, the beat dropped). A beat taken in cycle t is routed in t and on an output from t + P.

    Ejection: router d's E ejection FIFOs (2 flits each) share ``n{d}_out``: a round-robin
    arbiter shows the first FIFO holding a flit after the one last taken (in port order), and
    holds that choice while ``tvalid`` is high and ``tready`` low (the beat stays stable until
    taken, AXI-Stream rules). ``tready`` low fills the FIFOs; a full FIFO takes no more flits,
    and the router deflects the flits for node d until it has room again: nothing is dropped,
    nothing waits in a buffer in the network. A flit ejected in cycle t is valid at the earliest
    from t + 1.

    Order: packets from one node to another may arrive in any order (a flit deflected once takes
    a longer way than the one injected after it); a user who needs the order puts a sequence
    number in ``tdata`` and reorders at the destination (docs/guide/network-ip.md).
    """

    # synthesised as the VC stream network is: one flat network, ABC9 without -dff, nextpnr's router2
    synth_dff = False
    synth_router = "router2"

    @property
    def synth_nodes(self) -> int:
        """The nodes of the network (:func:`permnet.hdl.synth.synthesize` reports LUTs per node)."""
        return self.M

    def __init__(self, planes, *, ejection: int = DEFAULT_EJECTION, width: int = 32, stages: int = DEFAULT_STAGES,
                 cells: str = "generic", plane_kind: str = "wires"):
        self.net = DeflectionNetwork(planes, ejection=ejection, width=width, stages=stages, cells=cells,
                                     plane_kind=plane_kind)
        self.M, self.S, self.E, self.P, self.K, self.W = (self.net.M, self.net.S, self.net.E, self.net.P,
                                                          self.net.K, width)
        self.nb = self.net.nb
        members = {}
        for d in range(self.M):
            members |= {f"n{d}_in_tvalid": In(1), f"n{d}_in_tready": Out(1), f"n{d}_in_tdata": In(width),
                        f"n{d}_in_tlast": In(1), f"n{d}_in_tdest": In(self.nb),
                        f"n{d}_out_tvalid": Out(1), f"n{d}_out_tready": In(1), f"n{d}_out_tdata": Out(width),
                        f"n{d}_out_tlast": Out(1), f"n{d}_out_tdest": Out(self.nb)}
        members["dest_error"] = Out(1)
        super().__init__(members | self.net.control_ports)

    def port(self, d: int, side: str, name: str):
        """The signal ``n{d}_{side}_{name}`` (side ``in`` or ``out``, name ``tvalid`` ...)."""
        return getattr(self, f"n{d}_{side}_{name}")

    def elaborate(self, platform):
        m = Module()
        net = m.submodules.net = self.net
        errors = []
        for d in range(self.M):
            inj, dest = net.inj[d], self.port(d, "in", "tdest")
            bad = Signal(name=f"n{d}_bad")
            m.d.comb += bad.eq(dest >= self.M if self.M < 1 << self.nb else 0)
            err = Signal(name=f"n{d}_dest_error")
            with m.If(self.port(d, "in", "tvalid") & bad):
                m.d.sync += err.eq(1)
            errors.append(err)
            m.d.comb += [inj.valid.eq(self.port(d, "in", "tvalid") & ~bad), inj.payload.dst.eq(dest),
                         inj.payload.payload.eq(self.port(d, "in", "tdata")),
                         self.port(d, "in", "tready").eq(inj.ready | bad)]
            self._merge(m, d, net.ej[d])
        m.d.comb += self.dest_error.eq(Cat(*errors).any())
        forward_ports(m, self, net, net.control_ports)
        return m

    def _merge(self, m, d, ports):
        """Node d's E ejection FIFOs onto ``n{d}_out`` (round robin, the choice held while not taken)."""
        E = self.E
        valid, ready = self.port(d, "out", "tvalid"), self.port(d, "out", "tready")
        m.d.comb += self.port(d, "out", "tlast").eq(1)
        if E == 1:
            m.d.comb += [valid.eq(ports[0].valid), ports[0].ready.eq(ready),
                         self.port(d, "out", "tdata").eq(ports[0].payload.payload),
                         self.port(d, "out", "tdest").eq(ports[0].payload.src)]
            return
        last = Signal(range(E), name=f"n{d}_rr_last", init=E - 1)     # the port last taken
        held = Signal(range(E), name=f"n{d}_rr_held")
        hold = Signal(name=f"n{d}_rr_hold")                          # shown and not taken last cycle
        pick = Signal(range(E), name=f"n{d}_rr_pick")
        with m.Switch(last):
            for k in range(E):
                with m.Case(k):
                    order = [(k + 1 + j) % E for j in range(E)]
                    sel = order[-1]
                    for e in reversed(order[:-1]):
                        sel = Mux(ports[e].valid, e, sel)
                    m.d.comb += pick.eq(sel)
        sel = Signal(range(E), name=f"n{d}_rr_sel")
        m.d.comb += [sel.eq(Mux(hold, held, pick)), valid.eq(Cat(*(p.valid for p in ports)).any()),
                     self.port(d, "out", "tdata").eq(Array(p.payload.payload for p in ports)[sel]),
                     self.port(d, "out", "tdest").eq(Array(p.payload.src for p in ports)[sel])]
        m.d.comb += [p.ready.eq(ready & (sel == e)) for e, p in enumerate(ports)]
        m.d.sync += [held.eq(sel), hold.eq(valid & ~ready)]
        with m.If(valid & ready):
            m.d.sync += last.eq(sel)
