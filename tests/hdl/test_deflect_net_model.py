"""The deflection network's RTL (:mod:`permnet.hdl.deflect_net`) against the network
simulator's model and the spec, cycle for cycle (issue 41, items 4 and 5).

* :class:`DeflectionNetwork` on wire planes against
  :func:`permnet.sim.netsim.deflect.deflection_trace` (``link_stages = P - 1``): the same trace
  (every node's packets offered in order from their cycle on), the same random ejection
  ``ready`` pattern; every packet's injection cycle, ejection node and port, handshake cycle
  and source equal, every packet delivered once, its payload intact.
* :class:`DeflectionStream`: the same against the model fed the ``ready`` that the stream
  top's ejection arbiter gave each FIFO, with random ``tready``; every output beat is the
  handshake of one FIFO, stable while ``tready`` is low (AXI-Stream rules).
* A swap of crossbar and Beneš planes and the mask tables in the middle of traffic, no drain:
  every ``ready`` and ejection stream against a loop of the spec's
  :func:`permnet.gen.routing.deflection.route_step` whose planes and masks change at the
  commit, then every flit delivered once to its destination.
"""

import random
from collections import deque

import numpy as np
import pytest
from amaranth.sim import Simulator

from permnet.gen.routing import tables
from permnet.gen.routing.deflection import EJECT_DEPTH, Flit, productive_masks, route_step
from permnet.hdl.deflect_net import DeflectionNetwork, DeflectionStream, mask_writes
from permnet.sim.netsim.deflect import deflection_trace


def _planes(M, S):
    return tables.network("ldi", M, S).table.planes.tolist()


def _trace(M, busy, load, rng):
    """``(cycle, src, dst)`` rows: each node starts a packet with probability ``load`` a cycle."""
    return [(c, s, rng.randrange(M)) for c in range(busy) for s in range(M) if rng.random() < load]


def _run(dut, tb):
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


def _source_queues(M, rows):
    """Node s's packets in the model's order (cycle, then row): ``(cycle, serial, dst)``."""
    queues = [deque() for _ in range(M)]
    for serial in sorted(range(len(rows)), key=lambda i: rows[i][0]):
        c, s, d = rows[serial]
        queues[s].append((c, serial, d))
    return queues


@pytest.mark.parametrize("M,S,E,P", [(8, 2, 2, 1), (8, 2, 1, 2), (8, 2, 2, 3),
                                     pytest.param(16, 4, 2, 1, marks=pytest.mark.slow),
                                     pytest.param(16, 4, 2, 2, marks=pytest.mark.slow),
                                     pytest.param(16, 4, 2, 3, marks=pytest.mark.slow)])
def test_network_equals_deflection_trace(M, S, E, P):
    planes = _planes(M, S)
    dut = DeflectionNetwork(planes, ejection=E, width=12, stages=P)
    rng = random.Random(M * 100 + E * 10 + P)
    busy, cycles = 40, (110 if S == 2 else 200)      # all ready from busy + 40 on: the network empties
    rows = _trace(M, busy, 0.45 if S == 2 else 0.9, rng)
    ready = np.array([[[c >= busy + 40 or rng.random() < (0.6 if S == 2 else 0.3) for _ in range(E)] for _ in range(M)]
                      for c in range(cycles)], dtype=np.uint8)
    got, injected, stalls = {}, {}, [0]

    async def tb(ctx):
        queues = _source_queues(M, rows)
        for c in range(cycles):
            for n in range(M):
                q = queues[n]
                offer = bool(q) and q[0][0] <= c
                ctx.set(dut.inj[n].valid, offer)
                if offer:
                    ctx.set(dut.inj[n].payload.dst, q[0][2])
                    ctx.set(dut.inj[n].payload.payload, q[0][1])
                for e in range(E):
                    ctx.set(dut.ej[n][e].ready, int(ready[c, n, e]))
            for n in range(M):
                q = queues[n]
                if q and q[0][0] <= c:
                    if ctx.get(dut.inj[n].ready):
                        injected[q.popleft()[1]] = c
                    else:
                        stalls[0] += 1
                for e in range(E):
                    ej = dut.ej[n][e]
                    if ctx.get(ej.valid) and ready[c, n, e]:
                        serial = ctx.get(ej.payload.payload)
                        assert serial not in got, f"packet {serial} delivered twice"
                        got[serial] = (c, n, e, ctx.get(ej.payload.src))
            await ctx.tick()

    _run(dut, tb)
    model = deflection_trace(planes, rows, cycles=cycles, E=E, link_stages=P - 1, ej_ready=ready)
    assert len(model) == len(rows) == len(got) == len(injected)       # every packet delivered, once
    for d in model:
        assert (injected[d.serial], *got[d.serial]) == (d.injected, d.handshake, d.node, d.port, d.src), d
        assert (d.node, d.src) == rows[d.serial][2:0:-1]                  # to its destination, from its source
    assert stalls[0] and max(d.hops for d in model) > 3                 # back-pressure and deflections were seen


