"""The network with stream endpoints (issue 24) in the Amaranth simulator:
user streams with random injection gaps and random ejection back-pressure
deliver every packet once, whole and in order, to its node; with ``tready``
always high the delivery cycles are the simulator's (``permnet.sim.netsim``
with one lane and one ejection port per node) for the injection cycles the
streams really had."""

import random

import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from permnet.gen.routing import tables
from permnet.hdl.netstream import NetworkStream
from permnet.hdl.routes import NetworkRoutes
from permnet.sim import netsim

W = 16


def make_packets(M, per_node, max_size, seed):
    """Per source node a list of ``(dst, words)``; the first word is a unique packet number."""
    rng = random.Random(seed)
    out, uid = {}, 0
    for n in range(M):
        out[n] = []
        for _ in range(per_node):
            words = [uid] + [rng.randrange(1 << W) for _ in range(rng.randint(1, max_size) - 1)]
            out[n].append((rng.randrange(M), words))
            uid += 1
    return out


def run_streams(dut, packets, *, seed, gap, ready, max_cycles):
    """Drive every node's injection stream (a beat held until taken; before each beat an idle
    gap with probability ``gap``) and ejection ``tready`` (high with probability ``ready``).
    Returns ``(created, got)``: ``created[uid] = (cycle after its last beat was taken, src,
    dst, size)``; ``got[node]`` the ejected beats ``(cycle, tdest, tdata, tlast)``."""
    rng = random.Random(seed)
    M = dut.M
    created, got = {}, {n: [] for n in range(M)}
    total = sum(len(w) for p in packets.values() for _, w in p)
    state = {"seen": 0}

    async def tb(ctx):
        cur = {n: [0, 0] for n in range(M)}           # packet, beat
        for cyc in range(max_cycles):
            for n in range(M):
                p, b = cur[n]
                show = p < len(packets[n]) and rng.random() >= gap
                ctx.set(dut.port(n, "in", "tvalid"), show)
                if show:
                    d, words = packets[n][p]
                    ctx.set(dut.port(n, "in", "tdata"), words[b])
                    ctx.set(dut.port(n, "in", "tlast"), b == len(words) - 1)
                    ctx.set(dut.port(n, "in", "tdest"), d)
                ctx.set(dut.port(n, "out", "tready"), rng.random() < ready)
            for n in range(M):
                p, b = cur[n]
                if ctx.get(dut.port(n, "in", "tvalid")) and ctx.get(dut.port(n, "in", "tready")):
                    d, words = packets[n][p]
                    if b == len(words) - 1:
                        created[words[0]] = (cyc + 1, n, d, len(words))
                        cur[n] = [p + 1, 0]
                    else:
                        cur[n] = [p, b + 1]
                if ctx.get(dut.port(n, "out", "tvalid")) and ctx.get(dut.port(n, "out", "tready")):
                    got[n].append((cyc, ctx.get(dut.port(n, "out", "tdest")), ctx.get(dut.port(n, "out", "tdata")),
                                   ctx.get(dut.port(n, "out", "tlast"))))
                    state["seen"] += 1
            assert not ctx.get(dut.dest_error)
            if state["seen"] == total:
                return
            await ctx.tick()
        raise AssertionError(f"{state['seen']} of {total} flits delivered in {max_cycles} cycles")
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return created, got


def split_packets(got):
    """Per node the ejected packets ``(src, words, cycle after the tail)``, cut at ``tlast``;
    the beats of one packet carry one ``tdest`` (no interleaving on a stream)."""
    out = {}
    for n, beats in got.items():
        cur, out[n] = [], []
        for cyc, src, word, last in beats:
            cur.append((src, word))
            if last:
                assert len({s for s, _ in cur}) == 1, f"node {n}: packets interleaved: {cur}"
                out[n].append((cur[0][0], [w for _, w in cur], cyc + 1))
                cur = []
        assert not cur, f"node {n}: a packet without its tlast"
    return out


def network(topo, M, S, router, buffer=4, switching="vct", plane_set=None):
    t = tables.network(topo, M, S).table
    routes = NetworkRoutes(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), router)
    return t, NetworkStream(routes, vcs=t.max_hops, buffer=buffer, wormhole=switching == "wormhole", flit_width=W,
                            max_packet=4, plane_set=plane_set)


def check_delivery(packets, got):
    """Every packet exactly once at its destination, from its source, with its words."""
    sent = {words[0]: (n, d, words) for n, p in packets.items() for d, words in p}
    seen = {}
    for node, pkts in split_packets(got).items():
        for src, words, _ in pkts:
            uid = words[0]
            assert uid in sent and uid not in seen, f"packet {uid} unknown or delivered twice"
            seen[uid] = True
            assert sent[uid] == (src, node, words), (uid, sent[uid], (src, node, words))
    assert len(seen) == len(sent)


@pytest.mark.parametrize("topo,M,S,router,switching,buffer", [("ldi", 9, 3, "nexthop", "vct", 4),
                                                              ("ldi", 8, 2, "table", "wormhole", 2)])
