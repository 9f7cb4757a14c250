"""``permnet convert``: a configuration from one file format to another."""

from __future__ import annotations

import click


@click.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
@click.option("--from", "src_fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
@click.option("--index-base", type=click.IntRange(0, 1), default=None, help="base of a header-less csv/pairs input")
def convert(source, output, src_fmt, fmt, index_base):
    """Read a configuration in any format and write it in another."""
    from permnet import ocsconfig

    cfg = ocsconfig.read(source, src_fmt, index_base)
    ocsconfig.write(cfg, output, fmt)


group = convert
