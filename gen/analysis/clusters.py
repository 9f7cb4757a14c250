"""Clustered (module) metrics and partitions: Yeh & Parhami, Sections 5.2-5.4.

    >>> import numpy as np
    >>> from permnet.gen.analysis import clusters
    >>> from permnet.gen.topologies import families
    >>> q = families.hypercube(4)
    >>> m = clusters.cluster_metrics(q, np.arange(16) // 4)    # 2-cubes on a module
    >>> m.inter_cluster_degree, m.inter_cluster_diameter
    (2.0, 2)

Given a module (cluster) for every node:

- *inter-cluster degree* (I-degree): the largest, over modules, of the
  off-module links per node of that module (out-arcs leaving the module
  divided by its size);
- *inter-cluster distance* of u, v: the fewest off-module arcs on any path
  u -> v; the *I-diameter* is its maximum and the *average I-distance* its
  mean over ordered pairs of distinct nodes;
- DD-cost = degree x diameter [Bhuyan & Agrawal], ID-cost = I-degree x
  diameter, II-cost = I-degree x I-diameter.

Inter-cluster distances are shortest paths with arc weight 0 inside a
module and 1 between modules.  Strongly connected pieces of a module's
internal graph are contracted first (their nodes are at I-distance 0 from
each other), so when every module is internally connected the search runs on
the module quotient graph, with one node per module.  The remaining
0/1-weighted graph is searched by 0-1 BFS from every node, in parallel.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from permnet.gen.errors import require
from permnet.gen.graph.metrics import Digraph
from permnet.gen.graph.sortkeys import distinct_sorted, run_starts

__all__ = ["ClusterMetrics", "InterClusterDistances", "Bisection", "cluster_metrics", "inter_cluster_distances",
           "blocks", "metis_partition", "metis_modules", "bisection_width", "parse_clusters"]


class ModuleFile(NamedTuple):
    """The text of a module file (one module id per node) and its name for messages."""

    text: str
    name: str


@dataclass(frozen=True)
class InterClusterDistances:
    """I-diameter and average I-distance over ordered pairs of distinct
    nodes (both None when some pair is unreachable), and the number of
    contracted pieces searched."""

    inter_cluster_diameter: int | None
    avg_inter_cluster_distance: float | None
    contracted_nodes: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ClusterMetrics:
    """Module metrics: I-degree, I-diameter, average I-distance and the
    costs DD = degree x diameter, ID = I-degree x diameter and
    II = I-degree x I-diameter (None when a factor is unknown)."""

    modules: int
    max_module_size: int
    inter_cluster_degree: float
    inter_cluster_diameter: int | None
    avg_inter_cluster_distance: float | None
    dd_cost: int | None
    id_cost: float | None
    ii_cost: float | None

    def as_dict(self) -> dict:
        return asdict(self)          # every field, in declaration order


@dataclass(frozen=True)
class Bisection:
    """Links cut by the best balanced 2-way partition found, and its two sides."""

    width: int
    sides: tuple[int, int]
    method: str = "METIS (pymetis), best of 4 cuts"

    def as_dict(self) -> dict:
        return {"bisection_width": self.width, "bisection_sides": list(self.sides),
                "bisection_method": self.method}


def blocks(n: int, size: int) -> np.ndarray:
    """Modules of ``size`` consecutive node numbers (the last may be smaller)."""
    require(size >= 1, f"cluster size must be >= 1, got {size}")
    return np.arange(n, dtype=np.int64) // size


def parse_clusters(text: str, n: int, name: str = "modules") -> np.ndarray:
    """One module id (any integer) per node, whitespace separated, in node
    order (``name`` is the source named in errors)."""
    path = name
    toks = text.split()
    try:
        ids = np.array([int(t) for t in toks], dtype=np.int64)
    except ValueError:
        from permnet.gen.errors import PermnetError
        raise PermnetError(f"{path}: module ids must be integers") from None
    require(len(ids) == n, f"{path}: {len(ids)} module ids for {n} nodes")
    return np.unique(ids, return_inverse=True)[1].astype(np.int64)


def _undirected_csr(topo):
    """Symmetrised simple adjacency (xadj, adjncy) without self-loops, for METIS."""
    t, h = topo.tails, topo.heads
    keep = t != h
    pairs = np.unique(np.concatenate([np.stack([t[keep], h[keep]], 1), np.stack([h[keep], t[keep]], 1)]), axis=0)
    g = Digraph.from_arcs(topo.n, pairs[:, 0], pairs[:, 1])
    return g.indptr, g.indices


def metis_partition(topo, parts: int, seed: int = 0) -> tuple[int, np.ndarray]:
    """METIS k-way partition of the underlying undirected graph into ``parts``
    balanced parts (imbalance 1.001): (edges cut, part of each node)."""
    import pymetis

    require(2 <= parts <= topo.n, f"parts must be in 2..{topo.n}, got {parts}")
    xadj, adjncy = _undirected_csr(topo)
    opts = pymetis.Options(seed=seed, ufactor=1, ncuts=4)
    cut, member = pymetis.part_graph(parts, adjacency=pymetis.CSRAdjacency(xadj, adjncy), options=opts)
    return int(cut), np.asarray(member, dtype=np.int64)


def metis_modules(topo, size: int, seed: int = 0) -> np.ndarray:
    """Modules of about ``size`` nodes: METIS parts, ceil(n / size) of them."""
    require(1 <= size <= topo.n, f"module size must be in 1..{topo.n}, got {size}")
    parts = -(-topo.n // size)
    return metis_partition(topo, parts, seed)[1] if parts > 1 else np.zeros(topo.n, np.int64)


def bisection_width(topo, seed: int = 0) -> Bisection:
    """Upper estimate of the bisection width: links cut by METIS's best
    balanced 2-way partition of the underlying undirected graph (simple
    graph: parallel links and self-loops count once / not at all)."""
    cut, member = metis_partition(topo, 2, seed)
    sizes = np.bincount(member, minlength=2)
    return Bisection(cut, (int(sizes[0]), int(sizes[1])))


# ------------------------------------------------------------- I-distances

@njit(cache=True, parallel=True)
def _zero_one_bfs(n, indptr, indices, weight, size):
    """dist_sum[s] = sum_v size[v] * dist(s, v); ecc[s]; reached size[s]."""
    dist_sum = np.zeros(n, np.int64)
    ecc = np.zeros(n, np.int64)
    reached = np.zeros(n, np.int64)
    for s in prange(n):
        dist = np.full(n, -1, np.int64)
        done = np.zeros(n, np.bool_)
        dq = np.empty(2 * len(indices) + 2 * n + 2, np.int64)
        head = n + len(indices) + 1
        tail = head
        dq[tail] = s
        tail += 1
        dist[s] = 0
        while head < tail:
            u = dq[head]
            head += 1
            if done[u]:
                continue
            done[u] = True
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                nd = dist[u] + weight[e]
                if dist[v] < 0 or nd < dist[v]:
                    dist[v] = nd
                    if weight[e] == 0:
                        head -= 1
                        dq[head] = v
                    else:
                        dq[tail] = v
                        tail += 1
        for v in range(n):
            if dist[v] >= 0:
                dist_sum[s] += size[v] * dist[v]
                reached[s] += size[v]
                if dist[v] > ecc[s]:
                    ecc[s] = dist[v]
    return dist_sum, ecc, reached


def inter_cluster_distances(topo, modules: np.ndarray, max_work: int | None = None) -> InterClusterDistances:
    """I-diameter and average I-distance (None when some pair is unreachable).
    With ``max_work``, refuse (:class:`PermnetError`) when the contracted
    graph's pieces times arcs exceed it, before searching."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = topo.n
    t, h = topo.tails, topo.heads
    inside = modules[t] == modules[h]
    a = csr_matrix((np.ones(int(inside.sum())), (t[inside], h[inside])), shape=(n, n))
    k, piece = connected_components(a, directed=True, connection="strong")
    piece = piece.astype(np.int64)
    size = np.bincount(piece, minlength=k).astype(np.int64)
    pt, ph = piece[t], piece[h]
    keep = pt != ph
    w = (~inside[keep]).astype(np.int64)
    # arcs (tail, head, weight) as one sortable key; of parallel arcs keep the lighter (weight 0 sorts first)
    key = distinct_sorted((pt[keep] * k + ph[keep]) * 2 + w)
    pair = key >> 1
    first = run_starts(pair)
    pair, weight = pair[first], key[first] & 1
    arcs = np.stack([pair // k, pair % k, weight], 1)
    require(max_work is None or k * max(len(arcs), 1) <= max_work,
            f"inter-cluster distances here search {k:,} contracted pieces x {len(arcs):,} arcs, more than an exact "
            "run allows; pass --exact to wait for them")
    # arcs are sorted by tail, so the CSR keeps their order and weight[e] stays aligned
    g = Digraph.from_arcs(k, arcs[:, 0], arcs[:, 1])
    pairs = n * (n - 1)
    if k > 1 and np.all(arcs[:, 2] == 1) and np.all(size == size[0]):
        # every module strongly connected inside and all of one size: the I-distance of two nodes is
        # the hop distance of their pieces, so the bit-parallel all-pairs BFS gives the same sums
        from permnet.gen.graph.metrics import distance_stats
        s = distance_stats(g)
        if s.strongly_connected:
            total = int(np.dot(np.arange(len(s.hop_counts)), s.hop_counts)) * int(size[0]) ** 2
            return InterClusterDistances(int(s.diameter), total / pairs, int(k))
        return InterClusterDistances(None, None, int(k))
    dist_sum, ecc, reached = _zero_one_bfs(k, g.indptr, g.indices, arcs[:, 2].copy(), size)
    connected = bool(np.all(reached == n))
    return InterClusterDistances(
        int(ecc.max()) if connected else None,
        (float(np.dot(size, dist_sum) / pairs) if pairs else 0.0) if connected else None,
        int(k))


def cluster_metrics(topo, modules, diameter: int | None = None, degree: int | None = None, *,
                    measure_missing: bool = True, max_work: int | None = None) -> ClusterMetrics:
    """I-degree, I-diameter, average I-distance and the DD/ID/II costs of
    ``topo`` with node v on module ``modules[v]``.  ``diameter`` and
    ``degree`` are computed when not given, unless ``measure_missing`` is
    False (an estimated run: the costs needing them are then None);
    ``max_work`` as in :func:`inter_cluster_distances`."""
    modules = np.asarray(modules, dtype=np.int64)
    require(modules.shape == (topo.n,), f"need one module per node ({topo.n}), got {modules.shape}")
    modules = np.unique(modules, return_inverse=True)[1].astype(np.int64)
    if measure_missing and (diameter is None or degree is None):
        m = topo.metrics()
        diameter, degree = m.diameter, m.degree
    t, h = topo.tails, topo.heads
    off = (modules[t] != modules[h]) & (t != h)
    sizes = np.bincount(modules)
    off_links = np.bincount(modules[t[off]], minlength=len(sizes))
    idegree = float((off_links / sizes).max())
    dist = inter_cluster_distances(topo, modules, max_work)
    idiam = dist.inter_cluster_diameter
    return ClusterMetrics(
        modules=int(len(sizes)), max_module_size=int(sizes.max()), inter_cluster_degree=idegree,
        inter_cluster_diameter=idiam, avg_inter_cluster_distance=dist.avg_inter_cluster_distance,
        dd_cost=degree * diameter if diameter is not None and degree is not None else None,
        id_cost=idegree * diameter if diameter is not None else None,
        ii_cost=idegree * idiam if idiam is not None else None)
