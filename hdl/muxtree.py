"""N:1 multiplexers hand-mapped onto ECP5 LUT4 + PFUMX + L6MUX21 cells.

An ECP5 slice holds two LUT4s and a PFUMX (the "F5" 2:1 mux joining them);
an L6MUX21 joins two PFUMX outputs of neighbouring slices (F6), and another
L6MUX21 two F6 outputs, the four slices of one PFU (F7).  One LUT4 is a 2:1
mux (data A, B, select C), so

* 8:1 = 4 LUT4 (2:1) + 2 PFUMX (4:1) + 1 L6MUX21 (8:1): 0.5 LUT4 per input;
* 16:1 = two 8:1 and an L6MUX21 (F7): 8 LUT4, still 0.5 per input;
* a wider mux is a tree of such 16:1 groups whose leaves are the previous
  level's outputs, the top level a 2:1 LUT4, a 4:1 (2 LUT4 + PFUMX), an
  8:1 or a 16:1 group.  N = 32: 16 + 1 = 17 LUT4 (0.53 per input),
  N = 64: 32 + 2 = 34.

yosys's default mapping of ``Array(...)[sel]`` builds a balanced tree of
$_MUX_ cells and maps them with abc into LUT4s (0.83-1.31 LUT4 per input
bit for N = 16..64), which is what :class:`CrossbarDatapath` with
``mapped=False`` measures.  The cells are primitives of yosys's ECP5
library, which the Amaranth simulator cannot run, so a design using them is
for synthesis; :func:`mux_generic` is the same function for the Amaranth
simulator. ``tests/hdl/test_mapped_netlist.py`` runs each design built of
these cells (routers, crossbar, Beneš network, planes, a whole network) in
lockstep with its generic form, through yosys's own ECP5 cell models on
Verilator.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, ClockSignal, Const, Instance, Module, Mux, ResetSignal, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.hdl.datapath import bits

__all__ = ["mux_ecp5", "mux_generic", "mux_tree", "mux_word", "lut_mux2", "lut4_count", "kept_ff", "CrossbarDatapath"]


def _mux2_init() -> int:
    """INIT of a LUT4 computing Z = C ? B : A (input index D*8 + C*4 + B*2 + A)."""
    init = 0
    for idx in range(16):
        a, b, c = idx & 1, (idx >> 1) & 1, (idx >> 2) & 1
        init |= (b if c else a) << idx
    return init


MUX2_INIT = _mux2_init()


def lut_mux2(m, a, b, s, name):
    z = Signal(name=name)
    m.submodules[name] = Instance("LUT4", p_INIT=Const(MUX2_INIT, 16), i_A=a, i_B=b, i_C=s, i_D=Const(0, 1),
                                  o_Z=z)
    return z


def kept_ff(m, d, q, enable, name):
    """``q`` = ``d`` registered in the sync domain (synchronous reset to 0, loaded at the edges
    where ``enable`` is high; None: every edge), one TRELLIS_FF per bit (FD1S3IX / FD1P3IX)
    marked ``keep``, so yosys does not merge it with an equal register: copies of a register
    stay apart for the placer to put each beside what it drives."""
    for b in range(len(d)):
        m.submodules[f"{name}_{b}"] = Instance(
            "TRELLIS_FF", a_keep=1, p_GSR="DISABLED", p_CEMUX="1" if enable is None else "CE", p_CLKMUX="CLK",
            p_LSRMUX="LSR", p_SRMODE="LSR_OVER_CE", p_REGSET="RESET", i_CLK=ClockSignal(), i_LSR=ResetSignal(),
            i_CE=Const(1, 1) if enable is None else enable, i_DI=d[b], o_Q=q[b])


def _pfumx(m, lo, hi, s, name):
    """Z = s ? hi : lo (PFUMX: Z = C0 ? ALUT : BLUT)."""
    z = Signal(name=name)
    m.submodules[name] = Instance("PFUMX", i_ALUT=hi, i_BLUT=lo, i_C0=s, o_Z=z)
    return z


def _l6mux(m, lo, hi, s, name):
    """Z = s ? hi : lo (L6MUX21: Z = SD ? D1 : D0)."""
    z = Signal(name=name)
    m.submodules[name] = Instance("L6MUX21", i_D0=lo, i_D1=hi, i_SD=s, o_Z=z)
    return z


def _group(m, ins, sel, name):
    """2:1, 4:1, 8:1 or 16:1 of ``ins`` (len 2, 4, 8 or 16) on select bits ``sel``: LUT4s as
    2:1, then PFUMX (F5), L6MUX21 (F6) and, for 16, an L6MUX21 joining two F6 outputs (F7,
    the four slices of one PFU)."""
    k = len(ins)
    l1 = [lut_mux2(m, ins[2 * j], ins[2 * j + 1], sel[0], f"{name}_l{j}") for j in range(k // 2)]
    if k == 2:
        return l1[0]
    l2 = [_pfumx(m, l1[2 * j], l1[2 * j + 1], sel[1], f"{name}_f{j}") for j in range(k // 4)]
    if k == 4:
        return l2[0]
    l3 = [_l6mux(m, l2[2 * j], l2[2 * j + 1], sel[2], f"{name}_x{j}" if k > 8 else f"{name}_x")
          for j in range(k // 8)]
    if k == 8:
        return l3[0]
    return _l6mux(m, l3[0], l3[1], sel[3], f"{name}_y")


def _cost(r: int) -> int:
    """LUT4s of :func:`_partial` for r inputs: the padded group of 2^k (2^(k-1) LUT4s) or the
    split on the top bit (:func:`_split_cost`), the cheaper."""
    if r == 1:
        return 0
    return min(1 << (bits(r - 1) - 1), _split_cost(r))


def _split_cost(r: int) -> int:
    """LUT4s of r inputs split on the top select bit: the group of the first 2^(k-1)
    (2^(k-2) LUT4s), :func:`_partial` of the rest, and a 2:1 LUT4."""
    half = 1 << (bits(r - 1) - 1)
    return half // 2 + _cost(r - half) + 1


def _partial(m, ins, s, name):
    """``ins[sel]`` on select bits ``s`` (low first) where the caller promises ``sel <
    len(ins)``. r inputs need only ``bits(r - 1)`` of the bits (the others are 0), and are
    the cheaper (in LUT4s; :func:`_cost`) of the group of the next power of two 2^k, its
    missing inputs copies of the last, and a split on the top bit: the group of the first
    2^(k-1), the rest, and a 2:1 LUT4. Five of eight are then a 4:1 group and a 2:1 LUT4
    (3 LUT4 where the 8:1 group takes 4); one input alone is itself."""
    r = len(ins)
    if r == 1:
        return ins[0]
    k = bits(r - 1)
    half = 1 << (k - 1)
    if _split_cost(r) < half:
        lo = _group(m, ins[:half], s[:k - 1], f"{name}_lo")    # a split wins only for half >= 4
        return lut_mux2(m, lo, _partial(m, ins[half:], s, f"{name}_hi"), s[k - 1], f"{name}_t")
    return _group(m, list(ins) + [ins[-1]] * ((1 << k) - r), s[:k], name)


def mux_ecp5(m, inputs, sel, name="mux", in_range=False):
    """1-bit N:1 multiplexer ``inputs[sel]`` (missing inputs read 0). With ``in_range``
    the caller promises ``sel < N``, so the last group of each level takes only the inputs
    there are (:func:`_partial`): N = 9 costs an 8:1 group and a 2:1 LUT4 (5 LUT4) instead
    of two 8:1 groups and a 2:1 (9), N = 5 a 4:1 group and a 2:1 (3 instead of 4)."""
    n = len(inputs)
    require(n >= 2, "a multiplexer needs at least 2 inputs")
    b = bits(n - 1)
    level = list(inputs) if in_range else list(inputs) + [Const(0, 1)] * ((1 << b) - n)
    used = 0
    depth = 0
    while len(level) > 1:
        g = min(16, 1 << bits(len(level) - 1))
        s = [sel[used + t] for t in range(g.bit_length() - 1)]
        level = [_partial(m, ins, s, f"{name}_{depth}_{i // g}") if len(ins) < g else
                 _group(m, ins, s, f"{name}_{depth}_{i // g}")
                 for i, ins in ((i, level[i:i + g]) for i in range(0, len(level), g))]
        used += g.bit_length() - 1
        depth += 1
    return level[0]


def mux_generic(m, inputs, sel, name="mux"):
    """The same function in plain Amaranth (simulation, other families)."""
    return Array(inputs)[sel]


def mux_word(m, inputs, sel, cells=None, name="mux", in_range=False):
    """``inputs[sel]`` for equal-width words: per bit :func:`mux_ecp5` when
    ``cells == "ecp5"`` (synthesis only; ``in_range`` as there), else :func:`mux_generic`."""
    if cells == "ecp5":
        width = len(inputs[0])
        return Cat(*(mux_ecp5(m, [v[k] for v in inputs], sel, f"{name}_{k}", in_range) for k in range(width)))
    return mux_generic(m, inputs, sel, name)


def mux_tree(m, inputs, sel, name="mux"):
    """The same function as an explicit binary tree of 2:1 ``Mux`` (select
    bit k at level k), which yosys/abc can cover with LUT4 + PFUMX + L6MUX21."""
    level = list(inputs) + [Const(0, 1)] * ((1 << bits(len(inputs) - 1)) - len(inputs))
    k = 0
    while len(level) > 1:
        level = [Mux(sel[k], level[2 * j + 1], level[2 * j]) for j in range(len(level) // 2)]
        k += 1
    return level[0]


def lut4_count(n: int) -> int:
    """LUT4s of :func:`mux_ecp5` for n inputs: N/2 per 16:1 level and so on up."""
    count, level = 0, 1 << bits(n - 1)
    while level > 1:
        g = min(16, level)
        count += (level // g) * (g // 2)
        level //= g
    return count


class CrossbarDatapath(wiring.Component):
    """The crossbar's data path alone: egress e, bit k = ``i_data`` ingress
    ``i_sel[e]`` bit k, registered.  ``mapped``: hand-mapped ECP5 cells
    (synthesis only) or the plain ``Array`` multiplexer yosys maps itself."""

    def __init__(self, ports: int, width: int, mapped=True):
        self.ports, self.width, self.mapped = ports, width, mapped
        sb = bits(ports - 1)
        super().__init__({"i_data": In(ports * width), "i_sel": In(ports * sb), "o_data": Out(ports * width)})

    def elaborate(self, platform):
        m = Module()
        N, W = self.ports, self.width
        sb = bits(N - 1)
        for e in range(N):
            sel = self.i_sel[e * sb:(e + 1) * sb]
            for k in range(W):
                col = [self.i_data[i * W + k] for i in range(N)]
                if self.mapped == "tree":
                    z = Signal(name=f"m{e}_{k}")
                    m.d.comb += z.eq(mux_tree(m, col, sel))
                elif self.mapped:
                    z = mux_ecp5(m, col, sel, f"m{e}_{k}")
                else:
                    z = Signal(name=f"m{e}_{k}")
                    m.d.comb += z.eq(mux_generic(m, col, sel))
                m.d.sync += self.o_data[e * W + k].eq(z)
        return m
