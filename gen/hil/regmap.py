"""The HIL register map, declared once: the gateware decodes these
registers by name (:class:`permnet.hdl.hil.csr.RegisterDecode`), the driver
uses their addresses, and ``permnet hil regmap`` renders them as a Markdown
table and LiteX's ``csr.csv``.

A register block is declared with :func:`block`: a name, a base address
and a function of the design's parameters that returns the block's
registers (:func:`reg`); a design (:data:`DESIGNS`) is a list of blocks.
The gateware of a block asks for its registers by name, and elaboration
fails when a declared register has no read value or no write decode there,
so the declaration and the logic cannot drift apart.  A new design adds one
``@block`` function here (data only: the host needs no Amaranth), one
:data:`DESIGNS` entry, and its logic using those names.

Addresses are 32-bit *word* addresses (UARTBone's address field; a LiteX
client passes byte address = 4 x word address).  Every register is 32 bits
wide.  ``RO`` registers ignore writes, ``W`` registers read as 0, ``RW``
read back what was written; ``window`` registers repeat over ``count``
consecutive addresses (a burst, fixed or incrementing, lands in the same
register), ``array`` registers have ``count`` elements (one per port), a
``memory`` is an array that LiteX sees as a memory: no ``csr_register``
rows, a ``memory_region`` row (and ``identifier_mem``, a block of its own,
its ``csr_base`` row as LiteX's own).
Read data never has side effects, so a read is safe to retry.

Blocks (base addresses are constant, the array lengths follow the design):

* ``sys`` (0x0000): identification, version, design bits, scratch, cycle
  counter, bridge error counters;
* ``xbar`` (0x1000): crossbar plane: shadow entries pushed through the
  ``cfg`` window (egress 0 first, slot 0 first), TDM durations through the
  ``dur`` window, commit, and the read-back of the *active* configuration:
  with tag mode on, ingress k carries the tag k+1, and ``rb[e]`` holds what
  egress e delivers while slot ``rb_slot`` is active (0 = not connected);
* ``benes`` (0x3000): Beneš stage words (assembled from 32-bit chunks and
  pushed stage 0 first), commit, and the read-back of the realised
  permutation by the same tags (``rb[p]`` = 1 + input routed to output p);
* ``nexthop`` (0x5000): write ``query`` = node | dest << 16 with ``hop``
  set; ``result`` = next | link << 16 | done << 31;
* ``xbar_prbs`` (0x2000), ``benes_prbs`` (0x4000): per-port PRBS7/PRBS31
  generators on the ingress side and self-synchronising checkers on the
  egress side, with per-egress word and error counters;
* ``netgen`` (0x6000): the live-traffic network (:mod:`permnet.hdl.hil.netgen`):
  generator parameters, start and stop cycles, clear, the permutation
  table, the run's cycle counter and the per-node counters
  (:data:`NET_COUNTERS`, one array of M each, at 0x100 + 0x100 i);
* ``netplanes`` (0x7000): the network's run-time planes and route tables:
  shadow writes through auto-incrementing data registers, the drained swap,
  and the read-back of the *active* entries, one at a time (``plane_rb``,
  ``rt_rb``) or a run of up to :data:`READ_WINDOW` in one burst read of a
  window (``plane_win``, ``rt_win``: word i is the entry at the address
  register's entry + i);
* ``identifier_mem`` (0xF000): the design's name, one character per word,
  NUL-terminated (what ``litex_cli --ident`` prints).
"""

from __future__ import annotations

import inspect
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import Callable

from permnet.gen.errors import require

__all__ = ["ID", "VERSION", "Register", "Block", "BLOCKS", "BLOCK_WORDS", "DESIGNS", "block", "reg",
           "block_registers", "BASES", "registers", "addr", "to_markdown", "to_csv", "DESIGN_BITS", "MAX_PORTS",
           "PLANE_KIND_CODES", "NO_SWAP", "READ_WINDOW", "LITEX_CONSTANTS", "csv_rows", "IDENT_WORDS", "identifier_words", "NET_COUNTERS"]

