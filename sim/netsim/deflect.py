"""The deflection-router network in the simulator (issue 41): one load point, and a
trace-driven delivery log for cycle-exact RTL-against-model tests.

The router is :func:`permnet.gen.routing.deflection.route_step` (the spec);
the loop is :func:`permnet.sim.netsim.deflect_kernel.simulate`; the model is
stated in :mod:`permnet.sim.netsim` ("Deflection router model").
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from permnet.gen.errors import require
from permnet.gen.routing.deflection import (ALLOCATORS, DEFLECT, PACKET_FLITS, PRIORITIES, age_bits, distances,
                                            golden_epoch, neutral_masks, productive_masks)
from permnet.sim.netsim import deflect_kernel

__all__ = ["Delivery", "check", "tables", "zero_load_latency", "simulate", "deflection_trace"]

MAX_NODES = 2048                 # the tables are M x M
MAX_SIDE_BUFFER = 64             # side-buffer flits per node (spec option, model only)


class Delivery(NamedTuple):
    """One packet of :func:`deflection_trace` (cycles as stated there)."""

    serial: int
    src: int
    dst: int
    injected: int
    handshake: int
    node: int
    port: int
    hops: int


def check(S: int, E: int, allocator: str, deflect: str = "any", side_buffer: int = 0, priority: str = "age") -> None:
    """Refuse ejection widths outside 1..S, unknown allocators, and the permutation allocator without S = 2^k;
    unknown deflection rules, side buffers outside 0..MAX_SIDE_BUFFER and unknown priorities (the spec's
    options)."""
    require(priority in PRIORITIES, f"priority must be {', '.join(PRIORITIES)}, got {priority!r}")
    require(deflect in DEFLECT, f"deflect must be {' or '.join(DEFLECT)}, got {deflect!r}")
    require(isinstance(side_buffer, int) and 0 <= side_buffer <= MAX_SIDE_BUFFER,
            f"side buffer must be 0..{MAX_SIDE_BUFFER} flits per node, got {side_buffer}")
    require(isinstance(E, int) and 1 <= E <= S, f"ejection width must be 1..S = 1..{S}, got {E}")
    require(allocator in ALLOCATORS, f"deflection allocator must be {' or '.join(ALLOCATORS)}, got {allocator!r}")
    require(allocator != "permutation" or S & (S - 1) == 0,
            f"the permutation allocator needs a power-of-two number of planes, got S = {S} "
            f"(the ideal allocator takes any S)")


def tables(planes):
    """``(planes, dist, masks, diameter)`` of the spec (:func:`~permnet.gen.routing.deflection.distances`,
    :func:`~permnet.gen.routing.deflection.productive_masks`), int64 and contiguous."""
    planes = np.ascontiguousarray(np.asarray(planes, dtype=np.int64))
    require(planes.ndim == 2 and planes.shape[0] >= 1, "planes must be an S x M array")
    S, M = planes.shape
    require(2 <= M <= MAX_NODES, f"the deflection model takes 2..{MAX_NODES} nodes, got {M}")
    require(bool(np.all((planes >= 0) & (planes < M))) and all(len(set(p.tolist())) == M for p in planes),
            "every plane must be a permutation of the nodes")
    dist, masks = _tables(planes.tobytes(), S, M)
    return planes, dist, masks, int(dist.max())


@lru_cache(maxsize=4)
def _tables(key: bytes, S: int, M: int):
    """The spec's distances and masks, once per planes (a sweep simulates the same planes at every load)."""
    planes = np.frombuffer(key, dtype=np.int64).reshape(S, M)
    dist = distances(planes)
    masks = productive_masks(planes, dist)
    return dist, masks                       # (writeable: numba compiles read-only arrays as another type)


def _neutral(planes, dist):
    """The spec's neutral masks (``deflect="nearest"``), once per planes."""
    return _neutral_cached(planes.tobytes(), *planes.shape, dist.tobytes())


