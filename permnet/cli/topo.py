"""``permnet topo``: build a topology and print its metrics (the families are added by families.py)."""

from __future__ import annotations

import click

from permnet.cli.common import PLANE_METHOD, EXACT_OPTION, emit, ldi_options, ocs_output_options, written


@click.group()
def topo():
    """Build a topology and print its metrics."""


@topo.command("ldi")
@ldi_options
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@EXACT_OPTION
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="write the graph: .txt/.edges (edge list), .graphml or .json")
@click.option("--modules", default=None,
              help="module of each node for I-degree/I-diameter/costs: blocks:C, metis:C or file:PATH")
@click.option("--bisection", is_flag=True, help="estimate the bisection width with METIS")
@click.option("--planes", type=click.Path(), default=None,
              help="write the switching planes as an OCS configuration file (or folder)")
@ocs_output_options
@click.option("--method", type=PLANE_METHOD, default="auto",
              show_default=True, help="plane decomposition for --planes")
def topo_ldi(M, S, as_json, exact, output, modules, bisection, planes, fmt, device_ports, single_file, method):
    """LDI(M,S): n -> (S*n+L) mod M (Melhem eq. 1)."""
    from permnet.gen.analysis.report import ldi_topology_summary
    from permnet.topofiles import read_modules, write_graph, write_ldi_planes

    summary = ldi_topology_summary(M, S, read_modules(modules), bisection, exact).as_dict()
    if output:
        from permnet.gen.topologies import ldi
        write_graph(ldi.topology(M, S), output)
    if planes:
        paths, p = write_ldi_planes(M, S, planes, fmt, method, device_ports=device_ports, single_file=single_file)
        click.echo(f"{written(paths)} ({S} planes x {M} ports, method {p.method})", err=True)
    keys = ("topology", "nodes", "degree", "diameter", "avg_hops", "avg_hops_ci95", "moore_diameter_bound",
            "bandwidth_factor", "melhem_form", "modules", "max_module_size", "inter_cluster_degree",
            "inter_cluster_diameter", "avg_inter_cluster_distance", "dd_cost", "id_cost", "ii_cost",
            "bisection_width")
    emit(summary, as_json, [k for k in keys if k in summary], 22)


group = topo