ID = 0x504E484C          # "PNHL"
VERSION = 0x00010000     # 1.0
MAX_PORTS = 1024
IDENT_WORDS = 64         # identifier characters, NUL included
BLOCK_WORDS = 0x1000     # each block decodes the 12 low bits of the word address
DESIGN_BITS = {"crossbar": 0, "benes": 1, "nexthop": 2, "network": 3, "framed": 8, "uart": 9}
NET_COUNTERS = ("gen_packets", "inj_packets", "inj_flits", "ej_packets", "ej_flits", "lat_sum", "lat_max",
                "misdelivered", "payload_errors", "dropped")   # permnet.hdl.hil.netgen.COUNTERS, in this order
MAX_NET_NODES = 256
ACCESS = ("RO", "RW", "W")


@dataclass(frozen=True)
class Register:
    block: str
    name: str
    offset: int
    access: str            # RO, RW, W
    count: int = 1         # array length (or window length)
    description: str = ""
    window: bool = False   # all `count` addresses are the same register
    array: bool = False    # `count` registers, one per element (named name0, name1, ... in csr.csv)
    memory: bool = False   # an array exported to LiteX as a memory (a memory_region row, no csr_register rows)

    @property
    def address(self) -> int:
        return BLOCKS[self.block].base + self.offset

    def as_dict(self) -> dict:
        return {**asdict(self), "address": self.address}


def reg(name: str, offset: int, access: str, description: str = "", *, count: int = 1, window: bool = False,
        array: bool = False, memory: bool = False) -> Register:
    """One register of a block being declared (the block fills in its name)."""
    return Register("", name, offset, access, count, description, window, array or memory, memory)


@dataclass(frozen=True)
class Block:
    """A register block: ``declare(**params)`` returns its registers."""

    name: str
    base: int
    declare: Callable[..., list[Register]] = field(repr=False)
    description: str = ""

    def registers(self, **params) -> list[Register]:
        """The block's registers for these design parameters (those the
        declaration does not take are ignored), checked: offsets inside
        the block, no two registers overlapping, names unique."""
        sig = inspect.signature(self.declare).parameters
        regs = [replace(r, block=self.name) for r in self.declare(**{k: v for k, v in params.items() if k in sig})]
        spans = []
        for r in regs:
            require(r.access in ACCESS, f"register {self.name}_{r.name}: access {r.access!r} not in {ACCESS}")
            require(r.count >= 1 and 0 <= r.offset and r.offset + r.count <= BLOCK_WORDS,
                    f"register {self.name}_{r.name} does not fit the block ({BLOCK_WORDS:#x} words)")
            require(not (r.window and r.array), f"register {self.name}_{r.name}: a window or an array, not both")
            spans.append((r.offset, r.offset + r.count, r.name))
        spans.sort()
        for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
            require(end <= start, f"registers {self.name}_{a} and {self.name}_{b} overlap")
        names = [r.name for r in regs]
        require(len(set(names)) == len(names), f"block {self.name}: a register name appears twice")
        return regs

    def register(self, name: str) -> Register:
        """Register ``name`` with the declaration's default parameters
        (offsets do not depend on the parameters, only array lengths)."""
        for r in self.registers():
            if r.name == name:
                return r
        raise KeyError(f"{self.name}.{name}")


BLOCKS: dict[str, Block] = {}
BASES: dict[str, int] = {}   # block name -> base word address (kept by block())


def block(name: str, base: int, description: str = ""):
    """Decorator declaring a register block at word address ``base``."""
    def add(declare):
        require(name not in BLOCKS, f"register block {name!r} declared twice")
        require(base % BLOCK_WORDS == 0 and 0 <= base < 1 << 16,
                f"block {name}: base {base:#x} must be a multiple of {BLOCK_WORDS:#x} below 0x10000")
        taken = {b.base: b.name for b in BLOCKS.values()}
        require(base not in taken, f"block {name}: base {base:#x} is taken by {taken.get(base)}")
        BLOCKS[name] = Block(name, base, declare, description)
        BASES[name] = base
        return declare
    return add


