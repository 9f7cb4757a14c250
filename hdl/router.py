"""One router of a plane network (issue 24): the node model of ``permnet.sim.netsim``.

:class:`Router` is one node n of a network of M nodes joined through S
switching planes. Every network top (:class:`permnet.hdl.netip.NetworkIP`
and the tops that wrap it) is built from it; it is cycle-exact with the
router of the cycle-level simulator (:mod:`permnet.sim.netsim`, whose
docstring states the model).

A flit carries ``src, dst, hop, size, idx`` (:func:`flit_layout`) plus the
caller's fields: ``tags`` (per packet, taken from the injection descriptor,
e.g. the self-test's serial number) and ``data`` (per flit, fetched through
the lane port, e.g. the payload). With ``compact=True`` (the stream
network's routers) it carries ``src, dst, size, last``: a head's hop count is
its input VC's number plus one (hop-indexed VCs with V at least the longest
route), and whether a flit is a head is known per input VC (the flit after a
tail), so neither travels.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Shape, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.routing.allocation import ALLOCATORS, OFFER_AHEAD
from permnet.hdl.muxtree import kept_ff, mux_word
from permnet.hdl.nexthop import LdiNextHop

__all__ = ["Router", "ALLOCATORS", "EJECT_MODES", "bits", "flit_layout", "link_signature", "route_port_signature"]

EJECT_MODES = ("vc", "port")
# what the allocation reads of a buffer's head flit, derived from its fields as it is written and
# kept beside it, then in a register per buffer: the head bit (idx == 0), the tail bit
# (idx == size - 1) and the credits it needs less one (size - 1, the thermometer bit it tests)
HEAD_BITS = ("first", "tail", "need")


def bits(n: int) -> int:
    """Bits of an unsigned value up to ``n`` (at least 1)."""
    return max(1, int(n).bit_length())


def flit_layout(node_bits: int, hop_bits: int, size_bits: int, extra: dict | None = None,
                compact: bool = False) -> data.StructLayout:
    """``src, dst`` (node numbers), ``hop`` (hops taken), ``size`` (flits of the packet),
    ``idx`` (this flit's index; the head is 0, the tail ``size - 1``), then ``extra``.
    ``compact``: ``src, dst, size`` and ``last`` (the tail bit), then ``extra``: the hop count
    and the index are rebuilt where they are needed (:class:`Router`, ``compact``)."""
    if compact:
        return data.StructLayout({"src": node_bits, "dst": node_bits, "size": size_bits, "last": 1,
                                  **(extra or {})})
    return data.StructLayout({"src": node_bits, "dst": node_bits, "hop": hop_bits, "size": size_bits,
                              "idx": size_bits, **(extra or {})})


def link_signature(layout, vcs: int) -> wiring.Signature:
    """One link through a plane, seen from the sending output port: ``valid`` and ``vc`` (the
    flit goes into that VC's buffer at the end of the cycle), ``flit``; ``credit[v]`` (in) is
    high in the cycle the receiving buffer pops a flit of VC v."""
    return wiring.Signature({"valid": Out(1), "vc": Out(bits(vcs - 1)), "flit": Out(layout), "credit": In(vcs)})


def route_port_signature(addr_bits: int, data_bits: int, node_bits: int = 0) -> wiring.Signature:
    """A loadable route table's port as the host sees it: ``addr``, ``data``, ``we`` (write
    ``data`` into the shadow entry ``addr``), ``commit`` (shadow -> active at that clock edge),
    ``rdata`` (in: the active entry at ``addr``). With ``node_bits`` (the network's port):
    ``node`` selects the router and there is no ``commit`` (the swap controller commits)."""
    members = {"node": Out(node_bits)} if node_bits else {}
    members |= {"addr": Out(addr_bits), "data": Out(data_bits), "we": Out(1)}
    if not node_bits:
        members["commit"] = Out(1)
    return wiring.Signature(members | {"rdata": In(data_bits)})


def _lane_signature(zb: int, tags: dict, data_fields: dict) -> wiring.Signature:
    members = {"idx": Out(zb), "pop": Out(1)}
    if tags:
        members["tags"] = Out(data.StructLayout(tags))
    if data_fields:
        members["data"] = In(data.StructLayout(data_fields))
    return wiring.Signature(members)


class Router(wiring.Component):
    """Node ``node`` of the network that ``routes`` (:class:`permnet.hdl.routes.NetworkRoutes`)
    describes: S input ports with ``vcs`` VC buffers of ``buffer`` flits each (a power of two),
    S output ports, ``lanes`` injection lanes, one ejection side.

    Ports
    -----
    ``i[y]`` (in) / ``o[y]`` (out), y < S: :func:`link_signature`; the planes join ``o[y]`` of
    node n to ``i[y]`` of node ``planes[y][n]``, the credit wire included.
    ``inj`` (in, ``lib.stream`` of ``dst, size`` and the tags): a packet descriptor; taken
    (``valid & ready``) into the lowest free lane, ``ready`` = a lane is free.
    ``lane[j]`` (out): the flit that lane j shows (``idx``, ``tags``); the caller returns that
    flit's ``data`` in the same cycle; ``pop`` is high when the flit leaves the lane.
    ``ej``: with ``eject="vc"`` one ``(valid, flit)`` per candidate k (input VC ``k = y V + v``,
    then the lanes): every candidate whose packet has arrived ejects one flit per cycle, never
    blocked (the simulator's default). With ``eject="port"`` one ``lib.stream`` of flits: an
    ejection arbiter (round robin, the request after the last granted one) picks one arrived
    packet and holds it from the cycle its head is first offered until its tail is taken.

    Hop k of a packet travels on VC ``min(k, V - 1)`` (hop-indexed VCs, Melhem Section 6; with V
    at least the longest route the channel dependency graph is acyclic), so the output VC of
    every flit at candidate k is one constant (:meth:`_next_vc`), held in no register, and
    the output VC's credit test is a choice among planes only. Round-robin arbiters
    grant the request after the last granted one (candidates: input VC ``k = y V + v``, then
    the lanes); each keeps the last grant as a mask ("candidates above it") and finds the
    lowest request above it, else the lowest request, with two lowest-set-bit detectors of
    logarithmic depth; grants are one-hot, and the output VC's owner and credit updates are
    taken from the one-hot grant, so the allocation loop never waits for the data path.

    Timing (each stage's latency)
    -----------------------------
    * Route computation: 0 cycles, off the allocation path. A flit is routed (the next-hop
      unit or the route table, one per input port) as it is written into its input buffer,
      and the decision is kept beside it with the flit's head and tail bits and the credits
      it needs (``HEAD_BITS``, derived as it is written); a buffer's head flit's copies sit
      in a head register, so the allocation never reads through the
      buffer's read multiplexer. A lane's packet is routed once, as its descriptor is taken
      (hop 0: on up to 64 nodes with fixed routes a ROM over ``dst`` of the route table's
      first hops), and the decision is kept in the lane.
    * VC and switch allocation and switch traversal: one cycle. A flit at the head of an
      input buffer (or a lane) in cycle t wins its output's round-robin arbiter and is
      written into the downstream buffer at the end of cycle t; it can leave that node in
      t + 1. With ``allocator="separate-va"`` VC allocation takes a cycle of its own: a head
      granted its output VC in cycle t asks the switch in t + 1 at the earliest.
    * ``link_stages`` L > 0 puts L registers on each output's forward path (valid, VC, flit;
      not on the credits): the flit is written at the end of t + L and can leave in
      t + 1 + L. The simulator's ``Config(link_stages=L)`` is the same model. The first
      stage registers the grant and every candidate's flit and does the output multiplexing
      in cycle t + 1 (a flit that left its buffer at the end of t is the one registered), so
      with L >= 1 the data path has a cycle of its own and the allocation ends at registers.
    * ``credit_stages`` C > 0 puts C registers on each input's credit output: a pop in
      cycle t raises ``credit`` in t + C and the upstream counter has it from t + 1 + C
      (``Config(credit_stages=C)``). L = C = 1 registers every signal that leaves the
      router except the injection and ejection handshakes.
    * Injection: a descriptor taken in cycle t is in a lane in t and its head may leave in t.
    * Ejection: a flit ejected in cycle t (``valid``, and ``ready`` with ``eject="port"``) is
      out of the buffer at the end of t (``"two-stage"``: it leaves its buffer into the
      ejection register at the end of t and is on ``ej`` in t + 1).
    * Credits (C = 0): a buffer pop in cycle t raises ``credit`` in t; the upstream counter
      has it back from t + 1 (the simulator's "credit visible the cycle after the pop").

    Allocation (``allocator``, the simulator's ``Config.allocator``): ``"combined"`` lets every
    input VC move in a cycle (9 candidates per output multiplexer at S = 4, V = 2, one lane);
    ``"input-first"`` (needs ``eject="port"``) lets each input port first offer one of its VCs,
    then the output and ejection arbiters go round the ports (:meth:`_input_first`): a port
    moves one flit per cycle, its buffers' flit fields sit in one
    LUT RAM per port, and the multiplexers take S + lanes inputs. Same timing otherwise.
    ``"two-stage"`` is input-first split over two cycles: each port's offer is a register,
    chosen in cycle t among the VCs that can move in t and those with no head that receive
    one in t, and asking in t + 1 if its VC can move then (so the port's arbiter is off the
    allocation loop); the ejection port is a register stage (the grant and the offered
    flits are registered, multiplexed in the next cycle), so the port's LUT RAM read feeds
    registers only. An ejected flit reaches ``ej`` a cycle after it left its buffer
    (``ej.ready`` low holds the register; a flit leaves its buffer when the register is
    empty or being emptied).
    ``"separate-va"`` is two-stage with VC allocation a cycle ahead of switch allocation
    (:meth:`_allocate_vcs`): a head without an output VC asks for one (plane from its
    routing decision, VC ``_next_vc``), one round-robin arbiter per output VC grants it
    among the heads it is free for, with the credits they need; the grant makes the VC owned
    and sets the head's ``al, out``, and the head asks the switch from the next cycle on.
    Switch allocation sees only allocated flits and, with virtual cut-through, tests no
    credits (the head's grant counted the packet's). A head therefore takes one cycle more
    per hop; the allocation loop of two-stage (credit test, owner, output arbiter, owner
    update) is split into VC allocation (credit test, owner, its arbiter, owner update) and
    switch allocation (head register, output arbiter, pop, head register update).

    ``cells="ecp5"`` builds the datapath multiplexers (buffer reads, the S output
    multiplexers, the ejection multiplexer) of hand-mapped ECP5 cells
    (:mod:`permnet.hdl.muxtree`; synthesis only), ``"generic"`` of plain Amaranth. With
    two-stage and separate-va it also builds the registered selects of the output and
    ejection multiplexers as hand-placed flip-flops, a copy per :attr:`SELECT_SPAN` flit
    bits (:meth:`_pick_registered`).

    Back-pressure
    -------------
    An output VC is owned from head to tail (``separate-va``: from its head's VC allocation
    to its tail's send); a head needs the whole packet's credits
    (virtual cut-through) or one (``wormhole``), every other flit one. Flits wait in their
    buffers; nothing is dropped. With ``eject="port"``, ``ej.ready`` low stalls the offered
    flit in its VC buffer and no credit goes back until it is popped (``"two-stage"``: the
    flit in the ejection register waits there, its credit already returned, and the next
    one in its VC buffer); an offered flit stays on ``ej``, unchanged, until it is taken
    (AXI-Stream's rule). Holding one packet from
    head to tail cannot deadlock: the flits still to come are, on every node they occupy, at
    the head of their buffers behind that packet's own flits, and each hop's output VC is
    owned by that packet, so they advance whenever the ejection stream takes flits.

    Loadable routing (``routes.loadable``, :mod:`permnet.hdl.routes`): port ``rt``
    (:func:`route_port_signature`, ``rdata`` combinational from ``addr``): a clock edge with
    ``we`` writes the shadow entry ``addr``, one with ``commit`` copies the whole shadow into
    the active table, which routes the flits that arrive from the next cycle on (those
    already buffered keep the decision made as they arrived; a swap commits with the
    network drained, :mod:`permnet.hdl.swapctl`).
    ``idle`` (out) is high while the router holds no flit: every input buffer and lane empty,
    no flit in a link stage or the ejection register, no credit in a credit stage; with no
    injection, an idle router stays idle until a flit comes.

    ``compact``: the links carry :func:`flit_layout`'s compact form (no hop count, no index;
    ``last`` instead), so the planes and the buffers are ``size_bits + bits(H) - 1`` bits
    narrower; needs ``vcs`` at least ``routes.H``. The ejected flits are in the same form.

    After construction ``buffers[y, v]`` holds the signals of input buffer (y, v) (``ent``: the
    entries as dicts of field signals, with input-first only the head bits and the routing decision, ``head``, ``count``), for fault injection in tests."""

    def __init__(self, routes, node: int, *, vcs: int, buffer: int, lanes: int, wormhole: bool = False,
                 size_bits: int, tags: dict | None = None, data_fields: dict | None = None, eject: str = "vc",
                 link_stages: int = 0, credit_stages: int = 0, cells: str = "generic", allocator: str = "combined",
                 compact: bool = False):
        require(allocator in ALLOCATORS, f"unknown allocator {allocator!r} (one of {', '.join(ALLOCATORS)})")
        require(allocator == "combined" or eject == "port",
                f"the {allocator} allocator needs one ejection port (--eject port, as the stream endpoints have)")
        require(isinstance(link_stages, int) and 0 <= link_stages <= 16,
                f"link stages must be 0..16, got {link_stages}")
        require(isinstance(credit_stages, int) and 0 <= credit_stages <= 16,
                f"credit stages must be 0..16, got {credit_stages}")
        require(buffer >= 2 and buffer & (buffer - 1) == 0, f"RTL buffers must be a power of two >= 2, got {buffer}")
        require(vcs >= 1, "vcs must be >= 1")
        require(lanes >= 1, "lanes must be >= 1")
        require(eject in EJECT_MODES, f"unknown ejection {eject!r} (one of {', '.join(EJECT_MODES)})")
        self.routes, self.node = routes, int(node)
        self.S, self.M, self.H = routes.S, routes.M, routes.H
        self.V, self.B, self.L = vcs, buffer, lanes
        self.K = self.S * vcs + lanes
        self.wormhole, self.eject, self.link_stages = wormhole, eject, link_stages
        self.credit_stages, self.allocator = credit_stages, allocator
        self.offer_ahead = allocator in OFFER_AHEAD
        self.separate_va = allocator == "separate-va"
        require(cells in ("generic", "ecp5"), f"unknown cells {cells!r} (generic, ecp5)")
        self.cells = cells
        self.nb, self.hb, self.zb = bits(self.M - 1), bits(self.H), size_bits
        self.tags, self.data_fields = dict(tags or {}), dict(data_fields or {})
        require(not compact or vcs >= self.H,
                f"compact links need a VC per hop: --vcs {vcs} is below the longest route ({self.H} hops)")
        self.compact = compact
        self.layout = flit_layout(self.nb, self.hb, self.zb, {**self.tags, **self.data_fields}, compact)
        self.widths = {f: Shape.cast(w).width for f, w in self.layout.members.items()}
        self.fields = tuple(self.widths)
        link = link_signature(self.layout, vcs)
        desc = data.StructLayout({"dst": self.nb, "size": self.zb, **self.tags})
        if eject == "vc":
            ej = Out(wiring.Signature({"valid": Out(1), "flit": Out(self.layout)})).array(self.K)
        else:
            ej = Out(stream.Signature(self.layout))
        members = {"i": In(link).array(self.S), "o": Out(link).array(self.S), "inj": In(stream.Signature(desc)),
                   "lane": Out(_lane_signature(self.zb, self.tags, self.data_fields)).array(lanes),
                   "ej": ej, "idle": Out(1)}
        if routes.loadable:
            members["rt"] = In(route_port_signature(routes.route_addr_bits, routes.route_data_bits))
        super().__init__(members)
        n, B = self.node, buffer
        # input-first: a buffer entry's flit fields live in its port's LUT RAM (``ram[y]``)
        kept = self.fields if allocator == "combined" else ()
        self.ram_fields = tuple(f for f in self.fields if f not in kept)
        self.head_widths = dict(zip(HEAD_BITS, (1, 1, bits(B - 1))))
        self.buffers = {
            (y, v): {"ent": [self._flit(f"f{n}_{y}_{v}_{i}", kept) for i in range(B)],
                     "head": Signal(bits(B - 1), name=f"fh{n}_{y}_{v}"),
                     "count": Signal(bits(B), name=f"fc{n}_{y}_{v}"),
                     "hd": {"has": Signal(name=f"fv{n}_{y}_{v}"), **self._flit(f"fhd{n}_{y}_{v}", ())},
                     "al": Signal(name=f"al{n}_{y}_{v}"), "out": Signal(bits(self.S), name=f"ao{n}_{y}_{v}"),
                     "pop": Signal(name=f"pop{n}_{y}_{v}"), "push": Signal(name=f"push{n}_{y}_{v}")}
            for y in range(self.S) for v in range(vcs)}

    def _flit(self, name, fields):
        # the flit's ``fields``, its head bits, then its routing decision at this node, made as it was written
        return {**{f: Signal(self.widths[f], name=f"{name}_{f}") for f in fields},
                **{f: Signal(w, name=f"{name}_{f}") for f, w in self.head_widths.items()},
                "route_arr": Signal(name=f"{name}_arr"), "route_plane": Signal(bits(self.S - 1), name=f"{name}_pl")}

    def _head_bits(self, idx, size) -> dict:
        """``HEAD_BITS`` of a flit with index ``idx`` of a ``size``-flit packet."""
        return {"first": idx == 0, "tail": idx == size - 1, "need": (size - 1)[:bits(self.B - 1)]}

    def _source(self, c) -> dict:
        """A candidate as a flit source: its fields and its head bit (for the hop count's increment)."""
        return {**{f: c[f] for f in self.fields}, "first": c["first"]}

    def _arrival_head_bits(self, m, y: int) -> dict:
        """``HEAD_BITS`` of the flit arriving on input port y. Compact links carry a tail bit and
        no index: a VC's flits are one packet's from head to tail (its output VC upstream is
        owned from head to tail), so the flit after a tail, and the first, is a head; one
        register per input VC remembers whether the last flit it received was a tail."""
        flit = self.i[y].flit
        if not self.compact:
            return self._head_bits(flit.idx, flit.size)
        after_tail = [Signal(init=1, name=f"fa{self.node}_{y}_{v}") for v in range(self.V)]
        for v in range(self.V):
            with m.If(self.i[y].valid & (self.i[y].vc == v)):
                m.d.sync += after_tail[v].eq(flit.last)
        first = Array(after_tail)[self.i[y].vc] if self.V > 1 else after_tail[0]
        return {"first": first, "tail": flit.last, "need": (flit.size - 1)[:bits(self.B - 1)]}

    def _route(self, m):
        """The routing decision of a head: a function of the candidate's fields returning
        ``(arrived, plane)`` values, built once per candidate."""
        routes, n, S, M, H = self.routes, self.node, self.S, self.M, self.H
        pb = bits(S - 1)
        if routes.loadable:
            return self._loadable_route(m)
        if routes.router == "nexthop":
            lp = routes.link_plane[n]

            def decide(c, k):
                unit = m.submodules[f"nh{k}"] = LdiNextHop(M, S, pipeline=0, shortcut=True)
                m.d.comb += [unit.i_valid.eq(c["has"]), unit.i_node.eq(n), unit.i_dest.eq(c["dst"]),
                             unit.i_hop.eq(c["hop"])]
                plane = unit.o_link if lp == list(range(S)) else Array(Const(y, pb) for y in lp)[unit.o_link]
                return routes.arrives(n, c["dst"], c["hop"]), plane
            return decide
        keyed = routes.route_keys(n)
        if keyed is not None:
            # the node's route table, indexed by the concatenated key fields (first field most significant)
            route_fields, tab = keyed
            widths = [{"hop": self.hb, "dst": self.nb}[f] for f in route_fields]
            keys = [()]
            for w in widths:
                keys = [key + (x,) for key in keys for x in range(1 << w)]
            route = Array(Const(a | (p << 1), 1 + pb) for a, p in (tab.get(key, (0, 0)) for key in keys))

            def decide(c, k):
                entry = Signal(1 + pb, name=f"rt{n}_{k}")
                m.d.comb += entry.eq(route[Cat(*(c[f] for f in reversed(route_fields)))])
                return entry[0], entry[1:]
            return decide
        rlen = Array(Const(routes.length[s][d], self.hb) for s in range(M) for d in range(M))
        rhop = Array(Const(max(routes.hops[s][d][k], 0) if k < len(routes.hops[s][d]) else 0, pb)
                     for s in range(M) for d in range(M) for k in range(H))

        def decide(c, k):
            pair = c["src"] * M + c["dst"]
            return rlen[pair] == c["hop"], rhop[pair * H + c["hop"]]
        return decide

    def _loadable_route(self, m):
        """``_route`` from the shadow/active route registers behind port ``rt``."""
        routes, n, S, M = self.routes, self.node, self.S, self.M
        entries = 1 << routes.route_addr_bits
        init = {a: d for node, a, d in routes.route_words() if node == n}
        used = sorted(init)
        width = routes.route_data_bits
        active = {a: Signal(width, init=init[a], name=f"rta{n}_{a}") for a in used}
        shadow = {a: Signal(width, init=init[a], name=f"rts{n}_{a}") for a in used}
        for a in used:
            with m.If(self.rt.we & (self.rt.addr == a)):
                m.d.sync += shadow[a].eq(self.rt.data)
        with m.If(self.rt.commit):
            m.d.sync += [active[a].eq(shadow[a]) for a in used]
        # unused addresses (dst >= M) read "arrived", as the words of permnet.gen.routing.runtime do
        table = Array(active[a] if a in active else Const(1, width) for a in range(entries))
        m.d.comb += self.rt.rdata.eq(table[self.rt.addr])
        if routes.router == "nexthop":
            def decide(c, k):
                unit = m.submodules[f"nh{k}"] = LdiNextHop(M, S, pipeline=0, shortcut=True)
                m.d.comb += [unit.i_valid.eq(c["has"]), unit.i_node.eq(n), unit.i_dest.eq(c["dst"]),
                             unit.i_hop.eq(c["hop"])]
                return routes.arrives(n, c["dst"], c["hop"]), table[unit.o_link]
            return decide

        def decide(c, k):
            entry = Signal(width, name=f"rt{n}_{k}")
            m.d.comb += entry.eq(table[Cat(c["dst"], c["hop"])])
            return entry[0], entry[1:]
        return decide

    # the largest network whose source routes (first hops) a node keeps in a ROM over dst
    SOURCE_ROM_NODES = 64

    def _source_route(self, m, decide, dst):
        """``(arrived, plane)`` of a packet bound for ``dst`` that starts at this node (hop 0).
        With fixed routes on up to :attr:`SOURCE_ROM_NODES` nodes a ROM over ``dst`` holds
        the route table's first hops (``length[n][d] == 0``, ``hops[n][d][0]``; for the
        next-hop unit these are the unit's own, :meth:`NetworkRoutes._check_unit_routes`), so
        a new packet's request is a lookup, not the unit; otherwise the node's ``decide``."""
        routes, n, pb = self.routes, self.node, bits(self.S - 1)
        if routes.loadable or self.M > self.SOURCE_ROM_NODES:
            return decide({"has": self.inj.valid, "src": Const(n, self.nb), "dst": dst,
                           "hop": Const(0, self.hb)}, "inj")
        first = [routes.hops[n][d][0] if routes.length[n][d] > 0 else 0 for d in range(self.M)]
        rom = Array(Const(int(routes.length[n][d] == 0) | first[d] << 1, 1 + pb) for d in range(self.M))
        word = Signal(1 + pb, name=f"src_route{n}")
        m.d.comb += word.eq(rom[dst])
        return word[0], word[1:]

    def _pick(self, m, words, sel, name):
        """``words[sel]`` (``sel`` always below ``len(words)``): a balanced multiplexer, of
        hand-mapped ECP5 cells with ``cells="ecp5"`` (:func:`permnet.hdl.muxtree.mux_word`)."""
        if len(words) == 1:
            return words[0]
        return mux_word(m, words, sel, self.cells, f"{name}_{self.node}", in_range=True)

    # flit bits per copy of a registered multiplexer select (:meth:`_pick_registered`)
    SELECT_SPAN = 12

    def _pick_registered(self, m, sources, sel, enable, name) -> dict:
        """The fields of ``sources[s]``, ``s`` being ``sel`` registered at the clock edges where
        ``enable`` is high (None: every edge). The select register has a copy per
        :attr:`SELECT_SPAN` bits of the flit, each driving only those bits' multiplexers, so
        the placer can put each copy beside its multiplexers (one copy drove some 130 cells
        across a network's router, and nextpnr does not duplicate registers). Only with the
        allocators that choose offers a cycle ahead, where the select is off the allocation
        loop: the combined and input-first routers' Fmax fell 4 to 8 % with the copies (the
        arbiter's index drives four times the flip-flops)."""
        FIELDS = self.fields
        flat = [Cat(*(src[f] for f in FIELDS)) for src in sources]
        width, parts = len(flat[0]), []
        copies = self.cells == "ecp5" and self.offer_ahead
        span = self.SELECT_SPAN if copies else width
        for j, lo in enumerate(range(0, width, span)):
            hi = min(width, lo + span)
            copy = Signal(len(sel), name=f"{name}_sel{self.node}_{j}")
            if copies:
                kept_ff(m, sel, copy, enable, f"{name}_sel{self.node}_{j}")
            else:
                with m.If(Const(1, 1) if enable is None else enable):
                    m.d.sync += copy.eq(sel)
            parts.append(self._pick(m, [w[lo:hi] for w in flat], copy, f"{name}_{j}"))
        word, out, at = Cat(*parts), {}, 0
        for f in FIELDS:
            out[f] = word[at:at + self.widths[f]]
            at += self.widths[f]
        return out

    def _next_vc(self, k: int) -> int:
        """The output VC of a new packet at candidate k: hop h travels on VC ``min(h, V - 1)``, so
        a head in input VC v took hop ``v + 1`` (v < V - 1) or at least V (v = V - 1), and its
        next hop's VC is ``min(v + 1, V - 1)``; a lane's packet takes hop 0, on VC 0. A constant
        per candidate, so the request does not wait for the head's hop count."""
        return min(k % self.V + 1, self.V - 1) if k < self.S * self.V else 0

    def _head_credits(self, cr, c):
        """Output VC credits ``cr`` (a thermometer code) enough for candidate ``c``'s head: the
        whole packet with virtual cut-through (the bit its ``need`` picks), one with wormhole."""
        return cr[0] if self.wormhole else Array(cr)[c["need"]]

    @staticmethod
    def _onehot_index(onehot) -> list:
        """The binary index of a one-hot list: bit b is the OR of the entries whose index has
        bit b set (an OR tree per bit, no priority chain)."""
        return [Cat(*(onehot[k] for k in range(len(onehot)) if k >> b & 1)).any()
                for b in range(bits(len(onehot) - 1))]

    @staticmethod
    def _onehot_select(onehot, values):
        """``values[k]`` for the one k whose ``onehot[k]`` is high (0 when none is): an AND-OR per
        bit, which the allocation's state updates use instead of the datapath multiplexers."""
        return Cat(*(Cat(*(g & v[b] for g, v in zip(onehot, values))).any() for b in range(len(values[0]))))

    @staticmethod
    def _round_robin(m, name, requests, last=None):
        """A round-robin arbiter: the grant goes to the lowest request above the last granted
        one, else to the lowest request. ``above`` (a register, bit k = "k is above the last
        grant") replaces a binary pointer, so the grant is two lowest-set-bit detectors and a
        choice between them (logarithmic depth) instead of a priority chain over the requests.
        Returns ``(any, grant, index, advance)``: ``grant`` one-hot (a list), ``index`` its
        binary form (for the datapath multiplexers), ``advance`` the statements that make this
        grant the last one (the caller adds them where the grant takes effect), or with ``last``
        (a one-hot list) that one."""
        K = len(requests)
        kb = bits(K - 1)
        above = Signal(K, name=f"{name}_above")        # reset: last grant K - 1, nothing above it
        req = Signal(K, name=f"{name}_req")
        hi = Signal(K, name=f"{name}_hi")
        gv = Signal(name=f"{name}_gv")
        gk = Signal(kb, name=f"{name}_gk")
        grant = [Signal(name=f"{name}_g{k}") for k in range(K)]
        m.d.comb += [req.eq(Cat(*requests)), hi.eq(req & above), gv.eq(req.any())]
        for k in range(K):
            first_hi = hi[k] if k == 0 else hi[k] & ~hi[:k].any()
            first = req[k] if k == 0 else req[k] & ~req[:k].any()
            m.d.comb += grant[k].eq(first_hi | (first & ~hi.any()))
        m.d.comb += gk.eq(Cat(*Router._onehot_index(grant)))
        last = grant if last is None else last
        advance = [above[k].eq(Cat(*last[:k]).any()) for k in range(1, K)] + [above[0].eq(0)]
        return gv, grant, gk, advance

    def elaborate(self, platform):
        m = Module()
        n, S, V, B, L, K = self.node, self.S, self.V, self.B, self.L, self.K
        FIELDS, vb = self.fields, bits(self.V - 1)
        fifo = self.buffers
        owner = {(y, v): Signal(name=f"own{n}_{y}_{v}") for y in range(S) for v in range(V)}
        # the credits of output VC (y, v) as a thermometer code: bit i = "at least i + 1 credits"
        # (a credit test is then one bit, picked by the packet's size, not a comparator)
        credit = {(y, v): Signal(B, init=(1 << B) - 1, name=f"cr{n}_{y}_{v}") for y in range(S) for v in range(V)}
        decide = self._route(m)
        # lanes (registered) and their effective state after the NIC move of this cycle
        lane_fields = {"dst": self.nb, "size": self.zb, **self.tags, "idx": self.zb}
        lane = [{"v": Signal(name=f"lv{n}_{j}"), **{f: Signal(w, name=f"l{f}{n}_{j}") for f, w in lane_fields.items()},
                 "al": Signal(name=f"la{n}_{j}"), "out": Signal(bits(S), name=f"lo{n}_{j}"),
                 "route_arr": Signal(name=f"lra{n}_{j}"),
                 "route_plane": Signal(bits(S - 1), name=f"lrp{n}_{j}")} for j in range(L)]
        movej = [Signal(name=f"mv{n}_{j}") for j in range(L)]
        front = self.inj.valid
        taken = Const(0, 1)
        for j in range(L):
            m.d.comb += movej[j].eq(front & ~lane[j]["v"] & ~taken)
            taken = taken | ~lane[j]["v"]
        m.d.comb += self.inj.ready.eq(taken)
        desc = self.inj.payload
        # a descriptor is routed once, as it is taken into its lane (hop 0: a function of dst)
        desc_arr, desc_plane = self._source_route(m, decide, desc.dst)
        eff = []
        for j in range(L):
            e = {f: Signal.like(s, name=f"e{f}{n}_{j}") for f, s in lane[j].items()}
            with m.If(movej[j]):
                m.d.comb += [e["v"].eq(1), e["dst"].eq(desc.dst), e["size"].eq(desc.size), e["idx"].eq(0),
                             e["al"].eq(0), e["out"].eq(0),
                             e["route_arr"].eq(desc_arr), e["route_plane"].eq(desc_plane)]
                m.d.comb += [e[f].eq(desc[f]) for f in self.tags]
            with m.Else():
                m.d.comb += [e[f].eq(lane[j][f]) for f in e]
            m.d.comb += self.lane[j].idx.eq(e["idx"])
            m.d.comb += [self.lane[j].tags[f].eq(e[f]) for f in self.tags]
            eff.append(e)
        # candidates: network VCs (y-major, v-minor), then lanes
        cand = []
        for k in range(K):
            c = {f: Signal(w, name=f"c{n}_{k}_{f}") for f, w in self.widths.items()}
            c.update(has=Signal(name=f"has{n}_{k}"), al=Signal(name=f"cal{n}_{k}"),
                     out=Signal(bits(S), name=f"cout{n}_{k}"))
            c.update({f: Signal(w, name=f"c{n}_{k}_{f}") for f, w in self.head_widths.items()})
            if k < S * V:
                y, v = divmod(k, V)
                q = fifo[y, v]
                hd = q["hd"]
                # the head bits come from the head register, the flit's fields through the read
                # multiplexer (input-first: through the port's RAM, below)
                m.d.comb += [c["has"].eq(hd["has"]), c["al"].eq(q["al"]), c["out"].eq(q["out"])]
                m.d.comb += [c[f].eq(hd[f]) for f in HEAD_BITS]
                for f in FIELDS:
                    if f not in self.ram_fields:
                        m.d.comb += c[f].eq(self._pick(m, [ent[f] for ent in q["ent"]], q["head"], f"rd{y}_{v}_{f}"))
                a, p = hd["route_arr"], hd["route_plane"]
            else:
                e = eff[k - S * V]
                m.d.comb += [c["has"].eq(e["v"]), c["al"].eq(e["al"]), c["out"].eq(e["out"]),
                             c["src"].eq(n), c["dst"].eq(e["dst"]), c["size"].eq(e["size"])]
                m.d.comb += [c[f].eq(e[f]) for f in self.tags]
                m.d.comb += [c[f].eq(self.lane[k - S * V].data[f]) for f in self.data_fields]
                m.d.comb += [c[f].eq(x) for f, x in self._head_bits(e["idx"], e["size"]).items()]
                if self.compact:
                    m.d.comb += c["last"].eq(c["tail"])
                else:
                    m.d.comb += [c["hop"].eq(0), c["idx"].eq(e["idx"])]
                a, p = e["route_arr"], e["route_plane"]
            arrived = Signal(name=f"arr{n}_{k}")
            nexthop = Signal(bits(S - 1), name=f"nh{n}_{k}")
            m.d.comb += [arrived.eq(a), nexthop.eq(p)]
            c["eject"] = Signal(name=f"ej{n}_{k}")
            c["new"] = Signal(name=f"new{n}_{k}")
            c["req"] = Signal(name=f"req{n}_{k}")
            c["wout"] = Signal(bits(S), name=f"wo{n}_{k}")
            # the output VC, a constant (_next_vc): a packet's flits all travel on its head's
            c["wovc"] = Const(self._next_vc(k), vb)
            m.d.comb += [
                c["eject"].eq(c["has"] & ((~c["al"] & arrived) | (c["al"] & (c["out"] == S)))),
                c["new"].eq(c["has"] & ~c["al"] & ~arrived),
            ]
            if self.separate_va:
                # a head first asks for its output VC (below); the switch sees only allocated flits
                c["plane"] = nexthop
                m.d.comb += [c["req"].eq(c["has"] & c["al"] & (c["out"] != S)), c["wout"].eq(c["out"])]
            else:
                m.d.comb += [
                    c["req"].eq(c["new"] | (c["has"] & c["al"] & (c["out"] != S))),
                    c["wout"].eq(Mux(c["al"], c["out"], nexthop)),
                ]
            cand.append(c)
        # candidate k may send on plane y: it asks for y, and the output VC it asks for is free (a
        # head) and has the credits it needs (the whole packet with virtual cut-through, else
        # one): per plane a V:1 choice, not a multiplexer over all S V. With separate-va only
        # allocated flits ask here (heads ask _allocate_vcs first), so only the body test is left
        elig = []
        for y in range(S):
            elig.append([])
            for k, c in enumerate(cand):
                # a body flit's credit: with virtual cut-through always there (its head took the
                # whole packet's, and only this packet spends that VC's credits until its tail)
                body = Const(1, 1) if not self.wormhole else credit[y, self._next_vc(k)][0]
                ok = Signal(name=f"el{n}_{y}_{k}")
                if self.separate_va:
                    m.d.comb += ok.eq(c["req"] & (c["wout"] == y) & body)
                else:
                    # a head asks for its next hop's VC (a constant, _next_vc), a body flit for its packet's
                    w = self._next_vc(k)
                    m.d.comb += ok.eq(c["req"] & (c["wout"] == y)
                                      & Mux(c["new"], ~owner[y, w] & self._head_credits(credit[y, w], c), body))
                elig[y].append(ok)
        va_taken, va_owned, va_ok = self._allocate_vcs(m, cand, owner, credit) if self.separate_va else ({}, {}, None)
        ehold = Signal(name=f"ehold{n}")                               # ejection port: a packet is held
        eheld = [Signal(name=f"eheld{n}_{k}") for k in range(K)]     # one-hot: the packet held
        # the ejection port offered a flit last cycle that the stream did not take: it offers it
        # again, unchanged (AXI-Stream), and with input-first the flit's port offers no other VC
        estall = Signal(name=f"estall{n}")
        eject_req = [c["eject"] for c in cand]
        # the flit each candidate would send (the hop count advanced on a head), or with input-first
        # each port's offered flit (``sources``), and the candidates of each source (``members``)
        if self.allocator != "combined":
            elig, eject_req, sources, members, advances = self._input_first(m, cand, elig, eject_req, ehold, eheld,
                                                                            fifo, va_ok, estall)
        else:
            sources = [self._source(c) for c in cand]
            members, advances = [[k] for k in range(K)], []
        G = len(sources)
        ejected, ej_busy = self._eject(m, cand, eject_req, ehold, eheld, sources, members, estall)
        # output arbitration, one round-robin arbiter per plane
        sent_terms = [[] for _ in range(K)]
        link_valid = ej_busy    # every link, credit and ejection register that may hold a flit or a credit (idle)
        # the flits that can cross a plane, registered with link stages (see below)
        # a head's hop count goes out advanced (compact links carry none)
        flits = [src if self.compact else {**src, "hop": Mux(src["first"], src["hop"] + 1, src["hop"])[:self.hb]}
                 for src in sources]
        if self.link_stages:
            held = [{f: Signal(self.widths[f], name=f"hf{n}_{g}_{f}") for f in FIELDS} for g in range(G)]
            m.d.sync += [held[g][f].eq(flits[g][f]) for g in range(G) for f in FIELDS]
            flits = held
        for y in range(S):
            gv, grant, gk, advance = self._arbitrate(m, f"a{n}_{y}", elig[y], members)
            for k in range(K):
                sent_terms[k].append(grant[k])

            # the flit that crosses plane y, through link_stages registers (a balanced multiplexer
            # on the grant's index, not a priority chain on the grants). The first link stage
            # registers the grant and the candidates' flits and multiplexes in the next cycle, so
            # the allocation ends at a register and the data path has a cycle of its own.
            port = self.o[y]
            xovc = Signal(vb, name=f"xv{n}_{y}")
            xtail = Signal(name=f"xt{n}_{y}")
            # the granted candidate's control fields, off the datapath multiplexers (its head bit
            # sets the owner on the send; separate-va sets it on the VC's allocation)
            control_fields = [(xovc, "wovc"), (xtail, "tail")]
            if not self.separate_va:
                xfirst = Signal(name=f"xf{n}_{y}")
                control_fields.insert(1, (xfirst, "first"))
            m.d.comb += [x.eq(self._onehot_select(grant, [c[key] for c in cand])) for x, key in control_fields]
            control = Cat(gv, xovc)
            if self.link_stages:
                control = Signal(1 + vb, name=f"link{n}_{y}_0")
                m.d.sync += control.eq(Cat(gv, xovc))
                link_valid.append(control[0])
                fl = self._pick_registered(m, flits, gk, None, f"xb{y}")
            else:
                fl = {f: self._pick(m, [c[f] for c in flits], gk, f"xb{y}_{f}") for f in FIELDS}
            word = Cat(control, *(fl[f] for f in FIELDS))
            for st in range(1, self.link_stages):
                reg = Signal(len(word), name=f"link{n}_{y}_{st}")
                m.d.sync += reg.eq(word)
                word = reg
                link_valid.append(reg[0])
            m.d.comb += Cat(port.valid, port.vc, *(port.flit[f] for f in FIELDS)).eq(word)
            for v in range(V):
                send = gv & (xovc == v)
                # credits: spent on a send, returned the cycle after the downstream pop
                cr, back = credit[y, v], port.credit[v]
                with m.If(send & ~back):
                    m.d.sync += cr.eq(cr >> 1)
                with m.Elif(back & ~send):
                    m.d.sync += cr.eq(Cat(1, cr[:-1]))
                # an output VC is owned from its head's send (separate-va: its head's allocation)
                # to its tail's send (a one-flit packet's head is its tail)
                if self.separate_va and (y, v) in va_owned:
                    with m.If(va_owned[y, v]):
                        m.d.sync += owner[y, v].eq(1)
                with m.If(send):
                    with m.If(xtail):
                        m.d.sync += owner[y, v].eq(0)
                    if not self.separate_va:
                        with m.Elif(xfirst):
                            m.d.sync += owner[y, v].eq(1)
            with m.If(gv):
                m.d.sync += advance
        # idle: no flit in a buffer, a lane or a link stage
        m.d.comb += self.idle.eq(~Cat(*(q["count"] != 0 for q in fifo.values()), *(ln["v"] for ln in lane),
                                      *link_valid).any())
        # state updates of the candidates
        moved = []
        for k, c in enumerate(cand):
            sent = Signal(name=f"sent{n}_{k}")
            m.d.comb += sent.eq(Cat(*sent_terms[k]).any())
            pop = ejected[k] | sent
            moved.append(pop)
            if k < S * V:
                y, v = divmod(k, V)
                q = fifo[y, v]
                m.d.comb += q["pop"].eq(pop)
                credit_word = q["pop"]
                for st in range(self.credit_stages):
                    reg = Signal(name=f"crd{n}_{y}_{v}_{st}")
                    m.d.sync += reg.eq(credit_word)
                    credit_word = reg
                    link_valid.append(reg)
                m.d.comb += self.i[y].credit[v].eq(credit_word)
                with m.If(ejected[k]):
                    m.d.sync += [q["al"].eq(~c["tail"]), q["out"].eq(S)]
                with m.Elif(sent):
                    m.d.sync += [q["al"].eq(~c["tail"]), q["out"].eq(c["wout"])]
                self._take_vc(m, k, va_taken, q)
            else:
                j = k - S * V
                e, r = eff[j], lane[j]
                m.d.comb += self.lane[j].pop.eq(pop)
                m.d.sync += [r[f].eq(e[f]) for f in ("dst", "size", *self.tags, "al", "out", "route_arr",
                                                     "route_plane")]
                m.d.sync += [r["v"].eq(e["v"] & ~(pop & c["tail"])), r["idx"].eq(e["idx"] + pop)]
                with m.If(ejected[k]):
                    m.d.sync += [r["al"].eq(1), r["out"].eq(S)]
                with m.Elif(sent):
                    m.d.sync += [r["al"].eq(1), r["out"].eq(c["wout"])]
                self._take_vc(m, k, va_taken, r)
        # input-first: a port's round robin moves on when the VC it offered moved
        for ks, advance in zip(members, advances):
            with m.If(Cat(*(moved[k] for k in ks)).any()):
                m.d.sync += advance
        # input buffers: pointer and entry updates (pushes come from the upstream arbiters)
        # the routing decision of an arriving flit, one per input port, kept beside it in its buffer
        arriving = []
        for y in range(S):
            port = self.i[y]
            # compact links: a head in input VC v took hop v + 1 (hop-indexed VCs, V at least the
            # longest route), so its hop count is the VC's
            hop = (port.vc + 1)[:self.hb] if self.compact else port.flit.hop
            c = {"has": port.valid, "src": port.flit.src, "dst": port.flit.dst, "hop": hop}
            a, p = decide(c, f"i{y}")
            ra, rp = Signal(name=f"ia{n}_{y}"), Signal(bits(S - 1), name=f"ip{n}_{y}")
            m.d.comb += [ra.eq(a), rp.eq(p)]
            arriving.append((ra, rp))
        # what an arriving flit's entry keeps besides its fields: its head bits and routing decision
        incoming = [{**self._arrival_head_bits(m, y), "route_arr": arriving[y][0], "route_plane": arriving[y][1]}
                    for y in range(S)]
        for (y, v), q in fifo.items():
            port = self.i[y]
            m.d.comb += q["push"].eq(port.valid & (port.vc == v))
            m.d.sync += [q["head"].eq(q["head"] + q["pop"]), q["count"].eq(q["count"] + q["push"] - q["pop"])]
            tail_at = (q["head"] + q["count"])[: bits(B - 1)]
            for i, ent in enumerate(q["ent"]):
                with m.If(q["push"] & (tail_at == i)):
                    m.d.sync += [ent[f].eq(port.flit[f]) for f in FIELDS if f in ent]
                    m.d.sync += [ent[f].eq(x) for f, x in incoming[y].items()]
            # the head register holds the head entry's head bits and routing decision of the next
            # cycle: the entry behind the head after a pop, else the arriving flit if the buffer is left empty
            hd, keys = q["hd"], tuple(incoming[y])
            second = {f: Array(ent[f] for ent in q["ent"])[(q["head"] + 1)[: bits(B - 1)]] for f in keys}
            with m.If(q["pop"] & (q["count"] >= 2)):
                m.d.sync += [hd[f].eq(second[f]) for f in keys]
            with m.Elif(q["pop"] | (q["count"] == 0)):
                m.d.sync += [hd[f].eq(incoming[y][f]) for f in keys] + [hd["has"].eq(q["push"])]
        return m

    def _allocate_vcs(self, m, cand, owner, credit):
        """VC allocation a cycle ahead of switch allocation (``allocator="separate-va"``): one
        round-robin arbiter per output VC (y, w) over the heads that ask for it (their next hop
        is plane y and their next VC, a constant, is w) and can have it (it is free and has the
        credits the head needs). A grant makes the VC owned and allocates it to the head, which
        asks the switch from the next cycle on. Returns ``(taken, owned, ok)``: ``taken[k]`` the
        ``(y, grant)`` pairs of candidate k, ``owned[y, w]`` that output VC (y, w) is granted,
        ``ok[k]`` that candidate k asks with a chance (its port may offer it next cycle)."""
        n, S = self.node, self.S
        taken, owned, ok, asks = {}, {}, [], {}
        for k, c in enumerate(cand):
            w = self._next_vc(k)
            row = []
            for y in range(S):
                r = Signal(name=f"va{n}_{y}_{k}")
                m.d.comb += r.eq(c["new"] & (c["plane"] == y) & ~owner[y, w] & self._head_credits(credit[y, w], c))
                row.append(r)
                asks.setdefault((y, w), []).append((k, r))
            a = Signal(name=f"vaok{n}_{k}")
            m.d.comb += a.eq(Cat(*row).any())
            ok.append(a)
            taken[k] = []
        for (y, w), reqs in asks.items():
            gv, g, _, advance = self._round_robin(m, f"va{n}_{y}_{w}", [r for _, r in reqs])
            with m.If(gv):
                m.d.sync += advance
            owned[y, w] = gv
            for (k, _), gk in zip(reqs, g):
                taken[k].append((y, gk))
        return taken, owned, ok

    def _take_vc(self, m, k, taken, state):
        """Candidate k's allocation state (``al``, ``out``) after a VC allocation grant
        (``taken``, :meth:`_allocate_vcs`; none without separate VC allocation)."""
        if not taken:
            return
        grants = [g for _, g in taken[k]]
        planes = [Const(y, len(state["out"])) for y, _ in taken[k]]
        with m.If(Cat(*grants).any()):
            m.d.sync += [state["al"].eq(1), state["out"].eq(self._onehot_select(grants, planes))]

    def _input_first(self, m, cand, elig, eject_req, hold, held, fifo, va_ok=None, stall=None):
        """Input-first allocation (``allocator="input-first"``): each input port offers one VC,
        round robin after the last of its VCs that moved, among those that can move now (``elig``
        on some plane, or an arrived packet the ejection port may take: none is held, or it is
        the held one); the output and ejection arbiters then choose among the ports (round
        robin over ports: the S input ports, then the lanes, each lane a port of its own). A
        port's buffers then need one read: the fields other than the head register's sit in one
        LUT RAM per port (``V B`` entries, address ``(vc,
        slot)``; on ECP5 distributed RAM), written as a flit arrives, read at the offered VC's
        head. ``stall`` (a register): the ejection port's offer was not taken last cycle; the port
        of the held VC then offers only that VC, so the flit stays on the stream (without it the
        port could offer another VC to a link and withdraw the flit, breaking AXI-Stream's rule
        that tvalid stays high until the handshake). Returns ``(elig, eject_req, sources,
        members, advances)``: the offered-only requests, one flit source per port then per
        lane, the candidates of each source, and per input port the statements that make the VC
        it offered the last that moved."""
        n, S, V, B, K, FIELDS = self.node, self.S, self.V, self.B, self.K, self.fields
        ok = []
        for k, c in enumerate(cand):
            o = Signal(name=f"ok{n}_{k}")
            can = Cat(*(elig[y][k] for y in range(S))).any() | (eject_req[k] & (~hold | held[k]))
            m.d.comb += o.eq(can | va_ok[k] if va_ok else can)
            ok.append(o)
        offered = [Const(1, 1)] * K
        sources, members, advances = [], [], []
        bb, vw = bits(B - 1), (V - 1).bit_length()
        width = sum(self.widths[f] for f in self.ram_fields)
        for y in range(S):
            ks = [y * V + v for v in range(V)]
            if self.offer_ahead:
                # the offer is registered: chosen in cycle t, it asks in t + 1
                grant = [Signal(name=f"off{n}_{y}_{v}") for v in range(V)]
                gk = Signal(bits(V - 1), name=f"offk{n}_{y}")
                # next cycle's candidates: the VCs that can move now, and those with no head that
                # receive one now
                soon = [ok[k] | (~fifo[y, v]["hd"]["has"] & fifo[y, v]["push"]) for v, k in enumerate(ks)]
                _, nxt, nk, advance = self._round_robin(m, f"i{n}_{y}", soon, last=grant)
                m.d.sync += [Cat(*grant).eq(Cat(*nxt)), gk.eq(nk)]
            else:
                # an ejected flit the stream did not take is offered again by its port, and only it
                again = Signal(name=f"again{n}_{y}")
                m.d.comb += again.eq(stall & Cat(*(held[k] for k in ks)).any())
                _, grant, gk, advance = self._round_robin(m, f"i{n}_{y}", [ok[k] & (~again | held[k]) for k in ks])
            members.append(ks)
            advances.append(advance)
            for v, k in enumerate(ks):
                offered[k] = grant[v]
            link = self.i[y]
            mem = m.submodules[f"ram{y}"] = Memory(shape=width, depth=B << vw, init=[])
            wr, rd = mem.write_port(), mem.read_port(domain="comb")
            tails = [(fifo[y, v]["head"] + fifo[y, v]["count"])[:bb] for v in range(V)]
            tail = Array(tails)[link.vc] if V > 1 else tails[0]
            head = self._onehot_select(grant, [fifo[y, v]["head"] for v in range(V)])
            m.d.comb += [wr.en.eq(link.valid), wr.data.eq(Cat(*(link.flit[f] for f in self.ram_fields))),
                         wr.addr.eq(Cat(tail, link.vc[:vw]) if vw else tail),
                         rd.addr.eq(Cat(head, gk[:vw]) if vw else head)]
            src, at = {}, 0
            for f in FIELDS:
                src[f] = rd.data[at:at + self.widths[f]]
                at += self.widths[f]
            src["first"] = self._onehot_select(grant, [cand[k]["first"] for k in ks])
            sources.append(src)
        for k in range(S * V, K):
            c = cand[k]
            members.append([k])
            sources.append(self._source(c))
        masked = []
        for y in range(S):
            masked.append([])
            for k in range(K):
                e = Signal(name=f"ef{n}_{y}_{k}")
                m.d.comb += e.eq(elig[y][k] & offered[k])
                masked[y].append(e)
        req = []
        for k in range(K):
            r = Signal(name=f"er{n}_{k}")
            m.d.comb += r.eq(eject_req[k] & offered[k])
            req.append(r)
        return masked, req, sources, members, advances

    def _arbitrate(self, m, name, requests, members):
        """A round-robin arbiter over the flit sources (:meth:`_round_robin`): source g asks when
        one of its candidates ``members[g]`` asks (with input-first at most one does, the VC
        its port offers). Returns ``(any, grant, index, advance)`` with ``grant`` one-hot over
        the candidates and ``index`` the granted source's."""
        if all(len(ks) == 1 for ks in members):
            return self._round_robin(m, name, [requests[ks[0]] for ks in members])
        gv, pgrant, gk, advance = self._round_robin(m, name, [Cat(*(requests[k] for k in ks)).any() for ks in members])
        grant = [None] * len(requests)
        for g, ks in enumerate(members):
            for k in ks:
                grant[k] = Signal(name=f"{name}_c{k}")
                m.d.comb += grant[k].eq(pgrant[g] & requests[k])
        return gv, grant, gk, advance

    def _eject(self, m, cand, req, hold, held, sources, members, stall):
        """The ejection side; returns, per candidate, the signal that its flit is ejected now, and
        the ejection registers that may hold a flit (with ``two-stage``, the ejection stage).
        ``req``: the candidates that ask to eject; ``hold``/``held``: the port's hold registers;
        the ejected flit is taken from ``sources`` (one per candidate, or with input-first one
        per port), source g holding candidates ``members[g]``; ``stall`` the register set when an
        offered flit is not taken (:meth:`_input_first`)."""
        n, K, FIELDS = self.node, self.K, self.fields
        if self.eject == "vc":
            for k, c in enumerate(cand):
                m.d.comb += [self.ej[k].valid.eq(req[k])] + [self.ej[k].flit[f].eq(c[f]) for f in FIELDS]
            return list(req), []
        # one ejection port: a round-robin arbiter that holds a packet from its head to its tail
        fv, fgrant, _, advance = self._arbitrate(m, f"e{n}", req, members)
        # the candidate offered: the held one while a packet is held, else the arbiter's grant
        offer = [Signal(name=f"eoff{n}_{k}") for k in range(K)]
        m.d.comb += [offer[k].eq(Mux(hold, held[k] & req[k], fgrant[k])) for k in range(K)]
        # the offered source's index, for the ejection multiplexer
        gv, gk = Signal(name=f"egv{n}"), Signal(bits(len(sources) - 1), name=f"egk{n}")
        m.d.comb += [gv.eq(Cat(*offer).any())]
        m.d.comb += gk.eq(Cat(*self._onehot_index([Cat(*(offer[k] for k in ks)).any() for ks in members])))
        out = self.ej
        tail = Signal(name=f"etail{n}")
        go = [Signal(name=f"ego{n}_{k}") for k in range(K)]
        m.d.comb += tail.eq(self._onehot_select(offer, [c["tail"] for c in cand]))
        if self.offer_ahead:
            # the ejection stage: the grant and every source's flit are registered when the
            # register is empty or being emptied, and multiplexed in the next cycle
            accept, valid = Signal(name=f"eacc{n}"), Signal(name=f"ev{n}")
            flits = [{f: Signal(self.widths[f], name=f"ef{n}_{g}_{f}") for f in FIELDS} for g in range(len(sources))]
            m.d.comb += accept.eq(~valid | out.ready)
            with m.If(accept):
                m.d.sync += valid.eq(gv)
                m.d.sync += [fl[f].eq(src[f]) for fl, src in zip(flits, sources) for f in FIELDS]
            picked = self._pick_registered(m, flits, gk, accept, "ej")
            m.d.comb += [out.payload[f].eq(picked[f]) for f in FIELDS]
            m.d.comb += out.valid.eq(valid)
        else:
            accept = out.ready
            m.d.comb += [out.payload[f].eq(self._pick(m, [src[f] for src in sources], gk, f"ej_{f}")) for f in FIELDS]
            m.d.comb += out.valid.eq(gv)
            m.d.sync += stall.eq(gv & ~accept)
        for k, c in enumerate(cand):
            m.d.comb += go[k].eq(offer[k] & accept)
        with m.If(~hold & fv):
            m.d.sync += advance       # the held packet was the last grant from its first offer on
        with m.If(gv):
            m.d.sync += [hold.eq(~(accept & tail))] + [held[k].eq(offer[k]) for k in range(K)]
        return go, [valid] if self.offer_ahead else []
