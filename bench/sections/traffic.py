"""Planes and schedules from an application's traffic (issue 26).

Three tables, targets from the issue (measurements, not timed tests):

* static planes at M = 256, S = 8: the 16 x 16 stencil and the transpose on
  one hop (weighted mean 1.0), uniform within 0.5 % of LDI(256,8), the
  skewed workload below it;
* ``plan`` at M = 4096, S = 16 on a stencil and on the skewed matrix: under 60 s;
* schedules with Solstice's settings (reconfiguration 30 us, schedule
  1,500 us, load 1): ours against Solstice and BvN, served fraction, on the
  skewed workload and the application patterns at M = 64, 256, 1024 and
  S = 1, 4; target ours >= Solstice everywhere and under 1 s at M = 1024.

``PERMNET_BENCH_TRAFFIC_SIZES`` (default ``64,256,1024``) and
``PERMNET_BENCH_TRAFFIC_BIG`` (default 4096; 0 skips) shrink it for a
quick check.
"""

from __future__ import annotations

import os
import time

SIZES = [int(x) for x in os.environ.get("PERMNET_BENCH_TRAFFIC_SIZES", "64,256,1024").split(",") if x]
BIG = int(os.environ.get("PERMNET_BENCH_TRAFFIC_BIG", "4096"))
DELAY_US, HORIZON_US = 30.0, 1500.0
WORKLOADS = ("skewed", "stencil2d", "stencil3d", "transpose", "ring-allreduce", "all-to-all")


def _plan_table():
    from permnet.gen.traffic.patterns import pattern
    from permnet.gen.traffic.plan import plan_planes

    rows = []
    M, S = (256, 8) if 256 in SIZES else (64, 4)
    targets = {"stencil2d": "mean 1.0", "transpose": "mean 1.0", "uniform": "<= LDI + 0.5 %",
               "skewed": "< LDI"}
    for name, target in targets.items():
        t = time.perf_counter()
        r = plan_planes(pattern(name, M), S)
        sec = time.perf_counter() - t
        ok = {"stencil2d": r.mean_hops == 1.0, "transpose": r.mean_hops == 1.0,
              "uniform": r.mean_hops <= r.ldi.mean_hops * 1.005, "skewed": r.mean_hops < r.ldi.mean_hops}[name]
        rows.append([f"{name} M={M} S={S}", r.circuits, f"{r.mean_hops:.4f}", f"{r.max_link_load:.4g}",
                     f"{r.ldi.mean_hops:.4f}", f"{r.ldi.max_link_load:.4g}", f"{sec:.2f}", target,
                     "met" if ok else "MISSED"])
    if BIG:
        for name in ("stencil2d", "skewed"):
            D = pattern(name, BIG)
            t = time.perf_counter()
            r = plan_planes(D, 16)
            sec = time.perf_counter() - t
            rows.append([f"{name} M={BIG} S=16", r.circuits, f"{r.mean_hops:.4f}", f"{r.max_link_load:.4g}",
                         f"{r.ldi.mean_hops:.4f}", f"{r.ldi.max_link_load:.4g}", f"{sec:.2f}", "< 60 s",
                         "met" if sec < 60 else "MISSED"])
    return ("Static planes for a demand (permnet plan): K circuits + LDI(M,S-K)",
            ["demand", "K", "mean hops", "max link load", "LDI mean hops", "LDI max link load", "seconds",
             "target", "met"], rows)


def _schedule_table():
    from permnet.gen.traffic.patterns import pattern
    from permnet.gen.traffic.schedule import schedule_demand

    rows = []
    schedule_demand(pattern("skewed", 16), 2, DELAY_US, HORIZON_US)      # warm-up: numba's compile or cache load
    for M in SIZES:
        for S in (1, 4):
            for name in WORKLOADS:
                try:
                    D = pattern(name, M)
                except ValueError:          # transpose needs a square M
                    continue
                r = schedule_demand(D, S, DELAY_US, HORIZON_US)
                ok = r.ours.served >= r.solstice.served - 1e-12 and (M < 1024 or r.ours.seconds < 1.0)
                rows.append([name, M, S, f"{r.ours.served:.4f}", r.ours.method, f"{r.solstice.served:.4f}",
                             f"{r.bvn.served:.4f}", f"{r.ours.seconds:.2f}", f"{r.solstice.seconds:.2f}",
                             f"{r.bvn.seconds:.2f}", "met" if ok else "MISSED"])
    return (f"Circuit schedules, reconfiguration {DELAY_US:g} us, horizon {HORIZON_US:g} us, load 1: "
            "served fraction (direct)",
            ["workload", "M", "S", "ours", "ours from", "Solstice", "BvN", "ours (s, incl. baselines)",
             "Solstice (s)", "BvN (s)", "ours >= Solstice (and < 1 s at M = 1024)"], rows)


def tables(args):
    return [_plan_table(), _schedule_table()]
