"""``permnet topo FAMILY``, ``permnet route superip``, ``permnet search`` and
``permnet compare``: the topology side of the command line (issue 5).

Builders live in :mod:`permnet.gen.topologies.families`, :mod:`permnet.gen.topologies.ipgraph`,
:mod:`permnet.gen.search.chordal` and :mod:`permnet.gen.analysis.compare`; this
module only parses options and renders answers.
"""

from __future__ import annotations

import click

from permnet.cli.common import EXACT_OPTION, POSITIVE_FLOAT, SEED, ocs_output_options, parallel_options, written
from permnet.gen.errors import PermnetError, require

TOPO_KEYS = ("family", "nodes", "degree", "ports", "diameter", "diameter_lower_bound", "avg_hops", "avg_hops_ci95",
             "connected", "moore_diameter_bound")
MODULE_KEYS = ("modules", "max_module_size", "inter_cluster_degree", "inter_cluster_diameter",
               "avg_inter_cluster_distance", "dd_cost", "id_cost", "ii_cost")


def _emit(rep, as_json, keys, width=26):
    from permnet.cli.common import emit
    emit(rep, as_json, [k for k in keys if k in rep], width)


def _family_command(group, name, builder, options, build_args):
    """Register ``permnet topo NAME``: build, print metrics, optionally write the graph."""
    def command(as_json, output, modules, bisection, planes, fmt, device_ports, single_file, exact, **kw):
        from permnet.gen.analysis.report import measure
        from permnet.topofiles import read_modules, write_graph, write_planes

        built = builder(*build_args(kw))
        rep = measure(built, read_modules(modules), bisection, exact).as_dict()
        if output:
            write_graph(getattr(built, "topology", built), output)
        if planes:
            paths, p = write_planes(built, planes, fmt, device_ports=device_ports, single_file=single_file)
            click.echo(f"{written(paths)} ({p.planes.shape[0]} planes x {p.planes.shape[1]} ports, "
                       f"method {p.method})", err=True)
        _emit(rep, as_json, TOPO_KEYS + ("t", "diameter_formula", "formula_holds") + MODULE_KEYS
              + ("bisection_width",))
    command.__doc__ = (builder.__doc__ or name).strip().split("\n")[0]
    for opt in reversed([
        click.option("--json", "as_json", is_flag=True, help="print one JSON object"),
        EXACT_OPTION,
        click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
                     help="write the graph: .txt/.edges (edge list), .graphml or .json"),
        click.option("--modules", default=None,
                     help="module of each node for I-degree/I-diameter/costs: nuclei (super-IP default), "
                          "blocks:C, metis:C or file:PATH"),
        click.option("--bisection", is_flag=True, help="estimate the bisection width with METIS"),
        click.option("--planes", type=click.Path(), default=None,
                     help="write the switching planes as an OCS configuration file (or folder)"),
        ocs_output_options,
    ] + list(options)):
        command = opt(command)
    group.command(name)(command)


def _register_families(group):
    from permnet.gen.topologies import families as f

    deg = click.option("--degree", "-d", "d", type=int, required=True)
    diam = click.option("--diameter", "-D", "D", type=int, required=True)
    radix = click.option("--radix", "-k", "k", type=int, required=True, help="nodes per dimension")
    dims = click.option("--dims", "-n", "dims", type=int, required=True)
    reg = lambda *a: _family_command(group, *a)  # noqa: E731
    reg("debruijn", f.de_bruijn, [deg, diam], lambda kw: (kw["d"], kw["D"]))
    reg("kautz", f.kautz, [deg, diam], lambda kw: (kw["d"], kw["D"]))
    reg("imase-itoh", f.imase_itoh, [deg, click.option("--nodes", "-M", "M", type=int, required=True)],
        lambda kw: (kw["d"], kw["M"]))
    reg("shufflenet", f.shufflenet,
        [deg, click.option("--columns", "-c", "c", type=int, required=True),
         click.option("--bidirectional", is_flag=True)], lambda kw: (kw["d"], kw["c"], kw["bidirectional"]))
    reg("torus", f.torus, [radix, dims], lambda kw: (kw["k"], kw["dims"]))
    reg("mesh", f.mesh, [radix, dims], lambda kw: (kw["k"], kw["dims"]))
    reg("hypercube", f.hypercube, [dims], lambda kw: (kw["dims"],))
    reg("star", f.star_graph, [click.option("--symbols", "-k", "k", type=int, required=True)], lambda kw: (kw["k"],))
    reg("ccc", f.cube_connected_cycles, [dims], lambda kw: (kw["dims"],))
    reg("petersen", f.petersen, [], lambda kw: ())
    reg("chordal", f.chordal_ring,
        [click.option("--nodes", "-M", "M", type=int, required=True),
         click.option("--chords", required=True,
                      help="chord per residue class, e.g. 50,11,89,21,79; degree > 3: 3,9;6,12;...")],
        lambda kw: (kw["M"], f.parse_chords(kw["chords"])))

    def product_args(kw):
        require(kw["graph"] == "petersen" or kw["graph"].startswith("chordal:"),
                "--graph takes petersen or chordal:N:CHORDS")
        if kw["graph"] == "petersen":
            g = f.petersen()
        else:
            _, n, chords = kw["graph"].split(":", 2)
            g = f.chordal_ring(int(n), f.parse_chords(chords))
        return g, kw["copies"]
    reg("product", f.cyclic_product,
        [click.option("--graph", default="petersen", show_default=True, help="petersen or chordal:N:CHORDS"),
         click.option("--copies", "-m", "copies", type=int, required=True)], product_args)


