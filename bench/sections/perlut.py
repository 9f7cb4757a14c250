"""Throughput per LUT4 (issue 41 item 7): the VC router and the deflection router.

Per configuration: LUT4, FF and Fmax from the router section's synthesis rows
(ECP5-85 speed 6, the project's yowasp flow), read from the rows saved in
bench/results.json (``python bench/run.py --section router`` measures them;
this section does not synthesize), the uniform saturation of the same
configuration in netsim measured now (single-flit packets, the sweep of
:mod:`sections.deflection`), and the throughput per LUT4:

    saturation (flits/node/cycle) x Fmax (cycles/ns) / (LUT4 per node / 1000)

i.e. flits per node per ns per 1,000 LUT4. The VC router rows are synthesized
as node 0 of LDI(16,4) (2 VCs, 4-flit buffers, W = 32, one ejection port, one
injection lane unless --lanes 2) and simulated on LDI(16,4) with the same VCs,
buffers, allocator and link/credit stages; at LDI(64,4) the VC rows are issue 41's
comparison router (3 VCs, the longest route; 4-flit buffers, one ejection port, one
injection lane), synthesized as node 0 of LDI(64,4) and simulated on LDI(64,4), so the
LDI(64,4) ratio compares two measurements at the same network size, with the same
routing (the next-hop unit / the deflection router's constant masks, or both routers
with a loadable route table). Deflection rows: E = 2, W = 32;
``--stages P`` is netsim ``--link-stages P-1``. Network rows: LUT4 per node =
the network's LUT4 / M. If results.json has no measured row for the
deflection LDI(16,4) network on wire planes, the figures measured by
``permnet synth network -M 16 -S 4 --switching deflection --endpoints stream
--flit-width 32 --stages 2`` on 2026-11-28 (commit d982cd1) stand in, and the
last column says so. Published rows are the authors' figures on
other devices, not measurements of ours.

``python bench/run.py --section perlut`` (netsim only, about a minute).
"""

from __future__ import annotations

import json
from pathlib import Path

from sections.deflection import LOADS, WINDOW

RESULTS = Path(__file__).resolve().parent.parent / "results.json"
ROUTER_TITLE = "Router and network IP on ECP5-85"
TARGET = 3.0      # issue 41: throughput per LUT4 >= 3x the VC router's

_VC = dict(vcs=2, buffer=4, packet_size=1, ejection="port", lanes=1)
_STAGED = dict(link_stages=1, credit_stages=1)
_VC64 = dict(_VC, vcs=3, **_STAGED)     # issue 41's VC router at LDI(64,4): 3 VCs, the longest route
# (kind, row-name prefix in the router section, M, nodes (1: a router row), netsim Config keywords)
ROWS = [
    ("VC", "router LDI(16,4) node 0, S=4, 2 VCs, 4 flits, W=32", 16, 1, dict(_VC)),
    ("VC", "the same, --link-stages 1 --credit-stages 1 (", 16, 1, dict(_VC, **_STAGED)),
    ("VC", "the same, --allocator input-first --link-stages 1 --credit-stages 1", 16, 1,
     dict(_VC, **_STAGED, allocator="input-first")),
    ("VC", "the same, --allocator two-stage --link-stages 1 --credit-stages 1", 16, 1,
     dict(_VC, **_STAGED, allocator="two-stage")),
    ("VC", "the same, --allocator separate-va --link-stages 1 --credit-stages 1 (", 16, 1,
     dict(_VC, **_STAGED, allocator="separate-va")),
    ("VC", "the same, --allocator separate-va --link-stages 1 --credit-stages 1 --lanes 2", 16, 1,
     dict(_VC, **_STAGED, allocator="separate-va", lanes=2)),
    ("deflection", "deflection router LDI(64,4) node 0, S=4, W=32, E=2, --stages 1", 64, 1, dict(link_stages=0)),
    ("deflection", "the same, --stages 2", 64, 1, dict(link_stages=1)),
    ("deflection", "the same, --stages 2 --router table", 64, 1, dict(link_stages=1)),
    ("VC", "router LDI(64,4) node 0, S=4, 3 VCs, 4 flits, W=32, --allocator two-stage --link-stages 1 "
     "--credit-stages 1", 64, 1, dict(_VC64, allocator="two-stage")),
    ("VC", "the same, --allocator separate-va --link-stages 1 --credit-stages 1 (", 64, 1,
     dict(_VC64, allocator="separate-va")),
    ("VC", "the same, --allocator two-stage --link-stages 1 --credit-stages 1 --router table", 64, 1,
     dict(_VC64, allocator="two-stage")),
    ("deflection", "deflection router LDI(16,4) node 0, S=4, W=32, E=2, --stages 2", 16, 1, dict(link_stages=1)),
    ("VC", "LDI(16,4) W=32, wire planes, stream endpoints, --link-stages 1 --credit-stages 1, --allocator input-first",
     16, 16, dict(_VC, **_STAGED, allocator="input-first")),
    ("deflection", "deflection LDI(16,4) W=32, wire planes, stream endpoints, E=2, --stages 2", 16, 16,
     dict(link_stages=1)),
]
# figures measured outside the saved router table (see the module docstring): name prefix -> (LUT4, FF, MHz, source)
MEASURED_ELSEWHERE = {
    "deflection LDI(16,4) W=32, wire planes, stream endpoints, E=2, --stages 2":
        (18672, 9479, 60.8, "`permnet synth network -M 16 -S 4 --switching deflection --endpoints stream "
                            "--flit-width 32 --stages 2`, 2026-11-28 (commit d982cd1)"),
}
PUBLISHED = [
    ["Hoplite (Kapre & Gray, FPL 2015): 32-bit bufferless deflection router, unidirectional torus", "published",
     "60 LUT6", "100", "345 (2.9 ns)", "-", "- (LUT6, other device)", "published, other device: Xilinx Virtex-7"],
    ["CHIPPER (Fallin, Craik & Mutlu, HPCA 2011): permutation-network deflection router", "published",
     "ASIC, no LUT figure", "-", "-", "-", "-", "published, other device: ASIC"],
]
HEADERS = ["configuration", "kind", "LUT4 (per node)", "FF", "Fmax (MHz)", "saturation, uniform (flits/node/cycle)",
           "flits/node/ns per 1,000 LUT4", "synthesis figures from"]


