"""LDI next-hop units: one routing decision per clock.

Ports (also the Verilog port names): ``i_valid``, ``i_node``, ``i_dest``,
``i_hop`` in; ``o_valid``, ``o_link``, ``o_next`` out; ``clk``/``rst`` of
the ``sync`` domain.  ``i_hop`` is the index of the hop about to be taken
(0 at the source).  Timing: ``o_valid``/``o_link``/``o_next`` show the
result for the inputs presented ``pipeline`` cycles earlier (``o_valid``
follows ``i_valid``); a new decision can start every cycle.

* :class:`LdiNextHop` -- Melhem's algorithm for M = S^(h-1) G (Theorem 3,
  eqs. 10.a/10.b) with the two-hop shortcut of Section 4, in divider-free
  arithmetic (:mod:`permnet.hdl.datapath`); model
  :func:`permnet.sim.reference.next_hop`.
* :class:`LdiNextHopTable` -- any M: the first link of the shortest route
  for (node, dest) read from a ``lib.memory.Memory`` holding
  :func:`permnet.sim.reference.route_table` (``i_hop`` is ignored).
* :class:`LdiNextHopNaive` -- the same function as :class:`LdiNextHop`
  written with ``%`` and ``//``; only the benchmark's baseline.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal, Value
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.topologies import ldi
from permnet.hdl.datapath import bits, build, digits_steps, merge, reduce_steps, residue_steps, thermometer_steps
from permnet.gen.routing.nexthop import NextHopSpec, route_table

__all__ = ["LdiNextHop", "LdiNextHopTable", "LdiNextHopNaive", "TABLE_MAX_BITS"]

TABLE_MAX_BITS = 1 << 22   # largest route table (entries * link bits) we agree to build


def _signature(M: int, S: int, hop_bits: int) -> dict:
    nb = bits(M - 1)
    return {"i_valid": In(1), "i_node": In(nb), "i_dest": In(nb), "i_hop": In(hop_bits),
            "o_valid": Out(1), "o_link": Out(bits(S - 1)), "o_next": Out(nb)}


def _check_pipeline(pipeline: int) -> None:
    require(isinstance(pipeline, int) and pipeline >= 1, f"pipeline depth must be >= 1, got {pipeline}")


class _MelhemUnit(wiring.Component):
    """Parameters and the hop multiplexer shared by the closed-form units."""

    def __init__(self, M: int, S: int, *, pipeline: int = 1, shortcut: bool = True):
        _check_pipeline(pipeline)
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


class LdiNextHop(_MelhemUnit):
    """Closed-form next hop for LDI(M, S) with M = S^(h-1) G (see module doc).

    Datapath, no divider anywhere: ``x0 = S n mod M`` and ``r = S n mod G``
    from 4-bit residue tables, an adder and bounded conditional subtraction
    (:func:`~permnet.hdl.datapath.residue_steps`); digit j of d as
    ``(d mod S^(j+1)) div S^j`` with the quotient (< S) found by comparing
    with all multiples at once (plain bit slices when S is a power of two);
    ``l0 = (t - r) mod G`` as one conditional add; the shortcut test
    ``(d - x0) mod M < S``; a hop-indexed digit multiplexer; and
    ``next = x0 + link`` with one conditional subtraction of M.
    """

    def __init__(self, M: int, S: int, *, pipeline: int = 1, shortcut: bool = True, digits: str = "serial"):
        require(digits in ("serial", "parallel"), f"digits must be serial or parallel, got {digits!r}")
        self.digits = digits
        super().__init__(M, S, pipeline=pipeline, shortcut=shortcut)

    def elaborate(self, platform):
        m = Module()
        sp = self.spec
        M, S, G, h = sp.M, sp.S, sp.G, sp.h
        nb = bits(M - 1)
        env = {"valid": self.i_valid, "n": self.i_node, "d": self.i_dest, "hop": self.i_hop}
        # x0 = S n mod M and r = S n mod G (= x0 mod G, as G divides M), side by side.
        chains = [residue_steps(m, "n", "x0", M, nb, mult=S), residue_steps(m, "n", "r", G, nb, mult=S)]
        if self.digits == "parallel":
            # digit j of d (j < h-1): (d mod S^(j+1)) div S^j; the top digit: d div S^(h-1) < G.
            for j in range(h - 1):
                chains.append(residue_steps(m, "d", f"dm{j}", S ** (j + 1), nb)
                              + thermometer_steps(f"dm{j}", f"dig{j}", S ** j, S))
            chains.append(thermometer_steps("d", f"dig{h - 1}", S ** (h - 1), G))
        else:
            # digits from the top down, one compare-subtract per quotient bit
            chains.append(digits_steps("d", S, h, G, nb, "dig"))

        # Every level below is at most one carry chain and a multiplexer, so
        # with one register per level the unit runs at the speed of one
        # compare-and-subtract.
        def differences(env):
            t, r = Value.cast(env[f"dig{h - 1}"]), Value.cast(env["r"])
            out = {"tr": (t - r).as_signed(), "tneg": t < r}
            if sp.shortcut:
                d, x0 = Value.cast(env["d"]), Value.cast(env["x0"])
                out |= {"dx": (d - x0)[:nb + 1], "dneg": d < x0}
            return out

        def wrap(env):
            out = {"l0": Mux(env["tneg"], env["tr"] + G, env["tr"])[:bits(S - 1)]}
            if sp.shortcut:
                out["delta"] = Mux(env["dneg"], env["dx"] + M, env["dx"])[:nb]
            return out

        def combine(env):
            if not sp.shortcut:
                return {"l0": env["l0"]}
            delta = Value.cast(env["delta"])
            return {"l0": Mux(delta < S, delta[:bits(S - 1)], env["l0"])}

        def select(env):
            return {"link": self._hop_mux(m, env["hop"], env["l0"], lambda i: env[f"dig{h - 1 - i}"])}

        def add_link(env):
            return {"sum": Value.cast(env["x0"]) + env["link"]}

        def finish(env):
            s = Value.cast(env["sum"])
            return {"next": Mux(s >= M, s - M, s)[:nb]}

        levels = merge(*chains) + [[differences], [wrap], [combine], [select], [add_link], [finish]]
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
