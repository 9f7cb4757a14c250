"""S switching planes of M ports, reloadable at run time (Melhem's planes as switches).

Plane y is a permutation P_y of the M nodes (Melhem, eq. (3)): output port y
of node n is wired to input port y of node P_y(n).  :class:`PlaneSet` carries,
per plane, a forward word from every node to its successor and a backward
word (credits, say) along the same circuit the other way:

* ``fwd_i[y][n]`` (``fwd_width`` bits, what node n sends on its output y)
  appears on ``fwd_o[y][P_y(n)]`` (what node P_y(n) receives on input y);
* ``bwd_i[y][m]`` (``bwd_width`` bits, sent back by node m on its input y)
  appears on ``bwd_o[y][P_y^-1(m)]``.

A port the active configuration leaves unconnected reads 0 (with ``gate_bits``,
the low ``gate_bits`` bits of its forward word do).

Kinds (``kind``):

* ``"wires"``: the planes are fixed wires; no configuration port.
* ``"crossbar"``: per plane, one M:1 multiplexer per output in each
  direction, selected by registers (the per-output mux registers of Xilinx
  PG085); on ECP5 (``cells = "ecp5"``) the hand-mapped LUT4/PFUMX/L6MUX21
  trees of :mod:`permnet.hdl.muxtree`.
* ``"benes"``: per plane, a Beneš network of 2x2 switches
  (:mod:`permnet.hdl.benes`, any M >= 2, Chang & Melhem's arbitrary-size
  construction) for the forward words, and the *same* network traversed
  from its outputs back to its inputs with the same settings for the
  backward words; the reverse traversal realises P_y^-1 because every 2x2
  switch is an involution (proof in :func:`permnet.hdl.benes.traverse`).
  Two enable masks per plane zero the unconnected ports.

Configuration port ``cfg`` (Verilog ``cfg__plane``, ``cfg__addr``,
``cfg__data``, ``cfg__we``, ``cfg__commit``, ``cfg__rdata``), PG085 style:

* a clock edge with ``we`` = 1 writes ``data`` into the *shadow*
  configuration at (``plane``, ``addr``); the data path does not see it;
* a clock edge with ``commit`` = 1 copies the whole shadow (every plane) into
  the *active* configuration: the data path uses the old configuration in
  the cycle that carries ``commit`` and the new one from the next cycle on.
  A write in the same cycle as ``commit`` lands in the shadow only (it is
  active after the next commit).  The shadow keeps its contents after a
  commit, so a partial update writes only the entries that change;
* ``rdata`` is registered: in cycle t+1 it holds the *active* entry at
  (``plane``, ``addr``) of cycle t, as it was in cycle t;
* the words (address meaning, data layout) are those of
  :mod:`permnet.gen.planes.runtime` (crossbar: ``addr`` = node n, ``data``
  = ``enable << bits(M-1) | P_y(n)``; Beneš: stage words then the two
  masks), which computes them from a planes file.  Addresses past the last
  entry are ignored on write and read an unspecified entry.

Reset: shadow = active = the ``planes`` argument.

Latency: 0 cycles (combinational from ``fwd_i`` to ``fwd_o`` and ``bwd_i`` to
``bwd_o``); ``register=True`` registers both outputs (1 cycle; a word is
routed by the configuration active in the cycle it entered).
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.planes import runtime
from permnet.gen.routing import benes as router
from permnet.hdl.benes import layout as benes_layout, traverse
from permnet.hdl.datapath import bits
from permnet.hdl.muxtree import mux_word

__all__ = ["PlaneSet", "ConfigSignature", "KINDS"]

KINDS = runtime.KINDS


class ConfigSignature(wiring.Signature):
    """The configuration port as the host sees it: it drives ``plane``,
    ``addr``, ``data``, ``we``, ``commit`` and reads ``rdata``."""

    def __init__(self, plane_bits: int, addr_bits: int, data_bits: int):
        super().__init__({"plane": Out(plane_bits), "addr": Out(addr_bits), "data": Out(data_bits),
                          "we": Out(1), "commit": Out(1), "rdata": In(data_bits)})


class PlaneSet(wiring.Component):
    """S planes of M ports; see the module docstring for ports and timing.

    Parameters: ``M`` nodes (>= 2), ``S`` planes (>= 1), ``fwd_width`` and
    ``bwd_width`` bits (>= 1), ``kind`` (``wires``, ``crossbar``, ``benes``),
    ``planes`` (S lists of M: ``planes[y][n]`` = P_y(n), -1/None
    unconnected; the reset configuration), ``register`` (registered
    outputs), ``network`` (``benes`` or ``waksman``, Beneš kind only),
    ``gate_bits`` (the low bits of a forward word that an unconnected port
    reads as 0; None, the default, all of them: the network's links gate
    only their valid bit, bit 0, since a receiver ignores the rest of a word
    without it, and the gates, one LUT4 per bit and output, are then one).

    ``cells``: ``"ecp5"`` maps the multiplexers onto hand-placed ECP5 cells
    (synthesis only); None (default) is plain Amaranth for simulation and
    any other family.  Set it on the instance before elaboration.
    """

    cells = None

    def __init__(self, M: int, S: int, fwd_width: int, bwd_width: int, kind: str, planes, *,
                 register: bool = False, network: str = "benes", gate_bits: int | None = None):
        require(isinstance(M, int) and M >= 2, f"M must be >= 2, got {M}")
        require(isinstance(S, int) and S >= 1, f"S must be >= 1, got {S}")
        require(isinstance(fwd_width, int) and fwd_width >= 1, f"fwd_width must be >= 1, got {fwd_width}")
        require(isinstance(bwd_width, int) and bwd_width >= 1, f"bwd_width must be >= 1, got {bwd_width}")
        require(kind in KINDS, f"unknown plane kind {kind!r}; choose from {', '.join(KINDS)}")
        require(network in router.NETWORKS, f"unknown network {network!r}")
        self.M, self.S, self.fwd_width, self.bwd_width = M, S, fwd_width, bwd_width
        self.kind, self.register, self.network = kind, bool(register), network
        require(gate_bits is None or (isinstance(gate_bits, int) and 1 <= gate_bits <= fwd_width),
                f"gate_bits must be 1..{fwd_width}, got {gate_bits}")
        self.gate_bits = fwd_width if gate_bits is None else gate_bits
        self.planes = runtime.check_planes(planes, M, S)
        members = {"fwd_i": In(data.ArrayLayout(data.ArrayLayout(fwd_width, M), S)),
                   "fwd_o": Out(data.ArrayLayout(data.ArrayLayout(fwd_width, M), S)),
                   "bwd_i": In(data.ArrayLayout(data.ArrayLayout(bwd_width, M), S)),
                   "bwd_o": Out(data.ArrayLayout(data.ArrayLayout(bwd_width, M), S))}
        if kind in runtime.LOADABLE:
            self.addr_bits = runtime.addr_bits(kind, M, network)
            self.data_bits = runtime.data_bits(kind, M, network)
            members["cfg"] = In(ConfigSignature(bits(S - 1), self.addr_bits, self.data_bits))
        super().__init__(members)

    @property
    def latency(self) -> int:
        return int(self.register)

    @property
    def entries(self) -> int:
        """Configuration entries per plane (``cfg.addr`` 0 .. entries-1)."""
        require(self.kind in runtime.LOADABLE, f"{self.kind!r} planes have no configuration port")
        return self.M if self.kind == "crossbar" else runtime.benes_stages(self.M, self.network) + 2

    def writes(self, planes) -> list[tuple[int, int, int]]:
        """The ``(plane, addr, data)`` writes that load ``planes`` (S lists of M); commit after them."""
        return runtime.config_writes(self.kind, runtime.check_planes(planes, self.M, self.S), self.network)

    def decode(self, words) -> list[int]:
        """One plane's permutation (-1 unconnected) from its :attr:`entries` read-back words."""
        return runtime.decode_readback(self.kind, self.M, words, self.network)

    @property
    def notes(self) -> list[str]:
        """Lines for the Verilog header comment."""
        lines = [f"fwd_i/fwd_o: plane y, node n at bits [(y*M+n)*W, (y*M+n+1)*W), W = {self.fwd_width}; "
                 f"bwd likewise, W = {self.bwd_width}",
                 f"latency {self.latency} cycle(s): fwd_o[y][P_y(n)] = fwd_i[y][n], bwd_o[y][n] = bwd_i[y][P_y(n)]"]
        if self.kind in runtime.LOADABLE:
            lines += ["cfg__we: write cfg__data into the shadow at (cfg__plane, cfg__addr); "
                      "cfg__commit: shadow -> active at that clock edge",
                      "cfg__rdata: registered read-back of the ACTIVE entry at (cfg__plane, cfg__addr)"]
        return lines

    def _out(self, m, port, y, n, value, enable=None):
        if enable is not None:
            g = self.gate_bits if port is self.fwd_o else len(value)
            value = Cat(value[:g] & enable.replicate(g), value[g:])
        m.d["sync" if self.register else "comb"] += port[y][n].eq(value)

    def elaborate(self, platform):
        m = Module()
        M, S = self.M, self.S
        if self.kind == "wires":
            for y, row in enumerate(self.planes.tolist()):
                for n, d in enumerate(row):
                    if d >= 0:
                        self._out(m, self.fwd_o, y, d, self.fwd_i[y][n])
                        self._out(m, self.bwd_o, y, n, self.bwd_i[y][d])
            return m
        writes = [runtime.plane_writes(self.kind, row, self.network) for row in self.planes]
        if self.kind == "crossbar":
            self._crossbar(m, writes)
        else:
            self._benes(m, writes)
        return m

    def _strobe(self, m, y, a):
        """The write strobe of entry (y, a)."""
        hit = Signal(name=f"we_{y}_{a}")
        m.d.comb += hit.eq(self.cfg.we & (self.cfg.plane == y) & (self.cfg.addr == a))
        return hit

    def _readback(self, m, active):
        """``rdata`` one cycle after the address: active[plane][addr]."""
        flat = Array(Array(row) for row in active)
        m.d.sync += self.cfg.rdata.eq(flat[self.cfg.plane][self.cfg.addr])

    def _crossbar(self, m, writes):
        M, S, b = self.M, self.S, runtime.dest_bits(self.M)
        entry = data.StructLayout({"sel": b, "en": 1})
        # bsel[y][n]: node n's backward select (= P_y(n)); fsel[y][m]: output
        # m's forward select (= P_y^-1(m)).  One write at node n sets both:
        # bsel[n] = dest and fsel[dest] = n, with the same enable bit.
        init_b = [[{"sel": d & ((1 << b) - 1), "en": d >> b} for _, d in w] for w in writes]
        init_f = [[None] * M for _ in range(S)]
        for y, w in enumerate(writes):
            for n, d in w:
                init_f[y][d & ((1 << b) - 1)] = {"sel": n, "en": d >> b}
        act_b = [[Signal(entry, name=f"bsel_{y}_{n}", init=init_b[y][n]) for n in range(M)] for y in range(S)]
        act_f = [[Signal(entry, name=f"fsel_{y}_{n}", init=init_f[y][n]) for n in range(M)] for y in range(S)]
        shd_b = [[Signal(entry, name=f"bshd_{y}_{n}", init=init_b[y][n]) for n in range(M)] for y in range(S)]
        shd_f = [[Signal(entry, name=f"fshd_{y}_{n}", init=init_f[y][n]) for n in range(M)] for y in range(S)]
        word = Signal(entry, name="cfg_word")
        m.d.comb += word.as_value().eq(self.cfg.data)
        for y in range(S):
            for n in range(M):
                with m.If(self._strobe(m, y, n)):
                    m.d.sync += shd_b[y][n].eq(word)
                fw = Signal(name=f"fwe_{y}_{n}")
                m.d.comb += fw.eq(self.cfg.we & (self.cfg.plane == y) & (word.sel == n))
                with m.If(fw):
                    m.d.sync += [shd_f[y][n].sel.eq(self.cfg.addr), shd_f[y][n].en.eq(word.en)]
        with m.If(self.cfg.commit):
            m.d.sync += [a.eq(s) for ra, rs in zip(act_b + act_f, shd_b + shd_f) for a, s in zip(ra, rs)]
        self._readback(m, [[e.as_value() for e in row] for row in act_b])
        for y in range(S):
            fin = [self.fwd_i[y][n] for n in range(M)]
            bin_ = [self.bwd_i[y][n] for n in range(M)]
            for n in range(M):
                f = mux_word(m, fin, act_f[y][n].sel, self.cells, f"fx{y}_{n}")
                self._out(m, self.fwd_o, y, n, f, act_f[y][n].en)
                g = mux_word(m, bin_, act_b[y][n].sel, self.cells, f"bx{y}_{n}")
                self._out(m, self.bwd_o, y, n, g, act_b[y][n].en)

    def _benes(self, m, writes):
        M, S = self.M, self.S
        switches, links = benes_layout(M, self.network)
        T = len(switches)
        widths = [max(1, M // 2)] * T + [M, M]
        act = [[Signal(widths[a], name=f"act_{y}_{a}", init=d) for a, d in w] for y, w in enumerate(writes)]
        shd = [[Signal(widths[a], name=f"shd_{y}_{a}", init=d) for a, d in w] for y, w in enumerate(writes)]
        for y in range(S):
            for a in range(T + 2):
                with m.If(self._strobe(m, y, a)):
                    m.d.sync += shd[y][a].eq(self.cfg.data[:widths[a]])
        with m.If(self.cfg.commit):
            m.d.sync += [x.eq(s) for ra, rs in zip(act, shd) for x, s in zip(ra, rs)]
        self._readback(m, act)
        for y in range(S):
            fwd = traverse(m, switches, links, [self.fwd_i[y][n] for n in range(M)], act[y],
                           self.cells, name=f"f{y}_")
            bwd = traverse(m, switches, links, [self.bwd_i[y][n] for n in range(M)], act[y],
                           self.cells, reverse=True, name=f"b{y}_")
            for n in range(M):
                self._out(m, self.fwd_o, y, n, fwd[n], act[y][T][n])
                self._out(m, self.bwd_o, y, n, bwd[n], act[y][T + 1][n])
