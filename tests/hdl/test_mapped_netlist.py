"""The designs with hand-mapped ECP5 cells (``--target ecp5``: the router's
multiplexers and kept select flip-flops, the crossbar's and Beneš network's
multiplexer trees, the run-time planes) against their portable form, cycle
for cycle, through yosys's own ECP5 cell models on Icarus Verilog
(:mod:`lockstep_helpers`): random inputs, resets now and then, every output
compared in every cycle. The portable form is what every other test checks
against the reference models."""

from __future__ import annotations

import re

import pytest

from lockstep_helpers import lockstep, tools_missing

pytestmark = pytest.mark.skipif(tools_missing() is not None, reason=str(tools_missing()))

CYCLES = 20000
# The cases of make test run a quarter of that: vvp's time is almost all of a case's (18 s of 24 s
# for the LDI(8,2) table router at 20,000 cycles on a busy machine), and a wrong LUT4 INIT in the
# gate still differs in hundreds of the 5,000 cycles (one bit of one INIT flipped: see the commit)
FAST_CYCLES = 5000


def _router(allocator, lanes=1):
    from permnet.rtlnet import router

    kw = dict(M=16, S=4, link_stages=1, credit_stages=1, allocator=allocator, lanes=lanes)
    return router(**kw, cells="generic"), router(**kw, cells="ecp5")


def _deflection(stages, router="auto", M=16, S=4):
    from permnet.rtlnet import deflection_router

    kw = dict(M=M, S=S, stages=stages, router=router)
    return deflection_router(**kw, cells="generic"), deflection_router(**kw, cells="ecp5")


def _crossbar():
    from permnet.hdl.emit import crossbar

    return crossbar(8, 8, target="generic"), crossbar(8, 8, target="ecp5")


def _benes():
    from permnet.hdl.emit import benes

    return benes(8, 8, target="generic"), benes(8, 8, target="ecp5")


def _planes(kind):
    from permnet.gen.planes.decompose import ldi_planes
    from permnet.hdl.emit import planes

    p = ldi_planes(8, 2).planes.tolist()
    return (planes(kind, p, 13, 3, register=True, target="generic"),
            planes(kind, p, 13, 3, register=True, target="ecp5"))


def _network():
    from permnet.rtlnet import network

    kw = dict(M=8, S=2, endpoints="stream", planes="crossbar", flit_width=32, link_stages=1, credit_stages=1,
              allocator="separate-va", plane_stages=1)
    return network(**kw, target="generic"), network(**kw, target="ecp5")


# the whole network with random configuration writes would route nowhere: its planes and
# route tables keep their reset contents, and a drained swap (with a commit of the
# unchanged shadow) comes now and then
NETWORK_INPUTS = dict(zero=r"cfg__we|cfg__commit|rt__we", rare=r"swap_req")

CASES = {
    "router-separate-va": (lambda: _router("separate-va"), [pytest.mark.slow]),   # a 70-80 s Verilator build
    "router-two-stage": (lambda: _router("two-stage"), [pytest.mark.slow]),
    "router-separate-va-two-lanes": (lambda: _router("separate-va", lanes=2), [pytest.mark.slow]),
    "router-combined": (lambda: _router("combined"), [pytest.mark.slow]),
    "router-input-first": (lambda: _router("input-first"), [pytest.mark.slow]),
    "deflection-router": (lambda: _deflection(1), [pytest.mark.slow]),
    "deflection-router-stages-2": (lambda: _deflection(2), [pytest.mark.slow]),
    "deflection-router-stages-3-table": (lambda: _deflection(3, "table"), [pytest.mark.slow]),
    # the mask table's read-back through hand-mapped cells straight to an output (a miter that
    # Verilator's optimised model got wrong: tests/lockstep_helpers.py)
    "deflection-router-table-ldi-8-2": (lambda: _deflection(1, "table", M=8, S=2), []),
    "crossbar-8x8x8": (_crossbar, []),
    "benes-8x8": (_benes, [pytest.mark.slow]),
    "planes-crossbar-ldi-8-2": (lambda: _planes("crossbar"), [pytest.mark.slow]),
    "planes-benes-ldi-8-2": (lambda: _planes("benes"), [pytest.mark.slow]),
    "network-ldi-8-2-separate-va": (_network, [pytest.mark.slow]),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=m) for n, (_, m) in CASES.items()])
def test_ecp5_cells_match_the_portable_form(name, tmp_path):
    gold, gate = CASES[name][0]()
    cycles = CYCLES if CASES[name][1] else FAST_CYCLES         # the slow cases keep their 20,000
    assert gold.name == gate.name
    gold_text, gate_text = gold.verilog(), gate.verilog()
    assert gold_text != gate_text          # the gate really is the mapped form
    bad, changed = lockstep(gold_text, gate_text, gold.name, tmp_path, cycles,
                            **(NETWORK_INPUTS | {"prefer": "verilator"} if name.startswith("network") else {}))
    assert bad == 0, f"{name}: outputs differed in {bad} of {cycles} cycles"
    # the stimulus reached the outputs it compares: every valid and every data output moved
    watched = {n: c for n, c in changed.items() if re.search(r"valid|flit|data|payload|fwd|bwd", n)}
    assert watched, f"{name}: no valid or data output among {sorted(changed)}"
    still = sorted(n for n, c in watched.items() if c < cycles // 100)
    assert not still, f"{name}: outputs that changed in fewer than 1 % of the cycles: {still}"
