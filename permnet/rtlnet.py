"""``permnet rtl network`` as one library call: the network's trace, the
reference run of the cycle-level simulator that gives each packet's delivery
cycle, and the RTL (:class:`permnet.hdl.network.NetworkRTL`) holding those
cycles in its ejection checkers; or, with ``endpoints="stream"``, the network
with AXI-Stream endpoints (:class:`permnet.hdl.netstream.NetworkStream`).

This lives in the ``permnet`` package because it joins two layers the
``hdl`` package must keep apart: the RTL (``permnet.hdl``) and the model it
is checked against (``permnet.sim.netsim``).

:func:`router` and :func:`network` build the VC router kind,
:func:`deflection_router` and :func:`deflection_network` the deflection router
kind; which one a command builds is the kind's (:mod:`permnet.routerkinds`,
``router_rtl`` and ``network_rtl``).
"""

from __future__ import annotations

from dataclasses import dataclass

from permnet.gen.errors import require
from permnet.gen.hexfile import hex_digits
from permnet.gen.limits import RTL_VC_BUFFERS
from permnet.gen.routing.allocation import ALLOCATORS

__all__ = ["MAX_NODES", "MAX_FLIT_WIDTH", "ROUTER_CHOICES", "ENDPOINTS", "ALLOCATORS", "NetworkPlan", "plan", "network",
           "stream_network", "stream_routes", "swap_words", "router_for", "wired_network", "deflection_router",
           "deflection_network"]

MAX_NODES = 64          # the RTL network is for small networks
MAX_VC_BUFFERS = RTL_VC_BUFFERS    # M*S*vcs: elaboration time grows with it (issue 29: -M 64 -S 8 did not finish)
MAX_FLIT_WIDTH = 1024   # payload bits per flit
MAX_BUFFER = 1024       # flits per VC (netsim's bound)
# S*vcs*buffer flit slots of one router (rtl/synth router): elaboration time grows with them
# (LDI(8,2): 24 slots 9 s, 256 slots 45 s, 1536 slots 100 s on 2 busy cores)
MAX_ROUTER_FLITS = 2048
MAX_SPAN = 1 << 16      # cycles over which the seeded trace starts its packets (rtl network --span)
MAX_PACKETS = 1 << 16   # packets of that trace (one init-file entry each)


def _check_buffers(vcs, buffer) -> None:
    """``--vcs`` (None: the longest route) and ``--buffer``, as every VC network command bounds them."""
    from permnet.gen.analysis.deadlock import MAX_VCS

    require(vcs is None or 1 <= vcs <= MAX_VCS, f"--vcs must be in 1..{MAX_VCS}, got {vcs}")
    require(2 <= buffer <= MAX_BUFFER and buffer & (buffer - 1) == 0,
            f"--buffer must be a power of two in 2..{MAX_BUFFER} flits, got {buffer}")
ROUTER_CHOICES = ("auto", "nexthop", "table")   # auto, then :data:`permnet.hdl.network.ROUTERS`
ENDPOINTS = ("selftest", "stream")              # trace generators and checkers, or AXI-Stream ports
STREAM_FLIT_WIDTH = 32                          # tdata bits when --flit-width is not given


@dataclass
class NetworkPlan:
    """What the RTL is built from: the network, its trace rows ``(cycle, src, dst, size)``,
    the VC count, and ``expected[serial]``, the cycle at which the simulator delivers each packet."""

    net: object
    rows: list
    vcs: int
    buffer: int
    switching: str
    expected: list


def wired_network(M: int, S: int, topology: str = "ldi", planes_file=None):
    """The network the RTL wires (a :class:`permnet.gen.routing.tables.Network`): the family
    ``topology`` with its own routing, or, with ``planes_file`` (what ``permnet planes``,
    ``plan``, ``mixed`` or ``fabric compile`` writes, read by
    :func:`permnet.planeload.read_planes`; M and S must be the file's), those planes routed
    on shortest paths (:func:`permnet.gen.routing.tables.from_planes`), which only the
    route-table router follows (the next-hop unit computes Melhem's LDI routes)."""
    from permnet.gen.routing import tables

    require(M <= MAX_NODES, f"the RTL network is for small networks (M <= {MAX_NODES}), got {M}")
    if planes_file is None:
        return tables.network(topology, M, S)
    from pathlib import Path

    from permnet.planeload import read_planes

    planes = read_planes(planes_file, M, S)
    require(bool((planes >= 0).all()), f"{planes_file}: unconnected ports; the RTL network wires every port "
                                       "of every plane")
    return tables.Network(f"planes {Path(planes_file).name}", tables.from_planes(planes),
                          {"nodes": M, "degree": S, "planes_file": str(planes_file)})


