"""The RTL network (issue 14) against the cycle-level simulator, cycle for
cycle: the same packets delivered (tail ejected) at the same cycles, through
the Amaranth simulator."""

import numpy as np
import pytest
from amaranth.sim import Simulator

from permnet.gen.routing import tables
from permnet.hdl.network import NetworkRTL, flit_payload
from permnet.sim import netsim


def random_trace(M, n, span, max_size, seed):
    rng = np.random.default_rng(seed)
    rows, used = [], set()
    while len(rows) < n:
        c, s, d, z = int(rng.integers(0, span)), *map(int, rng.integers(0, M, 2)), int(rng.integers(1, max_size + 1))
        if (c, s) not in used:                      # the RTL generator: one packet per node per cycle
            used.add((c, s))
            rows.append((c, s, d, z))
    return rows


def rtl_deliveries(dut, M, max_cycles, flits=None, inject=None):
    """{serial: delivery cycle} and the sticky error; with a payload, every ejected flit's
    ``(serial, idx, payload)`` is appended to ``flits``; ``inject(ctx)`` runs after every tick."""
    got = {}
    state = {}

    async def tb(ctx):
        for _ in range(max_cycles):
            cyc = ctx.get(dut.cycle)
            for n in range(M):
                for k in range(dut.K):
                    if flits is not None and ctx.get(dut.eject_valid[n][k]):
                        flits.append((ctx.get(dut.eject_serial[n][k]), ctx.get(dut.eject_idx[n][k]),
                                      ctx.get(dut.eject_payload[n][k])))
                    if ctx.get(dut.tail_valid[n][k]):
                        s = ctx.get(dut.tail_serial[n][k])
                        assert s not in got, f"packet {s} delivered twice"
                        got[s] = cyc + 1
            if ctx.get(dut.done):
                state["error"] = ctx.get(dut.error)
                return
            await ctx.tick()
            if inject is not None:
                inject(ctx)
        raise AssertionError("RTL did not deliver every packet")
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return got, state.get("error")


@pytest.mark.parametrize("topo,M,S,n,span,size,buffer,switching,routing,router", [
    ("ldi", 9, 3, 60, 25, 4, 4, "vct", "family", "nexthop"),     # dense: contention, round robin, credits
    pytest.param("ldi", 8, 2, 40, 20, 3, 4, "vct", "family", "nexthop",     # h = 3: routes that pass through dst
                 marks=pytest.mark.slow),
    # the table router: cycle-exact in make test through test_network_planes (LDI(9,3), Beneš planes)
    pytest.param("ldi", 9, 3, 60, 25, 4, 4, "vct", "family", "table", marks=pytest.mark.slow),
    pytest.param("ldi", 9, 3, 50, 30, 4, 2, "wormhole", "family", "nexthop",   # packets longer than the buffers
                 marks=pytest.mark.slow),
    pytest.param("ldi", 16, 4, 50, 30, 3, 4, "vct", "family", "nexthop", marks=pytest.mark.slow),
    # 64 routers of 24 inputs: about 4 min and 5.4 GB in the Amaranth simulator
    pytest.param("ldi", 64, 8, 150, 12, 3, 4, "vct", "family", "nexthop", marks=pytest.mark.slow),
    pytest.param("debruijn", 8, 2, 40, 20, 3, 4, "vct", "shortest", "table", marks=pytest.mark.slow),
])
def test_rtl_matches_the_simulator_cycle_for_cycle(topo, M, S, n, span, size, buffer, switching, routing, router):
    net = tables.network(topo, M, S, routing)
    t = net.table
    rows = random_trace(M, n, span, size, seed=M + n)
    V = t.max_hops
    text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
    ref = netsim.simulate(net, netsim.parse_trace(text, M), 1.0,
                          netsim.Config(vcs=V, buffer=buffer, switching=switching, log=10 * n))
    want = {int(a[0]): int(a[4]) for a in ref.log}
    assert len(want) == n
    contention = sum(int(a[4] - a[3]) > int(a[5] + a[6]) for a in ref.log)
    assert contention > 0                                    # the trace really exercises arbitration
    expected = [want[i] for i in range(n)]
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), rows, vcs=V, buffer=buffer,
                     wormhole=switching == "wormhole", expected=expected, router=router)
    got, error = rtl_deliveries(dut, M, ref.cycles + 5)
    assert got == want and error == 0


