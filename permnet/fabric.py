"""OCS fabrics on disk: the inventory (TOML), the compiled fabric folder, read-backs.

A fabric folder (written as a unit, :func:`permnet.fileio.atomic_dir`):

* ``fabric.json`` -- schema ``permnet-ocs-fabric`` version 1: the logical
  planes, the inventory, the units (plane -> switch or Clos network, with the
  edge colourings that routed it), slots (device port ranges and roles), the
  cross-connects of every used device (0-based), the cables, a summary and a
  SHA-256 ``checksum`` of the canonical JSON of everything else;
* ``devices/<name>.<ext>`` -- the native configuration of each used device
  in its protocol's format: ``scpi`` Polatis-style SCPI (``.scpi``),
  ``sonic`` a SONiC-style script (``.sh``), ``file`` canonical JSON
  (``.json``), all through :mod:`permnet.ocsconfig`; ``tl1`` ``ENT-PATCH``
  lines (``.tl1``) and ``netconf`` an ``<edit-config>`` RPC (``.xml``) with the
  device's faceplate numbering.  A device shared with other port ranges or
  not wholly used gets commands scoped to its ranges (``conn:add``, merge),
  never a whole-switch replace;
* ``cabling.csv`` -- ``cable,from_device,from_port,to_device,to_port``
  (faceplate numbers: egress of one device to ingress of the next);
* ``attachments.csv`` -- where each node's transmitter and receiver of each
  plane plug in;
* ``bom.md`` -- devices by role, cables, worst-case passes and loss budget.

Verification composes one read-back per device (file stem = device name,
any format :func:`permnet.ocsconfig.read_dump` reads, or the TL1/NETCONF
files written here) with the cabling (:mod:`permnet.gen.fabric.simulate`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from permnet import ocsconfig
from permnet.fileio import atomic_dir, atomic_write, dumps_json, markdown_table, read_text
from permnet.gen.errors import PermnetError, require
from permnet.gen.fabric.clos import net_from_dict
from permnet.gen.fabric.compile import Fabric, Unit, compile_fabric, terminals
from permnet.gen.fabric.inventory import Device, parse_inventory
from permnet.gen.fabric.reconfig import Reconfiguration, reconfigure
from permnet.gen.fabric.simulate import breaks, check_fabric, compose

__all__ = ["FORMAT", "Target", "DeviceTarget", "FabricSummary", "CompileReport", "ReconfigureReport", "device_targets",
           "read_inventory", "fabric_document", "load_fabric", "write_fabric", "summary", "compile_to_dir",
           "verify_readback", "reconfigure_to_dir", "EXTENSIONS", "render_device"]

FORMAT = "permnet-ocs-fabric"
VERSION = 1
EXTENSIONS = {"scpi": "scpi", "sonic": "sh", "tl1": "tl1", "netconf": "xml", "file": "json"}
_OCS_FORMAT = {"scpi": "polatis", "sonic": "sonic", "file": "json"}


# ------------------------------------------------------------------ inventory

def read_inventory(path) -> list[Device]:
    """Devices of a TOML inventory (``[[device]]`` tables); errors name the table and key."""
    text = read_text(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PermnetError(f"{path}: not valid TOML: {exc}") from None
    try:
        return parse_inventory(doc)
    except PermnetError as exc:
        raise PermnetError(f"{path}: {exc}") from None


# ------------------------------------------------------------------ fabric.json

def _checksum(doc: dict) -> str:
    body = {k: v for k, v in doc.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _nulls(a) -> list:
    return [[int(e) if e >= 0 else None for e in row] for row in np.asarray(a)]


@dataclass(frozen=True)
class FabricSummary:
    """A compiled fabric at a glance: devices used and spare, cables between
    devices, cross-connects, the logical planes and their ports, the most
    device passes and the most device insertion loss of any circuit, the
    most stages of any unit, the unit kinds and the devices by role."""

    devices_used: int
    devices_spare: int
    cables: int
    crossconnects: int
    planes: int
    ports: int
    max_passes: int
    max_loss_db: float
    stages: int
    units: list[str]
    roles: dict[str, int]

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class CompileReport:
    """What :func:`compile_to_dir` wrote: the fabric's summary and, for a
    time-multiplexed schedule, its slots with each slot's guard time and
    the devices switching into it (None without a schedule)."""

    summary: FabricSummary
    slots: int | None = None
    guard_ms: list[float] | None = None
    devices_switching: list | None = None

    def as_dict(self) -> dict:
        out = self.summary.as_dict()
        if self.slots is not None:
            out.update(slots=self.slots, guard_ms=self.guard_ms, devices_switching=self.devices_switching)
        return out


@dataclass(frozen=True)
class ReconfigureReport:
    """What :func:`reconfigure_to_dir` wrote: the reconfiguration (changed and
    kept cross-connects, against compiling afresh) and the new fabric's summary."""

    reconfiguration: Reconfiguration
    summary: FabricSummary

    def as_dict(self) -> dict:
        s = self.summary
        return dict(self.reconfiguration.as_dict(), devices_used=s.devices_used, cables=s.cables,
                    max_passes=s.max_passes, max_loss_db=s.max_loss_db)