def _module_name(topology: str, planes_file) -> str:
    return "planes" if planes_file is not None else topology


def plan(M: int, S: int, topology: str = "ldi", vcs: int | None = None, buffer: int = 4, switching: str = "vct",
         trace: str | None = None, packets: int = 64, span: int = 32, max_size: int = 4,
         seed: int = 0, link_stages: int = 0, planes_file=None, credit_stages: int = 0) -> NetworkPlan:
    """The trace (the file ``trace``, or ``packets`` seeded uniform packets over ``span`` cycles)
    and its reference run on the cycle-level simulator, on :func:`wired_network`."""
    from permnet.fileio import read_text
    from permnet.hdl.network import random_trace
    from permnet.sim import netsim

    require(M <= MAX_NODES, f"the RTL network is for small networks (M <= {MAX_NODES}), got {M}")
    _check_buffers(vcs, buffer)
    net = wired_network(M, S, topology, planes_file)
    t = net.table
    vcs = vcs or t.max_hops
    from permnet.netsim import _check_vcs      # the check netsim makes: no deadlock-prone RTL either
    _check_vcs(net, netsim.Config(vcs=vcs), False, hint="")
    require(M * S * vcs <= MAX_VC_BUFFERS, f"the RTL network elaborates M*S*vcs <= {MAX_VC_BUFFERS} VC buffers "
                                           f"(LDI(16,4) with 2 VCs, 128, took 36 s); got {M}*{S}*{vcs}")
    if trace:
        tr = netsim.parse_trace(read_text(trace), M, None if switching == "wormhole" else buffer, where=trace)
        rows = [tuple(int(a[i]) for a in tr.trace) for i in range(tr.trace[0].size)]
    else:
        require(1 <= span <= MAX_SPAN, f"--span must be 1..{MAX_SPAN} cycles, got {span}")
        require(1 <= packets <= MAX_PACKETS, f"--packets must be 1..{MAX_PACKETS}, got {packets}")
        rows = random_trace(M, packets, span, max_size, seed)
        text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
        tr = netsim.parse_trace(text, M, None if switching == "wormhole" else buffer)
    ref = netsim.simulate(net, tr, 1.0, netsim.Config(vcs=vcs, buffer=buffer, switching=switching,
                                                       link_stages=link_stages, credit_stages=credit_stages,
                                                       log=len(rows) + 1))
    require(not ref.deadlock, f"{net.name} with {vcs} VC(s) deadlocks on this trace")
    done = [0] * len(rows)
    for a in ref.log:
        done[int(a[0])] = int(a[4])
    return NetworkPlan(net, rows, vcs, buffer, switching, done)


def router_for(table, router: str = "auto") -> str:
    """The RTL router for a route table: ``nexthop`` (the divider-free unit) where the table is
    Melhem's routing of LDI(M, S) with M = S^(h-1) G, else ``table``; ``router`` forces one."""
    melhem = table.method == "ldi-melhem"
    require(router in ROUTER_CHOICES, f"unknown router {router!r} ({', '.join(ROUTER_CHOICES)})")
    require(router != "nexthop" or melhem,
            "--router nexthop needs LDI(M,S) with M = S^(h-1)*G (Melhem's routing); use --router table")
    return ("nexthop" if melhem else "table") if router == "auto" else router


