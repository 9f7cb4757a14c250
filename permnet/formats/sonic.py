"""SONiC optical circuit switches (``config ocs`` / ``show ocs``).

A SONiC OCS has A-side ports ``1A..DA`` (ingress) and B-side ports
``1B..DB`` (egress); a cross-connect is named ``<a>A-<b>B``.  What is read:

* the commands, as written by permnet or typed by an operator (with or
  without ``sudo`` or a shell prompt): ``config ocs cross-connect add
  1A-2B,3A-4B`` (comma batches), ``add 1A..4A-5B..8B`` (ranges, paired in
  order), an optional trailing mode ``update`` (default: a port in use is
  taken over), ``safe`` (the switch refuses the whole command if a port is in
  use) or ``overwrite`` (every existing cross-connect is removed first), and
  ``config ocs cross-connect delete ...``; the lines are replayed in order;
* what the switch prints: ``show ocs cross-connect config`` (columns ``id
  a_side b_side``) and ``show ocs cross-connect status`` (plus
  ``a_side_status b_side_status``, each ``tuned``, ``tuning``, ``blocked``
  or ``failed``).  Only a cross-connect ``tuned`` on every status column is
  established; the others are reported as not established with their status.
  A table is a snapshot: it replaces what the lines before it said (the
  last ``config`` table and the last ``status`` table count).

Port names are read case-insensitively (``1a-2b``) and in either order
(``2B-1A``).  Written: one ``config ocs cross-connect add iA-eB`` per
cross-connect (update mode), ports 1-based, one file per switch.
"""

from __future__ import annotations

import re

from permnet.formats.base import LineFormat, PortNumbering, register
from permnet.gen.errors import PermnetError, require

STATUSES = ("tuned", "tuning", "blocked", "failed")
MODES = ("update", "safe", "overwrite")
_PORT = r"(\d+)([ab])"
XC_RE = re.compile(rf"^{_PORT}-{_PORT}$", re.I)
RANGE_RE = re.compile(rf"^{_PORT}\.\.{_PORT}-{_PORT}\.\.{_PORT}$", re.I)
PORT_RE = re.compile(rf"^{_PORT}$", re.I)
PROMPT_RE = re.compile(r"^[\w.-]+@[\w.-]+(?::[^$#\s]*)?\s*[$#]\s*")
CMD_RE = re.compile(r"^(?:sudo\s+)?config\s+ocs\s+cross-connect\s+(add|delete)\s+(\S+)(?:\s+(\S+))?$", re.I)
SHOW_RE = re.compile(r"^(?:sudo\s+)?show\s+ocs\s+cross-connect(?:\s+(config|status))?\s*$", re.I)
FAST_RE = re.compile(r"^(?:sudo\s+)?config\s+ocs\s+cross-connect\s+add\s+(\d+)[Aa]-(\d+)[Bb](?:\s+update)?$")
HEADER_WORDS = {"id", "a_side", "b_side", "cross-connect", "cross_connect", "cross_connect_id", "status",
                "a_side_status", "b_side_status", "a-side", "b-side", "xc"}
MAX_BATCH = 1 << 20


def cross_connect(tok: str, where: str) -> tuple[int, int]:
    """``1A-2B`` (or ``2b-1a``) to the (A port, B port) numbers."""
    m = XC_RE.match(tok)
    if m is None:
        raise PermnetError(f"{where}: {tok!r} is not a cross-connect like 1A-2B")
    (n1, s1), (n2, s2) = (int(m.group(1)), m.group(2).upper()), (int(m.group(3)), m.group(4).upper())
    if {s1, s2} != {"A", "B"}:
        raise PermnetError(f"{where}: {tok!r} joins two {s1}-side ports; a cross-connect joins "
                           "an A-side port to a B-side port")
    return (n1, n2) if s1 == "A" else (n2, n1)


def expand(spec: str, where: str) -> list[tuple[int, int]]:
    """A comma batch of cross-connects and ranges ``1A..4A-5B..8B`` to (A, B) pairs."""
    out: list[tuple[int, int]] = []
    for item in spec.split(","):
        item = item.strip()
        if not item:
            raise PermnetError(f"{where}: empty cross-connect in {spec!r}")
        m = RANGE_RE.match(item)
        if m:
            a1, sa1, a2, sa2, b1, sb1, b2, sb2 = m.groups()
            sides = [s.upper() for s in (sa1, sa2, sb1, sb2)]
            require(sides[0] == sides[1] and sides[2] == sides[3] and {sides[0], sides[2]} == {"A", "B"},
                    f"{where}: range {item!r} must be like 1A..4A-5B..8B")
            (x1, x2), (y1, y2) = (int(a1), int(a2)), (int(b1), int(b2))
            if sides[0] == "B":
                (x1, x2), (y1, y2) = (y1, y2), (x1, x2)
            require(x1 <= x2 and y1 <= y2 and x2 - x1 == y2 - y1,
                    f"{where}: range {item!r}: both sides must count up by the same number of ports")
            require(x2 - x1 < MAX_BATCH, f"{where}: range {item!r} too long")
            out += [(x1 + k, y1 + k) for k in range(x2 - x1 + 1)]
        else:
            out.append(cross_connect(item, where))
        if len(out) > MAX_BATCH:
            raise PermnetError(f"{where}: more than {MAX_BATCH} cross-connects in one command")
    return out


