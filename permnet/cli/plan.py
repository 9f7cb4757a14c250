"""``permnet plan``: planes (or a circuit schedule) for an application's traffic."""

from __future__ import annotations

import click

from permnet.cli.common import (POSITIVE_FLOAT, SEED, echo_json, given_options, ldi_options,
                                 ocs_output_options, parallel_options, written)


# --evals: arc swaps of the search (each a few weighted-hops BFS; 10^7 take minutes on LDI(64,4))
MAX_EVALS = 10**7


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
@click.option("--restarts", type=click.IntRange(1), default=1, show_default=True,
              help="--evals: independent chains of arc swaps (seeds --seed, --seed+1, ...), the best kept")
@parallel_options
@click.option("-o", "--output", type=click.Path(), default=None, help="planes file (or folder) to write")
@ocs_output_options
@click.option("--schedule", is_flag=True,
              help="a circuit schedule instead of static planes: configurations of S permutations with durations")
@click.option("--reconfig-delay", "delay", type=POSITIVE_FLOAT, default=None,
              help="--schedule: microseconds without traffic before each configuration")
@click.option("--horizon", type=POSITIVE_FLOAT, default=None, help="--schedule: schedule length in microseconds")
@click.option("--load", type=POSITIVE_FLOAT, default=1.0, show_default=True,
              help="--schedule: demand scaled so the busiest port needs load * S * horizon")
@click.option("--two-hop", is_flag=True, help="--schedule: also estimate the demand served over two hops")
@click.option("--json", "as_json", is_flag=True)
def plan(traffic, M, S, seed, evaluations, output, fmt, device_ports, single_file, schedule, delay, horizon, load,
         two_hop, as_json, restarts, workers, scheduler):
    """K planes of circuits for the heaviest demand, LDI(M,S-K) for the rest; K by the weighted mean hops.

    With --schedule: a sequence of configurations within the horizon, compared with Solstice and BvN."""
    from permnet.fileio import refuse_over_input
    from permnet.gen.errors import require
    from permnet.gen.traffic.patterns import is_pattern
    from permnet.trafficfiles import plan_file, schedule_file

    refuse_over_input(output, [None if is_pattern(traffic) else traffic])
    require(output is not None or (fmt is None and device_ports is None and not single_file),
            "--format, --device-ports and --single-file shape the file written: give -o")
    if single_file and output is not None:
        from pathlib import Path

        from permnet import formats

        f = formats.get(fmt) if fmt else formats.for_path(Path(output))
        require(f.per_device, f"--single-file: a {f.name} file holds every plane already (the option is for the "
                "per-switch formats, which write one file per plane by default)")
    require(evaluations <= MAX_EVALS, f"--evals must be 0..{MAX_EVALS:,} arc swaps, got {evaluations:,}")

    if schedule:
        from pathlib import Path

        require(delay is not None and horizon is not None, "--schedule needs --reconfig-delay and --horizon")
        require(fmt in (None, "json") and device_ports is None and not single_file and not evaluations,
                "--schedule writes a JSON configuration; --format/--device-ports/--single-file/--evals do not apply")
        require(output is None or Path(output).suffix.lower() in ("", ".json"),
                f"-o {output}: --schedule writes a JSON configuration (a .json file or a folder)")
        rep, paths = schedule_file(traffic, M, S, delay=delay, horizon=horizon, load=load, seed=seed,
                                   two_hop=two_hop, output=output)
        if as_json:
            echo_json({**rep.as_dict(), "traffic": traffic, "seed": seed, "wrote": [str(p) for p in paths]})
            return
        for s in (rep.ours, rep.solstice, rep.bvn):
            name = "ours" if s is rep.ours else s.method
            extra = "" if s.served_two_hop is None else f", {s.served_two_hop:.4f} with two hops"
            click.echo(f"{name:9} served {s.served:.4f}{extra}  ({s.count} configurations"
                       + (f", {s.method}" if s is rep.ours else "") + ")")
        if paths:
            click.echo(written(paths))
        return
    require(delay is None and horizon is None and not two_hop and "load" not in given_options(),
            "--reconfig-delay, --horizon, --load and --two-hop need --schedule")

    res, paths = plan_file(traffic, M, S, seed=seed, evaluations=evaluations, output=output, fmt=fmt,
                           device_ports=device_ports, single_file=single_file, restarts=restarts, workers=workers,
                           scheduler=scheduler)
    if as_json:
        echo_json({**res.as_dict(planes=False), "traffic": traffic, "seed": seed, "wrote": [str(p) for p in paths]})
        return
    click.echo(f"circuits K     {res.circuits} of {S} planes (free planes: {res.free})")
    click.echo(f"mean hops      {_fmt(res.mean_hops)}  (demand-weighted, shortest paths on the union)")
    click.echo(f"max link load  {_fmt(res.max_link_load)}  (BFS-tree routes, demand units)")
    if res.ldi is not None:
        click.echo(f"{f'LDI({M},{S})':14} mean hops {_fmt(res.ldi.mean_hops)}, "
                   f"max link load {_fmt(res.ldi.max_link_load)}")
    if paths:
        click.echo(written(paths))


group = plan
