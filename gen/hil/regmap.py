"""The HIL register map, defined once: the gateware decodes these
addresses, the driver uses them, and ``permnet hil regmap`` renders them as
a Markdown table and a LiteX ``csr.csv``-style CSV.

Addresses are 32-bit *word* addresses (UARTBone's address field; a LiteX
client passes byte address = 4 x word address).  Every register is 32 bits
wide.  ``RO`` registers ignore writes, ``W`` registers read as 0, ``RW``
read back what was written; ``window`` registers repeat over ``count``
consecutive addresses (a burst, fixed or incrementing, lands in the same
register).  Read data never has side effects, so a read is safe to retry.

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
  egress side, with per-egress word and error counters.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["ID", "VERSION", "Register", "BASES", "registers", "addr", "to_markdown", "to_csv",
           "DESIGN_BITS", "MAX_PORTS", "LITEX_CONSTANTS", "csv_rows"]

ID = 0x504E484C          # "PNHL"
VERSION = 0x00010000     # 1.0
MAX_PORTS = 1024
DESIGN_BITS = {"crossbar": 0, "benes": 1, "nexthop": 2, "framed": 8, "uart": 9}

BASES = {"sys": 0x0000, "xbar": 0x1000, "xbar_prbs": 0x2000, "benes": 0x3000, "benes_prbs": 0x4000,
         "nexthop": 0x5000}


@dataclass(frozen=True)
class Register:
    block: str
    name: str
    offset: int
    access: str            # RO, RW, W
    count: int = 1         # array length (or window length)
    description: str = ""
    window: bool = False   # all `count` addresses are the same register

    @property
    def address(self) -> int:
        return BASES[self.block] + self.offset

    def as_dict(self) -> dict:
        return {**asdict(self), "address": self.address}


def _prbs(block: str, ports: int) -> list[Register]:
    return [
        Register(block, "info", 0x000, "RO", 1, "ports [15:0], data width [23:16]"),
        Register(block, "ctrl", 0x001, "RW", 1, "bit 0: polynomial (0 PRBS7 x^7+x^6+1, 1 PRBS31 x^31+x^28+1); "
                 "writing bit 1 clears the counters"),
        Register(block, "run", 0x002, "RW", 1, "write N: the generators send N words; reads the words still to send"),
        Register(block, "inject", 0x003, "W", 1, "write k: flip bit 0 of the next word of ingress k (error test)"),
        Register(block, "words", 0x400, "RO", ports, "per egress: words received"),
        Register(block, "errors", 0x800, "RO", ports, "per egress: words in error (after the first "
                 "ceil(L/width) words that fill the checker, L = 7 or 31)"),
    ]


def registers(design: str = "all", *, ports: int = 8, slots: int = 1, size: int = 8, stages: int = 5,
              word_chunks: int = 1) -> list[Register]:
    """The registers of a HIL top level with these parameters, address order."""
    regs = [
        Register("sys", "id", 0x000, "RO", 1, f"identification {ID:#010x} ('PNHL')"),
        Register("sys", "version", 0x001, "RO", 1, "major [31:16], minor [15:0]"),
        Register("sys", "design", 0x002, "RO", 1, "bit 0 crossbar, 1 Beneš, 2 next hop, 8 framed mode, 9 UART"),
        Register("sys", "scratch", 0x003, "RW", 1, "free for the host (link test)"),
        Register("sys", "cycles", 0x004, "RO", 1, "clock cycles since reset (wraps)"),
        Register("sys", "bridge_errors", 0x005, "RO", 1, "framed requests with a bad CRC [15:0], "
                 "partial frames dropped after the idle time-out [31:16]"),
    ]
    if design in ("crossbar", "all"):
        regs += [
            Register("xbar", "info", 0x000, "RO", 1, "ports [15:0], slots [23:16], data width [31:24]"),
            Register("xbar", "ctrl", 0x001, "RW", 1, "write bit 0: commit the shadow configuration; reads "
                     "loaded [0], active slot [15:8], commits [31:16]"),
            Register("xbar", "accepted", 0x002, "RO", 1, "shadow entries and durations accepted since the last commit"),
            Register("xbar", "rb_ctrl", 0x003, "RW", 1, "bit 0: tag mode (ingress k carries k+1); "
                     "[15:8]: slot whose output rb[] captures; reads bit 1: captured since this was written"),
            Register("xbar", "cfg", 0x100, "W", 0x100, "push one shadow entry: ingress | 1 << 31 "
                     "(0: egress disabled); egress 0 first, slot 0 first", window=True),
            Register("xbar", "dur", 0x200, "W", 0x100, "push one TDM slot duration in cycles (slots > 1)",
                     window=True),
            Register("xbar", "rb", 0x400, "RO", ports,
                     "per egress: the tag delivered in slot rb_slot (0: not connected, k+1: ingress k)"),
        ]
        regs += _prbs("xbar_prbs", ports)
    if design in ("benes", "all"):
        regs += [
            Register("benes", "info", 0x000, "RO", 1, "ports [15:0], stages [23:16], data width [31:24]"),
            Register("benes", "ctrl", 0x001, "RW", 1, "write bit 0: commit; reads loaded [0], commits [31:16]"),
            Register("benes", "accepted", 0x002, "RO", 1, "stage words accepted since the last commit"),
            Register("benes", "rb_ctrl", 0x003, "RW", 1, "bit 0: tag mode (input k carries k+1)"),
            Register("benes", "network", 0x004, "RO", 1, "0 Beneš, 1 Waksman; pipeline latency [15:8]"),
            Register("benes", "chunk", 0x010, "RW", word_chunks, "stage word staging, 32 bits per chunk, "
                     "chunk 0 = switches 0..31"),
            Register("benes", "push", 0x020, "W", 1, "push the staged stage word (stage 0 first)"),
            Register("benes", "rb", 0x400, "RO", size, "per output p: 1 + the input routed to p"),
        ]
        regs += _prbs("benes_prbs", size)
    if design in ("nexthop", "all"):
        regs += [
            Register("nexthop", "info", 0x000, "RO", 1, "M [15:0], S [23:16], h [30:24], table unit [31]"),
            Register("nexthop", "query", 0x001, "W", 1, "node [15:0] | dest [31:16]: starts one decision"),
            Register("nexthop", "hop", 0x002, "RW", 1, "hop index of the queries (0 at the source)"),
            Register("nexthop", "result", 0x003, "RO", 1, "next node [15:0], link [23:16], done [31]"),
        ]
    return sorted(regs, key=lambda r: r.address)


def addr(block: str, name: str, index: int = 0) -> int:
    """Word address of register ``block.name`` (element ``index`` of an array)."""
    for r in registers("all", ports=MAX_PORTS, size=MAX_PORTS, word_chunks=MAX_PORTS // 64):
        if r.block == block and r.name == name:
            return r.address + (0 if r.window else index)
    raise KeyError(f"{block}.{name}")


def to_markdown(regs: list[Register]) -> str:
    lines = ["| address | register | access | count | description |", "|---|---|---|---|---|"]
    for r in regs:
        count = f"{r.count} (window)" if r.window else str(r.count)
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
    a window one row at its first address (it is one register), so every
    row is one 32-bit word -- LiteX joins a multi-word register into one
    integer, and its length fields are one byte.  ``W`` registers are
    ``rw`` as LiteX writes its write-only CSRs (``litex_cli --regs`` reads
    every row; ours read as 0, without side effect)."""
    rows = []
    for r in regs:
        mode = "ro" if r.access == "RO" else "rw"
        name = f"{r.block}_{r.name}"
        if r.window or r.count == 1:
            rows.append((name, 4 * r.address, 1, mode))
        else:
            rows += [(f"{name}{i}", 4 * (r.address + i), 1, mode) for i in range(r.count)]
    return rows


def to_csv(regs: list[Register]) -> str:
    """LiteX's ``csr.csv``: ``csr_base,block,byte address,,`` per block,
    ``csr_register,name,byte address,words,mode`` per register
    (:func:`csv_rows`), then the ``constant`` rows LiteX's ``RemoteClient``
    and ``litex_cli`` need (:data:`LITEX_CONSTANTS`) and permnet's
    identification.  Byte address = 4 x the bridge's word address, as
    LiteX's ``CommUART`` sends ``address // 4``.  Every line has LiteX's
    five fields, and there is no blank line (its reader rejects both)."""
    rule = "#" + "-" * 80
    out = [rule, "# permnet HIL register map (permnet hil regmap), in LiteX's csr.csv format", rule]
    for block in sorted({r.block for r in regs}, key=lambda b: BASES[b]):
        out.append(f"csr_base,{block},0x{BASES[block] * 4:08x},,")
    out += [f"csr_register,{name},0x{a:08x},{n},{mode}" for name, a, n, mode in csv_rows(regs)]
    consts = {**LITEX_CONSTANTS, "permnet_hil_id": ID, "permnet_hil_version": VERSION}
    out += [f"constant,{k},{v},," for k, v in consts.items()]
    return "\n".join(out) + "\n"