@pytest.mark.parametrize("M,S,E,P", [(8, 2, 2, 1), pytest.param(16, 4, 2, 2, marks=pytest.mark.slow)])
def test_stream_endpoints_equal_deflection_trace(M, S, E, P):
    planes = _planes(M, S)
    dut = DeflectionStream(planes, ejection=E, width=16, stages=P)
    net = dut.net
    rng = random.Random(7 + M + P)
    busy, cycles = 60, (160 if S == 2 else 300)      # all tready from busy + 60 on: the network empties
    rows = _trace(M, busy, 0.5, rng)
    used = np.zeros((cycles, M, E), dtype=np.uint8)    # the ready the arbiter gave each FIFO
    got, injected, counts = {}, {}, {"full": 0, "hold": 0}

    async def tb(ctx):
        queues = _source_queues(M, rows)
        shown = [None] * M                              # the beat shown and not taken last cycle
        for c in range(cycles):
            treadies = [c >= busy + 60 or rng.random() < 0.4 for _ in range(M)]
            for n in range(M):
                q = queues[n]
                offer = bool(q) and q[0][0] <= c
                ctx.set(dut.port(n, "in", "tvalid"), offer)
                ctx.set(dut.port(n, "in", "tlast"), rng.random() < 0.5)   # ignored: every beat is a packet
                if offer:
                    ctx.set(dut.port(n, "in", "tdest"), q[0][2])
                    ctx.set(dut.port(n, "in", "tdata"), q[0][1] | rng.randrange(2) << 15)
                ctx.set(dut.port(n, "out", "tready"), treadies[n])
            for n in range(M):
                q = queues[n]
                if q and q[0][0] <= c:
                    if ctx.get(dut.port(n, "in", "tready")):
                        injected[q.popleft()[1]] = c
                    else:
                        counts["full"] += 1
                pops = []
                for e in range(E):
                    p = net.ej[n][e]
                    used[c, n, e] = ctx.get(p.ready)
                    if ctx.get(p.valid) and used[c, n, e]:
                        pops.append((ctx.get(p.payload.src), ctx.get(p.payload.payload)))
                valid = ctx.get(dut.port(n, "out", "tvalid"))
                beat = (ctx.get(dut.port(n, "out", "tdest")), ctx.get(dut.port(n, "out", "tdata")))
                assert ctx.get(dut.port(n, "out", "tlast")) == 1
                if shown[n] is not None:                # AXI-Stream: held, and the same beat, until taken
                    assert valid and beat == shown[n]
                    counts["hold"] += 1
                if valid and treadies[n]:
                    assert pops == [beat]               # the beat is one FIFO's handshake
                    serial = beat[1] & 0x7FFF
                    assert serial not in got
                    got[serial] = (c, n, beat[0])
                else:
                    assert pops == []
                shown[n] = beat if valid and not treadies[n] else None
            await ctx.tick()

    _run(dut, tb)
    model = deflection_trace(planes, rows, cycles=cycles, E=E, link_stages=P - 1, ej_ready=used)
    assert len(model) == len(rows) == len(got) == len(injected)
    for d in model:
        assert (injected[d.serial], *got[d.serial]) == (d.injected, d.handshake, d.node, d.src), d
    assert counts["full"] and counts["hold"]


def _relabelled(planes, rng):
    """The same network with its nodes renamed: another plane set, other masks."""
    M = len(planes[0])
    pi = list(range(M))
    rng.shuffle(pi)
    out = [[0] * M for _ in planes]
    for y, row in enumerate(planes):
        for n, d in enumerate(row):
            out[y][pi[n]] = pi[d]
    return out


@pytest.mark.parametrize("kind,P", [("crossbar", 1), ("benes", 2), pytest.param("benes", 1, marks=pytest.mark.slow),
                                    pytest.param("crossbar", 2, marks=pytest.mark.slow),
                                    pytest.param("crossbar", 3, marks=pytest.mark.slow)])
