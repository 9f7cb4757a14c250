"""The bufferless deflection router (issue 41): :func:`permnet.gen.routing.deflection.route_step` in RTL.

:class:`DeflectionRouter` is node n of M nodes joined by S switching planes;
its function, cycle for cycle, is the spec's :func:`route_step` (Hoplite,
Kapre and Gray, FPL 2015; CHIPPER's permutation network, Fallin, Craik and
Mutlu, HPCA 2011), and ``tests/hdl/test_deflect_router.py`` holds it there.
The network simulator's model (``permnet netsim --switching deflection``)
computes the same function.
"""

from __future__ import annotations

import numpy as np
from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.routing import deflection as spec
from permnet.hdl.muxtree import mux_word
from permnet.hdl.router import route_port_signature

__all__ = ["DeflectionRouter", "STAGES", "DEFAULT_EJECTION", "DEFAULT_STAGES", "deflect_layout",
           "deflect_link_signature"]

STAGES = (1, 2, 3)       # register stages per hop inside the router (``stages``)
DEFAULT_EJECTION = 2     # ejection ports E unless chosen (issue 41: E = 1 loses 25-31 % of the saturation throughput)
DEFAULT_STAGES = 1       # register stages P unless chosen


def _or(values):
    """The OR of Amaranth values."""
    out = 0
    for v in values:
        out = out | v
    return out


def _bits(n: int) -> int:
    return max(1, int(n).bit_length())


def deflect_layout(node_bits: int, age_bits: int, width: int) -> data.StructLayout:
    """A flit on a link: ``dst``, ``src`` (node numbers), ``age`` (cycles since injection,
    saturating), ``payload``."""
    return data.StructLayout({"dst": node_bits, "src": node_bits, "age": age_bits, "payload": width})


def deflect_link_signature(layout) -> wiring.Signature:
    """One link through a plane, seen from the sending output: ``valid`` and ``flit``. No
    ``ready``, no credit: the receiving router takes every flit that arrives."""
    return wiring.Signature({"valid": Out(1), "flit": Out(layout)})


