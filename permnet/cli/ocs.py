"""``permnet ocs``: talk to optical circuit switches (emulate, apply, read)."""

from __future__ import annotations

import sys

import click

from permnet.cli.common import EXIT_BAD_INPUT, EXIT_INCONSISTENT, EXIT_MISMATCH, POSITIVE_FLOAT, echo_json

PROTOCOLS = ("scpi", "tl1", "netconf")


class FiniteRange(click.FloatRange):
    """``click.FloatRange`` that also refuses NaN (which compares false with
    both bounds, so the range check let it through)."""

    def convert(self, value, param, ctx):
        import math

        x = super().convert(value, param, ctx)
        if math.isnan(x):
            self.fail(f"{value!r} is not a number from {self.min:g} to {self.max:g}", param, ctx)
        return x


def _timeout_type():
    from permnet.ocs.driver import MAX_TIMEOUT_S
    return FiniteRange(0, MAX_TIMEOUT_S, min_open=True)


def _settle_type():
    from permnet.ocs.transaction import MAX_SETTLE_S
    return FiniteRange(0, MAX_SETTLE_S)


def check_ssh_options(protocol):
    """``--known-hosts`` / ``--trust-new-host-key`` are NETCONF's (SSH); with
    another protocol they would be ignored: refused instead."""
    from permnet.gen.errors import PermnetError

    ssh = click.get_current_context().meta.get("permnet.ssh", {})
    if ssh and protocol != "netconf":
        opts = " and ".join({"known_hosts": "--known-hosts", "trust_new": "--trust-new-host-key"}[k] for k in ssh)
        raise PermnetError(f"{opts} is for --protocol netconf (SSH host keys); {protocol} has none")


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


def state_option(f):
    return click.option("--state-dir", type=click.Path(file_okay=False), default=None,
                        help="journal and lock folder (default: $PERMNET_STATE_DIR, else "
                             "$XDG_STATE_HOME/permnet, else ~/.local/state/permnet)")(f)


def resolve_state(path):
    from permnet.ocs.journal import state_dir
    return state_dir(path)


#: exit status of each verdict of a device transaction (docs/howto/transactions.md)
VERDICT_EXIT = {"VERIFIED": 0, "DRY RUN": 0, "RECOVERED": 0, "ROLLED BACK": EXIT_MISMATCH,
                "UNREACHABLE": EXIT_BAD_INPUT, "ROLLBACK FAILED": EXIT_INCONSISTENT}


def transaction_options(f):
    f = state_option(f)
    f = click.option("--json", "as_json", is_flag=True, help="print the report as JSON")(f)
    f = click.option("--settle-s", type=_settle_type(), default=5.0, show_default=True,
                     help="longest wait for new cross-connects to settle")(f)
    f = click.option("--timeout", type=_timeout_type(), default=5.0, show_default=True,
                     help="seconds per exchange with a device")(f)
    f = click.option("--parallel", type=click.IntRange(1, 256), default=8, show_default=True,
                     help="devices driven at once")(f)
    f = click.option("--dry-run", is_flag=True, help="read the devices and print the plan; change nothing")(f)
    f = click.option("--credentials", type=click.Path(dir_okay=False), default=None,
                     help="file with user and password lines, readable only by its owner "
                          "(default: PERMNET_OCS_USER / PERMNET_OCS_PASSWORD)")(f)
    return ssh_options(f)


def report_code(rep) -> int:
    """0 verified, 1 rolled back, 2 unreachable (nothing sent), 4 roll-back
    failed, 128 + signal when interrupted."""
    return rep.interrupted if rep.verdict == "INTERRUPTED" else VERDICT_EXIT[rep.verdict]


def _errors(rep) -> None:
    for d in rep.devices:
        if d.error:
            click.echo(f"permnet: error: {d.error}", err=True)
    click.echo(f"permnet: {rep.verdict_line()}", err=True)


def render_report(rep, as_json, exit: bool = True) -> int:
    """The report on stdout; each device error and a failing verdict on stderr."""
    if as_json:
        echo_json(rep.as_dict())
    else:
        for line in rep.lines():
            click.echo(line)
    code = report_code(rep)
    if code:
        _errors(rep)
    if exit and code:
        sys.exit(code)
    return code


@click.group()
def ocs():
    """Drive optical circuit switches over SCPI, TL1 or NETCONF, or emulate one."""


@ocs.command("emulate")
@click.option("--ports", type=click.IntRange(2, 4096), required=True, help="N, an N x N switch")
@click.option("--protocol", type=click.Choice(PROTOCOLS), default="scpi", show_default=True)
@click.option("--listen", default="127.0.0.1:0", show_default=True, help="HOST:PORT (port 0: any free port)")
@click.option("--state", type=click.Path(dir_okay=False), default=None,
              help="keep the cross-connects in this file (they survive a restart)")