def test_checker_flags_a_wrong_expectation():
    # LDI(4,2): the smallest network (the Amaranth simulator's build of the network is most of the cost)
    net = tables.network("ldi", 4, 2)
    t = net.table
    rows = [(0, 1, 3, 2), (1, 2, 0, 3)]
    text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
    ref = netsim.simulate(net, netsim.parse_trace(text, 4), 1.0, netsim.Config(vcs=2, buffer=4, log=10))
    want = {int(a[0]): int(a[4]) for a in ref.log}
    wrong = [want[0], want[1] + 1]
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), rows, vcs=2, buffer=4, expected=wrong)
    got, error = rtl_deliveries(dut, 4, ref.cycles + 5)
    assert got == want and error == 1


@pytest.mark.parametrize("kw,needle", [({"vcs": 0}, "--vcs"), ({"buffer": 6}, "power of two"),
                                       ({"packets": 1000, "span": 2}, "do not fit"), ({"M": 100}, "M <= 64")])
def test_rtl_network_bad_input(kw, needle):
    from permnet.gen.errors import PermnetError
    from permnet.rtlnet import network

    args = dict(M=9, S=3, topology="ldi", vcs=None, buffer=4, switching="vct", trace=None, packets=8, span=8,
                max_size=4, seed=0)
    args.update(kw)
    with pytest.raises(PermnetError, match=needle):
        network(**args)


def _ldi_case(n=60, span=25, size=4, buffer=4, M=9, S=3):
    net = tables.network("ldi", M, S)
    t = net.table
    rows = random_trace(M, n, span, size, seed=M + n)
    text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
    ref = netsim.simulate(net, netsim.parse_trace(text, M), 1.0,
                          netsim.Config(vcs=t.max_hops, buffer=buffer, log=10 * n))
    want = {int(a[0]): int(a[4]) for a in ref.log}
    assert len(want) == n
    return t, rows, ref, want


@pytest.mark.parametrize("width", [5, pytest.param(40, marks=pytest.mark.slow)])     # fewer bits than serial+index (truncated), more (repeated)
def test_flit_payloads_cross_the_network_intact(width):
    """With ``flit_width`` W the datapath carries W payload bits per flit: still cycle for cycle
    with the simulator, every flit of every packet ejected once, in order, with the payload of its
    serial and index, and the RTL's own payload checkers silent. On LDI(4,2), the smallest
    network (the payload path is the same in every router; the dense LDI(9,3) case runs in
    the cycle-exact test)."""
    t, rows, ref, want = _ldi_case(n=30, span=12, M=4, S=2)
    n = len(rows)
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), rows, vcs=t.max_hops, buffer=4,
                     expected=[want[i] for i in range(n)], flit_width=width)
    assert all(len(dut.eject_payload[x][k]) == width for x in range(4) for k in range(dut.K))
    flits = []
    got, error = rtl_deliveries(dut, 4, ref.cycles + 5, flits=flits)
    assert got == want and error == 0
    order = sorted(range(n), key=lambda i: rows[i][0])          # serial = index in the cycle-sorted trace
    sizes = [rows[i][3] for i in order]
    assert sorted((s, i) for s, i, _ in flits) == [(s, i) for s in range(n) for i in range(sizes[s])]
    by_packet = {}
    for s, i, _ in flits:
        by_packet.setdefault(s, []).append(i)
    assert all(idx == list(range(sizes[s])) for s, idx in by_packet.items())   # flits leave in order
    for s, i, p in flits:
        assert p == flit_payload(s, i, width, dut.zb, dut.sb), (s, i, p)
    distinct = len({p for *_, p in flits})                      # payloads really differ between flits
    assert distinct == len(flits) if width >= dut.zb + dut.sb else distinct >= 16