class DeflectionRouter(wiring.Component):
    """Node ``node`` of the M nodes that the S ``planes`` join (``planes[y][n]``: the node that
    output y of n reaches), as :func:`permnet.gen.routing.deflection.route_step` specifies.

    Ports
    -----
    ``i[y]`` (in) / ``o[y]`` (out), y < S: :func:`deflect_link_signature` of
    :func:`deflect_layout` (``dst, src, age, payload``); the planes join ``o[y]`` of node n
    to ``i[y]`` of ``planes[y][n]``. ``o[y]`` are registers, reset to not valid.
    ``inj`` (in, ``lib.stream`` of ``dst, payload``): a flit is taken (``valid & ready``)
    with ``src`` n and ``age`` 0; ``ready`` is high iff an input slot is free this cycle
    (empty, or its flit ejected): a function of the inputs ``i[y]`` and of the ejection
    queues' state at the start of the cycle, never of a ``ready`` input.
    ``ej[e]`` (out, ``lib.stream`` of ``src, payload``), e < E: ejection port e, fed by a
    registered FIFO of ``EJECT_DEPTH`` = 2 flits; ``valid`` is high while the FIFO holds a
    flit and shows its oldest one, held with its data until taken (AXI-Stream rules).

    The function (one cycle, spec steps 1 to 4)
    -------------------------------------------
    1. Ejection: input slot y belongs to port ``y mod E``; port e takes, if its FIFO held
       fewer than 2 flits at the start of the cycle, the flit with ``dst = n`` of the
       highest priority ``(age, src)`` among its slots (ties: the lowest slot). Each pair
       of candidates has one comparator, so the choice is flat logic.
    2. Injection: the offered flit goes into the lowest free slot.
    3. Allocation: the spec's permutation network, k = log2 S stages of S/2 2x2 blocks;
       the block of stage s pairs lanes p and p + 2^b (b = k-1-s), the upper lane wins
       iff it holds a flit and the lower holds none or one of priority at most its own,
       and the winner takes the side its productive mask alone allows, else the side the
       loser's mask alone does not need, else stays. The masks are node n's row of
       :func:`permnet.gen.routing.deflection.productive_masks` over ``dst``: constants (a ROM
       that yosys maps to LUTs), or with ``loadable`` a table behind the ``rt`` port (below).
    4. Outputs: lane y's flit into output register y, its age grown by K (``hop_cycles``)
       and saturating at ``2**age_bits - 1``.

    Timing (each stage's latency)
    -----------------------------
    * ``stages`` P = 1: ejection, injection and allocation in the cycle t in which the
      flits are on ``i[y]``; ``o[y]`` shows the result from t + 1. A hop is K = 1 cycle
      when the planes are wires.
    * P = 2: a register between injection and the permutation network (the lanes' flits,
      valid bits, and the bits the blocks derive from them: pairwise priorities, one-side
      bits): ejection and injection still act in cycle t (``inj.ready`` and the ejection
      FIFOs are as with P = 1), the permutation network and the output multiplexers in
      t + 1, and ``o[y]`` shows the same values as with P = 1 one cycle later, from t + 2.
      The spec's model is the same function with the extra register as a link stage:
      K = 2 (the flits' ages grow by 2 a hop).
    * P = 3: a register after ejection and injection (the slots' flits with their ages grown,
      the injected flit, the injection slot, the one-side bits of every slot's and of the
      injected flit's mask, the pairwise priorities) and one after the permutation network's
      first stage (each position's flit, and the bits the later blocks derive from the lanes it
      holds): ejection and injection still act in cycle t, the lanes and the first stage's
      blocks in t + 1, the later blocks and the output multiplexers in t + 2, and ``o[y]``
      shows the P = 1 values from t + 3. The spec's model: two link stages, K = 3.
    * ``hop_cycles`` K (default P): what a flit's age grows by on each output, the spec's
      ``hop_cycles``; with L register stages on the links outside the router it is P + L.
    * Ejection: a flit ejected in cycle t is in its FIFO at the end of t and on ``ej[e]``
      from t + 1 (the spec's registered FIFO); a flit taken in t still counts against
      the room at the start of t.
    * Injection: a flit taken in cycle t is routed in t and is on an output from t + P.

    Livelock bound (the spec's, :func:`permnet.gen.routing.deflection.hop_bound`)
    -----------------------------------------------------------------------------
    With every ejection FIFO drained each cycle, every flit reaches its destination within
    ``N D`` hops for K = 1 and ``N (D + 1)`` hops for K > 1, N = M S K the most flits the
    network holds and D the diameter: the oldest flit wins every 2x2 block it meets, so it
    takes a productive output at every node and is ejected at its destination; each flit
    older than F leaves within D hops of becoming the oldest (D + 1 for K > 1: it may become
    the oldest partway along a link). ``age_bits`` (default
    :func:`permnet.gen.routing.deflection.age_bits`) holds the bound's cycles, so ages do not
    saturate within it. A user holding
    ``ready`` low deflects the flits to its node until it takes them: no bound then,
    nothing lost or misdelivered.

    Routing (``loadable``)
    ----------------------
    ``loadable=False``: the masks are constants, the productive masks of ``planes``.
    ``loadable=True``: port ``rt`` (:func:`permnet.hdl.router.route_port_signature` with ``addr``
    a destination and ``data`` an S-bit mask): a clock edge with ``we`` writes ``data`` into the
    shadow entry ``addr``, one with ``commit`` copies every shadow entry into the active table;
    ``rdata`` is the active entry at ``addr`` (combinational). Both tables reset to the
    productive masks of ``planes``. A flit takes the active masks of the cycle in which it is on
    ``i[y]`` or injected (with P > 1 the flits in the router's registers at a commit keep the
    masks of the cycle they entered): the spec's ``route_step`` with that cycle's ``mask_row``.
    The livelock bound holds for any table in which every entry d != n is a non-empty subset of
    the outputs one hop closer to d on the planes the router's outputs are wired to (the oldest
    flit then gets closer at every hop); a table of other planes routes by those planes (a plane
    swap loads both together, :class:`permnet.hdl.deflect_net.DeflectionNetwork`).
    """

    def __init__(self, planes, node: int, *, ejection: int = DEFAULT_EJECTION, width: int = 32,
                 stages: int = DEFAULT_STAGES, hop_cycles: int | None = None, age_bits: int | None = None,
                 loadable: bool = False, cells: str = "generic"):
        arr = np.asarray(planes, dtype=np.int64)
        require(arr.ndim == 2 and arr.shape[0] >= 1 and arr.shape[1] >= 1, "planes must be S lists of M nodes")
        S, M = arr.shape
        require(S >= 2 and S & (S - 1) == 0,
                f"the deflection router's permutation network needs S a power of two >= 2, got S = {S}")
        require(cells in ("generic", "ecp5"), f"unknown cells {cells!r} (generic, ecp5)")
        self.cells = cells
        require(0 <= node < M, f"node must be 0..{M - 1}, got {node}")
        require(1 <= ejection <= S, f"ejection ports must be 1..S = {S}, got {ejection}")
        require(isinstance(width, int) and width >= 1, f"payload width must be >= 1 bit, got {width}")
        require(stages in STAGES, f"stages must be 1, 2 or 3, got {stages}")
        K = stages if hop_cycles is None else hop_cycles
        require(isinstance(K, int) and K >= stages, f"hop cycles must be >= stages ({stages}), got {K}")
        self.loadable = bool(loadable)
        dist = spec.distances(arr)
        masks = spec.productive_masks(arr, dist)      # refuses planes on which some node cannot reach another
        self.diameter = int(dist.max())
        ab = spec.age_bits(M, S, self.diameter, K) if age_bits is None else age_bits
        require(isinstance(ab, int) and ab >= 1, f"age bits must be >= 1, got {ab}")
        self.planes, self.node, self.S, self.M, self.E = arr.tolist(), int(node), S, M, ejection
        self.W, self.P, self.K, self.age_bits = width, stages, K, ab
        self.nb = _bits(M - 1)
        self.mask_row = [int(x) for x in masks[node]]
        self.layout = deflect_layout(self.nb, ab, width)
        link = deflect_link_signature(self.layout)
        members = {
            "i": In(link).array(S), "o": Out(link).array(S),
            "inj": In(stream.Signature(data.StructLayout({"dst": self.nb, "payload": width}))),
            "ej": Out(stream.Signature(data.StructLayout({"src": self.nb, "payload": width}))).array(ejection)}
        if self.loadable:
            members["rt"] = In(route_port_signature(self.nb, S))
        super().__init__(members)

    # ------------------------------------------------------------------ helpers
    #
    # The data path only moves flits: every decision is taken from bits computed from the
    # inputs in parallel (one comparator per pair of slots, the masks, "bound here"). A block's
    # decision is computed for every pair of lanes that can meet in it, from lane bits only,
    # and the earlier blocks' decisions pick one (a position carries which lane it holds,
    # one-hot); the ages are grown on the way in, so no adder follows a multiplexer.

    def _mux(self, m, words, sel, name):
        """``words[sel]``: a balanced multiplexer, of hand-mapped ECP5 cells with ``cells="ecp5"``
        (:func:`permnet.hdl.muxtree.mux_word`)."""
        if len(words) == 1:
            return words[0]
        return mux_word(m, words, sel, self.cells, f"{name}", in_range=True)

    @staticmethod
    def _index(onehot: dict):
        """The binary index of a one-hot ``{index: bit}``."""
        return _or(Mux(bit, j, 0) for j, bit in onehot.items())

    def _table(self, m):
        """Node n's productive masks, one per destination (0 beyond M): constants, or with
        ``loadable`` the active entries of the table behind ``rt`` (shadow written by ``we``,
        copied to the active entries at ``commit``; ``rdata`` the active entry at ``addr``)."""
        pad = [Const(0, self.S)] * ((1 << self.nb) - self.M)
        if not self.loadable:
            return [Const(x, self.S) for x in self.mask_row] + pad
        rt = self.rt
        active = [Signal(self.S, name=f"rt_active{d}", init=x) for d, x in enumerate(self.mask_row)]
        shadow = [Signal(self.S, name=f"rt_shadow{d}", init=x) for d, x in enumerate(self.mask_row)]
        for d in range(self.M):
            with m.If(rt.we & (rt.addr == d)):
                m.d.sync += shadow[d].eq(rt.data)
        with m.If(rt.commit):
            m.d.sync += [a.eq(s) for a, s in zip(active, shadow)]
        m.d.comb += rt.rdata.eq(self._mux(m, active + pad, rt.addr, "rt_rd"))
        return active + pad

    def _mask(self, m, dst, name):
        """Node n's productive mask for ``dst``: a lookup in :meth:`_table` (a ROM that yosys maps to
        LUTs when the masks are constants; a multiplexer of the active entries when loadable)."""
        mask = Signal(self.S, name=name)
        m.d.comb += mask.eq(self._mux(m, self._rows, dst, f"{name}_rd") if self.loadable else Array(self._rows)[dst])
        return mask

    def _ge(self, m, a, b):
        """Slot a's priority ``(age, src)`` >= slot b's: one comparator per ordered pair used."""
        if (a, b) not in self._cmp:
            g = self._cmp[a, b] = Signal(name=f"ge{a}_{b}")
            fa, fb = self.i[a].flit, self.i[b].flit
            m.d.comb += g.eq(Cat(fa.src, fa.age) >= Cat(fb.src, fb.age))
        return self._cmp[a, b]

    def _eject(self, m, e, room):
        """Port e's choice (spec step 1): one-hot ``take`` over its slots (the leftmost flit of the
        highest priority among those bound here) and the chosen flit's ``src, payload``."""
        ys = list(range(e, self.S, self.E))
        cand = [Signal(name=f"ej{e}_cand{y}") for y in ys]
        m.d.comb += [c.eq(room & self.i[y].valid & (self.i[y].flit.dst == self.node)) for c, y in zip(cand, ys)]
        # slot ys[j] wins iff no earlier candidate is at least as high and no later one higher
        take = []
        for j, y in enumerate(ys):
            t = Signal(name=f"ej{e}_take{y}")
            beaten = [cand[i] & self._ge(m, ys[i], y) for i in range(j)] + \
                     [cand[i] & ~self._ge(m, y, ys[i]) for i in range(j + 1, len(ys))]
            m.d.comb += t.eq(cand[j] & ~Cat(*beaten).any() if beaten else cand[j])
            take.append(t)
        sel = Signal(range(len(ys)) if len(ys) > 1 else 1, name=f"ej{e}_sel")
        m.d.comb += sel.eq(self._index(dict(enumerate(take))))
        word = self._mux(m, [Cat(self.i[y].flit.src, self.i[y].flit.payload) for y in ys], sel, f"ej{e}_mux")
        return dict(zip(ys, take)), word

    def _queue(self, m, e, push, flit):
        """Ejection FIFO e (``EJECT_DEPTH`` = 2, registered): two entries written in turn and read
        in turn; returns ``room`` (fewer than 2 flits held at the start of the cycle)."""
        port = self.ej[e]
        ent = [Signal(len(port.payload.as_value()), name=f"ej{e}_q{j}") for j in range(2)]
        wp, rp = Signal(name=f"ej{e}_wp"), Signal(name=f"ej{e}_rp")
        count = Signal(range(spec.EJECT_DEPTH + 1), name=f"ej{e}_count")
        room = Signal(name=f"ej{e}_room")
        m.d.comb += [room.eq(count < spec.EJECT_DEPTH), port.valid.eq(count != 0),
                     port.payload.eq(self._mux(m, ent, rp, f"ej{e}_rd"))]
        pop = port.valid & port.ready
        with m.If(push):
            m.d.sync += wp.eq(~wp)
            with m.If(wp):
                m.d.sync += ent[1].eq(flit)
            with m.Else():
                m.d.sync += ent[0].eq(flit)
        with m.If(pop):
            m.d.sync += rp.eq(~rp)
        m.d.sync += count.eq(count + push - pop)
        return room

    def _fact(self, ls, key):
        """A bit the blocks derive from the lanes ``ls`` (the first lanes, before any register):
        ``("ge", a, c)``, lane a's priority >= lane c's; ``("only", x, base, b)``, whether lane x's
        flit can use one side only of the block of bit b whose outputs start at ``base``, and
        that side (two bits; 0 without a flit)."""
        if key[0] == "ge":
            return self._lane_ge(key[1], key[2])
        _, x, base, b = key
        lo = ((1 << (1 << b)) - 1) << base          # side 0: outputs base .. base + 2^b - 1
        hi = lo << (1 << b)
        # the slot's flit's or the injected one's, each from its own table
        lane = ls[x]
        return Mux(lane["here"], ls.inj_sides(lo, hi), lane["sides"](lo, hi)) & Cat(lane["valid"], 1)

    def _decide(self, m, lanes, a, c, p, b, name):
        """The swap of the block of bit b at positions p, p + 2^b holding lanes a (upper) and c
        (lower), from lane bits only (spec step 3): the upper wins iff it holds a flit and the
        lower none or one of priority at most its own; the winner takes the side its mask alone
        allows, else the side the loser's mask alone does not need, else stays."""
        base = (p >> (b + 1)) << (b + 1)

        def only(x):
            bits = lanes.fact(("only", x, base, b), 2)
            return bits[0], bits[1]

        up = lanes[a]["valid"] & (~lanes[c]["valid"] | lanes.fact(("ge", a, c), 1))
        a_only, a_side = only(a)
        c_only, c_side = only(c)
        w_only, w_side = Mux(up, a_only, c_only), Mux(up, a_side, c_side)
        l_only, l_side = Mux(up, c_only, a_only), Mux(up, c_side, a_side)
        swap = Signal(name=f"{name}_sw{a}_{c}")     # the upper output takes the lower lane's flit
        m.d.comb += swap.eq(Mux(w_only, w_side, Mux(l_only, ~l_side, ~up)) == up)
        return swap

    # ------------------------------------------------------------------ the router

    def elaborate(self, platform):
        m = Module()
        S, E, n, K = self.S, self.E, self.node, self.K
        self._cmp = {}
        self._rows = self._table(m)
        top = (1 << self.age_bits) - 1
        # the register stages (class doc, Timing): "A" after ejection and injection (the slots,
        # the decisions and the bits derived from the inputs), "B" between the lanes and the
        # permutation network, "C" after the permutation network's first stage
        cuts = {1: (), 2: ("B",), 3: ("A", "C")}[self.P]

        def cut_a(value, name):
            """``value``, through the register of cut A when there is one."""
            if "A" not in cuts:
                return value
            r = Signal(len(value), name=f"a_{name}")
            m.d.sync += r.eq(value)
            return r

        # 1. ejection, from the FIFOs' room at the start of the cycle
        take = {}
        for e in range(E):
            push = Signal(name=f"ej{e}_push")
            new = Signal(self.nb + self.W, name=f"ej{e}_new")
            room = self._queue(m, e, push, new)
            t, word = self._eject(m, e, room)
            take |= t
            m.d.comb += [push.eq(Cat(*t.values()).any()), new.eq(word)]

        # 2. injection into the lowest free slot
        free = [Signal(name=f"free{y}") for y in range(S)]
        m.d.comb += [free[y].eq(~self.i[y].valid | take[y]) for y in range(S)]
        m.d.comb += self.inj.ready.eq(Cat(*free).any())
        here = [Signal(name=f"inj_at{y}") for y in range(S)]
        m.d.comb += [here[y].eq(self.inj.valid & free[y] & ~Cat(*free[:y]).any() if y else self.inj.valid & free[0])
                     for y in range(S)]
        def sides(mask, name):
            """``sides(lo, hi)``: whether a flit of productive ``mask`` can use one side only of the
            block whose sides are the outputs ``lo`` and ``hi``, and that side (through cut A)."""
            memo = {}

            def of(lo, hi):
                if (lo, hi) not in memo:
                    u0, u1 = (mask & lo).any(), (mask & hi).any()
                    memo[lo, hi] = cut_a(Cat(u0 ^ u1, u1), f"{name}_sides{lo}_{hi}")
                return memo[lo, hi]
            return of

        # lane y: the slot's flit (unless ejected) or the injected one, the age grown by K
        inj_sides = sides(self._mask(m, self.inj.payload.dst, "inj_mask"), "inj")
        inj_dst, inj_pl = cut_a(self.inj.payload.dst, "inj_dst"), cut_a(self.inj.payload.payload, "inj_pl")
        lanes = _Lanes(m)
        keys = []              # per slot: (age == 0 & src <= n, age != 0 | src >= n), against the injected flit
        for y in range(S):
            f = self.i[y].flit
            grown = Signal(self.age_bits + _bits(K), name=f"grown{y}")
            m.d.comb += grown.eq(f.age + K)
            h = cut_a(here[y], f"here{y}")
            dst, src, pl = cut_a(f.dst, f"dst{y}"), cut_a(f.src, f"src{y}"), cut_a(f.payload, f"pl{y}")
            age = cut_a(Mux(grown > top, top, grown[:self.age_bits]), f"age{y}")
            # dst and payload through a multiplexer; src and age (constants when injected, the age
            # saturating) as logic that synthesis folds into one LUT a bit
            moved = self._mux(m, [Cat(dst, pl), Cat(inj_dst, inj_pl)], h, f"lane{y}_mux")
            word = Signal(self.layout.as_shape().width, name=f"lane{y}_f")
            m.d.comb += word.eq(Cat(moved[:self.nb], Mux(h, n, src), Mux(h, min(K, top), age), moved[self.nb:]))
            x = {"valid": Signal(name=f"lane{y}_v"), "word": word, "here": h,
                 "sides": sides(self._mask(m, f.dst, f"mask{y}"), f"slot{y}")}
            m.d.comb += x["valid"].eq(h | cut_a(self.i[y].valid & ~take[y], f"kept{y}"))
            lanes.append(x)
            keys.append((cut_a((f.age == 0) & (f.src <= n), f"below{y}"),
                         cut_a((f.age != 0) | (f.src >= n), f"above{y}")))
        lanes.inj_sides, lanes.build = inj_sides, self._fact
        root = lanes

        # lane a's priority >= lane c's: the slots' comparator, or the injected flit's key (0, n)
        ge = {}

        def lane_ge(a, c):
            if (a, c) not in ge:
                ge[a, c] = cut_a(self._ge(m, a, c), f"ge{a}_{c}")
            return Mux(root[a]["here"], keys[c][0], Mux(root[c]["here"], keys[a][1], ge[a, c]))
        self._lane_ge = lane_ge
        if "B" in cuts:
            # the lanes, and the bits the blocks derive from them, in registers
            lanes = lanes.registered()

        # 3. the permutation network: positions hold lanes, one-hot
        k = S.bit_length() - 1
        pos = [{y: Const(1, 1)} for y in range(S)]
        for s in range(k):
            b = k - 1 - s
            nxt = list(pos)
            for p in range(S):
                if p >> b & 1:
                    continue
                q = p | 1 << b
                P, Q = pos[p], pos[q]
                name = f"st{s}_{p}"
                swap = Signal(name=f"{name}_swap")
                m.d.comb += swap.eq(_or(P[a] & Q[c] & self._decide(m, lanes, a, c, p, b, name)
                                        for a in P for c in Q))
                for r, X, Y in ((p, P, Q), (q, Q, P)):
                    nxt[r] = {}
                    for j in sorted(set(X) | set(Y)):
                        bit = nxt[r][j] = Signal(name=f"{name}_oh{r}_{j}")
                        m.d.comb += bit.eq(Mux(swap, Y.get(j, 0), X.get(j, 0)))
            pos = nxt
            if s == 0 and "C" in cuts:
                # each position's flit, and the bits the later blocks ask for, in registers: from here
                # on position r is lane r
                entries = []
                for r, oh in enumerate(pos):
                    held = sorted(oh)
                    sel = Signal(range(len(held)), name=f"c_sel{r}")
                    m.d.comb += sel.eq(self._index({i: oh[j] for i, j in enumerate(held)}))
                    valid, word = Signal(name=f"c{r}_v"), Signal(len(lanes[0]["word"]), name=f"c{r}_f")
                    m.d.sync += [valid.eq(_or(bit & lanes[j]["valid"] for j, bit in oh.items())),
                                 word.eq(self._mux(m, [lanes[j]["word"] for j in held], sel, f"c{r}_mux"))]
                    entries.append({"valid": valid, "word": word})
                lanes = _Positions(m, lanes, pos, entries)
                pos = [{r: Const(1, 1)} for r in range(S)]

        # 4. outputs: output y takes the lane its position holds
        for y in range(S):
            held = sorted(pos[y])
            sel = Signal(range(max(2, len(held))), name=f"sel{y}")
            m.d.comb += sel.eq(self._index({i: pos[y][j] for i, j in enumerate(held)}))
            m.d.sync += [self.o[y].valid.eq(_or(bit & lanes[j]["valid"] for j, bit in pos[y].items())),
                         self.o[y].flit.eq(self._mux(m, [lanes[j]["word"] for j in held], sel, f"out{y}_mux"))]
        return m


