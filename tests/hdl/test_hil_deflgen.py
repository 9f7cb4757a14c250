"""The live-traffic network with deflection routers (hdl/hil/deflgen.py) in the Amaranth
simulator: its generators create the model's packets (gen/hil/netgen.trace) and its counters
equal netsim's deflection model fed that trace, counter for counter."""

import pytest

from permnet.gen.hil.netgen import GenParams, rate_of, trace
from permnet.gen.routing import tables
from permnet.hdl.hil.deflgen import DeflectionGen
from permnet.hdl.hil.netgen import COUNTERS
from permnet.sim import netsim
from permnet.sim.netsim.counters import predict
from netgen_helpers import run_rtl


@pytest.mark.parametrize("M,S,E,params", [
    (8, 2, 1, GenParams("uniform", rate=rate_of(0.45), size=1, seed=11)),
    pytest.param(8, 2, 2, GenParams("permutation", rate=rate_of(0.5), size=1, seed=5, perm=(3, 0, 7, 2, 6, 1, 4, 5)),
                 marks=pytest.mark.slow),
])
def test_deflection_counters_equal_netsim(M, S, E, params):
    net = tables.network("ldi", M, S)
    rows = trace(M, params, 5, 45)
    want = predict(net, rows, netsim.Config(switching="deflection", packet_size=1, ejection_width=E))
    dut = DeflectionGen(net.table.planes.tolist(), ejection=E, flit_width=8, queue=8)
    [(made, got)] = run_rtl(dut, M, params, 5, 45, want["cycles"] + 3)
    assert made == rows and len(rows) > 50
    assert sum(got["dropped"]) == 0
    for name in COUNTERS:
        assert got[name] == want[name], name
    assert sum(got["ej_packets"]) == len(rows) and got["misdelivered"] == [0] * M
    # contention: some flit waited or was deflected (latency above the zero-load one)
    zero = sum(int(net.table.length[s][d]) + 2 for _, s, d, _ in rows)
    assert sum(want["lat_sum"]) > zero
