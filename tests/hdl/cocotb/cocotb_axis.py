"""cocotb testbench: the stream network (``permnet rtl network --endpoints
stream``) driven by cocotbext-axi, an ``AxiStreamSource`` per node into
``n{d}_in_*`` and an ``AxiStreamSink`` per node out of ``n{d}_out_*``, both
pausing at random (tvalid gaps on the way in, tready back-pressure on the
way out). A checker on every output stream asserts the AXI-Stream rules:
once tvalid is high it stays high, with tdata, tlast and tdest unchanged,
until the handshake. What each sink received is written to
``PERMNET_RESULT`` for the pytest side to check against the packets it
asked for."""

import json
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

P = json.loads(os.environ["PERMNET_PARAMS"])
FIELDS = ("tdata", "tlast", "tdest")


def pauses(rng, p):
    """A pause generator: paused in each cycle with probability ``p``."""
    while True:
        yield rng.random() < p


def words_bytes(words, width):
    """The frame bytes of ``width``-bit words (byte lane 0 is tdata's low byte)."""
    return b"".join(w.to_bytes(width // 8, "little") for w in words)


async def axis_rules(dut, node, report):
    """Each cycle (after the clock edge, when the values the next edge samples are settled):
    if the previous cycle showed tvalid without tready, tvalid is still high and the other
    fields unchanged. Counts the cycles that showed tvalid with tready low (``waiting``, per node)."""
    sig = {f: getattr(dut, f"n{node}_out_{f}") for f in ("tvalid", "tready", *FIELDS)}
    prev = None
    while True:
        await RisingEdge(dut.clk)
        await ReadOnly()
        if dut.rst.value:
            prev = None
            continue
        now = {f: int(s.value) for f, s in sig.items()}
        if prev is not None and prev["tvalid"] and not prev["tready"]:
            for f in ("tvalid", *FIELDS):
                if now[f] != prev[f]:
                    report["violations"].append(f"node {node}: {f} {prev[f]} -> {now[f]} while tvalid and not tready")
        if now["tvalid"] and not now["tready"]:
            report["waiting"][node] += 1
        prev = now


@cocotb.test()
async def streams_deliver_every_packet(dut):
    M, W = P["M"], P["W"]
    rng = random.Random(P["seed"])
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    sources = [AxiStreamSource(AxiStreamBus.from_prefix(dut, f"n{d}_in"), dut.clk, dut.rst) for d in range(M)]
    sinks = [AxiStreamSink(AxiStreamBus.from_prefix(dut, f"n{d}_out"), dut.clk, dut.rst) for d in range(M)]
    for s in sources:
        s.set_pause_generator(pauses(rng, P["source_pause"]))
    for s in sinks:
        s.set_pause_generator(pauses(rng, P["sink_pause"]))
    await ClockCycles(dut.clk, 5)
    dut.rst.value = 0
    report = {"violations": [], "waiting": [0] * M}
    for d in range(M):
        cocotb.start_soon(axis_rules(dut, d, report))
    for src, dst, words in P["packets"]:
        sources[src].send_nowait(AxiStreamFrame(words_bytes(words, W), tdest=dst))
    total = len(P["packets"])
    cycles = 0
    while sum(s.count() for s in sinks) < total and cycles < P["max_cycles"]:
        await RisingEdge(dut.clk)
        cycles += 1
    await ClockCycles(dut.clk, 20)              # nothing more may arrive
    got = {}
    for d, sink in enumerate(sinks):
        got[d] = []
        while not sink.empty():
            frame = sink.recv_nowait()
            data = bytes(frame.tdata)
            words = [int.from_bytes(data[i:i + W // 8], "little") for i in range(0, len(data), W // 8)]
            got[d].append([frame.tdest, words])
    report |= {"got": got, "cycles": cycles, "dest_error": int(dut.dest_error.value)}
    with open(os.environ["PERMNET_RESULT"], "w") as f:
        json.dump(report, f)
    assert not report["violations"], report["violations"][:5]
    assert sum(len(v) for v in got.values()) == total, f"{sum(len(v) for v in got.values())} of {total} packets"
