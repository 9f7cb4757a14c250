"""The canonical JSON document (schema ``permnet-ocs-config`` version 1).

Read strictly (:func:`config_from_document`) a configuration must carry a
valid checksum; read as a switch read-back (:meth:`Json.parse`) an edited
document is still compared, with a warning that its checksum differs."""

from __future__ import annotations

import json

import numpy as np

from permnet.fileio import dumps_json
from permnet.formats.base import Format, PortNumbering, register
from permnet.formats.model import FORMAT, MAX_PORTS, VERSION, Dump, OcsConfig, checksum
from permnet.gen.errors import PermnetError, require


def parse_json(text: str, name) -> dict:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PermnetError(f"{name}: malformed or truncated JSON at line {exc.lineno} "
                           f"column {exc.colno}: {exc.msg}") from None
    require(isinstance(doc, dict), f"{name}: expected a JSON object")
    return doc


def _fields(doc: dict, name: str):
    """The checked fields of a document (shape and types), checksum not looked at."""
    require(doc.get("format") == FORMAT, f"{name}: not a {FORMAT} document (format={doc.get('format')!r})")
    require(doc.get("version") == VERSION, f"{name}: unsupported version {doc.get('version')!r}")
    for key in ("ports", "planes", "index_base", "checksum"):
        require(key in doc, f"{name}: missing key {key!r}")
    n = doc["ports"]
    require(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_PORTS,
            f"{name}: ports={n!r} must be an integer in 1..{MAX_PORTS}")
    planes = doc["planes"]
    require(isinstance(planes, list) and planes and all(isinstance(r, list) for r in planes),
            f"{name}: 'planes' must be a non-empty list of lists")
    for y, row in enumerate(planes):
        require(len(row) == n, f"{name}: plane {y} has {len(row)} entries, expected ports={n}")
        for i, e in enumerate(row):
            require(e is None or (isinstance(e, int) and not isinstance(e, bool)),
                    f"{name}: plane {y} ingress {i}: {e!r} is not a port")
    topo = doc.get("topology", {})
    require(isinstance(topo, dict), f"{name}: 'topology' must be an object")
    return n, planes, topo


def config_from_document(doc: dict, name: str = "config") -> OcsConfig:
    """Validate a canonical JSON document (checksum included) and build the :class:`OcsConfig`."""
    n, planes, topo = _fields(doc, name)
    require(doc["checksum"] == checksum(doc), f"{name}: checksum mismatch (file edited or damaged)")
    arr = np.array([[-1 if e is None else e for e in row] for row in planes], dtype=np.int64)
    try:
        return OcsConfig(arr, topo, doc["index_base"], doc.get("schedule"), doc.get("device_ports"))
    except PermnetError as exc:
        raise PermnetError(f"{name}: {exc}") from None


@register
class Json(Format):
    name = "json"
    extensions = ("json",)
    numbering = PortNumbering(0)
    description = "the canonical document (`planes[y][i]` = 0-based egress)"

    def render(self, cfg: OcsConfig, device_ports: int | None = None) -> str:
        if device_ports is not None and device_ports != cfg.device_ports:
            self.device(cfg, device_ports)
            cfg = OcsConfig(cfg.planes, cfg.topology, cfg.index_base, cfg.schedule, device_ports)
        return dumps_json(cfg.document())

    def parse(self, text, *, index_base=None, ports=None, device_ports=None, name="config") -> Dump:
        """Leniently: a document whose checksum differs (edited by hand, or a
        switch read-back saved as JSON) is still read, with a warning; its
        planes need not be permutations (the comparison reports conflicts)."""
        doc = parse_json(text, name)
        n, planes, topo = _fields(doc, name)
        warnings = []
        if doc["checksum"] != checksum(doc):
            warnings.append(f"{name}: checksum differs from the content (file edited); comparing what it says")
        dp = doc.get("device_ports")
        require(dp is None or (isinstance(dp, int) and not isinstance(dp, bool) and n <= dp <= MAX_PORTS),
                f"{name}: device_ports={dp!r} must be an integer in {n}..{MAX_PORTS}")
        device = dp or device_ports or n
        conns = []
        for y, row in enumerate(planes):
            for i, e in enumerate(row):
                if e is not None:
                    require(0 <= e < device, f"{name}: plane {y} ingress {i}: egress {e} out of range "
                            f"0..{device - 1} of a {device}-port device")
                    conns.append((y, i, e))
        meta = {"topology": topo}
        if "plane" in topo:
            meta["plane"] = topo["plane"]
        return Dump("json", n, len(planes), conns, meta, dp or device_ports, warnings=warnings)

    def detect(self, text):
        return 1.0 if text.lstrip().startswith("{") else 0.0
