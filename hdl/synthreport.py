"""Where a synthesized design's LUTs go and what its critical path runs through.

Two readings of the files :func:`permnet.hdl.synth.synthesize` already has, for the question
an FPGA engineer asks after "how big, how fast": *which part* is big, *which path* is slow.

:func:`lut_breakdown` reads yosys's mapped netlist (``write_json``, ECP5 or iCE40 cells). The design is
flat after synthesis and ABC names its LUTs after nets, so a LUT is charged to what it
computes: the registers its output reaches through combinational cells (``LUT4``, ``PFUMX``,
``L6MUX21``, ``CCU2C``; its *forward cone*). A LUT that reaches k register groups is charged
1/k to each, so the shares add up to the design's LUT4 sites. A register is placed by the
line of Python that creates its signal (the flip-flop's ``src`` attribute, which yosys keeps
through mapping; a port's is its component's ``super().__init__``; a RAM cell has none and
goes to the file of most flip-flops of its module), and named as yosys names it: ``<signal>_TRELLIS_FF_Q[_<bit>]``, the signal being one
of the names its net has, with Amaranth's hierarchy as a dotted prefix. The name may be an
alias from the other side of a port (a plane's output register named after the router input
it drives); the line is where it is. A group is a name with every number replaced by ``#`` at
one line, so a router's 8 owner bits are one group ``own#``, the 16 routers' ``ip.router#.own#``.
Sites are counted as :mod:`permnet.hdl.synth` counts them: a ``LUT4`` is 1, a ``CCU2C`` 2, a
``TRELLIS_DPR16X4`` 6 (charged to the RAM itself, and so is the logic that computes its
write port and read addresses); on iCE40 an ``SB_LUT4`` is 1. The flip-flops outside the
module under test are :class:`permnet.hdl.synth.RegisteredIO`'s chains: the logic that
reaches them is the module's output logic, reported as ``(outputs)``, less the chain's one LUT
per output bit.

:func:`critical_path` reads nextpnr's log: the last "Critical path report for clock" section
(the one after routing), its logic and routing delays, the registers at its two ends and the
lines of Python (Amaranth's ``src`` attributes, which nextpnr prints as "Defined in") that
its nets were built by.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

# per target: the combinational cells and their output ports (a cone runs through them), the
# LUT4 sites a cell takes (permnet.hdl.synth's count) and the ports by which a sequential cell
# (a flip-flop or a RAM, the cone's end) reads logic
CELLS = {
    "ecp5": {"comb": {"LUT4": ("Z",), "PFUMX": ("Z",), "L6MUX21": ("Z",), "CCU2C": ("S0", "S1", "COUT")},
             "sites": {"LUT4": 1, "CCU2C": 2, "TRELLIS_DPR16X4": 6},
             "seq": {"TRELLIS_FF": ("DI", "CE", "LSR"), "TRELLIS_DPR16X4": ("DI", "WAD", "WRE", "RAD")}},
    "ice40": {"comb": {"SB_LUT4": ("O",), "SB_CARRY": ("CO",)},
              "sites": {"SB_LUT4": 1},
              "seq": {"SB_DFF": ("D", "E", "R", "S"), "SB_RAM40_4K": ("WADDR", "WDATA", "WE", "WCLKE", "MASK",
                                                                        "RADDR", "RE", "RCLKE")}},
}
DUT = "dut."            # RegisteredIO's instance of the module under test
OUTPUTS = "(outputs)"   # the module's output logic (it reaches RegisteredIO's output chain)
UNREAD = "(unread)"     # logic that reaches no register (nextpnr may remove it)


# yosys names a flip-flop cell after its signal: <signal>_TRELLIS_FF_Q[_<bit>] (ECP5),
# <signal>_SB_DFF<kind>_Q[_<bit>] (iCE40). Some signals' own names carry such a piece inside
# (a[...]_TRELLIS_FF_Q_2_DI_LUT4_D_Z...): in the netlist only the final bit suffix is dropped.
_FF_SUFFIX = re.compile(r"_(TRELLIS_FF|SB_DFF[A-Z]*)_Q(_\d+)?$")
# nextpnr-ice40 appends the logic cell it packs a flip-flop in (<signal>_SB_DFFSR_Q_D_SB_LUT4_O_LC,
# <signal>_SB_DFFSR_Q_DFFLC): in its report everything from the flip-flop's suffix on is dropped
_PACKED_SUFFIX = re.compile(r"_(TRELLIS_FF|SB_DFF[A-Z]*)_Q(_.*)?$")


def _signal(name: str, suffix: re.Pattern = _FF_SUFFIX) -> str:
    """A flip-flop cell's name less the module under test's prefix and ``suffix``."""
    return suffix.sub("", name[len(DUT):] if name.startswith(DUT) else name)


def _split(name: str) -> tuple[str, str]:
    """``(module, register)`` of a flip-flop's or RAM cell's name as yosys gives it: the
    module under test's prefix, the flip-flop's ``_TRELLIS_FF_Q[_<bit>]`` and the RAM cell's
    ``[.storage].<row>.<column>`` dropped, the hierarchy split at the last dot."""
    module, _, reg = re.sub(r"(\.storage)?(\.\d+)+$", "", _signal(name)).rpartition(".")
    return module, reg


def group_name(name: str) -> str:
    """A flip-flop or RAM cell's name with every number replaced by ``#`` (runs such as
    ``#_#_#`` of indices by one ``#``): ``dut.ip.router2.own0_1_0_TRELLIS_FF_Q`` gives
    ``ip.router#.own#``, ``dut.inject3.flits.storage.0.1`` ``inject#.flits``."""
    return re.sub(r"#(_#)+", "#", re.sub(r"\d+", "#", ".".join(filter(None, _split(name)))))


