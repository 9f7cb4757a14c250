""":func:`permnet.hdl.muxtree.mux_ecp5` with ``in_range``: the hand-mapped cells
evaluated in Python (LUT4 by its INIT, PFUMX and L6MUX21 as 2:1 multiplexers)
select ``inputs[sel]`` for every ``sel < N``, with fewer LUT4s than the zero-padded tree."""

import pytest
from amaranth.hdl import Const, Instance, Module, Signal
from amaranth.hdl._ast import Slice

from permnet.hdl.muxtree import lut4_count, mux_ecp5


def _evaluate(m, out, values):
    """The value of ``out`` given ``values`` (signal -> bit), through the cells of ``m``."""
    cells = {}
    for sub, _ in m._named_submodules.values():
        if isinstance(sub, Instance):
            conn = {k: v for k, (v, _) in sub.ports.items()}
            cells[id(conn["Z"])] = (sub.type, sub.parameters, conn)

    def ev(x):
        if isinstance(x, Const):
            return x.value
        if id(x) in cells:
            kind, params, conn = cells[id(x)]
            if kind == "LUT4":
                idx = sum(ev(conn[p]) << i for i, p in enumerate("ABCD"))
                return (params["INIT"].value >> idx) & 1
            if kind == "PFUMX":
                return ev(conn["ALUT"]) if ev(conn["C0"]) else ev(conn["BLUT"])
            return ev(conn["D1"]) if ev(conn["SD"]) else ev(conn["D0"])
        if isinstance(x, Slice):
            return (values[id(x.value)] >> x.start) & 1
        return values[id(x)]
    return ev(out)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 25, 32, 40])
def test_in_range_mux_selects_every_input(n):
    m = Module()
    ins = [Signal(name=f"i{k}") for k in range(n)]
    sel = Signal(max(1, (n - 1).bit_length()), name="sel")
    out = mux_ecp5(m, ins, sel, "t", in_range=True)
    luts = sum(1 for s, _ in m._named_submodules.values() if isinstance(s, Instance) and s.type == "LUT4")
    assert luts <= lut4_count(n)
    if n == 9:
        assert luts == 5                                   # an 8:1 group and one 2:1 LUT4
    if n == 5:
        assert luts == 3                                   # a 4:1 group and one 2:1 LUT4
    if n == 16:
        assert luts == 8                                   # one 16:1 group: two 8:1 and an F7 L6MUX21
    for s in range(n):
        for hot in range(n):                               # one input high at a time
            values = {id(x): int(k == hot) for k, x in enumerate(ins)}
            values[id(sel)] = s
            assert _evaluate(m, out, values) == int(s == hot), (n, s, hot)


@pytest.mark.parametrize("n", [2, 4, 8, 16, 32, 64])
def test_full_mux_selects_every_input(n):
    """Without ``in_range`` (a power of two here, so every select is an input): 2:1 LUT4s,
    then PFUMX, L6MUX21 (F6) and L6MUX21 (F7) levels; 16:1 in 8 LUT4, 32:1 in 17, 64:1 in 34."""
    m = Module()
    ins = [Signal(name=f"i{k}") for k in range(n)]
    sel = Signal((n - 1).bit_length(), name="sel")
    out = mux_ecp5(m, ins, sel, "t")
    kinds = [s.type for s, _ in m._named_submodules.values() if isinstance(s, Instance)]
    assert kinds.count("LUT4") == lut4_count(n) == {2: 1, 4: 2, 8: 4, 16: 8, 32: 17, 64: 34}[n]
    for s in range(n):
        for hot in (s, (s + 1) % n, (s * 7 + 3) % n):
            values = {id(x): int(k == hot) for k, x in enumerate(ins)}
            values[id(sel)] = s
            assert _evaluate(m, out, values) == int(s == hot), (n, s, hot)
