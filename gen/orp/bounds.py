"""Lower bounds of the order/radix problem and the predicted switch count.

    >>> from permnet.gen.orp.bounds import bounds
    >>> b = bounds(1024, 16)
    >>> b.diameter_lb, round(b.haspl_lb, 6), b.m_opt
    (4, 3.835777, 183)

* Theorem 1: ``D >= D- = ceil(log_{r-1}(n-1)) + 1``.
* Theorem 2: ``A >= D-`` if ``n = (r-1)^(D- - 1) + 1``, else
  ``A >= D- - alpha/(n-1)`` with
  ``alpha = (r-1)^(D- - 2) - ceil((n - 1 - (r-1)^(D- - 2)) / (r-2))``.
  (Departure: when n-1 <= r-1, D- = 2 and the formula's ``(r-1)^0 = 1``
  term gives alpha <= 1; the exact answer there is one switch, h-ASPL 2,
  which is what is returned.)
* Formula (2) with the continuous Moore bound (Section 5.3): a k-regular
  host-switch graph with m switches, n/m hosts each, has
  ``A >= M(m, r - n/m) (mn - n)/(mn - m) + 2`` where M(N, K) is the Moore
  bound on the average distance of a K-regular graph on N vertices,
  evaluated for real K: K (K-1)^(i-1) vertices at distance i until N-1 are
  covered.  ``m_opt`` minimises it; the paper finds m_opt = 183 for
  (1024, 16) and 194 for (1024, 15), which the tests check.
* Section 3.2: for ``n <= m (r - m + 1)`` the m-clique is optimal
  (:meth:`HostSwitchGraph.clique`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from permnet.gen.graph.bounds import ilog_ceil
from permnet.gen.orp.hostswitch import HostSwitchGraph, check_order_radix

__all__ = ["diameter_lower_bound", "haspl_lower_bound", "continuous_moore", "moore_haspl", "m_opt", "CliqueBound", "OrpBounds",
           "bounds"]


def diameter_lower_bound(n: int, r: int) -> int:
    """Theorem 1."""
    check_order_radix(n, r)
    return ilog_ceil(n - 1, r - 1) + 1


def haspl_lower_bound(n: int, r: int) -> float:
    """Theorem 2 (2.0 when every host fits on one switch)."""
    check_order_radix(n, r)
    if n <= r:
        return 2.0
    D = diameter_lower_bound(n, r)
    if n == (r - 1) ** (D - 1) + 1:
        return float(D)
    alpha = (r - 1) ** (D - 2) - math.ceil((n - 1 - (r - 1) ** (D - 2)) / (r - 2))
    return D - alpha / (n - 1)


def continuous_moore(N: int, K: float) -> float:
    """Moore bound on the average distance of a K-regular graph on N vertices, K real."""
    if N <= 1:
        return 0.0
    if K <= 0:
        return math.inf
    remaining, layer, total, i = N - 1, K, 0.0, 1
    while remaining > 1e-12:
        if layer <= 1e-12 or i > 10 * N:
            return math.inf
        take = min(layer, remaining)
        total += i * take
        remaining -= take
        layer *= (K - 1)
        i += 1
    return total / (N - 1)


def moore_haspl(n: int, m: int, r: int) -> float:
    """Formula (2) with the continuous Moore bound: lower bound on the
    h-ASPL of a regular host-switch graph with m switches."""
    if m == 1:
        return 2.0 if n <= r else math.inf
    K = r - n / m
    if K < 1:
        return math.inf
    return continuous_moore(m, K) * (m * n - n) / (m * n - m) + 2


def m_opt(n: int, r: int) -> int:
    """The m minimising :func:`moore_haspl` (ties to the fewest switches)."""
    check_order_radix(n, r)
    best, best_m = math.inf, 1
    for m in range(1, 4 * n + 2):
        v = moore_haspl(n, m, r)
        if v < best - 1e-12:
            best, best_m = v, m
    return best_m


@dataclass(frozen=True)
class CliqueBound:
    """The m-clique of Section 3.2 (optimal when ``n <= m (r - m + 1)``)."""

    switches: int
    haspl: float
    diameter: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class OrpBounds:
    """Theorem 1's ``diameter_lb``, Theorem 2's ``haspl_lb``, ``m_opt`` and
    formula (2)'s bound there, and the optimal clique when there is one."""

    hosts: int
    radix: int
    diameter_lb: int
    haspl_lb: float
    m_opt: int
    moore_haspl_at_m_opt: float
    clique: CliqueBound | None

    def as_dict(self) -> dict:
        return {"hosts": self.hosts, "radix": self.radix, "diameter_lb": self.diameter_lb,
                "haspl_lb": self.haspl_lb, "m_opt": self.m_opt, "moore_haspl_at_m_opt": self.moore_haspl_at_m_opt,
                "clique": None if self.clique is None else self.clique.as_dict()}


def bounds(n: int, r: int) -> OrpBounds:
    """Everything the CLI's ``orp bound`` prints."""
    check_order_radix(n, r)
    mo = m_opt(n, r)
    try:
        g = HostSwitchGraph.clique(n, r)
        clique = CliqueBound(g.m, g.haspl(), g.diameter())
    except ValueError:
        clique = None
    return OrpBounds(n, r, diameter_lower_bound(n, r), haspl_lower_bound(n, r), mo, moore_haspl(n, mo, r), clique)
