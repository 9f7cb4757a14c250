"""``permnet orp``: host-switch graphs, bounds, annealing search and Graph Golf files (Yasudo et al.)."""

from __future__ import annotations


import click

from permnet.cli.common import POSITIVE_FLOAT, SEED, echo_json, emit, ocs_output_options, parallel_options, written


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

    emit(bounds(n, r).as_dict(), as_json, width=22)


def _search_options(f):
    f = click.option("--dask", default=None, hidden=True, help="same as --scheduler")(f)
    f = parallel_options(f)
    f = click.option("--restarts", type=int, default=None, help="anneals per switch count (default: --workers)")(f)
    f = click.option("--seed", type=SEED, default=0, show_default=True)(f)
    f = click.option("--evals", "evaluations", type=int, default=None,
                     help="evaluation budget per anneal (deterministic for a seed)")(f)
    f = click.option("--seconds", type=POSITIVE_FLOAT, default=None, help="wall-time budget of the whole search")(f)
    f = click.option("--sweep", type=int, default=1, show_default=True,
                     help="switch counts to try around m_opt (1: m_opt only)")(f)
    f = click.option("--switches", "-m", "m", type=int, default=None,
                     help="anneal at this switch count (default: the clique if it fits, else m_opt)")(f)
    return _hosts_radix(f)


@orp.command("search")
@_search_options
@click.option("--mode", type=click.Choice(["swing", "swap"]), default="swing", show_default=True)
@click.option("--objective", type=click.Choice(["haspl", "golf"]), default="haspl", show_default=True,
              help="haspl: the paper's h-ASPL; golf: host diameter first, then h-ASPL (Graph Golf's ranking)")
@click.option("--start", type=click.Path(dir_okay=False), default=None, help="anneal from this .edges file")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="result (.edges)")
@click.option("--json", "as_json", is_flag=True)
def orp_search(n, r, m, sweep, seconds, evaluations, seed, restarts, workers, scheduler, dask, mode, objective, start,
               output, as_json):
    """The clique where it is optimal (Section 3.2), else simulated annealing with the 2-neighbour swing
    at m_opt (or --switches), or over --sweep switch counts."""
    from permnet.gen.orp.bounds import haspl_lower_bound
    from permnet.gen.orp.sweep import sweep as do_sweep
    from permnet.graphgolf import read_edges, write_edges

    g0 = read_edges(start) if start else None
    res = do_sweep(n, r, m=m, sweep=sweep, seconds=seconds, evaluations=evaluations, seed=seed, workers=workers,
                   restarts=restarts, scheduler=scheduler or dask, mode=mode, start=g0,
                   objective=objective)
    write_edges(res.result.graph, output)
    emit(res.as_dict(haspl_lower_bound(n, r)), as_json, width=12)


@orp.command("eval")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
def orp_eval(path, as_json):
    """h-ASPL and host diameter of a Graph Golf order/radix file."""
    from permnet.graphgolf import read_edges

    g = read_edges(path)
    emit(g.summary().as_dict() | {"unused_switches": g.unused_switches()}, as_json, width=18)


@orp.command("compare")
@_hosts_radix
@click.option("--seconds", type=float, default=10.0, show_default=True, help="annealing budget")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--dims", type=int, default=5, show_default=True, help="torus dimensions")
@click.option("--json", "as_json", is_flag=True)
def orp_compare(n, r, seconds, seed, dims, as_json):
    """Torus, dragonfly and fat-tree against the annealed graph at the same n and r (Section 6)."""
    from permnet.gen.orp.study import compare_conventional

    rep = compare_conventional(n, r, seconds=seconds, seed=seed, dims=dims)
    if as_json:
        echo_json(rep.as_dict())
    else:
        click.echo(f"{'topology':18} {'switches':>8} {'h-ASPL':>8} {'diam':>5} {'bisection':>9}")
        for row in rep.rows:
            if row.skipped is not None:
                click.echo(f"{row.topology:18} skipped: {row.skipped}")
            else:
                click.echo(f"{row.topology:18} {row.switches:8d} {row.haspl:8.4f} {row.diameter:5d} "
                           f"{row.bisection:9d}")


@orp.command("plot")
@_hosts_radix
@click.option("--evals", "evaluations", type=int, default=20000, show_default=True, help="per sampled m")
@click.option("--samples", type=int, default=5, show_default=True, help="values of m to anneal")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("-o", "--output", "outdir", required=True, type=click.Path(file_okay=False))
def orp_plot(n, r, evaluations, samples, seed, outdir):
    """h-ASPL against m (Figure 5) and the host distribution at m_opt (Figure 6)."""
    from pathlib import Path

    from permnet.gen.orp.study import haspl_vs_m
    from permnet.plots import host_distribution, orp_haspl_vs_m

    study = haspl_vs_m(n, r, evaluations=evaluations, samples=samples, seed=seed)
    results, best, mo = study.haspl, study.best, study.m_opt
    out = Path(outdir)
    paths = orp_haspl_vs_m(n, r, results, out / f"orp_{n}_{r}_haspl_vs_m")
    if best is not None:
        paths += host_distribution(best.graph.counts(), f"host distribution, n={n} r={r} m={mo}",
                                   out / f"orp_{n}_{r}_hosts")
    for p in paths:
        click.echo(f"wrote {p}", err=True)


@orp.command("planes")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path())
@ocs_output_options
def orp_planes(path, output, fmt, device_ports, single_file):
    """Switch links of an .edges file as OCS planes (one circuit per link direction)."""
    from permnet import ocsconfig
    from permnet.gen.orp.planes import switch_planes
    from permnet.graphgolf import read_edges

    g = read_edges(path)
    planes = switch_planes(g)
    cfg = ocsconfig.OcsConfig(planes, {"family": "host-switch", "hosts": g.n, "switches": g.m, "radix": g.r})
    paths = ocsconfig.write_files(cfg, output, fmt, device_ports, single_file)
    click.echo(f"{written(paths)} ({len(planes)} planes x {g.m} switch ports)", err=True)


group = orp