def network(M: int, S: int, topology: str = "ldi", vcs: int | None = None, buffer: int = 4, switching: str = "vct",
            trace: str | None = None, packets: int = 64, span: int = 32, max_size: int = 4, seed: int = 0,
            flit_width: int | None = None, router: str = "auto", endpoints: str = "selftest", link_stages: int = 0,
            planes: str = "wires", planes_file=None, credit_stages: int = 0, target: str = "generic",
            allocator: str = "combined", plane_stages: int = 0, lanes: int | None = None):
    """The RTL network with its trace generators (:class:`permnet.hdl.emit.Generated`); init file
    ``expected``: the cycle at which the simulator delivers each packet (by serial), for a checker.
    ``flit_width`` payload bits per flit (0: header-only flits, the default), checked at every ejection;
    ``router`` as in :func:`router_for`. ``endpoints="stream"``: :func:`stream_network` instead
    (``max_size`` its longest packet; the trace options do not apply). ``link_stages`` registers
    on every link and ``credit_stages`` on every credit's way back (:class:`permnet.hdl.router.Router`),
    the simulator's reference run likewise.
    ``planes``: ``wires`` (fixed), ``crossbar`` or ``benes`` (a run-time
    :class:`permnet.hdl.planes.PlaneSet` reset to the topology's planes, its ``cfg`` port on
    the top; with streams also the drained swap, :func:`stream_network`).  ``planes_file``:
    the planes of that file instead of ``topology`` (:func:`wired_network`; table routing):
    the wires, or the run-time planes' reset configuration. ``target="ecp5"``:
    the routers' data path and the run-time planes of hand-mapped ECP5 cells (synthesis only;
    ``permnet synth network`` on ECP5). ``allocator``: the routers' (``input-first`` needs
    ``endpoints="stream"``, whose one ejection port per node it needs; :class:`permnet.hdl.router.Router`).
    ``plane_stages`` and ``lanes`` (streams): :func:`stream_network`."""
    gen = _network(M, S, topology, vcs, buffer, switching, trace, packets, span, max_size, seed, flit_width, router,
                   endpoints, link_stages, planes, planes_file, credit_stages, allocator, plane_stages, lanes)
    from permnet.hdl.emit import cells_for

    ip = gen.component.ip
    for r in ip.routers:
        r.cells = cells_for(target) or "generic"
    if hasattr(ip.planes, "cells"):
        ip.planes.cells = cells_for(target)
    return gen


def _network(M, S, topology, vcs, buffer, switching, trace, packets, span, max_size, seed, flit_width, router,
             endpoints, link_stages, planes, planes_file, credit_stages, allocator="combined", plane_stages=0,
             lanes=None):
    from permnet.hdl import emit
    from permnet.hdl.netip import PLANE_KINDS
    from permnet.hdl.network import NetworkRTL

    require(endpoints in ENDPOINTS, f"unknown endpoints {endpoints!r} ({', '.join(ENDPOINTS)})")
    require(planes in PLANE_KINDS, f"unknown planes {planes!r} ({', '.join(PLANE_KINDS)})")
    if endpoints == "stream":
        require(trace is None, "--trace drives the self-test's generators; streams take no trace")
        return stream_network(M, S, topology, vcs, buffer, switching, flit_width, router, max_size, link_stages,
                              planes, planes_file, credit_stages, allocator, plane_stages,
                              1 if lanes is None else lanes)
    require(plane_stages == 0, "--plane-stages needs --endpoints stream")
    require(lanes is None, "--lanes needs --endpoints stream (the self-test's routers have S lanes)")
    require(allocator == "combined", f"--allocator {allocator} needs --endpoints stream (one ejection port "
            "per node); the self-test ejects from every VC")
    flit_width = flit_width or 0
    require(0 <= flit_width <= MAX_FLIT_WIDTH, f"--flit-width must be 0..{MAX_FLIT_WIDTH} bits, got {flit_width}")
    require(0 <= link_stages <= 16, f"--link-stages must be 0..16, got {link_stages}")
    require(0 <= credit_stages <= 16, f"--credit-stages must be 0..16, got {credit_stages}")
    p = plan(M, S, topology, vcs, buffer, switching, trace, packets, span, max_size, seed, link_stages,
             planes_file, credit_stages)
    t = p.net.table
    router = router_for(t, router)
    done = p.expected
    comp = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), p.rows, vcs=p.vcs, buffer=buffer,
                      wormhole=switching == "wormhole", expected=done, flit_width=flit_width, router=router,
                      link_stages=link_stages, planes_kind=planes, credit_stages=credit_stages)
    params = {"topology": p.net.name, "vcs": p.vcs, "buffer": buffer, "switching": switching,
              "packets": len(p.rows), "lanes": comp.L, "router": router, "last_delivery": max(done)}
    if planes != "wires":
        params["planes"] = planes
    if flit_width:
        params["flit_width"] = flit_width
    if link_stages:
        params["link_stages"] = link_stages
    if credit_stages:
        params["credit_stages"] = credit_stages
    return emit.Generated("network", f"{_module_name(topology, planes_file)}_network", comp, params,
                          {"expected": done},
                          {"expected": hex_digits(max(done).bit_length())})