def _super_ip_options():
    return [click.option("--levels", "-l", "levels", type=int, required=True, help="l, the number of super-symbols"),
            click.option("--nucleus", default="hypercube:2", show_default=True,
                         help="hypercube:N (or QN), star:K, complete:K (or KK), ring:K or petersen"),
            click.option("--symmetric", is_flag=True, help="distinct-symbol seed (symmetric super-IP graph)")]


def _register_ip(group):
    from permnet.gen.topologies import ipgraph as ip

    reg = lambda *a: _family_command(group, *a)  # noqa: E731
    reg("ip", ip.ip_graph,
        [click.option("--seed", "seed", required=True, help="seed label, e.g. 123321 or 1,2,3,3,2,1"),
         click.option("--gens", required=True,
                      help="generators separated by ';', cycle (1,2) or one-line 456123 notation")],
        lambda kw: (kw["seed"], kw["gens"]))
    for fam in ip.SUPER_FAMILIES:
        def builder(levels, nucleus, symmetric, fam=fam):
            return ip.super_ip(fam, levels, nucleus, symmetric)
        builder.__doc__ = {"hsn": "Hierarchical swapped network HSN(l,G) (Yeh & Parhami 3.2).",
                           "ring-cn": "Ring (basic) cyclic-shift network ring-CN(l,G) (Yeh & Parhami 3.3).",
                           "complete-cn": "Complete cyclic-shift network complete-CN(l,G) (Yeh & Parhami 3.3).",
                           "directed-cn": "Directed cyclic-shift network (L_1 only) (Yeh & Parhami 3.3).",
                           "superflip": "Super-flip network on G (Yeh & Parhami 3.4).",
                           "rhsn": "Recursive HSN RHSN(l,G), l = 2^q (Yeh & Parhami, Cor. 4.2); other l: a shorter last swap."}[fam]
        reg(fam, builder, _super_ip_options(), lambda kw: (kw["levels"], kw["nucleus"], kw["symmetric"]))
    levels = click.option("--levels", "-l", "levels", type=int, required=True,
                          help="l, the number of super-symbols")
    symmetric = click.option("--symmetric", is_flag=True, help="distinct-symbol seed (symmetric super-IP graph)")

    def rcc(levels, nucleus, symmetric):
        return ip.rcc(levels, nucleus, symmetric)
    rcc.__doc__ = "Recursively connected complete network RCC(l,K_m): RHSN(l,K_m) (Yeh & Parhami, Cor. 4.2)."
    reg("rcc", rcc, [levels, click.option("--nucleus", default="K4", show_default=True,
                                          help="the complete graph Km (or complete:m)"), symmetric],
        lambda kw: (kw["levels"], kw["nucleus"], kw["symmetric"]))

    def qcn(levels, nucleus, merge, cn):
        from permnet.gen.topologies import qcn as q
        return q.qcn(levels, nucleus, merge, cn)
    qcn.__doc__ = "Quotient cyclic-shift network QCN(l,Q_n/Q_k): the k-cubes of CN(l,Q_n) merged (Yeh & Parhami, Fig. 3)."
    reg("qcn", qcn, [levels,
                     click.option("--nucleus", default="Q7", show_default=True, help="the hypercube Qn (or hypercube:n)"),
                     click.option("--merge", default="Q3", show_default=True,
                                  help="Qk: merge the k lowest bits of the leftmost box (each k-cube of a nucleus)"),
                     click.option("--cn", type=click.Choice(["ring-cn", "complete-cn", "directed-cn"]),
                                  default="ring-cn", show_default=True, help="the cyclic-shift super-generators")],
        lambda kw: (kw["levels"], kw["nucleus"], kw["merge"], kw["cn"]))
    dims = click.option("--dims", "-n", "n", type=int, required=True)
    reg("hcn", ip.hcn, [dims], lambda kw: (kw["n"],))
    reg("debruijn-ip", ip.de_bruijn_ip, [dims], lambda kw: (kw["n"],))