def block_registers(name: str, **params) -> list[Register]:
    require(name in BLOCKS, f"unknown register block {name!r}; declared: {', '.join(BLOCKS)}")
    return BLOCKS[name].registers(**params)


@block("sys", 0x0000, "identification, version, design bits, scratch, cycle counter, bridge errors")
def _sys():
    return [
        reg("id", 0x000, "RO", f"identification {ID:#010x} ('PNHL')"),
        reg("version", 0x001, "RO", "major [31:16], minor [15:0]"),
        reg("design", 0x002, "RO", "bit 0 crossbar, 1 Beneš, 2 next hop, 3 network, 8 framed mode, 9 UART"),
        reg("scratch", 0x003, "RW", "free for the host (link test)"),
        reg("cycles", 0x004, "RO", "clock cycles since reset (wraps)"),
        reg("bridge_errors", 0x005, "RO", "framed requests with a bad CRC [15:0], "
            "partial frames dropped after the idle time-out [31:16]"),
    ]


@block("xbar", 0x1000, "crossbar plane: shadow configuration, commit, tag read-back")
def _xbar(ports: int = 8):
    return [
        reg("info", 0x000, "RO", "ports [15:0], slots [23:16], data width [31:24]"),
        reg("ctrl", 0x001, "RW", "write bit 0: commit the shadow configuration; reads "
            "loaded [0], active slot [15:8], commits [31:16]"),
        reg("accepted", 0x002, "RO", "shadow entries and durations accepted since the last commit"),
        reg("rb_ctrl", 0x003, "RW", "bit 0: tag mode (ingress k carries k+1); "
            "[15:8]: slot whose output rb[] captures; reads bit 1: captured since this was written"),
        reg("cfg", 0x100, "W", "push one shadow entry: ingress | 1 << 31 "
            "(0: egress disabled); egress 0 first, slot 0 first", count=0x100, window=True),
        reg("dur", 0x200, "W", "push one TDM slot duration in cycles (slots > 1)", count=0x100, window=True),
        reg("rb", 0x400, "RO", "per egress: the tag delivered in slot rb_slot (0: not connected, k+1: ingress k)",
            count=ports, array=True),
    ]


def _prbs(ports: int) -> list[Register]:
    return [
        reg("info", 0x000, "RO", "ports [15:0], data width [23:16]"),
        reg("ctrl", 0x001, "RW", "bit 0: polynomial (0 PRBS7 x^7+x^6+1, 1 PRBS31 x^31+x^28+1); "
            "writing bit 1 clears the counters"),
        reg("run", 0x002, "RW", "write N: the generators send N words; reads the words still to send"),
        reg("inject", 0x003, "W", "write k: flip bit 0 of the next word of ingress k (error test)"),
        reg("words", 0x400, "RO", "per egress: words received", count=ports, array=True),
        reg("errors", 0x800, "RO", "per egress: words in error (after the first "
            "ceil(L/width) words that fill the checker, L = 7 or 31)", count=ports, array=True),
    ]


@block("xbar_prbs", 0x2000, "PRBS generators and checkers around the crossbar")
def _xbar_prbs(ports: int = 8):
    return _prbs(ports)


