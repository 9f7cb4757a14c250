"""``permnet rtl router`` / ``permnet synth router`` (issue 24): one router with its
ports as top-level ports."""

import re

import pytest

from cli_runner import run


def test_rtl_router_ports_are_the_routers(tmp_path):
    """One module ``router``: S link inputs and outputs (valid, vc, W + header flit bits,
    V credit bits), the injection descriptor, the lane's data and the ejection stream."""
    p = run("rtl", "router", "-M", 8, "-S", 2, "--flit-width", 8, "--vcs", 3, "--credit-stages", 1,
            "-o", "out/r.v", cwd=tmp_path)
    assert p.stderr.strip() == "wrote out/r.v"
    text = (tmp_path / "out" / "r.v").read_text()
    top = re.search(r"^module (\w+)\((.*?)\);", text, re.S | re.M)
    assert top.group(1) == "router"
    ports = set(re.findall(r"\w+", top.group(2)))
    assert {f"{io}__{y}__{x}" for io in "io" for y in range(2) for x in ("valid", "vc", "flit", "credit")} <= ports
    assert {"inj__valid", "inj__ready", "lane__0__data", "lane__0__pop", "ej__valid", "ej__ready",
            "ej__payload"} <= ports
    # compact flit: src, dst, size (3 bits each), last (1), payload (8): no hop count, no index
    assert re.search(r"input \[17:0\] i__1__flit;", text) and re.search(r"output \[2:0\] i__0__credit;", text)
    assert "//   credit_stages = 1" in text


@pytest.mark.parametrize("args,needle", [
    (["--vcs", "1"], "below the longest route"),
    (["--buffer", "3"], "--buffer must be a power of two"),
    (["--max-size", "8"], "--buffer (4) >= --max-size (8)"),
    (["--node", "8"], "--node must be a node of the network (0..7)"),
    (["--credit-stages", "17"], "credit stages must be 0..16"),
    (["--allocator", "input-first", "--eject", "vc"], "input-first allocator needs one ejection port"),
    (["--allocator", "two-stage", "--eject", "vc"], "two-stage allocator needs one ejection port"),
])
def test_rtl_router_bad_input(tmp_path, args, needle):
    p = run("rtl", "router", "-M", 8, "-S", 2, *args, "-o", "out/r.v", cwd=tmp_path, check=False)
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("allocator", ["input-first", "two-stage", "separate-va"])
def test_rtl_router_input_first_keeps_each_ports_buffers_in_one_ram(tmp_path, allocator):
    """``--allocator input-first`` (and ``two-stage``, ``separate-va``): per input port one memory of V B words
    (rounded up to a power of two: 3 VCs of 4 flits, 16 words) holding the compact flit's
    fields, src, dst and size (3 bits each), last (1) and the payload (8), written at (vc, slot)
    as a flit arrives; the head register keeps only the head bits derived from them."""
    p = run("rtl", "router", "-M", 8, "-S", 2, "--flit-width", 8, "--vcs", 3, "--allocator", allocator,
            "-o", "out/r.v", cwd=tmp_path)
    assert p.stderr.strip() == "wrote out/r.v"
    text = (tmp_path / "out" / "r.v").read_text()
    assert f"//   allocator = {allocator}" in text
    assert sorted(re.findall(r"reg \[(\d+):0\] (ram\d+) \[(\d+):0\];", text)) == [("17", f"ram{y}", "15")
                                                                                     for y in range(2)]
    assert re.search(r"ram0\[\{ i__0__vc, [^}]+\}\] <= ", text)


@pytest.mark.slow
def test_synth_router_reports_luts_ffs_fmax(tmp_path):
    """A small router through yosys and nextpnr: LUT4s, flip-flops (at least its VC buffers'
    payload bits) and an Fmax."""
    import json

    p = run("synth", "router", "-M", 4, "-S", 2, "--flit-width", 4, "--json", cwd=tmp_path)
    rep = json.loads(p.stdout)
    assert rep["module"] == "router" and rep["luts"] > 0 and rep["fmax_mhz"] > 0
    assert rep["ffs"] >= 2 * 2 * 4 * 4
