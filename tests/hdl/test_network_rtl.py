"""The RTL network (issue 14) against the cycle-level simulator, cycle for
cycle: the same packets delivered (tail ejected) at the same cycles, through
the Amaranth simulator."""

import numpy as np
import pytest
from amaranth.sim import Simulator

from permnet.gen.routing import tables
from permnet.hdl.network import NetworkRTL
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


def rtl_deliveries(dut, M, max_cycles):
    got = {}
    state = {}

    async def tb(ctx):
        for _ in range(max_cycles):
            cyc = ctx.get(dut.cycle)
            for n in range(M):
                for k in range(dut.K):
                    if ctx.get(dut.tail_valid[n][k]):
                        s = ctx.get(dut.tail_serial[n][k])
                        assert s not in got, f"packet {s} delivered twice"
                        got[s] = cyc + 1
            if ctx.get(dut.done):
                state["error"] = ctx.get(dut.error)
                return
            await ctx.tick()
        raise AssertionError("RTL did not deliver every packet")
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return got, state.get("error")


@pytest.mark.parametrize("topo,M,S,n,span,size,buffer,switching,routing", [
    ("ldi", 9, 3, 60, 25, 4, 4, "vct", "family"),          # dense: contention, round robin, credits
    pytest.param("ldi", 9, 3, 50, 30, 4, 2, "wormhole", "family",   # packets longer than the buffers
                 marks=pytest.mark.slow),
    pytest.param("ldi", 16, 4, 50, 30, 3, 4, "vct", "family", marks=pytest.mark.slow),
    pytest.param("debruijn", 8, 2, 40, 20, 3, 4, "vct", "shortest", marks=pytest.mark.slow),
])
def test_rtl_matches_the_simulator_cycle_for_cycle(topo, M, S, n, span, size, buffer, switching, routing):
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
                     wormhole=switching == "wormhole", expected=expected)
    got, error = rtl_deliveries(dut, M, ref.cycles + 5)
    assert got == want and error == 0


def test_checker_flags_a_wrong_expectation():
    net = tables.network("ldi", 9, 3)
    t = net.table
    rows = [(0, 1, 5, 2), (1, 4, 2, 3)]
    text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
    ref = netsim.simulate(net, netsim.parse_trace(text, 9), 1.0, netsim.Config(vcs=2, buffer=4, log=10))
    want = {int(a[0]): int(a[4]) for a in ref.log}
    wrong = [want[0], want[1] + 1]
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), rows, vcs=2, buffer=4, expected=wrong)
    got, error = rtl_deliveries(dut, 9, ref.cycles + 5)
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
