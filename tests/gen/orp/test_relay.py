"""Relay start graphs (hosts packed on edge switches, host-less relays) and their place in the sweep."""

import numpy as np
import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.orp.anneal import anneal
from permnet.gen.orp.relay import relay_candidates, relay_counts, relay_start
from permnet.gen.orp.sweep import sweep
from search_helpers import host_switch_stats


@pytest.mark.parametrize("n,r,h,m,seed", [(432, 12, 7, 112, 0), (432, 12, 6, 101, 3), (80, 6, 4, 33, 1),
                                          (50, 8, 6, 12, 2)])
def test_relay_start_is_a_valid_graph_scored_like_networkx(n, r, h, m, seed):
    g = relay_start(n, r, h, m, seed)
    c = g.counts()
    edge = -(-n // h)
    assert g.m == m and c.sum() == n and (c[:edge] > 0).all() and (c[edge:] == 0).all()
    assert sorted(set(c[: n // h].tolist())) == [h] and g.degrees().max() <= r
    assert (g.edges[:, 0] != g.edges[:, 1]).all()
    aspl, diam = host_switch_stats(g)          # networkx BFS over hosts and switches
    assert aspl == pytest.approx(g.haspl(), rel=1e-12) and diam == g.diameter()
    assert g.to_edges_text() == relay_start(n, r, h, m, seed).to_edges_text()


def test_relay_candidates_and_impossible_layouts():
    assert relay_candidates(432, 12) == [(6, 101), (7, 101), (6, 112), (7, 112)]
    for n, r in [(432, 12), (1024, 10), (80, 6), (3800, 30)]:
        for h, m in relay_candidates(n, r):
            c = relay_counts(n, r, h, m)
            assert c.sum() == n and (c == 0).sum() >= 1 and r - h >= 2
    assert relay_counts(432, 12, 11, 200) is None    # one free port per edge switch: no ring
    assert relay_counts(432, 12, 4, 108) is None     # 108 edge switches: no relay left
    assert relay_candidates(32, 4) == []
    with pytest.raises(PermnetError):
        relay_start(432, 12, 4, 108)


def test_relays_beat_even_hosts_at_the_same_budget():
    # (432, 12) at m_opt = 101 switches, 30 000 evaluations each: 72 edge switches of 6 hosts and 29 relays
    # (swap move, host counts kept) against 4-5 hosts on every switch (swing move)
    even = anneal(432, 12, m=101, evaluations=30000, seed=0)
    relay = anneal(432, 12, start=relay_start(432, 12, 6, 101, 0), mode="swap", evaluations=30000, seed=0)
    assert sorted(set(relay.graph.counts().tolist())) == [0, 6]
    aspl, _ = host_switch_stats(relay.graph)
    assert aspl == pytest.approx(relay.haspl, rel=1e-12)
    assert relay.haspl < even.haspl - 0.01


def test_sweep_anneals_the_relay_candidates():
    a = sweep(160, 10, sweep=3, evaluations=600, seed=4, workers=1, restarts=2)
    relays = {k: v for k, v in a.by_start.items() if k.startswith("relay ")}
    assert sorted(relays) == sorted(f"relay h{h}m{m}" for h, m in relay_candidates(160, 10))
    assert all(isinstance(v, float) and v > 2 for v in relays.values())
    assert a.result.haspl <= min(relays.values()) + 1e-12
    assert a.as_dict()["by_start"] == a.by_start
    g = a.result.graph
    aspl, diam = host_switch_stats(g)
    assert aspl == pytest.approx(a.result.haspl) and diam == a.result.diameter
    assert np.all(g.degrees() <= 10) and g.counts().sum() == 160
