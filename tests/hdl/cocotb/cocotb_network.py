"""cocotb testbench: the emitted network runs its trace; its ejection
checkers compare every tail with the simulator's delivery cycle."""

import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge

P = json.loads(os.environ["PERMNET_PARAMS"])


@cocotb.test()
async def network_matches_the_simulator(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    for _ in range(P["last_delivery"] + 20):
        await FallingEdge(dut.clk)
        if int(dut.done.value):
            break
    assert int(dut.done.value) == 1, "not every packet was delivered"
    assert int(dut.error.value) == 0, "a tail left at another cycle than in the simulator"
    assert int(dut.delivered.value) == P["packets"]
    assert int(dut.cycle.value) == P["last_delivery"], (int(dut.cycle.value), P["last_delivery"])