def test_flit_payload_spec():
    assert flit_payload(0, 0, 8, 2, 3) == 0x9E3779B97F4A7C15 & 0xFF
    # serial 5, index 2 with 2 index bits: x = 0b10110 (5 bits), repeated over 12 bits, then the mask
    assert flit_payload(5, 2, 12, 2, 3) == (0b10_10110_10110 ^ (0x9E3779B97F4A7C15 & 0xFFF))
    assert len({flit_payload(s, i, 16, 2, 6) for s in range(64) for i in range(4)}) == 256


def test_payload_checker_flags_a_corrupted_flit():
    """One payload bit flipped in a buffered flit: same delivery cycles, but ``error`` rises
    (on LDI(4,2), as the payloads' test)."""
    t, rows, ref, want = _ldi_case(n=30, span=12, M=4, S=2)
    n = len(rows)
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), rows, vcs=t.max_hops, buffer=4,
                     expected=[want[i] for i in range(n)], flit_width=12)
    hit = []

    def inject(ctx):
        if hit:
            return
        for q in dut.buffers.values():
            if ctx.get(q["count"]):                           # the flit at the head of a non-empty buffer
                ent = q["ent"][ctx.get(q["head"])]
                ctx.set(ent["payload"], ctx.get(ent["payload"]) ^ 0b100)
                hit.append(ent)
                return
    flits = []
    got, error = rtl_deliveries(dut, 4, ref.cycles + 5, flits=flits, inject=inject)
    assert hit and got == want and error == 1
    assert sum(p != flit_payload(s, i, 12, dut.zb, dut.sb) for s, i, p in flits) == 1


def _walk(t, s, d):
    """(node, hop) along the route from s to d, the last one at d."""
    u, out = s, []
    for k in range(int(t.length[s][d]) + 1):
        out.append((u, k))
        if k < t.length[s][d]:
            u = int(t.planes[t.hops[s][d][k]][u])
    return out


@pytest.mark.parametrize("topo,M,S,routing,fields", [("ldi", 9, 3, "family", ("dst",)),
                                                     ("ldi", 8, 2, "family", ("hop", "dst")),
                                                     ("debruijn", 8, 2, "shortest", ("dst",))])
def test_node_route_tables_agree_with_every_route(topo, M, S, routing, fields):
    """Each node's reduced route table gives every head that can reach it the route table's decision."""
    t = tables.network(topo, M, S, routing).table
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), [(0, 0, 1, 1)], vcs=t.max_hops)
    keyed = [dut.route_keys(n) for n in range(M)]
    assert all(kd is not None and kd[0] == fields for kd in keyed)
    checked = 0
    for s in range(M):
        for d in range(M):
            for u, k in _walk(t, s, d):
                want = (1, 0) if k == t.length[s][d] else (0, int(t.hops[s][d][k]))
                assert keyed[u][1][tuple({"hop": k, "dst": d}[f] for f in fields)] == want
                checked += 1
    assert checked > M * M


def _conflicting_table():
    """4 nodes, plane 0 = +1 and plane 1 = -1 (mod 4); every route goes +1 except 2 -> 3, which goes
    2, 1, 0, 3 over plane 1: node 1 at hop 1 towards 3 leaves on plane 0 (from 0) or 1 (from 2)."""
    planes = [[(u + 1) % 4 for u in range(4)], [(u - 1) % 4 for u in range(4)]]
    length = [[(d - s) % 4 for d in range(4)] for s in range(4)]
    hops = [[[0] * 3 for _ in range(4)] for _ in range(4)]
    length[2][3], hops[2][3] = 3, [1, 1, 1]
    return planes, length, hops


def test_route_keys_fall_back_when_the_source_decides():
    planes, length, hops = _conflicting_table()
    dut = NetworkRTL(planes, length, hops, [(0, 0, 1, 1)], vcs=3)
    assert dut.route_keys(1) is None
    assert dut.route_keys(0)[0] == ("hop", "dst")    # node 0 towards 3: plane 0 at hop 0, plane 1 at hop 2