def stream_network(M: int, S: int, topology: str = "ldi", vcs: int | None = None, buffer: int = 4,
                   switching: str = "vct", flit_width: int | None = None, router: str = "auto",
                   max_size: int = 4, link_stages: int = 0, planes: str = "wires", planes_file=None,
                   credit_stages: int = 0, allocator: str = "combined", plane_stages: int = 0, lanes: int = 1):
    """The network with an AXI-Stream injection and ejection port per node
    (:class:`permnet.hdl.netstream.NetworkStream`, :class:`permnet.hdl.emit.Generated` named
    ``<topology>_network_stream``): ``flit_width`` tdata bits (default 32), packets of at most
    ``max_size`` flits, ``vcs`` at least the longest route (hop-indexed VCs, deadlock-free),
    ``link_stages`` registers on every link, ``credit_stages`` on every credit's way back; ``planes`` as in :func:`network`: with
    ``crossbar`` or ``benes`` the routes are loadable and the top has the drained swap
    (:class:`permnet.hdl.netip.NetworkIP` with ``swap=True``; the words of a swap:
    :func:`swap_words`); ``planes_file`` as in :func:`network`; ``allocator`` the routers'
    (:class:`permnet.hdl.router.Router`). ``plane_stages`` 1 (``crossbar`` or ``benes``):
    the planes' outputs are registers both ways (:func:`permnet.hdl.netip.plane_set_factory`),
    so a hop and a credit's way back take a cycle more: the simulator's model with
    ``link_stages + 1`` and ``credit_stages + 1``. ``lanes`` injection lanes per node, 1 or 2
    (:class:`permnet.hdl.netstream.TwoLaneInjector`; the simulator's ``lanes``)."""
    from permnet.hdl import emit
    from permnet.hdl.netip import plane_set_factory
    from permnet.hdl.netstream import NetworkStream

    flit_width = STREAM_FLIT_WIDTH if flit_width is None else flit_width
    require(1 <= flit_width <= MAX_FLIT_WIDTH, f"--flit-width must be 1..{MAX_FLIT_WIDTH} bits for streams, "
            f"got {flit_width}")
    require(M <= MAX_NODES, f"the RTL network is for small networks (M <= {MAX_NODES}), got {M}")
    _check_buffers(vcs, buffer)
    require(max_size >= 1, f"--max-size must be >= 1 flit, got {max_size}")
    require(0 <= link_stages <= 16, f"--link-stages must be 0..16, got {link_stages}")
    require(0 <= credit_stages <= 16, f"--credit-stages must be 0..16, got {credit_stages}")
    require(plane_stages in (0, 1), f"--plane-stages must be 0 or 1, got {plane_stages}")
    require(lanes in (1, 2), f"--lanes must be 1 or 2 for streams, got {lanes}")
    require(link_stages + plane_stages <= 16 and credit_stages + plane_stages <= 16,
            "--plane-stages 1 adds a link and a credit stage: at most 15 of each with it (the simulator models 16)")
    require(switching == "wormhole" or max_size <= buffer,
            f"virtual cut-through needs --buffer ({buffer}) >= --max-size ({max_size}), the longest packet")
    net, routes, vcs = stream_routes(M, S, topology, vcs, router, planes, planes_file)
    router = routes.router
    comp = NetworkStream(routes, vcs=vcs, buffer=buffer, wormhole=switching == "wormhole", flit_width=flit_width,
                         max_packet=max_size, link_stages=link_stages, credit_stages=credit_stages,
                         plane_set=plane_set_factory(planes, routes.planes, register=plane_stages == 1),
                         swap=planes != "wires",
                         allocator=allocator, lanes=lanes)
    params = {"topology": net.name, "vcs": vcs, "buffer": buffer, "switching": switching, "router": router,
              "endpoints": "stream", "flit_width": flit_width, "max_packet": max_size,
              "inject_fifo": comp.D, "link_stages": link_stages}
    if credit_stages:
        params["credit_stages"] = credit_stages
    if planes != "wires":
        params["planes"] = planes
    if allocator != "combined":
        params["allocator"] = allocator
    if plane_stages:
        params["plane_stages"] = plane_stages
    if lanes != 1:
        params["lanes"] = lanes
    return emit.Generated("network", f"{_module_name(topology, planes_file)}_network_stream", comp, params)


