"""``permnet board``: the example or HIL top level built for a board through Amaranth's platform flow."""

from __future__ import annotations

import click

from permnet.gen.hil.regmap import DESIGNS as HIL_DESIGNS


@click.command()
@click.argument("board", type=click.Choice(["ulx3s", "icebreaker"]))
@click.option("-o", "--output", "outdir", default=None, type=click.Path(file_okay=False),
              help="build folder (default build/board-BOARD)")
@click.option("--no-build", is_flag=True, help="only write the build files (Verilog/RTLIL, LPF/PCF, scripts)")
@click.option("--design", type=click.Choice(["demo", "hil"]), default="demo", show_default=True,
              help="demo: LEDs; hil: the hardware-in-the-loop top level on the USB serial port")
@click.option("--hil-design", type=click.Choice(list(HIL_DESIGNS)), default="crossbar",
              show_default=True, help="with --design hil: what sits behind the bridge")
@click.option("--ports", type=click.IntRange(2, 1024), default=8, show_default=True,
              help="with --design hil: crossbar/Beneš ports")
@click.option("--baud", type=click.IntRange(min=1200), default=115200, show_default=True)
def board(board, outdir, no_build, design, hil_design, ports, baud):
    """Example top level (LEDs) or the HIL top level (UART) through Amaranth's platform flow."""
    from permnet.hdl.boards import build_board

    outdir = outdir or f"build/board-{board}"
    params = {"design": hil_design, "ports": ports, "size": ports}
    result = build_board(board, outdir, run_tools=not no_build, design=design, baud=baud, hil_params=params)
    if no_build:
        result.extract(outdir)
    click.echo(f"{'wrote' if no_build else 'built'} {board} {design} in {outdir}")


group = board
