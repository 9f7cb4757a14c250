"""Running the simulator: one load point, a load sweep, saturation.

Measurement (as in BookSim): ``warmup`` cycles, then a window of ``cycles``
cycles; packets created in the window are *measured* and the run goes on
(still injecting) until all of them are delivered or ``drain`` more cycles
have passed.  Latency is counted from creation (so it includes source
queueing) to the cycle after the tail flit is ejected; accepted throughput
is packets ejected during the window per node per cycle; offered load is
packets created during the window per node per cycle.

A load point is *stable* when every measured packet arrived, none was
dropped by a full source queue, there was no deadlock, and accepted >= 95%
of offered.  The saturation point of a sweep is the highest load below the
first unstable one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from permnet.gen.analysis.deadlock import MAX_VCS
from permnet.gen.errors import PermnetError, require
from permnet.gen.routing.allocation import ALLOCATORS, OFFER_AHEAD
from permnet.sim.netsim import kernel
from permnet.sim.netsim.traffic import Traffic

__all__ = ["ALLOCATORS", "MODELS", "Model", "Config", "Result", "Sweep", "simulate", "sweep", "loads",
           "zero_load_latency", "NetsimDeadlock"]


class NetsimDeadlock(PermnetError):
    """No flit moved for ``timeout`` cycles while packets were in the network."""


@dataclass(frozen=True)
class Config:
    """Router and measurement parameters (defaults: VCT, 4-flit packets, 8-flit VC buffers)."""

    vcs: int | None = None          # None: the longest route (hop-indexed VCs are then deadlock-free)
    buffer: int = 8                 # flits per VC
    packet_size: int = 4            # flits per packet (synthetic traffic)
    switching: str = "vct"          # "vct" (virtual cut-through), "wormhole" or "deflection" (bufferless, issue 41)
    lanes: int | None = None        # injection lanes per node (None: S)
    ejection: str = "vc"            # "vc": one flit per input VC per cycle; "port": one flit per node per cycle
    link_stages: int = 0            # registers on each link's forward path: a hop takes 1 + link_stages cycles
    credit_stages: int = 0          # registers on each credit's way back: a credit takes 1 + credit_stages cycles
    allocator: str = "combined"     # "combined" (no input-port limit), "input-first" (one VC per input port per
                                    # cycle), "two-stage" (input-first with the port's offer chosen a cycle ahead)
                                    # or "separate-va" (two-stage with a head's output VC allocated a cycle ahead)
    queue: int = 256                # source-queue capacity in packets per node
    warmup: int = 500
    cycles: int = 2000              # measurement window
    drain: int | None = None        # extra cycles for measured packets (None: 4 x cycles)
    timeout: int = 1000             # no-progress cycles that mean deadlock
    seed: int = 0
    log: int = 0                    # keep the first `log` delivered packets (tests)
    ejection_width: int = 2         # deflection: ejection ports per node (1..S)
    deflection_allocator: str = "permutation"   # deflection: "permutation" (S = 2^k) or "ideal"
    deflect: str = "any"            # deflection, model only: "nearest" prefers neutral outputs (spec "Options")
    side_buffer: int = 0            # deflection, model only: MinBD-style side-buffer flits per node (spec "Options")
    priority: str = "age"           # deflection: "age" (oldest first, the RTL's), model only "random" or "golden"

    def check(self, max_hops: int) -> "Config":
        """The configuration a run uses: first the model of ``switching`` (:data:`MODELS`) refuses
        the fields its router has not (a deflection router's ``buffer=0`` is a buffer it has not,
        not one out of range), then the fields every model reads are checked here, then the
        router's own by its model, which returns the configuration (the VC model fills in ``vcs``)."""
        require(self.switching in MODELS, f"switching must be {', '.join(MODELS)}, got {self.switching!r}")
        model = MODELS[self.switching]
        model.refuse(self)
        require(1 <= self.buffer <= 1024, f"buffer must be 1..1024 flits per VC, got {self.buffer}")
        require(1 <= self.packet_size <= 1024, f"packet size must be 1..1024 flits, got {self.packet_size}")
        require(isinstance(self.link_stages, int) and 0 <= self.link_stages <= 16,
                f"link stages must be 0..16, got {self.link_stages}")
        require(isinstance(self.credit_stages, int) and 0 <= self.credit_stages <= 16,
                f"credit stages must be 0..16, got {self.credit_stages}")
        require(self.ejection in ("vc", "port"), f"ejection must be vc or port, got {self.ejection!r}")
        require(self.allocator in ALLOCATORS,
                f"allocator must be {' or '.join(ALLOCATORS)}, got {self.allocator!r}")
        require(self.lanes is None or 1 <= self.lanes <= 64, f"lanes must be 1..64, got {self.lanes}")
        require(1 <= self.queue <= 1 << 16, f"queue must be 1..65536 packets, got {self.queue}")
        require(0 <= self.warmup <= 10**7 and 1 <= self.cycles <= 10**7,
                f"warmup must be 0..1e7 and cycles 1..1e7, got {self.warmup}, {self.cycles}")
        require(self.timeout >= 1, f"timeout must be >= 1 cycle, got {self.timeout}")
        return model.check(self, max_hops)

    def packet_limit(self) -> int | None:
        """The longest packet a trace may hold on this router (virtual cut-through: a VC buffer), None for any."""
        return MODELS[self.switching].packet_limit(self)


