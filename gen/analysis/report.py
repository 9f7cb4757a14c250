"""One-call summaries of a topology, shared by the CLI, the demo and tests."""

from __future__ import annotations

import numpy as np

from permnet.gen.topologies import ldi
from permnet.gen.graph.metrics import Digraph, distance_stats

__all__ = ["ldi_summary", "ldi_topology_summary", "measure", "modules_for"]


def ldi_summary(M: int, S: int, *, exact: bool | None = None, samples: int | None = None, seed: int = 0) -> dict:
    """Metrics of LDI(M, S): exact diameter and average hops over ordered
    pairs of distinct nodes (by BFS), the closed-form diameter h, the
    directed Moore bound and the bandwidth factor S/h (Section 5).

    When the exact all-pairs search would take long (``exact=None`` and
    M * M * S above :data:`permnet.gen.graph.sampled.EXACT_WORK_LIMIT`) or
    ``exact=False``, the average is estimated from ``samples`` random
    sources with its 95% interval, and the diameter is the closed form h
    (Melhem Section 2: the least h with S^h >= M)."""
    from permnet.gen.graph.sampled import exact_is_affordable, sampled_distance_stats

    ldi.check_params(M, S)
    g = Digraph.from_successors(ldi.successors(M, S))
    if exact is None:
        exact = exact_is_affordable(M, M * S)
    form = ldi.melhem_form(M, S)
    if not exact:
        est = sampled_distance_stats(g, samples, seed)
        return {"topology": f"LDI({M},{S})", "family": "ldi", "nodes": M, "degree": S, "links": M * S,
                "self_loops": int((g.indices.reshape(M, S) == np.arange(M)[:, None]).sum()),
                "diameter": ldi.diameter(M, S), "diameter_formula": ldi.diameter(M, S),
                "diameter_lower_bound": est.diameter_lower_bound,
                "avg_hops": est.avg_hops, "avg_hops_ci95": list(est.avg_hops_ci95),
                "avg_hops_stderr": est.avg_hops_stderr, "estimate": True, "samples": est.samples,
                "moore_diameter_bound": ldi.moore_diameter_bound(M, S),
                "bandwidth_factor": ldi.bandwidth_factor(M, S),
                "melhem_form": None if form is None else {"h": form[0], "G": form[1]}}
    stats = distance_stats(g)
    return {
        "topology": f"LDI({M},{S})",
        "family": "ldi",
        "nodes": M,
        "degree": S,
        "links": M * S,
        "self_loops": int((g.indices.reshape(M, S) == np.arange(M)[:, None]).sum()),
        "diameter": stats.diameter,
        "diameter_formula": ldi.diameter(M, S),
        "avg_hops": stats.avg_hops,
        "hop_histogram": stats.as_dict()["hop_histogram"],
        "moore_diameter_bound": ldi.moore_diameter_bound(M, S),
        "bandwidth_factor": ldi.bandwidth_factor(M, S),
        "melhem_form": None if form is None else {"h": form[0], "G": form[1]},
    }


def modules_for(spec, built, topo, seed: int = 0):
    """Module of every node from ``--modules``: ``nuclei`` (super-IP graphs,
    their default), ``blocks:C`` (C consecutive node numbers), ``metis:C``
    (METIS parts of about C nodes) or a :class:`~permnet.gen.analysis.clusters.ModuleFile`
    (one id per node); ``None`` gives the family's default or no modules."""
    from permnet.gen.analysis import clusters
    from permnet.gen.errors import PermnetError, require

    if spec is None:
        return built.clusters() if hasattr(built, "clusters") else None
    if isinstance(spec, clusters.ModuleFile):
        return clusters.parse_clusters(spec.text, topo.n, spec.name)
    kind, _, arg = spec.partition(":")
    if kind == "nuclei":
        require(hasattr(built, "clusters"), "--modules nuclei needs a super-IP graph")
        return built.clusters()
    if kind in ("blocks", "metis"):
        try:
            size = int(arg)
        except ValueError:
            raise PermnetError(f"--modules {spec!r}: expected {kind}:SIZE") from None
        require(1 <= size <= topo.n, f"--modules {spec!r}: size must be in 1..{topo.n}")
        return clusters.blocks(topo.n, size) if kind == "blocks" else clusters.metis_modules(topo, size, seed)
    raise PermnetError(f"--modules {spec!r}: use nuclei, blocks:C, metis:C or file:PATH")


def measure(built, modules=None, bisection: bool = False, exact: bool | None = None) -> dict:
    """Metrics of a built family (a Topology or an IP graph): distances
    (:meth:`~permnet.gen.topologies.families.Topology.metrics`), for super-IP
    graphs the diameter formula (Yeh & Parhami Cor. 4.2), module metrics
    (Sections 5.2-5.4) for ``modules`` (see :func:`modules_for`) and the
    METIS bisection estimate when asked."""
    from permnet.gen.analysis import clusters

    topo = getattr(built, "topology", built)
    rep = topo.metrics(exact=exact)
    if hasattr(built, "ports"):
        rep["ports"] = built.ports           # links per node of a quotient (loops and repeats kept): its planes
    if hasattr(built, "diameter_formula") and getattr(built, "levels", 0) <= 8:
        # the formula's t comes from an exhaustive search over box arrangements (l <= 8)
        nu = built.nucleus.topology.metrics()
        rep.update(nucleus_nodes=nu["nodes"], nucleus_diameter=nu["diameter"], t=built.t(),
                   diameter_formula=built.diameter_formula())
        if rep["diameter"] is not None:
            rep["formula_holds"] = rep["diameter_formula"] == rep["diameter"]
    mods = modules_for(modules, built, topo)
    if mods is not None and rep.get("estimate"):
        # inter-cluster distances are all pairs of contracted modules: affordable when there are few
        # enough of them (QCN(3, Q7/Q3): 16,384 modules of 16), else as costly as exact metrics
        from permnet.gen.errors import PermnetError
        from permnet.gen.graph.sampled import EXACT_WORK_LIMIT
        try:
            rep.update(clusters.cluster_metrics(topo, mods, rep["diameter"], rep["degree"], measure_missing=False,
                                                max_work=EXACT_WORK_LIMIT))
        except PermnetError:
            if modules is not None:      # asked for: say why there are none; the family default: leave them out
                raise
        mods = None
    if mods is not None:
        rep.update(clusters.cluster_metrics(topo, mods, rep["diameter"], rep["degree"]))
    if bisection:
        rep.update(clusters.bisection_width(topo))
    return rep


def ldi_topology_summary(M: int, S: int, modules=None, bisection: bool = False, exact: bool | None = None,
                         samples: int | None = None) -> dict:
    """:func:`ldi_summary` plus, when asked, module metrics and the bisection
    estimate of LDI as a :class:`~permnet.gen.topologies.families.Topology`."""
    from permnet.gen.analysis import clusters

    rep = ldi_summary(M, S, exact=exact, samples=samples)
    if modules is None and not bisection:
        return rep
    topo = ldi.topology(M, S)
    mods = modules_for(modules, topo, topo)
    if mods is not None:
        rep.update(clusters.cluster_metrics(topo, mods, rep["diameter"], rep["degree"]))
    if bisection:
        rep.update(clusters.bisection_width(topo))
    return rep
