"""Optical circuit switches as the fabric compiler sees them.

    >>> from permnet.gen.fabric.inventory import parse_inventory
    >>> devs = parse_inventory({"device": [{"name": "ocs", "model": "sonic-64", "count": 2}]})
    >>> [(d.name, d.ports, d.protocol) for d in devs]
    [('ocs-1', 64, 'sonic'), ('ocs-2', 64, 'sonic')]

A device is an N x N switch: ingress ports ``0..N-1`` and egress ports
``0..N-1`` (0-based inside permnet); a cross-connect joins one ingress to one
egress.  On its faceplate ingress ``i`` is port ``port_base + i`` and egress
``e`` is port ``port_base + egress_offset + e`` (a Polatis 192x192 numbers its
egress ports 193-384: ``egress_offset = 192``).  A *bidirectional* device
(circulator-based) carries both directions on one port: a cross-connect
pairs two ports, so its cross-connects form an involution (``xc[xc[p]] = p``)
and ingress ``p`` and egress ``p`` are the same faceplate port.

SCPI devices keep the Polatis numbering (ingress 1..N, egress N+1..2N) and
SONiC devices ports 1..N on an A (ingress) and a B (egress) side, as their
files are written (:mod:`permnet.ocsconfig`); TL1 and NETCONF files use
``port_base`` and ``egress_offset`` as given.

The built-in models only fill in *defaults* (port count, numbering, loss,
switching time) plausible for the product class; they are not vendor
specifications.  Every value can be overridden in the inventory.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from permnet.gen.errors import PermnetError, require
from permnet.gen.limits import check_ports

__all__ = ["Device", "MODELS", "PROTOCOLS", "parse_inventory"]

PROTOCOLS = ("scpi", "tl1", "netconf", "sonic", "file")

# Defaults per model (documented as defaults, not vendor specifications).
MODELS: dict[str, dict] = {
    "polatis-192": dict(ports=192, protocol="scpi", loss_db=1.0, switch_ms=25.0, port_base=1,
                        egress_offset=192),
    "polatis-384": dict(ports=384, protocol="scpi", loss_db=1.5, switch_ms=25.0, port_base=1,
                        egress_offset=384),
    "polatis-48": dict(ports=48, protocol="scpi", loss_db=1.0, switch_ms=25.0, port_base=1,
                       egress_offset=48),
    "calient-s320": dict(ports=320, protocol="tl1", loss_db=1.5, switch_ms=50.0, port_base=1,
                         egress_offset=320),
    "lumentum-r300": dict(ports=300, protocol="netconf", loss_db=1.5, switch_ms=30.0, port_base=1,
                          egress_offset=300),
    "sonic-64": dict(ports=64, protocol="sonic", loss_db=1.2, switch_ms=20.0, port_base=1,
                     egress_offset=0),
    "circulator-136": dict(ports=136, protocol="netconf", loss_db=2.0, switch_ms=40.0, port_base=1,
                           egress_offset=0, bidirectional=True),
    "generic": dict(protocol="file", loss_db=1.0, switch_ms=25.0, port_base=1),
}

_KEYS = {"name", "ports", "protocol", "model", "address", "bidirectional", "loss_db", "switch_ms",
         "port_base", "egress_offset", "count"}


@dataclass(frozen=True)
class Device:
    """One N x N optical circuit switch of the inventory."""

    name: str
    ports: int
    protocol: str = "file"
    model: str = "generic"
    address: str = ""
    bidirectional: bool = False
    loss_db: float = 1.0
    switch_ms: float = 25.0
    port_base: int = 1
    egress_offset: int = -1        # -1: the default, ``ports`` (0 for bidirectional devices)

    def __post_init__(self):
        if self.egress_offset < 0:
            object.__setattr__(self, "egress_offset", 0 if self.bidirectional else self.ports)

    def ingress_label(self, port: int) -> int:
        """Faceplate number of 0-based ingress ``port``."""
        return self.port_base + int(port)

    def egress_label(self, port: int) -> int:
        """Faceplate number of 0-based egress ``port``."""
        return self.port_base + self.egress_offset + int(port)

    def as_dict(self) -> dict:
        return asdict(self)


def _typed(table: str, key: str, value, kind):
    if kind is bool:
        require(isinstance(value, bool), f"{table}: key {key!r} must be true or false, got {value!r}")
    elif kind is int:
        require(isinstance(value, int) and not isinstance(value, bool),
                f"{table}: key {key!r} must be an integer, got {value!r}")
    elif kind is float:
        require(isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
                and abs(value) != float("inf"), f"{table}: key {key!r} must be a number, got {value!r}")
        value = float(value)
    else:
        require(isinstance(value, str), f"{table}: key {key!r} must be a string, got {value!r}")
    return value


def parse_inventory(doc: dict) -> list[Device]:
    """Devices from a parsed inventory document ``{"device": [table, ...]}``.

    Each table has ``name`` and ``ports`` (or a ``model`` that supplies
    them), ``protocol`` and the optional keys of :class:`Device`;
    ``count = K`` declares K identical devices ``NAME-1`` .. ``NAME-K``.
    Errors name the table (``device[3]``) and the key.
    """
    require(isinstance(doc, dict), "inventory: expected [[device]] tables")
    unknown = sorted(set(doc) - {"device"})
    if unknown:
        raise PermnetError(f"inventory: unknown top-level key {unknown[0]!r} (expected [[device]] tables)")
    tables = doc.get("device")
    require(isinstance(tables, list) and tables, "inventory: no [[device]] tables")
    devices: list[Device] = []
    seen: dict[str, str] = {}
    total_ports = total_devices = 0      # checked against the memory budget before any device is made
    for t, tab in enumerate(tables):
        where = f"device[{t}]"
        require(isinstance(tab, dict), f"{where}: not a table")
        if isinstance(tab.get("name"), str):
            where = f"device[{t}] ({tab['name']})"
        bad = sorted(set(tab) - _KEYS)
        if bad:
            raise PermnetError(f"{where}: unknown key {bad[0]!r}")
        require("name" in tab, f"{where}: missing key 'name'")
        name = _typed(where, "name", tab["name"], str)
        require(name.strip() and "/" not in name and not name.startswith(".") and name == name.strip(),
                f"{where}: key 'name': {name!r} is not a usable device name")
        model = _typed(where, "model", tab.get("model", "generic"), str)
        if model not in MODELS:
            raise PermnetError(f"{where}: key 'model': unknown model {model!r} "
                               f"(built-in: {', '.join(sorted(MODELS))})")
        vals = dict(MODELS[model])
        for key, kind in (("ports", int), ("protocol", str), ("address", str), ("bidirectional", bool),
                          ("loss_db", float), ("switch_ms", float), ("port_base", int),
                          ("egress_offset", int)):
            if key in tab:
                vals[key] = _typed(where, key, tab[key], kind)
        require("ports" in vals, f"{where}: missing key 'ports' (or a model that gives it)")
        require(vals["ports"] >= 2, f"{where}: key 'ports' must be >= 2, got {vals['ports']}")
        require(vals["protocol"] in PROTOCOLS,
                f"{where}: key 'protocol': unknown protocol {vals['protocol']!r} (choose from {', '.join(PROTOCOLS)})")
        require(vals["loss_db"] >= 0, f"{where}: key 'loss_db' must be >= 0")
        require(vals["switch_ms"] >= 0, f"{where}: key 'switch_ms' must be >= 0")
        require(vals["port_base"] >= 0, f"{where}: key 'port_base' must be >= 0")
        if "ports" in tab and "egress_offset" not in tab and "egress_offset" in MODELS[model]:
            # A model's offset is its port count; a user-given port count moves it.
            if MODELS[model]["egress_offset"] == MODELS[model]["ports"]:
                vals["egress_offset"] = vals["ports"]
        off = vals.get("egress_offset", -1)
        bidi = vals.get("bidirectional", False)
        if "egress_offset" in tab:
            require(off >= 0, f"{where}: key 'egress_offset' must be >= 0")
            require(not bidi or off == 0, f"{where}: key 'egress_offset': a bidirectional device "
                    "carries both directions on one port, so its offset is 0")
            require(bidi or off == 0 or off >= vals["ports"],
                    f"{where}: key 'egress_offset': {off} makes egress ports overlap ingress ports 1..{vals['ports']}")
        # The SCPI and SONiC files are written in those formats' own numbering
        # (permnet.ocsconfig): faceplate labels must agree with it.
        eff_off = off if off >= 0 else (0 if bidi else vals["ports"])
        if vals["protocol"] == "scpi" and not bidi:
            require(vals["port_base"] == 1 and eff_off == vals["ports"],
                    f"{where}: keys 'port_base'/'egress_offset': SCPI devices are numbered as Polatis "
                    f"switches are (ingress 1..{vals['ports']}, egress {vals['ports'] + 1}..{2 * vals['ports']})")
        if vals["protocol"] == "sonic":
            require(vals["port_base"] == 1 and eff_off == 0,
                    f"{where}: keys 'port_base'/'egress_offset': SONiC ports are numbered 1..{vals['ports']} "
                    "on the A (ingress) and B (egress) sides")
        if "address" in tab:
            a = vals["address"]
            host, _, port = a.rpartition(":")
            require(bool(host) and port.isdigit() and 0 < int(port) < 65536,
                    f"{where}: key 'address': expected host:port, got {a!r}")
        count = tab.get("count")
        if count is not None:
            count = _typed(where, "count", count, int)
            require(count >= 1, f"{where}: key 'count' must be >= 1, got {count}")
        total_ports += vals["ports"] * (count or 1)
        total_devices += count or 1
        check_ports(f"{where}: {total_devices:,} device(s) so far", total_ports, total_devices)
        names = [name] if count is None else [f"{name}-{i}" for i in range(1, count + 1)]
        for nm in names:
            require(nm not in seen, f"{where}: key 'name': duplicate device name {nm!r} (also in {seen.get(nm)})")
            seen[nm] = where
            devices.append(Device(name=nm, model=model, **{k: v for k, v in vals.items()
                                                           if k in Device.__dataclass_fields__}))
    return devices