def _vc_refuse(cfg: Config) -> None:
    """None of the deflection router's fields."""
    require(cfg.ejection_width == 2 and cfg.deflection_allocator == "permutation" and cfg.deflect == "any"
            and cfg.side_buffer == 0 and cfg.priority == "age",
            "ejection width, deflection allocator, deflect, side buffer and priority are for deflection switching "
            "only")


def _vc_check(cfg: Config, max_hops: int) -> Config:
    """The VC router's fields: ``vcs`` (default the longest route) and a packet that fits a VC
    buffer under virtual cut-through."""
    from dataclasses import replace

    vcs = max(max_hops, 1) if cfg.vcs is None else cfg.vcs
    require(isinstance(vcs, int) and 1 <= vcs <= MAX_VCS, f"vcs must be in 1..{MAX_VCS}, got {vcs}")
    require(cfg.switching == "wormhole" or cfg.packet_size <= cfg.buffer,
            f"virtual cut-through needs a VC buffer ({cfg.buffer} flits) that holds a packet "
            f"({cfg.packet_size} flits)")
    return replace(cfg, vcs=vcs)


def _deflection_refuse(cfg: Config) -> None:
    """Single-flit packets and none of the VC router's fields (it has no VCs, buffers, lanes,
    credits or VC allocator); the rest when the planes are known
    (:func:`permnet.sim.netsim.deflect.check`)."""
    bad = [f for f, v in (("vcs", cfg.vcs), ("buffer", cfg.buffer != 8), ("lanes", cfg.lanes),
                          ("ejection", cfg.ejection != "vc"), ("credit_stages", cfg.credit_stages),
                          ("allocator", cfg.allocator != "combined")) if v]
    require(not bad, f"{', '.join(bad)} mean(s) nothing for deflection switching (bufferless: no VCs, "
                     f"buffers, lanes, credits or VC allocator)")
    from permnet.gen.routing.deflection import PACKET_FLITS

    require(cfg.packet_size == PACKET_FLITS, f"deflection switching carries single-flit packets, got packet size "
                                  f"{cfg.packet_size}")


def _deflection_simulate(net, traffic, load, cfg, name=None):
    from permnet.sim.netsim import deflect

    return deflect.simulate(net, traffic, load, cfg, name)


def _deflection_zero_load(table, cfg) -> float:
    from permnet.sim.netsim import deflect

    return deflect.zero_load_latency(table.planes, cfg.link_stages)


@dataclass(frozen=True)
class Model:
    """A router model of the simulator, picked by ``Config.switching`` (:data:`MODELS`):
    ``refuse(config)`` refuses the fields the router does not have (before the ranges
    :meth:`Config.check` checks for every model); ``check(config, max_hops)`` checks the router's
    own and returns the configuration it runs; ``simulate(net, traffic, load, config, name)`` one
    load point (a :class:`Result`);
    ``zero_load_latency(table, config)``; ``packet_limit(config)`` the longest packet of a trace
    (None: any; the model refuses what it cannot carry). A new router model is one entry of
    :data:`MODELS` (and one :class:`permnet.routerkinds.RouterKind` naming its switching)."""

    check: Callable
    simulate: Callable
    zero_load_latency: Callable
    packet_limit: Callable
    refuse: Callable = lambda config: None


