"""``permnet deadlock``: is the channel dependency graph of a routing acyclic?

Library: :func:`permnet.netsim.deadlock` (:mod:`permnet.gen.analysis.deadlock`).  Exit 0 whatever the
answer, unless ``--require-acyclic`` (then a cycle is exit 1).
"""

from __future__ import annotations

import sys

import click

from permnet.cli.common import EXIT_MISMATCH, NET_TOPOLOGIES, echo_json, ip_family_options

TOPOLOGIES = NET_TOPOLOGIES


@click.command("deadlock")
@click.option("--topology", type=click.Choice(TOPOLOGIES), default="ldi", show_default=True)
@click.option("--nodes", "-M", "M", type=int, default=None, help="number of nodes (required unless --config)")
@click.option("--config", "config", type=click.Path(dir_okay=False), default=None,
              help="analyse the planes of an OCS configuration file instead (shortest-path routing)")
@click.option("--degree", "-S", "S", type=int, default=None, help="degree = switching planes (not for chordal)")
@click.option("--chords", default=None, help="chordal rings: chords per residue class, e.g. 3,9;6,12")
@ip_family_options
@click.option("--vcs", type=int, default=None, help="virtual channels (default: the longest route)")
@click.option("--routing", type=click.Choice(["family", "shortest"]), default="family", show_default=True,
              help="the family's own routing (LDI: Melhem; torus: dimension order) or BFS shortest paths")
@click.option("--require-acyclic", is_flag=True, help="exit 1 if the dependency graph has a cycle")
@click.option("--json", "as_json", is_flag=True)
def group(topology, M, config, S, chords, levels, nucleus, merge, symmetric, vcs, routing, require_acyclic, as_json):
    """Channel dependency graph over (link, VC) with hop-indexed VCs: acyclic, or a cycle."""
    from permnet.netsim import deadlock

    rep = deadlock(topology, M, S, vcs=vcs, routing=routing, chords=chords, config=config, levels=levels,
                   nucleus=nucleus, merge=merge, symmetric=symmetric)
    if as_json:
        echo_json(rep.as_dict())
    else:
        d = rep.as_dict()
        for k in ("topology", "routing", "vcs", "max_hops", "channels", "dependencies", "acyclic"):
            click.echo(f"{k:14} {d[k]}")
        click.echo(f"{'cycle':14} {rep.cycle_text() if rep.cycle else '[]'}")
    if require_acyclic and not rep.acyclic:
        sys.exit(EXIT_MISMATCH)