def summary(fab: Fabric) -> FabricSummary:
    """devices_used, cables, crossconnects, max_passes, max_loss_db, stages, devices by role."""
    c = compose(fab)
    roles: dict[str, int] = {}
    for r in fab.roles():
        if r:
            key = "+".join(r)
            roles[key] = roles.get(key, 0) + 1
    return FabricSummary(
        devices_used=int(len(fab.used)), devices_spare=len(fab.devices) - int(len(fab.used)),
        cables=int(len(fab.cables)), crossconnects=fab.crossconnects(),
        planes=int(fab.planes.shape[0]), ports=int(fab.planes.shape[1]),
        max_passes=int(c.passes.max()) if c.passes.size else 0,
        max_loss_db=round(float(c.loss_db.max()) if c.loss_db.size else 0.0, 3),
        stages=max(u.net.stages for u in fab.units),
        units=sorted({u.kind for u in fab.units}),
        roles=roles)


def fabric_document(fab: Fabric, extra: dict | None = None, summ: FabricSummary | None = None) -> dict:
    """The canonical ``fabric.json`` document, checksum included (``summ``:
    the fabric's summary when already computed)."""
    used = fab.used.tolist()
    from permnet import __version__

    doc = {
        "format": FORMAT,
        "version": VERSION,
        "generator": f"permnet {__version__}",
        "topology": fab.topology,
        "planes": _nulls(fab.planes),
        "devices": [d.as_dict() for d in fab.devices],
        "units": [u.as_dict() for u in fab.units],
        "slots": {"device": fab.slot_device.tolist(), "offset": fab.slot_offset.tolist(),
                  "size": fab.slot_size.tolist(), "role": list(fab.slot_role)},
        "crossconnects": {fab.devices[d].name: [int(e) if e >= 0 else None for e in fab.xc[d]] for d in used},
        "cables": fab.cables.tolist(),
        "summary": (summ if summ is not None else summary(fab)).as_dict(),
    }
    if extra:
        doc.update(extra)
    doc["checksum"] = _checksum(doc)
    return doc


def load_fabric(path) -> Fabric:
    """Read and check a ``fabric.json`` (checksum, structure, and that its
    cross-connects and cables still realise its planes)."""
    return _load(path)[0]


def _slot_fabrics(fab: Fabric, doc: dict, path) -> list[Fabric]:
    """One fabric per time slot of a time-multiplexed fabric (else ``[fab]``)."""
    tdm = doc.get("tdm")
    if not tdm:
        return [fab]
    out = []
    try:
        logical = np.array([[-1 if e is None else e for e in row] for row in tdm["logical_planes"]], dtype=np.int64)
        names = {d.name: i for i, d in enumerate(fab.devices)}
        for k, slot in enumerate(tdm["slots"]):
            places = np.full_like(fab.planes, -1)
            for y, place in slot["place_of"].items():
                places[place] = logical[int(y)]
            xc = [np.full(d.ports, -1, dtype=np.int64) for d in fab.devices]
            for name, row in slot["crossconnects"].items():
                xc[names[name]] = np.array([-1 if e is None else e for e in row], dtype=np.int64)
            f = Fabric(fab.devices, places, fab.units, fab.slot_device, fab.slot_offset, fab.slot_size,
                       fab.slot_role, xc, fab.cables, fab.inputs, fab.outputs, fab.topology)
            check_fabric(f)
            out.append(f)
    except (KeyError, TypeError, ValueError, IndexError, AssertionError) as exc:
        raise PermnetError(f"{path}: not a usable time-multiplexed fabric ({type(exc).__name__}: {exc})") from None
    return out


