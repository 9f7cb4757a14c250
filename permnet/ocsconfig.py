"""Switch configuration files for optical circuit switches (OCS).

One canonical document, :class:`OcsConfig`, and renderers/parsers for the
formats a switch operator pastes.  Every format reads back to the same
planes (``tests/test_ocsconfig.py``).

Canonical JSON, schema ``permnet-ocs-config`` version 1::

    {
      "format": "permnet-ocs-config", "version": 1,
      "topology": {"family": "ldi", "nodes": 9, "degree": 3, "plane_method": "residue"},
      "ports": 9,                 # ports per switching plane (N)
      "index_base": 0,            # port numbering of the csv/pairs renderings
      "planes": [[0, 3, 6, ...], ...],   # planes[y][i]: 0-based egress of ingress i,
                                         # null where ingress i is unconnected
      "schedule": [               # optional: time-division multiplexing
        {"duration_us": 100.0, "planes": [0, 1]}, ...   # plane indices active per slot
      ],
      "checksum": "sha256:..."    # over the canonical JSON of all other keys
    }

Text renderings (all start with a ``# permnet-ocs-config v1 ...`` header
that records ports, plane count and index base; ``# plane k`` lines
separate the planes, which are the physical switches):

* ``csv``: ``plane,ingress,egress`` rows (ports in ``index_base``).
* ``pairs``: ``ingress egress`` lines (ports in ``index_base``).
* ``polatis``: one Polatis-style SCPI line per plane,
  ``:oxc:swit:conn:only (@i1,i2,...),(@e1,e2,...)`` with 1-based ingress
  ports and egress ports offset by N (egress k is port N+k+1).
* ``sonic``: a SONiC-style script, ``config ocs cross-connect add iA-eB``
  per connection, 1-based ports (``A`` ingress side, ``B`` egress side).

A read-back dump from a switch may lack the header; the parsers then take
the ports from the largest port seen and the base from the format's
convention (0 for csv/pairs unless told, 1 for polatis/sonic).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.fileio import atomic_write, dumps_json, read_text

FORMAT = "permnet-ocs-config"
VERSION = 1
FORMATS = ("json", "csv", "pairs", "polatis", "sonic")
_HEADER_RE = re.compile(r"#\s*permnet-ocs-config\s+v(\d+)\s+(.*)")
_PLANE_RE = re.compile(r"#\s*plane\s+(\d+)")


@dataclass
class OcsConfig:
    """Planes (``planes[y][i]`` = egress of ingress i, -1 unconnected) plus metadata."""

    planes: np.ndarray
    topology: dict = field(default_factory=dict)
    index_base: int = 0
    schedule: list | None = None

    def __post_init__(self):
        self.planes = np.asarray(self.planes, dtype=np.int64)
        require(self.planes.ndim == 2 and self.planes.shape[0] >= 1 and self.planes.shape[1] >= 1,
                "a configuration needs at least one plane of at least one port")
        require(self.index_base in (0, 1), f"index base must be 0 or 1, got {self.index_base}")
        for y, row in enumerate(self.planes):
            check_partial_permutation(row, f"plane {y}")
        if self.schedule is not None:
            for k, slot in enumerate(self.schedule):
                require(isinstance(slot, dict) and "duration_us" in slot and "planes" in slot,
                        f"schedule slot {k} needs 'duration_us' and 'planes'")
                require(float(slot["duration_us"]) > 0, f"schedule slot {k}: duration must be > 0")
                for p in slot["planes"]:
                    require(isinstance(p, int) and 0 <= p < self.planes.shape[0],
                            f"schedule slot {k}: plane index {p} out of range")

    @property
    def ports(self) -> int:
        return int(self.planes.shape[1])

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
        if self.schedule is not None:
            doc["schedule"] = self.schedule
        doc["checksum"] = checksum(doc)
        return doc


def check_partial_permutation(row, what: str) -> None:
    """Entries are -1 or distinct ports in 0..len(row)-1."""
    row = np.asarray(row)
    n = len(row)
    for i, e in enumerate(row):
        require(-1 <= e < n, f"{what}: ingress {i} -> egress {e} out of range 0..{n - 1}")
    used = row[row >= 0]
    if len(np.unique(used)) != len(used):
        vals, counts = np.unique(used, return_counts=True)
        raise PermnetError(f"{what} is not a permutation: egress {int(vals[counts > 1][0])} is used twice")


def checksum(doc: dict) -> str:
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


# ----------------------------------------------------------------- rendering

def _header_value(v) -> str:
    """A metadata value as one space-free token: compact JSON, except plain
    words, which stay bare (``family=ldi``)."""
    if isinstance(v, str) and re.fullmatch(r"[A-Za-z_][\w.:+-]*", v) and v not in ("true", "false", "null"):
        return v
    return json.dumps(v, separators=(",", ":")).replace(" ", "\\u0020")   # still JSON, no spaces


def _header(cfg: OcsConfig) -> str:
    # Text renderings carry no schedule, so their checksum covers the rest.
    bare = OcsConfig(cfg.planes, cfg.topology, cfg.index_base)
    topo = " ".join(f"{k}={_header_value(v)}" for k, v in sorted(cfg.topology.items()))
    return (f"# {FORMAT} v{VERSION} ports={cfg.ports} planes={len(cfg.planes)} "
            f"index_base={cfg.index_base} checksum={bare.document()['checksum']} {topo}").rstrip() + "\n"


def render(cfg: OcsConfig, fmt: str) -> str:
    """Render ``cfg`` in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "json":
        return dumps_json(cfg.document())
    require(fmt in FORMATS, f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    base = cfg.index_base if fmt in ("csv", "pairs") else 1
    n = cfg.ports
    out = [_header(cfg)]
    if fmt == "csv":
        out.append("plane,ingress,egress\n")
    for y, row in enumerate(cfg.planes):
        out.append(f"# plane {y}\n")
        conns = [(i, int(e)) for i, e in enumerate(row) if e >= 0]
        if fmt == "csv":
            out += [f"{y},{i + base},{e + base}\n" for i, e in conns]
        elif fmt == "pairs":
            out += [f"{i + base} {e + base}\n" for i, e in conns]
        elif fmt == "polatis":
            ins = ",".join(str(i + 1) for i, _ in conns)
            outs = ",".join(str(n + e + 1) for _, e in conns)
            out.append(f":oxc:swit:conn:only (@{ins}),(@{outs})\n")
        else:  # sonic
            out += [f"config ocs cross-connect add {i + 1}A-{e + 1}B\n" for i, e in conns]
    return "".join(out)


def write(cfg: OcsConfig, path, fmt: str | None = None) -> Path:
    """Atomically write ``cfg``; the format defaults from the file extension."""
    fmt = fmt or format_from_path(path)
    return atomic_write(path, render(cfg, fmt))


def format_from_path(path) -> str:
    ext = Path(path).suffix.lower().lstrip(".")
    mapping = {"json": "json", "csv": "csv", "txt": "pairs", "pairs": "pairs",
               "scpi": "polatis", "polatis": "polatis", "sh": "sonic", "sonic": "sonic"}
    return mapping.get(ext, "json")


# ------------------------------------------------------------------- parsing

@dataclass
class Dump:
    """What a file says, before any validation: raw cross-connects (0-based)."""

    fmt: str
    ports: int | None
    nplanes: int | None
    connections: list[tuple[int, int, int]]  # (plane, ingress, egress)
    meta: dict = field(default_factory=dict)


def detect_format(text: str) -> str:
    body = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if text.lstrip().startswith("{"):
        return "json"
    if not body:
        return "pairs"
    first = body[0].lower()
    if first.startswith(":oxc") or first.startswith("(@"):
        return "polatis"
    if first.startswith("config ocs"):
        return "sonic"
    if "," in first:
        return "csv"
    return "pairs"


def _int(tok: str, where: str) -> int:
    try:
        return int(tok)
    except ValueError:
        raise PermnetError(f"{where}: {tok!r} is not a port number") from None


def parse_text(text: str, fmt: str | None = None, index_base: int | None = None,
               name: str = "config", ports: int | None = None) -> Dump:
    """Parse a text rendering or a switch read-back dump into raw cross-connects."""
    fmt = fmt or detect_format(text)
    require(fmt in FORMATS and fmt != "json", f"{name}: not a text format: {fmt}")
    meta: dict = {}
    plane = 0
    seen_plane_marker = False
    raw: list[tuple[int, int, int]] = []  # 1- or 0-based as written
    polatis_lines = 0
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        where = f"{name}:{lineno}"
        if not s:
            continue
        if s.startswith("#"):
            m = _HEADER_RE.match(s)
            if m:
                meta = dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
                continue
            m = _PLANE_RE.match(s)
            if m:
                plane = int(m.group(1))
                seen_plane_marker = True
            continue
        if fmt == "csv":
            parts = [p.strip() for p in s.split(",")]
            if parts[0].lower() == "plane":
                continue
            require(len(parts) == 3, f"{where}: expected 'plane,ingress,egress', got {s!r}")
            raw.append((_int(parts[0], where), _int(parts[1], where), _int(parts[2], where)))
        elif fmt == "pairs":
            parts = s.split()
            require(len(parts) == 2, f"{where}: expected 'ingress egress', got {s!r}")
            raw.append((plane, _int(parts[0], where), _int(parts[1], where)))
        elif fmt == "polatis":
            m = re.search(r"\(@([\d,\s]*)\)\s*,\s*\(@([\d,\s]*)\)", s)
            require(m is not None, f"{where}: expected ':oxc:swit:conn:only (@...),(@...)', got {s!r}")
            ins = [_int(t, where) for t in m.group(1).replace(" ", "").split(",") if t]
            outs = [_int(t, where) for t in m.group(2).replace(" ", "").split(",") if t]
            require(len(ins) == len(outs),
                    f"{where}: {len(ins)} ingress ports but {len(outs)} egress ports")
            p = plane if seen_plane_marker else polatis_lines
            raw += [(p, i, o) for i, o in zip(ins, outs)]
            polatis_lines += 1
        else:  # sonic
            m = re.fullmatch(r"(?:sudo\s+)?config\s+ocs\s+cross-connect\s+add\s+(\d+)A-(\d+)B", s)
            require(m is not None, f"{where}: expected 'config ocs cross-connect add iA-eB', got {s!r}")
            raw.append((plane, int(m.group(1)), int(m.group(2))))
    ports = int(meta["ports"]) if "ports" in meta else ports
    nplanes = int(meta["planes"]) if "planes" in meta else None
    if fmt in ("polatis", "sonic"):
        base = 1
    elif "index_base" in meta:
        base = int(meta["index_base"])
    else:
        base = 0 if index_base is None else index_base
    conns = []
    if fmt == "polatis":
        if ports is None:
            # Without a header, N is half the largest egress port.
            ports = max((o for _, _, o in raw), default=0) // 2 or None
        for p, i, o in raw:
            conns.append((p, i - 1, o - 1 - (ports or 0)))
    else:
        conns = [(p, i - base, o - base) for p, i, o in raw]
    if ports is None and conns:
        ports = max(max(i, o) for _, i, o in conns) + 1
    return Dump(fmt, ports, nplanes, conns, meta)


def read_dump(path, fmt: str | None = None, index_base: int | None = None,
              ports: int | None = None) -> Dump:
    """Read any supported file leniently (for comparing a switch read-back)."""
    text = read_text(path)
    fmt = fmt or (format_from_path(path) if Path(path).suffix.lower() == ".json"
                  else detect_format(text))
    if fmt == "json":
        cfg = config_from_document(_parse_json(text, path), str(path))
        return Dump("json", cfg.ports, len(cfg.planes), cfg.crossconnects(), {"topology": cfg.topology})
    return parse_text(text, fmt, index_base, str(path), ports)


def _parse_json(text: str, name) -> dict:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PermnetError(f"{name}: malformed or truncated JSON at line {exc.lineno} "
                           f"column {exc.colno}: {exc.msg}") from None
    require(isinstance(doc, dict), f"{name}: expected a JSON object")
    return doc


def config_from_document(doc: dict, name: str = "config") -> OcsConfig:
    """Validate a canonical JSON document and build the :class:`OcsConfig`."""
    require(doc.get("format") == FORMAT, f"{name}: not a {FORMAT} document (format={doc.get('format')!r})")
    require(doc.get("version") == VERSION, f"{name}: unsupported version {doc.get('version')!r}")
    for key in ("ports", "planes", "index_base", "checksum"):
        require(key in doc, f"{name}: missing key {key!r}")
    require(doc["checksum"] == checksum(doc), f"{name}: checksum mismatch (file edited or damaged)")
    planes = doc["planes"]
    require(isinstance(planes, list) and planes and all(isinstance(r, list) for r in planes),
            f"{name}: 'planes' must be a non-empty list of lists")
    n = doc["ports"]
    for y, row in enumerate(planes):
        require(len(row) == n, f"{name}: plane {y} has {len(row)} entries, expected ports={n}")
        for i, e in enumerate(row):
            require(e is None or (isinstance(e, int) and not isinstance(e, bool)),
                    f"{name}: plane {y} ingress {i}: {e!r} is not a port")
    arr = np.array([[-1 if e is None else e for e in row] for row in planes], dtype=np.int64)
    try:
        return OcsConfig(arr, doc.get("topology", {}), doc["index_base"], doc.get("schedule"))
    except PermnetError as exc:
        raise PermnetError(f"{name}: {exc}") from None


def config_from_dump(dump: Dump, name: str = "config") -> OcsConfig:
    """Strictly turn raw cross-connects into planes (errors on conflicts)."""
    require(dump.connections or dump.ports, f"{name}: no cross-connects found (empty or truncated?)")
    n = dump.ports or 0
    nplanes = dump.nplanes or (max(p for p, _, _ in dump.connections) + 1)
    planes = np.full((nplanes, n), -1, dtype=np.int64)
    for p, i, o in dump.connections:
        require(0 <= p < nplanes, f"{name}: plane {p} out of range 0..{nplanes - 1}")
        require(0 <= i < n and 0 <= o < n, f"{name}: plane {p}: connection {i}->{o} outside ports 0..{n - 1}")
        require(planes[p, i] in (-1, o), f"{name}: plane {p}: ingress {i} connected twice")
        planes[p, i] = o
    topo = _typed_topology(dump.meta)
    base = int(dump.meta.get("index_base", 0))
    try:
        return OcsConfig(planes, topo, base)
    except PermnetError as exc:
        raise PermnetError(f"{name}: {exc}") from None


def read(path, fmt: str | None = None, index_base: int | None = None) -> OcsConfig:
    """Read a configuration file in any format, strictly."""
    text = read_text(path)
    fmt = fmt or ("json" if text.lstrip().startswith("{") or Path(path).suffix.lower() == ".json"
                  else detect_format(text))
    if fmt == "json":
        return config_from_document(_parse_json(text, path), str(path))
    dump = parse_text(text, fmt, index_base, str(path))
    cfg = config_from_dump(dump, str(path))
    if "checksum" in dump.meta:
        cfg.topology = _typed_topology(dump.meta)
        if cfg.document()["checksum"] != dump.meta["checksum"]:
            # The header records the checksum of the full configuration: a
            # mismatch means lines were lost or edited.
            raise PermnetError(f"{path}: content does not match the header checksum "
                               "(file truncated or edited)")
    return cfg


def _typed_topology(meta: dict) -> dict:
    skip = {"ports", "planes", "index_base", "checksum"}
    out = {}
    for k, v in meta.items():
        if k in skip:
            continue
        try:
            out[k] = json.loads(v)
        except ValueError:
            out[k] = v
    return out
