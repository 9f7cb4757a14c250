"""``permnet rtl X``: Verilog (Amaranth) and memory-initialisation files, one
command per entry of :data:`permnet.cli.rtl_modules.RTL_MODULES`."""

from __future__ import annotations

import click

from permnet.cli.rtl_modules import RTL_MODULES


@click.group()
def rtl():
    """Emit Verilog (Amaranth) and memory-initialisation files."""


def _target_option(module):
    if not module.targeted:
        return lambda f: f
    return click.option("--target", type=click.Choice(["generic", "ecp5"]), default="generic", show_default=True,
                        help="ecp5: multiplexers as hand-mapped ECP5 cells (LUT4/PFUMX/L6MUX21, for ECP5 synthesis "
                             "only); generic: plain Verilog for simulators and other families")


# the options of the rtl commands that name an input file (the output must not replace one)
INPUTS = ("planes_path", "planes_file", "trace", "config_path")


def _rtl_command(module):
    @module.options
    @_target_option(module)
    @click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
    def command(output, **params):
        from permnet.fileio import refuse_over_input
        from permnet.hdl.emit import write_verilog

        refuse_over_input(output, [params.get(name) for name in INPUTS])

        for path in write_verilog(module.generate(**params), output):
            click.echo(f"wrote {path}", err=True)

    command.__doc__ = module.help
    return click.command(module.name)(command)


for _module in RTL_MODULES:
    rtl.add_command(_rtl_command(_module))

group = rtl