def _load(path) -> tuple[Fabric, dict]:
    text = read_text(path)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PermnetError(f"{path}: malformed or truncated JSON at line {exc.lineno}: {exc.msg}") from None
    require(isinstance(doc, dict) and doc.get("format") == FORMAT, f"{path}: not a {FORMAT} document")
    require(doc.get("version") == VERSION, f"{path}: unsupported version {doc.get('version')!r}")
    require(doc.get("checksum") == _checksum(doc), f"{path}: checksum mismatch (file edited or damaged)")
    try:
        devices = [Device(**d) for d in doc["devices"]]
        planes = np.array([[-1 if e is None else e for e in row] for row in doc["planes"]], dtype=np.int64)
        units = [Unit(u["kind"], list(u["planes"]), net_from_dict(u["net"])) for u in doc["units"]]
        s = doc["slots"]
        sd, so = np.array(s["device"], dtype=np.int64), np.array(s["offset"], dtype=np.int64)
        ss, sr = np.array(s["size"], dtype=np.int64), list(s["role"])
        names = {d.name: i for i, d in enumerate(devices)}
        xc = [np.full(d.ports, -1, dtype=np.int64) for d in devices]
        for name, row in doc["crossconnects"].items():
            xc[names[name]] = np.array([-1 if e is None else e for e in row], dtype=np.int64)
        cables = np.array(doc["cables"], dtype=np.int64).reshape(-1, 4)
        inputs, outputs = terminals(units, planes.shape[0], planes.shape[1], sd, so)
        fab = Fabric(devices, planes, units, sd, so, ss, sr, xc, cables, inputs, outputs, doc.get("topology", {}))
        check_fabric(fab)
    except (KeyError, TypeError, ValueError, IndexError, AssertionError) as exc:
        if isinstance(exc, PermnetError):
            raise PermnetError(f"{path}: {exc}") from None
        raise PermnetError(f"{path}: not a usable fabric ({type(exc).__name__}: {exc})") from None
    return fab, doc


# ------------------------------------------------------------------ device files

def _scoped(fab: Fabric, d: int) -> bool:
    """True when the device holds more than one port range or leaves ports unused."""
    m = fab.slot_device == d
    return int(np.sum(m)) > 1 or int(fab.slot_size[m].sum()) < fab.devices[d].ports


def _ranges(fab: Fabric, d: int) -> str:
    m = np.nonzero(fab.slot_device == d)[0]
    m = m[np.argsort(fab.slot_offset[m], kind="stable")]
    dev = fab.devices[d]
    return ", ".join(f"{dev.port_base + fab.slot_offset[s]}-{dev.port_base + fab.slot_offset[s] + fab.slot_size[s] - 1}"
                     for s in m)


def _pairs(dev: Device, row: np.ndarray):
    """(ingress, egress) 0-based cross-connects; a bidirectional device lists each pair once."""
    m = row >= 0
    ins = np.nonzero(m)[0]
    outs = row[m]
    if dev.bidirectional:
        keep = ins <= outs
        ins, outs = ins[keep], outs[keep]
    return list(zip(ins.tolist(), outs.tolist()))


def render_device(fab: Fabric, d: int, slots: list | None = None) -> str:
    """The native configuration text of device ``d``; with time slots (a list
    of per-slot fabrics), one section per slot (``# plane k`` = slot k)."""
    dev = fab.devices[d]
    rows = [fab.xc[d]] if not slots else [f.xc[d] for f in slots]
    if len(rows) > 1 and dev.protocol in ("tl1", "netconf"):
        mark = "# slot {}" if dev.protocol == "tl1" else "<!-- slot {} -->"
        return "".join(f"{mark.format(k)}\n" + _render_one(fab, d, row) for k, row in enumerate(rows))
    return _render_one(fab, d, np.stack(rows))


