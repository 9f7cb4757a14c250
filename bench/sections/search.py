"""Search tables: Graph Golf 2021 order/radix records, Doty's Table 2 chordal rings, Melhem's mixed planes.

``tables(args)`` returns every table; the records table is read from the
last ``make bench-records`` run (``bench/records/records.json``) when there is
one, otherwise the 13 instances are run here with
``PERMNET_BENCH_RECORD_SECONDS`` (default 5) seconds each.  Likewise the
Table 2 chordal rings (``bench/records/table2.json``, written by
``bench/search_run.py table2``) and the mixed planes (``bench/records/mixed.json``, ``bench/search_run.py mixed``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
RECORD_SECONDS = float(os.environ.get("PERMNET_BENCH_RECORD_SECONDS", "5"))
CHORDAL_EVALS = int(os.environ.get("PERMNET_BENCH_TABLE2_EVALS", "1000000"))
CHORDAL_SECONDS = float(os.environ.get("PERMNET_BENCH_TABLE2_SECONDS", "60"))


def _f(x, nd=6):
    return "-" if x is None else f"{x:.{nd}f}"


def records_table(meta: dict):
    rows = []
    for r in meta["rows"]:
        pub = ("not found" if r["published_haspl"] is None
               else f"{r['published_haspl']:.6f} ({r['published_switches']}, {r['published_diameter']})")
        rows.append([f"({r['hosts']},{r['radix']})", _f(r["haspl"]), r["diameter"], r["switches"], r["method"], pub,
                     _f(r["theorem2_bound"]), "-" if r["gap_pct"] is None else f"{r['gap_pct']:+.2f}",
                     f"{r['seconds']:.0f}"])
    if any(r.get("budget_evaluations") for r in meta["rows"]):  # bench/orp_records.py --evals
        budget = ", ".join(sorted({f"{r['budget_evaluations']} evaluations per anneal" if r.get("budget_evaluations")
                                   else f"{r['budget_seconds']:g} s wall" for r in meta["rows"]}))
    elif meta.get("seconds_per_instance") is not None:
        budget = f"{meta['seconds_per_instance']:g} s wall each"
    else:  # rows run with different budgets (bench/orp_records.py --update)
        per = {}
        for r in meta["rows"]:
            per.setdefault(r["budget_seconds"], []).append(f"({r['hosts']},{r['radix']})")
        budget = "; ".join(f"{b:g} s wall for {', '.join(p)}" for b, p in sorted(per.items(), reverse=True))
    title = (f"Order/radix, Graph Golf 2021 instances: {budget}, on "
             f"{meta['workers']} workers, {meta['sweep']} switch counts swept")
    return title, ["(n,r)", "h-ASPL found", "h-diam", "switches", "method", "published h-ASPL (switches, h-diam)",
                   "Theorem 2 bound", "gap to published %", "seconds"], rows


def _records(args):
    saved = HERE / "records" / "records.json"
    if saved.exists():
        return records_table(json.loads(saved.read_text()))
    import tempfile

    from permnet.graphgolf import run_records

    with tempfile.TemporaryDirectory() as tmp:
        rows = run_records(RECORD_SECONDS, tmp, workers=os.cpu_count() or 1)
    return records_table({"seconds_per_instance": RECORD_SECONDS, "workers": os.cpu_count() or 1, "sweep": 8,
                          "rows": [r.as_dict() for r in rows]})


def chordal_rows(evals: int = CHORDAL_EVALS, seconds: float = CHORDAL_SECONDS, degrees=(3, 4, 5, 6),
                 max_nodes: int = 7000, progress=None) -> list[dict]:
    """Doty's Table 2 C entries (degrees 3-6, at most ``max_nodes``): a search from Doty's size upwards
    with ``evals`` rings scored (deterministic) and at most ``seconds`` per entry, window 4 sizes."""
    from permnet.gen.search.chordal import DOTY_TABLE2_C, search

    rows = []
    for (d, k), doty in sorted(DOTY_TABLE2_C.items()):
        if d not in degrees or doty > max_nodes:
            continue
        row = search(d, k, seconds=seconds, window=4, progress=False, evaluations=evals).as_dict()
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


def chordal_table(rows: list[dict], evals: int = CHORDAL_EVALS, seconds: float = CHORDAL_SECONDS):
    cells = [[r["degree"], r["diameter"], r["nodes"] or "-", r["doty_table2"], r["moore_bound"], r["order"] or "-",
              r["chords"] or "-", r["seconds"], r["stopped_by"],
              "-" if not r["nodes"] else ("beats" if r["nodes"] > r["doty_table2"] else
                                          "equals" if r["nodes"] == r["doty_table2"] else "below")]
             for r in rows]
    return (f"Doty Table 2 chordal rings (C entries, degrees 3-6, <= 7000 nodes): {evals} rings scored "
            f"and at most {seconds:g} s per entry, from Doty's size upwards",
            ["degree", "diameter", "found", "Doty", "Moore", "order", "chords", "seconds", "stopped by", "vs Doty"],
            cells)


def _chordal(args):
    saved = HERE / "records" / "table2.json"
    if saved.exists():
        meta = json.loads(saved.read_text())
        return chordal_table(meta["rows"], meta["evals"], meta["seconds"])
    return chordal_table(chordal_rows())


MIXED_SECONDS = float(os.environ.get("PERMNET_BENCH_MIXED_SECONDS", "60"))
MIXED_CASES = [(256, 8, "torus:16x16"), (1024, 8, "torus:32x32"), (4096, 8, "torus:64x64")]


def mixed_rows(seconds: float = MIXED_SECONDS, cases=MIXED_CASES, seed: int = 0) -> list[dict]:
    """Melhem Section 6: S = 8 planes, K = 4 carry a 2D torus, the other 4 searched from LDI(M, 4)."""
    from permnet.gen.planes.mixed import user_permutations
    from permnet.gen.planes.mixed_search import optimize_mixed

    rows = []
    for M, S, spec in cases:
        scale = seconds * M / max(c[0] for c in cases)      # the largest case gets the full budget
        res = optimize_mixed(M, S, user_permutations([spec], M), seconds=max(scale, 5.0), seed=seed)
        rows.append(res.as_dict() | {"user": spec})
    return rows


def mixed_table(rows: list[dict]):
    cells = [[r["nodes"], r["degree"], r["user"], f"{r['ldi_avg_hops']:.4f}", r["ldi_diameter"],
              f"{r['avg_hops']:.4f}", r["diameter"], f"{100 * r['improvement'] / r['ldi_avg_hops']:.1f}",
              r["method"], r["evaluations"], f"{r['seconds']:.0f}"] for r in rows]
    return ("Mixed planes (Melhem Sec. 6): K = 4 torus planes + 4 searched planes vs LDI(M,4), exact average hops",
            ["M", "S", "user planes", "LDI union avg", "LDI diam", "searched avg", "searched diam",
             "fewer hops %", "method", "candidates", "seconds"], cells)


def _mixed(args):
    saved = HERE / "records" / "mixed.json"
    if saved.exists():
        return mixed_table(json.loads(saved.read_text()))
    return mixed_table(mixed_rows())


def tables(args):
    return [_records(args), _chordal(args), _mixed(args)]
