"""Traffic from a demand matrix (``netsim --traffic-matrix``): the compiled
loop equals its CPython twin, destinations and source rates follow the rows."""

import json

import numpy as np
import pytest

from netsim_helpers import compiled_equals_cpython
from permnet.cli import main
from permnet.gen.routing import tables
from permnet.sim import netsim
from permnet.sim.netsim import kernel


def _demand(M):
    D = np.zeros((M, M))
    D[0, 3], D[0, 5] = 3.0, 1.0           # node 0: 3/4 of its packets to 3, 1/4 to 5
    D[1, 2] = 2.0                         # node 1: half node 0's rate, all to 2
    D[4, 0] = 4.0
    return D


def test_compiled_loop_equals_the_same_loop_in_cpython():
    t = tables.network("ldi", 9, 3).table
    stats = compiled_equals_cpython(t, lanes=3, kind=kernel.MATRIX, cdf=netsim.matrix(_demand(9)).cdf)
    assert stats[kernel.STAT_FIELDS.index("delivered")] > 20


def test_destinations_and_rates_follow_the_rows():
    M = 16
    net = tables.network("ldi", M, 4)
    r = netsim.simulate(net, netsim.matrix(_demand(M)), 0.1, netsim.Config(cycles=6000, warmup=100, log=10 ** 5))
    log = r.log
    pairs = {(int(s), int(d)) for s, d in log[:, 1:3]}
    assert pairs == {(0, 3), (0, 5), (1, 2), (4, 0)}
    n0 = (log[:, 1] == 0).sum()
    assert (log[(log[:, 1] == 0), 2] == 3).mean() == pytest.approx(0.75, abs=0.06)
    # rates: node 0 and node 4 at the offered load (the busiest rows), node 1 at half of it
    assert (log[:, 1] == 1).sum() / n0 == pytest.approx(0.5, abs=0.08)
    assert (log[:, 1] == 4).sum() / n0 == pytest.approx(1.0, abs=0.1)


def test_cli_planned_planes_under_their_own_traffic(tmp_path, capsys):
    planes = tmp_path / "p.json"
    assert main(["plan", "--traffic", "stencil2d", "-M", "16", "-S", "4", "-o", str(planes)]) == 0
    capsys.readouterr()
    assert main(["netsim", "--planes", str(planes), "--traffic-matrix", "stencil2d", "--load", "0.2",
                 "--cycles", "200", "--warmup", "50", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["hops_avg"] == 1.0 and rep["delivered"] > 100 and rep["traffic"] == "stencil2d"
