"""``permnet plot``: plots (PNG and SVG)."""

from __future__ import annotations

import click

from permnet.cli.common import ldi_options


@click.group()
def plot():
    """Plots (PNG and SVG)."""


@plot.command("ldi")
@ldi_options
@click.option("-o", "--output", "outdir", required=True, type=click.Path(file_okay=False), help="output folder")
def plot_ldi(M, S, outdir):
    """Hop-count histogram and, for M <= 64, the unfolded drawing (Figure 3)."""
    from permnet.plots import plot_ldi as do_plot

    for path in do_plot(M, S, outdir):
        click.echo(f"wrote {path}", err=True)


group = plot
