"""``permnet orp``: host-switch graphs, bounds, annealing search and Graph Golf files (Yasudo et al.)."""

from __future__ import annotations

import sys

import click

from permnet.cli.common import echo_json, emit
from permnet.gen.errors import PermnetError, require


@click.group()
def orp():
    """Host-switch graphs: bounds, annealing search, Graph Golf files."""


def _hosts_radix(f):
    f = click.option("--radix", "-r", "r", type=int, required=True, help="ports per switch")(f)
    f = click.option("--hosts", "-n", "n", type=int, required=True, help="number of hosts")(f)
    return f


@orp.command("bound")
@_hosts_radix
@click.option("--json", "as_json", is_flag=True)
def orp_bound(n, r, as_json):
    """Theorem 1/2 lower bounds, the continuous Moore bound and m_opt."""
    from permnet.gen.orp.bounds import bounds

    emit(bounds(n, r), as_json, width=22)


def _search_options(f):
    f = click.option("--dask", default=None, help="run the restarts on Dask: 'local' or a scheduler address")(f)
    f = click.option("--workers", type=int, default=1, show_default=True, help="independent restarts in parallel")(f)
    f = click.option("--seed", type=int, default=0, show_default=True)(f)
    f = click.option("--evals", "evaluations", type=int, default=None, help="evaluation budget per restart")(f)
    f = click.option("--seconds", type=float, default=None, help="time budget per restart")(f)
    f = click.option("--switches", "-m", "m", type=int, default=None, help="default: m_opt")(f)
    return _hosts_radix(f)


@orp.command("search")
@_search_options
@click.option("--mode", type=click.Choice(["swing", "swap"]), default="swing", show_default=True)
@click.option("--start", type=click.Path(dir_okay=False), default=None, help="anneal from this .edges file")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="result (.edges)")
@click.option("--json", "as_json", is_flag=True)
def orp_search(n, r, m, seconds, evaluations, seed, workers, dask, mode, start, output, as_json):
    """Simulated annealing from m = m_opt (or --switches) with the 2-neighbour swing."""
    from permnet.gen.orp.hostswitch import read_edges
    from permnet.gen.orp.bounds import haspl_lower_bound
    from permnet.gen.orp.anneal import search as do_search

    g0 = read_edges(start) if start else None
    if seconds is None and evaluations is None:
        evaluations = 20000
    res = do_search(n, r, m=m, seconds=seconds, evaluations=evaluations, seed=seed, workers=workers, mode=mode,
                    dask=dask, start=g0, show_progress=not as_json and sys.stderr.isatty())
    res.graph.write(output)
    emit(res.as_dict(haspl_lower_bound(n, r)), as_json, width=12)


@orp.command("eval")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
def orp_eval(path, as_json):
    """h-ASPL and host diameter of a Graph Golf order/radix file."""
    from permnet.gen.orp.hostswitch import read_edges

    g = read_edges(path)
    emit(g.summary() | {"unused_switches": g.unused_switches()}, as_json, width=18)


@orp.command("compare")
@_hosts_radix
@click.option("--seconds", type=float, default=10.0, show_default=True, help="annealing budget")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--dims", type=int, default=5, show_default=True, help="torus dimensions")
@click.option("--json", "as_json", is_flag=True)
def orp_compare(n, r, seconds, seed, dims, as_json):
    """Torus, dragonfly and fat-tree against the annealed graph at the same n and r (Section 6)."""
    from permnet.gen.orp.bounds import haspl_lower_bound
    from permnet.gen.orp.conventional import TOPOLOGIES, bisection
    from permnet.gen.orp.anneal import search as do_search

    rows = []
    for name, build in TOPOLOGIES.items():
        try:
            g = build(n, r, dims) if name == "torus" else build(n, r)
        except PermnetError as exc:
            rows.append({"topology": name, "skipped": str(exc)})
            continue
        rows.append({"topology": name, "switches": g.m, "haspl": g.haspl(), "diameter": g.diameter(),
                     "bisection": bisection(g, seed)})
    res = do_search(n, r, seconds=seconds, seed=seed)
    rows.append({"topology": "annealed (m_opt)", "switches": res.graph.m, "haspl": res.haspl,
                 "diameter": res.diameter, "bisection": bisection(res.graph, seed)})
    rep = {"hosts": n, "radix": r, "haspl_lb": haspl_lower_bound(n, r), "rows": rows}
    if as_json:
        echo_json(rep)
    else:
        click.echo(f"{'topology':18} {'switches':>8} {'h-ASPL':>8} {'diam':>5} {'bisection':>9}")
        for row in rows:
            if "skipped" in row:
                click.echo(f"{row['topology']:18} skipped: {row['skipped']}")
            else:
                click.echo(f"{row['topology']:18} {row['switches']:8d} {row['haspl']:8.4f} {row['diameter']:5d} "
                           f"{row['bisection']:9d}")


@orp.command("plot")
@_hosts_radix
@click.option("--evals", "evaluations", type=int, default=20000, show_default=True, help="per sampled m")
@click.option("--samples", type=int, default=5, show_default=True, help="values of m to anneal")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", "outdir", required=True, type=click.Path(file_okay=False))
def orp_plot(n, r, evaluations, samples, seed, outdir):
    """h-ASPL against m (Figure 5) and the host distribution at m_opt (Figure 6)."""
    from pathlib import Path

    import numpy as np

    from permnet.gen.orp.bounds import m_opt
    from permnet.gen.orp.anneal import anneal
    from permnet.plots import host_distribution, orp_haspl_vs_m

    require(samples >= 1, "--samples must be >= 1")
    mo = m_opt(n, r)
    ms = sorted({int(x) for x in np.linspace(max(2, mo // 2), 2 * mo, samples)} | {mo})
    results, best = {}, None
    for m in ms:
        try:
            res = anneal(n, r, m=m, evaluations=evaluations, seed=seed)
        except PermnetError:
            continue
        results[m] = res.haspl
        if m == mo:
            best = res
    out = Path(outdir)
    paths = orp_haspl_vs_m(n, r, results, out / f"orp_{n}_{r}_haspl_vs_m")
    if best is not None:
        paths += host_distribution(best.graph.counts(), f"host distribution, n={n} r={r} m={mo}",
                                   out / f"orp_{n}_{r}_hosts")
    for p in paths:
        click.echo(f"wrote {p}", err=True)


@orp.command("planes")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
def orp_planes(path, output, fmt):
    """Switch links of an .edges file as OCS planes (one circuit per link direction)."""
    from permnet import ocsconfig
    from permnet.gen.orp.hostswitch import read_edges
    from permnet.gen.orp.planes import switch_planes

    g = read_edges(path)
    planes = switch_planes(g)
    cfg = ocsconfig.OcsConfig(planes, {"family": "host-switch", "hosts": g.n, "switches": g.m, "radix": g.r})
    ocsconfig.write(cfg, output, fmt)
    click.echo(f"wrote {output} ({len(planes)} planes x {g.m} switch ports)", err=True)


group = orp
