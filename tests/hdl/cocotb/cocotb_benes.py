"""cocotb testbench: Beneš network; configurations committed while data flows."""

import json
import os

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly

from permnet.gen.routing import benes as router
from permnet.sim.reference import benes_outputs
from permnet.sim.testbench import pack, unpack

P = json.loads(os.environ["PERMNET_PARAMS"])


@cocotb.test()
async def data_keeps_the_configuration_it_entered_with(dut):
    N, W, L, net = P["size"], P["width"], P["latency"], P["network"]
    rng = np.random.default_rng(P["seed"])
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.commit.value = 0
    dut.cfg__valid.value = 0
    await FallingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    current = router.route(np.arange(N), net)
    history = []
    pending = None
    words = []
    checked = 0
    for t in range(P["cycles"]):
        await FallingEdge(dut.clk)
        dut.commit.value = 0
        if pending is not None and not words:
            # the words are in: commit now, data of this cycle still uses the old settings
            dut.commit.value = 1
        if pending is None and t % 9 == 1:
            pending = router.route(rng.permutation(N), net)
            words = router.stage_words(pending)
        if words:
            dut.cfg__payload.value = words.pop(0)
            dut.cfg__valid.value = 1
        else:
            dut.cfg__valid.value = 0
        data = rng.integers(0, 1 << W, N).tolist()
        dut.i_data.value = pack(data, W)
        history.append((data, current))
        await ReadOnly()
        if len(history) > L:
            d, r = history[-1 - L]
            assert unpack(int(dut.o_data.value), N, W) == benes_outputs(r, d), f"cycle {t}"
            checked += 1
        if int(dut.commit.value):
            current, pending = pending, None
    assert checked > 0
