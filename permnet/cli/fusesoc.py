"""``permnet fusesoc-gen``: permnet as a FuseSoC generator (:mod:`permnet.fusesoc`)."""

from __future__ import annotations

import click


@click.command("fusesoc-gen")
@click.argument("config", type=click.Path(exists=True, dir_okay=False))
@click.option("--folder", default=".", show_default=True, type=click.Path(file_okay=False),
              help="where the Verilog and the generated .core go (FuseSoC runs the generator there)")
def group(config, folder):
    """FuseSoC generator: read FuseSoC's YAML input (design and the options of permnet rtl DESIGN),
    write the Verilog and a .core file describing it."""
    from permnet.fusesoc import generate

    click.echo(f"wrote {generate(config, folder)}", err=True)
