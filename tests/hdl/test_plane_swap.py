"""A plane swap mid-traffic through the drain protocol (issue 24, item 4):
random packets through the AXI-Stream endpoints, the new planes and routes
written into the shadows while traffic flows, ``swap_req`` in the middle;
every packet is delivered exactly once, to its destination, with its words;
no packet starts while the network drains; ``swap_cycles`` is what the drain
model gives (the commit is the cycle after the last flit of the packets the
routers held at the request leaves, at least one cycle after the request);
the read-back shows the new planes and routes active."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from permnet.gen.planes import runtime
from permnet.gen.planes.decompose import ldi_planes
from permnet.gen.planes.faults import fault_report
from permnet.gen.routing import tables
from permnet.hdl.netip import plane_set_factory
from permnet.hdl.netstream import NetworkStream
from permnet.hdl.routes import NetworkRoutes
from permnet.planeload import swap_load

W = 16


def swap_network(M, S, router, kind, planes=None, link_stages=0, allocator="combined", plane_stages=0, lanes=1):
    t = tables.network("ldi", M, S).table
    planes = t.planes if planes is None else np.asarray(planes)
    t = tables.ldi_table(M, S, planes)
    routes = NetworkRoutes(planes.tolist(), t.length.tolist(), t.hops.tolist(), router, loadable=True,
                           max_hops=t.max_hops)
    return routes, NetworkStream(routes, vcs=t.max_hops, buffer=4, flit_width=W, max_packet=4,
                                 plane_set=plane_set_factory(kind, planes.tolist(), register=plane_stages == 1),
                                 swap=True,
                                 link_stages=link_stages, allocator=allocator, lanes=lanes)


def packets_for(nodes, per_node, seed, first_uid):
    """Per source node ``(dst, words)`` among ``nodes``; the first word is a unique packet number."""
    rng = random.Random(seed)
    out, uid = {}, first_uid
    for n in nodes:
        out[n] = []
        for _ in range(per_node):
            out[n].append((rng.choice(nodes), [uid] + [rng.randrange(1 << W) for _ in range(rng.randint(0, 3))]))
            uid += 1
    return out


def run_swap(dut, phases, load, swap_at, *, seed, gap=0.3, ready=0.7, max_cycles=1500, readback=(),
             request="swap_req"):
    """Drive ``phases`` (per node packet lists, one after the other on each node) through the
    streams; write ``load`` (the plane and route words, one of each per cycle) from cycle 0
    and raise ``request`` (``swap_req``, or ``cfg.commit``, its synonym) in cycle
    ``swap_at``. Returns a record of what happened (see the keys below)."""
    rng = random.Random(seed)
    M = dut.M
    queue = [(n, d, words) for phase in phases for n, p in phase.items() for d, words in p]
    per_node = {n: [] for n in range(M)}
    for phase in phases:
        for n, p in phase.items():
            per_node[n] += p
    total = sum(len(w) for _, _, w in queue)
    rec = {"beats": {n: [] for n in range(M)}, "taken": {n: [] for n in range(M)}, "done": [], "draining": []}

    async def tb(ctx):
        cur = {n: [0, 0] for n in range(M)}
        shown = {}
        seen = 0
        pw, rw = list(load.planes), list(load.routes)
        for cyc in range(max_cycles):
            ctx.set(dut.swap_req if request == "swap_req" else dut.cfg.commit, int(cyc == swap_at))
            ctx.set(dut.cfg.we, 0)
            ctx.set(dut.rt.we, 0)
            if pw:
                y, a, d = pw.pop(0)
                ctx.set(dut.cfg.plane, y), ctx.set(dut.cfg.addr, a), ctx.set(dut.cfg.data, d), ctx.set(dut.cfg.we, 1)
            if rw:
                n, a, d = rw.pop(0)
                ctx.set(dut.rt.node, n), ctx.set(dut.rt.addr, a), ctx.set(dut.rt.data, d), ctx.set(dut.rt.we, 1)
            show = {}
            for n in range(M):
                p, b = cur[n]
                show[n] = p < len(per_node[n]) and (shown.get(n) == (p, b) or rng.random() >= gap)
                ctx.set(dut.port(n, "in", "tvalid"), int(show[n]))
                if show[n]:
                    shown[n] = (p, b)
                    d, words = per_node[n][p]
                    ctx.set(dut.port(n, "in", "tdata"), words[b])
                    ctx.set(dut.port(n, "in", "tlast"), int(b == len(words) - 1))
                    ctx.set(dut.port(n, "in", "tdest"), d)
                ctx.set(dut.port(n, "out", "tready"), int(rng.random() < ready))
            for n in range(M):
                if show[n] and ctx.get(dut.port(n, "in", "tready")):
                    p, b = cur[n]
                    cur[n] = [p + 1, 0] if b == len(per_node[n][p][1]) - 1 else [p, b + 1]
                if ctx.get(dut.port(n, "out", "tready")) and ctx.get(dut.port(n, "out", "tvalid")):
                    rec["beats"][n].append((cyc, ctx.get(dut.port(n, "out", "tdest")),
                                            ctx.get(dut.port(n, "out", "tdata")), ctx.get(dut.port(n, "out", "tlast"))))
                    seen += 1
                inj = dut.ip.inj[n]                           # the router's descriptor port: a packet starts
                if ctx.get(inj.valid) and ctx.get(inj.ready):
                    rec["taken"][n].append(cyc)
            if ctx.get(dut.swap_done):
                rec["done"].append(cyc)
            if ctx.get(dut.swap_draining):
                rec["draining"].append(cyc)
            await ctx.tick()
            if seen == total and not pw and not rw and rec["done"]:
                break
        else:
            raise AssertionError(f"{seen} of {total} flits delivered in {max_cycles} cycles")
        rec["swap_cycles"] = ctx.get(dut.swap_cycles)
        # the cfg and rt read-backs side by side, a cycle per pair (the ports are independent)
        cfg_keys = [key for kind, key in readback if kind == "cfg"]
        rt_keys = [key for kind, key in readback if kind == "rt"]
        for i in range(max(len(cfg_keys), len(rt_keys))):
            pair = [(kind, port, sel, keys[i]) for kind, port, sel, keys in
                    (("cfg", dut.cfg, dut.cfg.plane, cfg_keys), ("rt", dut.rt, dut.rt.node, rt_keys)) if i < len(keys)]
            for _, port, sel, key in pair:
                ctx.set(sel, key[0])
                ctx.set(port.addr, key[1])
            await ctx.tick()
            for kind, port, _, key in pair:
                rec[kind, key] = ctx.get(port.rdata)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    rec["per_node"] = per_node
    return rec


def delivered(rec, M):
    """Per packet uid: ``(src, dst, words, cycle of its last beat)``, checking that beats of one
    packet are not interleaved with another's on a stream."""
    out = {}
    for node, beats in rec["beats"].items():
        cur = []
        for cyc, src, word, last in beats:
            cur.append((src, word))
            if last:
                assert len({s for s, _ in cur}) == 1, f"node {node}: packets interleaved"
                uid = cur[0][1]
                assert uid not in out, f"packet {uid} delivered twice"
                out[uid] = (cur[0][0], node, [w for _, w in cur], cyc)
                cur = []
        assert not cur, f"node {node}: a packet without its tlast"
    return out