def _render_one(fab: Fabric, d: int, rows: np.ndarray) -> str:
    dev = fab.devices[d]
    row = rows if rows.ndim == 1 else rows[0]
    scoped = _scoped(fab, d)
    topo = {"fabric": fab.topology.get("family", "fabric"), "device": dev.name, "model": dev.model}
    if dev.protocol in _OCS_FORMAT:
        cfg = ocsconfig.OcsConfig(rows if rows.ndim == 2 else rows[None, :], topo)
        text = ocsconfig.render(cfg, _OCS_FORMAT[dev.protocol])
        if dev.protocol == "scpi" and scoped:
            head, _, rest = text.partition("\n")
            text = (head + f"\n# scoped to ports {_ranges(fab, d)}: conn:add leaves every other port untouched\n"
                    + rest.replace(":oxc:swit:conn:only", ":oxc:swit:conn:add"))
        return text
    pairs = _pairs(dev, row)
    if dev.protocol == "tl1":
        out = [f"# permnet-ocs-fabric device={dev.name} model={dev.model} ports={dev.ports} "
               f"protocol=tl1 {'scoped=' + _ranges(fab, d).replace(' ', '') if scoped else 'whole-switch'}"]
        if not scoped:
            out.append("DLT-PATCH::ALL:C0;")
        out += [f"ENT-PATCH::{dev.ingress_label(i)},{dev.egress_label(e)}:C{k + 1};"
                for k, (i, e) in enumerate(pairs)]
        return "\n".join(out) + "\n"
    op = "merge" if scoped else "replace"
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f"<!-- permnet-ocs-fabric device={dev.name} model={dev.model} ports={dev.ports} protocol=netconf"
             f"{' scoped to ports ' + _ranges(fab, d) if scoped else ''} -->",
             '<rpc message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">',
             "  <edit-config>", "    <target><running/></target>", "    <config>",
             f'      <cross-connects xmlns="urn:permnet:ocs" '
             f'xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" nc:operation="{op}">']
    lines += [f"        <pair><ingress>{dev.ingress_label(i)}</ingress><egress>{dev.egress_label(e)}</egress></pair>"
              for i, e in pairs]
    lines += ["      </cross-connects>", "    </config>", "  </edit-config>", "</rpc>"]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ for drivers

@dataclass
class DeviceTarget:
    """What one device should hold, in the driver's 0-based plane model
    (``target[i]`` = egress of ingress i, -1 unconnected): ``owned`` marks
    the ingress/egress ports of the fabric's port ranges (an applier must
    leave every other port alone)."""

    device: Device
    target: np.ndarray
    owned: np.ndarray


def device_targets(fabric_path) -> list[DeviceTarget]:
    """Per used device of a written fabric: its target state and owned ports
    (for ``fabric apply``; time-multiplexed fabrics give slot 0)."""
    fab = load_fabric(fabric_path)
    out = []
    for d in fab.used.tolist():
        owned = np.zeros(fab.devices[d].ports, dtype=bool)
        for s_ in np.nonzero(fab.slot_device == d)[0]:
            owned[fab.slot_offset[s_]:fab.slot_offset[s_] + fab.slot_size[s_]] = True
        out.append(DeviceTarget(fab.devices[d], fab.xc[d].copy(), owned))
    return out


# ------------------------------------------------------------------ read-backs

_TL1 = re.compile(r"ENT-PATCH::\s*(\d+)\s*,\s*(\d+)", re.I)
_XML = re.compile(r"<ingress>\s*(\d+)\s*</ingress>\s*<egress>\s*(\d+)\s*</egress>", re.I)
_NAME = re.compile(r"device=(\S+)")


_SLOT = re.compile(r"^\s*(?:#\s*slot\s+(\d+)|<!--\s*slot\s+(\d+)\s*-->)", re.I | re.M)


def _native_connections(text: str):
    """(slot, ingress label, egress label) of a TL1 or NETCONF file (``# slot k`` /
    ``<!-- slot k -->`` markers separate time slots)."""
    marks = [(m.start(), int(m.group(1) or m.group(2))) for m in _SLOT.finditer(text)]
    bounds = [(0, 0)] + marks
    out = []
    for j, (start, slot) in enumerate(bounds):
        stop = bounds[j + 1][0] if j + 1 < len(bounds) else len(text)
        chunk = text[start:stop]
        pat = _XML if "<ingress>" in chunk.lower() else _TL1
        out += [(slot, int(a), int(b)) for a, b in pat.findall(chunk)]
    return out


