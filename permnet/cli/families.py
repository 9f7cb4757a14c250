"""``permnet topo FAMILY``, ``permnet route superip``, ``permnet search`` and
``permnet compare``: the topology side of the command line (issue 5).

Builders live in :mod:`permnet.gen.topologies.families`, :mod:`permnet.gen.topologies.ipgraph`,
:mod:`permnet.gen.search.chordal` and :mod:`permnet.gen.analysis.compare`; this
module only parses options and renders answers.
"""

from __future__ import annotations

import click

from permnet.gen.errors import PermnetError, require

TOPO_KEYS = ("family", "nodes", "degree", "diameter", "avg_hops", "connected", "moore_diameter_bound")
MODULE_KEYS = ("modules", "max_module_size", "inter_cluster_degree", "inter_cluster_diameter",
               "avg_inter_cluster_distance", "dd_cost", "id_cost", "ii_cost")


def _emit(rep, as_json, keys, width=26):
    from permnet.cli.common import emit
    emit(rep, as_json, [k for k in keys if k in rep], width)


def write_graph(topo, path) -> None:
    """Edge list (.txt/.edges, one ``u v`` per arc or edge), GraphML (.graphml) or JSON."""
    from pathlib import Path

    import networkx as nx

    from permnet.fileio import atomic_write, dumps_json

    ext = Path(path).suffix.lower()
    pairs = list(zip(topo.tails.tolist(), topo.heads.tolist()))
    if not topo.directed:
        pairs = [(a, b) for a, b in pairs if a <= b]
    if ext == ".graphml":
        text = "\n".join(nx.generate_graphml(topo.networkx())) + "\n"
    elif ext == ".json":
        text = dumps_json({"family": topo.name, "params": topo.params, "nodes": topo.n,
                           "directed": topo.directed, "edges": [list(p) for p in pairs]})
    else:
        text = "".join(f"{a} {b}\n" for a, b in pairs)
    atomic_write(path, text)


def write_planes(built, rep: dict, path, fmt) -> None:
    """Decompose into permutation planes (:func:`permnet.gen.planes.decompose.topology_planes`) and write them."""
    from permnet import ocsconfig
    from permnet.gen.planes.decompose import topology_planes

    p = topology_planes(built)
    topo = getattr(built, "topology", built)
    meta = {"family": topo.name, **{k: v for k, v in topo.params.items() if k != "symbols"}, "nodes": topo.n,
            "degree": int(p.planes.shape[0]), "plane_method": p.method}
    out = ocsconfig.write(ocsconfig.OcsConfig(p.planes, meta), path, fmt)
    click.echo(f"wrote {out} ({p.planes.shape[0]} planes x {topo.n} ports, method {p.method})", err=True)


def modules_for(spec: str | None, built, topo, seed: int = 0):
    """Module of every node from ``--modules``: ``nuclei`` (super-IP graphs,
    their default), ``blocks:C`` (C consecutive node numbers), ``metis:C``
    (METIS parts of about C nodes) or ``file:PATH`` (one id per node)."""
    from permnet.gen.analysis import clusters

    if spec is None:
        return built.clusters() if hasattr(built, "clusters") else None
    kind, _, arg = spec.partition(":")
    if kind == "nuclei":
        require(hasattr(built, "clusters"), "--modules nuclei needs a super-IP graph")
        return built.clusters()
    if kind == "file":
        return clusters.read_clusters(arg, topo.n)
    if kind in ("blocks", "metis"):
        try:
            size = int(arg)
        except ValueError:
            raise PermnetError(f"--modules {spec!r}: expected {kind}:SIZE") from None
        require(1 <= size <= topo.n, f"--modules {spec!r}: size must be in 1..{topo.n}")
        return clusters.blocks(topo.n, size) if kind == "blocks" else clusters.metis_modules(topo, size, seed)
    raise PermnetError(f"--modules {spec!r}: use nuclei, blocks:C, metis:C or file:PATH")


def measure(built, modules_spec=None, bisection=False) -> dict:
    """Metrics of a built family (a Topology or an IP graph), with module
    metrics and the bisection estimate when asked."""
    from permnet.gen.analysis import clusters

    topo = getattr(built, "topology", built)
    rep = topo.metrics()
    if hasattr(built, "diameter_formula"):
        nu = built.nucleus.topology.metrics()
        rep.update(nucleus_nodes=nu["nodes"], nucleus_diameter=nu["diameter"], t=built.t(),
                   diameter_formula=built.diameter_formula())
        rep["formula_holds"] = rep["diameter_formula"] == rep["diameter"]
    modules = modules_for(modules_spec, built, topo)
    if modules is not None:
        rep.update(clusters.cluster_metrics(topo, modules, rep["diameter"], rep["degree"]))
    if bisection:
        rep.update(clusters.bisection_width(topo))
    return rep


