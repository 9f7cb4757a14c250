"""``permnet board``: the example top level built for a board through Amaranth's platform flow."""

from __future__ import annotations

import click


@click.command()
@click.argument("board", type=click.Choice(["ulx3s", "icebreaker"]))
@click.option("-o", "--output", "outdir", default=None, type=click.Path(file_okay=False),
              help="build folder (default build/board-BOARD)")
@click.option("--no-build", is_flag=True, help="only write the build files (Verilog/RTLIL, LPF/PCF, scripts)")
def board(board, outdir, no_build):
    """Example top level (next-hop unit + crossbar on the LEDs) through Amaranth's platform flow."""
    from permnet.hdl.boards import build_board

    outdir = outdir or f"build/board-{board}"
    result = build_board(board, outdir, run_tools=not no_build)
    if no_build:
        result.extract(outdir)
    click.echo(f"{'wrote' if no_build else 'built'} {board} demo in {outdir}")


group = board