@lru_cache(maxsize=4)
def _neutral_cached(key: bytes, S: int, M: int, dkey: bytes):
    planes = np.frombuffer(key, dtype=np.int64).reshape(S, M)
    return neutral_masks(planes, np.frombuffer(dkey, dtype=np.int64).reshape(M, M))


def zero_load_latency(planes, link_stages: int = 0) -> float:
    """Model latency with no contention, averaged over ordered pairs of distinct nodes:
    ``dist (1 + link_stages) + 2`` cycles (shortest paths: no flit is deflected alone; the
    ejection queue's register takes a cycle, and latency counts to the end of the handshake's)."""
    planes, dist, _, _ = tables(planes)
    off = ~np.eye(planes.shape[1], dtype=bool)
    return float(dist[off].mean()) * (1 + link_stages) + 2


def _run(planes, dist, masks, diameter, *, E, allocator, link_stages, qcap, kind, dest, rate, hot, hot_frac, cdf,
         tc, ts, td, warmup, window, max_cycles, seed, logcap, ej_ready, deflect="any", side_buffer=0,
         priority="age"):
    from permnet.sim.netsim.run import _interruptible

    S, M = planes.shape
    K = 1 + link_stages
    age_max = (1 << age_bits(M, S, diameter, K, side_buffer)) - 1
    # one compiled signature for every option, the default's included (a neutral mask of 0 is
    # the default's rule): a second signature of this kernel is a second compilation of 15-40 s
    opts = dict(neutral=_neutral(planes, dist) if deflect == "nearest" else np.zeros_like(masks), B=side_buffer,
                priority=PRIORITIES.index(priority), epoch=golden_epoch(diameter, K))
    require(M * qcap <= 1 << 24, f"the simulator state would be too large: {M} nodes x {qcap}-packet source queues")
    return _interruptible(planes, masks, dist, E, allocator == "ideal", K, age_max, qcap, kind, dest, float(rate),
                          hot, float(hot_frac), cdf, tc, ts, td, warmup, window, max_cycles, seed, logcap, ej_ready,
                          fn=deflect_kernel.simulate, **opts)


