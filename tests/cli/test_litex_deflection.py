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