def _prefix(root: str | Path | None) -> str | None:
    """``root`` as the prefix its files' absolute paths start with (None: no root)."""
    return str(Path(root).resolve()) + "/" if root else None


def _source_of(cell: dict, prefix: str | None) -> tuple[str, int]:
    """``(file, line)`` of the first line of Python in a cell's ``src`` attribute (Amaranth's
    source location, kept by yosys as ``file:line|techmap.v:...``): the file from its package
    (``amaranth/lib/fifo.py``) if it is installed, else relative to the root whose
    :func:`_prefix` is ``prefix`` if it is inside it; ``("?", 0)`` if there is none."""
    for part in cell.get("attributes", {}).get("src", "").split("|"):
        m = re.fullmatch(r"(.+\.py):(\d+)(\.\d+(-\d+\.\d+)?)?", part)
        if m:
            file = m[1]
            if "site-packages/" in file:
                file = file.split("site-packages/", 1)[1]
            elif prefix and file.startswith(prefix):
                file = file[len(prefix):]
            return file, int(m[2])
    return "?", 0


def _sequential(kind: str, spec: dict):
    """The ports by which a cell of type ``kind`` ends a cone (None if it is not sequential):
    iCE40's flip-flops are ``SB_DFF`` with letters for their enables and resets."""
    for seq, ports in spec["seq"].items():
        if kind == seq or (seq == "SB_DFF" and kind.startswith(seq)):
            return ports
    return None


