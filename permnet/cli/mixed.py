"""``permnet mixed``: planes carrying given permutations beside LDI planes (Melhem Section 5)."""

from __future__ import annotations

import click

from permnet.cli.common import echo_json, ldi_options


@click.group()
def mixed():
    """K planes for given permutations, S-K planes for LDI (Section 5)."""


@mixed.command("ldi")
@ldi_options
@click.option("--plane", "specs", multiple=True, required=True,
              help="ring, ring-, shift:K, torus:AxB (4 planes) or a permutation file; repeatable")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="configuration file")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
@click.option("--json", "as_json", is_flag=True)
def mixed_ldi(M, S, specs, output, fmt, as_json):
    """Hops of random traffic on user planes plus LDI(M,S-K)."""
    from permnet import ocsconfig
    from permnet.gen.topologies import ldi
    from permnet.gen.planes.mixed import mixed_network, user_permutations

    ldi.check_params(M, S)
    rep = mixed_network(M, S, user_permutations(specs, M))
    if output:
        cfg = ocsconfig.OcsConfig(rep["planes"], {"family": "ldi-mixed", "nodes": M, "degree": S,
                                                   "user": "+".join(specs)})
        ocsconfig.write(cfg, output, fmt)
    if as_json:
        echo_json({k: v for k, v in rep.items() if k != "planes"} | {"planes": rep["planes"]})
    else:
        for part in ("user", "ldi", "union"):
            if part in rep:
                s = rep[part]
                click.echo(f"{part:6} diameter={s['diameter']} avg_hops={s['avg_hops']}")


group = mixed
