"""bench/sections/perf.py's RTL table (issue 44): every synthesis is a job of bench/jobs.py, and
the rows are put together from the figures of the right runs, whatever order they come back in."""

import sys
from argparse import Namespace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import sections.perf as perf  # noqa: E402


def _fake(name, target="ecp5", seed=1):
    """Figures that name their run: luts = 1000 * design index + 100 * (target is iCE40) + seed."""
    i = perf.RTL_DESIGNS.index(name)
    return {"luts": 1000 * i + 100 * (target == "ice40") + seed, "ffs": 2000 + i, "fmax_mhz": 200 + 10 * seed + i}


def test_rows_take_each_figure_from_its_own_run(monkeypatch):
    monkeypatch.setattr(perf, "_synthesize", _fake)
    rows = perf.perf_rtl_rows(Namespace(workers=1, scheduler=None))
    assert len(perf.RTL_RUNS) == len(set(perf.RTL_RUNS)) == 11
    by = {r[0].split(",")[0].split(":")[0]: r for r in rows}
    i = perf.RTL_DESIGNS.index
    # Beneš: the ECP5 cells run, yosys's ECP5 run and the iCE40 run, in that order
    benes = by["Benes 8x8"][1]
    assert benes == f"{1000 * i('benes8-cells') + 1} / {1000 * i('benes8') + 1} / {1000 * i('benes8') + 101}"
    # next hop: the median Fmax of the three seeds, the LUT4 of seed 1, the naive design's figures beside
    nh = by["next hop LDI(3000"][1]
    k = i("nexthop3000-pipelined")
    assert nh.startswith(f"{200 + 20 + k} MHz median of seeds (1, 2, 3) ({210 + k}..{230 + k}), {1000 * k + 1} LUT4")
    assert by["next hop LDI(3000"][2] == f"naive p1: {210 + i('nexthop3000-naive')} MHz, " \
                                         f"{1000 * i('nexthop3000-naive') + 1} LUT4"
    # crossbar: the plane's config logic is the plane's LUT4 less the hand-mapped datapath's
    plane, mapped = 1000 * i("crossbar32-plane") + 1, 1000 * i("crossbar32-mapped") + 1
    assert by["crossbar 32x1 plane (cells=ecp5)"][1] == f"{plane} / {plane - mapped}"


def test_every_design_builds():
    """Each name gives its design (elaborated by the synthesis jobs of make bench)."""
    kinds = {name: type(perf._design(name)).__name__ for name in perf.RTL_DESIGNS}
    assert kinds["crossbar32-plane"] == "CrossbarPlane" and kinds["nexthop3000-naive"] == "LdiNextHopNaive"
    assert perf._design("benes8-cells").cells == "ecp5" and getattr(perf._design("benes8"), "cells", None) != "ecp5"