def lut_breakdown(netlist: dict, out_bits: int = 0, target: str = "ecp5", root: str | Path | None = None,
                  top: str = "top") -> dict:
    """LUT4 sites of yosys's JSON ``netlist`` (module ``top``, the
    :class:`permnet.hdl.synth.RegisteredIO` wrapper, mapped to ``target``'s cells), charged as
    the module docstring says; ``out_bits`` chain LUTs are taken off the output logic. Returns
    ``{"by_source": {file: sites}, "by_register": {"group (file:line)": sites}}`` (files
    relative to ``root``, :func:`_source_of`), each largest first (ties by name), sites rounded
    to 0.1; a group under 0.05 is left out."""
    spec, prefix = CELLS[target], _prefix(root)
    comb, cells = spec["comb"], netlist["modules"][top]["cells"]
    readers = defaultdict(list)     # net bit -> ("comb" | "seq", cell) of the cells that read it
    sinks_of = {}                   # sequential cell -> (file, line, group)
    files_in = defaultdict(Counter)  # module path -> the source files of its flip-flops
    for name, cell in cells.items():
        kind, con = cell["type"], cell["connections"]
        ports = _sequential(kind, spec)
        if ports is not None:
            sinks_of[name] = (*_source_of(cell, prefix), group_name(name)) if name.startswith(DUT) else \
                (OUTPUTS, 0, OUTPUTS)
            if sinks_of[name][1]:
                files_in[_split(name)[0]][sinks_of[name][0]] += 1
            reads = [b for p, bs in con.items() if p.startswith(ports) for b in bs]
            kind_of = "seq"
        elif kind in comb:
            reads = [b for p, bs in con.items() if p not in comb[kind] for b in bs]
            kind_of = "comb"
        else:
            continue
        for b in reads:
            readers[b].append((kind_of, name))
    # a RAM cell keeps no line of Python (yosys's RAM mapping replaces it): it is placed in the
    # file that most flip-flops of its module (or the nearest module above) come from
    for name, (file, line, group) in sinks_of.items():
        if file == "?":
            module = _split(name)[0]
            while module and not files_in[module]:
                module = module.rpartition(".")[0]
            if files_in[module]:
                sinks_of[name] = (min(files_in[module].items(), key=lambda it: (-it[1], it[0]))[0], 0, group)
    # the groups each combinational cell reaches: a depth-first walk, a cell after its readers
    reach: dict[str, frozenset] = {}
    for start, cell in cells.items():
        if cell["type"] not in comb or start in reach:
            continue
        stack = [(start, False)]
        while stack:
            name, ready = stack.pop()
            if name in reach:
                continue
            con = cells[name]["connections"]
            nxt = [r for port in comb[cells[name]["type"]] for b in con.get(port, ()) for r in readers.get(b, ())]
            if not ready:
                stack.append((name, True))
                stack.extend((r, False) for kind, r in nxt if kind == "comb" and r not in reach)
                continue
            groups = set()
            for kind, r in nxt:
                groups |= {sinks_of[r]} if kind == "seq" else reach.get(r, frozenset())
            reach[name] = frozenset(groups)
    share = defaultdict(float)
    for name, cell in cells.items():
        sites = spec["sites"].get(cell["type"], 0)
        if not sites:
            continue
        if name in sinks_of:            # a distributed RAM: its own sites
            share[sinks_of[name]] += sites
            continue
        groups = reach.get(name) or {(UNREAD, 0, UNREAD)}
        for g in groups:
            share[g] += sites / len(groups)
    if out_bits:
        share[OUTPUTS, 0, OUTPUTS] = max(0.0, share[OUTPUTS, 0, OUTPUTS] - out_bits)
    files, registers = defaultdict(float), {}
    for (file, line, group), sites in share.items():
        files[file] += sites
        registers[f"{group} ({file}:{line})" if line else group if file in (OUTPUTS, UNREAD) else
                  f"{group} ({file})"] = sites
    largest = lambda item: (-item[1], item[0])  # noqa: E731
    return {"by_source": {k: round(v, 1) for k, v in sorted(files.items(), key=largest) if round(v, 1)},
            "by_register": {k: round(v, 1) for k, v in sorted(registers.items(), key=largest) if round(v, 1)}}


_STEP = re.compile(r"Info:\s+(clk-to-q|logic|routing|setup|hold)\s+([\d.]+)\s+([\d.]+)\s+(.*)$")
_DEFINED = re.compile(r"Info:\s+(/\S+\.py):(\d+)\s*$")


def _register(cell: str) -> str:
    """The register of a path's end, ``cell.port`` in nextpnr's report."""
    return _signal(cell.rsplit(".", 1)[0], _PACKED_SUFFIX)


def critical_path(log: str, root: str | Path | None = None) -> dict | None:
    """The clock's critical path in nextpnr's ``log`` (the last report, after routing):
    ``ns`` its delay, ``logic_ns`` and ``routing_ns`` (clock-to-Q and setup count as logic),
    ``logic_cells`` the cells it passes through, ``from``/``to`` the flip-flops (or ports) at
    its ends, and ``sources``, in path order without repeats, the Python lines its nets were
    built by, relative to ``root`` (the lines outside it are left out). None if the log has no
    such report."""
    sections = log.split("Critical path report for clock")
    if len(sections) < 2:
        return None
    body = sections[-1].split("Critical path report for cross-domain")[0]
    logic = routing = 0.0
    total, cells, first, last, sources = 0.0, 0, None, None, []
    root = _prefix(root)
    for line in body.splitlines():
        step = _STEP.search(line)
        if step:
            kind, delay, total_s, rest = step.groups()
            total = float(total_s)
            if kind == "routing":
                routing += float(delay)
            else:
                logic += float(delay)
                if kind == "logic":
                    cells += 1
            if rest.startswith("Source ") and first is None:
                first = _register(rest[len("Source "):])
            continue
        sink = re.search(r"Info:\s+Sink (\S+)", line)
        if sink:
            last = _register(sink.group(1))
            continue
        defined = _DEFINED.search(line)
        if defined and root and defined.group(1).startswith(root):
            src = f"{defined.group(1)[len(root):]}:{defined.group(2)}"
            if src not in sources:
                sources.append(src)
    if first is None:
        return None
    summary = re.search(r"Info: ([\d.]+) ns logic, ([\d.]+) ns routing", body)
    if summary:     # nextpnr's own sums (the steps' rounded delays may add up 0.01 off)
        logic, routing = float(summary[1]), float(summary[2])
    return {"ns": round(total, 2), "logic_ns": round(logic, 2), "routing_ns": round(routing, 2),
            "logic_cells": cells, "from": first, "to": last, "sources": sources}
