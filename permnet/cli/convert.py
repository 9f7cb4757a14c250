"""``permnet convert``: a configuration from one file format to another."""

from __future__ import annotations

import click

from permnet.cli.common import ocs_output_options, written
from permnet.formats import names as format_names


@click.command()
@click.argument("source", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(),
              help="file, or folder (one file per switch, with --format)")
@click.option("--from", "src_fmt", type=click.Choice(format_names()), default=None)
@ocs_output_options
@click.option("--index-base", type=click.IntRange(0, 1), default=None, help="base of a header-less csv/pairs input")
def convert(source, output, src_fmt, fmt, device_ports, single_file, index_base):
    """Read a configuration in any format and write it in another.

    Several SOURCE files, the per-switch files of one configuration, are
    merged back into it."""
    from permnet.ocsconfig import convert_file

    click.echo(written(convert_file(source, output, src_fmt, fmt, index_base, device_ports, single_file)), err=True)


group = convert
