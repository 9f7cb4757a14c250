"""The input-first allocator of the simulator (issue 24): one VC per input port per cycle."""

import json

import numpy as np
import pytest

from permnet.gen.routing import tables
from permnet.sim import netsim
from permnet.sim.netsim import kernel

from netsim_helpers import compiled_equals_cpython, run_main


@pytest.mark.parametrize("eject_port,two_stage,separate_va",
                         [(False, False, False), (True, False, False), (True, True, False), (True, True, True)])
def test_compiled_loop_equals_cpython_with_input_first(eject_port, two_stage, separate_va):
    stats = compiled_equals_cpython(tables.network("ldi", 9, 3).table, lanes=1, eject_port=eject_port,
                                    input_first=True, two_stage=two_stage, separate_va=separate_va)
    assert stats[kernel.STAT_FIELDS.index("delivered")] > 20


def _run(allocator, load, **kw):
    net = tables.network("ldi", 16, 4)
    cfg = netsim.Config(buffer=4, packet_size=2, lanes=1, ejection="port", allocator=allocator, warmup=200,
                        cycles=1000, seed=5, **kw)
    return net, netsim.simulate(net, netsim.pattern("uniform", 16), load, cfg)


@pytest.mark.parametrize("allocator", ["combined", "input-first"])
def test_zero_load_latency_is_hops_plus_size(allocator):
    """Alone in the network a packet never waits for its port: ``hops + size`` cycles either way."""
    net, r = _run(allocator, 0.002)
    assert r.measured > 0 and r.stable
    assert r.latency_avg == pytest.approx(r.hops_avg + 2)


@pytest.mark.parametrize("link_stages", [0, 1])
def test_two_stage_zero_load_latency(link_stages):
    """Two-stage: a head that reaches an empty VC is offered the cycle it can first move (its
    port chose it as it arrived), so alone in the network a packet loses only the ejection
    register's cycle: ``hops (1 + L) + size + 1``."""
    net, r = _run("two-stage", 0.002, link_stages=link_stages)
    assert r.measured > 0 and r.stable
    assert r.latency_avg == pytest.approx(r.hops_avg * (1 + link_stages) + 2 + 1)


@pytest.mark.parametrize("link_stages", [0, 1])
def test_separate_va_zero_load_latency(link_stages):
    """Separate VC allocation: a head is granted its output VC in the cycle it first shows and
    crosses in the next, so alone in the network a packet takes one more cycle per hop than
    two-stage: ``hops (2 + L) + size + 1``; ``zero_load_latency`` states the same."""
    net, r = _run("separate-va", 0.002, link_stages=link_stages)
    assert r.measured > 0 and r.stable
    assert r.latency_avg == pytest.approx(r.hops_avg * (2 + link_stages) + 2 + 1)
    model = netsim.zero_load_latency(net.table, 2, link_stages, "separate-va")
    assert model == pytest.approx(float(net.table.length[~np.eye(16, dtype=bool)].mean()) * (2 + link_stages) + 3)


@pytest.mark.parametrize("switching", ["vct", "wormhole"])
def test_separate_va_delivers_every_packet_near_saturation(switching):
    """Under heavy load (LDI(16,4), 0.6 packets per node per cycle offered) the separate VC
    allocation neither deadlocks nor loses a packet: every measured packet is delivered in
    the drain, as with two-stage, and throughput stays within 20 % of two-stage's."""
    _, two = _run("two-stage", 0.6, switching=switching)
    _, sep = _run("separate-va", 0.6, switching=switching)
    assert not two.deadlock and not sep.deadlock
    assert sep.delivered == sep.measured > 0
    assert sep.accepted > 0.8 * two.accepted


def test_input_first_limits_a_port_to_one_flit_per_cycle():
    """Near saturation the port limit costs throughput: input-first accepts less than combined
    (LDI(16,4), one ejection port: 0.35 against 0.39 packets per node per cycle), and neither
    deadlocks. That a port moves one flit per cycle is checked cycle by cycle against the RTL
    (``tests/hdl/test_router_pipeline.py``)."""
    _, comb = _run("combined", 0.6)
    _, first = _run("input-first", 0.6)
    assert not comb.deadlock and not first.deadlock
    assert first.accepted < comb.accepted


def test_cli_allocator(capsys):
    base = ["netsim", "-M", "8", "-S", "2", "--load", "0.1", "--cycles", "300", "--warmup", "50", "--lanes", "1",
            "--ejection", "port", "--json"]
    r = run_main(base + ["--allocator", "input-first"], capsys)
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.output)["delivered"] > 0
    r = run_main(base + ["--allocator", "output-first"], capsys)
    assert r.exit_code == 2 and "allocator" in r.stderr


def test_the_layers_name_the_same_allocators():
    """The CLI's choices (``permnet.rtlnet``), the RTL's and the simulator's are one list."""
    from permnet import rtlnet
    from permnet.hdl import router

    assert rtlnet.ALLOCATORS == router.ALLOCATORS == netsim.ALLOCATORS
