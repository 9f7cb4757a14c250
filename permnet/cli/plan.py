"""``permnet plan``: planes (or a circuit schedule) for an application's traffic."""

from __future__ import annotations

import click

from permnet.cli.common import SEED, echo_json, ldi_options, ocs_output_options, written


def _fmt(x) -> str:
    return "inf (demand unreachable)" if x == float("inf") else f"{x:.6g}"


@click.command("plan")
@click.option("--traffic", required=True, metavar="FILE|PATTERN",
              help="a demand file (src,dst,weight CSV, dense CSV, .npy) or a pattern: uniform, permutation, "
                   "transpose, bit-reversal, shuffle, tornado, stencil2d, stencil3d, all-to-all, ring-allreduce, "
                   "hotspot, skewed")
@ldi_options
@click.option("--seed", type=SEED, default=0, show_default=True, help="seed of the random patterns and of --evals")
@click.option("--evals", "evaluations", type=click.IntRange(0), default=0, show_default=True,
              help="arc swaps tried on the free planes after K is chosen (0: LDI(M,S-K) as it is)")
@click.option("-o", "--output", type=click.Path(), default=None, help="planes file (or folder) to write")
@ocs_output_options
@click.option("--json", "as_json", is_flag=True)
def plan(traffic, M, S, seed, evaluations, output, fmt, device_ports, single_file, as_json):
    """K planes of circuits for the heaviest demand, LDI(M,S-K) for the rest; K by the weighted mean hops."""
    from permnet.trafficfiles import plan_file

    res, paths = plan_file(traffic, M, S, seed=seed, evaluations=evaluations, output=output, fmt=fmt,
                           device_ports=device_ports, single_file=single_file)
    if as_json:
        echo_json({**res.as_dict(planes=False), "traffic": traffic, "seed": seed, "wrote": [str(p) for p in paths]})
        return
    click.echo(f"circuits K     {res.circuits} of {S} planes (free planes: {res.free})")
    click.echo(f"mean hops      {_fmt(res.mean_hops)}  (demand-weighted, shortest paths on the union)")
    click.echo(f"max link load  {_fmt(res.max_link_load)}  (BFS-tree routes, demand units)")
    if res.ldi is not None:
        click.echo(f"LDI({M},{S})     mean hops {_fmt(res.ldi.mean_hops)}, max link load {_fmt(res.ldi.max_link_load)}")
    if paths:
        click.echo(written(paths))


group = plan
