"""The two-lane stream injector (:class:`permnet.hdl.netstream.TwoLaneInjector`) under a
testbench that plays the router: it takes each descriptor into its lowest free lane, as
:class:`permnet.hdl.router.Router` does, and pops the lanes' flits at random, so packets
leave out of order. Every packet's words come out in order at its lane, and the ring's
words come back: hundreds of packets pass through an 8-word ring."""

from __future__ import annotations

import random

from amaranth.sim import Simulator

from permnet.hdl.netstream import TwoLaneInjector
from permnet.hdl.router import _lane_signature

NODES, W, ZB, P, D = 8, 16, 3, 4, 8


def _run(seed, packets, pop_p, max_size=P):
    rng = random.Random(seed)
    sent = [(rng.randrange(NODES), [uid * 16 + k for k in range(rng.randint(1, max_size))]) for uid in range(packets)]
    dut = TwoLaneInjector(NODES, W, ZB, P, D, _lane_signature(ZB, {}, {"payload": W}))
    got, order, stats = [], [], {"overlap": 0, "cycles": 0}

    async def tb(ctx):
        lanes = [None, None]                  # [dst, size, words, idx] of the packet in each lane
        beat = 0
        queue = [(dst, w, k) for dst, words in sent for k, w in enumerate(words)]
        for cycle in range(40 * packets):
            # the stream side: one beat offered per cycle while any is left
            if beat < len(queue):
                dst, w, k = queue[beat]
                ctx.set(dut.i.valid, 1)
                ctx.set(dut.i.payload.data, w)
                ctx.set(dut.i.payload.dest, dst)
                ctx.set(dut.i.payload.last, k == len(sent[w // 16][1]) - 1)
            else:
                ctx.set(dut.i.valid, 0)
            took_beat = beat < len(queue) and ctx.get(dut.i.ready)
            # the router side: a descriptor into the lowest free lane, then random pops
            free = [j for j in range(2) if lanes[j] is None]
            ctx.set(dut.desc.ready, bool(free))
            if free and ctx.get(dut.desc.valid):
                dst, size = ctx.get(dut.desc.payload.dst), ctx.get(dut.desc.payload.size)
                lanes[free[0]] = [dst, size, [], 0]
            if all(lanes):
                stats["overlap"] += 1
            done = []
            for j, lane in enumerate(lanes):
                port = dut.lane[j]
                pop = lane is not None and rng.random() < pop_p
                ctx.set(port.idx, lane[3] if lane else 0)
                ctx.set(port.pop, pop)
                if pop:
                    lane[2].append(ctx.get(port.data.payload))
                    lane[3] += 1
                    if lane[3] == lane[1]:
                        done.append(j)
            for j in done:
                got.append((lanes[j][0], lanes[j][2]))
                order.append(lanes[j][2][0] // 16)
                lanes[j] = None
            await ctx.tick()
            beat += took_beat
            if len(got) == packets:
                stats["cycles"] = cycle
                return

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    return sent, got, order, stats


def test_every_packet_at_its_lane_in_order_and_the_ring_comes_back():
    packets = 300
    sent, got, order, stats = _run(1, packets, 0.5)
    assert len(got) == packets, f"only {len(got)} of {packets} packets left: the ring's words did not come back"
    by_uid = {words[0] // 16: (dst, words) for dst, words in got}
    assert by_uid == {uid: pk for uid, pk in enumerate(sent)}
    assert order != sorted(order)             # packets left out of order (a younger lane finished first)
    assert stats["overlap"] > packets // 4    # both lanes held a packet in many cycles


def test_lanes_that_pop_every_cycle_take_a_packet_a_cycle():
    """One-flit packets, both lanes popping at once: the ring never runs dry of room."""
    packets = 200
    sent, got, order, stats = _run(2, packets, 1.0, max_size=1)
    assert len(got) == packets
    assert stats["cycles"] < 2 * packets