def simulate(net, traffic, load: float, cfg, name: str | None = None):
    """One load point of a deflection network (``cfg.switching == "deflection"``, checked by
    :meth:`permnet.sim.netsim.Config.check`): a :class:`permnet.sim.netsim.Result` with the
    deflection statistics (``deflection_rate``, ``hops_ratio``, ``hops_max``)."""
    from permnet.sim.netsim.run import Result, _percentile

    table = net.table if hasattr(net, "table") else net
    planes, dist, masks, diameter = tables(table.planes)
    S, M = planes.shape
    check(S, cfg.ejection_width, cfg.deflection_allocator, cfg.deflect, cfg.side_buffer, cfg.priority)
    drain = 4 * cfg.cycles if cfg.drain is None else cfg.drain
    empty = np.zeros(0, dtype=np.int64)
    trace = traffic.kind == deflect_kernel.TRACE
    if trace:
        tc, ts, td, tsz = traffic.trace
        require(int(tsz.max()) == PACKET_FLITS, f"deflection routing carries single-flit packets; the trace has a "
                                                f"{int(tsz.max())}-flit packet")
        max_cycles = int(tc.max()) + 1 + drain
        warmup, window = 0, max_cycles
        qcap = int(np.bincount(ts, minlength=M).max())
    else:
        tc = ts = td = empty
        warmup, window, qcap = cfg.warmup, cfg.cycles, cfg.queue
        max_cycles = warmup + window + drain
    stats, hist, linkflits, log = _run(
        planes, dist, masks, diameter, E=cfg.ejection_width, allocator=cfg.deflection_allocator,
        link_stages=cfg.link_stages, qcap=qcap, kind=traffic.kind, dest=traffic.dest.astype(np.int64), rate=load,
        hot=traffic.hot, hot_frac=traffic.hot_frac,
        cdf=traffic.cdf if traffic.cdf is not None else np.zeros((1, 1)), tc=tc, ts=ts, td=td, warmup=warmup,
        window=window, max_cycles=max_cycles, seed=cfg.seed, logcap=cfg.log,
        ej_ready=np.zeros((0, 1, 1), dtype=np.uint8), deflect=cfg.deflect, side_buffer=cfg.side_buffer,
        priority=cfg.priority)
    st = dict(zip(deflect_kernel.STAT_FIELDS, (int(x) for x in stats)))
    done = st["measured_done"]
    if trace:
        window = max(st["cycles"], 1)
    offered = (st["created"] if trace else st["created_window"]) / (M * window)
    accepted = st["accepted_packets"] / (M * window)
    stable = done == st["measured"] and st["dropped"] == 0 and accepted >= 0.95 * offered
    nan = float("nan")
    # the VC kernel's log columns: serial, src, dst, created, end of the handshake's cycle, hops, size
    vlog = (np.stack([log[:, 0], log[:, 1], log[:, 2], log[:, 3], log[:, 5] + 1, log[:, 8],
                      np.ones(len(log), dtype=np.int64)], axis=1) if len(log) else np.zeros((0, 7), np.int64))
    return Result(
        topology=name or getattr(net, "name", table.method), traffic=traffic.name,
        load=float(load) if not trace else offered, offered=offered, accepted=accepted, accepted_flits=accepted,
        latency_avg=st["latency_sum"] / done if done else nan, latency_p99=_percentile(hist, 0.99),
        hops_avg=st["hops_sum"] / done if done else nan, cycles=st["cycles"], measured=st["measured"],
        delivered=done, dropped=st["dropped"], deadlock=False, stable=stable, link_utilisation=linkflits / window,
        log=vlog, in_flight=st["in_flight"], created_total=st["created"], delivered_total=st["delivered"],
        deflection_rate=st["deflected_sum"] / st["hops_sum"] if st["hops_sum"] else nan,
        hops_ratio=st["hops_sum"] / st["dist_sum"] if st["dist_sum"] else nan,
        hops_max=st["hops_max"], hops_max_in_flight=st["hops_max_in_flight"],
        inject_stall=st["inject_stalled"] / st["inject_waiting"] if st["inject_waiting"] else nan,
        eject_missed=st["eject_missed"] / (M * window), eject_missed_full=st["eject_missed_full"] / (M * window),
        side_entered=st["side_entered"] / (M * window))


