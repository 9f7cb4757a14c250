"""Searched free planes of a mixed network (Melhem, Section 6): every plane a permutation, the user planes
untouched, average hops checked by an independent networkx BFS, never worse than LDI, seeded runs repeat."""

import json

import networkx as nx
import numpy as np
import pytest

from permnet.gen.planes.mixed import user_permutations
from permnet.gen.planes.mixed_search import optimize_mixed, translation_group
from cli_runner import run


def nx_avg_and_diameter(planes):
    G = nx.DiGraph()
    M = len(planes[0])
    G.add_nodes_from(range(M))
    for p in planes:
        G.add_edges_from((u, int(v)) for u, v in enumerate(p))
    total, diam = 0, 0
    for s, dist in nx.all_pairs_shortest_path_length(G):
        assert len(dist) == M
        total += sum(dist.values())
        diam = max(diam, max(dist.values()))
    return total / (M * (M - 1)), diam


@pytest.mark.parametrize("M,S,spec", [(64, 6, "torus:8x8"), (60, 4, "ring")])
def test_optimised_planes_are_permutations_and_measured_right(M, S, spec):
    user = user_permutations([spec], M)
    res = optimize_mixed(M, S, user, evaluations=250, seed=2)
    K = len(user)
    assert res.planes.shape == (S, M)
    for k, (_, p) in enumerate(user):
        assert np.array_equal(res.planes[k], p)
    for p in res.planes[K:]:
        assert sorted(p.tolist()) == list(range(M)) and not np.any(p == np.arange(M))
    avg, diam = nx_avg_and_diameter(res.planes)
    assert avg == pytest.approx(res.avg_hops, abs=1e-12) and diam == res.diameter
    from permnet.gen.planes.decompose import ldi_planes
    ldi_avg, _ = nx_avg_and_diameter(np.concatenate([[p for _, p in user], ldi_planes(M, S - K).planes]))
    assert res.ldi_avg_hops == pytest.approx(ldi_avg, abs=1e-12)
    assert res.avg_hops < ldi_avg            # a measured improvement over Melhem's LDI planes


def test_translation_groups_are_recognised():
    assert translation_group(64, [p for _, p in user_permutations(["torus:8x8"], 64)]) == (8, 8)
    assert translation_group(30, [p for _, p in user_permutations(["ring", "shift:7"], 30)]) == (30, 1)
    assert translation_group(16, [np.array([1, 0] + list(range(2, 16)))]) is None


def test_seeded_search_repeats_and_the_cli_writes_it(tmp_path):
    args = ("mixed", "ldi", "-M", 64, "-S", 6, "--plane", "torus:8x8", "--optimize", "--evals", 150, "--seed", 4)
    a = json.loads(run(*args, "--json", "-o", tmp_path / "a.json").stdout)
    b = json.loads(run(*args, "--json").stdout)
    assert a | {"seconds": 0} == b | {"seconds": 0}
    planes = json.loads((tmp_path / "a.json").read_text())["planes"]
    avg, diam = nx_avg_and_diameter(planes)
    assert avg == pytest.approx(a["avg_hops"], abs=1e-12) and diam == a["diameter"]
    p = run("mixed", "ldi", "-M", 64, "-S", 6, "--plane", "torus:8x8", "--evals", 5, check=False)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
