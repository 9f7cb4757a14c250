"""Structured start graphs for the order/radix search: Erdős–Rényi polarity graphs.

    >>> from permnet.gen.orp.polarity import polarity_orders, polarity_start
    >>> polarity_orders(1281, 21)                 # q = 13: 183 switches, 7 hosts each
    [13]
    >>> g = polarity_start(1281, 21, 13)
    >>> g.m, g.diameter(), round(g.haspl(), 4), int(g.degrees().max())
    (183, 4, 3.9141, 21)

The polarity graph ER_q (q prime) has the q^2 + q + 1 points of the
projective plane PG(2, q) as vertices, x ~ y when x . y = 0 (mod q) and
x != y.  Every vertex has degree q + 1, except the q + 1 absolute points
(x . x = 0) with degree q, and the diameter is 2: it has nearly the most
vertices a graph of degree q + 1 and diameter 2 can have (Moore bound
(q+1)^2 + 1).  As a switch graph with the hosts spread evenly, every host
pair on different switches is 3 or 4 hops apart.  Random graphs on that many
switches of that degree have diameter 3 and, annealed for minutes, do not
reach it: (1281, 21) with q = 13 gives h-ASPL 3.9141 at once (the published
2021 graph: 3.9769; Theorem 2 bound 3.7242), and (3800, 30) with q = 19
(381 switches, 10 hosts each but 10 with 9) gives 3.9427 (published:
4.0032).  ``python -c "from permnet.gen.orp.polarity import *;
print(polarity_start(3800, 30, 19).haspl())"`` reproduces a value.

:func:`polarity_start` places ``n`` hosts evenly (switches with a spare port
first), then links the ports left free at random (seeded), which only
shortens paths.  :func:`polarity_orders` lists the primes q for which the
hosts fit.  Prime powers (which also give polarity graphs) are not built.
"""

from __future__ import annotations

import math

import numpy as np

from permnet.gen.errors import require
from permnet.gen.orp.hostswitch import HostSwitchGraph, check_order_radix, pair_free_ports

__all__ = ["is_prime", "polarity_edges", "polarity_orders", "polarity_order_near", "polarity_start"]


def is_prime(q: int) -> bool:
    return q >= 2 and all(q % p for p in range(2, math.isqrt(q) + 1))


def _points(q: int) -> np.ndarray:
    """Normalised representatives of PG(2, q): (1, x, y), (0, 1, y), (0, 0, 1)."""
    xs, ys = np.meshgrid(np.arange(q), np.arange(q), indexing="ij")
    a = np.stack([np.ones(q * q, np.int64), xs.ravel(), ys.ravel()], axis=1)
    b = np.stack([np.zeros(q, np.int64), np.ones(q, np.int64), np.arange(q)], axis=1)
    return np.concatenate([a, b, np.array([[0, 0, 1]])]).astype(np.int64)


def polarity_edges(q: int) -> np.ndarray:
    """Edges (u < v) of ER_q, q prime: q^2 + q + 1 vertices."""
    require(is_prime(q), f"q must be a prime, got {q}")
    p = _points(q)
    out = []
    for lo in range(0, len(p), 256):  # row blocks: O(256 m) memory
        dots = (p[lo:lo + 256] @ p.T) % q
        u, v = np.nonzero(dots == 0)
        u = u + lo
        keep = u < v
        out.append(np.stack([u[keep], v[keep]], axis=1))
    return np.concatenate(out)


def _host_counts(n: int, r: int, deg: np.ndarray) -> np.ndarray | None:
    """n hosts as evenly as the ports allow (the extra host of the remainder
    to the switches with the most free ports), or None if they do not fit."""
    m = len(deg)
    cap = r - deg
    counts = np.full(m, n // m, np.int64)
    order = np.argsort(-cap, kind="stable")
    counts[order[: n % m]] += 1
    return counts if (counts <= cap).all() else None


def polarity_orders(n: int, r: int) -> list[int]:
    """The primes q whose polarity graph holds n hosts of radix r (evenly spread)."""
    check_order_radix(n, r)
    out = []
    for q in range(2, r):
        if is_prime(q) and q * q + q + 1 <= n:
            m = q * q + q + 1
            deg = np.full(m, q + 1)
            deg[: q + 1] = q  # the degree profile only matters: q+1 absolute points of degree q
            if _host_counts(n, r, deg) is not None:
                out.append(q)
    return out


def polarity_order_near(n: int, r: int, m_target: int) -> int | None:
    """The q of :func:`polarity_orders` whose switch count is nearest
    ``m_target`` (in ratio), or None."""
    qs = polarity_orders(n, r)
    return min(qs, key=lambda q: abs(math.log((q * q + q + 1) / m_target))) if qs else None


def polarity_start(n: int, r: int, q: int, seed: int = 0) -> HostSwitchGraph:
    """ER_q as the switch graph, n hosts spread evenly, free ports linked at random."""
    check_order_radix(n, r)
    edges = polarity_edges(q)
    m = q * q + q + 1
    deg = np.bincount(edges.ravel(), minlength=m)
    counts = _host_counts(n, r, deg)
    require(counts is not None, f"{n} hosts do not fit the polarity graph of q={q} with radix {r}")
    extra = pair_free_ports(r - deg - counts, np.random.default_rng(seed))
    all_edges = np.concatenate([edges, np.array(extra, np.int64).reshape(-1, 2)])
    return HostSwitchGraph.from_counts(n, r, counts, all_edges)