@pytest.mark.slow              # the ROM of every route in the Amaranth simulator: 12-24 s
def test_full_route_rom_still_matches_the_simulator(monkeypatch):
    """With every node on the (src, dst, hop) route ROM, as for tables no smaller key decides."""
    monkeypatch.setattr(NetworkRTL, "route_keys", lambda self, n: None)
    t, rows, ref, want = _ldi_case(n=30, span=12)
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), rows, vcs=t.max_hops, buffer=4,
                     expected=[want[i] for i in range(len(rows))])
    got, error = rtl_deliveries(dut, 9, ref.cycles + 5)
    assert got == want and error == 0


@pytest.mark.parametrize("M,S", [(8, 2), (16, 4)])
def test_combinational_unit_walks_the_route_table(M, S):
    """The unit (pipeline 0, as in the network's routers) plus the link-to-plane map and the
    arrival rule, walked hop by hop from the distinct pairs of 40 random draws, give the simulator's route table:
    the same planes at every hop, arrival at dst."""
    from permnet.hdl.nexthop import LdiNextHop
    from permnet.sim.testbench import run_nexthop

    t = tables.network("ldi", M, S).table
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), [(0, 0, 1, 1)], vcs=t.max_hops,
                     router="nexthop")
    unit = LdiNextHop(M, S, pipeline=0, shortcut=True)
    pairs = sorted({tuple(p) for p in np.random.default_rng(M).integers(0, M, (40, 2)).tolist()})
    at = {p: p[0] for p in pairs}                  # the node each walk has reached
    planes, nodes = {p: [] for p in pairs}, {p: [] for p in pairs}
    live = pairs
    for k in range(dut.unit_spec.h + 1):
        live = [p for p in live if not dut.arrives(at[p], p[1], k)]
        for p, (link, nxt) in zip(live, run_nexthop(unit, [(at[p], p[1], k) for p in live], 0)):
            planes[p].append(dut.link_plane[at[p]][link])
            nodes[p].append(at[p])
            at[p] = nxt
    assert not live                                          # every walk arrived within h hops
    for s, d in pairs:
        assert at[s, d] == d
        assert planes[s, d] == t.hops[s][d][: t.length[s][d]].tolist()
        assert nodes[s, d] == [u for u, _ in _walk(t, s, d)][:-1]


def test_nexthop_router_refuses_a_table_that_is_not_melhems(monkeypatch):
    """LDI(8,2)'s shortest routes are not Melhem's (h hops): the unit router is refused, and the
    arrival rule matters (with 'dst == node' alone, routes that pass through dst would end there)."""
    from permnet.gen.errors import PermnetError
    from permnet.hdl.network import ROUTERS
    from permnet.rtlnet import ROUTER_CHOICES, router_for

    t = tables.network("ldi", 8, 2, "shortest").table
    args = (t.planes.tolist(), t.length.tolist(), t.hops.tolist(), [(0, 0, 1, 1)])
    with pytest.raises(PermnetError, match="not Melhem's routing"):
        NetworkRTL(*args, vcs=t.max_hops, router="nexthop")
    with pytest.raises(PermnetError, match="needs LDI"):
        router_for(t, "nexthop")
    assert router_for(t) == "table" and router_for(tables.network("ldi", 8, 2).table) == "nexthop"
    assert ROUTER_CHOICES == ("auto", *ROUTERS)                  # the CLI's choices are the RTL's, and auto
    m = tables.network("ldi", 8, 2).table
    margs = (m.planes.tolist(), m.length.tolist(), m.hops.tolist(), [(0, 0, 1, 1)])
    NetworkRTL(*margs, vcs=m.max_hops, router="nexthop")
    monkeypatch.setattr(NetworkRTL, "arrives", lambda self, n, dst, hop: dst == n)
    with pytest.raises(PermnetError, match="arrival rule"):
        NetworkRTL(*margs, vcs=m.max_hops, router="nexthop")
