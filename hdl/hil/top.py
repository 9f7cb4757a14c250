"""The HIL top level: the bridge, the register blocks and the datapaths.

``HilTop(design, ...)`` instantiates, through their public ports only, a
:class:`~permnet.hdl.crossbar.CrossbarPlane` (``design="crossbar"``), a
:class:`~permnet.hdl.benes.BenesNetwork` (``"benes"``), an LDI next-hop unit
(``"nexthop"``: closed form where M = S^(h-1) G, else the table unit) or all
three (``"all"``), each behind the register block of
:mod:`permnet.gen.hil.regmap`, with PRBS banks on the datapaths.  Each
block's logic decodes its registers by name
(:class:`~permnet.hdl.hil.csr.RegisterDecode`), so the exported map
(``permnet hil regmap``, LiteX's ``csr.csv``) is what the hardware decodes;
``identifier_mem`` holds :meth:`HilTop.identifier` for ``litex_cli --ident``.

The host side is a byte stream (``rx``/``tx``, ``lib.stream`` of 8 bits:
what the Verilator build bridges to TCP) or, with ``uart_divisor``, the
pins ``uart_rx``/``uart_tx`` of the in-tree 8N1 UART PHY.

Read-back is through the datapath, not a copy of what was written: in tag
mode ingress k carries k + 1 (the data width must hold the port count), so
what an egress delivers names the ingress the *active* configuration
connects to it (0: none).  For a TDM crossbar the capture is restricted to
one slot (``o_data`` is registered: a word out in cycle t left the
multiplexers in cycle t-1, under the slot shown then).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.hil import regmap as R
from permnet.gen.topologies import ldi
from permnet.hdl.benes import BenesNetwork
from permnet.hdl.crossbar import DUR_BITS, CrossbarPlane
from permnet.hdl.datapath import bits
from permnet.hdl.hil.bridge import StreamBridge
from permnet.hdl.hil.csr import RegisterDecode
from permnet.hdl.hil.prbs import PrbsBank
from permnet.hdl.hil.uart import UartRx, UartTx
from permnet.hdl.nexthop import LdiNextHop, LdiNextHopTable

__all__ = ["HilTop", "DESIGNS", "NETWORK_DESIGNS", "NetworkDesign", "generated", "register_map_text"]

DESIGNS = tuple(R.DESIGNS)       # each design is the blocks regmap.DESIGNS lists
RX_FIFO_DEPTH = 32   # UART mode: bytes received while an answer is being sent
NET_BUFFER, NET_FLIT_WIDTH, NET_QUEUE = 4, 8, 64   # the network design's routers and source queues


def _block(name):
    return R.BASES[name] >> 12


class HilTop(wiring.Component):
    def __init__(self, design: str = "crossbar", *, ports: int = 8, width: int = 8, slots: int = 1,
                 size: int = 8, network: str = "benes", pipeline_mask: int = 0, M: int = 18, S: int = 3,
                 nh_pipeline: int = 2, framed: bool = True, idle_timeout: int = 1 << 16,
                 uart_divisor: int | None = None, planes: str = "wires", vcs: int | None = None,
                 switching: str = "vct", ejection: int | None = None, stages: int | None = None):
        require(design in R.DESIGNS, f"unknown HIL design {design!r}; choose from {', '.join(R.DESIGNS)}")
        self.design = design
        blocks = R.DESIGNS[design]
        self.has_xbar = "xbar" in blocks
        self.has_benes = "benes" in blocks
        self.has_nh = "nexthop" in blocks
        self.has_net = "netgen" in blocks
        require(isinstance(width, int) and 1 <= width <= 32, f"data width must be 1..32, got {width}")
        self.width = width
        self.ports, self.slots, self.size = ports, slots, size
        if self.has_xbar:
            require(isinstance(ports, int) and 2 <= ports <= R.MAX_PORTS, f"ports must be 2..{R.MAX_PORTS}")
            require(isinstance(slots, int) and 1 <= slots <= 255, "slots must be 1..255")
            require(bits(ports) <= width, f"tag read-back needs a data width >= {bits(ports)} bits for "
                    f"{ports} ports, got {width}")
            self.xbar = CrossbarPlane(ports, width, slots=slots)
        if self.has_benes:
            require(isinstance(size, int) and 2 <= size <= R.MAX_PORTS, f"size must be 2..{R.MAX_PORTS}")
            require(bits(size) <= width, f"tag read-back needs a data width >= {bits(size)} bits for "
                    f"{size} ports, got {width}")
            self.benes = BenesNetwork(size, width, network=network, pipeline_mask=pipeline_mask)
            self.word_chunks = (self.benes.word_bits + 31) // 32
        if self.has_nh:
            ldi.check_params(M, S)
            require(M <= 1 << 16, f"the probe registers hold node numbers below 65536, got M={M}")
            self.M, self.S = M, S
            form = ldi.melhem_form(M, S)
            self.nh_table = form is None
            self.nh_h = form[0] if form else 0
            self.nh = (LdiNextHopTable(M, S, pipeline=nh_pipeline) if self.nh_table
                       else LdiNextHop(M, S, pipeline=nh_pipeline))
        if self.has_net:
            self.M, self.S = M, S
            self.planes_kind = planes
            self.switching = switching
            self.net_design = NETWORK_DESIGNS.get(switching)
            self.net = network_gen(M, S, planes=planes, flit_width=width, vcs=vcs, network=network,
                                   switching=switching, ejection=ejection, stages=stages)
        else:
            require(planes == "wires" and vcs is None and switching == "vct" and ejection is None and stages is None,
                    "--planes, --vcs, --switching, --ejection-width and --stages are options of the network design")
        self.framed, self.uart_divisor = framed, uart_divisor
        require(uart_divisor is None or idle_timeout >= 20 * uart_divisor,
                f"the idle time-out ({idle_timeout} cycles) must span at least two UART characters "
                f"({20 * (uart_divisor or 0)} cycles)")
        self.bridge = StreamBridge(framed=framed, idle_timeout=idle_timeout)
        if uart_divisor is None:
            members = {"rx": In(stream.Signature(8)), "tx": Out(stream.Signature(8))}
        else:
            self.uart_rx_phy, self.uart_tx_phy = UartRx(uart_divisor), UartTx(uart_divisor)
            members = {"uart_rx": In(1, init=1), "uart_tx": Out(1, init=1)}
        super().__init__(members)

    def design_bits(self) -> int:
        b = R.DESIGN_BITS
        return ((self.has_xbar << b["crossbar"]) | (self.has_benes << b["benes"]) | (self.has_nh << b["nexthop"])
                | (self.has_net << b["network"])
                | (self.framed << b["framed"]) | ((self.uart_divisor is not None) << b["uart"]))

    def identifier(self) -> str:
        """What ``identifier_mem`` holds (``litex_cli --ident``)."""
        parts = []
        if self.has_xbar:
            parts.append(f"crossbar {self.ports}" + (f" tdm {self.slots}" if self.slots > 1 else ""))
        if self.has_benes:
            parts.append(f"{self.benes.network} {self.size}")
        if self.has_nh:
            parts.append(f"nexthop LDI({self.M},{self.S})")
        if self.has_net:
            parts.append(f"network LDI({self.M},{self.S})"
                         + (f" {self.planes_kind} planes" if self.planes_kind != "wires" else "")
                         + self.net_design.label)
        major, minor = R.VERSION >> 16, R.VERSION & 0xFFFF
        return f"permnet HIL {major}.{minor}: " + ", ".join(parts) + f", {self.width}-bit"

    def _regmap_params(self) -> dict:
        return {"ports": self.ports, "slots": self.slots, "size": self.size,
                "word_chunks": self.word_chunks if self.has_benes else 1, **({"M": self.M} if self.has_net else {})}

    def registers(self):
        """The register map this top level decodes (for ``permnet hil regmap``)."""
        return R.registers(self.design, **self._regmap_params())

    def block_registers(self, name: str):
        return R.block_registers(name, **self._regmap_params())

    def elaborate(self, platform):
        m = Module()
        m.submodules.bridge = br = self.bridge
        if self.uart_divisor is None:
            wiring.connect(m, wiring.flipped(self.rx), br.i_bytes)
            wiring.connect(m, br.o_bytes, wiring.flipped(self.tx))
        else:
            m.submodules.uart_rx = urx = self.uart_rx_phy
            m.submodules.uart_tx = utx = self.uart_tx_phy
            m.d.comb += [urx.i_rx.eq(self.uart_rx), self.uart_tx.eq(utx.o_tx)]
            # a request may arrive while the previous answer is still being sent
            m.submodules.rx_fifo = fifo = SyncFIFOBuffered(width=8, depth=RX_FIFO_DEPTH)
            m.d.comb += [fifo.w_data.eq(urx.o_data.payload), fifo.w_en.eq(urx.o_data.valid),
                         urx.o_data.ready.eq(fifo.w_rdy),
                         br.i_bytes.payload.eq(fifo.r_data), br.i_bytes.valid.eq(fifo.r_rdy),
                         fifo.r_en.eq(br.i_bytes.ready)]
            wiring.connect(m, br.o_bytes, utx.i_data)

        addr, we, re, wdata = br.bus_addr, br.bus_we, br.bus_re, br.bus_wdata
        block = Signal(4)
        off = Signal(12)
        inrange = Signal()
        m.d.comb += [block.eq(addr[12:16]), off.eq(addr[:12]), inrange.eq(addr[16:] == 0)]
        rdata = Signal(32)           # registered read data of the blocks kept here
        src = Signal(4)              # 0: rdata, 1: crossbar PRBS, 2: Beneš PRBS, 3 + k: through[k]
        rd_x = rd_b = None
        through = []                 # (addressed, data): registers read from a block's own registered port

        def is_block(name):
            return inrange & (block == _block(name))

        decoded = set()

        def decode(name):
            """The registers of block ``name`` as its logic below uses them."""
            decoded.add(name)
            return RegisterDecode(m, self.block_registers(name), off=off, we=we, re=re, rdata=rdata,
                                  sel=is_block(name))

        with m.If(re):
            m.d.sync += [rdata.eq(0), src.eq(0)]

        # --- sys ---
        regs = decode("sys")
        scratch = Signal(32)
        cycles = Signal(32)
        m.d.sync += cycles.eq(cycles + 1)
        with m.If(regs.write("scratch")):
            m.d.sync += scratch.eq(wdata)
        regs.read({"id": R.ID, "version": R.VERSION, "design": self.design_bits(), "scratch": scratch,
                   "cycles": cycles, "bridge_errors": Cat(br.o_crc_errors, br.o_timeouts)})
        regs.check()
        regs = decode("identifier_mem")
        regs.read({"data": R.identifier_words(self.identifier())})
        regs.check()

        def prbs_bank(name, ports, latency):
            bank = PrbsBank(ports, self.width, latency, regs=self.block_registers(name))
            decoded.add(name)
            m.submodules[name] = bank
            sel = is_block(name)
            m.d.comb += [bank.addr.eq(off), bank.we.eq(we & sel), bank.re.eq(re & sel), bank.wdata.eq(wdata)]
            return bank, sel

        def tags(n):
            return Cat(*[Const(k + 1, self.width) for k in range(n)])

        # --- crossbar ---
        if self.has_xbar:
            N, W, K = self.ports, self.width, self.slots
            m.submodules.xbar = xb = self.xbar
            bank, sel_p = prbs_bank("xbar_prbs", N, 1)
            rd_x = (bank, sel_p)
            ib = bits(N - 1)
            tag_mode, rb_slot = Signal(), Signal(8)
            commits, accepted = Signal(16), Signal(16)
            cfg_pending, cfg_word = Signal(), Signal(ib + 1)
            regs = decode("xbar")
            m.d.comb += xb.cfg.payload.eq(cfg_word)
            m.d.comb += xb.cfg.valid.eq(cfg_pending)
            with m.If(xb.cfg.valid & xb.cfg.ready):
                m.d.sync += [cfg_pending.eq(0), accepted.eq(accepted + 1)]
            if K > 1:
                dur_pending, dur_word = Signal(), Signal(DUR_BITS)
                m.d.comb += [xb.dur.payload.eq(dur_word), xb.dur.valid.eq(dur_pending)]
                with m.If(xb.dur.valid & xb.dur.ready):
                    m.d.sync += [dur_pending.eq(0), accepted.eq(accepted + 1)]
            with m.If(regs.write("ctrl")):
                m.d.comb += xb.commit.eq(wdata[0])
                with m.If(wdata[0] & xb.o_loaded):
                    m.d.sync += [commits.eq(commits + 1), accepted.eq(0)]
            with m.If(regs.write("rb_ctrl")):
                m.d.sync += [tag_mode.eq(wdata[0]), rb_slot.eq(wdata[8:16])]
            with m.If(regs.write("cfg")):
                m.d.sync += [cfg_pending.eq(1), cfg_word.eq(Cat(wdata[:ib], wdata[31]))]
            dur_we = regs.write("dur")          # ignored with one slot
            if K > 1:
                with m.If(dur_we):
                    m.d.sync += [dur_pending.eq(1), dur_word.eq(wdata)]
            m.d.comb += xb.i_data.eq(Mux(tag_mode, tags(N), bank.o_ingress))
            m.d.comb += bank.i_egress.eq(xb.o_data)
            prev_slot, tag_d = Signal.like(xb.o_slot), Signal()
            m.d.sync += [prev_slot.eq(xb.o_slot), tag_d.eq(tag_mode)]
            rb = [Signal(W, name=f"xrb{e}") for e in range(N)]
            captured = Signal()
            with m.If(tag_d & (prev_slot == rb_slot)):
                m.d.sync += [rb[e].eq(xb.o_data[e * W:(e + 1) * W]) for e in range(N)]
                m.d.sync += captured.eq(1)
            with m.If(regs.write("rb_ctrl")):
                m.d.sync += captured.eq(0)
            ctrl = Cat(xb.o_loaded, Const(0, 7), xb.o_slot, Const(0, 8 - len(xb.o_slot)), commits)
            regs.read({"info": N | (K << 16) | (W << 24), "ctrl": ctrl, "accepted": accepted,
                       "rb_ctrl": Cat(tag_mode, captured, Const(0, 6), rb_slot), "rb": rb})
            regs.check()

        # --- Beneš ---
        if self.has_benes:
            N, W = self.size, self.width
            m.submodules.benes = bn = self.benes
            bank, sel_p = prbs_bank("benes_prbs", N, bn.latency)
            rd_b = (bank, sel_p)
            regs = decode("benes")
            tag_mode = Signal()
            commits, accepted = Signal(16), Signal(16)
            chunks = [Signal(32, name=f"bchunk{c}") for c in range(self.word_chunks)]
            pending = Signal()
            word = Signal(bn.word_bits)
            m.d.comb += [bn.cfg.payload.eq(word), bn.cfg.valid.eq(pending)]
            with m.If(bn.cfg.valid & bn.cfg.ready):
                m.d.sync += [pending.eq(0), accepted.eq(accepted + 1)]
            with m.If(regs.write("ctrl")):
                m.d.comb += bn.commit.eq(wdata[0])
                with m.If(wdata[0] & bn.o_loaded):
                    m.d.sync += [commits.eq(commits + 1), accepted.eq(0)]
            with m.If(regs.write("rb_ctrl")):
                m.d.sync += tag_mode.eq(wdata[0])
            for c in range(self.word_chunks):
                with m.If(regs.write("chunk", c)):
                    m.d.sync += chunks[c].eq(wdata)
            with m.If(regs.write("push")):
                m.d.sync += [pending.eq(1), word.eq(Cat(*chunks)[:bn.word_bits])]
            m.d.comb += bn.i_data.eq(Mux(tag_mode, tags(N), bank.o_ingress))
            m.d.comb += bank.i_egress.eq(bn.o_data)
            rb = [Signal(W, name=f"brb{p}") for p in range(N)]
            with m.If(tag_mode):
                m.d.sync += [rb[p].eq(bn.o_data[p * W:(p + 1) * W]) for p in range(N)]
            regs.read({"info": N | (bn.stages << 16) | (W << 24), "ctrl": Cat(bn.o_loaded, Const(0, 15), commits),
                       "accepted": accepted, "rb_ctrl": tag_mode,
                       "network": int(bn.network == "waksman") | (bn.latency << 8), "chunk": chunks, "rb": rb})
            regs.check()

        # --- next hop ---
        if self.has_nh:
            m.submodules.nexthop = nh = self.nh
            regs = decode("nexthop")
            hop, result = Signal(8), Signal(32)
            with m.If(regs.write("query")):
                m.d.comb += [nh.i_valid.eq(1), nh.i_node.eq(wdata[:16]), nh.i_dest.eq(wdata[16:]),
                             nh.i_hop.eq(hop)]
                m.d.sync += result.eq(0)
            with m.If(regs.write("hop")):
                m.d.sync += hop.eq(wdata)
            with m.If(nh.o_valid):
                m.d.sync += result.eq(Cat(nh.o_next, Const(0, 16 - len(nh.o_next)), nh.o_link,
                                          Const(0, 15 - len(nh.o_link)), 1))
            regs.read({"info": self.M | (self.S << 16) | (self.nh_h << 24) | (int(self.nh_table) << 31),
                       "hop": hop, "result": result})
            regs.check()

        # --- live-traffic network ---
        if self.has_net:
            _net_elaborate(self, m, decode("netgen"), wdata)
            through += _planes_elaborate(self, m, decode("netplanes"), wdata)

        # PRBS reads come from the banks' own registered data
        if rd_x or rd_b:
            with m.If(re):
                if rd_x:
                    with m.If(rd_x[1]):
                        m.d.sync += src.eq(1)
                if rd_b:
                    with m.If(rd_b[1]):
                        m.d.sync += src.eq(2)
        with m.If(re):
            for k, (hit, _) in enumerate(through):
                with m.If(hit):
                    m.d.sync += src.eq(3 + k)
        out = rdata
        for k, (_, data) in enumerate(through):
            out = Mux(src == 3 + k, data, out)
        if rd_x:
            out = Mux(src == 1, rd_x[0].rdata, out)
        if rd_b:
            out = Mux(src == 2, rd_b[0].rdata, out)
        m.d.comb += br.bus_rdata.eq(out)
        missing = [b for b in R.DESIGNS[self.design] if b not in decoded]
        require(not missing, f"HIL design {self.design!r}: block(s) {', '.join(missing)} of regmap.DESIGNS "
                "have no logic in HilTop")
        return m


def network_gen(M: int, S: int, *, planes: str = "wires", flit_width: int = NET_FLIT_WIDTH,
                vcs: int | None = None, network: str = "benes", switching: str = "vct",
                ejection: int | None = None, stages: int | None = None):
    """The network of the ``network`` design: LDI(M, S) with its family routing, ``flit_width``-bit
    flit payloads, 64-deep source queues, its routers those of ``switching``
    (:data:`NETWORK_DESIGNS`). ``planes``: ``wires`` (fixed), or ``crossbar`` / ``benes``
    (``network``: ``benes`` or ``waksman``) planes loadable at run time
    (:class:`permnet.hdl.planes.PlaneSet`) with the routers' loadable tables and the swap.

    ``vct``: VC routers (:class:`permnet.hdl.hil.netgen.NetworkGen`), route tables, hop-indexed
    VCs (``vcs``, default as many as the longest route), 4-flit buffers, the drained swap
    (:mod:`permnet.hdl.swapctl`) for new routes of up to ``vcs`` hops. ``deflection``: deflection
    routers (:class:`permnet.hdl.hil.deflgen.DeflectionGen`), ``ejection`` ports (E, default 2)
    and ``stages`` (P, 1 or 2, default 1) per router, loadable productive masks, swapped without
    a drain."""
    from permnet.gen.planes import runtime
    from permnet.gen.routing import tables
    from permnet.hdl.netip import PLANE_KINDS

    ldi.check_params(M, S)
    require(M <= R.MAX_NET_NODES, f"the network design holds at most {R.MAX_NET_NODES} nodes, got M={M}")
    require(planes in PLANE_KINDS, f"unknown planes {planes!r} (one of {', '.join(PLANE_KINDS)})")
    t = tables.network("ldi", M, S).table
    require(switching in NETWORK_DESIGNS, f"the network design's switching is {' or '.join(NETWORK_DESIGNS)}, "
            f"got {switching!r}")
    if planes != "wires":
        entry_bits = runtime.data_bits(planes, M, network)
        require(entry_bits <= 32, f"{planes} planes of {M} ports have {entry_bits}-bit entries; "
                "the link writes 32 bits (Beneš planes: M <= 32)")
    design = NETWORK_DESIGNS[switching]
    options = {"vcs": vcs, "ejection": ejection, "stages": stages}
    bad = [flag for name, flag in NETWORK_OPTIONS.items() if options[name] is not None and name not in design.options]
    require(not bad, f"{' and '.join(bad)} mean(s) nothing with --switching {switching}")
    return design.build(t, planes, network, flit_width, **{n: options[n] for n in design.options})


def _vc_network(t, planes, network, flit_width, vcs=None):
    from permnet.gen.limits import RTL_VC_BUFFERS
    from permnet.hdl.hil.netgen import NetworkGen
    from permnet.hdl.planes import PlaneSet

    S, M = t.planes.shape
    vcs = vcs or t.max_hops
    require(vcs >= t.max_hops, f"--vcs {vcs} is below the longest route ({t.max_hops} hops): hop-indexed VCs "
            "could deadlock")
    require(vcs <= 15, f"--vcs must be at most 15 (netgen_info holds 4 bits), got {vcs}")
    require(M * S * vcs <= RTL_VC_BUFFERS, f"the network design elaborates M*S*vcs <= {RTL_VC_BUFFERS} VC buffers "
            f"(as permnet rtl network); got {M}*{S}*{vcs} = {M * S * vcs}")
    if planes == "wires":
        return NetworkGen(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), vcs=vcs, buffer=NET_BUFFER,
                          flit_width=flit_width, queue=NET_QUEUE)
    rows = t.planes.tolist()
    return NetworkGen(rows, t.length.tolist(), t.hops.tolist(), vcs=vcs, buffer=NET_BUFFER,
                      flit_width=flit_width, queue=NET_QUEUE, swap=True,
                      plane_set=lambda fw, bw: PlaneSet(M, S, fw, bw, planes, rows, network=network, gate_bits=1))


def _deflection_network(t, planes, network, flit_width, ejection=None, stages=None):
    from permnet.hdl.deflect import DEFAULT_EJECTION, DEFAULT_STAGES
    from permnet.hdl.hil.deflgen import DeflectionGen

    S = t.planes.shape[0]
    E = DEFAULT_EJECTION if ejection is None else ejection
    P = DEFAULT_STAGES if stages is None else stages
    require(isinstance(E, int) and 1 <= E <= S, f"--ejection-width must be 1..S = {S}, got {E}")
    require(P in (1, 2), f"--stages must be 1 or 2, got {P}")
    require(planes != "benes" or network == "benes", "--network waksman: the deflection network's run-time "
            "Beneš planes are benes")
    return DeflectionGen(t.planes.tolist(), ejection=E, stages=P, flit_width=flit_width, queue=NET_QUEUE,
                         plane_kind=planes)


@dataclass(frozen=True)
class NetworkDesign:
    """The routers of the ``network`` design for one switching (:data:`NETWORK_DESIGNS`):
    ``build(table, planes, network, flit_width, **options)`` the live-traffic network from the
    family's route table and the keywords of ``options`` (of :data:`NETWORK_OPTIONS`; any other
    one given is refused); ``info(net)`` the words of ``netgen_info`` and ``netgen_info2``
    (:mod:`permnet.hil.netrun` reads the kind from them); ``plane_info(net)`` the run-time plane
    set and the word of ``netplanes_info2``; ``label`` what the identifier adds."""

    build: Callable
    options: tuple
    info: Callable
    plane_info: Callable
    label: str = ""


#: the network design's router options (HilTop keywords) and their CLI flags
NETWORK_OPTIONS = {"vcs": "--vcs", "ejection": "--ejection-width", "stages": "--stages"}

#: the network design's routers by switching (:mod:`permnet.routerkinds` names the same kinds)
NETWORK_DESIGNS = {
    # VCs, log2 buffer and lanes in the info words; the route table's entries and hop limit in info2
    "vct": NetworkDesign(
        _vc_network, ("vcs",),
        lambda net: (net.M | (net.S << 16) | (net.V << 24) | ((net.B.bit_length() - 1) << 28),
                     net.W | (net.Q << 8) | (net.L << 24)),
        lambda net: (net.ip.planes,
                     ((1 << net.route_addr_bits) if net.router == "table" else net.S) | (net.H << 16))),
    # VCs 0 marks deflection routers: stages in place of log2 buffer, ejection ports in place of lanes;
    # a node's masks, one per destination, and no hop limit (0): every plane a permutation routes
    "deflection": NetworkDesign(
        _deflection_network, ("ejection", "stages"),
        lambda net: (net.M | (net.S << 16) | (net.P << 28), net.W | (net.Q << 8) | (net.E << 24)),
        lambda net: (net.net.plane_set, net.M), " deflection"),
}


def _net_elaborate(self, m, regs, wdata):
    """The ``netgen`` block: registers into :class:`permnet.hdl.hil.netgen.NetworkGen`'s ports."""
    net = self.net
    m.submodules.net = net
    names = ("pattern", "rate", "size", "seed_lo", "seed_hi", "hot", "hot_frac", "start", "stop")
    r = {name: Signal(32, name=f"net_{name}", init=1 if name == "size" else 0) for name in names}
    perm = [Signal(32, name=f"net_perm{n}") for n in range(net.M)]
    for name in names:
        with m.If(regs.write(name)):
            m.d.sync += r[name].eq(wdata)
    for n in range(net.M):
        with m.If(regs.write("perm", n)):
            m.d.sync += perm[n].eq(wdata)
    hold = Signal(name="net_hold")
    with m.If(regs.write("ctrl")):
        m.d.comb += net.clear.eq(wdata[0])
        m.d.sync += hold.eq(wdata[1])
    m.d.comb += net.hold.eq(hold)
    m.d.comb += [net.pattern.eq(r["pattern"]), net.rate.eq(r["rate"]), net.size.eq(r["size"]),
                 net.seed.eq(Cat(r["seed_lo"], r["seed_hi"])), net.hot.eq(r["hot"]), net.hot_frac.eq(r["hot_frac"]),
                 net.start.eq(r["start"]), net.stop.eq(r["stop"])]
    m.d.comb += [net.perm[n].eq(perm[n]) for n in range(net.M)]
    values = {name: r[name] for name in names} | {"perm": perm, "cycle": net.cycle}
    values |= {name: [getattr(net, name)[n] for n in range(net.M)] for name in R.NET_COUNTERS}
    values["info"], values["info2"] = self.net_design.info(net)
    regs.read(values)
    regs.check()