def read_device(path, dev: Device, slots: int = 1) -> np.ndarray:
    """The cross-connects (``[slot][ingress]``, 0-based, -1 unconnected) a
    read-back file reports for ``dev``; errors for another device's file,
    ports out of range, more time slots than the fabric has."""
    path = Path(path)
    text = read_text(path)
    body = text.lstrip()
    if _TL1.search(text) or body.startswith("<"):
        m = _NAME.search(text)
        named = m.group(1) if m else None
        raw = _native_connections(text)
        conns = [(p, a - dev.port_base, b - dev.port_base - dev.egress_offset) for p, a, b in raw]
        bad = [(a, b) for (_, a, b), (_, i, e) in zip(raw, conns) if not (0 <= i < dev.ports and 0 <= e < dev.ports)]
        if bad:
            raise PermnetError(f"{path}: connection {bad[0][0]} -> {bad[0][1]} is outside the ports of "
                               f"{dev.name} (ingress {dev.ingress_label(0)}..{dev.ingress_label(dev.ports - 1)}, "
                               f"egress {dev.egress_label(0)}..{dev.egress_label(dev.ports - 1)})")
    else:
        dump = ocsconfig.read_dump(path, ports=dev.ports)
        named = dump.meta.get("device") or (dump.meta.get("topology") or {}).get("device")
        if isinstance(named, str) and named.startswith('"'):
            try:
                named = json.loads(named)
            except ValueError:
                pass
        require(dump.ports is None or dump.ports == dev.ports,
                f"{path}: a read-back of {dump.ports} ports, but {dev.name} has {dev.ports}")
        for p, i, e in dump.connections:
            require(0 <= i < dev.ports and 0 <= e < dev.ports,
                    f"{path}: connection {i} -> {e} (0-based) is outside ports 0..{dev.ports - 1} of {dev.name}")
        conns = list(dump.connections)
    require(named is None or named == dev.name, f"{path}: this read-back is from device {named}, not {dev.name}")
    seen = sorted({p for p, _, _ in conns})
    require(not seen or (seen[0] >= 0 and seen[-1] < slots),
            f"{path}: {dev.name} has {slots} time slot(s) in this fabric, but the read-back has "
            f"planes/slots {seen}")
    # Conflicting entries (an ingress listed twice with different egresses)
    # count as unconnected: the circuits through them are reported broken.
    xc = np.full((slots, dev.ports), -1, dtype=np.int64)
    conflict = np.zeros((slots, dev.ports), dtype=bool)
    for p, i, e in conns:
        for a, b in ([(i, e), (e, i)] if dev.bidirectional else [(i, e)]):
            if xc[p, a] not in (-1, b):
                conflict[p, a] = True
            xc[p, a] = b
    xc[conflict] = -1
    return xc


@dataclass
class FabricVerdict:
    """Verification of a fabric against read-backs."""

    broken: list = field(default_factory=list)     # Break, with device names resolved
    circuits: int = 0
    devices_read: int = 0
    extra: list = field(default_factory=list)      # (device, ingress label, egress label) off the fabric's paths

    @property
    def ok(self) -> bool:
        return not self.broken

    def as_dict(self) -> dict:
        return {"verified": self.ok, "circuits": self.circuits, "broken": self.broken,
                "devices_read": self.devices_read, "extra": self.extra}

    def lines(self) -> list[str]:
        out = []
        for b in self.broken:
            found = "unconnected" if b["found"] is None else f"egress {b['found']}"
            out.append(f"broken plane {b['plane']} node {b['node']} -> {b['target']}: at {b['device']} "
                       f"ingress {b['ingress']}: expected egress {b['expected']}, found {found}")
        for d, i, e in self.extra:
            out.append(f"extra  {d}: ingress {i} -> egress {e} (not used by the fabric)")
        out.append("MATCH: every plane realised exactly" if self.ok else
                   f"MISMATCH: {len(self.broken)} of {self.circuits} circuits broken")
        return out


