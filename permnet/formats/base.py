"""One class per OCS file format, and the registry they join.

A format is a subclass of :class:`Format` decorated with :func:`register`:
a ``name``, the file ``extensions`` it owns, its :class:`PortNumbering`,
``render(cfg, device_ports=None) -> str``, ``parse(text, ...) -> Dump`` and
``detect(text) -> float`` (0 = surely not, 1 = surely).  Line-oriented text
formats subclass :class:`LineFormat` and only say how one line reads and how
one plane is written; the header, the ``plane k`` separators, the port
numbering and its range checks are shared.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.formats.model import MAX_PORTS, PLANE_RE, Dump, OcsConfig, header_int, header_text, parse_header
from permnet.gen.errors import PermnetError, require

REGISTRY: dict[str, "Format"] = {}


def register(cls):
    """Class decorator: one instance of ``cls`` joins the registry under ``cls.name``."""
    require(cls.name not in REGISTRY, f"format {cls.name!r} registered twice")
    REGISTRY[cls.name] = cls()
    return cls


@dataclass(frozen=True)
class PortNumbering:
    """How a format writes 0-based plane ports.

    ``base``: the number of the first port (None: the configuration's
    ``index_base``, for the data formats).  ``egress_after_ingress``: egress
    ports continue after the device's ingress ports (Polatis: on a D-port
    device ingress i is port ``i + 1`` and egress e is port ``D + e + 1``);
    otherwise both sides are numbered alike (SONiC ``1A``/``1B``)."""

    base: int | None
    egress_after_ingress: bool = False

    def offset(self, device: int | None) -> int:
        return device if self.egress_after_ingress else 0

    def label(self, port: int, side: str, device: int, base: int) -> int:
        return port + base + (self.offset(device) if side == "egress" else 0)

    def port(self, label: int, side: str, device: int | None, base: int, where: str) -> int:
        """0-based port of a written label, rejected (naming the port) if the device has no such port."""
        off = self.offset(device) if side == "egress" else 0
        if device is not None:
            lo, hi = base + off, base + off + device - 1
            require(lo <= label <= hi,
                    f"{where}: {side} port {label} out of range {lo}..{hi} of a {device}-port device")
        else:
            require(label >= base, f"{where}: {side} port {label} below the first port {base}")
        return label - base - off


class Format:
    """One OCS file format (see the module docstring)."""

    name: str = ""
    extensions: tuple[str, ...] = ()
    numbering = PortNumbering(None)
    per_device = False      # a file is pasted into one switch: one file per plane unless asked
    description = ""

    def render(self, cfg: OcsConfig, device_ports: int | None = None) -> str:
        raise NotImplementedError

    def parse(self, text: str, *, index_base: int | None = None, ports: int | None = None,
              device_ports: int | None = None, name: str = "config") -> Dump:
        raise NotImplementedError

    def detect(self, text: str) -> float:
        return 0.0

    @staticmethod
    def device(cfg: OcsConfig, device_ports: int | None) -> int:
        """The device size to number ports from: the argument, else the configuration's."""
        d = device_ports if device_ports is not None else cfg.device
        require(d >= cfg.ports, f"device_ports={d} is smaller than the plane ({cfg.ports} ports)")
        return d