def _planes_elaborate(self, m, regs, wdata):
    """The ``netplanes`` block: shadow writes and read-back of the plane set's ``cfg`` and the
    routers' ``rt`` ports, the swap request (now, or at a run cycle) and its report. With wires
    the writes do nothing and the read-backs read 0.

    The windows ``plane_win`` / ``rt_win`` address the ports at the address register's entry +
    the word's index while the bus addresses them; both ports' ``rdata`` are registered (the
    active entry at the address of the cycle before), so in the cycle after the read strobe they
    hold the entry the strobe's address named, which is when the bridge takes the data: returned
    as ``(addressed, data)`` pairs the top level routes to the bridge."""
    net = self.net
    kind = self.planes_kind
    paddr, raddr = Signal(32, name="np_plane_addr"), Signal(32, name="np_rt_addr")
    swap_at = Signal(32, name="np_swap_at", init=R.NO_SWAP)
    swaps, swap_cycle = Signal(16, name="np_swaps"), Signal(32, name="np_swap_cycle")
    with m.If(regs.write("swap_at")):
        m.d.sync += swap_at.eq(wdata)
    pw, rw = regs.write("plane_data"), regs.write("rt_data")
    with m.If(regs.write("plane_addr")):
        m.d.sync += paddr.eq(wdata)
    with m.Elif(pw):
        m.d.sync += paddr[:16].eq(paddr[:16] + 1)
    with m.If(regs.write("rt_addr")):
        m.d.sync += raddr.eq(wdata)
    with m.Elif(rw):
        m.d.sync += raddr[:16].eq(raddr[:16] + 1)
    req = regs.write("swap") & wdata[0]
    values = {"plane_addr": paddr, "rt_addr": raddr, "swap_at": swap_at}
    if kind == "wires":
        regs.read(values | {"info": 0, "info2": 0, "plane_rb": 0, "rt_rb": 0, "plane_win": 0, "rt_win": 0,
                            "status": Cat(Const(0, 1), Const(1, 1)), "swap_cycles": 0, "swap_cycle": 0})
        regs.check()
        return []
    cfg, rt = net.cfg, net.rt
    at = (net.cycle == swap_at) & (swap_at != R.NO_SWAP) & ~net.hold
    pwin, rwin = regs.read_through("plane_win"), regs.read_through("rt_win")
    m.d.comb += [cfg.plane.eq(paddr[16:24]), cfg.addr.eq(paddr[:16] + Mux(pwin, regs.index("plane_win"), 0)),
                 cfg.data.eq(wdata), cfg.we.eq(pw), cfg.commit.eq(0),
                 rt.node.eq(raddr[16:]), rt.addr.eq(raddr[:16] + Mux(rwin, regs.index("rt_win"), 0)),
                 rt.data.eq(wdata), rt.we.eq(rw), net.swap_req.eq(req | at)]
    with m.If(net.swap_done):
        m.d.sync += [swaps.eq(swaps + 1), swap_cycle.eq(net.cycle - 1)]
    with m.If(net.clear):
        m.d.sync += [swaps.eq(0), swap_cycle.eq(0)]
    ps, rt_info = self.net_design.plane_info(net)
    info = R.PLANE_KIND_CODES[kind] | (int(ps.network == "waksman") << 8) | (ps.entries << 16)
    regs.read(values | {"info": info, "info2": rt_info, "plane_rb": cfg.rdata,
                        "rt_rb": rt.rdata, "status": Cat(net.swap_draining, net.idle, Const(0, 14), swaps),
                        "swap_cycles": net.swap_cycles, "swap_cycle": swap_cycle})
    regs.check()
    return [(pwin, cfg.rdata), (rwin, rt.rdata)]


def generated(design: str = "crossbar", **params):
    """:class:`permnet.hdl.emit.Generated` for ``permnet rtl hil``."""
    from permnet.hdl.emit import Generated

    top = HilTop(design, **params)
    shown = {"design": design, **{k: v for k, v in params.items() if v is not None}}
    return Generated("hil", "hil_top", top, shown)


def register_map_text(params: dict, fmt: str = "md") -> str:
    """The register map of ``HilTop(**params)`` as Markdown (``md``), a
    LiteX-style ``csr.csv`` (``csv``) or SystemRDL (``rdl``,
    :func:`permnet.gen.hil.rdl.to_rdl`: ``addrmap permnet_hil_<design>``)."""
    require(fmt in ("md", "csv", "rdl"), f"unknown register map format {fmt!r}")
    params = dict(params)
    top = HilTop(params.pop("design", "crossbar"), **params)
    regs = top.registers()
    if fmt == "rdl":
        from permnet.gen.hil.rdl import to_rdl

        return to_rdl(regs, f"permnet_hil_{top.design}", top.identifier())
    return R.to_markdown(regs) if fmt == "md" else R.to_csv(regs)
