"""``permnet topo``: build a topology and print its metrics (the families are added by families.py)."""

from __future__ import annotations

import click

from permnet.cli.common import emit, ldi_options


@click.group()
def topo():
    """Build a topology and print its metrics."""


@topo.command("ldi")
@ldi_options
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def topo_ldi(M, S, as_json):
    """LDI(M,S): n -> (S*n+L) mod M (Melhem eq. 1)."""
    from permnet.gen.analysis.report import ldi_summary

    summary = ldi_summary(M, S)
    emit(summary, as_json, ("topology", "nodes", "degree", "diameter", "avg_hops", "moore_diameter_bound",
                             "bandwidth_factor", "melhem_form"), 22)


group = topo
