"""Families side by side at growing sizes: degree, diameter, average distance
and the DD/ID/II costs of Yeh & Parhami, Section 5 (their Figures 2-5).

    >>> from permnet.gen.analysis.compare import compare
    >>> rows = compare(["hypercube", "hsn"], max_nodes=64, module_size=10)
    >>> [(r.family, r.nodes) for r in rows]
    [('hypercube', 8), ('hypercube', 16), ('hypercube', 32), ('hypercube', 64), ('hsn', 64)]

Every family is a series of instances (``SERIES``) with the module
assignment the paper uses for it, at most ``module_size`` nodes per module:

- hypercube Q_n: subcubes of 2^c nodes (consecutive numbers);
- star graph S_k: sub-stars S_j (fixed last k-j symbols), j! <= module size;
- de Bruijn B(2, D): nodes with the same most significant bits;
- super-IP graphs (HSN, ring-CN, complete-CN, super-flip, RHSN) of the hypercube
  Q_c with 2^c <= module size: one nucleus per module;
- RCC(l, K_m) with m = module size: one complete nucleus per module;
- QCN(l, Q_{c+3}/Q_3) (Fig. 3: the 3-cubes of CN(l, Q_{c+3}) merged), 2^c <=
  module size: one quotient nucleus Q_c per module (Q7/Q3 for 24);
- 2-D torus, cube-connected cycles: METIS parts of at most the module size.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass

import numpy as np

from permnet.gen.errors import require

__all__ = ["CompareRow", "compare", "SERIES", "COLUMNS"]

COLUMNS = ("family", "instance", "nodes", "degree", "diameter", "avg_hops", "inter_cluster_degree",
           "inter_cluster_diameter", "avg_inter_cluster_distance", "dd_cost", "id_cost", "ii_cost")


@dataclass(frozen=True)
class CompareRow:
    """One instance of a family: its size, degree, diameter and average
    hops, and the module metrics of
    :class:`~permnet.gen.analysis.clusters.ClusterMetrics` (I-degree,
    I-diameter, average I-distance, DD/ID/II costs)."""

    family: str
    instance: str
    nodes: int
    degree: int
    diameter: int | None
    avg_hops: float | None
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


def _hypercube(max_nodes, C):
    from permnet.gen.analysis import clusters
    from permnet.gen.topologies import families
    c = int(math.log2(C))
    for n in range(3, 30):
        if 2 ** n > max_nodes:
            return
        yield f"Q{n}", families.hypercube(n), clusters.blocks(2 ** n, 2 ** min(c, n))


def _star(max_nodes, C):
    from permnet.gen.topologies import families
    j = max(i for i in range(1, 10) if math.factorial(i) <= C)
    for k in range(4, 10):
        if math.factorial(k) > max_nodes:
            return
        perms = np.array(list(itertools.permutations(range(k))), dtype=np.int64)
        tail = perms[:, min(j, k):]
        mods = np.unique(tail, axis=0, return_inverse=True)[1].ravel() if tail.shape[1] else np.zeros(len(perms))
        yield f"S{k}", families.star_graph(k), mods


def _debruijn(max_nodes, C):
    from permnet.gen.analysis import clusters
    from permnet.gen.topologies import families
    c = int(math.log2(C))
    for D in range(3, 30):
        if 2 ** D > max_nodes:
            return
        yield f"B(2,{D})", families.de_bruijn(2, D), clusters.blocks(2 ** D, 2 ** min(c, D))


def _metis_series(build, sizes):
    def series(max_nodes, C):
        from permnet.gen.analysis import clusters
        for name, args in sizes:
            t = build(*args)
            if t.n > max_nodes:
                return
            yield name, t, clusters.metis_modules(t, min(C, t.n))
    return series


def _super(family):
    def series(max_nodes, C):
        from permnet.gen.topologies import ipgraph
        c = min(int(math.log2(C)), 8)
        for l in range(2, 12):
            if 2 ** (c * l) > max_nodes:
                return
            g = ipgraph.super_ip(family, l, f"hypercube:{c}")
            yield f"{family}({l},Q{c})", g.topology, g.clusters()
    return series


def _qcn(max_nodes, C):
    """QCN(l, Q_{c+3}/Q_3): Fig. 3's 3-cubes merged, quotient nucleus Q_c with 2^c <= C."""
    from permnet.gen.topologies import qcn
    c = min(int(math.log2(C)), 5)
    for l in range(2, 12):
        if 2 ** (c + (c + 3) * (l - 1)) > max_nodes:
            return
        g = qcn.qcn(l, c + 3, 3)
        yield f"qcn({l},Q{c + 3}/Q3)", g.topology, g.clusters()


def _rcc(max_nodes, C):
    """RCC(l, K_m) with m = C (at most 64): one complete nucleus per module."""
    from permnet.gen.topologies import ipgraph
    m = min(C, 64)
    for l in range(2, 12):
        if m ** l > max_nodes or m * l > 255:
            return
        g = ipgraph.rcc(l, f"K{m}")
        yield f"rcc({l},K{m})", g.topology, g.clusters()


def _torus(k):
    from permnet.gen.topologies import families
    return families.torus(k, 2)


def _ccc(n):
    from permnet.gen.topologies import families
    return families.cube_connected_cycles(n)


SERIES = {
    "hypercube": _hypercube,
    "star": _star,
    "debruijn": _debruijn,
    "torus2d": _metis_series(_torus, [(f"T{k}x{k}", (k,)) for k in (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)]),
    "ccc": _metis_series(_ccc, [(f"CCC{n}", (n,)) for n in range(3, 14)]),
    "hsn": _super("hsn"),
    "ring-cn": _super("ring-cn"),
    "complete-cn": _super("complete-cn"),
    "superflip": _super("superflip"),
    "rhsn": _super("rhsn"),
    "rcc": _rcc,
    "qcn": _qcn,
}


def _compare_job(job) -> CompareRow:
    """One instance's row (module level: processes and Dask pickle it by name)."""
    from permnet.gen.analysis.clusters import cluster_metrics

    f, name, topo, modules = job
    m = topo.metrics()
    c = cluster_metrics(topo, modules, m.diameter, m.degree)
    return CompareRow(f, name, m.nodes, m.degree, m.diameter, m.avg_hops, **c.as_dict())


def compare(families=None, max_nodes: int = 5000, module_size: int = 10, progress: bool = False,
            workers: int = 1, scheduler: str | None = None) -> list[CompareRow]:
    """One row per instance (see ``COLUMNS``), sorted by size then family; the instances
    are measured as independent jobs on ``workers`` local processes or a Dask
    ``scheduler`` (:mod:`permnet.gen.parallel`), with the same rows on any of them."""
    from permnet.gen.parallel import map_jobs

    names = list(families or SERIES)
    for f in names:
        require(f in SERIES, f"unknown family {f!r} for compare: use {', '.join(SERIES)}")
    require(max_nodes >= 8, f"--max-nodes must be >= 8, got {max_nodes}")
    require(module_size >= 2, f"--module-size must be >= 2, got {module_size}")
    jobs = [(f, *inst) for f in names for inst in SERIES[f](max_nodes, module_size)]
    rows = map_jobs(_compare_job, jobs, workers, scheduler, progress=progress, desc="compare")
    rows.sort(key=lambda r: (r.nodes, names.index(r.family)))
    return rows
