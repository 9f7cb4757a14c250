"""Long sweeps: ``make test-slow`` (excluded from ``make test``)."""

import numpy as np
import pytest

from oracles import planes_match_edges
from permnet.gen.routing import benes
from permnet.gen.topologies import ldi
from permnet.gen.graph.metrics import Digraph, distance_stats
from permnet.gen.planes.decompose import formula3_valid, ldi_planes
from permnet.sim.network import replay_2x2, routed_permutation

pytestmark = pytest.mark.slow


def test_planes_every_m_up_to_3000_for_small_s():
    for S in range(2, 9):
        for M in range(S + 1, 3001):
            assert planes_match_edges(ldi_planes(M, S).planes, M, S), (M, S)


def test_eq3_characterisation_wider():
    for S in range(2, 21):
        for M in range(S + 1, 3000):
            dest = [[(S * n + (y - n // S) % S) % M for n in range(M)] for y in range(S)]
            holds = all(len(set(row)) == M for row in dest)
            assert holds == formula3_valid(M, S), (M, S)


def test_benes_every_size_up_to_2000():
    rng = np.random.default_rng(0)
    for n in range(2, 2001):
        for network in benes.NETWORKS:
            p = rng.permutation(n)
            r = benes.route(p, network)
            assert (routed_permutation(replay_2x2(r.state, benes.links(r))) == p).all(), (n, network)


def test_diameter_formula_every_m_up_to_5000_s_2_to_6():
    for S in range(2, 7):
        for M in range(S + 1, 5001, 7):
            s = distance_stats(Digraph.from_successors(ldi.successors(M, S)))
            assert s.diameter == ldi.diameter(M, S)