def check_swap(rec, M, swap_at, credit_lag=0):
    """Every packet once, intact, at its destination; the drain and the model of ``swap_cycles``:
    the network is idle from the cycle after the last held packet's tail beat, or ``credit_lag``
    cycles later when its last credit is still on its way then (a packet to its own node
    returns none), and not before the cycle after the request; the commit is a cycle after
    that (the controller sees idle through a register). A pop in cycle t raises its credit in
    t; a plane register holds it in t + 1; the two-stage ejection register shows the tail
    beat in t + 1: the lag is plane stages minus ejection stages, at least 0."""
    got = delivered(rec, M)
    sent = {words[0]: (n, d, words) for n, p in rec["per_node"].items() for d, words in p}
    assert set(got) == set(sent)
    for uid, (src, dst, words, _) in got.items():
        assert sent[uid] == (src, dst, words), uid
    # the packets the routers held at the request: the first len(taken <= swap_at) of each node
    held = [rec["per_node"][n][i] for n in range(M) for i, c in enumerate(rec["taken"][n]) if c <= swap_at]
    held_last = [got[words[0]][3] for _, words in held]
    idle = max([swap_at + 1] + [got[words[0]][3] + 1 + (credit_lag if got[words[0]][0] != d else 0)
                                for d, words in held])
    commit = idle + 1
    assert rec["swap_cycles"] == commit - swap_at
    assert rec["draining"] == list(range(swap_at + 1, commit + 1))
    assert rec["done"] == [commit + 1]
    starts = [c for n in range(M) for c in rec["taken"][n]]
    assert not [c for c in starts if swap_at < c <= commit]          # nothing started while draining
    assert len(held_last) > 0 and commit > swap_at + 2                # the drain really waited for traffic
    assert [c for c in starts if c > commit]                          # and traffic resumed after it
    return commit


