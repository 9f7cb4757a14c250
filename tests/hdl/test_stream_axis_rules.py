"""The stream network's output ports keep the AXI-Stream rules under random
back-pressure (issue 42), for every allocator, in the Amaranth simulator:
once ``tvalid`` is high it stays high, with ``tdata``, ``tlast`` and
``tdest`` unchanged, until the cycle ``tready`` takes the beat; and
``tvalid`` does not depend on ``tready`` in the same cycle. Every packet is
still delivered once, at its destination, from its source, whole.

The input-first allocator broke the first rule: while the ejection port held
a flit the stream had not taken, the VC's input port could offer another of
its VCs to a link, and the flit (``tvalid``) was withdrawn."""

import random

import pytest
from amaranth.sim import Simulator

from permnet.gen.routing import tables
from permnet.hdl.netstream import NetworkStream
from permnet.hdl.routes import NetworkRoutes

W = 16
FIELDS = ("tdata", "tlast", "tdest")


def run(dut, M, packets, *, seed, ready_p=0.5, max_cycles=3000):
    """Inject ``packets`` (per node a list of ``(dst, words)``), each beat held until taken,
    with random idle cycles; ``tready`` high with probability ``ready_p``. Returns
    ``(violations, got)``: the rule breaks seen, and per node the taken beats
    ``(tdest, tdata, tlast)``."""
    rng = random.Random(seed)
    violations, got = [], {n: [] for n in range(M)}

    async def tb(ctx):
        cur = {n: [0, 0] for n in range(M)}        # packet, beat of each node's stream
        shown = {n: False for n in range(M)}
        prev = {n: None for n in range(M)}
        total = sum(len(w) for p in packets.values() for _, w in p)
        for cycle in range(max_cycles):
            for n in range(M):
                p, b = cur[n]
                show = p < len(packets[n]) and (shown[n] or rng.random() < 0.7)
                shown[n] = show
                ctx.set(dut.port(n, "in", "tvalid"), show)
                if show:
                    d, words = packets[n][p]
                    ctx.set(dut.port(n, "in", "tdata"), words[b])
                    ctx.set(dut.port(n, "in", "tlast"), b == len(words) - 1)
                    ctx.set(dut.port(n, "in", "tdest"), d)
            for n in range(M):
                ready = rng.random() < ready_p
                ctx.set(dut.port(n, "out", "tready"), 1 - ready)
                other = ctx.get(dut.port(n, "out", "tvalid"))
                ctx.set(dut.port(n, "out", "tready"), ready)
                now = {f: ctx.get(dut.port(n, "out", f)) for f in ("tvalid", *FIELDS)}
                if now["tvalid"] != other:
                    violations.append(f"cycle {cycle} node {n}: tvalid follows tready")
                was = prev[n]
                if was is not None and was["tvalid"] and not was["ready"]:
                    for f in ("tvalid", *FIELDS):
                        if now[f] != was[f]:
                            violations.append(f"cycle {cycle} node {n}: {f} {was[f]} -> {now[f]} before the handshake")
                prev[n] = {**now, "ready": ready}
                if now["tvalid"] and ready:
                    got[n].append((now["tdest"], now["tdata"], now["tlast"]))
            for n in range(M):
                if shown[n] and ctx.get(dut.port(n, "in", "tready")):
                    p, b = cur[n]
                    cur[n] = [p + 1, 0] if b == len(packets[n][p][1]) - 1 else [p, b + 1]
                    shown[n] = False
            await ctx.tick()
            if sum(len(g) for g in got.values()) == total:
                break

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return violations, got


def check_delivery(packets, got, M):
    """Every packet once, at its destination, ``tdest`` its source, its words in order (the first
    word is a unique packet number)."""
    sent = {words[0]: (n, d, words) for n, p in packets.items() for d, words in p}
    seen = set()
    for node, beats in got.items():
        cur = []
        for src, word, last in beats:
            cur.append((src, word))
            if last:
                uid = cur[0][1]
                assert uid in sent and uid not in seen, f"packet {uid} unknown or delivered twice"
                assert len({s for s, _ in cur}) == 1, f"node {node}: packets interleaved: {cur}"
                seen.add(uid)
                assert sent[uid] == (cur[0][0], node, [w for _, w in cur])
                cur = []
        assert not cur, f"node {node}: a packet without its tlast"
    assert seen == set(sent), f"{len(sent) - len(seen)} packets never arrived"


# make test runs the input-first ones on LDI(4,2) (each broke the rule before the fix: with the
# ``estall`` register tied to 0 both report tvalid withdrawn before the handshake); the others,
# and input-first wormhole on LDI(8,2), under -m slow
@pytest.mark.parametrize("M,allocator,switching,buffer,lanes", [
    (4, "input-first", "vct", 4, 1),
    (4, "input-first", "wormhole", 2, 1),
    pytest.param(8, "input-first", "wormhole", 2, 1, marks=pytest.mark.slow),
    pytest.param(8, "combined", "vct", 4, 1, marks=pytest.mark.slow),
    pytest.param(8, "two-stage", "wormhole", 2, 2, marks=pytest.mark.slow),
    pytest.param(8, "separate-va", "vct", 4, 1, marks=pytest.mark.slow),
])
def test_output_streams_keep_the_axi_stream_rules(M, allocator, switching, buffer, lanes):
    S = 2
    t = tables.network("ldi", M, S).table
    routes = NetworkRoutes(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), "table")
    dut = NetworkStream(routes, vcs=t.max_hops, buffer=buffer, wormhole=switching == "wormhole", flit_width=W,
                        max_packet=4, allocator=allocator, lanes=lanes)
    rng = random.Random(7)
    packets, uid = {}, 0
    for n in range(M):
        packets[n] = []
        for _ in range(24 // M):
            packets[n].append((rng.randrange(M), [uid] + [rng.randrange(1 << W) for _ in range(rng.randint(0, 3))]))
            uid += 1
    violations, got = run(dut, M, packets, seed=11)
    assert not violations, violations[:5]
    check_delivery(packets, got, M)
