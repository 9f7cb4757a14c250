"""``permnet board``: the example or HIL top level built for a board through Amaranth's platform flow."""

from __future__ import annotations

import subprocess

import click

from permnet.cli.common import given_options
from permnet.cli.rtl_modules import hil_param_options, hil_params
from permnet.gen.errors import PermnetError, require
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
@hil_param_options
@click.option("--baud", type=click.IntRange(min=1200), default=115200, show_default=True)
def board(board, outdir, no_build, design, hil_design, baud, **options):
    """Example top level (LEDs) or the HIL top level (UART) through Amaranth's platform flow.

    With --design hil the top level takes the options of `permnet hil sim` (one shared
    definition): --hil-design network -M 8 -S 2 --planes crossbar is the network design of
    `permnet hil sim --design network -M 8 -S 2 --planes crossbar` on the board's UART."""
    from permnet.hdl.boards import build_board

    if design != "hil":
        given = [flag for name, flag in given_options().items() if name in {"hil_design", *options}]
        require(not given, f"{', '.join(given)}: option(s) of --design hil")
    params = hil_params(design=hil_design, **options)
    outdir = outdir or f"build/board-{board}"
    try:
        result = build_board(board, outdir, run_tools=not no_build, design=design, baud=baud, hil_params=params)
    except subprocess.CalledProcessError as e:
        name = "permnet_demo" if design == "demo" else "permnet_hil"
        raise PermnetError(f"the {board} build stopped (exit status {e.returncode}): see {outdir}/{name}.rpt "
                           f"(yosys) and {outdir}/{name}.tim (nextpnr)") from None
    if no_build:
        result.extract(outdir)
    click.echo(f"{'wrote' if no_build else 'built'} {board} {design} in {outdir}")


group = board