@block("benes", 0x3000, "Beneš network: stage words, commit, tag read-back")
def _benes(size: int = 8, word_chunks: int = 1):
    return [
        reg("info", 0x000, "RO", "ports [15:0], stages [23:16], data width [31:24]"),
        reg("ctrl", 0x001, "RW", "write bit 0: commit; reads loaded [0], commits [31:16]"),
        reg("accepted", 0x002, "RO", "stage words accepted since the last commit"),
        reg("rb_ctrl", 0x003, "RW", "bit 0: tag mode (input k carries k+1)"),
        reg("network", 0x004, "RO", "0 Beneš, 1 Waksman; pipeline latency [15:8]"),
        reg("chunk", 0x010, "RW", "stage word staging, 32 bits per chunk, chunk 0 = switches 0..31",
            count=word_chunks, array=True),
        reg("push", 0x020, "W", "push the staged stage word (stage 0 first)"),
        reg("rb", 0x400, "RO", "per output p: 1 + the input routed to p", count=size, array=True),
    ]


@block("benes_prbs", 0x4000, "PRBS generators and checkers around the Beneš network")
def _benes_prbs(size: int = 8):
    return _prbs(size)


@block("nexthop", 0x5000, "LDI next-hop unit probe")
def _nexthop():
    return [
        reg("info", 0x000, "RO", "M [15:0], S [23:16], h [30:24], table unit [31]"),
        reg("query", 0x001, "W", "node [15:0] | dest [31:16]: starts one decision"),
        reg("hop", 0x002, "RW", "hop index of the queries (0 at the source)"),
        reg("result", 0x003, "RO", "next node [15:0], link [23:16], done [31]"),
    ]


@block("netgen", 0x6000, "live-traffic network: generators, start/stop, per-node counters")
def _netgen(M: int = 18):
    require(2 <= M <= MAX_NET_NODES, f"the network design holds 2..{MAX_NET_NODES} nodes, got {M}")
    regs = [
        reg("info", 0x000, "RO", "M [15:0], S [23:16], VCs [27:24], log2 buffer [31:28]; VCs 0: deflection "
            "routers, [31:28] their stages"),
        reg("info2", 0x001, "RO", "flit payload bits [7:0], source queue [23:8], lanes [31:24] (deflection: "
            "ejection ports)"),
        reg("ctrl", 0x002, "W", "write bit 0: clear the run (cycle counter, every counter, the network and "
            "its planes and route tables to reset); bit 1: hold the run (its clock stopped, the generators idle) "
            "until a write with bit 1 clear"),
        reg("cycle", 0x003, "RO", "cycles since the last clear (the generators' clock)"),
        reg("pattern", 0x004, "RW", "0 uniform, 1 hotspot, 2 permutation, 3 bitcomp, 4 transpose"),
        reg("rate", 0x005, "RW", "injection threshold, units of 2^-16 packets per node per cycle"),
        reg("size", 0x006, "RW", "flits per packet"),
        reg("seed_lo", 0x007, "RW", "generator seed [31:0]"),
        reg("seed_hi", 0x008, "RW", "generator seed [63:32]"),
        reg("hot", 0x009, "RW", "hot-spot node"),
        reg("hot_frac", 0x00A, "RW", "share of packets to the hot spot, units of 2^-16"),
        reg("start", 0x00B, "RW", "first cycle the generators run"),
        reg("stop", 0x00C, "RW", "first cycle they no longer run"),
        reg("perm", 0x080, "RW", "permutation pattern: destination of node n", count=M, array=True)
        if M <= 0x80 else reg("perm", 0xC00, "RW", "permutation pattern: destination of node n",
                              count=M, array=True),
    ]
    regs += [reg(name, 0x100 * (i + 1), "RO", f"per node: {name.replace('_', ' ')}", count=M, array=True)
             for i, name in enumerate(NET_COUNTERS)]
    return regs


PLANE_KIND_CODES = {"wires": 0, "crossbar": 1, "benes": 2}   # netplanes_info [7:0]
NO_SWAP = 0xFFFFFFFF     # netplanes_swap_at: never
READ_WINDOW = 256        # netplanes_plane_win / rt_win: entries one address register setting reads


