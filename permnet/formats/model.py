"""The canonical OCS configuration (:class:`OcsConfig`), what a parser returns
(:class:`Dump`), the checksum and the ``# permnet-ocs-config`` header that
every text format starts with.

A configuration is a stack of *planes*: ``planes[y][i]`` is the 0-based
egress of ingress ``i`` on plane ``y`` (one physical switch), ``-1`` when the
ingress is unconnected, so each row is a partial permutation of
``0..ports-1`` (Melhem, *Low Diameter Interconnections*, eq. (3): one
switching plane per link index).  ``device_ports`` is the size of the switch
the plane is loaded into (``>= ports``); the vendor formats number their
ports from it (a Polatis 192x192 has egress ports 193..384 whatever the plane
size).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.graph.permutations import check_partial_permutation

FORMAT = "permnet-ocs-config"
VERSION = 1
HEADER_RE = re.compile(r"permnet-ocs-config\s+v(\d+)\s*(.*)")
PLANE_RE = re.compile(r"^plane\s+(\d+)\b")
# Header keys that are not topology metadata.
RESERVED = ("ports", "planes", "index_base", "checksum", "device_ports", "schedule")
MAX_PORTS = 1 << 20     # ports per plane or device
MAX_CELLS = 1 << 26     # planes x ports (512 MB of int64)


@dataclass
class OcsConfig:
    """Planes (``planes[y][i]`` = egress of ingress i, -1 unconnected) plus metadata."""

    planes: np.ndarray
    topology: dict = field(default_factory=dict)
    index_base: int = 0
    schedule: list | None = None
    device_ports: int | None = None

    def __post_init__(self):
        self.planes = np.asarray(self.planes, dtype=np.int64)
        require(self.planes.ndim == 2 and self.planes.shape[0] >= 1 and self.planes.shape[1] >= 1,
                "a configuration needs at least one plane of at least one port")
        require(self.index_base in (0, 1), f"index base must be 0 or 1, got {self.index_base}")
        for y, row in enumerate(self.planes):
            check_partial_permutation(row, f"plane {y}")
        if self.device_ports is not None:
            require(isinstance(self.device_ports, (int, np.integer)) and not isinstance(self.device_ports, bool),
                    f"device_ports must be an integer, got {self.device_ports!r}")
            self.device_ports = int(self.device_ports)
            require(self.ports <= self.device_ports <= MAX_PORTS,
                    f"device_ports={self.device_ports}: the device must have between ports={self.ports} "
                    f"and {MAX_PORTS} ports")
        if self.schedule is not None:
            require(isinstance(self.schedule, list), "schedule must be a list of time slots")
            for k, slot in enumerate(self.schedule):
                require(isinstance(slot, dict) and "duration_us" in slot and "planes" in slot,
                        f"schedule slot {k} needs 'duration_us' and 'planes'")
                d = slot["duration_us"]
                require(isinstance(d, (int, float)) and not isinstance(d, bool) and 0 < d < float("inf"),
                        f"schedule slot {k}: duration must be a finite number > 0, got {d!r}")
                require(isinstance(slot["planes"], list), f"schedule slot {k}: 'planes' must be a list")
                for p in slot["planes"]:
                    require(isinstance(p, int) and not isinstance(p, bool) and 0 <= p < self.planes.shape[0],
                            f"schedule slot {k}: plane index {p!r} out of range")

    @property
    def ports(self) -> int:
        """Ports per plane (the topology's node count)."""
        return int(self.planes.shape[1])

    @property
    def device(self) -> int:
        """Ports of the switch the planes are loaded into (``device_ports``, else ``ports``)."""
        return self.device_ports or self.ports

    def crossconnects(self) -> list[tuple[int, int, int]]:
        """All (plane, ingress, egress) triples, 0-based."""
        return [(y, i, int(e)) for y, row in enumerate(self.planes)
                for i, e in enumerate(row) if e >= 0]

    def document(self) -> dict:
        """The canonical JSON document, checksum included."""
        doc = {
            "format": FORMAT,
            "version": VERSION,
            "topology": self.topology,
            "ports": self.ports,
            "index_base": self.index_base,
            "planes": [[int(e) if e >= 0 else None for e in row] for row in self.planes],
        }
        if self.device_ports is not None:
            doc["device_ports"] = self.device_ports
        if self.schedule is not None:
            doc["schedule"] = self.schedule
        doc["checksum"] = checksum(doc)
        return doc

    def plane_config(self, k: int) -> "OcsConfig":
        """Plane ``k`` alone, as the file for its one switch.

        Its topology records ``plane`` = k and ``of_planes``; with a TDM
        schedule it keeps every slot's duration, with ``planes`` ``[0]`` in
        the slots where plane k is active and ``[]`` elsewhere (and records
        ``switch``, the plane's position within its slot)."""
        n = len(self.planes)
        require(0 <= k < n, f"plane {k} out of range 0..{n - 1}")
        topo = {**self.topology, "plane": k, "of_planes": n}
        schedule = None
        if self.schedule is not None:
            schedule = [{"duration_us": s["duration_us"], "planes": [0] if k in s["planes"] else []}
                        for s in self.schedule]
            for s in self.schedule:
                if k in s["planes"]:
                    topo["switch"] = s["planes"].index(k)
                    break
        return OcsConfig(self.planes[k:k + 1].copy(), topo, self.index_base, schedule, self.device_ports)


@dataclass
class Dump:
    """What a file says, before strict validation.

    ``connections`` are ``(plane, ingress, egress)`` with 0-based ports; they
    may reach beyond ``ports`` (a read-back of a device larger than the
    plane) but never beyond the device.  ``not_established`` lists
    cross-connects a switch reports but has not completed (a SONiC status
    other than ``tuned``) as ``(plane, ingress, egress, status)``;
    ``warnings`` are remarks for the operator (a JSON checksum that differs,
    a ``safe`` add the switch would refuse)."""

    fmt: str
    ports: int | None
    nplanes: int | None
    connections: list[tuple[int, int, int]]
    meta: dict = field(default_factory=dict)
    device_ports: int | None = None
    not_established: list = field(default_factory=list)
    warnings: list = field(default_factory=list)

    @property
    def plane(self) -> int | None:
        """The plane a per-switch file says it is for (``plane=k`` in its header)."""
        p = self.meta.get("plane")
        try:
            return None if p is None else int(p)
        except (TypeError, ValueError):
            raise PermnetError(f"header plane={p!r} is not a plane number") from None


def checksum(doc: dict) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces) of every key but ``checksum``."""
    body = {k: v for k, v in doc.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def tdm_schedule(planes: int, switches: int, slot_us: float) -> list[dict]:
    """Time-multiplex ``planes`` logical planes onto ``switches`` physical
    switches: slot k runs planes k*switches .. k*switches+switches-1 (the
    paper's Section 1, time-division multiplexing of a switch)."""
    require(switches >= 1, f"switches must be >= 1, got {switches}")
    require(slot_us > 0, f"slot duration must be > 0 us, got {slot_us}")
    return [{"duration_us": float(slot_us), "planes": list(range(s, min(s + switches, planes)))}
            for s in range(0, planes, switches)]


# ------------------------------------------------------------------ header

def header_value(v) -> str:
    """A metadata value as one space-free token: compact JSON, except plain
    words, which stay bare (``family=ldi``).  Never ``--`` either (the header
    is an XML comment in the netconf format)."""
    if (isinstance(v, str) and re.fullmatch(r"[A-Za-z_][\w.:+-]*", v) and v not in ("true", "false", "null")
            and "--" not in v):
        return v
    # still JSON: spaces and "--" (only ever inside strings) escaped
    return json.dumps(v, separators=(",", ":")).replace(" ", "\\u0020").replace("--", "-\\u002d")


def header_text(cfg: OcsConfig) -> str:
    """``permnet-ocs-config v1 ports=.. planes=.. index_base=.. [device_ports=..]
    checksum=.. [schedule=..] topology...``: everything the JSON document
    holds but the planes, so a text file reads back to the same document
    (the schedule included: a text format never drops it)."""
    doc = cfg.document()
    parts = [f"{FORMAT} v{VERSION}", f"ports={cfg.ports}", f"planes={len(cfg.planes)}",
             f"index_base={cfg.index_base}"]
    if cfg.device_ports is not None:
        parts.append(f"device_ports={cfg.device_ports}")
    parts.append(f"checksum={doc['checksum']}")
    if cfg.schedule is not None:
        parts.append(f"schedule={header_value(cfg.schedule)}")
    parts += [f"{k}={header_value(v)}" for k, v in sorted(cfg.topology.items())]
    return " ".join(parts)


def parse_header(text: str, name: str) -> dict | None:
    """The ``key=value`` pairs of a header comment body, or None if it is not one."""
    m = HEADER_RE.search(text)
    if not m:
        return None
    require(m.group(1) == str(VERSION), f"{name}: unsupported header version v{m.group(1)}")
    return dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)


def header_int(meta: dict, key: str, name: str, lo: int = 0) -> int | None:
    """An integer header field (None if absent), range-checked."""
    if key not in meta:
        return None
    try:
        v = int(meta[key])
    except ValueError:
        raise PermnetError(f"{name}: header {key}={meta[key]!r} is not an integer") from None
    require(lo <= v <= MAX_PORTS, f"{name}: header {key}={v} out of range {lo}..{MAX_PORTS}")
    return v


def typed_topology(meta: dict) -> dict:
    """Header metadata back to typed values (JSON tokens decoded, bare words kept)."""
    out = {}
    for k, v in meta.items():
        if k in RESERVED:
            continue
        try:
            out[k] = json.loads(v)
        except ValueError:
            out[k] = v
    return out


def header_schedule(meta: dict, name: str):
    if "schedule" not in meta:
        return None
    try:
        return json.loads(meta["schedule"])
    except ValueError:
        raise PermnetError(f"{name}: header schedule= is not valid JSON") from None
