"""The data formats: ``csv`` rows ``plane,ingress,egress`` and ``pairs``
lines ``ingress egress``, ports numbered from the configuration's
``index_base`` (0 or 1).  A header-less file must say its base: given
(``--index-base``) or told by its ports (a 0, or a port equal to the size)."""

from __future__ import annotations

import re

from permnet.formats.base import LineFormat, PortNumbering, register
from permnet.gen.errors import PermnetError


def _int(tok: str, where: str) -> int:
    try:
        return int(tok)
    except ValueError:
        raise PermnetError(f"{where}: {tok!r} is not a port number") from None


@register
class Csv(LineFormat):
    name = "csv"
    extensions = ("csv",)
    numbering = PortNumbering(None)
    preamble = "plane,ingress,egress\n"
    description = "`0,1,3` (plane, ingress, egress)"

    def plane_lines(self, y, pairs):
        return [f"{y},{i},{e}\n" for i, e in pairs]

    def line(self, s, where, state, dump):
        parts = [p.strip() for p in s.split(",")]
        if parts[0].lower() == "plane":
            return []
        if len(parts) != 3:
            raise PermnetError(f"{where}: expected 'plane,ingress,egress', got {s!r}")
        return [(_int(parts[0], where), _int(parts[1], where), _int(parts[2], where))]

    def detect(self, text):
        body = _body(text)
        return 0.8 if body and re.fullmatch(r"(plane\s*,.*|\s*\d+\s*,\s*\d+\s*,\s*\d+\s*)", body[0], re.I) else 0.0


@register
class Pairs(LineFormat):
    name = "pairs"
    extensions = ("txt", "pairs")
    numbering = PortNumbering(None)
    description = "`1 3` (ingress egress)"

    def plane_lines(self, y, pairs):
        return [f"{i} {e}\n" for i, e in pairs]

    def line(self, s, where, state, dump):
        parts = s.split()
        if len(parts) != 2:
            raise PermnetError(f"{where}: expected 'ingress egress', got {s!r}")
        return [(state["plane"], _int(parts[0], where), _int(parts[1], where))]

    def detect(self, text):
        body = _body(text)
        if not body:
            return 0.1      # an empty file is read as an empty pairs list (and refused as such)
        return 0.7 if re.fullmatch(r"\d+\s+\d+", body[0]) else 0.0


def _body(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
