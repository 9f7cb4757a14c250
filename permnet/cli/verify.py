"""``permnet verify``: a configuration or switch read-back against the intended one (exit 1 on a mismatch)."""

from __future__ import annotations

import sys

import click

from permnet.cli.common import EXIT_MISMATCH, echo_json
from permnet.gen.errors import require


@click.command()
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False),
              help="configuration file or switch read-back dump")
@click.option("--topology", type=click.Choice(["ldi"]), default=None, help="intended topology family")
@click.option("--nodes", "-M", "M", type=int, default=None)
@click.option("--degree", "-S", "S", type=int, default=None)
@click.option("--method", type=click.Choice(["auto", "formula3", "residue", "colouring"]), default=None,
              help="plane decomposition of the intended topology (default: as recorded in the file, else auto)")
@click.option("--intended", type=click.Path(dir_okay=False), default=None,
              help="compare with this configuration file instead of a topology")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
@click.option("--index-base", type=click.IntRange(0, 1), default=None, help="base of a header-less csv/pairs dump")
@click.option("--json", "as_json", is_flag=True)
def verify(config_path, topology, M, S, method, intended, fmt, index_base, as_json):
    """Compare a configuration (or read-back dump) with the intended one.

    Prints missing, extra and conflicting cross-connects; exits 0 only on an
    exact match, 1 on a mismatch, 2 on unusable input."""
    from permnet import ocsconfig
    from permnet.gen.planes.decompose import ldi_planes
    from permnet.verify import compare

    if intended:
        want = ocsconfig.read(intended).planes
    else:
        require(topology == "ldi" and M is not None and S is not None,
                "give --intended FILE or --topology ldi --nodes M --degree S")
        want = None
    dump = ocsconfig.read_dump(config_path, fmt, index_base, ports=M)
    if want is None:
        recorded = dump.meta.get("topology", {}).get("plane_method") if isinstance(dump.meta.get("topology"), dict) \
            else dump.meta.get("plane_method")
        want = ldi_planes(M, S, method or recorded or "auto").planes
    rep = compare(want, dump.connections)
    if as_json:
        echo_json(rep.as_dict())
    else:
        for line in rep.lines():
            click.echo(line)
    if not rep.ok:
        sys.exit(EXIT_MISMATCH)


group = verify