def verify_readback(fabric_path, rdir) -> FabricVerdict:
    """Compose the read-backs in ``rdir`` with the fabric's cabling (every
    time slot of a time-multiplexed fabric)."""
    fab, doc = _load(fabric_path)
    slot_fabs = _slot_fabrics(fab, doc, fabric_path)
    rdir = Path(rdir)
    require(rdir.is_dir(), f"{rdir}: not a folder of read-backs")
    names = {d.name: i for i, d in enumerate(fab.devices)}
    files: dict[int, Path] = {}
    for f in sorted(rdir.iterdir()):
        if f.name.startswith(".") or not f.is_file():
            continue
        require(f.stem in names, f"{f}: no device {f.stem!r} in the fabric (read-backs are named after devices)")
        require(names[f.stem] not in files, f"{f}: a second read-back of {f.stem}")
        files[names[f.stem]] = f
    missing = [fab.devices[d].name for d in fab.used.tolist() if d not in files]
    if missing:
        raise PermnetError(f"{rdir}: no read-back of {len(missing)} used devices, e.g. {', '.join(missing[:3])}")
    nslots = len(slot_fabs)
    rb = {d: read_device(f, fab.devices[d], nslots) for d, f in files.items()}
    verdict = FabricVerdict(circuits=int(fab.planes.size) * nslots, devices_read=len(files))
    for s_i, sf in enumerate(slot_fabs):
        xc = [rb[d][s_i] if d in rb else np.full(dev.ports, -1, dtype=np.int64) for d, dev in enumerate(fab.devices)]
        for b in breaks(sf, xc):
            dev = fab.devices[b.device] if b.device >= 0 else None
            entry = {"plane": b.plane, "node": b.node, "target": int(sf.planes[b.plane, b.node]),
                     "device": dev.name if dev else None,
                     "ingress": dev.ingress_label(b.ingress) if dev else None,
                     "expected": dev.egress_label(b.expected) if dev and b.expected >= 0 else None,
                     "found": dev.egress_label(b.found) if dev and b.found >= 0 else None}
            if nslots > 1:
                entry["slot"] = s_i
            verdict.broken.append(entry)
        for d in files:
            dev = fab.devices[d]
            extra = np.nonzero((sf.xc[d] < 0) & (xc[d] >= 0))[0]
            verdict.extra += [(dev.name, dev.ingress_label(i), dev.egress_label(xc[d][i])) for i in extra]
    return verdict


# ------------------------------------------------------------------ writing

def _cabling_csv(fab: Fabric) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["cable", "from_device", "from_port", "to_device", "to_port"])
    devs = fab.devices
    for c, (fd, fp, td, tp) in enumerate(fab.cables.tolist(), 1):
        w.writerow([c, devs[fd].name, devs[fd].egress_label(fp), devs[td].name, devs[td].ingress_label(tp)])
    return buf.getvalue()


def _attachments_csv(fab: Fabric) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["plane", "node", "tx_device", "tx_port", "rx_device", "rx_port"])
    devs = fab.devices
    P, n = fab.planes.shape
    for y in range(P):
        for k in range(n):
            di, pi = fab.inputs[y, k]
            do, po = fab.outputs[y, k]
            w.writerow([y, k, devs[di].name, devs[di].ingress_label(pi), devs[do].name, devs[do].egress_label(po)])
    return buf.getvalue()


