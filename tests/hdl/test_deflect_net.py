"""A network of deflection routers on wire planes (:class:`permnet.hdl.deflect_net.DeflectionNetwork`,
issue 41) against a pure-Python loop over the spec's
:func:`permnet.gen.routing.deflection.route_step`: every node steps on the flits its inputs
carry, its outputs reach the next nodes' inputs P cycles later, its ejection FIFOs as the spec
states them. Every ``ready`` and every ejection stream compared in every cycle; then, with no
more injection and every FIFO drained, every flit is delivered, once, to its destination."""

import random
from collections import deque

import pytest
from amaranth.sim import Simulator

from permnet.gen.routing import tables
from permnet.gen.routing.deflection import EJECT_DEPTH, Flit, productive_masks, route_step
from permnet.hdl.deflect_net import DeflectionNetwork


@pytest.mark.parametrize("M,S,E,P", [pytest.param(8, 2, 1, 1, marks=pytest.mark.slow), (8, 2, 2, 2)])
def test_network_computes_route_step_loop(M, S, E, P):
    planes = tables.network("ldi", M, S).table.planes.tolist()
    dut = DeflectionNetwork(planes, ejection=E, width=8, stages=P)
    masks = productive_masks(planes)
    top, K = (1 << dut.age_bits) - 1, dut.K
    rng = random.Random(M * 10 + P)
    busy, drain = 120, 80

    async def tb(ctx):
        links = deque([[[None] * S for _ in range(M)] for _ in range(P)])   # what the inputs carry, P cycles ahead
        queues = [[deque() for _ in range(E)] for _ in range(M)]
        sent, got, serial, full = [], [], 0, 0
        for cycle in range(busy + drain):
            slots = links.popleft()
            offers, ready = [], []
            for n in range(M):
                offer = None
                if cycle < busy and rng.random() < 0.5:
                    offer, serial = Flit(rng.randrange(M), n, 0, serial % 256), serial + 1
                probe = offer or Flit(rng.randrange(M), n, 0, 0)
                ctx.set(dut.inj[n].valid, offer is not None)
                ctx.set(dut.inj[n].payload.dst, probe.dst)
                ctx.set(dut.inj[n].payload.payload, probe.payload)
                r = [cycle >= busy or rng.random() < 0.6 for _ in range(E)]
                for e in range(E):
                    ctx.set(dut.ej[n][e].ready, r[e])
                offers.append((offer, probe))
                ready.append(r)
            nxt = [[None] * S for _ in range(M)]
            ejected = []
            for n in range(M):
                room = [len(q) < EJECT_DEPTH for q in queues[n]]
                full += not all(room)
                offer, probe = offers[n]
                outs, ej, injected = route_step(n, slots[n], masks[n], offer, room, E, hop_cycles=K, age_max=top)
                assert ctx.get(dut.inj[n].ready) == route_step(n, slots[n], masks[n], probe, room, E,
                                                               hop_cycles=K, age_max=top)[2]
                if injected:
                    sent.append((n, offer.dst, offer.payload))
                for e in range(E):
                    q = queues[n][e]
                    assert ctx.get(dut.ej[n][e].valid) == bool(q)
                    if q:
                        assert (ctx.get(dut.ej[n][e].payload.src), ctx.get(dut.ej[n][e].payload.payload)) == \
                            (q[0].src, q[0].payload)
                for y in range(S):
                    nxt[planes[y][n]][y] = outs[y]
                ejected.append(ej)
            links.append(nxt)
            await ctx.tick()
            for n in range(M):
                for e in range(E):
                    q = queues[n][e]
                    if q and ready[n][e]:
                        f = q.popleft()
                        got.append((f.src, n, f.payload))
                    if ejected[n][e] is not None:
                        q.append(ejected[n][e])
        # every flit sent was delivered to its destination, once: the same (src, dst, payload) multiset
        assert sorted(sent) == sorted(got)
        assert full and len(sent) > M * busy // 4

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
