"""``permnet ocs``: talk to optical circuit switches (emulate, apply, read)."""

from __future__ import annotations

import sys

import click

from permnet.cli.common import EXIT_BAD_INPUT, EXIT_MISMATCH, POSITIVE_FLOAT, echo_json

PROTOCOLS = ("scpi", "tl1", "netconf")


def load_credentials(path):
    """Credentials from ``--credentials`` or the environment, with the host
    key policy of ``--known-hosts`` / ``--trust-new-host-key`` (kept in the
    click context by :func:`ssh_options`)."""
    from dataclasses import replace

    from permnet.ocs.driver import Credentials
    creds = Credentials.load(path)
    ssh = click.get_current_context().meta.get("permnet.ssh", {})
    if creds is not None and ssh:
        creds = replace(creds, **ssh)
    return creds


def _keep_ssh(ctx, param, value):
    if value not in (None, False):
        ctx.meta.setdefault("permnet.ssh", {})[param.name] = value


def ssh_options(f):
    """NETCONF host key options; not passed to the command function."""
    f = click.option("--trust-new-host-key", "trust_new", is_flag=True, expose_value=False, callback=_keep_ssh,
                     help="NETCONF: accept a host key not yet known and record it in the known-hosts file "
                          "(trust on first use); a changed key is still refused")(f)
    f = click.option("--known-hosts", "known_hosts", type=click.Path(dir_okay=False), expose_value=False,
                     callback=_keep_ssh, help="NETCONF: OpenSSH known_hosts file the device's host key must be "
                                              "in (default: PERMNET_KNOWN_HOSTS, else ~/.ssh/known_hosts)")(f)
    return f


def transaction_options(f):
    f = click.option("--json", "as_json", is_flag=True, help="print the report as JSON")(f)
    f = click.option("--settle-s", type=click.FloatRange(0, 600), default=5.0, show_default=True,
                     help="longest wait for new cross-connects to settle")(f)
    f = click.option("--timeout", type=POSITIVE_FLOAT, default=5.0, show_default=True,
                     help="seconds per exchange with a device")(f)
    f = click.option("--parallel", type=click.IntRange(1, 256), default=8, show_default=True,
                     help="devices driven at once")(f)
    f = click.option("--dry-run", is_flag=True, help="read the devices and print the plan; change nothing")(f)
    f = click.option("--credentials", type=click.Path(dir_okay=False), default=None,
                     help="file with user and password lines, readable only by its owner "
                          "(default: PERMNET_OCS_USER / PERMNET_OCS_PASSWORD)")(f)
    return ssh_options(f)


def render_report(rep, as_json) -> None:
    if as_json:
        echo_json(rep.as_dict())
    else:
        for line in rep.lines():
            click.echo(line)
    for d in rep.devices:                 # the report is on stdout; what went wrong also on stderr
        if d.error:
            click.echo(f"permnet: error: {d.error}", err=True)
    if rep.unreachable:
        sys.exit(EXIT_BAD_INPUT)          # a device could not be read: nothing was changed
    if not rep.verified and not rep.dry_run:
        sys.exit(EXIT_MISMATCH)


@click.group()
def ocs():
    """Drive optical circuit switches over SCPI, TL1 or NETCONF, or emulate one."""


@ocs.command("emulate")
@click.option("--ports", type=click.IntRange(2, 4096), required=True, help="N, an N x N switch")
@click.option("--protocol", type=click.Choice(PROTOCOLS), default="scpi", show_default=True)
@click.option("--listen", default="127.0.0.1:0", show_default=True, help="HOST:PORT (port 0: any free port)")
@click.option("--state", type=click.Path(dir_okay=False), default=None,
              help="keep the cross-connects in this file (they survive a restart)")
@click.option("--delay-ms", type=click.FloatRange(0, 60000), default=0.0, help="answer every command this late")
@click.option("--settle-ms", type=click.FloatRange(0, 60000), default=0.0,
              help="a new cross-connect reads as tuning for this long")
@click.option("--fault", default=None, help="refuse, drop:N, deny:K, misapply, freeze:T (join with +)")
@click.option("--seconds", type=POSITIVE_FLOAT, default=3600.0, show_default=True,
              help="stop after this long (or at Ctrl-C)")
@click.option("--credentials", type=click.Path(dir_okay=False), default=None,
              help="the account the emulator accepts (tl1, netconf); default from the environment")
@click.option("--host-key", type=click.Path(dir_okay=False), default=None,
              help="netconf: the SSH host key file (created if missing; default: a new key per run)")
@click.option("--known-hosts", type=click.Path(dir_okay=False), default=None,
              help="netconf: add this emulator's '[host]:port key' line to this known_hosts file")
def emulate(ports, protocol, listen, state, delay_ms, settle_ms, fault, seconds, credentials, host_key,
            known_hosts):
    """Run an emulated switch on loopback; prints 'listening on HOST:PORT'."""
    from permnet.ocs.emulator import serve_until

    def ready(emu):
        click.echo(f"listening on {emu.address} ({protocol}, {ports} ports)")
        sys.stdout.flush()

    serve_until(protocol, ports, listen, state=state, delay_ms=delay_ms, settle_ms=settle_ms, fault=fault,
                seconds=seconds, credentials=load_credentials(credentials), ready=ready, host_key=host_key,
                known_hosts=known_hosts)


@ocs.command("apply")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False),
              help="configuration file (any permnet format)")
@click.option("--device", "devices", required=True, multiple=True,
              help="HOST:PORT or NAME=HOST:PORT; repeat for several switches (device j takes plane K+j)")
@click.option("--protocol", type=click.Choice(PROTOCOLS), required=True)
@click.option("--plane", type=click.IntRange(0), default=0, show_default=True, help="first plane K")
@click.option("--device-ports", type=click.IntRange(2), default=None,
              help="ports of the devices (default: asked from each device)")
@transaction_options
def apply(config_path, devices, protocol, plane, device_ports, credentials, dry_run, parallel, timeout, settle_s,
          as_json):
    """Read, plan, apply, read back, verify; roll every device back on any failure."""
    from permnet import ocsconfig
    from permnet.ocs.session import apply_config, parse_device

    rep = apply_config(ocsconfig.read(config_path), [parse_device(d) for d in devices], protocol, plane=plane,
                       device_ports=device_ports, credentials=load_credentials(credentials), timeout=timeout,
                       parallel=parallel, dry_run=dry_run, settle_s=settle_s)
    render_report(rep, as_json)


@ocs.command("read")
@click.option("--device", required=True, help="HOST:PORT")
@click.option("--protocol", type=click.Choice(PROTOCOLS), required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default="-", show_default=True,
              help="read-back file (any permnet format, by extension or --format); - for stdout")
@click.option("--format", "fmt", default=None, help="file format (default: from the extension, else json)")
@click.option("--timeout", type=POSITIVE_FLOAT, default=5.0, show_default=True)
@click.option("--credentials", type=click.Path(dir_okay=False), default=None)
@ssh_options
def read(device, protocol, output, fmt, timeout, credentials):
    """Write a device's live cross-connects as a configuration (one plane, the device's ports)."""
    from permnet import ocsconfig
    from permnet.ocs.session import parse_device, read_device

    spec = parse_device(device)
    row = read_device(spec, protocol, credentials=load_credentials(credentials), timeout=timeout)
    cfg = ocsconfig.OcsConfig(row[None, :], {"device": spec.name, "protocol": protocol})
    ocsconfig.write(cfg, output, fmt or ("json" if output == "-" else None))


group = ocs
