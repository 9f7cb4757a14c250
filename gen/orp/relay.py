"""Relay start graphs for the order/radix search: hosts packed on edge switches, host-less relay switches.

    >>> from permnet.gen.orp.relay import relay_candidates, relay_start
    >>> relay_candidates(432, 12)                 # (hosts per edge switch h, total switches m)
    [(6, 101), (7, 101), (6, 112), (7, 112)]
    >>> g = relay_start(432, 12, 7, 112, seed=0)
    >>> g.m, sorted(set(g.counts().tolist())), int(g.degrees().max())
    (112, [0, 5, 7], 12)

The random start of :func:`permnet.gen.orp.anneal.initial_graph` spreads
the hosts evenly, n/m per switch, and the swing move keeps them nearly even:
moving one host off a switch of a balanced graph makes the h-ASPL worse, so
the anneal never reaches the other kind of good graph, where the hosts sit
on fewer *edge* switches (h > n/m each) and the ports this frees go to
*relay* switches that hold no host and use all r ports for switch links.

Why that can win, with the same m switches and the same m r ports: let a
host switch have k = r - h switch ports.  In a graph whose switches all hold
hosts, a host switch reaches at most k (k' - 1)^(i-1) switches at hop i
(k' the degree of the switches on the way, about k), and all of them count
as destinations.  With relays the first hop of an edge switch leads to
relays of degree r > k, so the second hop fans out by r - 1 instead of
k - 1: at most k (r - 1) edge switches are 2 hops away, against k (k - 1)
switches in the even graph, while there are only ceil(n / h) < m edge
switches to reach.  For (432, 12): even, 101 switches of 4-5 hosts give 7-8
links and at most 56 switches 2 hops away out of 100; 62 edge switches of 7
hosts with 5 links into relays of degree 12 reach up to 55 of the other 61
in 2 hops, and packing 7 hosts per switch also makes 1.4 % of the host pairs
share a switch (0.8 % at 4-5 per switch).  Relays pay for this with the
switch-to-relay hop on every path, so they win when r is well above the
links of an even switch, not always; the sweep anneals them as candidates
next to the even ones and keeps the best.

Candidates (:func:`relay_candidates`): h in {h_o + 1, h_o + 2} with
h_o = ceil(n / m_opt) (the even graph's hosts per switch), and m in
{m_opt, ceil(1.1 m_opt)} switches in total, of which ceil(n/h) edge switches
(h hosts each, the remainder on the last one) and the rest relays.  The
choice is empirical, not a bound: 25-30 s anneals of (432, 12) with the host
counts fixed (swap move, Graph Golf objective) gave h-ASPL 4.253-4.272 with
7 hosts per edge switch and 40-64 relays, 4.251-4.283 with 6 hosts and 36-64
relays (host diameter 5 or 6), 4.300-4.311 with 8 hosts and 40-64 relays,
against 4.3136 for a 45 s anneal of the even m_opt graph.  (1024, 10) does
not gain from them (r = 10: 600 s sweep, relays 5.209 at best in phase 1,
the even 342 switches 5.133).

:func:`relay_start` wires such a graph at random: a ring through all
switches in a random order (connected), the free ports paired at random
(seeded; no self-loops, parallel links possible).  The sweep anneals it with
the swap move, which keeps every switch's host count, so the relays stay.
"""

from __future__ import annotations

import math

import numpy as np

from permnet.gen.errors import require
from permnet.gen.orp.bounds import m_opt
from permnet.gen.orp.hostswitch import HostSwitchGraph, check_order_radix, pair_free_ports

__all__ = ["relay_counts", "relay_candidates", "relay_start"]

RELAY_SCALES = (1.0, 1.1)   # total switches / m_opt
RELAY_EXTRA_HOSTS = (1, 2)  # hosts per edge switch above ceil(n / m_opt)


def relay_counts(n: int, r: int, h: int, m: int) -> np.ndarray | None:
    """Host counts of ``m`` switches: ceil(n/h) edge switches with h hosts
    (the last one the remainder), then relays with none; None when that does
    not leave at least one relay, or an edge switch has fewer than 2 free ports."""
    check_order_radix(n, r)
    if h < 1 or r - h < 2:
        return None
    edge = -(-n // h)
    if m - edge < 1:
        return None
    counts = np.zeros(m, np.int64)
    counts[: n // h] = h
    if n % h:
        counts[n // h] = n % h
    return counts


def relay_candidates(n: int, r: int) -> list[tuple[int, int]]:
    """(h, m) pairs: h hosts per edge switch, m switches in total (see the module docstring)."""
    check_order_radix(n, r)
    mo = m_opt(n, r)
    ho = -(-n // mo)
    out = []
    for scale in RELAY_SCALES:
        m = math.ceil(scale * mo)
        for dh in RELAY_EXTRA_HOSTS:
            h = ho + dh
            if relay_counts(n, r, h, m) is not None and (h, m) not in out:
                out.append((h, m))
    return out


def relay_start(n: int, r: int, h: int, m: int, seed: int = 0) -> HostSwitchGraph:
    """Edge switches with h hosts and host-less relays, m switches in all,
    wired at random: a ring through all switches (random order), free ports
    paired at random."""
    counts = relay_counts(n, r, h, m)
    require(counts is not None, f"{n} hosts, {h} per edge switch, {m} switches of radix {r}: "
                                f"no relay left or an edge switch without 2 free ports")
    rng = np.random.default_rng(seed)
    order = rng.permutation(m)
    edges = [(int(order[s]), int(order[(s + 1) % m])) for s in range(m)]
    return HostSwitchGraph.from_counts(n, r, counts, edges + pair_free_ports(r - counts - 2, rng))
