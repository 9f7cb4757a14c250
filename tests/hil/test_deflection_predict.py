"""The host's model of the deflection HIL design across a plane swap
(:func:`permnet.hil.netrun.deflection_predict`, a loop of the spec's ``route_step``): without a
swap it equals netsim's deflection model counter for counter (E, P as the device's); a swap to the
same planes changes nothing; a swap to other planes delivers every packet once at its destination."""

import pytest

from permnet.gen.hil.netgen import GenParams, rate_of, trace
from permnet.gen.routing import tables
from permnet.hil.netrun import deflection_predict
from permnet.sim import netsim
from permnet.sim.netsim.counters import predict

RING = [[(n + 1) % 8 for n in range(8)], [(n - 1) % 8 for n in range(8)]]


@pytest.mark.parametrize("E,P,load", [(2, 1, 0.45), (1, 2, 0.3)])
def test_without_a_swap_it_equals_netsim(E, P, load):
    net = tables.network("ldi", 8, 2)
    rows = trace(8, GenParams("uniform", rate=rate_of(load), size=1, seed=11), 5, 405)
    want = predict(net, rows, netsim.Config(switching="deflection", packet_size=1, ejection_width=E,
                                            link_stages=P - 1))
    assert deflection_predict(net.table.planes, rows, E=E, P=P) == want


def test_a_swap_to_the_same_planes_changes_nothing_and_one_to_a_ring_loses_nothing():
    reset = tables.network("ldi", 8, 2).table.planes
    rows = trace(8, GenParams("uniform", rate=rate_of(0.4), size=1, seed=3), 5, 405)
    plain = deflection_predict(reset, rows, E=2, P=1)
    same = deflection_predict(reset, rows, E=2, P=1, swap_at=200, new=reset)
    assert same.pop("old_flits_left") > 0 and same == plain
    ring = deflection_predict(reset, rows, E=2, P=1, swap_at=200, new=RING)
    assert ring["ej_packets"] == [sum(1 for r in rows if r[2] == d) for d in range(8)]
    assert ring["inj_packets"] == plain["inj_packets"] and ring["lat_sum"] != plain["lat_sum"]
    # the ring (diameter 4) is slower than LDI(8,2) (diameter 3): the last packets arrive later
    assert ring["cycles"] >= plain["cycles"] and ring["old_flits_left"] > 0
