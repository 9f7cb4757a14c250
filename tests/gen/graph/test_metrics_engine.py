"""The bit-parallel, direction-optimising BFS against a plain BFS per source."""

import numpy as np
from hypothesis import given, settings, strategies as st

from permnet.gen.graph.metrics import Digraph, distance_stats

from oracles import bfs


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 200), st.integers(1, 6), st.integers(0, 2 ** 31 - 1), st.booleans())
def test_distance_stats_match_bfs(n, d, seed, symmetric):
    rng = np.random.default_rng(seed)
    tails = np.repeat(np.arange(n), d)
    heads = rng.integers(0, n, n * d)
    if symmetric:
        tails, heads = np.r_[tails, heads], np.r_[heads, tails]
    g = Digraph.from_arcs(n, tails, heads)
    adj = [[] for _ in range(n)]
    for a, b in zip(tails.tolist(), heads.tolist()):
        adj[a].append(b)
    s = distance_stats(g)
    hist = np.zeros(n + 1, np.int64)
    for u in range(n):
        dist = bfs(adj, u)
        assert s.reached[u] == len(dist)
        assert s.eccentricity[u] == max(dist.values())
        for k in dist.values():
            if k:
                hist[k] += 1
    assert s.hop_counts.tolist() == hist[:len(s.hop_counts)].tolist() and hist[len(s.hop_counts):].sum() == 0
    assert s.strongly_connected == all(r == n for r in s.reached)