def stream_routes(M: int, S: int, topology: str = "ldi", vcs: int | None = None, router: str = "auto",
                  planes: str = "wires", planes_file=None):
    """``(network, routes, vcs)`` of :func:`stream_network`: the topology's planes and routes
    (:class:`permnet.hdl.routes.NetworkRoutes`, loadable with routes of up to ``vcs`` hops
    when ``planes`` is loadable at run time); ``planes_file``: :func:`wired_network`."""
    from permnet.hdl.routes import NetworkRoutes

    net = wired_network(M, S, topology, planes_file)
    t = net.table
    vcs = vcs or t.max_hops
    require(vcs >= t.max_hops, f"--vcs {vcs} is below the longest route ({t.max_hops} hops): hop-indexed VCs "
            "could deadlock")
    router = router_for(t, router)
    routes = NetworkRoutes(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), router,
                           loadable=planes != "wires", max_hops=vcs if planes != "wires" else None)
    return net, routes, vcs


def swap_words(M: int, S: int, source, planes: str = "crossbar", topology: str = "ldi", vcs: int | None = None,
               router: str = "auto", network: str = "benes", only_changes: bool = False, planes_file=None):
    """The words that swap the network :func:`stream_network` builds with these options to the
    planes of ``source`` (a ``permnet planes``/``faults``/``mixed``/``fabric`` file, or an S x M
    array): a :class:`permnet.planeload.SwapLoad` (:func:`permnet.planeload.swap_load`, which
    says which swaps each router supports)."""
    from permnet.planeload import swap_load

    require(planes in ("crossbar", "benes"), f"--planes {planes} cannot be swapped at run time (crossbar, benes)")
    _, routes, _ = stream_routes(M, S, topology, vcs, router, planes, planes_file)
    return swap_load(source, routes, planes, network, only_changes=only_changes)


