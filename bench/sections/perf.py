"""Performance near the limits: every figure beside its reference, same run.

Software cases (``-k perf:``): the Beneš router against the compiled C++
looping router, ``permnet benes`` end to end, the metrics engine against the
compiled bit-parallel BFS, the LDI plane decomposition when S does not divide
M against scipy's repeated matching.  ``table`` gathers them with the bound
each must meet and, where one is missed, the reason found.  The RTL table
(``perf_rtl_rows``) synthesises single designs, each synthesis a job of
``bench/jobs.py`` (on ``run.py --workers`` / ``--scheduler``).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from baselines import cpp_benes_seconds, cpp_bfs
from registry import best_time, case

HERE = Path(__file__).resolve().parent.parent
RESULTS: dict = {}          # case name -> (ours, base, baseline name), reused by table()


def _record(name, ours, base, what):
    RESULTS[name] = (ours, base, what)
    return ours, base, what


BENES = "perf: Benes settings N=2^20, packed, all cores, vs C++ looping router"


@case(BENES, "ratio >= 1.0")
def bench_benes_route():
    from permnet.gen.routing import benes
    p = np.random.default_rng(1).permutation(2 ** 20)
    ours, _ = best_time(lambda: benes.route(p), repeat=5)
    return _record(BENES, ours, cpp_benes_seconds(), "C++ recursive looping router (g++ -O2, 1 core)")


BENES_E2E = "perf: permnet benes 2^20 in process: read file, route, replay check, -o files"


@case(BENES_E2E, "<= 0.6 s")
def bench_benes_end_to_end():
    from permnet.switching import configure, read_perm_array

    tmp = Path(tempfile.mkdtemp(prefix="permnet-bench-"))
    pfile = tmp / "perm.txt"
    p = np.random.default_rng(3).permutation(2 ** 20)
    pfile.write_text("\n".join(map(str, p.tolist())) + "\n")

    def run():                 # what the command calls
        configure(read_perm_array(pfile), outdir=tmp / "out")

    ours, _ = best_time(run, repeat=3)
    return _record(BENES_E2E, ours, cpp_benes_seconds(), "C++ looping router (routing only)")


BENES_CLI = "perf: `permnet benes --perm-file P -o DIR` 2^20, whole process"


@case(BENES_CLI, "report (start-up included: permnet.cli imports every command, numba's first use "
                 "initialises its CPU target and imports scipy.linalg; the N = 2 run is that start-up alone)")
def bench_benes_cli():
    tmp = Path(tempfile.mkdtemp(prefix="permnet-bench-"))
    pfile = tmp / "perm.txt"
    pfile.write_text("\n".join(map(str, np.random.default_rng(4).permutation(2 ** 20).tolist())) + "\n")
    exe = str(Path(sys.executable).with_name("permnet"))
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([exe, "benes", "--perm-file", str(pfile), "-o", str(tmp / "o")], check=True,
                       capture_output=True)
        best = min(best, time.perf_counter() - t)
    t = time.perf_counter()
    subprocess.run([exe, "benes", "--perm", "1,0"], check=True, capture_output=True)
    startup = time.perf_counter() - t
    return _record(BENES_CLI, best, startup, "the same command for N = 2 (start-up alone)")


def _metrics_case(n, seed=1):
    import networkx as nx

    from permnet.gen.graph.metrics import Digraph, distance_stats

    G = nx.random_regular_graph(16, n, seed=seed)
    e = np.array(G.edges())
    g = Digraph.from_arcs(n, np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])
    ours, s = best_time(lambda: distance_stats(g), repeat=3 if n <= 4096 else 1)
    secs, diam, avg = cpp_bfs(g)
    assert diam == s.diameter and abs(avg - s.avg_hops) < 1e-9
    return ours, secs


METRICS = "perf: metrics, random 16-regular, 4096 nodes, vs compiled bit-parallel BFS"
METRICS_BIG = "perf: metrics, random 16-regular, 65536 nodes, vs compiled bit-parallel BFS"


@case(METRICS, "ratio >= 0.67 (within 1.5x)")
def bench_metrics_4096():
    ours, base = _metrics_case(4096)
    return _record(METRICS, ours, base, "C++ bit-parallel BFS, g++ -O2 -fopenmp, all cores")


@case(METRICS_BIG, "report")
def bench_metrics_65536():
    ours, base = _metrics_case(65536)
    return _record(METRICS_BIG, ours, base, "C++ bit-parallel BFS, g++ -O2 -fopenmp, all cores")


def _scipy_planes(M, S):
    sys.path.insert(0, str(HERE))
    from run import _scipy_repeated_matching
    return _scipy_repeated_matching(M, S)


PLANES = "perf: planes LDI(65535,16) (S does not divide M), auto = gcd closed form"
PLANES_COL = "perf: planes LDI(65535,16), general edge colouring"


@case(PLANES, ">= 3x vs scipy repeated matching")
def bench_planes_gcd():
    from permnet.gen.planes.decompose import ldi_planes
    ours, res = best_time(lambda: ldi_planes(65535, 16))
    assert res.method == "gcd"
    base, _ = best_time(lambda: _scipy_planes(65535, 16), repeat=1)
    return _record(PLANES, ours, base, "scipy maximum_bipartite_matching x16")


@case(PLANES_COL, "report (the general path; auto no longer needs it for LDI)")
def bench_planes_colouring():
    from permnet.gen.planes.decompose import ldi_planes
    ours, _ = best_time(lambda: ldi_planes(65535, 16, "colouring"))
    base, _ = best_time(lambda: _scipy_planes(65535, 16), repeat=1)
    return _record(PLANES_COL, ours, base, "scipy maximum_bipartite_matching x16")


# Bounds and, for a figure that can miss, the reason found (measured on the
# shared 2-core machine, see the report).
BOUNDS = {
    BENES: (1.0, "ratio", "the parallel part needs both cores; on a loaded machine the second core is not "
                          "there and the router is one-core code at C++ speed (CPU time per route on par)"),
    BENES_E2E: (0.6, "seconds", "route + compiled replay + 44 MB of stage files; on a loaded machine the "
                                "parallel route and replay get one core (routing about half, the replay a fifth, "
                                "parsing, checks and files the rest)"),
    METRICS: (0.67, "ratio", "the C++ baseline is the same algorithm, so only constant factors and the "
                             "direction-optimising levels separate them; numba's static prange split "
                             "loses on a busy machine where OpenMP's dynamic schedule does not"),
    PLANES: (3.0, "ratio", ""),
}


def table(args):
    for name, fn in ((BENES, bench_benes_route), (BENES_E2E, bench_benes_end_to_end), (BENES_CLI, bench_benes_cli),
                     (METRICS, bench_metrics_4096), (METRICS_BIG, bench_metrics_65536),
                     (PLANES, bench_planes_gcd), (PLANES_COL, bench_planes_colouring)):
        if name not in RESULTS:
            fn()
    rows = []
    for name, (ours, base, what) in RESULTS.items():
        bound, kind, reason = BOUNDS.get(name, (None, "report", ""))
        ratio = base / ours if ours > 0 else float("nan")
        if bound is None:
            status = "report"
        else:
            met = (ratio >= bound) if kind == "ratio" else (ours <= bound)
            status = "met" if met else f"missed: {reason}"
        rows.append([name.removeprefix("perf: "), f"{ours:.4f} s", f"{what}: {base:.4f} s", f"{ratio:.2f}",
                     ("report" if bound is None else (f">= {bound}" if kind == "ratio" else f"<= {bound} s")),
                     status])
    if not getattr(args, "no_synth", False):
        for name, ours, ref, bound, status in perf_rtl_rows(args):
            rows.append([name, ours, ref, "", bound, status])
    return ("Performance near the limits",
            ["case", "ours", "reference", "ratio ref/ours", "bound", "status"], rows)


# ------------------------------------------------------------------ RTL

# the designs of the RTL table, by name (a job names its design, so the workers build it)
RTL_DESIGNS = ("crossbar32-mapped", "crossbar32-yosys", "crossbar32-plane", "crossbar8-tdm4", "benes8-cells",
               "benes8", "nexthop3000-pipelined", "nexthop3000-naive")


def _design(name):
    """The design of the RTL table called ``name`` (:data:`RTL_DESIGNS`)."""
    from permnet.hdl.benes import BenesNetwork
    from permnet.hdl.crossbar import CrossbarPlane
    from permnet.hdl.muxtree import CrossbarDatapath
    from permnet.hdl.nexthop import LdiNextHop, LdiNextHopNaive

    if name == "crossbar32-mapped":
        return CrossbarDatapath(32, 1, mapped=True)       # the hand-mapped tree
    if name == "crossbar32-yosys":
        return CrossbarDatapath(32, 1, mapped=False)      # yosys's own mapping of Array[sel]
    if name == "crossbar32-plane":
        design = CrossbarPlane(32, 1)
        design.cells = "ecp5"
        return design
    if name == "crossbar8-tdm4":
        return CrossbarPlane(8, 8, slots=4)
    if name == "benes8-cells":
        design = BenesNetwork(8, 8)
        design.cells = "ecp5"
        return design
    if name == "benes8":
        return BenesNetwork(8, 8)
    if name == "nexthop3000-pipelined":
        return LdiNextHop(3000, 10, pipeline=_nexthop3000_depth())   # a register after every level
    if name == "nexthop3000-naive":
        return LdiNextHopNaive(3000, 10, pipeline=1)
    raise ValueError(f"no RTL design {name!r}")


def _nexthop3000_depth() -> int:
    """Levels of LDI(3000,10)'s next-hop unit: the pipelined design's stages and its row's latency."""
    from permnet.hdl.nexthop import LdiNextHop

    return LdiNextHop(3000, 10).depth


