"""Independent oracles for the deadlock analysis and the network simulator
(issue 14): routes come from :func:`permnet.gen.topologies.ldi.route`
walked link by link, never from the routing tables under test; the
deflection model (issue 41) against a network of the spec's ``route_step``
calls; the compiled kernels against CPython running the same loops."""

from __future__ import annotations

import numpy as np

from permnet.gen.topologies import ldi


def plane_of_link(planes: np.ndarray, u: int, v: int) -> int:
    """Lowest plane carrying u -> v (by scanning the planes)."""
    for y in range(planes.shape[0]):
        if planes[y][u] == v:
            return y
    raise AssertionError(f"no plane carries {u} -> {v}")


def ldi_routes(M: int, S: int):
    """{(src, dst): node path} from ldi.route (auto method, shortcuts on)."""
    return {(s, d): ldi.route(M, S, s, d).paths[0] for s in range(M) for d in range(M)}


def channels_of_path(path, planes, vcs: int):
    """[((node, plane), vc), ...] of a node path under hop-indexed VCs."""
    return [((u, plane_of_link(planes, u, v)), min(k, vcs - 1)) for k, (u, v) in enumerate(zip(path, path[1:]))]


def dependency_set(routes, planes, vcs: int) -> set:
    """Every (channel, next channel) pair some route uses."""
    deps = set()
    for path in routes.values():
        ch = channels_of_path(path, planes, vcs)
        deps.update(zip(ch, ch[1:]))
    return deps


class Ran:
    def __init__(self, code, out, err):
        self.exit_code, self.output, self.stderr = code, out, err


def run_main(argv, capsys) -> Ran:
    """Run the CLI in-process (no interpreter start-up): exit code, stdout, stderr."""
    from permnet.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:          # sys.exit(1) for a mismatch, as the console script sees it
        code = exc.code
    out = capsys.readouterr()
    return Ran(code, out.out, out.err)


def _compiled_equals_py(fn, args):
    """Call the numba function ``fn`` and its CPython original (``fn.py_func``) on ``args``; assert
    every output array is equal; return the first (the stats)."""
    fast, slow = fn(*args), fn.py_func(*args)
    for x, y in zip(fast, slow):
        assert np.array_equal(x, y)
    return fast[0]


def compiled_equals_cpython(table, *, lanes: int, kind: int = 0, cdf=None, eject_port: bool = False,
                            input_first: bool = False, two_stage: bool = False, separate_va: bool = False):
    """Run the kernel (:func:`permnet.sim.netsim.kernel.simulate`) and the same loop in CPython
    (``simulate.py_func``) on ``table`` (2 VCs, 4-flit buffers, load 0.5, 2-flit packets, 20 warm-up
    and 60 measured cycles, seed 3) and assert every output array is equal; returns the stats.
    Every argument is passed with the types :func:`permnet.sim.netsim.simulate` passes, so the
    kernel compiled here is the one the library uses (one numba compilation, not one per caller)."""
    from permnet.sim.netsim import kernel

    S, M = table.planes.shape
    up = np.empty_like(table.planes)
    for y in range(S):
        up[y, table.planes[y]] = np.arange(M)
    e = np.zeros(0, dtype=np.int64)
    args = (table.planes, up, table.length, table.hops, 2, 4, False, lanes, 16, kind,
            np.zeros(1, np.int64), 0.5, 2, 0, 0.0, np.zeros((1, 1)) if cdf is None else cdf, e, e, e, e,
            20, 60, 200, 100, 3, 1000, bool(eject_port), 0, 0, bool(input_first), bool(two_stage),
            bool(separate_va), np.zeros(1, np.int64))
    return _compiled_equals_py(kernel.simulate, args)


