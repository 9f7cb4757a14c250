"""Sampled distance metrics against the exact all-pairs engine."""

import numpy as np
import pytest

from permnet.gen.graph.metrics import Digraph, distance_stats
from permnet.gen.graph.sampled import _relabel, sampled_distance_stats
from permnet.gen.topologies import families, ldi


def test_relabelling_keeps_the_graph():
    g = Digraph.from_successors(ldi.successors(300, 4))
    order = np.random.default_rng(1).permutation(300)
    indptr, indices = _relabel(g, order)
    new_of_old = np.argsort(order)
    old = {(int(new_of_old[u]), int(new_of_old[v])) for u, v in zip(*g.arcs())}
    tails = np.repeat(np.arange(300), np.diff(indptr))
    assert sorted(old) == sorted(zip(tails.tolist(), indices.tolist()))


@pytest.mark.parametrize("M,S", [(5000, 4), (3000, 8)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_interval_covers_the_exact_average(M, S, seed):
    g = Digraph.from_successors(ldi.successors(M, S))
    exact = distance_stats(g)
    est = sampled_distance_stats(g, 512, seed)
    lo, hi = est.avg_hops_ci95
    assert lo <= exact.avg_hops <= hi, (exact.avg_hops, est)
    assert hi - lo < 0.05
    assert est.diameter_lower_bound <= exact.diameter


def test_vertex_transitive_graphs_have_no_sampling_error():
    t = families.hypercube(10)
    est = sampled_distance_stats(t.digraph(), 256, 0)
    assert est.avg_hops == pytest.approx(10 * 2 ** 9 / (2 ** 10 - 1)) and est.avg_hops_stderr == pytest.approx(0)
    assert est.diameter_lower_bound == 10


def test_a_disconnected_graph_gives_no_average():
    t = families.hypercube(8)
    keep = (t.tails < 128) == (t.heads < 128)          # cut every edge of dimension 7
    g = Digraph.from_arcs(256, t.tails[keep], t.heads[keep])
    est = sampled_distance_stats(g, 128, 0)
    assert not est.samples_reach_all and est.avg_hops is None


def test_ldi_summary_estimates_only_when_asked_or_large():
    from permnet.gen.analysis.report import ldi_summary
    exact = ldi_summary(2000, 4)
    est = ldi_summary(2000, 4, exact=False, samples=512)
    assert not exact.estimate and "estimate" not in exact.as_dict() and est.estimate is True
    assert est.diameter == exact.diameter
    lo, hi = est.avg_hops_ci95
    assert lo <= exact.avg_hops <= hi
