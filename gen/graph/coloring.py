"""Edge colouring of regular bipartite multigraphs.

    >>> import numpy as np
    >>> from permnet.gen.graph.coloring import edge_colour_regular_bipartite
    >>> left = np.array([0, 0, 1, 1]); right = np.array([0, 1, 0, 1])
    >>> edge_colour_regular_bipartite(left, right, 2).tolist()
    [0, 1, 1, 0]

A d-regular bipartite multigraph with n nodes a side has a proper d-edge
colouring (König); each colour class is a perfect matching, i.e. a
permutation of ``0..n-1``.  This is what turns a d-regular topology into d
switching planes (Melhem, Section 3) and what routes one level of an (n,d)
permutation network (Protsenko, Lemma 1).

Algorithm: for even d, an *Euler split* halves the graph into two
d/2-regular graphs (walk closed trails and colour each arc by its direction,
left->right or right->left); for odd d, one perfect matching is removed
first, found by Alon's method (N. Alon, "A simple algorithm for
edge-coloring bipartite multigraphs", IPL 85, 2003): give every edge
multiplicity a = floor(2^t/d) and add a "bad" perfect matching of
multiplicity 2^t - a d so the graph is 2^t-regular with 2^t >= dn, then
Euler-split t times, keeping the half with less bad weight; what is left is
a perfect matching without bad edges.  Total work O(m log m); all loops are
compiled with numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from permnet.gen.errors import require

__all__ = ["edge_colour_regular_bipartite", "euler_split"]


@njit(cache=True)
def _euler_split(left, right, n):
    """Split the edges (left[e], right[e]) of a bipartite multigraph with
    every degree even into two halves with every degree halved.  Returns a
    bool per edge: True for the half traversed left -> right."""
    m = left.shape[0]
    start = np.zeros(2 * n + 1, np.int64)
    for e in range(m):
        start[left[e] + 1] += 1
        start[n + right[e] + 1] += 1
    for i in range(2 * n):
        start[i + 1] += start[i]
    adj = np.empty(2 * m, np.int64)
    pos = start[:-1].copy()
    for e in range(m):
        adj[pos[left[e]]] = e
        pos[left[e]] += 1
        adj[pos[n + right[e]]] = e
        pos[n + right[e]] += 1
    ptr = start[:-1].copy()
    used = np.zeros(m, np.bool_)
    side = np.zeros(m, np.bool_)
    for s in range(2 * n):
        x = s
        # Walk closed trails from s until its edges are used up; with even
        # degrees a trail can only get stuck back at s, so every node is
        # entered and left equally often and direction halves each degree.
        while True:
            while ptr[x] < start[x + 1] and used[adj[ptr[x]]]:
                ptr[x] += 1
            if ptr[x] == start[x + 1]:
                if x == s:
                    break
                x = s  # pragma: no cover - unreachable with even degrees
                continue
            e = adj[ptr[x]]
            used[e] = True
            if x < n:
                side[e] = True
                x = n + right[e]
            else:
                x = left[e]
    return side


@njit(cache=True)
def _alon_matching(left, right, n, d):
    """A perfect matching of a d-regular bipartite multigraph (Alon 2003).
    Returns a bool mask over the edges."""
    m = left.shape[0]
    t = 0
    while (1 << t) < m:
        t += 1
    if t == 0:
        t = 1
    total = 1 << t
    a = total // d
    bad = total - a * d
    # Edges 0..m-1 are real, m..m+n-1 the bad matching i -> i.
    el = np.empty(m + n, np.int64)
    er = np.empty(m + n, np.int64)
    w = np.empty(m + n, np.int64)
    el[:m] = left
    er[:m] = right
    w[:m] = a
    for i in range(n):
        el[m + i] = i
        er[m + i] = i
        w[m + i] = bad
    for _ in range(t):
        odd_idx = np.nonzero(w & 1)[0]
        side = _euler_split(el[odd_idx], er[odd_idx], n)
        wa = w >> 1
        wb = w >> 1
        for k in range(odd_idx.shape[0]):
            if side[k]:
                wa[odd_idx[k]] += 1
            else:
                wb[odd_idx[k]] += 1
        if wa[m:].sum() <= wb[m:].sum():
            w = wa
        else:
            w = wb
    return w[:m] > 0


def euler_split(left, right, n: int) -> np.ndarray:
    """Public wrapper of the Euler split (every degree must be even)."""
    return _euler_split(np.asarray(left, np.int64), np.asarray(right, np.int64), n)


def edge_colour_regular_bipartite(left, right, n: int) -> np.ndarray:
    """Colour the edges of a d-regular bipartite multigraph with d colours.

    ``left[e]`` and ``right[e]`` (both in ``0..n-1``) are the ends of edge
    e; parallel edges are allowed.  Returns ``colour[e]`` in ``0..d-1`` such
    that each colour class is a perfect matching.  Raises
    :class:`~permnet.gen.errors.PermnetError` if the graph is not regular.
    """
    left = np.ascontiguousarray(left, dtype=np.int64)
    right = np.ascontiguousarray(right, dtype=np.int64)
    m = left.shape[0]
    require(n >= 1 and m % n == 0, f"{m} edges cannot form a regular graph on {n}+{n} nodes")
    d = m // n
    require(bool(np.all(np.bincount(left, minlength=n) == d))
            and bool(np.all(np.bincount(right, minlength=n) == d)),
            f"graph is not {d}-regular on both sides")
    colour = np.empty(m, np.int64)
    # Explicit stack of (edge ids, degree, first colour) instead of recursion.
    stack = [(np.arange(m, dtype=np.int64), d, 0)]
    while stack:
        ids, deg, first = stack.pop()
        if deg == 0:
            continue
        if deg == 1:
            colour[ids] = first
        elif deg % 2 == 0:
            side = _euler_split(left[ids], right[ids], n)
            stack.append((ids[side], deg // 2, first))
            stack.append((ids[~side], deg // 2, first + deg // 2))
        else:
            match = _alon_matching(left[ids], right[ids], n, deg)
            colour[ids[match]] = first
            stack.append((ids[~match], deg - 1, first + 1))
    return colour
