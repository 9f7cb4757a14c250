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
@click.option("--report-only", is_flag=True,
              help="build nothing: read the nextpnr report of the build in -o (its build script run by hand) "
                   "and print its Fmax and utilisation")
@click.option("--design", type=click.Choice(["demo", "hil"]), default="demo", show_default=True,
              help="demo: LEDs; hil: the hardware-in-the-loop top level on the USB serial port")
@click.option("--hil-design", type=click.Choice(list(HIL_DESIGNS)), default="crossbar",
              show_default=True, help="with --design hil: what sits behind the bridge")
@hil_param_options
@click.option("--baud", type=click.IntRange(min=1200), default=115200, show_default=True)
def board(board, outdir, no_build, report_only, design, hil_design, baud, **options):
    """Example top level (LEDs) or the HIL top level (UART) through Amaranth's platform flow.

    With --design hil the top level takes the options of `permnet hil sim` (one shared
    definition): --hil-design network -M 8 -S 2 --planes crossbar is the network design of
    `permnet hil sim --design network -M 8 -S 2 --planes crossbar` on the board's UART.

    After a build (and with --report-only): the bitstream, nextpnr's Fmax of each clock against
    its constraint (ok or FAIL), the cells used of each type against the device's, and the
    file they are also written to (DIR/report.json)."""
    from permnet.hdl.boards import board_report, build_board, design_name

    if design != "hil":
        given = [flag for name, flag in given_options().items() if name in {"hil_design", *options}]
        require(not given, f"{', '.join(given)}: option(s) of --design hil")
    require(not (no_build and report_only), "--no-build, --report-only: choose one")
    params = hil_params(design=hil_design, **options)
    outdir = outdir or f"build/board-{board}"
    if report_only:
        _render(f"{board} {design} in {outdir}", outdir, board_report(board, outdir, design))
        return
    try:
        result = build_board(board, outdir, run_tools=not no_build, design=design, baud=baud, hil_params=params)
    except subprocess.CalledProcessError as e:
        name = design_name(design)
        raise PermnetError(f"the {board} build stopped (exit status {e.returncode}): see {outdir}/{name}.rpt "
                           f"(yosys) and {outdir}/{name}.tim (nextpnr)") from None
    if no_build:
        result.extract(outdir)
        click.echo(f"wrote {board} {design} in {outdir}")
    else:
        _render(f"built {board} {design} in {outdir}", outdir, result.report)


def _render(head: str, outdir, report: dict) -> None:
    """The bitstream line, then the Fmax of each clock and the cells used (of
    :func:`permnet.hdl.boards.board_report`), then where the figures are written."""
    from permnet.hdl.boards import SUMMARY

    click.echo(f"{head}: {report['bitstream'] or 'no bitstream'}")
    for clk, f in report["fmax"].items():
        verdict = (f"against {f['constraint_mhz']:.2f} MHz: {'ok' if f['met'] else 'FAIL'}"
                   if f["met"] is not None else "(no constraint)")
        click.echo(f"Fmax {clk}: {f['achieved_mhz']:.2f} MHz {verdict}")
    used = {kind: u for kind, u in report["utilisation"].items() if u["used"]}
    width = max((len(kind) for kind in used), default=0)
    click.echo(f"cells used (nextpnr, of the {report['device']}):")
    for kind, u in used.items():
        share = f"{u['percent']:5.1f} %" if u["percent"] is not None else ""
        click.echo(f"  {kind:<{width}} {u['used']:>7,} / {u['available']:>7,}  {share}")
    source = (f"nextpnr's report {outdir}/{report['nextpnr_report']}" if report["nextpnr_report"]
              else f"nextpnr's log {outdir}/{report['log']}")
    click.echo(f"figures in {outdir}/{SUMMARY}, from {source}")


group = board
