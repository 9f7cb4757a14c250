"""What ``permnet ocs apply`` and ``permnet ocs read`` do, for the CLI and
for scripts: a configuration file's planes onto a list of devices, and a
device's live state into a configuration."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import require
from permnet.gen.limits import check_ports
from permnet.ocs.driver import Credentials, open_driver
from permnet.ocs.transaction import Target, TransactionReport, apply_targets

__all__ = ["DeviceSpec", "parse_device", "check_distinct_addresses", "config_targets", "apply_config", "read_device", "fabric_targets",
           "apply_fabric"]


@dataclass(frozen=True)
class DeviceSpec:
    name: str
    address: str


def parse_device(text: str) -> DeviceSpec:
    """``HOST:PORT`` or ``NAME=HOST:PORT``."""
    name, sep, address = text.partition("=")
    if not sep:
        name, address = text, text
    host, _, port = address.rpartition(":")
    require(host and port.isdigit() and 0 < int(port) < 65536,
            f"--device {text!r}: expected HOST:PORT or NAME=HOST:PORT")
    return DeviceSpec(name, address)


def _address_key(address: str) -> tuple[str, str]:
    host, _, port = address.rpartition(":")
    host = host.strip("[]").lower()
    if host in ("localhost", "::1", "ip6-localhost"):
        host = "127.0.0.1" if host == "localhost" else "::1"
    return host, port.lstrip("0") or "0"


def check_distinct_addresses(named: list[tuple[str, str]]) -> None:
    """Refuse two device names at one address (``[(name, address)]``): the
    transaction would drive one switch as two, each half of it rolled back
    by the other.  Checked before anything is sent."""
    seen: dict[tuple[str, str], str] = {}
    for name, address in named:
        key = _address_key(address)
        require(key not in seen, f"devices {seen.get(key)!r} and {name!r} are both at {address}: one switch "
                                 "cannot be two devices")
        seen[key] = name


def _device_size(protocol, spec, credentials, timeout) -> int:
    with open_driver(protocol, spec.address, timeout=timeout, credentials=credentials, name=spec.name) as d:
        return d.size()


def config_targets(cfg, devices: list[DeviceSpec], protocol: str, *, plane: int = 0,
                   device_ports: int | None = None, credentials: Credentials | None = None,
                   timeout: float = 5.0) -> list[Target]:
    """Device j gets plane ``plane + j`` of ``cfg`` on its ports 0..n-1 (n the
    plane size); its other ports are left alone.  The device size is asked
    from the device unless ``device_ports`` is given."""
    nplanes, n = cfg.planes.shape
    require(devices, "give at least one --device")
    check_distinct_addresses([(d.name, d.address) for d in devices])
    require(0 <= plane and plane + len(devices) <= nplanes,
            f"--plane {plane} with {len(devices)} device(s) needs planes {plane}..{plane + len(devices) - 1}, "
            f"the configuration has 0..{nplanes - 1}")
    out = []
    for j, spec in enumerate(devices):
        N = device_ports or _device_size(protocol, spec, credentials, timeout)
        require(N >= n, f"{spec.name}: a {N}-port device cannot hold a {n}-port plane")
        check_ports(f"{spec.name}: the device's state", N)
        want = np.full(N, -1, np.int64)
        want[:n] = cfg.planes[plane + j]
        owned = np.zeros(N, bool)
        owned[:n] = True
        out.append(Target(spec.name, protocol, spec.address, want, owned, credentials, timeout))
    return out


def apply_config(cfg, devices, protocol, *, plane=0, device_ports=None, credentials=None, timeout=5.0,
                 parallel=8, dry_run=False, settle_s=5.0, state_dir=None, command="permnet ocs apply"
                 ) -> TransactionReport:
    """``ocs apply``: :func:`config_targets` as one transaction (journalled
    and locked in ``state_dir`` when given)."""
    targets = config_targets(cfg, devices, protocol, plane=plane, device_ports=device_ports,
                             credentials=credentials, timeout=timeout)
    return apply_targets(targets, parallel=parallel, dry_run=dry_run, settle_s=settle_s, state_dir=state_dir,
                         command=command)


def read_device(spec: DeviceSpec, protocol: str, *, credentials=None, timeout=5.0) -> np.ndarray:
    """The live state of one device as a plane over its ports."""
    with open_driver(protocol, spec.address, timeout=timeout, credentials=credentials, name=spec.name) as d:
        return d.read()


def fabric_targets(fabric_path, inventory_path, *, credentials=None, timeout: float = 5.0) -> list[Target]:
    """One target per used device of a compiled fabric
    (:func:`permnet.fabric.device_targets`), reached at the address and by
    the protocol the inventory gives for that device name."""
    from permnet.fabric import device_targets, read_inventory
    from permnet.ocs.emulator import FRONTENDS

    inv = {d.name: d for d in read_inventory(inventory_path)}
    out = []
    for dt in device_targets(fabric_path):
        dev = inv.get(dt.device.name)
        require(dev is not None, f"{inventory_path}: no device named {dt.device.name!r} (the fabric uses it)")
        require(dev.ports == dt.device.ports,
                f"{inventory_path}: device {dev.name!r} has {dev.ports} ports, the fabric was compiled for "
                f"{dt.device.ports}")
        require(dev.protocol in FRONTENDS,
                f"{inventory_path}: device {dev.name!r} uses protocol {dev.protocol!r}, which permnet loads "
                f"from files, not over a session (drivers: {', '.join(FRONTENDS)})")
        require(bool(dev.address), f"{inventory_path}: device {dev.name!r} has no address")
        out.append(Target(dev.name, dev.protocol, dev.address, dt.target, dt.owned, credentials, timeout))
    check_distinct_addresses([(t.name, t.address) for t in out])
    return out


def apply_fabric(fabric_path, inventory_path, *, credentials=None, timeout=5.0, parallel=8, dry_run=False,
                 settle_s=5.0, state_dir=None, command="permnet fabric apply") -> TransactionReport:
    """``fabric apply``: :func:`fabric_targets` as one transaction (journalled
    and locked in ``state_dir`` when given)."""
    targets = fabric_targets(fabric_path, inventory_path, credentials=credentials, timeout=timeout)
    return apply_targets(targets, parallel=parallel, dry_run=dry_run, settle_s=settle_s, state_dir=state_dir,
                         command=command)
