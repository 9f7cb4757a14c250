"""Static planes: every plane a permutation, the weighted hops and link loads
recomputed here by an independent BFS on the union (networkx and a plain
Python BFS tree), the Melhem Section 5 targets on small instances."""

from collections import deque
from itertools import permutations

import networkx as nx
import numpy as np
import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.planes.decompose import ldi_planes
from permnet.gen.traffic.patterns import pattern
from permnet.gen.traffic.plan import circuit_planes, plan_planes, route_stats


def _is_perm(p):
    return sorted(p.tolist()) == list(range(len(p)))


def nx_weighted_hops(planes, D):
    g = nx.MultiDiGraph()
    M = planes.shape[1]
    g.add_nodes_from(range(M))
    g.add_edges_from((u, int(p[u])) for p in planes for u in range(M))
    total = 0.0
    for s in range(M):
        if D[s].any():
            dist = nx.single_source_shortest_path_length(g, s)
            for d in np.nonzero(D[s])[0]:
                if int(d) not in dist:
                    return float("inf")
                total += D[s, d] * dist[int(d)]
    return total / D.sum()


def tree_max_load(planes, D):
    """The documented routing: BFS from s, planes in order, first arc reaching a node is its tree arc."""
    S, M = planes.shape
    load = {}
    for s in range(M):
        par = {s: None}
        q = deque([s])
        while q:
            u = q.popleft()
            for y in range(S):
                v = int(planes[y, u])
                if v not in par:
                    par[v] = (u, y)
                    q.append(v)
        for d in np.nonzero(D[s])[0]:
            v = int(d)
            while par[v] is not None:
                u, y = par[v]
                load[(y, u)] = load.get((y, u), 0.0) + D[s, d]
                v = u
    return max(load.values())


CASES = [("transpose", 64, 4), ("stencil2d", 64, 4), ("skewed", 64, 4), ("hotspot", 32, 3), ("stencil3d", 64, 3),
         ("bit-reversal", 32, 2), ("uniform", 27, 3), ("ring-allreduce", 16, 1), ("tornado", 20, 5)]


@pytest.mark.parametrize("name,M,S", CASES)
def test_planes_and_figures_recomputed_independently(name, M, S):
    D = pattern(name, M, seed=1)
    r = plan_planes(D, S)
    assert r.planes.shape == (S, M) and all(_is_perm(p) for p in r.planes)
    assert r.mean_hops == pytest.approx(nx_weighted_hops(r.planes, D), rel=1e-12)
    assert r.max_link_load == pytest.approx(tree_max_load(r.planes, D), rel=1e-12)
    # the circuits are the first K planes; every K tried and the best kept
    assert r.mean_hops <= min(h for _, h in r.tried) * (1 + 1e-9)
    if r.ldi is not None:
        lp = ldi_planes(M, S).planes
        assert r.ldi.mean_hops == pytest.approx(nx_weighted_hops(lp, D), rel=1e-12)
        assert r.ldi.max_link_load == pytest.approx(tree_max_load(lp, D), rel=1e-12)
        assert r.mean_hops <= r.ldi.mean_hops * (1 + 1e-12)


@pytest.mark.parametrize("name", ["stencil2d", "transpose"])
def test_regular_patterns_ride_one_hop(name):
    """Melhem's Section 5 target at M = 256, S = 8: the 16 x 16 stencil and the transpose on circuits."""
    r = plan_planes(pattern(name, 256), 8)
    assert r.mean_hops == 1.0 and r.circuits == {"stencil2d": 4, "transpose": 1}[name]
    assert r.ldi.mean_hops > 2


def test_uniform_is_no_worse_than_ldi_and_skewed_better():
    u = plan_planes(pattern("uniform", 256), 8)
    assert u.mean_hops <= u.ldi.mean_hops * 1.005
    k = plan_planes(pattern("skewed", 256, seed=2), 8)
    assert k.mean_hops < k.ldi.mean_hops and k.circuits >= 4


def test_circuits_are_maximum_weight_matchings():
    """The first circuit against every derangement of 7 nodes (exhaustive)."""
    rng = np.random.default_rng(4)
    D = rng.random((7, 7)) ** 3
    np.fill_diagonal(D, 0)
    best = max(sum(D[i, p[i]] for i in range(7)) for p in permutations(range(7)) if all(p[i] != i for i in range(7)))
    c = circuit_planes(D, 2)
    assert not (c[0] == np.arange(7)).any()
    assert sum(D[i, c[0][i]] for i in range(7)) == pytest.approx(best)


@pytest.mark.slow
def test_large_m_candidates_still_find_the_stencil():
    """Above 512 nodes the matchings use each row's heaviest arcs only."""
    r = plan_planes(pattern("stencil2d", 1024), 4)
    assert r.mean_hops == 1.0 and all(_is_perm(p) for p in r.planes)


def test_arc_swaps_never_worsen_and_are_seeded():
    D = pattern("hotspot", 16, seed=3)
    a = plan_planes(D, 4, evaluations=25, seed=9)
    b = plan_planes(D, 4, evaluations=25, seed=9)
    plain = plan_planes(D, 4)
    assert np.array_equal(a.planes, b.planes) and a.mean_hops <= plain.mean_hops * (1 + 1e-12)
    assert all(_is_perm(p) for p in a.planes)
    assert a.mean_hops == pytest.approx(nx_weighted_hops(a.planes, D), rel=1e-12)


def test_unreachable_demand_is_infinite():
    planes = np.array([[1, 0, 3, 2]])                    # two 2-cycles: 0 cannot reach 2
    D = np.zeros((4, 4))
    D[0, 2] = 1
    st = route_stats(planes, D)
    assert st.mean_hops == float("inf") and st.unreachable == 1.0


def test_bad_degree():
    with pytest.raises(PermnetError, match="degree S"):
        plan_planes(pattern("uniform", 8), 0)