def _synthesize(name, target="ecp5", seed=1):
    """yosys and nextpnr's figures of the design ``name`` (a job of :func:`perf_rtl_rows`)."""
    from permnet.hdl.synth import synthesize

    return synthesize(_design(name), target, seed=seed)


# nextpnr's result depends on the placement seed: the median of three seeds
NEXTHOP_SEEDS = (1, 2, 3)
RTL_RUNS = [(d, "ecp5", 1) for d in RTL_DESIGNS if d != "nexthop3000-pipelined"] + [("benes8", "ice40", 1)] + \
    [("nexthop3000-pipelined", "ecp5", sd) for sd in NEXTHOP_SEEDS]


def perf_rtl_rows(args=None):
    """Synthesis figures beside their references (ECP5 85k, nextpnr's default speed grade 6):
    every synthesis an independent job (bench/jobs.py) on ``run.py``'s ``--workers`` /
    ``--scheduler``, the rows put together from their figures in a fixed order."""
    from jobs import Job, run_rows

    from permnet.gen.routing import benes
    from permnet.hdl.muxtree import lut4_count

    got = dict(zip(RTL_RUNS, run_rows([Job.of(_synthesize, *r) for r in RTL_RUNS], args, desc="synthesis")))
    rows = []
    N = 32
    ref, plain, full = (got[(d, "ecp5", 1)] for d in ("crossbar32-mapped", "crossbar32-yosys", "crossbar32-plane"))
    cfg_bits = N * (1 + (N - 1).bit_length())
    cp = N * N
    rows.append(["crossbar 32x1 datapath, LUT4 per crosspoint bit",
                 f"{ref['luts'] / cp:.3f} (hand-mapped tree; yosys default {plain['luts'] / cp:.2f})",
                 f"bound {N * lut4_count(N) / cp:.4f}", "<= 0.6",
                 "met" if ref["luts"] / cp <= 0.6 else "missed"])
    rows.append(["crossbar 32x1 plane (cells=ecp5): total / config logic LUT4",
                 f"{full['luts']} / {full['luts'] - ref['luts']}", f"datapath {ref['luts']}", "report",
                 f"FFs per configuration bit {(full['ffs'] - N) / cfg_bits:.2f} (K = 1: active + shadow "
                 "copies in FFs; with TDM slots the configurations are in RAM, next row)"])
    tdm = got[("crossbar8-tdm4", "ecp5", 1)]
    tdm_cfg_bits = 4 * 8 * (1 + 3)
    rows.append(["crossbar 8x8, 4 TDM slots: flip-flops per configuration bit",
                 f"{(tdm['ffs'] - 64 - 4 * 16 * 2) / tdm_cfg_bits:.2f} ({tdm['ffs']} FFs, {tdm['luts']} LUT4)",
                 "before: 475 FFs (active + shadow copies, 3.2 per bit)", "report",
                 "slot configurations in two-bank distributed RAM; FFs left: o_data, durations, counters"])
    bound = 2 * benes.switch_count(8) * 8
    b5, b5d, bi = got[("benes8-cells", "ecp5", 1)], got[("benes8", "ecp5", 1)], got[("benes8", "ice40", 1)]
    rows.append(["Benes 8x8, 8 bits: LUT4 (cells=ecp5 / yosys ECP5 / iCE40)",
                 f"{b5['luts']} / {b5d['luts']} / {bi['luts']}", f"2 LUT4 per switch per bit: {bound}",
                 "<= 1.3x", "met" if b5["luts"] <= 1.3 * bound else "missed"])
    depth = _nexthop3000_depth()
    runs = [got[("nexthop3000-pipelined", "ecp5", sd)] for sd in NEXTHOP_SEEDS]
    fmaxes = sorted(r["fmax_mhz"] or 0 for r in runs)
    ours = runs[0]
    naive = got[("nexthop3000-naive", "ecp5", 1)]
    rows.append([f"next hop LDI(3000,10), pipeline {depth} (one decision per cycle, latency {depth})",
                 f"{fmaxes[1]} MHz median of seeds {NEXTHOP_SEEDS} ({fmaxes[0]}..{fmaxes[-1]}), {ours['luts']} LUT4, "
                 f"{ours['ffs']} FF",
                 f"naive p1: {naive['fmax_mhz']} MHz, {naive['luts']} LUT4", ">= 240 MHz",
                 "met" if fmaxes[1] >= 240 else
                 "missed: every level is one carry chain or one LUT tree; what is left is routing"])
    return rows