@pytest.mark.parametrize("allocator,plane_stages,lanes", [
    # the combined allocator (the default) also swaps in test_swap_to_a_faults_reconfiguration_loses_nothing;
    # two-stage under -m slow: separate-va (in make test) is two-stage with VC allocation a cycle
    # ahead, the same ejection register and registered offers for the drain to wait for
    pytest.param("combined", 0, 1, marks=pytest.mark.slow), pytest.param("input-first", 0, 1, marks=pytest.mark.slow),
    pytest.param("two-stage", 0, 1, marks=pytest.mark.slow),
    pytest.param("two-stage", 1, 1, marks=pytest.mark.slow), pytest.param("combined", 1, 1, marks=pytest.mark.slow),
    pytest.param("separate-va", 1, 1, marks=pytest.mark.slow), ("separate-va", 1, 2)])
def test_swap_to_another_decomposition_loses_nothing(allocator, plane_stages, lanes):
    """LDI(9,3), next-hop router, crossbar planes: the residue decomposition swapped for the
    colouring one (other planes, so other link-to-plane maps) mid-traffic; with each
    allocator (input-first: the buffers in LUT RAM drain as the flip-flops do; two-stage and
    separate-va: their ejection register too), and with registered planes (the drain waits
    for their registers); separate-va also with two injection lanes."""
    M, S = 9, 3
    routes, dut = swap_network(M, S, "nexthop", "crossbar", allocator=allocator, plane_stages=plane_stages,
                               lanes=lanes)
    new = ldi_planes(M, S, "colouring").planes
    assert not np.array_equal(new, np.asarray(routes.planes))
    load = swap_load(new, routes, "crossbar")
    nodes = list(range(M))
    rec = run_swap(dut, [packets_for(nodes, 7, seed=1, first_uid=0)], load, swap_at=26, seed=2,
                   readback=[("cfg", (y, a)) for y in range(S) for a in range(M)]
                   + [("rt", (n, L)) for n in range(M) for L in range(S)])
    check_swap(rec, M, 26, max(0, plane_stages - (allocator in ("two-stage", "separate-va"))))
    for y in range(S):
        assert runtime.decode_readback("crossbar", M, [rec["cfg", (y, a)] for a in range(M)]) == new[y].tolist()
    lp = tables.link_planes(M, S, new)
    assert all(rec["rt", (n, L)] == lp[n, L] for n in range(M) for L in range(S))