@block("netplanes", 0x7000, "the network's planes loaded at run time: shadow writes, read-back, drained swap")
def _netplanes():
    return [
        reg("info", 0x000, "RO", "planes [7:0]: 0 wires (not loadable), 1 crossbar, 2 Beneš; Waksman [8]; "
            "configuration entries per plane [31:16]"),
        reg("info2", 0x001, "RO", "route-table entries per node [15:0] (0: routes not loadable), "
            "route hops at most [23:16]"),
        reg("plane_addr", 0x002, "RW", "entry [15:0], plane [23:16] that plane_data writes and plane_rb reads"),
        reg("plane_data", 0x003, "W", "write the shadow entry at plane_addr, then advance its entry by one"),
        reg("plane_rb", 0x004, "RO", "the ACTIVE entry at plane_addr"),
        reg("rt_addr", 0x005, "RW", "entry [15:0], node [31:16] that rt_data writes and rt_rb reads"),
        reg("rt_data", 0x006, "W", "write the shadow route entry at rt_addr, then advance its entry by one"),
        reg("rt_rb", 0x007, "RO", "the ACTIVE route entry at rt_addr"),
        reg("swap", 0x008, "W", "write bit 0: request a swap now (drain, then shadow -> active)"),
        reg("swap_at", 0x009, "RW", f"run cycle (netgen_cycle) at which a swap is requested; {NO_SWAP:#x}: never"),
        reg("status", 0x00A, "RO", "draining [0], network idle [1], swaps committed since the run's clear [31:16]"),
        reg("swap_cycles", 0x00B, "RO", "the last swap's length: cycles from its request to its commit "
            "(deflection routers, committed at the request: from the commit to the handshake of the last flit "
            "injected before it)"),
        reg("swap_cycle", 0x00C, "RO", "run cycle of the last swap's commit"),
        reg("plane_win", 0x100, "RO", "read-back window: word i is the ACTIVE entry at plane_addr's entry + i "
            "of its plane (one burst read reads a run of entries; past the last entry: unspecified)",
            count=READ_WINDOW, memory=True),
        reg("rt_win", 0x200, "RO", "read-back window: word i is the ACTIVE route entry at rt_addr's entry + i "
            "of its node (past the last entry: unspecified)", count=READ_WINDOW, memory=True),
    ]


@block("identifier_mem", 0xF000, "identification string (LiteX's identifier_mem)")
def _identifier():
    return [reg("data", 0x000, "RO", f"the design's name, one character per word, NUL-terminated "
                f"(at most {IDENT_WORDS - 1} characters)", count=IDENT_WORDS, memory=True)]


def identifier_words(text: str) -> list[int]:
    """``identifier_mem`` contents: ``text`` (ASCII, cut to fit) and NULs."""
    data = text.encode("ascii", "replace")[:IDENT_WORDS - 1]
    return list(data) + [0] * (IDENT_WORDS - len(data))


DESIGNS: dict[str, tuple[str, ...]] = {
    "crossbar": ("sys", "xbar", "xbar_prbs", "identifier_mem"),
    "benes": ("sys", "benes", "benes_prbs", "identifier_mem"),
    "nexthop": ("sys", "nexthop", "identifier_mem"),
    "network": ("sys", "netgen", "netplanes", "identifier_mem"),
    "all": ("sys", "xbar", "xbar_prbs", "benes", "benes_prbs", "nexthop", "identifier_mem"),
}


def registers(design: str = "all", **params) -> list[Register]:
    """The registers of a HIL design (its blocks of :data:`DESIGNS`) with
    these parameters (``ports``, ``slots``, ``size``, ``word_chunks``, ...;
    each block takes the ones it declares), in address order."""
    require(design in DESIGNS, f"unknown HIL design {design!r}; choose from {', '.join(DESIGNS)}")
    regs = [r for name in DESIGNS[design] for r in block_registers(name, **params)]
    return sorted(regs, key=lambda r: r.address)


@lru_cache(maxsize=None)
def _register(block: str, name: str) -> Register:
    if block not in BLOCKS:
        raise KeyError(f"{block}.{name}")
    return BLOCKS[block].register(name)