def router(M: int, S: int, topology: str = "ldi", node: int = 0, vcs: int | None = None, buffer: int = 4,
           switching: str = "vct", flit_width: int = STREAM_FLIT_WIDTH, router: str = "auto", lanes: int = 1,
           eject: str = "port", max_size: int | None = None, link_stages: int = 0, credit_stages: int = 0,
           cells: str = "generic", allocator: str = "combined"):
    """One :class:`permnet.hdl.router.Router` on its own (:class:`permnet.hdl.emit.Generated`
    named ``router``): node ``node`` of the network ``topology`` (M, S) configured as
    :func:`stream_network` configures its routers (``lanes`` injection lanes, ``eject="port"``
    one ejection stream, a ``payload`` field of ``flit_width`` bits; packets of up to
    ``max_size`` flits, default ``buffer``), with its ports as top-level ports: links
    ``i__{y}__*`` and ``o__{y}__*``, ``inj__*``, ``lane__{j}__*``, ``ej__*``. ``vcs`` (default
    the longest route) must be at least the longest route (hop-indexed VCs); ``link_stages`` and ``credit_stages`` are the
    router's pipeline (:class:`permnet.hdl.router.Router`, Timing); ``cells="ecp5"`` builds its
    datapath multiplexers of hand-mapped ECP5 cells (synthesis only; ``permnet synth router``
    on ECP5 does).

    ``permnet synth router`` registers every port at the boundary
    (:class:`permnet.hdl.synth.RegisteredIO`), so the reported Fmax is the router's own
    register-to-register speed, not its I/O's."""
    from permnet.hdl import emit
    from permnet.hdl.router import EJECT_MODES, Router, bits

    require(1 <= flit_width <= MAX_FLIT_WIDTH, f"--flit-width must be 1..{MAX_FLIT_WIDTH} bits, got {flit_width}")
    _check_buffers(vcs, buffer)
    require(1 <= lanes <= 16, f"--lanes must be 1..16, got {lanes}")
    require(eject in EJECT_MODES, f"unknown ejection {eject!r} ({', '.join(EJECT_MODES)})")
    size = buffer if max_size is None else max_size
    require(size >= 1, f"--max-size must be >= 1 flit, got {size}")
    require(switching == "wormhole" or size <= buffer,
            f"virtual cut-through needs --buffer ({buffer}) >= --max-size ({size}), the longest packet")
    net, routes, vcs = stream_routes(M, S, topology, vcs, router)
    require(0 <= node < M, f"--node must be a node of the network (0..{M - 1}), got {node}")
    require(S * vcs * buffer <= MAX_ROUTER_FLITS, f"one router elaborates S*vcs*buffer <= {MAX_ROUTER_FLITS} flit "
            f"slots (1536 take about 100 s); got {S}*{vcs}*{buffer} = {S * vcs * buffer}")
    comp = Router(routes, node, vcs=vcs, buffer=buffer, lanes=lanes, wormhole=switching == "wormhole",
                  size_bits=bits(max(size, buffer)), data_fields={"payload": flit_width}, eject=eject,
                  link_stages=link_stages, credit_stages=credit_stages, cells=cells, allocator=allocator,
                  compact=True)
    params = {"topology": net.name, "node": node, "vcs": vcs, "buffer": buffer, "switching": switching,
              "routing": routes.router, "flit_width": flit_width, "lanes": lanes, "eject": eject,
              "max_packet": size, "link_stages": link_stages, "credit_stages": credit_stages,
              "cells": cells, "allocator": allocator}
    return emit.Generated("router", "router", comp, params)


def _deflection_routing(router: str, default: str) -> str:
    """The deflection router's masks for ``--router``: ``table`` (loadable, the ``rt`` port) or
    ``fixed`` (constants); ``auto`` is ``default``. It has no next-hop unit (one route a pair):
    it needs every productive output of a destination."""
    require(router in ROUTER_CHOICES, f"unknown router {router!r} ({', '.join(ROUTER_CHOICES)})")
    require(router != "nexthop", "--router nexthop: the deflection router takes every productive output from "
            "its masks (constants by default, loadable with --router table), not one route from the next-hop unit")
    return default if router == "auto" else "table"


def deflection_router(M: int, S: int, topology: str = "ldi", node: int = 0, flit_width: int = STREAM_FLIT_WIDTH,
                      ejection: int = 2, stages: int = 1, planes_file=None, cells: str = "generic",
                      router: str = "auto"):
    """One :class:`permnet.hdl.deflect.DeflectionRouter` on its own (:class:`permnet.hdl.emit.Generated`
    named ``deflection_router``): node ``node`` of :func:`wired_network` (M, S, ``topology`` or
    ``planes_file``), ``flit_width`` payload bits, ``ejection`` ejection streams, ``stages``
    register stages per hop (1, 2 or 3; the spec's ``hop_cycles``); ``router`` ``auto`` (the
    planes' productive masks as constants) or ``table`` (a loadable table, port ``rt__*``);
    ``cells="ecp5"`` builds its multiplexers of hand-mapped ECP5 cells (synthesis only). Its ports
    as top-level ports: links ``i__{y}__*`` and ``o__{y}__*``, ``inj__*``, ``ej__{e}__*``.
    ``permnet synth router --switching deflection`` registers every port at the boundary, as for
    the VC router."""
    from permnet.hdl import emit
    from permnet.hdl.deflect import DeflectionRouter

    require(1 <= flit_width <= MAX_FLIT_WIDTH, f"--flit-width must be 1..{MAX_FLIT_WIDTH} bits, got {flit_width}")
    routing = _deflection_routing(router, "fixed")
    net = wired_network(M, S, topology, planes_file)
    require(0 <= node < M, f"--node must be a node of the network (0..{M - 1}), got {node}")
    require(1 <= ejection <= S, f"--ejection-width must be 1..S = {S}, got {ejection}")
    require(stages in (1, 2, 3), f"--stages must be 1, 2 or 3, got {stages}")
    comp = DeflectionRouter(net.table.planes.tolist(), node, ejection=ejection, width=flit_width, stages=stages,
                            cells=cells, loadable=routing == "table")
    params = {"topology": net.name, "node": node, "switching": "deflection", "routing": routing,
              "flit_width": flit_width, "ejection_width": ejection, "stages": stages, "hop_cycles": comp.K,
              "age_bits": comp.age_bits, "diameter": comp.diameter, "cells": cells}
    return emit.Generated("router", "deflection_router", comp, params)