def _bom(fab: Fabric, summ: FabricSummary) -> str:
    c = compose(fab)
    roles = fab.roles()
    by: dict = {}
    for d in fab.used.tolist():
        dev = fab.devices[d]
        key = ("+".join(roles[d]), dev.model, dev.ports, dev.protocol, dev.loss_db)
        by.setdefault(key, []).append(dev.name)
    lines = [f"# Bill of materials: {fab.topology.get('name', 'fabric')}", "",
             f"{summ.planes} logical planes of {summ.ports} ports on {summ.devices_used} devices "
             f"({summ.devices_spare} spare), {summ.cables} cables between devices, "
             f"{summ.crossconnects} cross-connects; units: {', '.join(summ.units)}.", "",
             "## Devices by role", ""]
    rows = [[role, model, ports, proto, f"{loss:g}", len(names),
             ", ".join(names) if len(names) <= 4 else f"{names[0]}, {names[1]}, ..., {names[-1]}"]
            for (role, model, ports, proto, loss), names in sorted(by.items())]
    lines += markdown_table(["role", "model", "ports", "protocol", "loss dB/pass", "count", "devices"], rows)
    used = set(fab.used.tolist())
    spare = [d.name for i, d in enumerate(fab.devices) if i not in used]
    lines += ["", f"Spare devices: {len(spare)}" + (f" ({', '.join(spare[:8])}{' ...' if len(spare) > 8 else ''})"
                                                    if spare else "")]
    if any(d.bidirectional for d in fab.devices):
        lines += ["", "## Bidirectional devices", "",
                  "A circulator port carries both directions, so a cross-connect pairs two ports: a "
                  "directed plane goes there only with its inverse or as a fixed-point-free involution.", ""]
        for u in fab.units:
            if u.kind == "bidi-pair":
                lines.append(f"* planes {u.planes[0]} and {u.planes[1]} (inverses) share "
                             f"{fab.devices[fab.slot_device[u.net.slot]].name}")
            elif u.kind == "bidi-involution":
                lines.append(f"* plane {u.planes[0]} (an involution) on {fab.devices[fab.slot_device[u.net.slot]].name}")
        rest = [y for u in fab.units if not u.kind.startswith("bidi") for y in u.planes]
        if rest:
            lines.append(f"* planes {', '.join(map(str, sorted(rest)))} on unidirectional devices (neither "
                         "paired with an inverse nor involutions, or no room on the bidirectional devices)")
    lines += ["", "## Cables", "",
              f"{len(fab.cables)} fibres between devices (`cabling.csv`), plus "
              f"{2 * int(fab.planes.size)} node attachments (`attachments.csv`: one transmitter and one "
              "receiver per node and plane; a bidirectional port carries both)."]
    lines += ["", "## Passes and loss budget per plane", ""]
    rows = []
    for y in range(fab.planes.shape[0]):
        m = c.realised[y] >= 0
        rows.append([y, int(np.sum(m)), int(c.passes[y][m].max()) if m.any() else 0,
                     f"{float(c.loss_db[y][m].max()) if m.any() else 0.0:.2f}"])
    lines += markdown_table(["plane", "circuits", "worst-case passes", "worst-case loss dB"], rows)
    lines += ["", f"Worst case over all circuits: {summ.max_passes} device passes, "
              f"{summ.max_loss_db:.2f} dB insertion loss (device loss only; add connectors and fibre).", ""]
    return "\n".join(lines)


def write_fabric(fab: Fabric, out_dir, extra: dict | None = None, changes: dict | None = None,
                 slots: list | None = None) -> FabricSummary:
    """Write the fabric folder as a unit; returns the summary.  ``slots``
    (per-slot fabrics of a time-multiplexed schedule) give each device file
    one section per time slot."""
    check_fabric(fab)       # the composed fabric must realise every plane before anything is written
    for f in slots or []:
        check_fabric(f)
    summ = summary(fab)
    doc = fabric_document(fab, extra, summ)
    with atomic_dir(out_dir) as tmp:
        # Compact canonical JSON (sorted keys): a large fabric is megabytes.
        atomic_write(tmp / "fabric.json", json.dumps(doc, sort_keys=True, separators=(",", ":"),
                                                     allow_nan=False) + "\n")
        (tmp / "devices").mkdir()
        for d in fab.used.tolist():
            dev = fab.devices[d]
            atomic_write(tmp / "devices" / f"{dev.name}.{EXTENSIONS[dev.protocol]}", render_device(fab, d, slots))
        atomic_write(tmp / "cabling.csv", _cabling_csv(fab))
        atomic_write(tmp / "attachments.csv", _attachments_csv(fab))
        atomic_write(tmp / "bom.md", _bom(fab, summ))
        if changes is not None:
            atomic_write(tmp / "changes.json", dumps_json(changes))
            (tmp / "changes").mkdir()
            for name, ch in changes["devices"].items():
                atomic_write(tmp / "changes" / f"{name}.txt", "".join(
                    [f"disconnect {i}\n" for i in ch["disconnect"]] + [f"connect {i} {e}\n" for i, e in ch["connect"]]))
    return summ


# ------------------------------------------------------------------ targets and commands

@dataclass
class Target:
    """What to put on the fabric: ``--topology ldi`` (optionally re-embedded
    without failed nodes) or any OCS configuration file."""

    topology: str | None = None
    nodes: int | None = None
    degree: int | None = None
    method: str = "auto"
    failed: list = field(default_factory=list)
    config: str | None = None

    def resolve(self) -> tuple:
        return target_planes(self.topology, self.nodes, self.degree, self.method, self.failed, self.config)


