"""``permnet verify``: a configuration or switch read-back against the intended one (exit 1 on a mismatch)."""

from __future__ import annotations


import click

from permnet.cli.common import PLANE_METHOD, emit_verdict
from permnet.formats import names as format_names


@click.command()
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False),
              help="configuration file or switch read-back dump")
@click.option("--topology", type=click.Choice(["ldi"]), default=None, help="intended topology family")
@click.option("--nodes", "-M", "M", type=int, default=None)
@click.option("--degree", "-S", "S", type=int, default=None)
@click.option("--method", type=PLANE_METHOD, default=None,
              help="plane decomposition of the intended topology (default: as recorded in the file, else auto)")
@click.option("--intended", type=click.Path(dir_okay=False), default=None,
              help="compare with this configuration file instead of a topology")
@click.option("--format", "fmt", type=click.Choice(format_names()), default=None,
              help="format of --config (default: detected)")
@click.option("--index-base", type=click.IntRange(0, 1), default=None, help="base of a header-less csv/pairs dump")
@click.option("--device-ports", type=click.IntRange(1), default=None,
              help="ports of the switch read back (Polatis egress ports start after them); default: the intent's")
@click.option("--plane", type=click.IntRange(0), default=None,
              help="the read-back is one switch: compare it with plane K of the intent")
@click.option("--json", "as_json", is_flag=True)
def verify(config_path, topology, M, S, method, intended, fmt, index_base, device_ports, plane, as_json):
    """Compare a configuration (or read-back dump) with the intended one.

    Prints missing, not established, extra and conflicting cross-connects;
    exits 0 only on an exact match, 1 on a mismatch, 2 on unusable input."""
    from permnet.verify import verify_files

    rep = verify_files(config_path, intended_path=intended, topology=topology, M=M, S=S, method=method, fmt=fmt,
                       index_base=index_base, device_ports=device_ports, plane=plane)
    emit_verdict(rep, as_json)


group = verify
