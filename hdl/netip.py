"""The network as IP (issue 24): M routers joined through S planes, with open
per-node injection and ejection sides.

:class:`NetworkIP` holds one :class:`permnet.hdl.router.Router` per node and
the planes between them; everything around it (trace generators and checkers
in :class:`permnet.hdl.network.NetworkRTL`, AXI-Stream endpoints in
:class:`permnet.hdl.netstream.NetworkStream`) uses its ports.

The planes are one component with the interface of a run-time plane set:
per plane y and node n, ``fwd_i[y][n]`` (the link word leaving output y of
node n), ``fwd_o[y][d]`` (the word entering input y of node d),
``bwd_i[y][d]`` (the credits leaving input y of node d) and ``bwd_o[y][n]``
(the credits reaching output y of node n). A link word is
``Cat(valid, vc, flit)`` (:func:`permnet.hdl.router.link_signature`). The
default, :class:`WirePlanes`, is wires: output y of node n is input y of node
``planes[y][n]`` (an S-plane optical switch configured with the
decomposition, Melhem eq. 3). :meth:`NetworkIP.connect_planes` is the one
place that joins routers to planes.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.hdl.router import Router, bits, route_port_signature
from permnet.hdl.swapctl import SwapControl

__all__ = ["NetworkIP", "WirePlanes", "PLANE_LINKS", "PLANE_KINDS", "forward_ports", "plane_set_factory"]

PLANE_LINKS = ("fwd_i", "fwd_o", "bwd_i", "bwd_o")
PLANE_KINDS = ("wires", "crossbar", "benes")


def plane_set_factory(kind: str, planes, register: bool = False):
    """The ``plane_set`` hook of :class:`NetworkIP` for planes of ``kind``: ``wires``
    (:class:`WirePlanes`, fixed), or ``crossbar`` / ``benes``
    (:class:`permnet.hdl.planes.PlaneSet`, loadable at run time through its ``cfg`` port,
    combinational so a hop still takes one cycle), reset to ``planes`` (S lists of M).
    ``register``: the run-time planes' outputs are registers (both ways), so the plane's
    multiplexers sit between registers; every hop and every credit's way back then take one
    cycle more (one more link stage and one more credit stage, placed in the planes).
    A port the planes leave unconnected gates only its link word's valid bit (``gate_bits=1``:
    the routers read nothing else of a word without it) and its credits."""
    require(kind in PLANE_KINDS, f"unknown planes {kind!r} (one of {', '.join(PLANE_KINDS)})")
    require(not register or kind != "wires",
            "plane stages are for planes loadable at run time (crossbar, benes); wires take --link-stages")
    rows = [[int(x) for x in row] for row in planes]
    if kind == "wires":
        return lambda fw, bw: WirePlanes(len(rows[0]), len(rows), fw, bw, rows)
    from permnet.hdl.planes import PlaneSet

    return lambda fw, bw: PlaneSet(len(rows[0]), len(rows), fw, bw, kind, rows, register=register, gate_bits=1)


def forward_ports(m, outer, inner, members):
    """Join ports ``members`` (name -> member, as in ``inner``'s signature) of the component
    ``outer`` (the one elaborating ``m``) to the same ports of its submodule ``inner``."""
    for name, member in members.items():
        a, b = getattr(outer, name), getattr(inner, name)
        if member.is_signature:
            wiring.connect(m, wiring.flipped(a), b)
        elif member.flow == wiring.In:
            m.d.comb += b.eq(a)
        else:
            m.d.comb += a.eq(b)


class WirePlanes(wiring.Component):
    """Fixed planes as wires: ``fwd_o[y][planes[y][n]] = fwd_i[y][n]`` and
    ``bwd_o[y][n] = bwd_i[y][planes[y][n]]`` (no register: zero cycles)."""

    def __init__(self, M: int, S: int, fwd_width: int, bwd_width: int, planes):
        self.M, self.S, self.planes = M, S, [[int(x) for x in row] for row in planes]
        for y, row in enumerate(self.planes):
            require(sorted(row) == list(range(M)), f"plane {y} is not a permutation of the {M} nodes")
        super().__init__({"fwd_i": In(fwd_width).array(S, M), "fwd_o": Out(fwd_width).array(S, M),
                          "bwd_i": In(bwd_width).array(S, M), "bwd_o": Out(bwd_width).array(S, M)})

    def elaborate(self, platform):
        m = Module()
        for y in range(self.S):
            for n in range(self.M):
                d = self.planes[y][n]
                m.d.comb += [self.fwd_o[y][d].eq(self.fwd_i[y][n]), self.bwd_o[y][n].eq(self.bwd_i[y][d])]
        return m


class NetworkIP(wiring.Component):
    """M routers (:class:`permnet.hdl.router.Router`, whose docstring states latencies and
    back-pressure) on the planes and routes of ``routes``
    (:class:`permnet.hdl.routes.NetworkRoutes`).

    ``plane_set(fwd_width, bwd_width)`` builds the planes component (default
    :class:`WirePlanes` of ``routes.planes``); a run-time plane set with the same four port
    arrays drops in there, e.g. ``plane_set=lambda fw, bw: PlaneSet(M, S, fw, bw, "crossbar",
    planes)``; its other ports (a run-time plane set's ``cfg``) become ports of this component
    under the same names (``plane_ports``). The route tables stay those of ``routes``.

    ``swap=True`` (needs a plane set with a ``cfg`` port and ``routes.loadable``) adds the
    drain protocol of :mod:`permnet.hdl.swapctl` and the route tables' port:

    * ``swap_req`` (in): request a swap (so does ``cfg.commit``, which no longer commits by
      itself); ``swap_draining`` (out): injection paused, the network draining;
      ``swap_done`` (out): one-cycle pulse, the new planes and routes are active and injection
      has resumed; ``swap_cycles`` (out, ``swap_cycle_bits``): the last swap's length in
      cycles; ``idle`` (out): no flit in the network (the controller sees it a cycle late,
      through a register per node: the commit is in the cycle after the first idle paused
      cycle);
    * ``rt`` (:func:`permnet.hdl.router.route_port_signature` with ``node``): ``we`` writes
      ``data`` into the shadow route entry ``addr`` of router ``node``; the swap's commit makes
      every router's shadow table active together with the planes; ``rdata`` (registered) is
      the active entry at ``(node, addr)`` of the previous cycle. The words are
      :meth:`permnet.hdl.routes.NetworkRoutes.route_words`.

    ``control_ports``: the ports besides the endpoints (the plane set's and the swap's),
    which the tops bring out under the same names.

    Ports, per node n: ``inj[n]`` (the router's ``inj``), ``lane[n][j]`` and ``ej[n]`` (its
    ``ej``: ``ej[n][k]`` with ``eject="vc"``, one stream with ``eject="port"``). The other
    arguments are the router's. ``routers[n]`` are the routers (built here, so that their
    buffers can be reached before elaboration)."""

    def __init__(self, routes, *, vcs: int, buffer: int, lanes: int, wormhole: bool = False, size_bits: int,
                 tags: dict | None = None, data_fields: dict | None = None, eject: str = "vc", link_stages: int = 0,
                 plane_set=None, credit_stages: int = 0, swap: bool = False, swap_cycle_bits: int = 16,
                 allocator: str = "combined", compact: bool = False):
        self.routes = routes
        self.M, self.S = routes.M, routes.S
        self.routers = [Router(routes, n, vcs=vcs, buffer=buffer, lanes=lanes, wormhole=wormhole,
                               size_bits=size_bits, tags=tags, data_fields=data_fields, eject=eject,
                               link_stages=link_stages, credit_stages=credit_stages, allocator=allocator,
                               compact=compact)
                        for n in range(self.M)]
        r0 = self.routers[0]
        self.V, self.B, self.L, self.K = r0.V, r0.B, r0.L, r0.K
        self.layout = r0.layout
        mem = r0.signature.members
        self.fwd_width = 1 + len(r0.o[0].vc) + self.layout.size
        self.bwd_width = vcs
        make = plane_set or (lambda fw, bw: WirePlanes(self.M, self.S, fw, bw, routes.planes))
        self.planes = make(self.fwd_width, self.bwd_width)
        self.plane_ports = {name: member for name, member in self.planes.signature.members.items()
                            if name not in PLANE_LINKS}
        self.swap = bool(swap)
        self.control_ports = dict(self.plane_ports)
        if self.swap:
            require("cfg" in self.plane_ports, "a plane swap needs planes loadable at run time (crossbar or benes)")
            require(routes.loadable, "a plane swap needs loadable routes (NetworkRoutes(..., loadable=True))")
            self.swap_cycle_bits = swap_cycle_bits
            rt = route_port_signature(routes.route_addr_bits, routes.route_data_bits, bits(self.M - 1))
            self.control_ports |= {"rt": In(rt), "swap_req": In(1), "swap_draining": Out(1), "swap_done": Out(1),
                                   "swap_cycles": Out(swap_cycle_bits), "idle": Out(1)}
        else:
            require(not routes.loadable, "loadable routes are committed by the swap controller (swap=True)")
        members = {"inj": mem["inj"].array(self.M), "lane": mem["lane"].array(self.M), "ej": mem["ej"].array(self.M)}
        require(not set(members) & set(self.control_ports), f"plane set ports clash with {', '.join(members)}")
        super().__init__(members | self.control_ports)

    def connect_planes(self, m, planes):
        """Join every output (n, y) to its plane and every input (d, y) from it, credits back."""
        for y in range(self.S):
            for n, r in enumerate(self.routers):
                o, i = r.o[y], r.i[y]
                m.d.comb += [planes.fwd_i[y][n].eq(Cat(o.valid, o.vc, o.flit)),
                             Cat(i.valid, i.vc, i.flit).eq(planes.fwd_o[y][n]),
                             planes.bwd_i[y][n].eq(i.credit), o.credit.eq(planes.bwd_o[y][n])]

    def elaborate(self, platform):
        m = Module()
        pause = self._swap(m) if self.swap else Const(0, self.M)
        for n, r in enumerate(self.routers):
            m.submodules[f"router{n}"] = r
            # a paused router takes no descriptor: no packet starts, those in its lanes finish
            m.d.comb += [r.inj.payload.eq(self.inj[n].payload), r.inj.valid.eq(self.inj[n].valid & ~pause[n]),
                         self.inj[n].ready.eq(r.inj.ready & ~pause[n])]
            for j in range(self.L):
                wiring.connect(m, wiring.flipped(self.lane[n][j]), r.lane[j])
            if r.eject == "vc":
                for k in range(self.K):
                    wiring.connect(m, wiring.flipped(self.ej[n][k]), r.ej[k])
            else:
                wiring.connect(m, wiring.flipped(self.ej[n]), r.ej)
        m.submodules.planes = self.planes
        self.connect_planes(m, self.planes)
        forward_ports(m, self, self.planes, {k: v for k, v in self.plane_ports.items()
                                             if not (self.swap and k == "cfg")})
        return m

    def _swap(self, m):
        """The swap controller, the plane set's ``cfg`` and the routers' ``rt`` ports; returns ``pause``
        (one copy per node)."""
        ctl = m.submodules.swapctl = SwapControl(self.swap_cycle_bits, copies=self.M)
        cfg, pc = self.cfg, self.planes.cfg
        # idle: every router, and with registered planes no flit or credit in a plane's register
        # (those at node n's inputs counted with node n)
        quiet = []
        for n, r in enumerate(self.routers):
            busy = []
            if getattr(self.planes, "latency", 0):
                busy = [w for y in range(self.S) for w in (self.planes.fwd_o[y][n][0], self.planes.bwd_o[y][n].any())]
            q = Signal(name=f"quiet{n}")
            m.d.comb += q.eq(Cat(r.idle, *(~b for b in busy)).all())
            quiet.append(q)
        # the controller sees each node's quiet a cycle late, registered beside the node and only
        # while injection was already paused (a packet taken in the request's cycle is not yet in
        # a lane then), so the chip-wide AND starts at registers: the commit comes one cycle
        # after the first paused cycle in which the network is idle
        seen = [Signal(name=f"drained{n}") for n in range(self.M)]
        m.d.sync += [seen[n].eq(quiet[n] & ctl.pause[n]) for n in range(self.M)]
        m.d.comb += [self.idle.eq(Cat(*quiet).all()), ctl.idle.eq(Cat(*seen).all()),
                     ctl.req.eq(self.swap_req | cfg.commit), self.swap_draining.eq(ctl.draining),
                     self.swap_done.eq(ctl.done), self.swap_cycles.eq(ctl.cycles),
                     pc.plane.eq(cfg.plane), pc.addr.eq(cfg.addr), pc.data.eq(cfg.data), pc.we.eq(cfg.we),
                     pc.commit.eq(ctl.commit), cfg.rdata.eq(pc.rdata)]
        for n, r in enumerate(self.routers):
            m.d.comb += [r.rt.addr.eq(self.rt.addr), r.rt.data.eq(self.rt.data),
                         r.rt.we.eq(self.rt.we & (self.rt.node == n)), r.rt.commit.eq(ctl.commit)]
        m.d.sync += self.rt.rdata.eq(Array(r.rt.rdata for r in self.routers)[self.rt.node])
        return ctl.pause