@register
class Sonic(LineFormat):
    name = "sonic"
    extensions = ("sh", "sonic")
    numbering = PortNumbering(1)
    per_device = True
    description = "`config ocs cross-connect add 2A-4B`; `show ocs cross-connect config/status` tables"

    def plane_lines(self, y, pairs):
        return [f"config ocs cross-connect add {i}A-{e}B\n" for i, e in pairs]

    def _plane(self, state) -> dict:
        planes = state.setdefault("planes", {})
        return planes.setdefault(state["plane"], {"xc": {}, "rev": {}, "where": {}, "status": None, "table": None})

    @staticmethod
    def _connect(pl, a, b, where):
        """``aA-bB`` replaces whatever used port aA or port bB (update mode)."""
        xc, rev = pl["xc"], pl["rev"]
        if a in xc:
            del rev[xc[a]]
        if b in rev:
            del xc[rev[b]]
        xc[a], rev[b] = b, a
        pl["where"][a] = where

    def line(self, s, where, state, dump):
        m = FAST_RE.match(s)
        if m:       # the common single cross-connect, update mode
            pl = state["planes"].get(state["plane"]) if "planes" in state else None
            pl = pl or self._plane(state)
            pl["table"] = None
            self._connect(pl, int(m.group(1)), int(m.group(2)), where)
            return []
        if "@" in s:
            s = PROMPT_RE.sub("", s).strip()
        if not s:
            return []
        pl = self._plane(state)
        if SHOW_RE.match(s):
            pl["table"] = None
            return []
        m = CMD_RE.match(s)
        if m:
            pl["table"] = None
            self._command(m.group(1).lower(), m.group(2), (m.group(3) or "update").lower(), pl, where, dump)
            return []
        toks = s.split()
        low = [t.lower() for t in toks]
        if any(t in HEADER_WORDS for t in low) and not any(PORT_RE.match(t) or XC_RE.match(t) for t in toks):
            # a table is a snapshot of the switch: it replaces what earlier lines said
            pl["table"] = "status" if any("status" in t for t in low) else "config"
            if pl["table"] == "status":
                pl["status"] = {}
            else:
                pl["xc"], pl["rev"], pl["where"] = {}, {}, {}
            return []
        if re.fullmatch(r"[-=+|\s]+", s):
            return []
        require(pl["table"] is not None,
                f"{where}: expected 'config ocs cross-connect add 1A-2B' or a 'show ocs cross-connect' table row, "
                f"got {s!r}")
        self._row(toks, pl, where)
        return []

    def _command(self, verb, spec, mode, pl, where, dump):
        if mode not in MODES:
            raise PermnetError(f"{where}: unknown mode {mode!r} (expected {', '.join(MODES)})")
        pairs = expand(spec, where)
        xc = pl["xc"]
        if verb == "delete":
            for a, b in pairs:
                if xc.get(a) == b:
                    del xc[a], pl["rev"][b]
                else:
                    dump.warnings.append(f"{where}: delete {a}A-{b}B: no such cross-connect")
            return
        if mode == "overwrite":
            xc.clear()
            pl["rev"].clear()
        if mode == "safe":
            busy = [(a, b) for a, b in pairs if xc.get(a, b) != b or pl["rev"].get(b, a) != a]
            if busy:
                dump.warnings.append(f"{where}: safe add refused by the switch: {busy[0][0]}A or {busy[0][1]}B "
                                     "is in use by another cross-connect (command not applied)")
                return
        for a, b in pairs:
            self._connect(pl, a, b, where)

    def _row(self, toks, pl, where):
        xcs = {cross_connect(t, where) for t in toks if XC_RE.match(t)}
        sides = [t.upper() for t in toks if PORT_RE.match(t)]
        if not xcs:
            a = [int(t[:-1]) for t in sides if t.endswith("A")]
            b = [int(t[:-1]) for t in sides if t.endswith("B")]
            require(len(a) == 1 and len(b) == 1, f"{where}: table row {' '.join(toks)!r} names no cross-connect")
            xcs = {(a[0], b[0])}
        else:
            for t in sides:     # a_side/b_side columns must agree with the id
                n, side = int(t[:-1]), t[-1]
                require(any((x if side == "A" else y) == n for x, y in xcs),
                        f"{where}: table row {' '.join(toks)!r}: {t} is not a side of its cross-connect")
        require(len(xcs) == 1, f"{where}: table row {' '.join(toks)!r} names {len(xcs)} cross-connects")
        (a, b), = xcs
        if pl["table"] == "status":
            st = [t.lower() for t in toks if t.lower() in STATUSES]
            pl["status"][(a, b)] = ("/".join(st) if st else "unknown", where)
        else:
            self._connect(pl, a, b, where)

    def end(self, state, dump):
        raw = []
        for y, pl in sorted(state.get("planes", {}).items()):
            if pl["status"] is None:
                raw += [(y, a, b, pl["where"][a]) for a, b in sorted(pl["xc"].items())]
                continue
            for (a, b), (st, where) in sorted(pl["status"].items()):
                if set(st.split("/")) == {"tuned"}:
                    raw.append((y, a, b, where))
                else:
                    dump.not_established.append((y, a, b, st, where))
            for a, b in sorted(pl["xc"].items()):
                if (a, b) not in pl["status"]:
                    dump.not_established.append((y, a, b, "configured, no status", pl["where"][a]))
        return raw

    def detect(self, text):
        t = text.lower()
        if "ocs cross-connect" in t:
            return 0.95
        if "a_side" in t:
            return 0.9
        return 0.6 if re.search(r"(^|\s)\d+[ab]-\d+[ab](\s|,|$)", t, re.M) else 0.0

