"""cocotb testbench: the LDI next-hop unit against permnet.sim.reference.

Parameters come from the environment (PERMNET_PARAMS, JSON):
M, S, pipeline, variant, cases ("exhaustive" or a count), seed.
"""

import json
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly

from permnet.sim.reference import NextHopSpec, next_hop, route_table

P = json.loads(os.environ["PERMNET_PARAMS"])


def expected(M, S, variant):
    if variant == "table":
        table = route_table(M, S)
        return lambda n, d, i: (int(table[n, d]), (S * n + int(table[n, d])) % M), 1
    spec = NextHopSpec(M, S)
    return lambda n, d, i: next_hop(spec, n, d, i), spec.h


async def start_and_reset(dut):
    """Start the clock and hold reset for two cycles with no valid input."""
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.i_valid.value = 0
    for _ in range(2):
        await FallingEdge(dut.clk)
    dut.rst.value = 0


@cocotb.test()
async def every_cycle_matches_reference(dut):
    M, S, L = P["M"], P["S"], P["pipeline"]
    ref, h = expected(M, S, P["variant"])
    if P["cases"] == "exhaustive":
        cases = [(n, d, i) for n in range(M) for d in range(M) for i in range(h)]
    else:
        rng = random.Random(P["seed"])
        cases = [(rng.randrange(M), rng.randrange(M), rng.randrange(h)) for _ in range(P["cases"])]
    await start_and_reset(dut)
    got = []
    for c in cases + [None] * L:
        await FallingEdge(dut.clk)
        if c is None:
            dut.i_valid.value = 0
        else:
            dut.i_valid.value = 1
            dut.i_node.value, dut.i_dest.value, dut.i_hop.value = c
        await ReadOnly()
        if int(dut.o_valid.value):
            got.append((int(dut.o_link.value), int(dut.o_next.value)))
    want = [ref(*c) for c in cases]
    assert len(got) == len(want)
    bad = [k for k, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, f"case {cases[bad[0]]}: got {got[bad[0]]}, want {want[bad[0]]} ({len(bad)} mismatches)"


@cocotb.test()
async def valid_bubbles_are_kept(dut):
    """Random gaps in i_valid: o_valid repeats them ``pipeline`` cycles later
    and every valid result still matches the reference."""
    M, S, L = P["M"], P["S"], P["pipeline"]
    ref, h = expected(M, S, P["variant"])
    rng = random.Random(P["seed"] + 1)
    await start_and_reset(dut)
    sent, seen = [], []
    for t in range(600):
        await FallingEdge(dut.clk)
        if t < 600 - L - 1 and rng.random() < 0.6:
            c = (rng.randrange(M), rng.randrange(M), rng.randrange(h))
            dut.i_valid.value = 1
            dut.i_node.value, dut.i_dest.value, dut.i_hop.value = c
            sent.append((t, c))
        else:
            dut.i_valid.value = 0
        await ReadOnly()
        if int(dut.o_valid.value):
            seen.append((t, (int(dut.o_link.value), int(dut.o_next.value))))
    assert [t + L for t, _ in sent] == [t for t, _ in seen]
    assert [ref(*c) for _, c in sent] == [r for _, r in seen]
