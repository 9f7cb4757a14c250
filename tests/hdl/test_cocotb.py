"""cocotb 2.x on Verilator (and Icarus when installed): the emitted Verilog
against the Python reference, every cycle.  Each configuration is built once
(its Verilog emitted by permnet.hdl.emit) and reused by its tests."""

import json
import shutil
from pathlib import Path

import pytest

from permnet.hdl import emit

HERE = Path(__file__).parent / "cocotb"
BUILD = Path(__file__).resolve().parents[2] / "build" / "cocotb"

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None,
                                reason="verilator not on PATH (make test links it into .venv/bin)")

CONFIGS = {
    "nexthop_18_3_p2": (lambda: emit.nexthop(18, 3, pipeline=2), "cocotb_nexthop",
                        {"M": 18, "S": 3, "pipeline": 2, "variant": "closed", "cases": "exhaustive", "seed": 0}),
    "nexthop_12_4_p1": (lambda: emit.nexthop(12, 4, pipeline=1), "cocotb_nexthop",
                        {"M": 12, "S": 4, "pipeline": 1, "variant": "closed", "cases": "exhaustive", "seed": 0}),
    "nexthop_3000_10_p3": (lambda: emit.nexthop(3000, 10, pipeline=3), "cocotb_nexthop",
                           {"M": 3000, "S": 10, "pipeline": 3, "variant": "closed", "cases": 20000, "seed": 7}),
    "nexthop_table_20_3": (lambda: emit.nexthop(20, 3, pipeline=2, variant="table"), "cocotb_nexthop",
                           {"M": 20, "S": 3, "pipeline": 2, "variant": "table", "cases": "exhaustive", "seed": 0}),
    "crossbar_6x5_k3": (lambda: emit.crossbar(6, 5, slots=3), "cocotb_crossbar",
                        {"ports": 6, "width": 5, "slots": 3, "rounds": 4, "cycles": 40, "seed": 3}),
    "crossbar_8x8": (lambda: emit.crossbar(8, 8), "cocotb_crossbar",
                     {"ports": 8, "width": 8, "slots": 1, "rounds": 6, "cycles": 20, "seed": 4}),
    "benes_8_mask21": (lambda: emit.benes(8, 6, pipeline_mask=0b10101), "cocotb_benes",
                       {"size": 8, "width": 6, "latency": 3, "network": "benes", "cycles": 200, "seed": 5}),
    "benes_11_waksman": (lambda: emit.benes(11, 4, network="waksman", pipeline_mask=0b1000001), "cocotb_benes",
                         {"size": 11, "width": 4, "latency": 2, "network": "waksman", "cycles": 200, "seed": 6}),
}

SIMULATORS = ["verilator"] + (["icarus"] if shutil.which("iverilog") else [])


def _run(sim, name):
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner

    make, module, params = CONFIGS[name]
    gen = make()
    build = BUILD / sim / name
    build.mkdir(parents=True, exist_ok=True)
    src = build / f"{gen.name}.v"
    text = gen.verilog()
    if not src.exists() or src.read_text() != text:
        src.write_text(text)
    # the cocotb module runs inside the simulator with test_dir on its path
    shutil.copy(HERE / f"{module}.py", build / f"{module}.py")
    runner = get_runner(sim)
    build_args = ["-Wno-fatal", "-Wno-WIDTHEXPAND", "-Wno-WIDTHTRUNC"] if sim == "verilator" else []
    runner.build(sources=[src], hdl_toplevel=gen.name, build_dir=build, build_args=build_args,
                 timescale=("1ns", "1ps"))
    # COCOTB_REWRITE_ASSERTION_FILES: pytest's assertion rewriting for the testbench module only; by
    # default ("*.py") cocotb has every module imported after its hook rewritten, numba's and
    # amaranth's included, and with PYTHONDONTWRITEBYTECODE nothing rewritten is cached: 8-16 s of
    # imports in every simulator run (the Beneš test's numba also imports lazily, during the run)
    results = runner.test(hdl_toplevel=gen.name, test_module=module, test_dir=build, build_dir=build,
                          extra_env={"PERMNET_PARAMS": json.dumps(params),
                                     "COCOTB_REWRITE_ASSERTION_FILES": f"{module}.py"},
                          timescale=("1ns", "1ps"))
    total, failed = get_results(results)
    assert total >= 1 and failed == 0, f"{name} on {sim}: {failed} of {total} cocotb tests failed"


# make test builds two cocotb models, one per simulator: the table next-hop unit on Verilator and a
# pipelined Benes network on Icarus (where Icarus is installed; both on Verilator otherwise); the
# closed-form next-hop unit, a crossbar and a Benes network also run on Verilator in make test as parts
# of the HIL model (tests/hil, design "all"), checked against the reference. The other configurations,
# and the two make-test ones on the other simulator, run under -m slow.
SLOW = {"nexthop_18_3_p2", "nexthop_12_4_p1", "nexthop_3000_10_p3", "crossbar_6x5_k3", "crossbar_8x8",
        "benes_11_waksman"}
FAST_ON = {"nexthop_table_20_3": "verilator", "benes_8_mask21": SIMULATORS[-1]}


def _slow(name, sim):
    return name in SLOW or FAST_ON.get(name, sim) != sim


@pytest.mark.parametrize("name,sim", [pytest.param(n, s, marks=pytest.mark.slow) if _slow(n, s) else (n, s)
                                      for n in sorted(CONFIGS) for s in SIMULATORS])
def test_cocotb(sim, name):
    _run(sim, name)