def spec_network(planes, rows, *, E, K, allocator, ready, cycles, deflect="any", side_buffer=0, priority="age",
                 seed=0):
    """A network of :func:`permnet.gen.routing.deflection.route_step` calls (the spec), written apart
    from the deflection kernel: ``rows`` are (cycle, src, dst) packets (a packet's serial is its row;
    queued by cycle, then row), ``ready[t, n, e]`` node n's ejection port e ready in cycle t, K cycles
    a hop; ``deflect="nearest"`` passes the neutral masks, ``side_buffer`` B each node's side buffer,
    ``priority`` the spec's key (module doc, "Priority"): ``age`` (:meth:`Flit.key`), ``random``
    (``random_key(seed, t, serial)``) or ``golden`` (CHIPPER's golden packet, id (src, seq mod
    GOLDEN_IDS) of ``golden_id``, ``GOLDEN_BASE + age M + src``, random keys for the others).
    Returns {serial: (src, dst, injected, handshake, node, port, hops)}."""
    from collections import deque

    from permnet.gen.routing.deflection import (EJECT_DEPTH, GOLDEN_BASE, GOLDEN_IDS, Flit, age_bits, distances,
                                                golden_epoch, golden_id, neutral_masks, productive_masks,
                                                random_key, route_step)

    planes = np.asarray(planes)
    S, M = planes.shape
    dist = distances(planes)
    masks = productive_masks(planes, dist)
    neutral = neutral_masks(planes, dist) if deflect == "nearest" else None
    D = int(dist.max())
    age_max = (1 << age_bits(M, S, D, K, side_buffer)) - 1
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])        # stable: by cycle, then row
    side = [[] for _ in range(M)]
    srcq = [deque() for _ in range(M)]
    ejq = [[deque() for _ in range(E)] for _ in range(M)]
    links = {}                                                          # arrival cycle -> {(node, slot): flit}
    injected, hops, where, done, seq = {}, {}, {}, {}, {}
    sent = [0] * M
    nxt = 0
    for t in range(cycles):
        gold = golden_id(t, M, golden_epoch(D, K))

        def key(f):
            if priority == "age":
                return f.key()
            if priority == "golden" and (f.src, seq[f.payload]) == gold:
                return GOLDEN_BASE + f.age * M + f.src
            return random_key(seed, t, f.payload)

        while nxt < len(order) and rows[order[nxt]][0] == t:
            i = order[nxt]
            srcq[rows[i][1]].append(i)
            nxt += 1
        arriving = links.pop(t, {})
        for n in range(M):
            room = [len(q) < EJECT_DEPTH for q in ejq[n]]
            for e, q in enumerate(ejq[n]):
                if q and ready[t, n, e]:
                    i = q.popleft()
                    done[i] = (rows[i][1], rows[i][2], injected[i], t, *where[i], hops[i])
            offer = None
            if srcq[n]:
                offer = Flit(rows[srcq[n][0]][2], n, 0, srcq[n][0])
                seq[srcq[n][0]] = sent[n] % GOLDEN_IDS
            slots = [arriving.get((n, y)) for y in range(S)]
            outs, ejected, taken = route_step(n, slots, masks[n], offer, room, E, K, age_max, allocator,
                                              None if neutral is None else neutral[n], side_buffer, side[n],
                                              key=key)
            if taken:
                injected[srcq[n].popleft()] = t
                sent[n] += 1
            for e, f in enumerate(ejected):
                if f is not None:
                    assert f.dst == n
                    ejq[n][e].append(f.payload)
                    where[f.payload] = (n, e)
            for y, f in enumerate(outs):
                if f is not None:
                    hops[f.payload] = hops.get(f.payload, 0) + 1
                    links.setdefault(t + K, {})[(int(planes[y][n]), y)] = f
    return done


def random_trace(rng, M, n, span):
    """n packets (cycle, src, dst), each uniform: the cycle below ``span``, the nodes below M."""
    return [(int(rng.integers(0, span)), int(rng.integers(0, M)), int(rng.integers(0, M))) for _ in range(n)]


def back_pressure(rng, cycles, M, E, p_ready, free_from):
    """Random ready (high with probability p_ready), always high from cycle ``free_from`` on."""
    ready = (rng.random((cycles, M, E)) < p_ready).astype(np.uint8)
    ready[free_from:] = 1
    return ready


def deflect_equals_cpython(planes, ready, *, ideal, seed=3, nearest=False, B=0, priority=0):
    """Run the deflection kernel (:func:`permnet.sim.netsim.deflect_kernel.simulate`) and the same loop
    in CPython (``simulate.py_func``) on ``planes`` (E = 2 ejection ports, two-cycle hops, source queues
    of 16, hot spot 20% to node 3 at load 0.6, 20 warm-up and 60 measured cycles, 200 at most, a log of
    1000, ejection readiness ``ready``; the neutral masks if ``nearest``, side buffers of B, priority
    0 age, 1 random, 2 golden with golden_epoch(D, 2)) and assert every output array is equal; returns
    the stats. Every argument has the type netsim passes (``deflect._run``), so the kernel compiled
    here is the one the library uses."""
    from permnet.gen.routing.deflection import age_bits, golden_epoch, neutral_masks
    from permnet.sim.netsim import deflect, deflect_kernel

    planes, dist, masks, diameter = deflect.tables(planes)
    S, M = planes.shape
    args = (planes, masks, dist, 2, ideal, 2, (1 << age_bits(M, S, diameter, 2, B)) - 1, 16,
            deflect_kernel.HOTSPOT, np.zeros(1, np.int64), 0.6, 3, 0.2, np.zeros((1, 1)),
            *(np.zeros(0, np.int64),) * 3, 20, 60, 200, seed, 1000, ready, np.zeros(1, np.int64),
            neutral_masks(planes, dist) if nearest else np.zeros_like(masks), B, priority,
            golden_epoch(diameter, 2) if priority else 1)
    return _compiled_equals_py(deflect_kernel.simulate, args)
