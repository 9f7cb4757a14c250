"""A LiteX SoC without a CPU holding an LDI(4,2) network with crossbar planes
loadable at run time: LiteX's Builder writes its Verilog and csr.csv into
the folder given (no synthesis), then the network's rows of csr.csv print.
A second argument picks the switching (default vct; deflection builds the
network of bufferless deflection routers)."""

import sys
from pathlib import Path

from litex.build.generic_platform import Pins
from litex.build.io import CRG
from litex.build.lattice import LatticeECP5Platform
from litex.soc.integration.builder import Builder
from litex.soc.integration.soc_core import SoCCore

from permnet.litex import PermnetNetwork

out = Path(sys.argv[1])
switching = {"switching": sys.argv[2]} if len(sys.argv) > 2 else {}
platform = LatticeECP5Platform("LFE5U-85F-6BG381C", [("sys_clk", 0, Pins(1))], toolchain="trellis")
soc = SoCCore(platform, clk_freq=int(25e6), cpu_type=None, integrated_sram_size=0, with_uart=False,
              with_timer=False, ident="permnet network", ident_version=False)
soc.crg = CRG(platform.request("sys_clk"))
soc.net = PermnetNetwork(platform, build_dir=out / "permnet", nodes=4, degree=2, flit_width=16, planes="crossbar",
                         **switching)
for node in range(4):                      # the user's logic goes here: drain every output
    soc.comb += soc.net.sources[node].ready.eq(1)
Builder(soc, output_dir=str(out), compile_software=False, compile_gateware=False,
        csr_csv=str(out / "csr.csv")).build(run=False)
for line in (out / "csr.csv").read_text().splitlines():
    if ",net," in line or ",net_" in line:
        print(line)
