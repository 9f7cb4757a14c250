"""A register block's address decode, by register name.

:class:`RegisterDecode` gives the logic of one block of
:mod:`permnet.gen.hil.regmap` its registers by name: ``write("ctrl")`` is
the one-cycle write strobe of ``ctrl`` (of any address of a window, of any
element of an array, or of element ``index``), ``index("rb")`` the element
addressed, ``read({...})`` the registered read data (the value in the
cycle after the read strobe, as the bridge expects), ``read_through("win")``
a register whose data the block's own registered port gives.  :meth:`check`, called
at the end of the block's elaboration, fails when a declared register was
given no read value (``RO``, ``RW``) or no write decode (``W``, ``RW``), or
a name is not declared: the declaration and the logic agree, and the
exported map (``csr.csv``) is what the hardware decodes.
"""

from __future__ import annotations

from amaranth.hdl import Array, Const

from permnet.gen.errors import PermnetError, require
from permnet.gen.hil.regmap import Register
from permnet.hdl.datapath import bits

__all__ = ["RegisterDecode"]


class RegisterDecode:
    """``off``: the word offset inside the block; ``sel``: the block is
    addressed; ``we``/``re``: the bus strobes; ``rdata``: the signal the
    block's reads are registered into."""

    def __init__(self, m, regs: list[Register], *, off, we, re, rdata, sel=Const(1)):
        require(len(regs) > 0, "a register block needs registers")
        self.block = regs[0].block
        self._regs = {r.name: r for r in regs}
        self._m, self.off, self.we, self.re, self.rdata, self.sel = m, off, we, re, rdata, sel
        self._written: set[str] = set()
        self._read: set[str] = set()

    def _reg(self, name: str) -> Register:
        if name not in self._regs:
            raise PermnetError(f"register {self.block}_{name} is not declared in permnet.gen.hil.regmap")
        return self._regs[name]

    def hit(self, name: str, index: int | None = None):
        """The offset addresses register ``name`` (element ``index``)."""
        r = self._reg(name)
        if index is not None:
            require(r.array and 0 <= index < r.count, f"{self.block}_{name} has no element {index}")
            return self.off == r.offset + index
        if r.count == 1:
            return self.off == r.offset
        return (self.off >= r.offset) & (self.off < r.offset + r.count)

    def index(self, name: str):
        """The element of array ``name`` that the offset addresses."""
        r = self._reg(name)
        return (self.off - r.offset)[:bits(r.count - 1)]

    def write(self, name: str, index: int | None = None):
        """One-cycle write strobe of register ``name`` (element ``index``)."""
        r = self._reg(name)
        require(r.access in ("W", "RW"), f"register {self.block}_{name} is read-only ({r.access})")
        self._written.add(name)
        return self.we & self.sel & self.hit(name, index)

    def read(self, values: dict) -> None:
        """Registered reads: ``{name: value}``, a list of values for an array (or one value,
        the same for every element)."""
        m = self._m
        with m.If(self.re & self.sel):
            for name, value in values.items():
                r = self._reg(name)
                require(r.access in ("RO", "RW"), f"register {self.block}_{name} is write-only (reads 0)")
                self._read.add(name)
                with m.If(self.hit(name)):
                    if r.array and isinstance(value, (list, tuple)):
                        require(len(value) == r.count, f"{self.block}_{name}: {len(value)} values for "
                                f"{r.count} elements")
                        m.d.sync += self.rdata.eq(Array(value)[self.index(name)])
                    else:
                        m.d.sync += self.rdata.eq(value)

    def read_through(self, name: str):
        """Register ``name`` answers reads from a registered port of the block's own (its value
        in the cycle after the strobe, where the top level routes it to the bridge); returns
        whether the bus addresses it (strobe or not, so the port can be addressed from the
        offset: ``index(name)``)."""
        r = self._reg(name)
        require(r.access in ("RO", "RW"), f"register {self.block}_{name} is write-only (reads 0)")
        self._read.add(name)
        return self.sel & self.hit(name)

    def check(self) -> None:
        """Every declared register is decoded."""
        unread = [n for n, r in self._regs.items() if r.access in ("RO", "RW") and n not in self._read]
        unwritten = [n for n, r in self._regs.items() if r.access in ("W", "RW") and n not in self._written]
        if unread or unwritten:
            raise PermnetError(f"block {self.block}: declared but not decoded: "
                               + ", ".join([f"{n} (read)" for n in unread] + [f"{n} (write)" for n in unwritten]))
