"""cocotb testbench: crossbar plane (shadow load, commit, TDM) against the model."""

import json
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly

from permnet.hdl.crossbar import stream_words
from permnet.sim.reference import crossbar
from permnet.sim.testbench import pack, unpack

P = json.loads(os.environ["PERMNET_PARAMS"])


async def load(dut, configs, durations, N, K):
    for w in stream_words(configs, N):
        await FallingEdge(dut.clk)
        dut.cfg__payload.value = w
        dut.cfg__valid.value = 1
    if K > 1:
        for d in durations:
            await FallingEdge(dut.clk)
            dut.cfg__valid.value = 0
            dut.dur__payload.value = d
            dut.dur__valid.value = 1
    await FallingEdge(dut.clk)
    dut.cfg__valid.value = 0
    if K > 1:
        dut.dur__valid.value = 0
    dut.commit.value = 1


@cocotb.test()
async def reconfigure_and_step_slots(dut):
    N, W, K = P["ports"], P["width"], P["slots"]
    rng = random.Random(P["seed"])
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.commit.value = 0
    dut.cfg__valid.value = 0
    if K > 1:
        dut.dur__valid.value = 0
    await FallingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    for rnd in range(P["rounds"]):
        configs = [[rng.randrange(-1, N) for _ in range(N)] for _ in range(K)]
        durations = [rng.randrange(1, 5) for _ in range(K)]
        await load(dut, configs, durations, N, K)
        slot, remaining, prev = 0, durations[0] - 1, None
        for t in range(P["cycles"]):
            await FallingEdge(dut.clk)
            dut.commit.value = 0
            data = [rng.randrange(1 << W) for _ in range(N)]
            dut.i_data.value = pack(data, W)
            await ReadOnly()
            if prev is not None:
                got = unpack(int(dut.o_data.value), N, W)
                assert got == crossbar(configs[prev[1]], prev[0]), f"round {rnd} cycle {t}"
            assert int(dut.o_slot.value) == slot
            prev = (data, slot)
            if K > 1:
                if remaining == 0:
                    slot = (slot + 1) % K
                    remaining = durations[slot] - 1
                else:
                    remaining -= 1