def target_planes(topology: str | None, M: int | None, S: int | None, method: str, failed, config) -> tuple:
    """(planes, topology metadata, schedule) from ``--topology ldi`` (optionally
    re-embedded without failed nodes) or from any OCS configuration file."""
    if config is not None:
        require(topology is None, "give --topology or --config, not both")
        require(not failed and M is None and S is None,
                "--nodes, --degree and --fail go with --topology, not with --config")
        cfg = ocsconfig.read(config)
        return cfg.planes, dict(cfg.topology), cfg.schedule
    require(topology is not None, "give --topology (with its parameters) or --config FILE")
    require(topology == "ldi", f"unknown topology {topology!r}: fabric supports ldi, or any --config file")
    require(M is not None and S is not None, "--topology ldi needs --nodes and --degree")
    from permnet.gen.planes.decompose import ldi_planes
    from permnet.gen.planes.faults import check_failed, reembed_planes
    from permnet.gen.topologies import ldi

    ldi.check_params(M, S)
    topo = {"family": "ldi", "nodes": M, "degree": S, "name": f"LDI({M},{S})"}
    if failed:
        failed = check_failed(M, failed)
        topo["failed"] = ",".join(map(str, failed))
        topo["name"] = f"LDI({M - len(failed)},{S}) re-embedded on LDI({M},{S}) without {failed}"
        return reembed_planes(M, S, failed, method), topo, None
    p = ldi_planes(M, S, method)
    topo["plane_method"] = p.method
    return p.planes, topo, None


def _not_inside(out_dir, path, what: str) -> None:
    """Refuse an output folder that holds an input: it is replaced as a unit."""
    import os

    out, src = Path(os.path.realpath(out_dir)), Path(os.path.realpath(path))
    require(out not in src.parents, f"-o {out_dir} holds {path}, {what}: writing the folder would replace it; "
                                    "write to another folder")


def compile_to_dir(target: Target, inventory, out_dir) -> CompileReport:
    """Compile the target onto the inventory, simulate, write ``out_dir``;
    returns the summary.  With a schedule, the planes are time-multiplexed
    (:mod:`permnet.gen.fabric.tdm`): each slot's state and guard time go
    into ``fabric.json`` and each device file has one section per slot."""
    _not_inside(out_dir, inventory, "its inventory")
    if target.config is not None:
        _not_inside(out_dir, target.config, "its --config file")
    planes, topology, schedule = target.resolve()
    devices = read_inventory(inventory)
    if not schedule:
        return CompileReport(write_fabric(compile_fabric(planes, devices, topology), out_dir))
    from permnet.gen.fabric.tdm import compile_tdm

    slots = compile_tdm(planes, schedule, devices, topology)
    base = slots[0].fabric
    used = base.used.tolist()
    tdm = {"logical_planes": _nulls(planes), "places": int(base.planes.shape[0]),
           "slots": [dict(s.as_dict(), crossconnects={
               base.devices[d].name: [int(e) if e >= 0 else None for e in s.fabric.xc[d]] for d in used})
               for s in slots]}
    summ = write_fabric(base, out_dir, {"tdm": tdm}, None, [s.fabric for s in slots])
    return CompileReport(summ, len(slots), [s.guard_ms for s in slots], [s.devices_switching for s in slots])


def reconfigure_to_dir(fabric_path, target: Target, out_dir) -> ReconfigureReport:
    """Minimal-change reconfiguration of a written fabric; writes the new folder
    with ``changes.json`` and ``changes/<device>.txt`` (disconnects first)."""
    _not_inside(out_dir, fabric_path, "the fabric it reconfigures (the record of what the devices hold)")
    planes, topology, schedule = target.resolve()
    require(not schedule, "reconfigure takes planes without a schedule; compile a schedule afresh")
    old, doc = _load(fabric_path)
    require("tdm" not in doc, f"{fabric_path}: a time-multiplexed fabric; compile the new schedule afresh")
    rec: Reconfiguration = reconfigure(old, planes, topology)
    devs = old.devices
    changes = {"changed": rec.changed, "kept": rec.kept, "from_scratch_changed": rec.from_scratch_changed,
               "devices": {devs[d].name: {
                   "disconnect": [devs[d].ingress_label(i) for i in ch.disconnect],
                   "connect": [[devs[d].ingress_label(i), devs[d].egress_label(e)] for i, e in ch.connect]}
                   for d, ch in rec.changes.items()}}
    return ReconfigureReport(rec, write_fabric(rec.fabric, out_dir, None, changes))