class LineFormat(Format):
    """A text format of lines: header comment, ``plane k`` comments, one statement a line."""

    comment = "#"             # comment opener; ``comment_close`` closes it (TL1 ``/* */``)
    comment_close = ""
    preamble = ""             # written after the header (a CSV column line)

    # -- rendering
    def comment_line(self, body: str) -> str:
        return f"{self.comment} {body}{(' ' + self.comment_close) if self.comment_close else ''}\n"

    def render(self, cfg: OcsConfig, device_ports: int | None = None) -> str:
        d = self.device(cfg, device_ports)
        if device_ports is not None and device_ports != cfg.device_ports:
            cfg = OcsConfig(cfg.planes, cfg.topology, cfg.index_base, cfg.schedule, device_ports)
        out = [self.comment_line(header_text(cfg))]
        one_switch = "plane" in cfg.topology and len(cfg.planes) == 1
        if one_switch:
            out.append(self.comment_line(
                f"for the switch of plane {cfg.topology['plane']} of {cfg.topology.get('of_planes', '?')} only"))
        out.append(self.preamble)
        base = self.numbering.base if self.numbering.base is not None else cfg.index_base
        for y, row in enumerate(cfg.planes):
            if not one_switch:
                out.append(self.comment_line(f"plane {y}"))
            idx = np.flatnonzero(row >= 0)
            ins = (idx + base).tolist()                                   # numbering.label, vectorised
            outs = (row[idx] + base + self.numbering.offset(d)).tolist()
            out += self.plane_lines(y, list(zip(ins, outs)))
        return "".join(out)

    def plane_lines(self, y: int, pairs: list[tuple[int, int]]) -> list[str]:
        """The statements of plane ``y``, given its (ingress, egress) port labels."""
        raise NotImplementedError

    # -- parsing
    def parse(self, text: str, *, index_base: int | None = None, ports: int | None = None,
              device_ports: int | None = None, name: str = "config") -> Dump:
        meta: dict = {}
        state = {"plane": 0, "marked": False, "name": name}
        raw: list[tuple[int, int, int, str]] = []     # (plane, ingress label, egress label, where)
        dump = Dump(self.name, None, None, [])
        self.check_header_complete(text, name)
        for lineno, line in enumerate(text.splitlines(), 1):
            s = line.strip()
            where = f"{name}:{lineno}"
            if not s:
                continue
            if s.startswith(self.comment):
                body = s[len(self.comment):]
                if self.comment_close and body.endswith(self.comment_close):
                    body = body[: -len(self.comment_close)]
                body = body.strip()
                h = parse_header(body, name)
                if h is not None:
                    meta = h
                    continue
                m = PLANE_RE.match(body)
                if m:
                    state["plane"] = int(m.group(1))
                    state["marked"] = True
                continue
            raw += [(p, i, o, where) for p, i, o in self.line(s, where, state, dump)]
        raw += self.end(state, dump)
        return self.finish(raw, meta, dump, index_base, ports, device_ports, name)

    def check_header_complete(self, text: str, name: str) -> None:
        """A file that ends, without a newline, inside its header line was cut
        short (the writers end every line): refuse it rather than read an
        empty device."""
        if not text or text.endswith(("\n", "\r")):
            return
        last = text.splitlines()[-1].strip()
        marker = f"{self.comment} permnet-ocs-config"
        if last and (marker.startswith(last) or (last.startswith(self.comment) and "permnet-ocs-config" in last)):
            raise PermnetError(f"{name}: truncated: the file ends inside its header line")

    def line(self, s: str, where: str, state: dict, dump: Dump) -> list[tuple[int, int, int]]:
        """(plane, ingress label, egress label) of one statement line (or an error naming the line)."""
        raise NotImplementedError

    def ports_of(self, raw, device, base) -> list[tuple[int, int, int]]:
        """(plane, ingress, egress) 0-based from labelled ``raw``, every port
        range-checked (vectorised; the first bad one is named with its line)."""
        if not raw:
            return []
        lab = np.asarray([(p, i, o) for p, i, o, _ in raw], dtype=np.int64)
        off = self.numbering.offset(device)
        for col, side, shift in ((1, "ingress", 0), (2, "egress", off)):
            lo = base + shift
            ok = lab[:, col] >= lo if device is None else (lab[:, col] >= lo) & (lab[:, col] <= lo + device - 1)
            k = _first_bad(ok)
            if k is not None:        # let the scalar check word the error
                self.numbering.port(int(lab[k, col]), side, device, base, raw[k][3])
            lab[:, col] -= lo
        return list(map(tuple, lab.tolist()))

    def end(self, state: dict, dump: Dump) -> list[tuple[int, int, int, str]]:
        """Cross-connects known only once every line is read (a replayed script), with their lines."""
        return []

    def finish(self, raw, meta, dump: Dump, index_base, ports, device_ports, name) -> Dump:
        """Labels to 0-based ports: the base and the device size from the header, else the caller.

        ``raw`` are the established cross-connects ``(plane, ingress label,
        egress label, where)``; ``dump.not_established`` holds, until now,
        the others as ``(plane, ingress label, egress label, status, where)``."""
        pending = dump.not_established
        n_up = len(raw)
        raw = list(raw) + [(p, i, o, w) for p, i, o, _, w in pending]
        hp = header_int(meta, "ports", name, 1)
        hd = header_int(meta, "device_ports", name, 1)
        hplanes = header_int(meta, "planes", name, 1)
        plane_ports = hp or ports
        device = hd or device_ports or plane_ports
        if self.numbering.base is not None:
            base = self.numbering.base
        elif "index_base" in meta:
            base = header_int(meta, "index_base", name)
            require(base in (0, 1), f"{name}: header index_base={base} must be 0 or 1")
        elif index_base is not None:
            base = index_base
        else:
            base = detect_base([v for _, i, o, _ in raw for v in (i, o)], plane_ports or device, name)
        if self.numbering.egress_after_ingress and raw and device is None:
            raise PermnetError(f"{name}: header-less {self.name} read-back: its egress ports are numbered after "
                               "the device's ingress ports; give the device size (--device-ports N)")
        conns = self.ports_of(raw, device, base)
        if plane_ports is None and conns:
            plane_ports = int(np.max(np.asarray([(i, o) for _, i, o in conns]))) + 1
            require(plane_ports <= MAX_PORTS, f"{name}: port {plane_ports - 1 + base} would make a "
                    f"{plane_ports}-port plane (at most {MAX_PORTS}); wrong file or missing header?")
        dump.ports = plane_ports
        dump.nplanes = hplanes
        dump.connections = conns[:n_up]
        dump.not_established = [(p, i, o, st) for (p, i, o), (_, _, _, st, _) in zip(conns[n_up:], pending)]
        dump.meta = meta
        dump.device_ports = hd or device_ports
        return dump


def _first_bad(ok: np.ndarray) -> int | None:
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if len(bad) else None


def detect_base(labels: list[int], ports: int | None, name: str) -> int:
    """The index base of a header-less file, when the ports tell it unambiguously:
    a port 0 means 0-based; a port equal to the plane (or device) size means
    1-based; otherwise refuse."""
    if not labels:
        return 0
    if 0 in labels:
        return 0
    if ports is not None and ports in labels:
        return 1
    raise PermnetError(f"{name}: no header and no port 0"
                       + ("" if ports is None else f" or port {ports}")
                       + ": cannot tell whether ports count from 0 or 1; give --index-base 0 or 1")