@dataclass
class Result:
    """One load point."""

    topology: str
    traffic: str
    load: float
    offered: float
    accepted: float
    accepted_flits: float
    latency_avg: float
    latency_p99: float
    hops_avg: float
    cycles: int
    measured: int
    delivered: int
    dropped: int
    deadlock: bool
    stable: bool
    link_utilisation: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    log: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((0, 7), dtype=np.int64))
    deadlock_cycle: int = -1
    in_flight: int = 0
    created_total: int = 0
    delivered_total: int = 0
    deflection_rate: float | None = None     # deflection runs only: deflected hops / hops (measured packets)
    hops_ratio: float | None = None          # ... hops / shortest distances (measured packets)
    hops_max: int | None = None              # ... the most hops of a delivered flit
    hops_max_in_flight: int | None = None    # ... the most hops of a flit still in the network at the end
    inject_stall: float | None = None        # ... of the node-cycles with a packet at the injection port, the
                                             # fraction with no free slot for it (measurement window)
    eject_missed: float | None = None        # ... flits at their destination not ejected, per node per cycle
    eject_missed_full: float | None = None   # ... of them, those whose ejection queue was full
    side_entered: float | None = None        # ... side-buffer entries per node per cycle

    def as_dict(self, links: bool = False) -> dict:
        d = {"topology": self.topology, "traffic": self.traffic, "load": self.load, "offered": self.offered,
             "accepted": self.accepted, "accepted_flits": self.accepted_flits, "latency_avg": self.latency_avg,
             "latency_p99": self.latency_p99, "hops_avg": self.hops_avg, "cycles": self.cycles,
             "measured": self.measured, "delivered": self.delivered, "dropped": self.dropped,
             "deadlock": self.deadlock, "stable": self.stable,
             "link_utilisation_avg": float(self.link_utilisation.mean()) if self.link_utilisation.size else 0.0,
             "link_utilisation_max": float(self.link_utilisation.max()) if self.link_utilisation.size else 0.0}
        if self.hops_max is not None:
            d |= {"deflection_rate": self.deflection_rate, "hops_ratio": self.hops_ratio, "hops_max": self.hops_max}
        if links:
            d["link_utilisation"] = [round(float(x), 6) for x in self.link_utilisation]
        return d

    def summary(self) -> str:
        """The closing lines in BookSim's wording."""
        return "\n".join([
            f"====== Traffic class 0 ({self.topology}, {self.traffic}, load {self.load:g}) ======",
            f"Packet latency average = {self.latency_avg:.6g}",
            f"Packet latency 99th percentile = {self.latency_p99:.6g}",
            f"Injected packet rate average = {self.offered:.6g}",
            f"Accepted packet rate average = {self.accepted:.6g}",
            f"Accepted flit rate average = {self.accepted_flits:.6g}",
            f"Hops average = {self.hops_avg:.6g}",
            *([f"Deflection rate = {self.deflection_rate:.6g}", f"Hops vs shortest = {self.hops_ratio:.6g}",
               f"Hops max = {self.hops_max}"] if self.hops_max is not None else []),
            f"Total run time = {self.cycles} cycles",
        ])


@dataclass
class Sweep:
    topology: str
    traffic: str
    points: list
    saturation: float | None
    zero_load_latency: float

    def as_dict(self) -> dict:
        return {"topology": self.topology, "traffic": self.traffic, "saturation": self.saturation,
                "zero_load_latency": self.zero_load_latency, "points": [p.as_dict() for p in self.points]}


def loads(spec: str) -> list[float]:
    """``0.3`` or ``start:stop:step`` (inclusive) into loads, each in (0, 1]."""
    try:
        parts = [float(x) for x in spec.split(":")]
    except ValueError:
        raise PermnetError(f"--load {spec!r}: expected a number or start:stop:step") from None
    require(len(parts) in (1, 3), f"--load {spec!r}: expected a number or start:stop:step")
    if len(parts) == 1:
        out = parts
    else:
        a, b, s = parts
        require(s > 0 and np.isfinite(s), f"--load {spec!r}: step must be > 0")
        require(b >= a, f"--load {spec!r}: stop must be >= start")
        n = int(np.floor((b - a) / s + 1e-9)) + 1
        require(n <= 1000, f"--load {spec!r}: at most 1000 loads")
        out = [round(a + i * s, 10) for i in range(n)]
        out += [b] if b != out[-1] else []       # the stop value itself is checked too
    for x in out:
        require(np.isfinite(x) and 0 < x <= 1, f"load {x:g} is outside (0, 1] packets per node per cycle")
    return out if len(parts) == 1 else out[:n]