def _family_command(group, name, builder, options, build_args):
    """Register ``permnet topo NAME``: build, print metrics, optionally write the graph."""
    def command(as_json, output, modules, bisection, planes, fmt, **kw):
        built = builder(*build_args(kw))
        rep = measure(built, modules, bisection)
        if output:
            write_graph(getattr(built, "topology", built), output)
        if planes:
            write_planes(built, rep, planes, fmt)
        _emit(rep, as_json, TOPO_KEYS + ("t", "diameter_formula", "formula_holds") + MODULE_KEYS
              + ("bisection_width",))
    command.__doc__ = (builder.__doc__ or name).strip().split("\n")[0]
    for opt in reversed([
        click.option("--json", "as_json", is_flag=True, help="print one JSON object"),
        click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
                     help="write the graph: .txt/.edges (edge list), .graphml or .json"),
        click.option("--modules", default=None,
                     help="module of each node for I-degree/I-diameter/costs: nuclei (super-IP default), "
                          "blocks:C, metis:C or file:PATH"),
        click.option("--bisection", is_flag=True, help="estimate the bisection width with METIS"),
        click.option("--planes", type=click.Path(dir_okay=False), default=None,
                     help="write the switching planes as an OCS configuration file"),
        click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]),
                     default=None, help="configuration format (default: from the extension, else json)"),
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
                         help="hypercube:N, star:K, complete:K, ring:K or petersen"),
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
                           "superflip": "Super-flip network on G (Yeh & Parhami 3.4)."}[fam]
        reg(fam, builder, _super_ip_options(), lambda kw: (kw["levels"], kw["nucleus"], kw["symmetric"]))
    dims = click.option("--dims", "-n", "n", type=int, required=True)
    reg("hcn", ip.hcn, [dims], lambda kw: (kw["n"],))
    reg("debruijn-ip", ip.de_bruijn_ip, [dims], lambda kw: (kw["n"],))


def _register_route(route):
    from permnet.gen.topologies import ipgraph as ip

    @route.command("superip")
    @click.option("--family", type=click.Choice(ip.SUPER_FAMILIES), default="hsn", show_default=True)
    @_options(_super_ip_options())
    @click.option("--src", type=int, required=True, help="source node number")
    @click.option("--dst", type=int, required=True, help="destination node number")
    @click.option("--json", "as_json", is_flag=True)
    def route_superip(family, levels, nucleus, symmetric, src, dst, as_json):
        """Route by sorting labels in a super-IP graph (Theorem 4.1)."""
        g = ip.super_ip(family, levels, nucleus, symmetric)
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


def chordal_table(rows) -> str:
    """Markdown table of a chordal-ring search."""
    from permnet.fileio import markdown_table

    keys = ("degree", "diameter", "nodes", "doty_table1", "moore_bound", "order", "chords", "method", "tried_up_to",
            "seconds", "evaluations")
    data = [{**r.as_dict(), "doty_table1": r.doty or ""} for r in rows]
    cells = [[d[k] for k in keys] for d in data]
    return "\n".join(markdown_table(
        ["degree", "diameter", "nodes found", "Doty Table 1", "Moore bound", "order",
         "chords (one per residue class)", "method", "sizes tried up to", "seconds", "rings scored"], cells)) + "\n"


def _register_search(cli):
    @cli.group()
    def search():
        """Searches for large graphs of given degree and diameter."""

    @search.command("chordal")
    @click.option("--degree", "-d", type=int, default=3, show_default=True)
    @click.option("--diameters", "-k", default="6-10", show_default=True, help="range 6-10 or list 6,8")
    @click.option("--seconds", type=float, default=120.0, show_default=True, help="time limit per diameter")
    @click.option("--budget", type=int, default=200_000, show_default=True,
                  help="local-search evaluations per (nodes, order) before giving up on that size")
    @click.option("--max-order", type=int, default=16, show_default=True)
    @click.option("--window", type=int, default=16, show_default=True,
                  help="stop after this many consecutive sizes without a ring")
    @click.option("--seed", type=int, default=0, show_default=True)
    @click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="table: .md or .json")
    @click.option("--json", "as_json", is_flag=True)
    @click.option("--quiet", is_flag=True, help="no progress bar")
    def search_chordal(degree, diameters, seconds, budget, max_order, window, seed, output, as_json, quiet):
        """Largest chordal rings of a degree, per diameter (Doty, Section 3)."""
        from permnet.fileio import atomic_write, dumps_json
        from permnet.gen.search.chordal import search as run_search

        ks = _parse_range(diameters, "--diameters")
        require(ks and all(k >= 2 for k in ks), "--diameters must be >= 2")
        require(seconds > 0 and budget > 0 and window > 0, "--seconds, --budget and --window must be positive")
        rows, start = [], None
        for k in sorted(ks):
            # a ring of diameter <= k-1 also has diameter <= k: start from the last size found
            row = run_search(degree, k, seconds, budget, max_order, window, start, seed, not quiet)
            rows.append(row)
            if row.hit:
                start = row.hit.n
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
    def compare_cmd(families, max_nodes, module_size, outdir, as_json, quiet):
        """Compare families: table and plots of degree, diameter, distances, DD/ID/II costs."""
        from pathlib import Path

        from permnet.fileio import atomic_write, dumps_json
        from permnet.gen.analysis.compare import compare, table
        from permnet.plots import compare_plot

        rows = compare([f.strip() for f in families.split(",") if f.strip()], max_nodes, module_size, not quiet)
        out = Path(outdir)
        out.mkdir(parents=True, exist_ok=True)
        atomic_write(out / "compare.md", table(rows))
        atomic_write(out / "compare.json", dumps_json({"module_size": module_size, "rows": rows}))
        compare_plot(rows, module_size, out / "compare")
        if as_json:
            from permnet.cli.common import echo_json
            echo_json({"module_size": module_size, "rows": rows})
        else:
            click.echo(table(rows), nl=False)
            click.echo(f"wrote {out / 'compare.md'}, compare.json, compare.png, compare.svg")
