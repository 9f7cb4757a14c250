"""Network simulator speed (issue 14): router-cycles per second.

Ours: the compiled cycle loop (``permnet.sim.netsim.kernel.simulate``, numba).
Baseline: the very same function run by CPython (``simulate.py_func``: the
same model line for line, same random stream, results identical -- checked
in tests/sim/test_netsim.py), on the same network and load but fewer cycles.
Both are reported as seconds per 10^5 router-cycles (M routers x cycles run).
"""

from __future__ import annotations

import time

import numpy as np
from registry import best_time, case

PER = 1e5


def _args(net, load, warmup, window, seed=1):
    t = net.table
    S, M = t.planes.shape
    up = np.empty_like(t.planes)
    for y in range(S):
        up[y, t.planes[y]] = np.arange(M)
    e = np.zeros(0, dtype=np.int64)
    return (np.ascontiguousarray(t.planes), up, t.length, t.hops,
            max(t.max_hops, 1), 8, False, S, 256, 0, np.zeros(1, np.int64), load, 4, 0, 0.0, np.zeros((1, 1)), e, e, e, e,
            warmup, window, warmup + 5 * window, 1000, seed, 0)


def _per_router_cycle(fn, args, M, repeat=3):
    s, out = best_time(lambda: fn(*args), repeat=repeat)
    cycles = int(out[0][0])
    return s / (M * cycles) * PER, cycles


@case("netsim LDI(64,8) uniform 0.3, s per 1e5 router-cycles", "report router-cycles/s; >= 50x vs CPython")
def ldi_64_8():
    from permnet.gen.routing import tables
    from permnet.sim.netsim import kernel

    net = tables.network("ldi", 64, 8)
    ours, _ = _per_router_cycle(kernel.simulate, _args(net, 0.3, 500, 2000), 64)
    base, _ = _per_router_cycle(kernel.simulate.py_func, _args(net, 0.3, 30, 60), 64, repeat=1)
    return ours, base, "same loop in CPython (numba py_func), 30+60 cycles"


def table(args):
    from permnet.gen.routing import tables
    from permnet.sim.netsim import kernel

    rows = []
    for topo, M, S, load in (("ldi", 64, 8, 0.3), ("ldi", 64, 8, 0.6), ("ldi", 64, 4, 0.15),
                             ("debruijn", 64, 4, 0.15), ("torus", 64, 4, 0.1), ("ldi", 1024, 8, 0.1)):
        net = tables.network(topo, M, S)
        a = _args(net, load, 200, 1000)
        kernel.simulate(*a)
        t = time.perf_counter()
        out = kernel.simulate(*a)
        s = time.perf_counter() - t
        cycles = int(out[0][0])
        rows.append([f"{net.name} uniform {load}", M, cycles, round(s, 4), f"{M * cycles / s:.3g}"])
    return ("netsim router-cycles per second (compiled loop, VCT, 4-flit packets, 8-flit buffers)",
            ["case", "routers", "cycles", "seconds", "router-cycles/s"], rows)
