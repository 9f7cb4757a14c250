"""The stream network in a LiteX SoC: one Migen module, :class:`PermnetNetwork`,
that writes the network's Verilog (``permnet rtl network --endpoints stream``),
adds it to the platform and instantiates it, with a LiteX ``stream.Endpoint``
per node each way and, for run-time planes, the plane, route-table and swap
ports as CSRs (``AutoCSR``: they appear in the SoC's ``csr.csv``).

Import this module only where LiteX is installed (the ``litex`` and ``dev``
extras); nothing else in permnet imports it.

.. code-block:: python

    from permnet.litex import PermnetNetwork

    soc.net = PermnetNetwork(platform, nodes=16, degree=4, flit_width=32, planes="crossbar")
    soc.comb += soc.net.sinks[0].valid.eq(...)   # its CSRs join the SoC's csr.csv as net_*

Keyword arguments are the long options of ``permnet rtl network`` with ``_``
for ``-`` (``flit_width``, ``planes``, ``vcs``, ``switching``, ...);
``endpoints`` is always ``stream``.

Endpoints: ``sinks[d]`` takes packets into node d (``data``, ``dest`` the
destination node, ``last`` on the last beat; AXI-Stream ``n{d}_in_*``),
``sources[d]`` gives the packets node d receives (``dest`` holds the
*source* node, as ``n{d}_out_tdest``).  Timing and back-pressure are those
of the Verilog (docs/guide/network-ip.md).

CSRs (only with ``planes`` = ``crossbar`` or ``benes``; word layouts as the
ports of docs/guide/network-ip.md):

* ``plane_addr``: entry [15:0], plane [23:16] of the next ``plane_data`` write
  and of ``plane_rdata``;
* ``plane_data``: a write puts the value in the planes' *shadow* at
  ``plane_addr`` (``cfg__we`` for one cycle); ``plane_rdata``: the *active*
  entry at ``plane_addr``;
* ``rt_addr``: entry [15:0], node [31:16]; ``rt_data``, ``rt_rdata``: the
  same for the route tables;
* ``swap``: a write requests the drained swap (shadow -> active, ``swap_req``);
  ``status``: draining [0], idle [1], dest_error [2], swaps done [31:16];
  ``swap_cycles``: the last swap's length in cycles.

With ``switching="deflection"`` the network swaps without a drain (its top
has ``cfg__commit`` and no ``swap_*`` or ``idle`` ports): a write of
``swap`` is ``cfg__commit`` for one cycle, making the planes' and the
routers' mask shadows active at that clock edge with traffic flowing;
``status`` holds dest_error [2] and the commits done [31:16] (bits [1:0]
read 0: nothing drains), and there is no ``swap_cycles``. ``rt_data`` is
then a router's productive-port mask (S bits) for destination ``rt_addr``
[15:0] of node ``rt_addr`` [31:16]
(:func:`permnet.hdl.deflect_net.mask_writes`).
"""

from __future__ import annotations

import re
from pathlib import Path

from litex.gen import LiteXModule
from litex.soc.interconnect import stream
from litex.soc.interconnect.csr import AutoCSR, CSRStatus, CSRStorage
from migen import Cat, ClockSignal, Constant, If, Instance, ResetSignal, Signal

from permnet.gen.errors import require

__all__ = ["PermnetNetwork", "network_verilog", "top_ports"]

_PORT = re.compile(r"^\s+(input|output) (?:\[(\d+):0\] )?(\w+);$", re.M)


def network_verilog(path, **options) -> str:
    """Write ``permnet rtl network --endpoints stream`` with ``options``
    (long option names, ``_`` for ``-``) to ``path``; return the top
    module's name."""
    from permnet.cli import main
    from permnet.fusesoc import cli_args

    require(options.get("endpoints", "stream") == "stream", "the LiteX module holds the stream network")
    params = {"design": "network", **{k.replace("_", "-"): v for k, v in options.items()}, "endpoints": "stream"}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    args = cli_args(params) + ["--output", str(path)]
    require(main(args) == 0, f"permnet {' '.join(args)} failed")
    return re.search(r"^module (\w+)\(", path.read_text(), re.M).group(1)


def top_ports(verilog: str, top: str) -> dict[str, tuple[str, int]]:
    """Port name -> (direction, width) of module ``top`` in ``verilog``."""
    body = verilog[verilog.index(f"module {top}("):]
    body = body[:body.index("endmodule")]
    return {name: (d, int(msb) + 1 if msb else 1) for d, msb, name in _PORT.findall(body)}