@click.option("--delay-ms", type=FiniteRange(0, 60000), default=0.0, help="answer every command this late")
@click.option("--settle-ms", type=FiniteRange(0, 60000), default=0.0,
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
          as_json, state_dir):
    """Read, plan, apply, read back, verify; roll every device back on any failure."""
    from permnet import ocsconfig
    from permnet.ocs.session import apply_config, parse_device

    check_ssh_options(protocol)
    rep = apply_config(ocsconfig.read(config_path), [parse_device(d) for d in devices], protocol, plane=plane,
                       device_ports=device_ports, credentials=load_credentials(credentials), timeout=timeout,
                       parallel=parallel, dry_run=dry_run, settle_s=settle_s, state_dir=resolve_state(state_dir))
    render_report(rep, as_json)


@ocs.command("read")
@click.option("--device", required=True, help="HOST:PORT")
@click.option("--protocol", type=click.Choice(PROTOCOLS), required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default="-", show_default=True,
              help="read-back file (any permnet format, by extension or --format); - for stdout")
@click.option("--format", "fmt", default=None, help="file format (default: from the extension, else json)")
@click.option("--timeout", type=_timeout_type(), default=5.0, show_default=True)
@click.option("--credentials", type=click.Path(dir_okay=False), default=None)
@ssh_options
def read(device, protocol, output, fmt, timeout, credentials):
    """Write a device's live cross-connects as a configuration (one plane, the device's ports)."""
    from permnet import ocsconfig
    from permnet.ocs.session import parse_device, read_device

    check_ssh_options(protocol)
    spec = parse_device(device)
    row = read_device(spec, protocol, credentials=load_credentials(credentials), timeout=timeout)
    cfg = ocsconfig.OcsConfig(row[None, :], {"device": spec.name, "protocol": protocol})
    ocsconfig.write(cfg, output, fmt or ("json" if output == "-" else None))


@ocs.command("recover")
@click.option("--to", "to", type=click.Choice(["old", "new"]), default=None,
              help="the state to bring every device to (default: finish what was started: new while it was "
                   "applying, old once it was rolling back)")
@click.option("--credentials", type=click.Path(dir_okay=False), default=None,
              help="file with user and password lines (default: PERMNET_OCS_USER / PERMNET_OCS_PASSWORD)")
@click.option("--timeout", type=_timeout_type(), default=None, help="seconds per exchange (default: as recorded)")
@click.option("--parallel", type=click.IntRange(1, 256), default=8, show_default=True)
@click.option("--settle-s", type=_settle_type(), default=5.0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@state_option
def recover(to, credentials, timeout, parallel, settle_s, as_json, state_dir):
    """Finish every unfinished transaction: each device exactly old or exactly new, read back, journal closed."""
    from permnet.ocs.transaction import recover as run

    reports, released = run(resolve_state(state_dir), to=to, credentials=load_credentials(credentials), timeout=timeout,
                            parallel=parallel, settle_s=settle_s)
    if as_json:
        echo_json({"transactions": [r.as_dict() for r in reports], "released_locks": released})
    else:
        if not reports:
            click.echo("no unfinished transaction")
        for r in reports:
            click.echo(f"transaction {r.transaction}: to {r.recovered}")
            for line in r.lines():
                click.echo(line)
        for line in released:
            click.echo(f"released stale lock {line}")
    codes = [report_code(r) for r in reports]
    for r, c in zip(reports, codes):
        if c:
            _errors(r)
    if any(codes):
        sys.exit(max(codes))


@ocs.command("status")
@click.option("--json", "as_json", is_flag=True)
@state_option
def status(as_json, state_dir):
    """Unfinished transactions (with each device's progress) and device locks."""
    from permnet.ocs.transaction import state_status

    st = state_status(resolve_state(state_dir))
    if as_json:
        echo_json(st.as_dict())
    else:
        for line in st.lines():
            click.echo(line)


@ocs.command("unlock")
@click.argument("addresses", nargs=-1, required=True)
@click.option("--force", is_flag=True, help="also a lock taken on another host (make sure nothing runs there)")
@state_option
def unlock(addresses, force, state_dir):
    """Remove the stale lock of each device address HOST:PORT (its holder is dead)."""
    from permnet.ocs.transaction import unlock as run

    for line in run(resolve_state(state_dir), addresses, force=force):
        click.echo(line)


group = ocs
