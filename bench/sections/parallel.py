"""Sweeps on several workers (issue 44): a 20-point ``netsim`` load sweep of a
large LDI on 1 worker, 2 local processes and a 2-worker Dask ``LocalCluster``,
measured side by side in one run (``python bench/run.py --section parallel``).

Each time is the whole sweep as ``permnet netsim --load 0.01:0.2:0.01`` runs
it once the network is built: starting the processes or the cluster, sending
the network to each worker, the 20 simulations, shutting down.  The network
and the load range are the same for the three; every load is below
saturation, so all 20 points run.  The three sweeps must agree point for
point (checked here: a bench of a wrong answer is worthless).

Targets: 2 processes in at most 0.6x the time of 1; the LocalCluster within
10 % of the 2 local processes.  Only a machine with two idle cores can meet
the first: on a shared machine the table says what the load was.

``PERMNET_BENCH_PARALLEL_NODES`` (default 4096) and
``PERMNET_BENCH_PARALLEL_CYCLES`` (measurement window per point, default 2000)
size the sweep.
"""

from __future__ import annotations

import os
import time

NODES = int(os.environ.get("PERMNET_BENCH_PARALLEL_NODES", "4096"))
CYCLES = int(os.environ.get("PERMNET_BENCH_PARALLEL_CYCLES", "2000"))
DEGREE = 8
LOADS = [round(0.01 * i, 2) for i in range(1, 21)]


def _sweep(item, workers, scheduler):
    from permnet.gen.parallel import Runner
    from permnet.sim.netsim.sweeps import sweep_all

    t = time.perf_counter()
    with Runner(workers, scheduler, progress=False) as r:
        sw = sweep_all([item], LOADS, runner=r)[0]
    return time.perf_counter() - t, sw


def table(args):
    from permnet.gen.routing import tables
    from permnet.sim.netsim import Config, pattern, simulate

    net = tables.network("ldi", NODES, DEGREE)
    cfg = Config(cycles=CYCLES, warmup=CYCLES // 4, seed=1).check(net.table.max_hops)
    item = (net, pattern("uniform", NODES, 1), cfg)
    simulate(tables.network("ldi", 64, DEGREE), pattern("uniform", 64, 1), 0.1, Config(cycles=100))  # compile
    load0 = os.getloadavg()[0]
    one, s1 = _sweep(item, 1, None)
    two, s2 = _sweep(item, 2, None)
    dask, s3 = _sweep(item, 2, "local")
    assert s1.as_dict() == s2.as_dict() == s3.as_dict(), "the sweeps disagree"
    assert len(s1.points) == len(LOADS), "a load saturated: the sweep stopped early"
    load1 = os.getloadavg()[0]
    name = f"netsim LDI({NODES},{DEGREE}) uniform, {len(LOADS)} loads x {CYCLES} cycles"
    rows = [[f"{name}, 1 worker", round(one, 2), "-", "-", "-"],
            [f"{name}, 2 local processes", round(two, 2), "1 worker", f"{two / one:.2f}x",
             f"<= 0.6x: {'met' if two <= 0.6 * one else 'not met'}"],
            [f"{name}, Dask LocalCluster of 2", round(dask, 2), "2 local processes", f"{dask / two:.2f}x",
             f"within 10 %: {'met' if abs(dask / two - 1) <= 0.10 else 'not met'}"]]
    title = (f"sweeps on several workers (issue 44): {os.cpu_count()} CPUs, load average {load0:.1f} before, "
             f"{load1:.1f} after")
    return title, ["case", "seconds", "against", "time ratio", "target"], rows