class PermnetNetwork(LiteXModule, AutoCSR):
    """The stream network, its Verilog added to ``platform``
    (written under ``build_dir``); see the module's docstring."""

    def __init__(self, platform, *, nodes: int, degree: int, build_dir="build/permnet-litex", **options):
        name = f"permnet_net{nodes}x{degree}_" + "_".join(f"{k}{v}" for k, v in sorted(options.items()))
        path = Path(build_dir) / (re.sub(r"[^\w]", "_", name) + ".v")
        self.top = network_verilog(path, nodes=nodes, degree=degree, **options)
        self.ports = ports = top_ports(path.read_text(), self.top)
        platform.add_source(str(path.resolve()))
        self.nodes = nodes
        width = ports["n0_in_tdata"][1]
        dest = ports["n0_in_tdest"][1]
        self.sinks = [stream.Endpoint([("data", width), ("dest", dest)]) for _ in range(nodes)]
        self.sources = [stream.Endpoint([("data", width), ("dest", dest)]) for _ in range(nodes)]
        self.dest_error = Signal()
        conn = dict(i_clk=ClockSignal(), i_rst=ResetSignal(), o_dest_error=self.dest_error)
        for d, (i, o) in enumerate(zip(self.sinks, self.sources)):
            conn.update({f"i_n{d}_in_tvalid": i.valid, f"o_n{d}_in_tready": i.ready, f"i_n{d}_in_tdata": i.data,
                         f"i_n{d}_in_tlast": i.last, f"i_n{d}_in_tdest": i.dest,
                         f"o_n{d}_out_tvalid": o.valid, f"i_n{d}_out_tready": o.ready, f"o_n{d}_out_tdata": o.data,
                         f"o_n{d}_out_tlast": o.last, f"o_n{d}_out_tdest": o.dest})
        if "cfg__we" in ports:
            conn.update(self._csrs(ports))
        self.specials += Instance(self.top, **conn)

    def _csrs(self, ports) -> dict:
        w = {name: width for name, (_, width) in ports.items()}
        self.plane_addr = CSRStorage(32, description="entry [15:0], plane [23:16] of plane_data and plane_rdata")
        self.plane_data = CSRStorage(w["cfg__data"], description="write: the planes' shadow entry at plane_addr")
        self.plane_rdata = CSRStatus(w["cfg__rdata"], description="the ACTIVE plane entry at plane_addr")
        self.rt_addr = CSRStorage(32, description="entry [15:0], node [31:16] of rt_data and rt_rdata")
        self.rt_data = CSRStorage(w["rt__data"], description="write: the route tables' shadow entry at rt_addr")
        self.rt_rdata = CSRStatus(w["rt__rdata"], description="the ACTIVE route entry at rt_addr")
        drained = "swap_req" in ports     # the VC network's drained swap; deflection commits at once
        draining, idle, done, swaps = Signal(), Signal(), Signal(), Signal(16)
        if drained:
            self.swap = CSRStorage(1, description="write: request the drained swap (shadow -> active)")
            self.status = CSRStatus(32, description="draining [0], idle [1], dest_error [2], swaps done [31:16]")
            self.swap_cycles = CSRStatus(w["swap_cycles"], description="the last swap's length in cycles")
        else:
            self.swap = CSRStorage(1, description="write: commit (shadow -> active at once, no drain)")
            self.status = CSRStatus(32, description="0 [1:0], dest_error [2], commits done [31:16]")
            self.comb += done.eq(self.swap.re)
        self.sync += If(done, swaps.eq(swaps + 1))
        self.comb += self.status.status.eq(Cat(draining, idle, self.dest_error, Constant(0, 13), swaps))
        a, r = self.plane_addr.storage, self.rt_addr.storage
        conn = {"i_cfg__plane": a[16:16 + w["cfg__plane"]], "i_cfg__addr": a[:w["cfg__addr"]],
                "i_cfg__data": self.plane_data.storage, "i_cfg__we": self.plane_data.re,
                "i_cfg__commit": 0 if drained else self.swap.re, "o_cfg__rdata": self.plane_rdata.status,
                "i_rt__node": r[16:16 + w["rt__node"]], "i_rt__addr": r[:w["rt__addr"]],
                "i_rt__data": self.rt_data.storage, "i_rt__we": self.rt_data.re, "o_rt__rdata": self.rt_rdata.status}
        if drained:
            conn.update({"i_swap_req": self.swap.re, "o_swap_draining": draining, "o_idle": idle,
                         "o_swap_done": done, "o_swap_cycles": self.swap_cycles.status})
        return conn
