"""LDI next-hop units: one routing decision per clock.

Ports (also the Verilog port names): ``i_valid``, ``i_node``, ``i_dest``,
``i_hop`` in; ``o_valid``, ``o_link``, ``o_next`` out; ``clk``/``rst`` of
the ``sync`` domain.  ``i_hop`` is the index of the hop about to be taken
(0 at the source).  Timing: ``o_valid``/``o_link``/``o_next`` show the
result for the inputs presented ``pipeline`` cycles earlier (``o_valid``
follows ``i_valid``); a new decision can start every cycle.  The closed-form
units also take ``pipeline=0``: no register at all, the outputs follow the
inputs in the same cycle (the network's single-cycle routers,
:mod:`permnet.hdl.router`, use them so); a unit emitted on its own
(:func:`permnet.hdl.emit.nexthop`) has a latency of at least one cycle.

* :class:`LdiNextHop` -- Melhem's algorithm for M = S^(h-1) G (Theorem 3,
  eqs. 10.a/10.b) with the two-hop shortcut of Section 4, in divider-free
  arithmetic, every level one carry chain or one LUT tree; model
  :func:`permnet.sim.reference.next_hop`.
* :class:`LdiNextHopTable` -- any M: the first link of the shortest route
  for (node, dest) read from a ``lib.memory.Memory`` holding
  :func:`permnet.sim.reference.route_table` (``i_hop`` is ignored).
* :class:`LdiNextHopNaive` -- the same function as :class:`LdiNextHop`
  written with ``%`` and ``//``; only the benchmark's baseline.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.topologies import ldi
from permnet.hdl.datapath import bits, build, reduce_steps
from permnet.gen.routing.nexthop import NextHopSpec, route_table

__all__ = ["LdiNextHop", "LdiNextHopTable", "LdiNextHopNaive", "TABLE_MAX_BITS"]

TABLE_MAX_BITS = 1 << 22   # largest route table (entries * link bits) we agree to build


def _signature(M: int, S: int, hop_bits: int) -> dict:
    nb = bits(M - 1)
    return {"i_valid": In(1), "i_node": In(nb), "i_dest": In(nb), "i_hop": In(hop_bits),
            "o_valid": Out(1), "o_link": Out(bits(S - 1)), "o_next": Out(nb)}


def _check_pipeline(pipeline: int, least: int = 1) -> None:
    require(isinstance(pipeline, int) and pipeline >= least, f"pipeline depth must be >= {least}, got {pipeline}")


class _MelhemUnit(wiring.Component):
    """Parameters and the hop multiplexer shared by the closed-form units."""

    def __init__(self, M: int, S: int, *, pipeline: int = 1, shortcut: bool = True):
        _check_pipeline(pipeline, least=0)
        self.spec = NextHopSpec(M, S, shortcut)
        self.pipeline = pipeline
        super().__init__(_signature(M, S, self.spec.hop_bits))

    def _hop_mux(self, m, hop, l0, digit):
        """link = l0 at hop 0, ``digit(i)`` at hop i >= 1 (hops past h-1 as h-1)."""
        h = self.spec.h
        link = Signal(bits(self.spec.S - 1), name="link_sel")
        with m.Switch(hop):
            with m.Case(0):
                m.d.comb += link.eq(l0)
            for i in range(1, h):
                with m.Case(i):
                    m.d.comb += link.eq(digit(i))
            with m.Default():
                m.d.comb += link.eq(digit(h - 1))
        return link


# ------------------------------------------------------------------ split datapath
#
# The closed-form unit is built from *chains*: sequences of levels, each
# level either carry chains (adders, subtractors) or LUT logic (tables,
# multiplexers), never a carry chain feeding a multiplexer in the same level.
# With a register after every level the slowest path is one register, one
# carry chain (or one LUT tree) and the routing to the next register.

RADIX_BITS = 2     # quotient bits resolved by each subtract/select pair of levels


def _pow2(c: int) -> bool:
    return c > 0 and c & (c - 1) == 0


def _width(v, n: int) -> Value:
    """``v`` zero-extended or truncated to exactly n bits."""
    return Cat(Value.cast(v), Const(0, n))[:n]


def _sub_const(v: Value, k: int, w: int) -> Value:
    """``v - k`` for ``v < 2^(w-1)``, ``k < 2^(w-1)`` as w bits, bit w-1 the
    borrow; the trailing zero bits of ``k`` pass through, so the carry chain
    covers only the bits above them."""
    z = (k & -k).bit_length() - 1 if k else w - 1
    z = min(z, w - 1, len(v))
    hi = Value.cast(v[z:]) - Const(k >> z, w - z)
    return Cat(v[:z], hi[:w - z]) if z else hi[:w]


def _thermo_select(flags: list, vals: list):
    """``vals[q]`` for the thermometer code ``flags`` (flags[k] = q >= k, k >= 1):
    a balanced tree of 2:1 multiplexers, each steered by one flag."""
    def pick(lo, hi):
        if hi - lo == 1:
            return vals[lo]
        mid = (lo + hi) // 2
        return Mux(flags[mid], pick(mid, hi), pick(lo, mid))
    return pick(0, len(vals))


def _divide(src, rem: str, quo: str | None, const: int, bound: int, width: int):
    """Chain computing ``rem = v mod const`` and ``quo = v div const`` for
    ``v = src(env) < bound * const`` (``width`` bits): restoring division by
    a constant, :data:`RADIX_BITS` quotient bits at a time, each group in two
    levels -- every candidate ``v - k const 2^s`` on its own carry chain, then
    a multiplexer tree taking the largest that did not borrow.  Returns
    (steps, rem_fn, quo_fn); with ``const`` a power of two or ``bound`` 1 it is
    wiring only (no steps)."""
    qbits = bits(bound - 1) if bound > 1 else 0
    if qbits == 0:                          # v < const already
        return [], (lambda env: Value.cast(src(env))[:width]), (lambda env: Const(0, 1))
    if _pow2(const):
        shift = const.bit_length() - 1
        rem_fn = (lambda env: Value.cast(src(env))[:shift]) if shift else (lambda env: Const(0, 1))
        return [], rem_fn, (lambda env: Value.cast(src(env))[shift:shift + qbits])
    groups = []
    s = qbits
    while s > 0:
        g = min(RADIX_BITS, s)
        s -= g
        groups.append(s)
    steps = []
    w = width
    for idx, s in enumerate(groups):
        first = idx == 0
        top = -(-bound // (1 << s)) if first else 1 << (groups[idx - 1] - s)
        cands = [k * const << s for k in range(1, top)]
        wk = [max(w, bits(c)) + 1 for c in cands]
        w_out = bits((const << s) - 1)

        def operand(env, first=first, w=w):
            return Value.cast(src(env) if first else env[rem])[:w]

        def sub(env, operand=operand, cands=cands, wk=wk, s=s):
            v = operand(env)
            return {f"{rem}_d{s}_{k}": _sub_const(v, c, wk[k]) for k, c in enumerate(cands)}

        def pick(env, operand=operand, cands=cands, wk=wk, s=s, first=first, w_out=w_out):
            v = operand(env)
            diffs = [env[f"{rem}_d{s}_{k}"] for k in range(len(cands))]
            flags = [None] + [~d[wk[k] - 1] for k, d in enumerate(diffs)]
            out = {rem: _thermo_select(flags, [v[:w_out]] + [d[:w_out] for d in diffs])}
            if quo:
                q = _thermo_select(flags, [Const(k, bits(len(cands))) for k in range(len(cands) + 1)])
                out[quo] = (q << s) if first else (Value.cast(env[quo]) | (q << s))
            return out
        steps += [sub, pick]
        w = w_out
    return steps, (lambda env: env[rem]), (lambda env: env[quo])


def _residue(m, src: str, dst: str, const: int, width: int, mult: int):
    """Chain computing ``dst = (mult * src) mod const``: a constant table per
    4-bit chunk of src (one LUT4 per output bit), a tree of two-input adders
    (one carry chain a level) and a :func:`_divide` of the sum, whose
    quotient bound comes from the tables' actual largest entries."""
    if mult % const == 0:
        return [], lambda env: Const(0, 1)
    if _pow2(const) and _pow2(mult):
        shift, keep = mult.bit_length() - 1, const.bit_length() - 1
        return [], lambda env: Cat(Const(0, shift), Value.cast(env[src]))[:keep]
    nchunks = (width + 3) // 4
    rbits = bits(const - 1)
    vals = [[(mult * c << (4 * k)) % const for c in range(1 << min(4, width - 4 * k))] for k in range(nchunks)]

    def tables(env):
        v = Value.cast(env[src])[:width]
        out = {}
        for k in range(nchunks):
            res = Signal(rbits, name=f"{dst}_t{k}")
            with m.Switch(v[4 * k:4 * k + 4]):
                for c, r in enumerate(vals[k]):
                    with m.Case(c):
                        m.d.comb += res.eq(r)
            out[f"{dst}_t{k}"] = res
        return out
    steps = [tables]
    names = [f"{dst}_t{k}" for k in range(nchunks)]
    lvl = 0
    while len(names) > 1:
        pairs = [names[i:i + 2] for i in range(0, len(names), 2)]
        outs = [f"{dst}_s{lvl}_{i}" for i in range(len(pairs))]

        def add(env, pairs=pairs, outs=outs):
            return {o: sum((Value.cast(env[n]) for n in p[1:]), Value.cast(env[p[0]])) for o, p in zip(outs, pairs)}
        steps.append(add)
        names = outs
        lvl += 1
    total = sum(max(v) for v in vals)
    div, rem_fn, _ = _divide(lambda env: env[names[0]], dst, None, const, total // const + 1, bits(total))
    return steps + div, rem_fn


def _schedule(chains: list) -> list:
    """Place chains ``(needs, makes, steps)`` as early as their inputs allow
    (chain order respects the dependencies); returns the list of levels.
    Names not made by any chain are the unit's inputs, ready before level 0."""
    ready: dict = {}
    placed = []
    for needs, makes, steps in chains:
        start = 1 + max((ready.get(n, -1) for n in needs), default=-1)
        placed.append((start, steps))
        for n in makes:
            ready[n] = start + len(steps) - 1
    levels = [[] for _ in range(max(st + len(sp) for st, sp in placed))]
    for st, sp in placed:
        for i, step in enumerate(sp):
            levels[st + i].append(step)
    return levels


class LdiNextHop(_MelhemUnit):
    """Closed-form next hop for LDI(M, S) with M = S^(h-1) G (see module doc).

    Datapath, no divider anywhere, every level one carry chain or one LUT
    tree (so registered after every level it runs at the speed of one
    carry chain): ``x0 = S n mod M`` and ``r' = -S n mod G`` from 4-bit
    residue tables, an adder tree and a split conditional subtraction
    (:func:`_residue`); the digits of d from the top down by restoring
    division, two quotient bits per subtract/select pair of levels
    (:func:`_divide`), or with ``digits="parallel"`` each digit on its own
    (``(d mod S^(j+1)) div S^j``); ``l0 = (t + r') mod G`` as a table of
    (t, r') (or, for G > 16, an adder and a split subtraction); the shortcut
    test ``(d - x0) mod M < S`` from ``d - x0`` and ``d + (M - x0)`` side by
    side; a hop-indexed digit multiplexer; ``next = x0 + link`` and
    ``x0 + link - M`` side by side, then the multiplexer between them.
    :attr:`depth` is the number of levels: the pipeline depth at which every
    level has its register.
    """

    def __init__(self, M: int, S: int, *, pipeline: int = 1, shortcut: bool = True, digits: str = "serial"):
        require(digits in ("serial", "parallel"), f"digits must be serial or parallel, got {digits!r}")
        self.digits = digits
        super().__init__(M, S, pipeline=pipeline, shortcut=shortcut)

    @property
    def depth(self) -> int:
        """Pipeline depth that puts a register after every level."""
        return len(self._levels(None)[0])     # the steps (which use the module) are not run

    def _levels(self, m):
        sp = self.spec
        M, S, G, h = sp.M, sp.S, sp.G, sp.h
        nb, lb = bits(M - 1), bits(S - 1)
        chains = []
        # x0 = S n mod M, then y = x0 + 2^(nb+1) - M (so that y + link carries
        # out exactly when x0 + link >= M)
        xsteps, x0_fn = _residue(m, "n", "x0", M, nb, S)
        K = 1 << (nb + 1)
        def extend(env):
            x0 = Value.cast(x0_fn(env))[:nb]
            out = {"x0r": x0, "y": (x0 + Const(K - M, nb + 1))[:nb + 1]}
            if sp.shortcut:
                out["x0n"] = (M - x0)[:nb + 1]     # for the shortcut test
            return out
        chains.append(({"n"}, {"x0r", "y", "x0n"}, xsteps + [extend]))
        # r' = (-S n) mod G
        rsteps, r_fn = _residue(m, "n", "rn", G, nb, (-S) % G)
        if rsteps:
            chains.append(({"n"}, {"rn"}, rsteps))
        # digits of d
        digit = {}
        if self.digits == "serial":
            cur, width = (lambda env: env["d"]), nb
            dsteps = []
            for j in range(h - 1, 0, -1):
                st, cur, digit[j] = _divide(cur, f"dr{j}", f"dig{j}", S ** j, G if j == h - 1 else S, width)
                dsteps += st
                width = bits(S ** j - 1)
            digit[0] = cur
            # the top digit is ready long before the others
            top = len(_divide(lambda env: env["d"], "dr", "dq", S ** (h - 1), G, nb)[0])
            chains.append(({"d"}, {"dtop"}, dsteps[:top]))
            chains.append(({"dtop"}, {"dall"}, dsteps[top:]))
        else:
            for j in range(h):
                if j == h - 1:
                    st, _, digit[j] = _divide(lambda env: env["d"], f"dp{j}", f"dig{j}", S ** j, G, nb)
                else:
                    mod = S ** (j + 1)
                    if _pow2(mod):
                        st1, f = [], (lambda env, mod=mod: Value.cast(env["d"])[:mod.bit_length() - 1])
                    else:
                        st1, f = _residue(m, "d", f"dm{j}", mod, nb, 1)
                    st2, _, digit[j] = _divide(f, f"dp{j}", f"dig{j}", S ** j, S, bits(mod - 1))
                    st = st1 + st2
                chains.append(({"d"}, {"dtop" if j == h - 1 else f"dall{j}"}, st))
        # l0 = (t + r') mod G
        t_fn = digit[h - 1]
        gb = bits(G - 1)
        if 2 * gb <= 8:
            def l0_step(env):
                key = Cat(_width(t_fn(env), gb), _width(r_fn(env), gb))
                l0 = Signal(gb, name="l0_tab")
                with m.Switch(key):
                    for t in range(G):
                        for r in range(G):
                            with m.Case(t | r << gb):
                                m.d.comb += l0.eq((t + r) % G)
                return {"l0": l0}
            chains.append(({"dtop", "rn"}, {"l0"}, [l0_step]))
        else:
            add = lambda env: {"l0s": Value.cast(t_fn(env))[:gb] + Value.cast(r_fn(env))[:gb]}  # noqa: E731
            dv, l0_fn, _ = _divide(lambda env: env["l0s"], "l0", None, G, 2, gb + 1)
            chains.append(({"dtop", "rn"}, {"l0"}, [add] + dv))
        needs_sel = {"l0", "dtop"} | ({"dall"} if self.digits == "serial" else {f"dall{j}" for j in range(h - 1)})
        if sp.shortcut:
            # delta = (d - x0) mod M is e = d - x0 when e >= 0, else d + (M - x0)
            def diffs(env):
                d, x0 = Value.cast(env["d"]), Value.cast(env["x0r"])
                return {"e": (d - x0)[:nb + 1], "em": (d + env["x0n"])[:nb + 1]}

            def near(env):
                e, em = env["e"], env["em"]
                return {"e_lt": e[:nb] < S, "em_lt": em < S}
            chains.append(({"x0r", "x0n"}, {"sc"}, [diffs, near]))
            needs_sel |= {"sc"}

        def select(env):
            l0 = Value.cast(env["l0"])
            if sp.shortcut:
                e, em = env["e"], env["em"]
                l0 = Mux(e[nb], Mux(env["em_lt"], em[:lb], l0), Mux(env["e_lt"], e[:lb], l0))
            return {"link": self._hop_mux(m, env["hop"], l0, lambda i: digit[h - 1 - i](env))}

        def add_link(env):
            return {"s": (Value.cast(env["x0r"]) + env["link"])[:nb], "sm": Value.cast(env["y"]) + env["link"]}

        def finish(env):
            return {"next": Mux(env["sm"][nb + 1], env["sm"][:nb], env["s"])}
        chains.append((needs_sel, {"link"}, [select]))
        chains.append(({"link", "y"}, {"out"}, [add_link, finish]))
        return _schedule(chains), digit

    def elaborate(self, platform):
        m = Module()
        env = {"valid": self.i_valid, "n": self.i_node, "d": self.i_dest, "hop": self.i_hop}
        levels, _ = self._levels(m)
        out = build(m, env, levels, self.pipeline)
        m.d.comb += [self.o_valid.eq(out["valid"]), self.o_link.eq(out["link"]), self.o_next.eq(out["next"])]
        return m


class LdiNextHopNaive(_MelhemUnit):
    """Baseline: the function of :class:`LdiNextHop` written with ``%``/``//``."""

    def elaborate(self, platform):
        m = Module()
        sp = self.spec
        M, S, G, h = sp.M, sp.S, sp.G, sp.h
        n, d, hop = self.i_node, self.i_dest, self.i_hop
        x0 = (n * S) % M
        l0 = ((d // S ** (h - 1)) + G - (x0 % G)) % G
        if sp.shortcut:
            delta = (d + M - x0) % M
            l0 = Mux(delta < S, delta, l0)
        link = self._hop_mux(m, hop, l0, lambda i: (d // S ** (h - 1 - i)) % S)
        env = {"valid": self.i_valid, "link": link, "next": (x0 + link) % M}
        out = build(m, env, [[lambda e: {}]], self.pipeline)
        m.d.comb += [self.o_valid.eq(out["valid"]), self.o_link.eq(out["link"]), self.o_next.eq(out["next"])]
        return m


class LdiNextHopTable(wiring.Component):
    """Table-driven next hop for any LDI(M, S): ``link = table[node][dest]``
    from a synchronous-read ``lib.memory.Memory`` addressed by
    ``{node, dest}``; ``next = (S node + link) mod M`` by conditional
    subtraction.  Latency ``pipeline`` >= 1 (the memory read is the first
    register)."""

    def __init__(self, M: int, S: int, *, pipeline: int = 1):
        _check_pipeline(pipeline)
        ldi.check_params(M, S)
        nb = bits(M - 1)
        require((1 << (2 * nb)) * bits(S - 1) <= TABLE_MAX_BITS,
                f"route table for M={M} needs {(1 << (2 * nb)) * bits(S - 1)} bits, more than {TABLE_MAX_BITS}")
        self.M, self.S, self.pipeline = M, S, pipeline
        self.table = route_table(M, S)
        super().__init__(_signature(M, S, 1))

    def init_words(self) -> list[int]:
        """Memory contents: word ``(node << nb) | dest`` is the link."""
        nb = bits(self.M - 1)
        words = [0] * (1 << (2 * nb))
        for n in range(self.M):
            for d in range(self.M):
                words[(n << nb) | d] = int(self.table[n, d])
        return words

    def elaborate(self, platform):
        m = Module()
        M, S = self.M, self.S
        nb = bits(M - 1)
        m.submodules.table = mem = memory.Memory(shape=bits(S - 1), depth=1 << (2 * nb), init=self.init_words())
        rd = mem.read_port(domain="sync")
        m.d.comb += rd.addr.eq(Cat(self.i_dest, self.i_node))
        env = {"valid": self.i_valid, "sn": self.i_node * S}
        # x0 = S*n mod M is computed next to the memory read and registered with it.
        levels = [[step] for step in reduce_steps("sn", "x0", None, M, S, bits(S * M))]
        stage1 = build(m, env, levels, 1)

        def finish(env):
            s = Value.cast(env["x0"]) + rd.data
            return {"link": rd.data, "next": Mux(s >= M, s - M, s)[:nb]}

        out = stage1 if self.pipeline == 1 else None
        if self.pipeline == 1:
            out = {**stage1, **finish(stage1)}
        else:
            out = build(m, stage1, [[finish]], self.pipeline - 1)
        m.d.comb += [self.o_valid.eq(out["valid"]), self.o_link.eq(out["link"]), self.o_next.eq(out["next"])]
        return m
