"""``permnet mixed``: planes carrying given permutations beside LDI planes (Melhem Section 5)."""

from __future__ import annotations

import click

from permnet.cli.common import (POSITIVE_FLOAT, SEED, echo_json, given_options, ldi_options,
                                 ocs_output_options, parallel_options)


@click.group()
def mixed():
    """K planes for given permutations, S-K planes for LDI (Section 5)."""


@mixed.command("ldi")
@ldi_options
@click.option("--plane", "specs", multiple=True, required=True,
              help="ring, ring-, shift:K, torus:AxB (4 planes) or a permutation file; repeatable")
@click.option("-o", "--output", type=click.Path(), default=None, help="configuration file (or folder)")
@ocs_output_options
@click.option("--optimize", is_flag=True,
              help="search the S-K free planes (from LDI) for the fewest average hops on the union (Section 6)")
@click.option("--seconds", type=POSITIVE_FLOAT, default=None, help="--optimize: wall-time budget")
@click.option("--evals", "evaluations", type=int, default=None,
              help="--optimize: candidates scored (deterministic for a seed; default 2000 without --seconds)")
@click.option("--seed", type=SEED, default=0, show_default=True, help="--optimize: random seed")
@click.option("--restarts", type=click.IntRange(1), default=1, show_default=True,
              help="--optimize: independent searches (seeds --seed, --seed+1, ...), the fewest hops kept; "
                   "--evals each, --seconds shared")
@parallel_options
@click.option("--json", "as_json", is_flag=True)
def mixed_ldi(M, S, specs, optimize, seconds, evaluations, seed, restarts, workers, scheduler, output, fmt,
              device_ports, single_file, as_json):
    """Hops of random traffic on user planes plus LDI(M,S-K), or plus searched planes (--optimize)."""
    from permnet import ocsconfig
    from permnet.gen.errors import require
    from permnet.gen.topologies import ldi
    from permnet.gen.planes.mixed import mixed_network, user_permutations
    from permnet.topofiles import read_plane_specs

    ldi.check_params(M, S)
    require(optimize or (seconds is None and evaluations is None), "--seconds and --evals need --optimize")
    given = [flag for name, flag in given_options().items() if name in ("restarts", "workers", "scheduler")]
    require(optimize or not given, f"{', '.join(given)}: only --optimize runs independent jobs")
    if optimize:
        require(evaluations is None or evaluations > 0, "--evals must be > 0")
        from permnet.gen.planes.mixed_search import optimize_mixed

        res = optimize_mixed(M, S, user_permutations(read_plane_specs(specs), M), seconds=seconds,
                             evaluations=evaluations, seed=seed, restarts=restarts, workers=workers,
                             scheduler=scheduler)
        if output:
            topo = {"family": "mixed-optimized", "nodes": M, "degree": S, "user": "+".join(specs), "seed": seed}
            if restarts > 1:  # the planes are the chain of best_seed, one of seeds seed .. seed + restarts - 1
                topo |= {"restarts": restarts, "best_seed": res.best_seed}
            cfg = ocsconfig.OcsConfig(res.planes.tolist(), topo)
            ocsconfig.write_files(cfg, output, fmt, device_ports, single_file)
        if as_json:
            echo_json(res.as_dict())
        else:
            click.echo(f"ldi    diameter={res.ldi_diameter} avg_hops={res.ldi_avg_hops}  "
                       f"(union with LDI({M},{S - res.user_planes}))")
            best = f", best of {restarts} from seed {res.best_seed}" if restarts > 1 else ""
            click.echo(f"search diameter={res.diameter} avg_hops={res.avg_hops}  ({res.method}{best}, "
                       f"{res.evaluations} candidates, {res.seconds:.1f} s)")
        return
    rep = mixed_network(M, S, user_permutations(read_plane_specs(specs), M))
    if output:
        cfg = ocsconfig.OcsConfig(rep.planes.tolist(), {"family": "ldi-mixed", "nodes": M, "degree": S,
                                                   "user": "+".join(specs)})
        ocsconfig.write_files(cfg, output, fmt, device_ports, single_file)
    if as_json:
        echo_json(rep.as_dict())
    else:
        for part in ("user", "ldi", "union"):
            s = getattr(rep, part)
            if s is not None:
                click.echo(f"{part:6} diameter={s.diameter} avg_hops={s.avg_hops}")


group = mixed
