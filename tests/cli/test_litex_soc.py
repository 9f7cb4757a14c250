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
