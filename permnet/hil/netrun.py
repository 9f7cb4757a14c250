"""``permnet hil run --design network``: live traffic through the network
design (:mod:`permnet.hdl.hil.netgen` behind the ``netgen`` register block,
its planes behind ``netplanes``) and its counters beside the simulator's
prediction.

The host reads the network's shape (LDI(M, S), VCs, buffers, lanes, the kind
of planes) from ``netgen_info`` and ``netplanes_info``, computes the
generators' packets (:func:`permnet.gen.hil.netgen.trace`), holds a cleared
run (``netgen_ctrl`` = clear | hold), loads the planes of a ``permnet
planes``/``fabric``/``mixed``/``faults`` file with the route tables that go
with them (:func:`permnet.planeload.swap_load`) and commits them through the
drained swap of an idle network, reads the active configuration back, then
starts the run, waits until the run's cycle counter has passed the last
delivery and reads every counter.

What is compared:

* without a swap, every counter with the simulator's
  (:func:`permnet.sim.netsim.counters.predict`, run on the loaded planes and
  their route table): they must be equal, counter for counter.  A source
  queue that overflowed (``dropped``) makes them differ, as it should: the
  simulator's queues hold the whole trace;
* with a live swap (``swap_to``: its words written into the shadow before
  the run, the swap requested by the hardware at run cycle ``swap_at``,
  committed once the network has drained), the simulator has no swap model,
  so the counters that do not depend on timing are compared with the trace
  itself, node for node: packets and flits generated and injected per
  source, packets and flits ejected per destination (every packet delivered
  exactly once: none lost, none duplicated), and zero misdelivered packets,
  payload errors and drops.  Latencies (``lat_sum``, ``lat_max``) are
  reported, not compared.  The swap's length (cycles from the request to the
  commit, the drain) and commit cycle are reported;
* in both cases the active planes and route tables read back over the link
  equal the words loaded.

A device with deflection routers (``netgen_info`` VCs 0) carries single-flit
packets; on its wire planes the prediction is netsim's deflection model with
the device's ejection ports and stages. On run-time planes the route words
are every node's productive masks (:func:`deflection_load`) and the swap
commits at the request, without a drain: the prediction is then
:func:`deflection_predict`, the spec's ``route_step`` over the network with
the planes and masks changed at the commit, so every counter is compared
exactly before and after a swap, and so is the cycles until the last flit
injected before the commit has left (the device's ``swap_cycles``).

Nodes that a ``faults`` configuration leaves unconnected must neither send
nor receive: the traffic must be a table pattern (``permutation``) that maps
them to themselves and no other node to them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from permnet.gen.errors import require
from permnet.gen.hil import regmap as R
from permnet.gen.hil.netgen import PATTERNS, GenParams, destinations, trace
from permnet.hil.link import HilError, HilTimeout, Link

__all__ = ["NetworkRunReport", "run_network", "TIMING_FREE"]

KINDS = {v: k for k, v in R.PLANE_KIND_CODES.items()}
# the counters a swap run compares with the trace (the others depend on timing)
TIMING_FREE = ("gen_packets", "inj_packets", "inj_flits", "ej_packets", "ej_flits", "misdelivered",
               "payload_errors", "dropped")


@dataclass
class NetworkRunReport:
    """The run: ``network`` (shape read from the device), ``params``, ``start``/``stop``, the
    packets generated, the counters ``got`` (device) and ``want`` (simulator, or with a swap the
    trace's timing-free counts; ``None`` where not predicted), per counter a list per node, and
    ``diffs``: ``[counter, node, got, want]`` for each difference (``readback`` rows: the active
    configuration read back differs from the loaded words). ``compared``: ``exact`` or
    ``conservation`` (module doc); ``planes`` the file loaded, ``swap`` the swap's report."""

    url: str
    network: dict
    params: dict
    start: int
    stop: int
    packets: int
    last_delivery: int | None
    got: dict = field(default_factory=dict)
    want: dict = field(default_factory=dict)
    diffs: list = field(default_factory=list)
    timing: dict = field(default_factory=dict)
    link: dict = field(default_factory=dict)
    compared: str = "exact"
    planes: str | None = None
    swap: dict | None = None
    readback: dict = field(default_factory=dict)
    model: str = "netsim"

    @property
    def ok(self) -> bool:
        return not self.diffs

    def as_dict(self) -> dict:
        return {"url": self.url, "network": self.network, "params": self.params, "start": self.start,
                "stop": self.stop, "packets": self.packets, "last_delivery": self.last_delivery,
                "compared": self.compared, "model": self.model, "planes": self.planes, "swap": self.swap, "readback": self.readback,
                "got": self.got, "want": self.want, "diffs": self.diffs, "ok": self.ok, "link": self.link,
                "timing": {k: round(v, 3) for k, v in self.timing.items()}}

    def lines(self) -> list[str]:
        n = self.network
        p = self.params
        last = (f"last delivered by cycle {self.last_delivery}" if self.last_delivery is not None
                else "delivery times not predicted (swap)")
        kind = DEVICE_ROUTERS[n.get("switching", "vct")]
        routers = kind.describe(n)
        out = [f"network LDI({n['M']},{n['S']}): {routers}, "
               f"{n['queue']}-packet source queues, {n['planes']} planes",
               f"traffic {p['pattern']}, rate {p['rate']}/65536, {p['size']} flits, seed {p['seed']}: "
               f"cycles {self.start}..{self.stop - 1}, {self.packets} packets, {last}"]
        if self.planes:
            out.append(f"planes loaded from {self.planes}: {self.readback.get('planes', 0)} plane entries and "
                       f"{self.readback.get('routes', 0)} {kind.route_word} entries read back")
        if self.swap and "old_flits_left" in self.swap:
            w = self.swap
            out.append(f"swap to {w['to']}: requested in cycle {w['at']}, committed in cycle {w['committed']} "
                       f"without a drain ({w['swaps']} swap), the last flit injected before it ejected "
                       f"{w['old_flits_left']} cycles later; {w['readback_planes']} plane and "
                       f"{w['readback_routes']} {kind.route_word} entries read back")
        elif self.swap:
            w = self.swap
            out.append(f"swap to {w['to']}: requested in cycle {w['at']}, committed in cycle {w['committed']} "
                       f"after {w['cycles']} cycles of drain ({w['swaps']} swap); {w['readback_planes']} plane "
                       f"and {w['readback_routes']} {kind.route_word} entries read back")
        side = self.model if self.compared == "exact" else "trace"
        out.append(f"counter         device, per node  |  {side}, per node")
        for name in R.NET_COUNTERS:
            g, w = self.got[name], self.want[name]
            if w is None:
                out.append(f"{name:15} {' '.join(map(str, g))}  |  -  not compared (timing after a swap)")
                continue
            mark = "equal" if g == w else "DIFFERENT"
            out.append(f"{name:15} {' '.join(map(str, g))}  |  {' '.join(map(str, w))}  {mark}")
        rb = [d for d in self.diffs if d[0].startswith("readback")]
        if rb:
            out.append(f"{len(rb)} read-back entries differ from the loaded words, first {rb[0]}")
        if self.compared == "exact":
            what = "the simulator's" if self.model == "netsim" else "the spec's model's"
            out.append("RESULT: " + (f"counters equal {what}" if self.ok
                                     else f"{len(self.diffs)} counters differ from {what}"))
        else:
            out.append("RESULT: " + ("no packet lost, none misdelivered, every timing-free counter equals the "
                                     "trace's (latencies not compared after a swap)" if self.ok
                                     else f"{len(self.diffs)} counters differ from the trace's"))
        return out


def _network_info(link: Link) -> dict:
    design = link.reg("sys", "design")
    if not design >> R.DESIGN_BITS["network"] & 1:
        raise HilError(f"{link.url}: the device has no network design (sys_design {design:#x}); "
                       "build it with --design network")
    a, b = link.reg("netgen", "info"), link.reg("netgen", "info2")
    c, d = link.read(R.addr("netplanes", "info"), 2)
    routers = next(k for k in DEVICE_ROUTERS.values() if k.matches(a, b))
    return {"M": a & 0xFFFF, "S": a >> 16 & 0xFF, "switching": routers.switching, **routers.fields(a, b),
            "flit_width": b & 0xFF, "queue": b >> 8 & 0xFFFF,
            "planes": KINDS.get(c & 0xFF, f"unknown ({c & 0xFF})"), "network": "waksman" if c >> 8 & 1 else "benes",
            "plane_entries": c >> 16, "route_entries": d & 0xFFFF}


def device_routes(net: dict, reset):
    """The loadable routes of the device's network (:func:`permnet.hdl.hil.top.network_gen`):
    its reset route table ``reset`` (LDI(M, S) with the family routing), loadable for up to
    ``vcs`` hops."""
    from permnet.hdl.routes import NetworkRoutes

    return NetworkRoutes(reset.planes.tolist(), reset.length.tolist(), reset.hops.tolist(), "table",
                         loadable=True, max_hops=net["vcs"])


def deflection_load(source, M: int, S: int, kind: str):
    """The plane and mask words of the deflection network's run-time planes (:func:`permnet.hdl.hil.top.network_gen`
    with ``switching="deflection"``): the planes of ``source`` (a planes/fabric file) as
    :func:`permnet.planeload.swap_load` writes them, every node's productive masks
    (:func:`permnet.gen.routing.deflection.productive_masks`, S bits per destination) as its
    route words, and the shortest-path table of the planes (netsim's deflection model reads its
    planes). Every plane must be a permutation and every node reach every other."""
    from permnet.gen.planes import runtime
    from permnet.gen.routing import runtime as route_runtime
    from permnet.gen.routing.deflection import productive_masks
    from permnet.planeload import SwapLoad, read_planes

    planes = read_planes(source, M, S)
    require(bool((planes >= 0).all()), f"{source}: ports left unconnected (a faults configuration); deflection "
            "routers need every plane a permutation of the nodes")
    masks = productive_masks(planes)
    routes = [(n, d, int(masks[n][d])) for n in range(M) for d in range(M)]
    return SwapLoad(runtime.config_writes(kind, planes, "benes"), routes, route_runtime.route_table(planes))


def deflection_predict(reset, rows, *, E: int, P: int, planes=None, swap_at: int | None = None, new=None) -> dict:
    """The counters of the deflection network design (:class:`permnet.hdl.hil.deflgen.DeflectionGen`)
    fed the trace ``rows`` ``(cycle, src, dst, 1)``, every ejection ``ready`` high: a loop of the
    spec's :func:`permnet.gen.routing.deflection.route_step` over every node and cycle, on
    ``planes`` (S x M; default ``reset``) and, from cycle ``swap_at + 1`` on, on ``new`` (the
    swap committed in cycle ``swap_at``: the planes and the masks change together, the flits in
    flight keep going). ``reset``: the planes the device was built on (its ages are as wide as
    they need: :func:`permnet.gen.routing.deflection.age_bits` of their diameter).

    Cycles as :func:`permnet.sim.netsim.deflect.deflection_trace` counts them (``link_stages =
    P - 1``, hop cycles K = P): row ``(c, s, d)`` joins node s's source queue in cycle c; a flit
    routed onto output y of n in cycle t is in slot y of ``planes[y][n]`` in t + K, through the
    planes active then; one ejected in t is taken in t + 1, latency ``t + 2 - c``. Returns
    ``{counter: [per node]}`` and ``"cycles"``, the cycle after the last handshake; with ``swap_at``,
    ``"old_flits_left"``: the cycles from the commit to the handshake of the last flit injected
    in or before it (the device's ``swap_cycles``)."""
    from collections import deque

    from permnet.gen.routing.deflection import EJECT_DEPTH, Flit, age_bits, distances, productive_masks, \
        route_step

    reset = np.asarray(reset, dtype=np.int64)
    S, M = reset.shape
    top = (1 << age_bits(M, S, int(distances(reset).max()), P)) - 1
    first = np.asarray(reset if planes is None else planes, dtype=np.int64)
    later = first if new is None else np.asarray(new, dtype=np.int64)
    at = -1 if swap_at is None else swap_at
    tables = [(first.tolist(), productive_masks(first).tolist()), (later.tolist(), productive_masks(later).tolist())]
    out = {name: [0] * M for name in R.NET_COUNTERS}
    queues = [deque() for _ in range(M)]
    for c, s, d, _ in sorted(rows, key=lambda r: r[0]):
        queues[s].append((c, d))
        out["gen_packets"][s] += 1
    pending = deque([[] for _ in range(P)])
    ejq = [[deque() for _ in range(E)] for _ in range(M)]
    left, c, last, old_left = len(rows), 0, 0, 0
    while left:
        require(c < 10**8, "the deflection model did not deliver the trace")
        pl, masks = tables[c > at]
        slots = [[None] * S for _ in range(M)]
        for n, y, f in pending.popleft():
            slots[pl[y][n]][y] = f
        arrived = []
        for n in range(M):
            q = queues[n]
            offer = Flit(q[0][1], n, 0, (q[0][0], c <= at)) if q and q[0][0] <= c else None
            room = [len(e) < EJECT_DEPTH for e in ejq[n]]
            outs, ej, injected = route_step(n, slots[n], masks[n], offer, room, E, hop_cycles=P, age_max=top)
            if injected:
                q.popleft()
                out["inj_packets"][n] += 1
                out["inj_flits"][n] += 1
            arrived += [(n, y, f) for y, f in enumerate(outs) if f is not None]
            for e, f in enumerate(ej):
                if ejq[n][e]:                           # the handshake of this cycle (ready high)
                    t0, old = ejq[n][e].popleft().payload
                    lat = c + 1 - t0
                    out["ej_packets"][n] += 1
                    out["ej_flits"][n] += 1
                    out["lat_sum"][n] += lat
                    out["lat_max"][n] = max(out["lat_max"][n], lat)
                    left -= 1
                    last = c
                    if old and c > at >= 0:
                        old_left = c - at
                if f is not None:
                    ejq[n][e].append(f)
        pending.append(arrived)
        c += 1
    out["cycles"] = last + 1
    if swap_at is not None:
        out["old_flits_left"] = old_left
    return out


@dataclass(frozen=True)
class DeviceRouters:
    """The host's side of one router kind of the network design (:data:`DEVICE_ROUTERS`, by the
    switching :data:`permnet.hdl.hil.top.NETWORK_DESIGNS` builds): ``matches(info, info2)``: the
    ``netgen_info`` words are this kind's; ``fields(info, info2)`` the kind's fields in them;
    ``describe(net)`` the report's words for the routers; ``route_word`` what a route entry is;
    ``single_flit``: packets of one flit (a size not chosen becomes 1); ``load(path, net, reset)``
    the plane and route words (:class:`permnet.planeload.SwapLoad`) of a planes file;
    ``config(net, drain)`` netsim's configuration of the device; ``predict_swap(reset, rows, net,
    planes, swap_at, new)``: the exact model with loaded planes or a swap (the swap commits without
    a drain), or None: netsim without a swap, the trace's conservation with one (a drained swap)."""

    switching: str
    matches: Callable
    fields: Callable
    describe: Callable
    route_word: str
    single_flit: bool
    load: Callable
    config: Callable
    predict_swap: Callable | None = None


def _vc_load(path, net, reset):
    from permnet.planeload import swap_load

    return swap_load(path, device_routes(net, reset), net["planes"], net["network"])


def _vc_config(net, drain):
    from permnet.sim.netsim import Config

    return Config(vcs=net["vcs"], buffer=net["buffer"], lanes=net["lanes"], drain=drain)


def _deflection_config(net, drain):
    from permnet.gen.routing.deflection import PACKET_FLITS
    from permnet.sim.netsim import Config

    return Config(switching="deflection", packet_size=PACKET_FLITS, ejection_width=net["ejection"],
                  link_stages=net["stages"] - 1, drain=drain)


#: the network design's router kinds as the host sees them, by switching; VCs 0 in ``netgen_info``
#: marks deflection routers (stages in the buffer field, ejection ports in the lanes')
DEVICE_ROUTERS = {
    "vct": DeviceRouters(
        "vct", lambda a, b: a >> 24 & 0xF != 0,
        lambda a, b: {"vcs": a >> 24 & 0xF, "buffer": 1 << (a >> 28), "lanes": b >> 24},
        lambda n: f"{n['vcs']} VCs x {n['buffer']} flits, {n['lanes']} lanes", "route", False, _vc_load, _vc_config),
    "deflection": DeviceRouters(
        "deflection", lambda a, b: a >> 24 & 0xF == 0, lambda a, b: {"stages": a >> 28, "ejection": b >> 24},
        lambda n: f"deflection routers, {n['ejection']} ejection port(s), {n['stages']} stage(s)", "mask", True,
        lambda path, net, reset: deflection_load(path, net["M"], net["S"], net["planes"]), _deflection_config,
        lambda reset, rows, net, planes, swap_at, new: deflection_predict(
            reset, rows, E=net["ejection"], P=net["stages"], planes=planes, swap_at=swap_at, new=new)),
}


def _check_traffic(M: int, params: GenParams, planes_sets) -> None:
    """Failed nodes (unconnected in some loaded planes) must neither send nor receive."""
    from permnet.gen.routing.runtime import alive_nodes

    dead = set(range(M))
    alive = set(range(M))
    for planes in planes_sets:
        alive &= set(int(n) for n in alive_nodes(planes))
    dead -= alive
    if not dead:
        return
    fixed = destinations(M, params.pattern, params.perm)
    ok = fixed is not None and all((fixed[n] == n) if n in dead else (fixed[n] not in dead) for n in range(M))
    require(ok, f"nodes {', '.join(map(str, sorted(dead)))} are unconnected in the loaded planes: use a traffic "
            "pattern that maps them to themselves and no other node to them (--pattern permutation --perm ...)")


def _predict(table, rows, config):
    """:func:`permnet.sim.netsim.counters.predict` on the route table's network; with failed
    nodes, on the survivors (renumbered), the failed nodes' counters 0."""
    from permnet.gen.routing import tables
    from permnet.gen.routing.runtime import alive_nodes
    from permnet.sim.netsim.counters import predict

    M = table.M
    alive = alive_nodes(table.planes)
    if len(alive) == M:
        return predict(table, rows, config)
    index = np.full(M, -1, dtype=np.int64)
    index[alive] = np.arange(len(alive))
    ix = np.ix_(alive, alive)
    sub = tables.RouteTable(index[table.planes[:, alive]], table.length[ix], table.hops[ix], table.method)
    got = predict(sub, [(c, int(index[s]), int(index[d]), z) for c, s, d, z in rows], config)
    out = {"cycles": got.pop("cycles")}
    for name, vals in got.items():
        full = [0] * M
        for k, n in enumerate(alive):
            full[int(n)] = vals[k]
        out[name] = full
    return out


def _conservation(M: int, rows) -> dict:
    """The counters that do not depend on timing, from the trace; ``None`` for the latencies."""
    out = {name: [0] * M for name in TIMING_FREE}
    for c, s, d, z in rows:
        out["gen_packets"][s] += 1
        out["inj_packets"][s] += 1
        out["inj_flits"][s] += z
        out["ej_packets"][d] += 1
        out["ej_flits"][d] += z
    return {name: out.get(name) for name in R.NET_COUNTERS}


def _addr_word(hi: int, lo: int) -> int:
    """``plane_addr`` / ``rt_addr``: the plane (or node) above bit 16, the entry below."""
    return hi << 16 | lo


def _runs(items, longest: int | None = None):
    """``(hi, lo, [data, ...])`` for each run of consecutive entries of the ``(hi, lo, data)``
    words (sorted), at most ``longest`` entries a run."""
    run, key = [], None
    for hi, lo, data in sorted(items):
        if key is None or (hi, lo) != (key[0], key[1] + len(run)) or len(run) == longest:
            if run:
                yield key[0], key[1], run
            run, key = [], (hi, lo)
        run.append(data)
    if run:
        yield key[0], key[1], run


def _load(link: Link, words) -> None:
    """Write a :class:`permnet.planeload.SwapLoad`'s plane and route words into the shadows
    (runs of consecutive entries as one burst into the auto-incrementing data registers)."""
    for addr_reg, data_reg, items in (("plane_addr", "plane_data", words.planes),
                                      ("rt_addr", "rt_data", words.routes)):
        for hi, lo, run in _runs(items):
            link.set_reg("netplanes", addr_reg, _addr_word(hi, lo))
            link.write(R.addr("netplanes", data_reg), run, fixed=True)


def _readback(link: Link, words, tag: str) -> tuple[list, dict]:
    """Read back every loaded entry from the ACTIVE configuration (each run of up to
    ``READ_WINDOW`` consecutive entries: one write of the address register, one burst read of
    the window); the differences."""
    diffs = []
    for addr_reg, win, items, name in (("plane_addr", "plane_win", words.planes, "planes"),
                                       ("rt_addr", "rt_win", words.routes, "routes")):
        for hi, lo, want in _runs(items, R.READ_WINDOW):
            link.set_reg("netplanes", addr_reg, _addr_word(hi, lo))
            got = link.read(R.addr("netplanes", win), len(want))
            diffs += [[f"readback {tag} {name}", [hi, lo + k], g, w] for k, (g, w) in enumerate(zip(got, want))
                      if g != w]
    return diffs, {"planes": len(words.planes), "routes": len(words.routes)}


def _wait_swaps(link: Link, n: int, max_seconds: float) -> int:
    deadline = time.monotonic() + max_seconds
    while True:
        status = link.reg("netplanes", "status")
        if status >> 16 >= n and not status & 1:
            return status >> 16
        if time.monotonic() > deadline:
            raise HilTimeout(f"{link.url}: the plane swap did not commit in {max_seconds:g} s")
        time.sleep(0.001)


def run_network(url: str, *, cycles: int, params: GenParams, start: int = 16, timeout: float = 1.0,
                max_seconds: float = 120.0, planes=None, swap_to=None, swap_at: int | None = None,
                size_default: bool = False) -> NetworkRunReport:
    """Run the generators for ``cycles`` cycles from cycle ``start`` of a cleared run, wait for
    the last packet, read and compare every counter (module doc). ``planes``: a configuration
    file loaded (and read back) before the run; ``swap_to``: a file swapped to during the run,
    the swap requested at run cycle ``swap_at`` (default: the middle of the run).

    A device with deflection routers (``netgen_info``) carries single-flit packets: its
    prediction is netsim's deflection model with the device's ejection ports and stages;
    ``params.size`` must be 1 (``size_default``: the size was not chosen by the user and
    becomes 1 there)."""
    from dataclasses import replace
    from permnet.gen.routing import tables
    from permnet.gen.routing.deflection import PACKET_FLITS

    require(1 <= cycles <= 1 << 30 and 0 <= start <= 1 << 30, "--cycles must be 1..2^30 (and start 0..2^30)")
    stop = start + cycles
    if swap_to is not None:
        swap_at = start + cycles // 2 if swap_at is None else swap_at
        require(0 <= swap_at < stop, f"--swap-at must be a cycle of the run, 0..{stop - 1} (it starts at cycle "
                f"{start} and lasts --cycles {cycles}), got {swap_at}")
    else:
        require(swap_at is None, "--swap-at needs --swap-to (the planes swapped to)")
    t0 = time.perf_counter()
    with Link(url, timeout=timeout) as link:
        net = _network_info(link)
        M, S = net["M"], net["S"]
        kind = DEVICE_ROUTERS[net["switching"]]
        if kind.single_flit and size_default:
            params = replace(params, size=PACKET_FLITS)
        require(not kind.single_flit or params.size == PACKET_FLITS, f"{url}: the device's routers carry "
                f"single-flit packets ({kind.describe(net)}): give --packet-size {PACKET_FLITS}, not {params.size}")
        params.check(M)
        reset = tables.network("ldi", M, S).table
        loadable = net["planes"] != "wires"
        first = second = None
        if planes is not None or swap_to is not None:
            require(loadable, f"{url}: the device's planes are wires, not loadable; build the model "
                    "with --planes crossbar (or benes)")
            first = kind.load(planes, net, reset) if planes is not None else None
            second = kind.load(swap_to, net, reset) if swap_to is not None else None
        _check_traffic(M, params, [w.table.planes for w in (first, second) if w is not None])
        rows = trace(M, params, start, stop)
        t = time.perf_counter()
        exact_swap = kind.predict_swap is not None and (first is not None or second is not None)
        if exact_swap:
            want = kind.predict_swap(reset.planes, rows, net, first.table.planes if first is not None else None,
                                     swap_at if second is not None else None,
                                     second.table.planes if second is not None else None)
            last = want.pop("cycles")
            old_left = want.pop("old_flits_left", None)
            compared = "exact"
        elif second is None:
            want = _predict(first.table if first is not None else reset, rows,
                            kind.config(net, drain=max(4 * cycles, 10_000)))
            last = want.pop("cycles")
            compared = "exact"
        else:
            want, last, compared = _conservation(M, rows), None, "conservation"
        timing = {"model_s": time.perf_counter() - t}
        rep = NetworkRunReport(url, net, {"pattern": params.pattern, "rate": params.rate, "size": params.size,
                                          "seed": params.seed, "hot": params.hot, "hot_frac": params.hot_frac},
                               start, stop, len(rows), last, want=want, timing=timing, compared=compared,
                               planes=None if planes is None else str(planes),
                               model="route_step" if exact_swap else "netsim")
        seed = params.seed
        regs = {"pattern": PATTERNS.index(params.pattern), "rate": params.rate, "size": params.size,
                "seed_lo": seed & 0xFFFFFFFF, "seed_hi": seed >> 32, "hot": params.hot,
                "hot_frac": params.hot_frac, "start": start, "stop": stop}
        t = time.perf_counter()
        for name, v in regs.items():
            link.set_reg("netgen", name, v)
        if params.perm is not None:
            link.write(R.addr("netgen", "perm"), [int(d) for d in params.perm])
        if loadable:
            link.set_reg("netplanes", "swap_at", R.NO_SWAP)
        link.set_reg("netgen", "ctrl", 3 if loadable else 1)     # clear; hold while loading
        if first is not None:
            _load(link, first)
            link.set_reg("netplanes", "swap", 1)
            _wait_swaps(link, 1, max_seconds)
            diffs, rep.readback = _readback(link, first, "planes")
            rep.diffs += diffs
        done = 1 if first is not None else 0
        if second is not None:
            _load(link, second)
            link.set_reg("netplanes", "swap_at", swap_at)
        rep.timing["load_s"] = time.perf_counter() - t
        if loadable:
            link.set_reg("netgen", "ctrl", 0)          # run
        t = time.perf_counter()
        deadline = time.monotonic() + max_seconds
        while True:
            cycle = link.reg("netgen", "cycle")
            if last is not None:
                if cycle > max(last, stop, -1 if swap_at is None else swap_at + 1):
                    break
            elif cycle > max(stop, swap_at) + 1:
                status = link.reg("netplanes", "status")
                if status >> 16 > done and status & 2 and \
                        sum(link.read(R.addr("netgen", "ej_packets"), M)) >= len(rows):
                    break
            if time.monotonic() > deadline:
                if second is not None and cycle > max(stop, swap_at) + 1:
                    break               # packets lost: the counters show it
                raise HilTimeout(f"{url}: the run did not reach cycle {max(last or 0, stop)} in {max_seconds:g} s")
            time.sleep(0.01)
        rep.timing["run_s"] = time.perf_counter() - t
        for name in R.NET_COUNTERS:
            rep.got[name] = link.read(R.addr("netgen", name), M)
        if second is not None:
            status, swap_cycles, committed = link.read(R.addr("netplanes", "status"), 3)
            diffs, counts = _readback(link, second, "swap")
            rep.diffs += diffs
            rep.swap = {"to": str(swap_to), "at": swap_at, "committed": committed, "cycles": swap_cycles,
                        "swaps": (status >> 16) - done, "readback_planes": counts["planes"],
                        "readback_routes": counts["routes"]}
            if kind.predict_swap is not None:   # committed at the request; swap_cycles: until the last old flit left
                rep.swap |= {"cycles": 0, "old_flits_left": swap_cycles, "old_flits_left_model": old_left}
                if swap_cycles != old_left:
                    rep.diffs.append(["old_flits_left", None, swap_cycles, old_left])
            if rep.swap["swaps"] != 1:
                rep.diffs.append(["swaps", None, rep.swap["swaps"], 1])
        rep.link = link.counters().as_dict()
    for name in R.NET_COUNTERS:
        if rep.want[name] is not None:
            rep.diffs += [[name, n, g, w] for n, (g, w) in enumerate(zip(rep.got[name], rep.want[name])) if g != w]
    rep.timing["total_s"] = time.perf_counter() - t0
    return rep
