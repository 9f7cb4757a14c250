"""``permnet fabric``: compile planes onto a device inventory, verify read-backs, reconfigure."""

from __future__ import annotations


import click

from permnet.cli.common import PLANE_METHOD, emit, emit_verdict, ints


def _target(f):
    f = click.option("--config", "config", type=click.Path(dir_okay=False), default=None,
                     help="any OCS configuration file (its planes, and schedule if any)")(f)
    f = click.option("--fail", "failed", default="",
                     help="with --topology ldi: failed nodes, LDI(M-f,S) re-embedded on the survivors")(f)
    f = click.option("--method", type=PLANE_METHOD, default="auto",
                     show_default=True, help="plane decomposition")(f)
    f = click.option("--degree", "-S", "S", type=int, default=None, help="LDI degree S")(f)
    f = click.option("--nodes", "-M", "M", type=int, default=None, help="LDI nodes M")(f)
    f = click.option("--topology", type=click.Choice(["ldi"]), default=None, help="a topology family")(f)
    return f


@click.group()
def fabric():
    """Planes on the switches you own: inventory, Clos networks, cabling, reconfiguration."""


@fabric.command("compile")
@_target
@click.option("--inventory", required=True, type=click.Path(dir_okay=False), help="TOML device inventory")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False), help="fabric folder to write")
@click.option("--json", "as_json", is_flag=True)
def fabric_compile(topology, M, S, method, failed, config, inventory, output, as_json):
    """Compile logical planes onto an inventory; write fabric.json, devices/, cabling.csv, bom.md."""
    from permnet.fabric import Target, compile_to_dir

    rep = compile_to_dir(Target(topology, M, S, method, ints(failed, "--fail"), config), inventory, output).as_dict()
    keys = ["devices_used", "devices_spare", "cables", "crossconnects", "stages", "max_passes", "max_loss_db"]
    emit(rep, as_json, keys + [k for k in ("slots", "guard_ms", "devices_switching") if k in rep], width=17)


@fabric.command("verify")
@click.option("--fabric", "fabric_path", required=True, type=click.Path(dir_okay=False), help="DIR/fabric.json")
@click.option("--readback", required=True, type=click.Path(file_okay=False),
              help="folder with one read-back per device, named after it")
@click.option("--json", "as_json", is_flag=True)
def fabric_verify(fabric_path, readback, as_json):
    """Compose device read-backs with the cabling; exit 0 exact, 1 broken circuits, 2 unusable input."""
    from permnet.fabric import verify_readback

    v = verify_readback(fabric_path, readback)
    emit_verdict(v, as_json)


@fabric.command("reconfigure")
@click.option("--fabric", "fabric_path", required=True, type=click.Path(dir_okay=False), help="DIR/fabric.json")
@_target
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False), help="new fabric folder")
@click.option("--json", "as_json", is_flag=True)
def fabric_reconfigure(fabric_path, topology, M, S, method, failed, config, output, as_json):
    """A new target on the same devices and cables, changing as few cross-connects as possible."""
    from permnet.fabric import Target, reconfigure_to_dir

    rep = reconfigure_to_dir(fabric_path, Target(topology, M, S, method, ints(failed, "--fail"), config),
                             output).as_dict()
    emit(rep, as_json, ["changed", "kept", "from_scratch_changed", "strategy", "devices_changed", "max_passes"],
         width=21)


group = fabric


def _apply_options(f):
    from permnet.cli.ocs import transaction_options
    return transaction_options(f)


@fabric.command("apply")
@click.option("--fabric", "fabric_path", required=True, type=click.Path(dir_okay=False), help="DIR/fabric.json")
@click.option("--inventory", required=True, type=click.Path(dir_okay=False),
              help="TOML inventory giving each device's protocol and address")
@_apply_options
def fabric_apply(fabric_path, inventory, credentials, dry_run, parallel, timeout, settle_s, as_json, state_dir):
    """Load a compiled fabric onto its devices as one transaction (roll back on any failure)."""
    from permnet.cli.ocs import load_credentials, resolve_state, render_report
    from permnet.ocs.session import apply_fabric

    rep = apply_fabric(fabric_path, inventory, credentials=load_credentials(credentials), timeout=timeout,
                       parallel=parallel, dry_run=dry_run, settle_s=settle_s, state_dir=resolve_state(state_dir))
    render_report(rep, as_json)
