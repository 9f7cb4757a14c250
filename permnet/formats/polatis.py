"""Polatis switches, three ways in: SCPI, TL1 and NETCONF.

All three number ports the Polatis way: on a D-port device (D x D) ingress
port i (0-based) is ``i + 1`` and egress port e is ``D + e + 1`` (a 192x192
switch has ingress 1..192 and egress 193..384), so a configuration is
rendered for the device it is loaded into (``device_ports``), not for the
plane size.

* ``polatis``: ``:oxc:swit:conn:only (@1,2,...),(@193,195,...)`` sets the
  whole switch (the read-back ``:oxc:swit:conn:stat?`` answers the bare
  ``(@...),(@...)`` lists; ``a:b`` ranges are read too).
* ``tl1``: one ``ENT-PATCH::i,e:ctag;`` per cross-connect (``&`` lists and
  ``&&`` ranges read too), and the quoted ``"i,e"`` lines of a
  ``RTRV-PATCH`` response (``"i,e:STATUS=TUNING"`` lines of ``RTRV-CRS``
  are not established).
* ``netconf``: an ``<edit-config>`` payload, ``<cross-connects>`` of
  ``<pair><ingress/><egress/></pair>`` in the namespace
  ``http://www.polatis.com/yang/optical-switch`` (one document per switch).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from permnet.formats.base import Format, LineFormat, PortNumbering, register
from permnet.formats.model import Dump, OcsConfig, header_text, parse_header
from permnet.gen.errors import PermnetError, require

POLATIS = PortNumbering(1, egress_after_ingress=True)
NS = "http://www.polatis.com/yang/optical-switch"
NETCONF_NS = "urn:ietf:params:xml:ns:netconf:base:1.0"
MAX_LIST = 1 << 20


def _int(tok: str, where: str) -> int:
    try:
        return int(tok)
    except ValueError:
        raise PermnetError(f"{where}: {tok!r} is not a port number") from None


def _ports(text: str, where: str, sep: str, rng: str) -> list[int]:
    """``1,2,5:8`` (SCPI) or ``1&2&5&&8`` (TL1) to a list of port numbers."""
    out: list[int] = []
    for tok in (t.strip() for t in text.split(sep)):
        if not tok:
            continue
        if rng in tok:
            a, b = (_int(t.strip(), where) for t in tok.split(rng, 1))
            require(a <= b and b - a < MAX_LIST, f"{where}: bad port range {tok!r}")
            out += range(a, b + 1)
        else:
            out.append(_int(tok, where))
        if len(out) > MAX_LIST:
            raise PermnetError(f"{where}: more than {MAX_LIST} ports")
    return out


@register
class Polatis(LineFormat):
    name = "polatis"
    extensions = ("scpi", "polatis")
    numbering = POLATIS
    per_device = True
    description = "`:oxc:swit:conn:only (@1,2,...,9),(@10,13,...,17)`"
    _RE = re.compile(r"^(?:(:?oxc:swit:conn:(only|add))\s*)?\(@([\d,:\s]*)\)\s*,\s*\(@([\d,:\s]*)\)$", re.I)

    def plane_lines(self, y, pairs):
        ins = ",".join(str(i) for i, _ in pairs)
        outs = ",".join(str(e) for _, e in pairs)
        return [f":oxc:swit:conn:only (@{ins}),(@{outs})\n"]

    def line(self, s, where, state, dump):
        m = self._RE.match(s)
        require(m is not None, f"{where}: expected ':oxc:swit:conn:only (@...),(@...)', got {s!r}")
        ins = _ports(m.group(3), where, ",", ":")
        outs = _ports(m.group(4), where, ",", ":")
        if len(ins) != len(outs):
            raise PermnetError(f"{where}: {len(ins)} ingress ports but {len(outs)} egress ports")
        if (m.group(2) or "only").lower() == "only" and not state["marked"]:
            # each ``only`` (or read-back) line without plane markers is one switch
            state["plane"] = state.setdefault("lines", -1) + 1
            state["lines"] = state["plane"]
        return [(state["plane"], i, o) for i, o in zip(ins, outs)]

    def detect(self, text):
        body = _body(text, "#")
        return 0.95 if body and (body[0].lower().startswith(":oxc") or body[0].startswith("(@")) else 0.0


@register
class Tl1(LineFormat):
    name = "tl1"
    extensions = ("tl1",)
    numbering = POLATIS
    per_device = True
    comment = "/*"
    comment_close = "*/"
    description = "`ENT-PATCH::1,10:1;`"
    _ENT = re.compile(r"^ENT-PATCH:[^:]*:([\d&\s]+),([\d&\s]+)(?::[^;]*)?;?$", re.I)
    _QUOTED = re.compile(r'^"\s*(\d+)\s*,\s*(\d+)\s*(?::([^"]*))?"\s*,?$')
    # response framing: terminator, prompt, "M ctag COMPLD", "SID date time", the command echo
    _FRAMING = re.compile(r"^(;|>|<|M\s+\S+\s+COMPLD|\S+\s+\d{2,4}-\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2}"
                          r"|RTRV-(?:PATCH|CRS):.*;?)$", re.I)

    def plane_lines(self, y, pairs):
        return [f"ENT-PATCH::{i},{e}:{k + 1};\n" for k, (i, e) in enumerate(pairs)]

    _FAST = re.compile(r"^ENT-PATCH::(\d+),(\d+):\w*;$")

    def line(self, s, where, state, dump):
        m = self._FAST.match(s)
        if m:       # one cross-connect, as written here
            return [(state["plane"], int(m.group(1)), int(m.group(2)))]
        m = self._ENT.match(s)
        if m:
            ins = _tl1_range(m.group(1), where)
            outs = _tl1_range(m.group(2), where)
            if len(ins) != len(outs):
                raise PermnetError(f"{where}: {len(ins)} ingress ports but {len(outs)} egress ports")
            return [(state["plane"], i, o) for i, o in zip(ins, outs)]
        m = self._QUOTED.match(s)
        if m:
            st = re.search(r"STATUS=(\w+)", m.group(3) or "", re.I)
            if st and st.group(1).upper() != "ESTABLISHED":     # RTRV-CRS: still settling
                dump.not_established.append((state["plane"], int(m.group(1)), int(m.group(2)),
                                             st.group(1).lower(), where))
                return []
            return [(state["plane"], int(m.group(1)), int(m.group(2)))]
        require(self._FRAMING.match(s) is not None,
                f"{where}: expected 'ENT-PATCH::ingress,egress:ctag;' or a RTRV-PATCH line, got {s!r}")
        return []

    def detect(self, text):
        t = text.upper()
        return 0.95 if "ENT-PATCH" in t or "RTRV-PATCH" in t or "RTRV-CRS" in t or "COMPLD" in t else 0.0


def _tl1_range(text: str, where: str) -> list[int]:
    """TL1 AID lists: ``1&2&5`` and ranges ``5&&8``."""
    parts = re.split(r"(&&|&)", text.replace(" ", ""))
    items, ops = parts[0::2], parts[1::2]
    if not all(items):
        raise PermnetError(f"{where}: bad port list {text!r}")
    vals = [_int(t, where) for t in items]
    out = [vals[0]]
    for op, v in zip(ops, vals[1:]):
        if op == "&&":
            if not (out[-1] <= v and v - out[-1] < MAX_LIST):
                raise PermnetError(f"{where}: bad port range in {text!r}")
            out += range(out[-1] + 1, v + 1)
        else:
            out.append(v)
        if len(out) > MAX_LIST:
            raise PermnetError(f"{where}: more than {MAX_LIST} ports")
    return out


@register
class Netconf(Format):
    ports_of = LineFormat.ports_of
    name = "netconf"
    extensions = ("xml",)
    numbering = POLATIS
    per_device = True
    description = "`<pair><ingress>1</ingress><egress>10</egress></pair>`"

    def render(self, cfg: OcsConfig, device_ports: int | None = None) -> str:
        require(len(cfg.planes) == 1, f"netconf: one document per switch, but {len(cfg.planes)} planes given "
                "(write one file per plane: drop --single-file)")
        d = self.device(cfg, device_ports)
        if device_ports is not None and device_ports != cfg.device_ports:
            cfg = OcsConfig(cfg.planes, cfg.topology, cfg.index_base, cfg.schedule, device_ports)
        head = header_text(cfg)
        out = ['<?xml version="1.0" encoding="UTF-8"?>\n', f"<!-- {head} -->\n"]
        if "plane" in cfg.topology:
            out.append(f"<!-- for the switch of plane {cfg.topology['plane']} of "
                       f"{cfg.topology.get('of_planes', '?')} only -->\n")
        out += [f'<config xmlns="{NETCONF_NS}">\n', f'  <cross-connects xmlns="{NS}">\n']
        row = cfg.planes[0]
        for i in range(len(row)):
            if row[i] >= 0:
                out.append(f"    <pair><ingress>{POLATIS.label(i, 'ingress', d, 1)}</ingress>"
                           f"<egress>{POLATIS.label(int(row[i]), 'egress', d, 1)}</egress></pair>\n")
        out += ["  </cross-connects>\n", "</config>\n"]
        return "".join(out)

    def parse(self, text, *, index_base=None, ports=None, device_ports=None, name="config") -> Dump:
        require("<!DOCTYPE" not in text and "<!ENTITY" not in text, f"{name}: DTDs and entities are not accepted")
        try:
            root = ET.fromstring(text)
        except ET.ParseError as exc:
            raise PermnetError(f"{name}: malformed XML: {exc}") from None
        meta: dict = {}
        for body in re.findall(r"<!--(.*?)-->", text, re.S):
            h = parse_header(body, name)
            if h is not None:
                meta = h
                break
        raw = []
        plane = -1
        for el in root.iter():
            if _local(el.tag) == "cross-connects":
                require(_ns(el.tag) in (NS, ""), f"{name}: <cross-connects> in namespace {_ns(el.tag)!r}, "
                        f"expected {NS}")
                plane += 1
                for k, pair in enumerate(c for c in el if _local(c.tag) == "pair"):
                    where = f"{name}: cross-connect {k + 1}"
                    vals = {}
                    for side in ("ingress", "egress"):
                        found = [c for c in pair if _local(c.tag) == side]
                        require(len(found) == 1, f"{where}: expected one <{side}>")
                        vals[side] = _int((found[0].text or "").strip(), where)
                    raw.append((plane, vals["ingress"], vals["egress"], where))
        dump = Dump(self.name, None, None, [])
        return LineFormat.finish(self, raw, meta, dump, index_base, ports, device_ports, name)

    def detect(self, text):
        return 0.95 if "<cross-connects" in text or (text.lstrip().startswith("<") and NS in text) else 0.0


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _ns(tag) -> str:
    return tag[1:].split("}", 1)[0] if isinstance(tag, str) and tag.startswith("{") else ""


def _body(text: str, comment: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(comment)]

