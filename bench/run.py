"""Benchmarks: ``make bench`` writes bench/results.json and bench/results.md.

Each case times permnet and a baseline in the same run (best of a few
repeats, after a warm-up call that also triggers numba compilation) and
reports the ratio baseline/ours (> 1 means permnet is faster), next to the
target the issue sets.  Timed rows run one at a time; the rows whose figure
is not a time (syntheses) can run several at once: ``--workers N`` local
processes or ``--scheduler ADDRESS|local`` (bench/jobs.py).
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

from permnet.fileio import markdown_table

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from baselines import cpp_benes_seconds, cpp_bfs  # noqa: E402
from registry import CASES, best_time, case  # noqa: E402


def load_sections() -> list:
    """Import every ``bench/sections/*.py`` (they register cases; some define ``table``)."""
    import importlib

    return [importlib.import_module(f"sections.{p.stem}") for p in sorted((HERE / "sections").glob("*.py"))
            if p.stem != "__init__"]


# ------------------------------------------------------------------ issue 2

def _scipy_repeated_matching(M, S):
    """Baseline: peel off S perfect matchings with scipy's Hopcroft-Karp."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    rows = np.repeat(np.arange(M), S)
    cols = ((S * rows + np.tile(np.arange(S), M)) % M)
    alive = np.ones(len(rows), bool)
    planes = np.empty((S, M), np.int64)
    for y in range(S):
        r, c = rows[alive], cols[alive]
        g = csr_matrix((np.ones(len(r), np.int8), (r, c)), shape=(M, M))
        match = maximum_bipartite_matching(g, perm_type="column")
        assert (match >= 0).all(), "scipy found no perfect matching"
        planes[y] = match
        # remove one copy of each matched edge
        idx = np.nonzero(alive)[0]
        hit = match[r] == c
        # with no parallel edges each (row, col) appears once
        alive[idx[hit]] = False
    return planes


@case("planes LDI(65536,16), closed form (residue)", "<= 1 s and >= 20x vs scipy matching")
def bench_planes_closed():
    from permnet.gen.planes.decompose import ldi_planes
    ours, _ = best_time(lambda: ldi_planes(65536, 16))
    base, _ = best_time(lambda: _scipy_repeated_matching(65536, 16), repeat=1)
    return ours, base, "scipy maximum_bipartite_matching x16"


@case("planes LDI(65536,16), bipartite edge colouring", "report: the general path, not needed when S | M")
def bench_planes_colouring():
    from permnet.gen.planes.decompose import ldi_planes
    ours, _ = best_time(lambda: ldi_planes(65536, 16, "colouring"))
    base, _ = best_time(lambda: _scipy_repeated_matching(65536, 16), repeat=1)
    return ours, base, "scipy maximum_bipartite_matching x16"


@case("planes LDI(65535,16) (S does not divide M), colouring", "<= 1 s")
def bench_planes_general():
    from permnet.gen.planes.decompose import ldi_planes
    ours, _ = best_time(lambda: ldi_planes(65535, 16))
    base, _ = best_time(lambda: _scipy_repeated_matching(65535, 16), repeat=1)
    return ours, base, "scipy maximum_bipartite_matching x16"


@case("diameter + avg hops LDI(4096,8)", ">= 5x vs scipy csgraph")
def bench_metrics():
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    from permnet.gen.topologies import ldi
    from permnet.gen.graph.metrics import Digraph, distance_stats

    M, S = 4096, 8
    succ = ldi.successors(M, S)
    ours, stats = best_time(lambda: distance_stats(Digraph.from_successors(succ)))

    def scipy_metrics():
        rows = np.repeat(np.arange(M), S)
        g = csr_matrix((np.ones(M * S), (rows, succ.reshape(-1))), shape=(M, M))
        d = shortest_path(g, unweighted=True, directed=True)
        return d.max(), d.sum() / (M * (M - 1))

    base, (diam, avg) = best_time(scipy_metrics, repeat=1)
    assert diam == stats.diameter and abs(avg - stats.avg_hops) < 1e-9
    return ours, base, "scipy.sparse.csgraph.shortest_path"


# ------------------------------------------------------------------ issue 3

@case("Benes settings, random permutation N=2^20", "<= 0.5 s, on par with C++ (~0.45 s)")
def bench_benes_pow2():
    from permnet.gen.routing import benes
    p = np.random.default_rng(1).permutation(2 ** 20)
    ours, _ = best_time(lambda: benes.route(p))
    return ours, cpp_benes_seconds(20), "C++ recursive looping router (g++ -O2)"


@case("Benes settings, random permutation N=10^6 (arbitrary size)", "<= 0.5 s")
def bench_benes_million():
    from permnet.gen.routing import benes
    p = np.random.default_rng(2).permutation(10 ** 6)
    ours, _ = best_time(lambda: benes.route(p))
    return ours, cpp_benes_seconds(20), "C++ looping router padded to 2^20"


@case("Benes settings + simulator check, N=2^20 (what `permnet benes` does)", "report")
def bench_benes_verified():
    from permnet.switching import settings
    p = np.random.default_rng(3).permutation(2 ** 20)
    ours, _ = best_time(lambda: settings(p), repeat=1)
    return ours, cpp_benes_seconds(20), "C++ looping router (routing only)"


@case("edge colouring, random 16-regular bipartite multigraph, 65536 a side", "faster than rustworkx")
def bench_colouring():
    import rustworkx as rx

    from permnet.gen.graph.coloring import edge_colour_regular_bipartite

    n, d = 65536, 16
    rng = np.random.default_rng(4)
    left = np.tile(np.arange(n), d)
    right = np.concatenate([rng.permutation(n) for _ in range(d)])
    ours, colour = best_time(lambda: edge_colour_regular_bipartite(left, right, n))

    def rustworkx_colour():
        g = rx.PyGraph(multigraph=True)
        g.add_nodes_from(range(2 * n))
        g.add_edges_from_no_data(list(zip(left.tolist(), (right + n).tolist())))
        return rx.graph_bipartite_edge_color(g)

    base, rx_colour = best_time(rustworkx_colour, repeat=1)
    assert len(set(rx_colour.values())) == d and len(set(colour.tolist())) == d
    return ours, base, "rustworkx.graph_bipartite_edge_color (incl. graph build)"


# ------------------------------------------------------------------ issue 4

SYNTH_CASES = [(3000, 10), (4096, 8), (18, 3)]


def synth_rows(target="ecp5", pipeline=1, args=None):
    """Divider-free next-hop unit vs the same function written with % and //: a job per case
    (:mod:`jobs`, on ``--workers`` / ``--scheduler``)."""
    from jobs import Job, run_rows

    rows = run_rows([Job.of(synth_case, M, S, target, pipeline) for M, S in SYNTH_CASES], args, desc="synthesis")
    for row in rows:
        print(row, flush=True)
    return rows


def synth_case(M, S, target, pipeline):
    """One row of :func:`synth_rows`: both next-hop units of LDI(M,S) synthesized."""
    from permnet.hdl.nexthop import LdiNextHop, LdiNextHopNaive
    from permnet.hdl.synth import synthesize

    ours = synthesize(LdiNextHop(M, S, pipeline=pipeline), target)
    base = synthesize(LdiNextHopNaive(M, S, pipeline=pipeline), target)
    return {"case": f"LDI({M},{S}) next hop, {target}, pipeline {pipeline}",
            "ours_luts": ours["luts"], "naive_luts": base["luts"],
            "lut_ratio": round(base["luts"] / ours["luts"], 2),
            "ours_fmax_mhz": ours["fmax_mhz"], "naive_fmax_mhz": base["fmax_mhz"],
            "fmax_ratio": round(ours["fmax_mhz"] / base["fmax_mhz"], 2),
            "ours_ffs": ours["ffs"], "naive_ffs": base["ffs"],
            "target": ">= 2x fewer LUTs and >= 2x Fmax" if (M, S) == (3000, 10) else "report"}


# ------------------------------------------------------------------ issue 5

@case("diameter + avg distance, random 16-regular graph, 4096 nodes", ">= 100x vs networkx all pairs")
def bench_metrics_random_regular():
    import networkx as nx

    from permnet.gen.graph.metrics import distance_stats

    G, g = _random_regular()
    ours, s = best_time(lambda: distance_stats(g))

    def networkx_metrics():
        total, diam = 0, 0
        for _, row in nx.all_pairs_shortest_path_length(G):
            total += sum(row.values())
            diam = max(diam, max(row.values()))
        return diam, total / (4096 * 4095)

    t = time.perf_counter()
    diam, avg = networkx_metrics()
    base = time.perf_counter() - t
    assert diam == s.diameter and abs(avg - s.avg_hops) < 1e-9
    return ours, base, "networkx all_pairs_shortest_path_length"


def _random_regular():
    """The random 16-regular graph on 4096 nodes (seed 1): networkx graph and our CSR digraph."""
    import networkx as nx

    from permnet.gen.graph.metrics import Digraph

    G = nx.random_regular_graph(16, 4096, seed=1)
    e = np.array(G.edges())
    return G, Digraph.from_arcs(4096, np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])


@case("diameter + avg distance, random 16-regular graph, 4096 nodes, vs compiled",
      "within 5x of a compiled bit-parallel BFS (ratio >= 0.2)")
def bench_metrics_vs_cpp():

    from permnet.gen.graph.metrics import distance_stats

    _, g = _random_regular()
    ours, s = best_time(lambda: distance_stats(g))
    secs, diam, avg = cpp_bfs(g)
    assert diam == s.diameter and abs(avg - s.avg_hops) < 1e-9
    return ours, secs, "C++ bit-parallel BFS, g++ -O2 -fopenmp, all cores"


@case("IP graph construction + metrics, symmetric HSN(3,Q_3), 3072 nodes", "report")
def bench_ip_graph():
    from permnet.gen.topologies import ipgraph

    ours, g = best_time(lambda: ipgraph.super_ip("hsn", 3, "hypercube:3", True).topology.metrics())

    def networkx_way():
        import networkx as nx
        h = ipgraph.super_ip("hsn", 3, "hypercube:3", True)
        G = nx.Graph()
        G.add_edges_from(zip(h.topology.tails.tolist(), h.topology.heads.tolist()))
        return nx.diameter(G)

    t = time.perf_counter()
    d = networkx_way()
    base = time.perf_counter() - t
    assert d == g.diameter
    return ours, base, "same construction, networkx diameter"


CHORDAL_SECONDS = float(__import__("os").environ.get("PERMNET_BENCH_CHORDAL_SECONDS", "120"))


def chordal_rows():
    """Doty Table 1 by search: degree 3, diameters 6-10, CHORDAL_SECONDS each, chained starts."""
    from permnet.gen.search.chordal import search

    rows, start = [], None
    for k in range(6, 11):
        row = search(3, k, seconds=CHORDAL_SECONDS, start=start, progress=False)
        d = row.as_dict()
        d["target"] = ">= Doty within 10 min total for k=6-8" if k <= 8 else "report"
        rows.append(d)
        start = row.hit.n if row.hit else start
        print(d, flush=True)
    return rows


# ------------------------------------------------------------------ issue 6

@case("h-ASPL evaluation n=1024, m=183, r=24 (one evaluation)", "<= 0.5 ms")
def bench_haspl_eval():
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    from permnet.gen.orp.anneal import initial_graph

    g = initial_graph(1024, 183, 24, seed=1)
    reps = 200

    def ours():
        for _ in range(reps):
            h = g.haspl()
        return h

    def scipy_haspl():
        e = g.edges
        A = csr_matrix((np.ones(2 * len(e)), (np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])), shape=(g.m, g.m))
        d = shortest_path(A, unweighted=True, directed=False)
        c = g.counts()
        return 2 + (c @ d @ c) / (g.n * (g.n - 1))

    t_ours, h = best_time(ours)
    t_base, hb = best_time(lambda: [scipy_haspl() for _ in range(20)][-1])
    assert abs(h - hb) < 1e-9
    return t_ours / reps, t_base / 20, "scipy csgraph BFS on the switch graph"


SEARCH_SECONDS = float(__import__("os").environ.get("PERMNET_BENCH_SEARCH_SECONDS", "600"))
SEARCH_CASES = [(1024, 16, 183, "<= 4.36 in 10 minutes on 2 cores (a C annealer: 4.363 at 400k evaluations)"),
                (432, 12, None, "report gap"), (1281, 21, None, "report gap"), (128, 24, None, "report gap")]


def search_rows():
    """Annealing quality: 2 workers x SEARCH_SECONDS for (1024,16), shorter runs for the rest."""
    from permnet.gen.orp.bounds import haspl_lower_bound, m_opt
    from permnet.gen.orp.anneal import initial_graph, search

    rows = []
    for n, r, m, target in SEARCH_CASES:
        secs = SEARCH_SECONDS if m == 183 else max(5.0, SEARCH_SECONDS / 20)
        m = m or m_opt(n, r)
        res = search(n, r, m=m, seconds=secs, workers=2, seed=1)
        start = initial_graph(n, m, r, seed=1).haspl()
        lb = haspl_lower_bound(n, r)
        rows.append({"case": f"ORP n={n} r={r} m={m}, 2 workers x {secs:g} s", "haspl": round(res.haspl, 6),
                     "random_start": round(start, 6), "lower_bound": round(lb, 6),
                     "gap_to_lb": round(res.haspl - lb, 6), "evaluations": res.evaluations,
                     "diameter": res.diameter, "target": target})
        print(rows[-1], flush=True)
    return rows


def newest_rows(rows) -> list:
    """One row per case, the newest (last) measurement, in the place of the case's first."""
    newest = {}
    for r in rows:
        newest[r["case"]] = r
    return list(newest.values())


def current_rows(rows) -> list:
    """:func:`newest_rows` without the ``perf:`` cases, which are left to the table of their own
    section (Performance near the limits), which shows them with their bounds."""
    return [r for r in newest_rows(rows) if not r["case"].startswith("perf:")]


def render_markdown(rows, srows, qrows, crows) -> list[str]:
    """results.md: the timing table, then synthesis, annealing and chordal-ring tables when run."""
    rows = current_rows(rows)
    lines = markdown_table(["case", "ours (s)", "baseline", "baseline (s)", "ratio (baseline/ours)", "target"],
                           [[r["case"], f"{r['ours_s']:.4g}", r["baseline"], f"{r['baseline_s']:.4g}", r["ratio"],
                             r["target"]] for r in rows])
    if srows:
        lines += [""] + markdown_table(
            ["synthesis case", "LUTs ours", "LUTs naive (% //)", "LUT ratio", "Fmax ours (MHz)", "Fmax naive (MHz)",
             "Fmax ratio", "target"],
            [[r[k] for k in ("case", "ours_luts", "naive_luts", "lut_ratio", "ours_fmax_mhz", "naive_fmax_mhz",
                             "fmax_ratio", "target")] for r in srows])
    if qrows:
        lines += [""] + markdown_table(
            ["search case", "h-ASPL found", "random start (baseline)", "lower bound (Thm 2)", "gap", "evaluations",
             "target"],
            [[r[k] for k in ("case", "haspl", "random_start", "lower_bound", "gap_to_lb", "evaluations", "target")]
             for r in qrows])
    if crows:
        lines += [""] + markdown_table(
            ["chordal rings, degree 3", "nodes found", "Doty Table 1", "Moore bound", "order", "chords", "seconds",
             "rings scored", "target"],
            [[f"diameter {r['diameter']}"] + [r[k] for k in ("nodes", "doty_table1", "moore_bound", "order", "chords",
                                                            "seconds", "evaluations", "target")] for r in crows])
    return lines


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-k", default="", help="only cases whose name contains this; with a saved results.json "
                    "in the output folder their rows replace the saved ones there and in results.md")
    ap.add_argument("-o", default=str(HERE), help="output folder")
    ap.add_argument("--no-synth", action="store_true", help="skip the synthesis comparison")
    ap.add_argument("--no-search", action="store_true", help="skip the annealing and chordal-ring searches")
    ap.add_argument("--render", action="store_true",
                    help="measure nothing: write results.md again from results.json (one row per case, the "
                         "newest) and the search tables from bench/records/")
    ap.add_argument("--section", default="",
                    help="measure only the tables of bench/sections/SECTION.py and put them into the saved "
                         "results.json and results.md in place of that section's last tables")
    ap.add_argument("--rows", default="",
                    help="with --section: only the rows whose name matches this regular expression (a section "
                         "that supports it marks the others as not measured, and the saved rows stay in "
                         "their place)")
    ap.add_argument("--workers", type=int, default=1, metavar="N",
                    help="run the rows whose figure is not a time (syntheses: LUT4, FF, Fmax) on N local processes "
                         "at once (bench/jobs.py). Timed rows (every case of the timing table, the sections' timed "
                         "rows, the searches with a wall-time budget) never run beside each other or beside those "
                         "jobs: they run one at a time, whatever --workers says")
    ap.add_argument("--scheduler", default=None, metavar="ADDRESS|local",
                    help="run those rows on this Dask scheduler (tcp://host:8786; its workers need this checkout "
                         "with PYTHONPATH=bench); 'local' starts a LocalCluster of --workers processes here")
    args = ap.parse_args(argv)
    if args.workers < 1:
        ap.error(f"--workers must be >= 1, got {args.workers}")
    if args.scheduler is not None and not args.scheduler.strip():
        ap.error("--scheduler: give an address or 'local'")
    if args.scheduler not in (None, "local"):     # refused now, not after the timed cases' minutes
        from permnet.gen.errors import PermnetError
        from permnet.gen.parallel import check_scheduler

        try:
            check_scheduler(args.scheduler)
        except PermnetError as exc:
            ap.error(str(exc))
    if args.render:
        return render(Path(args.o))
    if args.section:
        return render(Path(args.o), section_tables(args))
    sections = load_sections()
    rows = []
    for name, target, fn in CASES:
        if args.k not in name:
            continue
        ours, base, baseline = fn()
        row = {"case": name, "ours_s": round(ours, 6), "baseline": baseline, "baseline_s": round(base, 6),
               "ratio": round(base / ours, 2) if ours > 0 else None, "target": target}
        rows.append(row)
        print(f"{name:60} ours {ours:9.4f}s  {baseline} {base:9.4f}s  ratio {row['ratio']}", flush=True)
    if args.k and (Path(args.o) / "results.json").is_file():
        return render(Path(args.o), rows=rows)     # the saved results with these cases measured again
    srows = [] if args.no_synth or args.k else synth_rows(args=args)
    qrows = [] if args.no_search or args.k else search_rows()
    crows = [] if args.no_search or args.k else chordal_rows()
    tables = [] if args.k else [t for m in sections for t in ([m.table(args)] if hasattr(m, "table") else [])
                                + (m.tables(args) if hasattr(m, "tables") else [])]
    out = Path(args.o)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"python": sys.version.split()[0], "machine": platform.machine(), "cpus": __import__("os").cpu_count()}
    (out / "results.json").write_text(json.dumps({"meta": meta, "results": rows, "synthesis": srows, "search": qrows,
                                                  "chordal": crows,
                                                  "sections": [{"title": t, "headers": h, "rows": r}
                                                               for t, h, r in tables]},
                                                 indent=2) + "\n")
    lines = render_markdown(rows, srows, qrows, crows)
    for title, headers, trows in tables:
        lines += ["", f"### {title}", ""] + markdown_table(headers, trows)
    (out / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def section_tables(args) -> list:
    """The tables of one section (``--section``), measured now."""
    import importlib

    if not (HERE / "sections" / f"{args.section}.py").is_file():
        names = ", ".join(sorted(p.stem for p in (HERE / "sections").glob("*.py") if p.stem != "__init__"))
        raise SystemExit(f"bench: no section {args.section!r} (sections: {names})")
    m = importlib.import_module(f"sections.{args.section}")
    return ([m.table(args)] if hasattr(m, "table") else []) + (m.tables(args) if hasattr(m, "tables") else [])


def _keep_saved_rows(rows: list, saved: list) -> list:
    """``rows`` of a table just measured, with each row that ``--rows`` left out
    (:data:`registry.NOT_MEASURED`) replaced by the saved row of the same case, if that was
    measured: the same first cell, the same how-many-th row with that first cell (a table
    may name several rows "the same, ..."), so rows added to a section keep the others'."""
    from registry import NOT_MEASURED

    def keyed(table):
        seen = {}
        for row in table:
            seen[row[0]] = seen.get(row[0], -1) + 1
            yield (row[0], seen[row[0]]), row

    old = {key: row for key, row in keyed(saved) if NOT_MEASURED not in row}
    return [old.get(key, row) if NOT_MEASURED in row else row for key, row in keyed(rows)]


def render(out: Path, measured: list = (), rows: list = ()) -> int:
    """results.md from results.json without measuring; the tables of the searches come from their
    saved runs in bench/records/ (``make bench-records``, ``bench/search_run.py``). ``measured``
    (``--section``) are tables just measured: each replaces the saved table of the same title (up
    to its first colon) or, if there is none, is added at the end; ``rows`` (``-k``) are timed
    cases just measured, each in place of the saved row of its case."""
    import importlib

    saved = json.loads((out / "results.json").read_text())
    search = importlib.import_module("sections.search")
    fresh = {t[0].split(":")[0]: t for t in [*search.tables(None), *measured]}
    tables = []
    for t in saved["sections"]:
        title, headers, trows = fresh.pop(t["title"].split(":")[0], (t["title"], t["headers"], t["rows"]))
        tables.append((title, headers, _keep_saved_rows(trows, t["rows"])))
    tables += list(fresh.values())
    saved["results"] = newest_rows([*saved["results"], *rows])
    saved["sections"] = [{"title": t, "headers": h, "rows": r} for t, h, r in tables]
    (out / "results.json").write_text(json.dumps(saved, indent=2) + "\n")
    lines = render_markdown(saved["results"], saved["synthesis"], saved["search"], saved["chordal"])
    for title, headers, trows in tables:
        lines += ["", f"### {title}", ""] + markdown_table(headers, trows)
    (out / "results.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
