"""The HIL register map as SystemRDL 2.0, from the one declaration in
:mod:`permnet.gen.hil.regmap` that the gateware decodes and ``csr.csv`` is
written from.

``to_rdl(registers("network", M=8), "permnet_hil_network")`` returns the
text of one ``addrmap``: one nested ``addrmap`` per register block at the
block's base, one ``reg`` of 32 bits per register with one field
``value[31:0]`` (the descriptions say which bits mean what).  Addresses are
*byte* addresses, 4 x the bridge's word address, as in LiteX's ``csr.csv``.
The register kinds of the map become:

* a register: ``reg`` (``RO``: ``sw = r``; ``RW``: ``sw = rw``; ``W``:
  ``sw = w``, it reads as 0);
* an ``array``, and a ``memory`` (LiteX's ``memory_region``: a read-back
  window, the identifier), a ``reg`` array ``name[count]`` with a stride of 4;
* a ``window`` (every address of it is the same write register, so a burst
  lands in it) a ``reg`` array of ``count`` too, so its span is reserved
  and each address is a register software may write.

IP-XACT has no place for a ``mem`` inside a block (PeakRDL drops it), so
the memories are register arrays here as well.

PeakRDL turns this text into IP-XACT and a C header
(:mod:`permnet.hil.rdl`, ``permnet hil regmap --format ipxact|cheader``).
"""

from __future__ import annotations

from permnet.gen.hil.regmap import BASES, BLOCKS, ID, VERSION, Register

__all__ = ["to_rdl", "SW_ACCESS", "FIELD", "rdl_name"]

SW_ACCESS = {"RO": "r", "RW": "rw", "W": "w"}   # regmap access -> SystemRDL sw property
HW_ACCESS = {"RO": "w", "RW": "r", "W": "r"}
FIELD = "value"                                 # the one field of every register, bits [31:0]

# SystemRDL 2.0 keywords (clause 4.5): a register or block with one of these
# names is written as an escaped identifier
_KEYWORDS = frozenset("""abstract accesstype addressingtype addrmap alias all bit boolean bothedge compact
component componentwidth constraint default encode enum external false field fullalign hw inside internal level
longint mem na negedge nonsticky number onreadtype onwritetype posedge property r rclr ref reg regalign regfile
rset ruser rw rw1 signal string sw this true type unsigned w w1 wclr woclr woset wot wr wset wuser wzc wzs
wzt""".split())


def rdl_name(name: str) -> str:
    """``name`` as a SystemRDL identifier (escaped when it is a keyword)."""
    return f"\\{name}" if name in _KEYWORDS else name


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _register(r: Register, indent: str) -> list[str]:
    sw, hw = SW_ACCESS[r.access], HW_ACCESS[r.access]
    kind = (" (a window: every one of its addresses is the same register)" if r.window
            else " (a memory in csr.csv)" if r.memory else "")
    dims, stride = (f"[{r.count}]", " += 0x4") if r.array or r.window else ("", "")
    return [f"{indent}reg {{",
            f"{indent}    name = {_string(f'{r.block}_{r.name}')};",
            f"{indent}    desc = {_string(r.description + kind)};",
            f"{indent}    regwidth = 32; accesswidth = 32;",
            f"{indent}    field {{ sw = {sw}; hw = {hw}; }} {FIELD}[31:0];",
            f"{indent}}} {rdl_name(r.name)}{dims} @ {4 * r.offset:#x}{stride};"]


def to_rdl(regs: list[Register], name: str, title: str = "") -> str:
    """SystemRDL text of the register map ``regs`` (one design's registers,
    :func:`permnet.gen.hil.regmap.registers`) as ``addrmap name``."""
    out = [f"// permnet HIL register map (permnet hil regmap --format rdl): {title or name}",
           "// byte addresses (4 x the bridge's 32-bit word address), as LiteX's csr.csv",
           f"addrmap {rdl_name(name)} {{",
           f"    name = {_string(title or name)};",
           f"    desc = {_string(f'identification {ID:#010x} (PNHL), version {VERSION >> 16}.{VERSION & 0xFFFF}')};",
           "    default regwidth = 32;"]
    for blk in sorted({r.block for r in regs}, key=lambda b: BASES[b]):
        out += ["", f"    addrmap {{",
                f"        name = {_string(blk)};",
                f"        desc = {_string(BLOCKS[blk].description)};"]
        for r in sorted((r for r in regs if r.block == blk), key=lambda r: r.offset):
            out += _register(r, " " * 8)
        out.append(f"    }} {rdl_name(blk)} @ {4 * BASES[blk]:#x};")
    out.append("};")
    return "\n".join(out) + "\n"
