"""``permnet rtl network --switching deflection`` / ``permnet synth network --switching
deflection`` (issue 41): the deflection network with AXI-Stream endpoints; the VC network's
options refused with it in one line; place and route of a whole network gets its clock
constraint (nextpnr's router2 could not route an unconstrained clock pin on LDI(8,2))."""

import json
import re

import pytest

from cli_runner import run
from permnet.hdl import synth
from permnet.rtlnet import deflection_network


def test_rtl_deflection_network_stream_ports(tmp_path):
    p = run("rtl", "network", "-M", 4, "-S", 2, "--switching", "deflection", "--endpoints", "stream",
            "--flit-width", 16, "--planes", "crossbar", "--stages", 2, "-o", "out/d.v", cwd=tmp_path)
    assert p.stderr.strip() == "wrote out/d.v"
    text = (tmp_path / "out" / "d.v").read_text()
    top = re.search(r"^module (\w+)\((.*?)\);", text, re.S | re.M)
    assert top.group(1) == "ldi_network_deflection"
    ports = set(re.findall(r"\w+", top.group(2)))
    axis = {f"n{d}_{side}_t{x}" for d in range(4) for side in ("in", "out")
            for x in ("valid", "ready", "data", "last", "dest")}
    control = {f"cfg__{x}" for x in ("plane", "addr", "data", "we", "commit", "rdata")} | \
        {f"rt__{x}" for x in ("node", "addr", "data", "we", "rdata")}
    assert ports == axis | control | {"clk", "rst", "dest_error"}
    assert re.search(r"input \[15:0\] n3_in_tdata;", text) and re.search(r"output \[1:0\] n0_out_tdest;", text)
    assert re.search(r"input \[1:0\] rt__data;", text)             # an S-bit productive mask
    for line in ("switching = deflection", "stages = 2", "hop_cycles = 2", "planes = crossbar", "ejection_width = 2"):
        assert f"//   {line}\n" in text


@pytest.mark.parametrize("args,needle", [
    (["--vcs", "2", "--link-stages", "1", "--buffer", "8"],
     "--switching deflection has no VCs, buffers, credits or self-test trace: drop --vcs, --buffer, --link-stages"),
    (["--credit-stages", "1", "--allocator", "input-first", "--packets", "9"],
     "drop --credit-stages, --allocator, --packets"),
    (["--stages", "4"], "--stages must be 1, 2 or 3"),
    (["--router", "table"], "--router table: the deflection routers' tables load with the planes"),
    (["--router", "nexthop", "--planes", "benes"], "--router nexthop: the deflection router takes every"),
    (["--ejection-width", "3"], "--ejection-width must be 1..S = 2"),
    (["--endpoints", "selftest"], "stream endpoints: add --endpoints stream"),
])
def test_rtl_deflection_network_bad_input(tmp_path, args, needle):
    endpoints = [] if "--endpoints" in args else ["--endpoints", "stream"]
    p = run("rtl", "network", "-M", 8, "-S", 2, "--switching", "deflection", *endpoints, *args, "-o", "out/d.v",
            cwd=tmp_path, check=False)
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args,needle", [
    (["-M", "8", "-S", "2", "--stages", "2"], "--stages needs --switching deflection"),
    (["-M", "8", "-S", "2", "--ejection-width", "1"], "--ejection-width needs --switching deflection"),
    (["-M", "9", "-S", "3", "--switching", "deflection"], "needs S a power of two")])
def test_rtl_network_refuses_deflection_options_without_it(tmp_path, args, needle):
    p = run("rtl", "network", "--endpoints", "stream", *args, "-o", "out/d.v", cwd=tmp_path, check=False)
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_synth_deflection_network_constrains_the_clock_for_router2(monkeypatch):
    """The whole network is placed and routed with router2, an LPF that locates ``clk`` on G2 and
    leave to place the other pins, and ABC9 without -dff (as the VC stream network)."""
    calls, files = [], {}

    def fake(tool, args, cwd, timeout=None):
        calls.append((tool, args))
        files[tool] = {f.name: f.read_text() for f in cwd.iterdir() if f.suffix in (".lpf", ".il")}
        if "yosys" in tool:
            (cwd / "top.json").write_text(json.dumps({"modules": {"top": {"cells": {}}}}))
            (cwd / "stat.json").write_text(json.dumps({"design": {"num_cells_by_type": {"LUT4": 9, "TRELLIS_FF": 9}}}))
        else:
            (cwd / "report.json").write_text(json.dumps({"fmax": {"clk": {"achieved": 99.0}},
                                                         "utilization": {"TRELLIS_COMB": {"used": 5000}}}))
        return "Info: pin 'clk$tr_io' constrained to Bel 'X0/Y47/PIOA'.\n"

    monkeypatch.setattr(synth, "_run", fake)
    gen = deflection_network(4, 2, flit_width=4, target="ecp5")
    rep = synth.synthesize(gen.component, "ecp5")
    (ytool, yargs), (ptool, pargs) = calls
    assert "-dff" not in " ".join(yargs)
    assert pargs[pargs.index("--router") + 1] == "router2"
    lpf = pargs[pargs.index("--lpf") + 1]
    assert 'LOCATE COMP "clk" SITE "G2";' in files[ptool][lpf].splitlines() and "--lpf-allow-unconstrained" in pargs
    assert re.search(r"^\s*wire width 1 input \d+\s+\\clk$", files[ytool]["top.il"], re.M)
    assert rep["clk_pin"] == "G2" and rep["router"] == "router2" and rep["luts_per_node"] is not None


@pytest.mark.slow
def test_synth_deflection_network_places_and_routes(tmp_path):
    """A real run: LDI(4,2) W = 8 placed and routed, the clock on its pin."""
    p = run("synth", "network", "-M", 4, "-S", 2, "--switching", "deflection", "--endpoints", "stream",
            "--flit-width", 8, "--json", cwd=tmp_path)
    rep = json.loads(p.stdout)
    assert rep["switching"] == "deflection" and rep["router"] == "router2"
    assert rep["clk_pin"] == "G2" and rep["clk_bel"] and rep["fmax_mhz"] > 0 and rep["luts"] > 0
