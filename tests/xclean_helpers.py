"""Does a top leave reset with every output known?  A 4-state check in Icarus.

:func:`unknown_outputs` writes a small testbench around an emitted top (its
ports read from the Verilog text), drives every input to 0 except the clock,
holds ``rst`` high for ``reset_cycles`` clock cycles, then runs ``cycles``
more and reports each output that holds an X or Z bit on any of those
cycles (sampled at the falling edge, half a cycle after the rising one).
Two-state simulators (Verilator) cannot see this: a register without a
reset or an initial value starts at 0 there and at X in Icarus, Questa,
VCS and Xcelium.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

IVERILOG = shutil.which("iverilog")
VVP = shutil.which("vvp")
MISSING = ("iverilog not on PATH (Debian package iverilog; make venv installs it when run as root)"
           if IVERILOG is None or VVP is None else None)

_IDENT = r"(\\\S+\s|[A-Za-z_][A-Za-z0-9_$]*)"
_DECL = re.compile(r"\s*(input|output|inout)\s+(?:wire\s+|reg\s+)?(?:\[(\d+):(\d+)\]\s*)?" + _IDENT + r"\s*$")


@dataclass(frozen=True)
class Port:
    direction: str
    width: int
    name: str           # as written in Verilog (an escaped name keeps its backslash, without the space)

    @property
    def ref(self) -> str:
        """The name as an expression (escaped names end in a space)."""
        return self.name + " " if self.name.startswith("\\") else self.name


def top_ports(text: str, top: str) -> list[Port]:
    """The ports of module ``top`` in Verilog ``text``, declared in its body (as yosys writes them)."""
    m = re.search(r"^module\s+" + re.escape(top) + r"\s*\(", text, re.M)
    assert m, f"module {top} not in the Verilog"
    end = text.index("\nendmodule", m.end())
    ports = []
    header_end = text.index(";", m.end())
    for statement in text[header_end + 1:end].split(";"):
        d = _DECL.fullmatch(statement)
        if d is None:
            continue
        direction, hi, lo, name = d.groups()
        width = abs(int(hi) - int(lo)) + 1 if hi is not None else 1
        ports.append(Port(direction, width, name.strip()))
    listed = {n.strip() for n in text[m.end():header_end].strip().rstrip(")").split(",")}
    assert listed == {p.name for p in ports}, f"{top}: ports listed {sorted(listed)}, declared {ports}"
    return ports


def testbench(ports: list[Port], top: str, *, clock="clk", reset="rst", reset_cycles=5, cycles=20) -> str:
    """The testbench text: ``XBIT <cycle> <port>`` for every unknown output, then ``XCLEAN DONE``.
    A top without ``clock`` (combinational) gets the same checks 10 ns apart."""
    names = {p.name for p in ports}
    lines = ["`timescale 1ns/1ps", "module xclean_tb;"]
    conns = []
    for k, p in enumerate(ports):
        sig = f"p{k}"
        kind = "reg" if p.direction == "input" else "wire"
        lines.append(f"  {kind} [{p.width - 1}:0] {sig};")
        conns.append(f"    .{p.ref}({sig})")
    lines.append(f"  {top} dut (\n" + ",\n".join(conns) + "\n  );")
    sig = {p.name: f"p{k}" for k, p in enumerate(ports)}
    tick = f"#5 {sig[clock]} = 1; #5 {sig[clock]} = 0;" if clock in names else "#10;"
    lines.append("  integer cycle;")
    lines.append("  initial begin")
    for p in ports:
        if p.direction == "input":
            lines.append(f"    {sig[p.name]} = 0;")
    if reset in names:
        lines.append(f"    {sig[reset]} = 1;")
    lines.append(f"    repeat ({reset_cycles}) begin {tick} end")
    if reset in names:
        lines.append(f"    {sig[reset]} = 0;")
    lines.append(f"    for (cycle = 0; cycle < {cycles}; cycle = cycle + 1) begin")
    lines.append(f"      {tick}")
    for p in ports:
        if p.direction != "input":
            lines.append(f'      if ($isunknown({sig[p.name]})) $display("XBIT %0d {p.name}", cycle);')
    lines += ["    end", '    $display("XCLEAN DONE");', "    $finish;", "  end", "endmodule", ""]
    return "\n".join(lines)


def unknown_outputs(text: str, top: str, workdir, *, clock="clk", reset="rst", reset_cycles=5,
                    cycles=20) -> dict[str, int]:
    """Each output of ``top`` with an X or Z bit after reset -> how many of the ``cycles`` it had one."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    ports = top_ports(text, top)
    assert any(p.direction != "input" for p in ports), f"{top}: no outputs found"
    (workdir / "dut.v").write_text(text)
    (workdir / "tb.v").write_text(testbench(ports, top, clock=clock, reset=reset, reset_cycles=reset_cycles,
                                            cycles=cycles))
    sim = workdir / "tb.vvp"
    c = subprocess.run([IVERILOG, "-g2012", "-s", "xclean_tb", "-o", str(sim), "tb.v", "dut.v"],
                       cwd=workdir, capture_output=True, text=True, timeout=600)
    assert c.returncode == 0, f"iverilog failed:\n{c.stderr[-3000:]}"
    r = subprocess.run([VVP, "-n", str(sim)], cwd=workdir, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "XCLEAN DONE" in r.stdout, f"vvp failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}"
    counts: dict[str, int] = {}
    for line in r.stdout.splitlines():
        if line.startswith("XBIT "):
            name = line.split(maxsplit=2)[2]
            counts[name] = counts.get(name, 0) + 1
    return counts