def addr(block: str, name: str, index: int = 0) -> int:
    """Word address of register ``block.name`` (element ``index`` of an array)."""
    r = _register(block, name)
    return r.address + (0 if r.window else index)


def to_markdown(regs: list[Register]) -> str:
    lines = ["| address | register | access | count | description |", "|---|---|---|---|---|"]
    for r in regs:
        kind = "window" if r.window else "memory" if r.memory else "array" if r.array else ""
        count = f"{r.count} ({kind})" if kind else str(r.count)
        desc = r.description.replace("|", "\\|")
        lines.append(f"| `{r.address:#06x}` | `{r.block}_{r.name}` | {r.access} | {count} | {desc} |")
    return "\n".join(lines) + "\n"


# the constants LiteX's host tools read (CSRBuilder: config_csr_data_width and
# config_bus_address_width; the bus address width also sizes litex_server's Etherbone records)
LITEX_CONSTANTS = {"config_csr_data_width": 32, "config_csr_alignment": 32, "config_bus_data_width": 32,
                   "config_bus_address_width": 32}


def csv_rows(regs: list[Register]) -> list[tuple[str, int, int, str]]:
    """The ``(name, byte address, words, mode)`` of each LiteX ``csr_register``
    row: an array gives one row per element (``xbar_rb0``, ``xbar_rb1``, ...),
    a window one row at its first address (it is one register), a memory
    none (its ``memory_region`` row locates it), so every row is one
    32-bit word -- LiteX joins a multi-word register into one integer, and
    its length fields are one byte.  ``W`` registers are
    ``rw`` as LiteX writes its write-only CSRs (``litex_cli --regs`` reads
    every row; ours read as 0, without side effect)."""
    rows = []
    for r in regs:
        mode = "ro" if r.access == "RO" else "rw"
        name = f"{r.block}_{r.name}"
        if r.memory:
            continue
        if not r.array:
            rows.append((name, 4 * r.address, 1, mode))
        else:
            rows += [(f"{name}{i}", 4 * (r.address + i), 1, mode) for i in range(r.count)]
    clash = sorted(n for n, k in Counter(row[0] for row in rows).items() if k > 1)
    require(not clash, f"csr.csv would name two registers {', '.join(clash)} (an array element and a register)")
    return rows


def to_csv(regs: list[Register]) -> str:
    """LiteX's ``csr.csv``: ``csr_base,block,byte address,,`` per block,
    ``csr_register,name,byte address,words,mode`` per register
    (:func:`csv_rows`), then the ``constant`` rows LiteX's ``RemoteClient``
    and ``litex_cli`` need (:data:`LITEX_CONSTANTS`) and permnet's
    identification, then ``memory_region,name,byte address,bytes,io`` per
    memory (LiteX's ``RemoteClient.mems``).  Byte address = 4 x the bridge's word address, as
    LiteX's ``CommUART`` sends ``address // 4``.  Every line has LiteX's
    five fields, and there is no blank line (its reader rejects both)."""
    rule = "#" + "-" * 80
    out = [rule, "# permnet HIL register map (permnet hil regmap), in LiteX's csr.csv format", rule]
    for block in sorted({r.block for r in regs}, key=lambda b: BASES[b]):
        out.append(f"csr_base,{block},0x{BASES[block] * 4:08x},,")
    out += [f"csr_register,{name},0x{a:08x},{n},{mode}" for name, a, n, mode in csv_rows(regs)]
    consts = {**LITEX_CONSTANTS, "permnet_hil_id": ID, "permnet_hil_version": VERSION}
    out += [f"constant,{k},{v},," for k, v in consts.items()]
    out += [f"memory_region,{r.block}_{r.name},0x{4 * r.address:08x},{4 * r.count},io" for r in regs if r.memory]
    return "\n".join(out) + "\n"