def _saved_rows():
    """The router section's saved rows, the 'the same' names kept as saved."""
    try:
        saved = json.loads(RESULTS.read_text())
    except (OSError, ValueError):
        return []
    return next((t["rows"] for t in saved.get("sections", []) if t["title"].startswith(ROUTER_TITLE)), [])


def _synth(prefix, saved, after):
    """(LUT4, FF, MHz, source) of the first saved row after index ``after`` named ``prefix...``, measured."""
    for i, row in enumerate(saved):
        if i > after and row[0].startswith(prefix) and isinstance(row[1], (int, float)) \
                and isinstance(row[4], (int, float)):
            return i, (row[1], row[3], row[4], "results.json, router section")
    if prefix in MEASURED_ELSEWHERE:
        return after, MEASURED_ELSEWHERE[prefix]
    return after, None


_SATURATION: dict = {}     # (M, netsim keywords) -> saturation: rows that differ only in synthesis share a sweep


def _saturation(M, kw):
    key = (M, tuple(sorted(kw.items())))
    if key not in _SATURATION:
        _SATURATION[key] = _sweep(M, kw)
    return _SATURATION[key]


def _sweep(M, kw):
    from permnet.gen.routing import tables
    from permnet.sim import netsim

    net = tables.network("ldi", M, 4)
    extra = dict(switching="deflection", packet_size=1, ejection_width=2) if "vcs" not in kw else {}
    cfg = netsim.Config(**extra, **kw, **WINDOW)
    sw = netsim.sweep(net, netsim.pattern("uniform", M, cfg.seed), netsim.loads(LOADS), cfg, refine=3)
    return sw.saturation or 0.0


def table(args):
    saved = _saved_rows()
    rows, per, at, first = [], {}, -1, ""
    for kind, prefix, M, nodes, kw in ROWS:
        at, synth = _synth(prefix, saved, at if prefix.startswith("the same") else -1)
        if not prefix.startswith("the same"):
            first = prefix.split(", ")[0]
        full = prefix.rstrip(" (").replace("the same", first, 1)    # for the ratio rows
        name = prefix.rstrip(" (") + (f" [LDI({M},4) in netsim" + (f", --link-stages {kw['link_stages']}]"
                                                                  if kind == "deflection" else "]"))
        if synth is None:
            rows.append([name, kind, "-", "-", "-", "-", "-", "not in results.json: run --section router"])
            continue
        luts, ffs, mhz, source = synth
        sat = _saturation(M, kw)
        lut_node = luts / nodes
        tpl = sat * mhz / 1000 / (lut_node / 1000)
        per[full] = (kind, M, nodes, tpl)
        rows.append([name, kind, f"{luts:,}" + (f" ({lut_node:,.0f})" if nodes > 1 else ""), f"{ffs:,}", mhz,
                     f"{sat:.4g}", f"{tpl:.4g}", source])
    rows += PUBLISHED

    def best(kind, nodes, M=None, table=False):
        c = [(v[3], k) for k, v in per.items() if v[0] == kind and v[2] == nodes and (M is None or v[1] == M)
             and ("--router table" in k) == table]
        return max(c) if c else (None, None)

    for label, (d, dn), (v, vn) in (
            ("routers, LDI(16,4): the deflection router / the best VC router", best("deflection", 1, 16),
             best("VC", 1, 16)),
            ("routers, LDI(64,4): the deflection router / the best VC router (3 VCs), both simulated on LDI(64,4)",
             best("deflection", 1, 64), best("VC", 1, 64)),
            ("routers, LDI(64,4), loadable route tables (--router table): deflection / VC (3 VCs)",
             best("deflection", 1, 64, True), best("VC", 1, 64, True)),
            ("networks, LDI(16,4) wire planes: deflection / VC input-first", best("deflection", 16),
             best("VC", 16))):
        if d and v:
            r = d / v
            rows.append([f"ratio, {label} ({dn} / {vn})", "ratio", "-", "-", "-", "-", f"{r:.3g}x",
                         f">= {TARGET:g}x (issue 41): {'met' if r >= TARGET else 'not met'}"])
    return ("Throughput per LUT4, VC and deflection routers (issue 41): saturation x Fmax / (LUT4 per node / 1000); "
            "published rows are other devices", HEADERS, rows)