def test_swap_to_a_faults_reconfiguration_loses_nothing():
    """LDI(9,3), table router, Beneš planes: node 4 fails; its traffic is over before the
    swap; the swap to LDI(8,3) re-embedded on the survivors (``permnet faults``, Melhem
    Section 4; shortest routes, loaded as changed words only) happens while the survivors
    exchange packets, which are all delivered, before and after. The swap is requested
    through ``cfg.commit``."""
    M, S, dead = 9, 3, 4
    routes, dut = swap_network(M, S, "table", "benes")
    new = fault_report(M, S, [dead]).reembedded.planes
    load = swap_load(new, routes, "benes", only_changes=True)
    survivors = [n for n in range(M) if n != dead]
    swap_at = max(len(load.planes), len(load.routes)) + 2
    rec = run_swap(dut, [packets_for(list(range(M)), 3, seed=3, first_uid=0),
                         packets_for(survivors, 10, seed=4, first_uid=100)], load, swap_at, seed=5,
                   readback=[("cfg", (y, a)) for y in range(S) for a in range(dut.ip.planes.entries)]
                   + [("rt", (n, a)) for n, a, _ in load.routes[::7]], request="cfg.commit")
    first = {n: [d for d, _ in rec["per_node"][n][:3]] for n in range(M)}
    # the failed node's traffic had started (so left the injectors) before the request
    assert all(rec["taken"][n][i] <= swap_at for n in range(M) for i in range(3)
               if n == dead or first[n][i] == dead)
    check_swap(rec, M, swap_at)
    for y in range(S):
        words = [rec["cfg", (y, a)] for a in range(dut.ip.planes.entries)]
        assert runtime.decode_readback("benes", M, words) == new[y].tolist()
    assert all(rec["rt", (n, a)] == d for n, a, d in load.routes[::7])


@pytest.mark.slow
def test_swap_with_link_stages_waits_for_the_link_registers():
    """LDI(8,2), table router, crossbar planes, one register on every link (``idle`` must see
    the flits in them): the planes relabelled (plane 0 <-> plane 1), routes reloaded."""
    M, S = 8, 2
    routes, dut = swap_network(M, S, "table", "crossbar", link_stages=1)
    new = np.asarray(routes.planes)[[1, 0]]
    load = swap_load(new, routes, "crossbar", only_changes=True)
    swap_at = max(len(load.planes), len(load.routes), 30)
    rec = run_swap(dut, [packets_for(list(range(M)), 24, seed=7, first_uid=0)], load, swap_at, seed=8,
                   readback=[("cfg", (y, a)) for y in range(S) for a in range(M)])
    check_swap(rec, M, swap_at)
    for y in range(S):
        assert runtime.decode_readback("crossbar", M, [rec["cfg", (y, a)] for a in range(M)]) == new[y].tolist()


@pytest.mark.parametrize("busy,bits", [(5, 16), (9, 2)])
def test_swap_control_timing(busy, bits):
    """The controller alone: ``idle`` low for ``busy`` paused cycles after the request; a second
    request while draining is ignored; one commit, in the first idle paused cycle; ``done``
    the cycle after; ``cycles`` = commit - request, saturating at ``2**bits - 1``; each of the
    three copies of ``pause`` (one register each) equals ``draining`` in every cycle."""
    from permnet.hdl.swapctl import SwapControl

    dut = SwapControl(bits, copies=3)
    trace = []

    async def tb(ctx):
        for cyc in range(busy + 8):
            ctx.set(dut.req, int(cyc in (2, 4)))
            ctx.set(dut.idle, int(not 3 <= cyc < 3 + busy))
            assert ctx.get(dut.pause) == (0b111 if ctx.get(dut.draining) else 0), cyc
            trace.append((cyc, ctx.get(dut.pause), ctx.get(dut.commit), ctx.get(dut.done)))
            await ctx.tick()
        trace.append(ctx.get(dut.cycles))
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    commit = 3 + busy
    assert [c for c, p, _, _ in trace[:-1] if p] == list(range(3, commit + 1))
    assert [c for c, _, k, _ in trace[:-1] if k] == [commit]
    assert [c for c, _, _, d in trace[:-1] if d] == [commit + 1]
    assert trace[-1] == min(commit - 2, (1 << bits) - 1)