class _Lanes(list):
    """The lanes (``valid``, ``mask``, ``word``) and the bits derived from them that the blocks
    ask for (``fact``: built once per key by the first lanes' ``build``; behind a register,
    registered)."""

    def __init__(self, m, source: "_Lanes | None" = None):
        super().__init__()
        self.m, self.source, self._facts = m, source, {}

    def fact(self, key, width):
        """The value ``build(lanes, key)`` of the lanes before any register, through this one's."""
        if key not in self._facts:
            name = "_".join(str(k) for k in key)
            if self.source is None:
                v = Signal(width, name=f"lane_{name}")
                self.m.d.comb += v.eq(self.build(self, key))
            else:
                v = Signal(width, name=f"mid_{name}")
                self.m.d.sync += v.eq(self._through(key, width))
            self._facts[key] = v
        return self._facts[key]

    def _through(self, key, width):
        return self.source.fact(key, width)

    def registered(self) -> "_Lanes":
        """The same lanes through a register stage (valid reset to 0)."""
        out = _Lanes(self.m, self)
        for y, x in enumerate(self):
            r = {key: Signal(len(x[key]), name=f"mid{y}_{key}") for key in ("valid", "word")}
            self.m.d.sync += [r[key].eq(x[key]) for key in r]
            out.append(r)
        return out


class _Positions(_Lanes):
    """The positions of the permutation network after a stage as lanes: lane r is the flit at
    position r (``pos[r]``: one-hot over the lanes ``source``), ``entries[r]`` its ``valid`` and
    ``word``; a fact of a position is the fact of the lane it holds, registered."""

    def __init__(self, m, source: _Lanes, pos, entries):
        super().__init__(m, source)
        self.pos = [dict(oh) for oh in pos]
        self.extend(entries)

    def _through(self, key, width):
        if key[0] == "ge":
            a, c = self.pos[key[1]], self.pos[key[2]]
            return _or(a[j] & c[i] & self.source.fact(("ge", j, i), width) for j in a for i in c)
        x = self.pos[key[1]]
        return _or(Mux(x[j], self.source.fact((key[0], j, *key[2:]), width), 0) for j in x)