def deflection_network(M: int, S: int, topology: str = "ldi", flit_width: int | None = None, ejection: int = 2,
                       stages: int = 1, planes: str = "wires", planes_file=None, target: str = "generic",
                       router: str = "auto"):
    """The network of deflection routers with AXI-Stream endpoints
    (:class:`permnet.hdl.deflect_net.DeflectionStream`, :class:`permnet.hdl.emit.Generated` named
    ``<topology>_network_deflection``) on :func:`wired_network` (M, S, ``topology`` or
    ``planes_file``): ``flit_width`` tdata bits (default 32), ``ejection`` ejection FIFOs per
    node behind each node's one output stream, ``stages`` register stages per hop (1 or 2);
    ``planes`` ``wires``, or ``crossbar`` / ``benes`` loadable at run time (the ``cfg__*``
    ports, and the mask tables' ``rt__*``: the swap without a drain,
    :class:`permnet.hdl.deflect_net.DeflectionNetwork`; ``router`` ``auto`` or ``table``: the
    routers' loadable tables, which run-time planes have and wire planes cannot commit).
    ``target="ecp5"``: the routers' and the run-time planes' multiplexers of hand-mapped ECP5
    cells (synthesis only)."""
    from permnet.hdl import emit
    from permnet.hdl.deflect_net import DeflectionStream
    from permnet.hdl.netip import PLANE_KINDS

    flit_width = STREAM_FLIT_WIDTH if flit_width is None else flit_width
    require(1 <= flit_width <= MAX_FLIT_WIDTH, f"--flit-width must be 1..{MAX_FLIT_WIDTH} bits for streams, "
            f"got {flit_width}")
    require(planes in PLANE_KINDS, f"unknown planes {planes!r} ({', '.join(PLANE_KINDS)})")
    require(1 <= ejection <= S, f"--ejection-width must be 1..S = {S}, got {ejection}")
    require(stages in (1, 2, 3), f"--stages must be 1, 2 or 3, got {stages}")
    routing = _deflection_routing(router, "table" if planes != "wires" else "fixed")
    require(routing == "fixed" or planes != "wires", "--router table: the deflection routers' tables load with "
            "the planes (cfg__commit): add --planes crossbar or benes")
    net = wired_network(M, S, topology, planes_file)
    cells = emit.cells_for(target)
    comp = DeflectionStream(net.table.planes.tolist(), ejection=ejection, width=flit_width, stages=stages,
                            cells=cells or "generic", plane_kind=planes)
    if hasattr(comp.net.plane_set, "cells"):
        comp.net.plane_set.cells = cells
    params = {"topology": net.name, "switching": "deflection", "endpoints": "stream", "flit_width": flit_width,
              "ejection_width": ejection, "stages": stages, "hop_cycles": comp.K, "age_bits": comp.net.age_bits}
    if planes != "wires":
        params["planes"] = planes
    return emit.Generated("network", f"{_module_name(topology, planes_file)}_network_deflection", comp, params)
