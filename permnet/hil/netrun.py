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

Nodes that a ``faults`` configuration leaves unconnected must neither send
nor receive: the traffic must be a table pattern (``permutation``) that maps
them to themselves and no other node to them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

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

    @property
    def ok(self) -> bool:
        return not self.diffs

    def as_dict(self) -> dict:
        return {"url": self.url, "network": self.network, "params": self.params, "start": self.start,
                "stop": self.stop, "packets": self.packets, "last_delivery": self.last_delivery,
                "compared": self.compared, "planes": self.planes, "swap": self.swap, "readback": self.readback,
                "got": self.got, "want": self.want, "diffs": self.diffs, "ok": self.ok, "link": self.link,
                "timing": {k: round(v, 3) for k, v in self.timing.items()}}

    def lines(self) -> list[str]:
        n = self.network
        p = self.params
        last = (f"last delivered by cycle {self.last_delivery}" if self.last_delivery is not None
                else "delivery times not predicted (swap)")
        routers = (f"deflection routers, {n['ejection']} ejection ports, {n['stages']} stage(s)"
                   if n.get("switching") == "deflection" else
                   f"{n['vcs']} VCs x {n['buffer']} flits, {n['lanes']} lanes")
        out = [f"network LDI({n['M']},{n['S']}): {routers}, "
               f"{n['queue']}-packet source queues, {n['planes']} planes",
               f"traffic {p['pattern']}, rate {p['rate']}/65536, {p['size']} flits, seed {p['seed']}: "
               f"cycles {self.start}..{self.stop - 1}, {self.packets} packets, {last}"]
        if self.planes:
            out.append(f"planes loaded from {self.planes}: {self.readback.get('planes', 0)} plane entries and "
                       f"{self.readback.get('routes', 0)} route entries read back")
        if self.swap:
            w = self.swap
            out.append(f"swap to {w['to']}: requested in cycle {w['at']}, committed in cycle {w['committed']} "
                       f"after {w['cycles']} cycles of drain ({w['swaps']} swap); {w['readback_planes']} plane "
                       f"and {w['readback_routes']} route entries read back")
        side = "netsim" if self.compared == "exact" else "trace"
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
            out.append("RESULT: " + ("counters equal the simulator's" if self.ok
                                     else f"{len(self.diffs)} counters differ from the simulator's"))
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
    # VCs 0: deflection routers (netgen_info): stages in the buffer field, ejection ports in the lanes'
    deflection = not a >> 24 & 0xF
    kinds = {"switching": "deflection", "stages": a >> 28, "ejection": b >> 24} if deflection else \
        {"switching": "vct", "vcs": a >> 24 & 0xF, "buffer": 1 << (a >> 28), "lanes": b >> 24}
    return {"M": a & 0xFFFF, "S": a >> 16 & 0xFF, **kinds, "flit_width": b & 0xFF, "queue": b >> 8 & 0xFFFF,
            "planes": KINDS.get(c & 0xFF, f"unknown ({c & 0xFF})"), "network": "waksman" if c >> 8 & 1 else "benes",
            "plane_entries": c >> 16, "route_entries": d & 0xFFFF}


def device_routes(net: dict, reset):
    """The loadable routes of the device's network (:func:`permnet.hdl.hil.top.network_gen`):
    its reset route table ``reset`` (LDI(M, S) with the family routing), loadable for up to
    ``vcs`` hops."""
    from permnet.hdl.routes import NetworkRoutes

    return NetworkRoutes(reset.planes.tolist(), reset.length.tolist(), reset.hops.tolist(), "table",
                         loadable=True, max_hops=net["vcs"])


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
    from permnet.planeload import swap_load
    from permnet.sim.netsim import Config

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
        deflection = net["switching"] == "deflection"
        if deflection and size_default:
            params = replace(params, size=1)
        require(not deflection or params.size == 1, f"{url}: the device's routers deflect (single-flit packets): "
                f"give --packet-size 1, not {params.size}")
        require(not deflection or (planes is None and swap_to is None),
                f"{url}: the device's deflection network has wire planes (--planes FILE and --swap-to need "
                "run-time planes, not in the deflection HIL design)")
        params.check(M)
        reset = tables.network("ldi", M, S).table
        routes = None if net["planes"] == "wires" else device_routes(net, reset)
        first = second = None
        if planes is not None or swap_to is not None:
            require(routes is not None, f"{url}: the device's planes are wires, not loadable; build the model "
                    "with --planes crossbar (or benes)")
            first = swap_load(planes, routes, net["planes"], net["network"]) if planes is not None else None
            second = swap_load(swap_to, routes, net["planes"], net["network"]) if swap_to is not None else None
        _check_traffic(M, params, [w.table.planes for w in (first, second) if w is not None])
        rows = trace(M, params, start, stop)
        t = time.perf_counter()
        if second is None:
            config = (Config(switching="deflection", packet_size=1, ejection_width=net["ejection"],
                             link_stages=net["stages"] - 1, drain=max(4 * cycles, 10_000)) if deflection else
                      Config(vcs=net["vcs"], buffer=net["buffer"], lanes=net["lanes"],
                             drain=max(4 * cycles, 10_000)))
            want = _predict(first.table if first is not None else reset, rows, config)
            last = want.pop("cycles")
            compared = "exact"
        else:
            want, last, compared = _conservation(M, rows), None, "conservation"
        timing = {"model_s": time.perf_counter() - t}
        rep = NetworkRunReport(url, net, {"pattern": params.pattern, "rate": params.rate, "size": params.size,
                                          "seed": params.seed, "hot": params.hot, "hot_frac": params.hot_frac},
                               start, stop, len(rows), last, want=want, timing=timing, compared=compared,
                               planes=None if planes is None else str(planes))
        seed = params.seed
        regs = {"pattern": PATTERNS.index(params.pattern), "rate": params.rate, "size": params.size,
                "seed_lo": seed & 0xFFFFFFFF, "seed_hi": seed >> 32, "hot": params.hot,
                "hot_frac": params.hot_frac, "start": start, "stop": stop}
        t = time.perf_counter()
        for name, v in regs.items():
            link.set_reg("netgen", name, v)
        if params.perm is not None:
            link.write(R.addr("netgen", "perm"), [int(d) for d in params.perm])
        if routes is not None:
            link.set_reg("netplanes", "swap_at", R.NO_SWAP)
        link.set_reg("netgen", "ctrl", 3 if routes is not None else 1)     # clear; hold while loading
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
        if routes is not None:
            link.set_reg("netgen", "ctrl", 0)          # run
        t = time.perf_counter()
        deadline = time.monotonic() + max_seconds
        while True:
            cycle = link.reg("netgen", "cycle")
            if second is None:
                if cycle > max(last, stop):
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
            if rep.swap["swaps"] != 1:
                rep.diffs.append(["swaps", None, rep.swap["swaps"], 1])
        rep.link = link.counters().as_dict()
    for name in R.NET_COUNTERS:
        if rep.want[name] is not None:
            rep.diffs += [[name, n, g, w] for n, (g, w) in enumerate(zip(rep.got[name], rep.want[name])) if g != w]
    rep.timing["total_s"] = time.perf_counter() - t0
    return rep
