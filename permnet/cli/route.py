"""``permnet route``: a route between two nodes, every path checked by walking it."""

from __future__ import annotations

import click

from permnet.cli.common import echo_json, ldi_options


@click.group()
def route():
    """Route between two nodes; every path is checked by walking it."""


@route.command("ldi")
@ldi_options
@click.option("--src", type=int, required=True)
@click.option("--dst", type=int, required=True)
@click.option("--all", "all_paths", is_flag=True, help="every path the method allows")
@click.option("--method", type=click.Choice(["auto", "melhem", "shortest"]), default="auto", show_default=True)
@click.option("--shortcut/--no-shortcut", default=True, show_default=True,
              help="two-hop case: take a direct link or stay put when possible")
@click.option("--json", "as_json", is_flag=True)
def route_ldi(M, S, src, dst, all_paths, method, shortcut, as_json):
    """Route src -> dst in LDI(M,S) (Melhem's algorithm or shortest paths)."""
    from permnet.gen.topologies import ldi

    r = ldi.route(M, S, src, dst, method=method, all_paths=all_paths, shortcut=shortcut)
    if as_json:
        echo_json({"paths": r.paths, "links": r.links, "method": r.method})
    else:
        for p, links in zip(r.paths, r.links):
            click.echo(f"{' -> '.join(map(str, p))}    links {links}")


group = route