def zero_load_latency(table, size: int, link_stages: int = 0, allocator: str = "combined") -> float:
    """Model latency with no contention, averaged over ordered pairs of distinct nodes:
    ``hops (1 + link_stages) + size`` cycles (one cycle per hop -- route, allocate and cross the
    link in the cycle the head arrives -- plus the link registers, then one cycle per flit to eject).
    With ``allocator="two-stage"`` the ejection register adds one (a head that reaches an empty
    VC is offered as it arrives); ``"separate-va"`` adds that and one cycle per hop (a head's
    output VC is allocated in the cycle before it crosses)."""
    M = table.M
    extra = 1 if allocator in OFFER_AHEAD and M > 1 else 0
    per_hop = 1 + link_stages + (allocator == "separate-va")
    off = ~np.eye(M, dtype=bool)
    return float(table.length[off].mean()) * per_hop + size + extra if M > 1 else float(size)


def _percentile(hist: np.ndarray, q: float) -> float:
    total = int(hist.sum())
    if total == 0:
        return float("nan")
    idx = int(np.searchsorted(np.cumsum(hist), np.ceil(q * total)))
    return float(idx)


def _interruptible(*args, fn=None, **kw):
    """:func:`kernel.simulate` (or ``fn``, a kernel with the same ``stop`` argument) in a worker thread (the kernel releases the GIL), so that
    Ctrl-C and SIGTERM reach the main thread while it waits: either sets the kernel's stop
    flag, which it reads once a cycle, and the signal's exception is raised again once the
    kernel has returned.  An uninterrupted run is the same call, so its results are the same."""
    import threading

    stop = np.zeros(1, dtype=np.int64)
    box: dict = {}

    def work():
        try:
            box["out"] = (fn or kernel.simulate)(*args, stop, **kw)
        except BaseException as exc:      # handed to the waiting thread
            box["err"] = exc

    worker = threading.Thread(target=work, name="netsim-kernel", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except BaseException:
        stop[0] = 1
        worker.join()
        raise
    if "err" in box:
        raise box["err"]
    return box["out"]


def simulate(net, traffic: Traffic, load: float, config: Config = Config(), name: str | None = None) -> Result:
    """Simulate one load (packets per node per cycle; ignored for a trace) on the router model of
    ``config.switching`` (:data:`MODELS`)."""
    table = net.table if hasattr(net, "table") else net
    cfg = config.check(table.max_hops)
    return MODELS[cfg.switching].simulate(net, traffic, load, cfg, name)


def _vc_simulate(net, traffic: Traffic, load: float, cfg: Config, name: str | None = None) -> Result:
    """One load point of the VC router model (:mod:`permnet.sim.netsim.kernel`); ``cfg`` checked."""
    table = net.table if hasattr(net, "table") else net
    S, M = table.planes.shape
    require(traffic.kind == kernel.TRACE or (np.isfinite(load) and 0 < load <= 1),
            f"load {load:g} is outside (0, 1] packets per node per cycle")
    planes = np.ascontiguousarray(table.planes, dtype=np.int64)
    up = np.empty_like(planes)
    for y in range(S):
        up[y, planes[y]] = np.arange(M)
    lanes = cfg.lanes or S
    require(M * S * cfg.vcs * cfg.buffer <= 1 << 24 and M * cfg.queue <= 1 << 24,
            f"the simulator state would be too large: {M} nodes x {S} planes x {cfg.vcs} VCs x {cfg.buffer} flits "
            f"and {cfg.queue}-packet source queues (at most 2^24 flit slots and 2^24 queue slots)")
    drain = 4 * cfg.cycles if cfg.drain is None else cfg.drain
    empty = np.zeros(0, dtype=np.int64)
    if traffic.kind == kernel.TRACE:
        tc, ts, td, tsz = traffic.trace
        require(cfg.switching == "wormhole" or int(tsz.max()) <= cfg.buffer,
                f"trace packets of {int(tsz.max())} flits do not fit {cfg.buffer}-flit VC buffers (virtual cut-through)")
        max_cycles = int(tc.max()) + 1 + drain
        warmup, window = 0, max_cycles           # a trace is measured from its first cycle to its last delivery
        qcap = int(np.bincount(ts, minlength=M).max())
    else:
        tc = ts = td = tsz = empty
        warmup, window, qcap = cfg.warmup, cfg.cycles, cfg.queue
        max_cycles = warmup + window + drain
    stats, hist, linkflits, log = _interruptible(
        planes, up, table.length, table.hops, cfg.vcs, cfg.buffer,
        cfg.switching == "wormhole", lanes, qcap, traffic.kind, traffic.dest.astype(np.int64), float(load),
        cfg.packet_size, traffic.hot, traffic.hot_frac,
        traffic.cdf if traffic.cdf is not None else np.zeros((1, 1)), tc, ts, td, tsz, warmup, window, max_cycles,
        cfg.timeout, cfg.seed, cfg.log, cfg.ejection == "port", cfg.link_stages,
        cfg.credit_stages, cfg.allocator != "combined", cfg.allocator in OFFER_AHEAD,
        cfg.allocator == "separate-va")
    st = dict(zip(kernel.STAT_FIELDS, (int(x) for x in stats)))
    done = max(st["measured_done"], 1)
    if traffic.kind == kernel.TRACE:
        window = max(st["cycles"], 1)
    offered = (st["created_window"] / (M * window) if traffic.kind != kernel.TRACE
               else st["created"] / (M * window))
    accepted = st["accepted_packets"] / (M * window)
    deadlock = bool(st["deadlock"])
    stable = (not deadlock and st["measured_done"] == st["measured"] and st["dropped"] == 0
              and accepted >= 0.95 * offered)
    return Result(
        topology=name or getattr(net, "name", table.method), traffic=traffic.name,
        load=float(load) if traffic.kind != kernel.TRACE else offered, offered=offered, accepted=accepted,
        accepted_flits=st["accepted_flits"] / (M * window),
        latency_avg=st["latency_sum"] / done if st["measured_done"] else float("nan"),
        latency_p99=_percentile(hist, 0.99), hops_avg=st["hops_sum"] / done if st["measured_done"] else float("nan"),
        cycles=st["cycles"], measured=st["measured"], delivered=st["measured_done"], dropped=st["dropped"],
        deadlock=deadlock, stable=stable, link_utilisation=linkflits / window, log=log,
        deadlock_cycle=st["last_progress"] if deadlock else -1, in_flight=st["in_flight"],
        created_total=st["created"], delivered_total=st["delivered"])


def sweep(net, traffic: Traffic, load_list, config: Config = Config(), stop_after: int = 2,
          refine: int = 0) -> Sweep:
    """Simulate every load in turn; stop ``stop_after`` points past the first unstable one.
    Saturation: the highest load below the first unstable point (None if the first is unstable),
    then ``refine`` bisection steps between it and the first unstable load.  Several networks,
    their points on local processes or Dask: :func:`permnet.sim.netsim.sweeps.sweep_all`."""
    from permnet.sim.netsim.sweeps import sweep_all

    return sweep_all([(net, traffic, config)], load_list, stop_after, refine)[0]


def finish_sweep(net, traffic: Traffic, points: list, saturation, config: Config) -> Sweep:
    """The :class:`Sweep` of ``points`` (in load order), with the network's zero-load latency."""
    table = net.table if hasattr(net, "table") else net
    zl = MODELS[config.switching].zero_load_latency(table, config)
    return Sweep(points[0].topology if points else "", traffic.name, points, saturation, zl)


_VC = Model(_vc_check, _vc_simulate,
            lambda table, cfg: zero_load_latency(table, cfg.packet_size, cfg.link_stages, cfg.allocator),
            lambda cfg: None if cfg.switching == "wormhole" else cfg.buffer, _vc_refuse)
#: the simulator's router model of each switching (``Config.switching``)
MODELS = {"vct": _VC, "wormhole": _VC,
          "deflection": Model(lambda cfg, max_hops: cfg, _deflection_simulate, _deflection_zero_load,
                              lambda cfg: None, _deflection_refuse)}