def _register_route(route):
    from permnet.gen.topologies import ipgraph as ip

    @route.command("superip")
    @click.option("--family", type=click.Choice(ip.SUPER_FAMILIES + ("rcc",)), default="hsn", show_default=True)
    @_options(_super_ip_options())
    @click.option("--src", type=int, required=True, help="source node number")
    @click.option("--dst", type=int, required=True, help="destination node number")
    @click.option("--json", "as_json", is_flag=True)
    def route_superip(family, levels, nucleus, symmetric, src, dst, as_json):
        """Route by sorting labels in a super-IP graph (Theorem 4.1)."""
        g = ip.build_super(family, levels, nucleus, symmetric)
        n = g.topology.n
        require(0 <= src < n and 0 <= dst < n, f"--src and --dst must be node numbers in 0..{n - 1}")
        path = g.route(src, dst)
        bound = g.diameter_formula()
        if as_json:
            from permnet.cli.common import echo_json
            echo_json({"path": [v for v, _ in path], "generators": [j for _, j in path[1:]],
                        "labels": [g.label_text(v) for v, _ in path], "hops": len(path) - 1, "bound": bound})
            return
        for v, j in path:
            click.echo(f"{j or 'src':>4}  {v:8d}  {g.label_text(v)}")
        click.echo(f"hops {len(path) - 1} (bound l*D_G + t = {bound})")


def _options(opts):
    def deco(f):
        for o in reversed(opts):
            f = o(f)
        return f
    return deco


def register(cli, topo, route) -> None:
    _register_families(topo)
    _register_ip(topo)
    _register_route(route)
    _register_search(cli)
    _register_compare(cli)


def _parse_range(text: str, what: str) -> list[int]:
    """``6-10`` or ``6,8,10``."""
    try:
        if "-" in text:
            lo, hi = (int(t) for t in text.split("-", 1))
            return list(range(lo, hi + 1))
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise PermnetError(f"{what}: expected a range like 6-10 or a list like 6,8, got {text!r}") from None


def compare_table(rows) -> str:
    """Markdown table of :func:`permnet.gen.analysis.compare.compare` rows (as_dict)."""
    from permnet.fileio import markdown_table
    from permnet.gen.analysis.compare import COLUMNS

    def fmt(v):
        return f"{v:.3f}" if isinstance(v, float) else str(v)
    return "\n".join(markdown_table(COLUMNS, [[fmt(r[c]) for c in COLUMNS] for r in rows])) + "\n"


def chordal_table(rows) -> str:
    """Markdown table of a chordal-ring search."""
    from permnet.fileio import markdown_table

    keys = ("degree", "diameter", "nodes", "doty_table2", "moore_bound", "order", "chords", "method", "tried_up_to",
            "seconds", "evaluations", "stopped_by")
    data = [{**r.as_dict(), "doty_table2": r.doty2 or ""} for r in rows]
    cells = [[d[k] for k in keys] for d in data]
    return "\n".join(markdown_table(
        ["degree", "diameter", "nodes found", "Doty Table 2 (C)", "Moore bound", "order",
         "chords (one per residue class)", "method", "sizes tried up to", "seconds", "rings scored",
         "stopped by"], cells)) + "\n"


