# amaranth: UnusedElaboratable=no
"""The crossbar timing the Verilog header and docs/tutorials/fpga-network.md state (TIMING_NOTES),
checked cycle by cycle in the Amaranth simulator."""

from amaranth.sim import Simulator

from permnet.hdl.crossbar import CrossbarPlane, stream_words
from permnet.sim.testbench import pack, unpack


def _apply(select, data):
    return [data[s] if s >= 0 else 0 for s in select]


def test_tdm_commit_waits_for_durations_and_o_slot_leads_o_data():
    N, W, K = 4, 4, 2
    dut = CrossbarPlane(N, W, slots=K)          # reset: identity in both slots, durations 1
    new = [[3, 2, 1, 0], [1, -1, 3, 2]]          # per-egress ingress (-1 = disabled)
    durs = [3, 2]
    data = [5, 6, 7, 8]
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    log = {}

    async def tb(ctx):
        ctx.set(dut.i_data, pack(data, W))
        for w in stream_words(new, N):           # every cfg word, no durations yet
            ctx.set(dut.cfg.payload.as_value(), w)
            ctx.set(dut.cfg.valid, 1)
            await ctx.tick()
        ctx.set(dut.cfg.valid, 0)
        log["loaded_without_dur"] = ctx.get(dut.o_loaded)
        ctx.set(dut.commit, 1)                   # ignored: durations missing
        await ctx.tick()
        ctx.set(dut.commit, 0)
        for _ in range(3):
            await ctx.tick()
            assert unpack(ctx.get(dut.o_data), N, W) == data      # still the identity
        for d in durs:
            ctx.set(dut.dur.payload, d)
            ctx.set(dut.dur.valid, 1)
            await ctx.tick()
        ctx.set(dut.dur.valid, 0)
        log["loaded"] = ctx.get(dut.o_loaded)
        ctx.set(dut.commit, 1)
        await ctx.tick()                         # the commit edge: old configuration still used
        ctx.set(dut.commit, 0)
        slots, outs = [], []
        for _ in range(12):
            slots.append(ctx.get(dut.o_slot))
            await ctx.tick()
            outs.append(unpack(ctx.get(dut.o_data), N, W))
        log["slots"], log["outs"] = slots, outs

    sim.add_testbench(tb)
    sim.run()
    assert log["loaded_without_dur"] == 0 and log["loaded"] == 1
    # slot 0 for 3 cycles, slot 1 for 2, repeating, from the cycle after the commit edge
    assert log["slots"] == [0, 0, 0, 1, 1] * 2 + [0, 0]
    # o_data in cycle t+1 follows the slot shown on o_slot in cycle t; disabled egress = 0
    for s, out in zip(log["slots"], log["outs"]):
        assert out == _apply(new[s], data)