def deflection_trace(planes, rows, *, cycles: int, E: int = 2, link_stages: int = 0, allocator: str = "permutation",
                     ej_ready=None, deflect: str = "any", side_buffer: int = 0, priority: str = "age",
                     seed: int = 0) -> list[Delivery]:
    """The delivery log of a network of deflection routers fed a trace: what the RTL's network must
    deliver, cycle for cycle.

    ``planes``: S x M (output y of node n reaches input y of ``planes[y][n]``); ``rows``:
    ``(cycle, src, dst)`` (or ``(cycle, src, dst, 1)``) packets; ``ej_ready``: the users' ``ready``,
    shape ``(cycles, M, E)`` (None: always high); ``cycles``: the cycles simulated, 0 .. cycles-1.
    Returns a :class:`Delivery` per packet delivered within them, sorted by serial; a packet not
    listed was still in a queue or in the network at the end.

    Cycles, relative to :func:`permnet.gen.routing.deflection.route_step` (one call per node and
    cycle, hop cycles K = 1 + link_stages, ages saturating at ``2**age_bits(M, S, D, K) - 1``):

    * ``serial``: the packet's row index in ``rows``.
    * Row ``(c, s, d)`` joins node s's source queue (unbounded, FIFO in order of cycle, then of
      ``rows``) in cycle c; the injection port offers the queue's head (``valid``) from cycle c on.
    * ``injected``: the cycle whose ``route_step`` of node s takes the offered flit (returns
      ``injected``); the flit leaves an output in that cycle, age 0 -> K.
    * A flit on output y of node n in cycle t is in slot y of ``planes[y][n]``'s ``route_step`` in
      cycle t + K.
    * ``node``, ``port``: the ``route_step`` (always at ``dst``) and its ejection port that ejected
      the flit, in some cycle t_e >= injected + K.
    * ``handshake``: the cycle the user takes it from that port's queue (``valid`` and ``ready``
      high), at the earliest t_e + 1 (the queue is registered; ``EJECT_DEPTH`` flits; it has room
      in a cycle if it held fewer at the start of that cycle).
    * ``hops``: links the flit crossed (productive and deflected).

    With ``ready`` always high, a packet alone in the network has ``injected = c`` and
    ``handshake = c + dist(s, d) K + 1``.

    ``deflect`` and ``side_buffer``: the spec's options (model only; ``route_step``'s ``neutral_row``
    and ``side_buffer``, ages saturating at ``2**age_bits(M, S, D, K, side_buffer) - 1``); ``hops``
    does not count cycles in a side buffer.

    ``priority`` and ``seed``: the spec's priority (module doc, "Priority"; model only), a flit's key
    in cycle t that of ``route_step``'s ``key``: ``random_key(seed, t, i)`` for ``random`` (i: the
    packet's index in ``rows`` sorted stably by cycle, its serial where the rows are in order), and
    for ``golden`` the golden key when ``(src, seq)`` is ``golden_id(t, M, golden_epoch(D, K))``
    (seq: the packets node src injected before it, modulo ``GOLDEN_IDS``).

    For a network of :class:`permnet.hdl.deflect.DeflectionRouter` with ``stages`` P and L
    registers on each link, K = P + L, so ``link_stages = P - 1 + L``.
    """
    planes, dist, masks, diameter = tables(planes)
    S, M = planes.shape
    check(S, E, allocator, deflect, side_buffer, priority)
    require(isinstance(link_stages, int) and 0 <= link_stages <= 16, f"link stages must be 0..16, got {link_stages}")
    require(isinstance(cycles, int) and 1 <= cycles <= 10**7, f"cycles must be 1..1e7, got {cycles}")
    arr = np.asarray([tuple(r) for r in rows], dtype=np.int64).reshape(-1, 4 if rows and len(rows[0]) == 4 else 3)
    require(len(arr) >= 1, "the trace has no packets")
    require(arr.shape[1] == 3 or bool((arr[:, 3] == PACKET_FLITS).all()),
            "deflection routing carries single-flit packets")
    require(bool((arr[:, 0] >= 0).all()), "trace cycles must be >= 0")
    require(bool(((arr[:, 1:3] >= 0) & (arr[:, 1:3] < M)).all()), f"trace nodes must be in 0..{M - 1}")
    if ej_ready is None:
        ready = np.zeros((0, 1, 1), dtype=np.uint8)
    else:
        ready = np.ascontiguousarray(np.asarray(ej_ready, dtype=np.uint8))
        require(ready.shape == (cycles, M, E), f"ej_ready must have shape (cycles, M, E) = {(cycles, M, E)}, "
                                               f"got {ready.shape}")
    order = np.argsort(arr[:, 0], kind="stable")
    a = arr[order]
    stats, hist, linkflits, log = _run(
        planes, dist, masks, diameter, E=E, allocator=allocator, link_stages=link_stages,
        qcap=int(np.bincount(a[:, 1], minlength=M).max()), kind=deflect_kernel.TRACE, dest=np.zeros(1, np.int64),
        rate=1.0, hot=0, hot_frac=0.0, cdf=np.zeros((1, 1)), tc=np.ascontiguousarray(a[:, 0]),
        ts=np.ascontiguousarray(a[:, 1]), td=np.ascontiguousarray(a[:, 2]), warmup=0, window=cycles,
        max_cycles=cycles, seed=seed, logcap=len(a), ej_ready=ready, deflect=deflect, side_buffer=side_buffer,
        priority=priority)
    out = [Delivery(int(order[r[0]]), *(int(x) for x in r[[1, 2, 4, 5, 6, 7, 8]])) for r in log]
    return sorted(out)