def _register_search(cli):
    @cli.group()
    def search():
        """Searches for large graphs of given degree and diameter."""

    @search.command("chordal")
    @click.option("--degree", "-d", type=int, default=3, show_default=True)
    @click.option("--diameters", "-k", default="6-10", show_default=True, help="range 6-10 or list 6,8")
    @click.option("--diameter", type=int, default=None, help="one diameter (overrides --diameters)")
    @click.option("--seconds", type=POSITIVE_FLOAT, default=120.0, show_default=True,
                  help="time limit per diameter (a run it cuts is not deterministic)")
    @click.option("--evals", "evaluations", type=int, default=None,
                  help="rings scored per diameter, in all (a deterministic budget)")
    @click.option("--budget", type=int, default=200_000, show_default=True,
                  help="local-search evaluations per (nodes, order) before giving up on that size")
    @click.option("--max-order", type=int, default=16, show_default=True)
    @click.option("--window", type=int, default=16, show_default=True,
                  help="stop after this many consecutive sizes without a ring")
    @click.option("--start", type=int, default=None, help="first size tried (default: Doty's Table 2 entry)")
    @click.option("--seed", type=SEED, default=0, show_default=True)
    @click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="table: .md or .json")
    @click.option("--json", "as_json", is_flag=True)
    @click.option("--quiet", is_flag=True, help="no progress bar")
    @parallel_options
    def search_chordal(degree, diameters, diameter, seconds, evaluations, budget, max_order, window, start, seed,
                       output, as_json, quiet, workers, scheduler):
        """Largest chordal rings of a degree, per diameter (Doty, Section 3 and Table 2)."""
        from permnet.fileio import atomic_write, dumps_json
        from permnet.gen.search.chordal import search_diameters

        ks = [diameter] if diameter is not None else _parse_range(diameters, "--diameters")
        require(ks and all(k >= 2 for k in ks), "--diameters must be >= 2")
        require(budget > 0 and window > 0, "--budget and --window must be positive")
        require(evaluations is None or evaluations > 0, "--evals must be positive")
        rows = search_diameters(degree, ks, seconds=seconds, budget=budget, max_order=max_order, window=window,
                                start=start, seed=seed, progress=not quiet, evaluations=evaluations, workers=workers,
                                scheduler=scheduler)
        data = [r.as_dict() for r in rows]
        if output:
            atomic_write(output, dumps_json({"rows": data}) if output.endswith(".json") else chordal_table(rows))
        if as_json:
            from permnet.cli.common import echo_json
            echo_json({"rows": data})
        else:
            click.echo(chordal_table(rows), nl=False)


def _register_compare(cli):
    from permnet.gen.analysis.compare import SERIES

    @cli.command("compare")
    @click.option("--families", default=",".join(SERIES), show_default=True,
                  help=f"comma-separated, from {', '.join(SERIES)}")
    @click.option("--max-nodes", type=int, default=5000, show_default=True)
    @click.option("--module-size", type=int, default=10, show_default=True,
                  help="at most this many nodes per module (the paper uses 10 and 24)")
    @click.option("-o", "--outdir", type=click.Path(file_okay=False), default="compare", show_default=True)
    @click.option("--json", "as_json", is_flag=True)
    @click.option("--quiet", is_flag=True, help="no progress bar")
    @parallel_options
    def compare_cmd(families, max_nodes, module_size, outdir, as_json, quiet, workers, scheduler):
        """Compare families: table and plots of degree, diameter, distances, DD/ID/II costs."""
        from pathlib import Path

        from permnet.fileio import atomic_write, dumps_json
        from permnet.gen.analysis.compare import compare
        from permnet.plots import compare_plot

        rows = [r.as_dict() for r in compare([f.strip() for f in families.split(",") if f.strip()], max_nodes,
                                             module_size, not quiet, workers=workers, scheduler=scheduler)]
        out = Path(outdir)
        out.mkdir(parents=True, exist_ok=True)
        atomic_write(out / "compare.md", compare_table(rows))
        atomic_write(out / "compare.json", dumps_json({"module_size": module_size, "rows": rows}))
        compare_plot(rows, module_size, out / "compare")
        if as_json:
            from permnet.cli.common import echo_json
            echo_json({"module_size": module_size, "rows": rows})
        else:
            click.echo(compare_table(rows), nl=False)
            click.echo(f"wrote {out / 'compare.md'}, compare.json, compare.png, compare.svg")
