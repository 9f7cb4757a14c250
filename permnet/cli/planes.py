"""``permnet planes``: decompose a topology into switching planes and write an OCS configuration."""

from __future__ import annotations

import click

from permnet.cli.common import PLANE_METHOD, ldi_options, ocs_output_options, schedule_options, written
from permnet.gen.errors import require


@click.group()
def planes():
    """Decompose a topology into switching planes and write a configuration."""


@planes.command("ldi")
@ldi_options
@click.option("-o", "--output", required=True, type=click.Path(), help="configuration file (or folder)")
@ocs_output_options
@click.option("--method", type=PLANE_METHOD, default="auto",
              show_default=True, help="closed form or bipartite edge colouring")
@click.option("--index-base", type=click.IntRange(0, 1), default=0, show_default=True,
              help="port numbering of csv/pairs files")
@schedule_options
def planes_ldi(M, S, output, fmt, device_ports, single_file, method, index_base, switches, slot_us):
    """The S permutation planes of LDI(M,S) as an OCS configuration file."""
    from permnet import ocsconfig
    from permnet.gen.planes.decompose import ldi_planes

    p = ldi_planes(M, S, method)
    schedule = None
    if switches is not None or slot_us is not None:
        require(switches is not None and slot_us is not None, "--switches and --slot-us go together")
        schedule = ocsconfig.tdm_schedule(S, switches, slot_us)
    cfg = ocsconfig.OcsConfig(p.planes, {"family": "ldi", "nodes": M, "degree": S, "plane_method": p.method},
                              index_base, schedule)
    paths = ocsconfig.write_files(cfg, output, fmt, device_ports, single_file)
    click.echo(f"{written(paths)} ({S} planes x {M} ports, method {p.method})", err=True)


group = planes