def test_swap_in_traffic_without_drain(kind, P, capsys):
    M, S, E = 8, 2, 2
    rng = random.Random(41 + P)
    old = _planes(M, S)
    new = _relabelled(old, rng)
    assert productive_masks(new).tolist() != productive_masks(old).tolist()
    dut = DeflectionNetwork(old, ejection=E, width=12, stages=P, plane_kind=kind)
    pwrites, mwrites = dut.plane_set.writes(new), mask_writes(new)
    commit_at = max(len(pwrites), len(mwrites)) + 5      # the writes go in during traffic, then the commit
    top, K = (1 << dut.age_bits) - 1, dut.K
    busy = commit_at + 40
    cycles = busy + 40 * K                               # all ready from busy on: the network empties
    result = {}

    async def tb(ctx):
        pending = deque([[] for _ in range(K)])          # (node, output, flit) reaching a plane K cycles on
        queues = [[deque() for _ in range(E)] for _ in range(M)]
        sent, got, serial, before = [], [], 0, set()
        for c in range(cycles):
            planes = old if c <= commit_at else new       # active in cycle c
            masks = productive_masks(planes)
            slots = [[None] * S for _ in range(M)]
            for n, y, f in pending.popleft():
                slots[planes[y][n]][y] = f
            w = c < len(pwrites)
            ctx.set(dut.cfg.we, w)
            if w:
                ctx.set(dut.cfg.plane, pwrites[c][0])
                ctx.set(dut.cfg.addr, pwrites[c][1])
                ctx.set(dut.cfg.data, pwrites[c][2])
            w = c < len(mwrites)
            ctx.set(dut.rt.we, w)
            if w:
                ctx.set(dut.rt.node, mwrites[c][0])
                ctx.set(dut.rt.addr, mwrites[c][1])
                ctx.set(dut.rt.data, mwrites[c][2])
            ctx.set(dut.cfg.commit, c == commit_at)
            offers, ready = [], []
            for n in range(M):
                offer = Flit(rng.randrange(M), n, 0, serial % 4096) if c < busy and rng.random() < 0.5 else None
                serial += offer is not None
                probe = offer or Flit(0, n, 0, 0)
                ctx.set(dut.inj[n].valid, offer is not None)
                ctx.set(dut.inj[n].payload.dst, probe.dst)
                ctx.set(dut.inj[n].payload.payload, probe.payload)
                r = [c >= busy or rng.random() < 0.7 for _ in range(E)]
                for e in range(E):
                    ctx.set(dut.ej[n][e].ready, r[e])
                offers.append(offer)
                ready.append(r)
            arrived, ejected = [], []
            for n in range(M):
                room = [len(q) < EJECT_DEPTH for q in queues[n]]
                outs, ej, injected = route_step(n, slots[n], masks[n], offers[n], room, E, hop_cycles=K, age_max=top)
                assert ctx.get(dut.inj[n].ready) == any(f is None or f.dst == n for f in slots[n]) or not all(room)
                if offers[n] is not None:
                    assert ctx.get(dut.inj[n].ready) == injected
                if injected:
                    sent.append((n, offers[n].dst, offers[n].payload))
                    if c <= commit_at:
                        before.add(sent[-1])
                for e in range(E):
                    q = queues[n][e]
                    assert ctx.get(dut.ej[n][e].valid) == bool(q)
                    if q:
                        assert (ctx.get(dut.ej[n][e].payload.src), ctx.get(dut.ej[n][e].payload.payload)) == \
                            (q[0].src, q[0].payload)
                arrived += [(n, y, f) for y, f in enumerate(outs) if f is not None]
                ejected.append(ej)
            pending.append(arrived)
            await ctx.tick()
            for n in range(M):
                for e in range(E):
                    q = queues[n][e]
                    if q and ready[n][e]:
                        f = q.popleft()
                        got.append((f.src, n, f.payload))
                        if (f.src, n, f.payload) in before:
                            result["last_old"] = c
                    if ejected[n][e] is not None:
                        q.append(ejected[n][e])
        assert sorted(sent) == sorted(got)              # zero loss, zero misdelivery, nothing twice
        assert len(set(sent)) == len(sent) and len(before) > 2 * M and len(sent) > len(before) + M
        result["drain"] = result["last_old"] - commit_at

    _run(dut, tb)
    with capsys.disabled():
        print(f"\n{kind} P={P}: the last flit injected before the commit was taken {result['drain']} cycles after it")


def test_stream_drops_a_beat_for_no_node():
    """LDI(6,2): ``tdest`` 7 is taken (``tready`` high), dropped, and ``dest_error`` rises and stays; the
    next beat, to node 5, arrives there with its data and source."""
    dut = DeflectionStream(_planes(6, 2), ejection=1, width=8)
    seen = []

    async def tb(ctx):
        for n in range(6):
            ctx.set(dut.port(n, "out", "tready"), 1)
        ctx.set(dut.port(2, "in", "tvalid"), 1)
        ctx.set(dut.port(2, "in", "tdest"), 7)
        ctx.set(dut.port(2, "in", "tdata"), 0xAB)
        assert ctx.get(dut.port(2, "in", "tready")) and not ctx.get(dut.dest_error)
        await ctx.tick()
        ctx.set(dut.port(2, "in", "tdest"), 5)
        ctx.set(dut.port(2, "in", "tdata"), 0xCD)
        assert ctx.get(dut.dest_error) and ctx.get(dut.port(2, "in", "tready"))
        await ctx.tick()
        ctx.set(dut.port(2, "in", "tvalid"), 0)
        for _ in range(12):
            assert ctx.get(dut.dest_error)
            seen.extend((n, ctx.get(dut.port(n, "out", "tdest")), ctx.get(dut.port(n, "out", "tdata")))
                        for n in range(6) if ctx.get(dut.port(n, "out", "tvalid")))
            await ctx.tick()

    _run(dut, tb)
    assert seen == [(5, 2, 0xCD)]
