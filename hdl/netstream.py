"""The network with open stream endpoints (issue 24): per node an injection
and an ejection stream, AXI-Stream names on the Verilog ports.

:class:`NetworkStream` wraps :class:`permnet.hdl.netip.NetworkIP` (routers
with one or two injection lanes and one ejection port each) with one
:class:`StreamInjector` (or :class:`TwoLaneInjector`) per node. A packet is a
sequence of W-bit flits (the ``tdata`` beats) ending with ``tlast``; ``tdest`` of its first beat is the
destination node. On the way out ``tdest`` is the source node. The ports of
node d are ``n{d}_in_tvalid n{d}_in_tready n{d}_in_tdata n{d}_in_tlast
n{d}_in_tdest`` and ``n{d}_out_t...`` the same; ``dest_error`` (sticky) rises
when a packet named a ``tdest`` that is not a node (that packet is taken and
dropped). The ports of a run-time plane set other than its links (its
``cfg``) are ports of the top too (:class:`permnet.hdl.netip.NetworkIP`), and
with ``swap=True`` the drained plane swap's (``swap_req``, ``swap_draining``,
``swap_done``, ``swap_cycles``, ``idle``, the route tables' ``rt``;
:mod:`permnet.hdl.swapctl`): while a swap drains the network, packets keep
entering the injection FIFOs (``tready`` as usual) but none starts into the
routers; they start, routed by the new tables, after the commit.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Module, Mux, Signal
from amaranth.lib import data, fifo, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.hdl.netip import NetworkIP, forward_ports
from permnet.hdl.router import bits

__all__ = ["NetworkStream", "StreamInjector", "TwoLaneInjector", "AXIS_IN", "AXIS_OUT"]

AXIS_IN = ("tvalid", "tready", "tdata", "tlast", "tdest")
AXIS_OUT = AXIS_IN


def beat_layout(width: int, dest_bits: int) -> data.StructLayout:
    """One stream beat: ``data`` (W bits), ``last``, ``dest``."""
    return data.StructLayout({"data": width, "last": 1, "dest": dest_bits})


def packet_framing(m, beat, nodes: int, max_packet: int, size_bits: int, dest_error):
    """Cut a stream of beats into packets: ``(take, dst, bad, last, count)``, ``take`` a signal
    the caller drives high when it takes ``beat``, and of that beat: its packet's destination
    (the ``dest`` of its first beat), ``bad`` if that is not a node (the packet is dropped and
    ``dest_error`` rises), ``last`` if it ends the packet (``last`` or the ``max_packet``-th
    beat) and ``count`` (``size_bits`` wide) the beats of its packet before it."""
    nb, zb = len(beat.dest), size_bits
    first = Signal(init=1)
    count = Signal(zb)
    pdst, pbad = Signal(nb), Signal()
    dst = Mux(first, beat.dest, pdst)
    bad = Mux(first, beat.dest >= nodes, pbad) if nodes < 1 << nb else Mux(first, 0, pbad)
    last = beat.last | (count == max_packet - 1)
    take = Signal()
    with m.If(take):
        m.d.sync += [first.eq(last), count.eq(Mux(last, 0, count + 1))]
        with m.If(first):
            m.d.sync += [pdst.eq(beat.dest), pbad.eq(bad)]
        with m.If(bad):
            m.d.sync += dest_error.eq(1)
    return take, dst, bad, last, count


class StreamInjector(wiring.Component):
    """A node's injection side: a packet stream in, a router descriptor and lane data out.

    ``i`` (``lib.stream`` of :func:`beat_layout`): flits are written into a FIFO of ``depth``
    flits; the beat with ``last`` (or the ``max_packet``-th beat of a packet, which then ends
    it) completes the packet, and its descriptor ``(dst, size)`` (``dst`` the ``dest`` of the
    packet's first beat) enters a descriptor FIFO. A packet taken with its last beat in cycle
    t is offered to the router in t + 1 (the simulator's trace creates it at t + 1).
    ``i.ready`` is low while either FIFO is full. ``lane`` (flipped router lane port):
    ``lane.data`` is the flit at the FIFO head, popped on ``lane.pop``. A packet whose
    destination is not below ``nodes`` is taken and dropped, and ``dest_error`` rises."""

    #: the router lanes it feeds (``lane`` is one lane port, or an array of them)
    lanes = 1

    def __init__(self, nodes: int, width: int, size_bits: int, max_packet: int, depth: int, lane_signature):
        require(width >= 1, f"stream endpoints need flit width >= 1, got {width}")
        require(1 <= max_packet <= depth, f"the injection FIFO ({depth} flits) must hold a packet ({max_packet})")
        require(max_packet < 1 << size_bits, f"{max_packet}-flit packets need more than {size_bits} size bits")
        self.nodes, self.W, self.zb, self.P, self.D = nodes, width, size_bits, max_packet, depth
        self.nb = bits(nodes - 1)
        lane = In(lane_signature) if self.lanes == 1 else In(lane_signature).array(self.lanes)
        super().__init__({"i": In(stream.Signature(beat_layout(width, self.nb))),
                          "desc": Out(stream.Signature(data.StructLayout({"dst": self.nb, "size": size_bits}))),
                          "lane": lane, "dest_error": Out(1)})

    def elaborate(self, platform):
        m = Module()
        nb, zb = self.nb, self.zb
        m.submodules.flits = flits = fifo.SyncFIFO(width=self.W, depth=self.D)
        m.submodules.descs = descs = fifo.SyncFIFO(width=nb + zb, depth=self.D)
        beat = self.i.payload
        take, dst, bad, last, count = packet_framing(m, beat, self.nodes, self.P, zb, self.dest_error)
        m.d.comb += [self.i.ready.eq(flits.w_rdy & descs.w_rdy), take.eq(self.i.valid & self.i.ready),
                     flits.w_en.eq(take & ~bad), flits.w_data.eq(beat.data),
                     descs.w_en.eq(take & last & ~bad), descs.w_data.eq(Cat(dst, (count + 1)[:zb]))]
        m.d.comb += [self.desc.valid.eq(descs.r_rdy), self.desc.payload.eq(descs.r_data),
                     descs.r_en.eq(self.desc.valid & self.desc.ready),
                     self.lane.data.payload.eq(flits.r_data), flits.r_en.eq(self.lane.pop)]
        return m


class TwoLaneInjector(StreamInjector):
    """:class:`StreamInjector` for a router with two injection lanes: the same stream in and
    descriptor out, and ``lane`` two lane ports. The router takes a descriptor into its lowest
    free lane (:class:`permnet.hdl.router.Router`); the injector follows that rule to know which
    packet each lane holds, so both lanes read their own packet's flits at once.

    The flits sit in a ring of ``depth`` words (a memory with one write port and one
    asynchronous read port per lane). Packets' words are contiguous in arrival order, so the
    front descriptor's packet starts where the last one taken ended (``front``); lane j reads
    its packet's word ``idx_j`` from a register kept at that word (``at_j``), a free lane the
    front packet's first word: every read address is a register. Packets leave in any order
    but their words are freed in arrival order: when the oldest packet in a lane sends its
    tail, its words and those of the younger packets already sent (``pend``) are freed
    together, a cycle after that tail left. ``i.ready`` is low while the ring or the
    descriptor FIFO is full. Timing is :class:`StreamInjector`'s: a packet whose last beat is
    taken in cycle t is offered in t + 1."""

    lanes = 2

    def __init__(self, nodes: int, width: int, size_bits: int, max_packet: int, depth: int, lane_signature):
        require(depth & (depth - 1) == 0, f"two lanes need a power-of-two injection FIFO, got {depth} flits")
        super().__init__(nodes, width, size_bits, max_packet, depth, lane_signature)
        self.ab = bits(depth - 1)

    def elaborate(self, platform):
        m = Module()
        nb, zb, ab, D = self.nb, self.zb, self.ab, self.D
        ring = m.submodules.ring = Memory(shape=self.W, depth=D, init=[])
        wr = ring.write_port()
        reads = [ring.read_port(domain="comb") for _ in range(2)]
        m.submodules.descs = descs = fifo.SyncFIFO(width=nb + zb, depth=D)
        used = Signal(range(D + 1))               # words written and not yet freed
        wp = Signal(ab)                           # the next word to write
        beat = self.i.payload
        take, dst, bad, last, count = packet_framing(m, beat, self.nodes, self.P, zb, self.dest_error)
        wrote = Signal()
        m.d.comb += [self.i.ready.eq((used != D) & descs.w_rdy), take.eq(self.i.valid & self.i.ready),
                     wrote.eq(take & ~bad), wr.en.eq(wrote), wr.addr.eq(wp), wr.data.eq(beat.data),
                     descs.w_en.eq(take & last & ~bad), descs.w_data.eq(Cat(dst, (count + 1)[:zb]))]
        with m.If(wrote):
            m.d.sync += wp.eq(wp + 1)
        # the descriptor the router takes goes into its lowest free lane
        m.d.comb += [self.desc.valid.eq(descs.r_rdy), self.desc.payload.eq(descs.r_data),
                     descs.r_en.eq(self.desc.valid & self.desc.ready)]
        # the packets' words are contiguous in arrival order, so the front descriptor's packet
        # starts where the last one taken ended (a register, off the router's decision)
        dsize = descs.r_data[nb:]
        front = Signal(ab)
        with m.If(descs.r_en):
            m.d.sync += front.eq(front + dsize)
        busy = [Signal(name=f"busy{j}") for j in range(2)]
        lsize = [Signal(zb, name=f"size{j}") for j in range(2)]
        at = [Signal(ab, name=f"at{j}") for j in range(2)]        # the word lane j reads next
        move = [Signal(name=f"move{j}") for j in range(2)]
        fin = [Signal(name=f"fin{j}") for j in range(2)]
        esize = []
        m.d.comb += [move[0].eq(descs.r_en & ~busy[0]), move[1].eq(descs.r_en & busy[0] & ~busy[1])]
        for j, lane in enumerate(self.lane):
            # at[j] is the word at the lane's idx (a register, so no adder before the read); a
            # free lane reads the front packet's first word, in case the packet moves in
            size = Mux(move[j], dsize, lsize[j])
            esize.append(size)
            m.d.comb += [reads[j].addr.eq(Mux(busy[j], at[j], front)), lane.data.payload.eq(reads[j].data),
                         fin[j].eq((busy[j] | move[j]) & lane.pop & (lane.idx == size - 1))]
            with m.If(move[j]):
                m.d.sync += [lsize[j].eq(dsize), at[j].eq(front + lane.pop)]
            with m.Elif(lane.pop):
                m.d.sync += at[j].eq(at[j] + 1)
            m.d.sync += busy[j].eq((busy[j] | move[j]) & ~fin[j])
        # words freed in arrival order: the oldest packet in a lane frees its words and those of
        # the younger ones sent before it (pend). The count follows a cycle behind, from registered
        # copies of this cycle's lane events (off the router's pop), so the ring frees a cycle later.
        events = {"busy": busy, "move": move, "fin": fin, "size": esize}
        was = {key: [Signal.like(sig, name=f"was_{key}{j}") for j, sig in enumerate(sigs)]
               for key, sigs in events.items()}
        m.d.sync += [was[key][j].eq(sig) for key, sigs in events.items() for j, sig in enumerate(sigs)]
        older = Signal()                          # the lane of the oldest packet, while it is busy
        pend = Signal(range(D + 1))
        o = Signal()
        m.d.comb += o.eq(Mux(Array(was["busy"])[older], older, was["move"][1]))
        fin_o, fin_y = Array(was["fin"])[o], Array(was["fin"])[~o]
        size_o, size_y = Array(was["size"])[o], Array(was["size"])[~o]
        young = Mux(fin_y, size_y, 0)
        freed = Mux(fin_o, size_o + pend + young, 0)
        m.d.sync += [pend.eq(Mux(fin_o, 0, pend + young)), older.eq(Mux(fin_o, ~o, o)),
                     used.eq(used + wrote - freed)]
        return m


class NetworkStream(wiring.Component):
    """The network of ``routes`` (:class:`permnet.hdl.routes.NetworkRoutes`) with an AXI-Stream
    injection and ejection port per node (module doc). ``flit_width`` W data bits per flit;
    ``max_packet`` flits per packet at most (longer ones are cut into packets of that size;
    default ``buffer``; virtual cut-through needs ``max_packet <= buffer``); ``depth`` flits of
    injection FIFO per node (default ``lanes * max_packet``, rounded up to a power of two); ``lanes``
    injection lanes per node, 1 (:class:`StreamInjector`) or 2 (:class:`TwoLaneInjector`: a
    second packet asks for its VC or the switch while the first crosses); ``link_stages``,
    ``credit_stages``, ``plane_set`` and
    ``swap`` as in :class:`permnet.hdl.netip.NetworkIP`; ``allocator`` the routers'
    (:class:`permnet.hdl.router.Router`: ``"input-first"`` keeps each input port's buffers in
    one LUT RAM, ``"two-stage"`` also registers each port's offer and the ejection).

    Latency and back-pressure: a packet is offered to its router the cycle after its last
    beat is taken (store and forward at the injector); from there the routers' timing holds
    (:class:`permnet.hdl.router.Router`: one cycle per hop, one flit per cycle), with
    ``lanes`` injection lanes and one ejection port per node. ``n{d}_out_tready`` low stalls node d's
    ejection: the offered flit stays in its VC buffer (so do the flits behind it) and its credit
    is returned only when it is taken (two-stage: the flit in the ejection register waits
    there, and the next one in its buffer); the ejection port holds one packet from head to tail
    (``tlast``), so packets never interleave on a stream. ``n{d}_in_tready`` is low while the
    injection FIFOs are full. With every ``tready`` high the network is cycle-exact with
    ``permnet.sim.netsim`` under ``Config(lanes=lanes, ejection="port", link_stages=link_stages,
    credit_stages=credit_stages, allocator=allocator)``, each stage count one higher when the
    plane set registers its outputs (``plane_set_factory(..., register=True)``)."""

    # synthesised as the self-test network is (:class:`permnet.hdl.network.NetworkRTL`): one flat
    # network, without ABC9's sequential mode, routed with nextpnr's router2
    synth_dff = False
    synth_router = "router2"

    @property
    def synth_nodes(self) -> int:
        """The nodes of the network (:func:`permnet.hdl.synth.synthesize` reports LUTs per node)."""
        return self.M

    def __init__(self, routes, *, vcs: int, buffer: int, wormhole: bool = False, flit_width: int = 32,
                 max_packet: int | None = None, depth: int | None = None, link_stages: int = 0, plane_set=None,
                 swap: bool = False, credit_stages: int = 0, allocator: str = "combined", lanes: int = 1):
        require(lanes in (1, 2), f"stream endpoints have 1 or 2 injection lanes per node, got {lanes}")
        P = buffer if max_packet is None else int(max_packet)
        require(P >= 1, f"max packet must be >= 1 flit, got {P}")
        require(wormhole or P <= buffer,
                f"virtual cut-through needs a VC buffer ({buffer} flits) that holds a packet ({P} flits)")
        D = depth or 1 << (lanes * P - 1).bit_length()
        require(flit_width >= 1, f"stream endpoints need --flit-width >= 1, got {flit_width}")
        self.routes, self.M, self.S = routes, routes.M, routes.S
        self.W, self.P, self.D, self.L = int(flit_width), P, D, lanes
        self.nb = bits(self.M - 1)
        self.zb = bits(max(P, buffer))
        self.ip = NetworkIP(routes, vcs=vcs, buffer=buffer, lanes=lanes, wormhole=wormhole, size_bits=self.zb,
                            data_fields={"payload": self.W}, eject="port", link_stages=link_stages, credit_stages=credit_stages,
                            plane_set=plane_set, swap=swap, allocator=allocator, compact=True)
        self.V, self.B, self.K = self.ip.V, self.ip.B, self.ip.K
        members = {}
        for d in range(self.M):
            members |= {f"n{d}_in_tvalid": In(1), f"n{d}_in_tready": Out(1), f"n{d}_in_tdata": In(self.W),
                        f"n{d}_in_tlast": In(1), f"n{d}_in_tdest": In(self.nb),
                        f"n{d}_out_tvalid": Out(1), f"n{d}_out_tready": In(1), f"n{d}_out_tdata": Out(self.W),
                        f"n{d}_out_tlast": Out(1), f"n{d}_out_tdest": Out(self.nb)}
        members["dest_error"] = Out(1)
        require(not set(members) & set(self.ip.control_ports), "plane set ports clash with the stream ports")
        super().__init__(members | self.ip.control_ports)

    def port(self, d: int, side: str, name: str):
        """The signal ``n{d}_{side}_{name}`` (side ``in`` or ``out``, name ``tvalid`` ...)."""
        return getattr(self, f"n{d}_{side}_{name}")

    def elaborate(self, platform):
        m = Module()
        ip = m.submodules.ip = self.ip
        lane_sig = ip.routers[0].signature.members["lane"].signature
        errors = []
        for d in range(self.M):
            injector = StreamInjector if self.L == 1 else TwoLaneInjector
            nic = m.submodules[f"inject{d}"] = injector(self.M, self.W, self.zb, self.P, self.D, lane_sig)
            m.d.comb += [nic.i.valid.eq(self.port(d, "in", "tvalid")), self.port(d, "in", "tready").eq(nic.i.ready),
                         nic.i.payload.data.eq(self.port(d, "in", "tdata")),
                         nic.i.payload.last.eq(self.port(d, "in", "tlast")),
                         nic.i.payload.dest.eq(self.port(d, "in", "tdest"))]
            wiring.connect(m, nic.desc, ip.inj[d])
            if self.L == 1:
                wiring.connect(m, ip.lane[d][0], nic.lane)
            else:
                for j in range(self.L):
                    wiring.connect(m, ip.lane[d][j], nic.lane[j])
            ej = ip.ej[d]
            m.d.comb += [self.port(d, "out", "tvalid").eq(ej.valid), ej.ready.eq(self.port(d, "out", "tready")),
                         self.port(d, "out", "tdata").eq(ej.payload.payload),
                         self.port(d, "out", "tlast").eq(ej.payload.last),
                         self.port(d, "out", "tdest").eq(ej.payload.src)]
            errors.append(nic.dest_error)
        m.d.comb += self.dest_error.eq(Cat(*errors).any())
        forward_ports(m, self, ip, self.ip.control_ports)
        return m