def test_back_pressure_delivers_every_packet_intact(topo, M, S, router, switching, buffer):
    """Random injection gaps and ejection tready (high 40 % of the cycles): every packet once,
    at its destination, its tdest the source, its words in order; a stalled ejection holds the
    flits (wormhole packets longer than the 2-flit buffers included)."""
    _, dut = network(topo, M, S, router, buffer, switching)
    packets = make_packets(M, 5, 4, seed=M)
    created, got = run_streams(dut, packets, seed=M + 1, gap=0.3, ready=0.4, max_cycles=1500)
    check_delivery(packets, got)
    stalled = sum(1 for beats in got.values() for (a, *_), (b, *_) in zip(beats, beats[1:]) if b > a + 1)
    assert stalled > 0                                   # back-pressure really gapped the ejection


@pytest.mark.parametrize("topo,M,S,router,switching,buffer", [("ldi", 9, 3, "nexthop", "vct", 4),
                                                              ("ldi", 8, 2, "table", "wormhole", 2)])
def test_cycle_exact_with_the_simulator(topo, M, S, router, switching, buffer):
    """tready always high, random injection gaps: each packet's delivery cycle (the cycle after
    its tail leaves) is the simulator's for a trace that creates it the cycle after its last
    beat was taken, with one lane and one ejection port per node."""
    t, dut = network(topo, M, S, router, buffer, switching)
    packets = make_packets(M, 6, 4, seed=2 * M)
    created, got = run_streams(dut, packets, seed=3, gap=0.5, ready=1.0, max_cycles=1500)
    check_delivery(packets, got)
    done = {words[0]: cyc for pk in split_packets(got).values() for _, words, cyc in pk}
    order = sorted(created, key=lambda u: (created[u][0], created[u][1]))
    text = "".join("{} {} {} {}\n".format(*created[u]) for u in order)
    net = tables.network(topo, M, S)
    ref = netsim.simulate(net, netsim.parse_trace(text, M), 1.0,
                          netsim.Config(vcs=t.max_hops, buffer=buffer, switching=switching, lanes=1,
                                        ejection="port", log=len(order) + 1))
    want = {order[int(a[0])]: int(a[4]) for a in ref.log}
    assert len(want) == len(order) and done == want
    contention = sum(int(a[4] - a[3]) > int(a[5] + a[6]) for a in ref.log)
    assert contention > 0                                # the arbiters and the ejection port were exercised


class RegisteredPlanes(wiring.Component):
    """A stand-in for a run-time plane set: the planes' permutation behind one register stage
    each way (fwd and credits), to show that the plane hook takes any component with the
    ``fwd_i/fwd_o/bwd_i/bwd_o`` arrays, latency included."""

    def __init__(self, M, S, fw, bw, planes):
        self.M, self.S, self.planes = M, S, planes
        super().__init__({"fwd_i": In(fw).array(S, M), "fwd_o": Out(fw).array(S, M),
                          "bwd_i": In(bw).array(S, M), "bwd_o": Out(bw).array(S, M)})

    def elaborate(self, platform):
        m = Module()
        for y in range(self.S):
            for n in range(self.M):
                d = self.planes[y][n]
                m.d.sync += [self.fwd_o[y][d].eq(self.fwd_i[y][n]), self.bwd_o[y][n].eq(self.bwd_i[y][d])]
        return m


def test_a_registered_plane_set_drops_in():
    t = tables.network("ldi", 9, 3).table
    planes = t.planes.tolist()
    _, dut = network("ldi", 9, 3, "nexthop",
                     plane_set=lambda fw, bw: RegisteredPlanes(9, 3, fw, bw, planes))
    packets = make_packets(9, 4, 4, seed=5)
    _, got = run_streams(dut, packets, seed=6, gap=0.2, ready=0.6, max_cycles=1500)
    check_delivery(packets, got)


def test_bad_destination_and_parameters():
    from permnet.gen.errors import PermnetError

    t, dut = network("ldi", 9, 3, "nexthop")
    seen = []

    async def tb(ctx):
        for word, last, dest in [(1, 0, 12), (2, 1, 12), (3, 1, 4)]:    # node 12 does not exist
            ctx.set(dut.n0_in_tvalid, 1)
            ctx.set(dut.n0_in_tdata, word)
            ctx.set(dut.n0_in_tlast, last)
            ctx.set(dut.n0_in_tdest, dest)
            await ctx.tick()
        ctx.set(dut.n0_in_tvalid, 0)
        ctx.set(dut.n4_out_tready, 1)
        for _ in range(20):
            if ctx.get(dut.n4_out_tvalid):
                seen.append((ctx.get(dut.n4_out_tdata), ctx.get(dut.n4_out_tdest)))
            await ctx.tick()
        seen.append(ctx.get(dut.dest_error))
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    assert seen == [(3, 0), 1]
    routes = NetworkRoutes(t.planes.tolist(), t.length.tolist(), t.hops.tolist())
    with pytest.raises(PermnetError, match="cut-through"):
        NetworkStream(routes, vcs=2, buffer=4, max_packet=8)
    with pytest.raises(PermnetError, match="flit-width"):
        NetworkStream(routes, vcs=2, buffer=4, flit_width=0)
