"""Conventional topologies as host-switch graphs (Yasudo et al., Section 6.1).

    >>> from permnet.gen.orp.conventional import fat_tree
    >>> g = fat_tree(1024, 16)
    >>> g.m, g.diameter()
    (320, 6)

Each builder takes the number of hosts n and the radix r, builds the
smallest instance whose capacity is at least n, and attaches hosts in
order (switch 0 first) until n, as the paper does for its comparisons.

* torus, formula (3): K dimensions, base N, m = N^K switches, 2K switch
  links each, up to r - 2K hosts each (node = sum a_i N^i);
* dragonfly, formula (4): a = 2h = 2p (so r = 2a - 1), g = a h + 1 groups of
  a-cliques, exactly one global link between every two groups (the link of
  groups i < j leaves group i on global port j - i - 1 and group j on port
  g - (j - i) - 1; port q belongs to router q div h), p hosts per router;
* fat-tree, formula (5): K-ary (K = r), K^2/4 core, K^2/2 aggregation and
  K^2/2 edge switches, K/2 hosts per edge switch.

``bisection`` estimates the bisection width (links cut by the best of a
few Kernighan-Lin bisections of hosts and switches, networkx, seeded).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from permnet.gen.errors import require
from permnet.gen.orp.hostswitch import HostSwitchGraph, check_order_radix

__all__ = ["torus", "dragonfly", "fat_tree", "bisection", "TOPOLOGIES"]


def _attach(n: int, r: int, capacity: np.ndarray, edges) -> HostSwitchGraph:
    require(int(capacity.sum()) >= n, f"{int(capacity.sum())} host ports for n={n} hosts")
    counts = np.zeros(len(capacity), dtype=np.int64)
    left = n
    for s, cap in enumerate(capacity):
        counts[s] = min(cap, left)
        left -= counts[s]
    return HostSwitchGraph.from_counts(n, r, counts, edges)


def torus(n: int, r: int, dims: int = 5) -> HostSwitchGraph:
    """Smallest K-ary torus (K = ``dims``) of r-port switches with room for n hosts."""
    check_order_radix(n, r)
    require(r > 2 * dims, f"a {dims}-D torus needs radix > {2 * dims}, got {r}")
    base = 2
    while (r - 2 * dims) * base ** dims < n:
        base += 1
    m = base ** dims
    edges = []
    for node in range(m):
        for i in range(dims):
            digit = (node // base ** i) % base
            nb = node - digit * base ** i + ((digit + 1) % base) * base ** i
            edges.append((node, nb))      # the +1 neighbour; -1 is the neighbour's +1
    return _attach(n, r, np.full(m, r - 2 * dims), edges)


def dragonfly(n: int, r: int) -> HostSwitchGraph:
    """Dragonfly with a = 2h = 2p = (r+1)/2 and g = a h + 1 groups."""
    check_order_radix(n, r)
    require(r % 4 == 3, f"a balanced dragonfly (a = 2h = 2p, r = 2a - 1) needs r = 3 mod 4, got {r}")
    a = (r + 1) // 2
    h = p = a // 2
    g = a * h + 1
    edges = []
    for grp in range(g):
        base = grp * a
        edges += [(base + i, base + j) for i in range(a) for j in range(i + 1, a)]
    for i in range(g):
        for j in range(i + 1, g):
            qi, qj = j - i - 1, g - (j - i) - 1
            edges.append((i * a + qi // h, j * a + qj // h))
    return _attach(n, r, np.full(g * a, p), edges)


def fat_tree(n: int, r: int) -> HostSwitchGraph:
    """K-ary three-layer fat-tree with K = r (r even)."""
    check_order_radix(n, r)
    require(r % 2 == 0, f"a K-ary fat-tree needs an even radix, got {r}")
    K = r
    half = K // 2
    core = half * half
    # switch numbering: edge switches first (they hold the hosts), then aggregation, then core
    edge0, agg0, core0 = 0, K * half, 2 * K * half
    edges = []
    for pod in range(K):
        for e in range(half):
            for a in range(half):
                edges.append((edge0 + pod * half + e, agg0 + pod * half + a))
        for a in range(half):
            for c in range(half):
                edges.append((agg0 + pod * half + a, core0 + a * half + c))
    capacity = np.zeros(2 * K * half + core, dtype=np.int64)
    capacity[:K * half] = half
    require(K ** 3 // 4 >= n, f"a {K}-ary fat-tree holds {K ** 3 // 4} hosts, fewer than n={n}")
    return _attach(n, r, capacity, edges)


def bisection(g: HostSwitchGraph, seed: int = 0, tries: int = 3) -> int:
    """Links cut by the best Kernighan-Lin bisection of all hosts and switches."""
    G = nx.Graph()
    for h, s in enumerate(g.host_switch.tolist()):
        G.add_edge(("h", h), ("s", s), weight=1)
    for a, b in g.edges.tolist():
        if G.has_edge(("s", a), ("s", b)):
            G[("s", a)][("s", b)]["weight"] += 1
        else:
            G.add_edge(("s", a), ("s", b), weight=1)
    best = math.inf
    nodes = sorted(G.nodes)
    for t in range(tries):
        rng = np.random.default_rng(seed + t)
        order = list(rng.permutation(len(nodes)))
        half = set(nodes[i] for i in order[: len(nodes) // 2])
        A, B = nx.algorithms.community.kernighan_lin_bisection(G, partition=(half, set(nodes) - half),
                                                               weight="weight", seed=seed + t)
        cut = sum(d["weight"] for u, v, d in G.edges(data=True) if (u in A) != (v in A))
        best = min(best, cut)
    return int(best)


TOPOLOGIES = {"torus": torus, "dragonfly": dragonfly, "fat-tree": fat_tree}
