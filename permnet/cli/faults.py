"""``permnet faults``: failed nodes, the damaged network and its re-embedding."""

from __future__ import annotations

import click

from permnet.cli.common import PLANE_METHOD, echo_json, ints, ldi_options, ocs_output_options


@click.group()
def faults():
    """Failed nodes: damaged network and reconfiguration."""


@faults.command("ldi")
@ldi_options
@click.option("--failed", required=True, help="comma-separated failed nodes, e.g. 1,2,4")
@click.option("--method", type=PLANE_METHOD, default="auto")
@click.option("-o", "--output", type=click.Path(), default=None,
              help="write the re-embedded planes as a configuration file")
@ocs_output_options
@click.option("--json", "as_json", is_flag=True)
def faults_ldi(M, S, failed, method, output, fmt, device_ports, single_file, as_json):
    """Connectivity and diameter of LDI(M,S) after failures; LDI(M-f,S) re-embedded."""
    from permnet import ocsconfig
    from permnet.gen.topologies import ldi
    from permnet.gen.planes.faults import fault_report

    ldi.check_params(M, S)
    rep = fault_report(M, S, ints(failed, "--failed"), method)
    if output:
        cfg = ocsconfig.OcsConfig(rep.reembedded.planes.tolist(),
                                  {"family": "ldi-reembedded", "nodes": M, "degree": S,
                                   "failed": ",".join(map(str, rep.failed))})
        ocsconfig.write_files(cfg, output, fmt, device_ports, single_file)
    if as_json:
        echo_json(rep.as_dict())
    else:
        d, r = rep.damaged, rep.reembedded
        click.echo(f"damaged LDI({M},{S}) without {rep.failed}: connected={d.connected} "
                   f"diameter={d.diameter} strong components={d.strong_components}")
        click.echo(f"re-embedded {r.topology}: diameter={r.diameter} avg_hops={r.avg_hops:.4f}")


group = faults
