"""The network on run-time planes (issue 24, ``--planes crossbar|benes``): reset to the
topology's planes, the self-test top stays cycle-exact with ``permnet.sim.netsim``
(combinational plane sets add no cycle), and its ``cfg`` port reads the active planes back."""

import numpy as np
import pytest

from permnet.gen.planes import runtime
from permnet.gen.routing import tables
from permnet.hdl.network import NetworkRTL, random_trace
from permnet.sim import netsim

from network_helpers import selftest_run


# make test: each router and each plane kind once, on LDI(8,2) (17 s of elaboration for the pair
# against 30 s for LDI(9,3)); LDI(9,3) under -m slow (9-node Beneš planes in a network also in
# test_plane_swap.py::test_swap_to_a_faults_reconfiguration_loses_nothing)
@pytest.mark.parametrize("M,S,router,kind", [(8, 2, "nexthop", "benes"), (8, 2, "table", "crossbar"),
                                             pytest.param(9, 3, "nexthop", "crossbar", marks=pytest.mark.slow),
                                             pytest.param(9, 3, "table", "benes", marks=pytest.mark.slow)])
def test_selftest_on_run_time_planes_is_cycle_exact(M, S, router, kind):
    net = tables.network("ldi", M, S)
    t = net.table
    rows = random_trace(M, 40, 20, 3, seed=M + S)
    text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
    ref = netsim.simulate(net, netsim.parse_trace(text, M), 1.0,
                          netsim.Config(vcs=t.max_hops, buffer=4, log=len(rows) + 1))
    want = {int(a[0]): int(a[4]) for a in ref.log}
    assert len(want) == len(rows)
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), rows, vcs=t.max_hops, buffer=4,
                     expected=[want[i] for i in range(len(rows))], router=router, planes_kind=kind)
    entries = dut.ip.planes.entries
    got, out = selftest_run(dut, M, ref.cycles + 5, [(y, a) for y in range(S) for a in range(entries)])
    assert got == want and out["error"] == 0
    for y in range(S):
        words = [out[y, a] for a in range(entries)]
        assert runtime.decode_readback(kind, M, words) == t.planes[y].tolist()


def test_wire_planes_have_no_cfg_port():
    t = tables.network("ldi", 8, 2).table
    dut = NetworkRTL(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), [(0, 1, 2, 1)], vcs=3)
    assert "cfg" not in dut.signature.members
    assert np.array_equal(dut.planes, t.planes)
