"""Integer logarithms and Moore bounds: the one home of both.

    >>> ilog_ceil(4096, 8), ilog_ceil(4097, 8)
    (4, 5)
    >>> moore_bound(4096, 8, directed=True), moore_bound(10, 3, directed=False)
    (4, 2)
"""

from __future__ import annotations

__all__ = ["ilog_ceil", "moore_bound"]


def ilog_ceil(x: int, base: int) -> int:
    """ceil(log_base(x)) for integers x >= 1, base >= 2, in exact integer arithmetic."""
    k, p = 0, 1
    while p < x:
        k, p = k + 1, p * base
    return k


def moore_bound(n: int, d: int, directed: bool) -> int | None:
    """Least D with 1 + d + d^2 + ... + d^D >= n (directed) or
    1 + d sum_{i<D} (d-1)^i >= n (undirected): no graph of n nodes and
    (out-)degree d has a smaller diameter.  None if no D works."""
    if n <= 1:
        return 0
    if d < 1 or (not directed and d < 2 and n > 2):
        return None
    D, total = 0, 1
    while total < n:
        D += 1
        layer = d * (d if directed else d - 1) ** (D - 1)
        total += layer
        if layer == 0 or D > n:
            return None
    return D
