"""One-call summaries of a topology, shared by the CLI, the demo and tests."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from permnet.gen.analysis.clusters import Bisection, ClusterMetrics
from permnet.gen.topologies import ldi
from permnet.gen.topologies.families import TopologyMetrics
from permnet.gen.graph.metrics import Digraph, distance_stats

__all__ = ["LdiSummary", "SuperIPFormula", "FamilyReport", "ldi_summary", "ldi_topology_summary", "measure",
           "modules_for"]


@dataclass(frozen=True)
class LdiSummary:
    """Metrics of LDI(M, S) (see :func:`ldi_summary`): ``links`` = M S,
    ``self_loops`` the arcs n -> n, the measured ``diameter`` (the closed
    form h on an estimate, with ``diameter_lower_bound`` the largest
    eccentricity met) and ``diameter_formula`` h, ``avg_hops`` over ordered
    pairs of distinct nodes, the directed Moore bound, the bandwidth factor
    S/h and Melhem's form ``(h, G)`` with M = S^(h-1) G when there is one.
    ``modules`` and ``bisection`` are filled by :func:`ldi_topology_summary`
    when asked."""

    nodes: int
    degree: int
    links: int
    self_loops: int
    diameter: int | None
    diameter_formula: int
    avg_hops: float | None
    moore_diameter_bound: int
    bandwidth_factor: float
    melhem_form: tuple[int, int] | None
    hop_histogram: dict | None = None
    estimate: bool = False
    diameter_lower_bound: int | None = None
    avg_hops_ci95: tuple[float, float] | None = None
    avg_hops_stderr: float | None = None
    samples: int | None = None
    modules: ClusterMetrics | None = None
    bisection: Bisection | None = None

    @property
    def topology(self) -> str:
        return f"LDI({self.nodes},{self.degree})"

    def as_dict(self) -> dict:
        out = {"topology": self.topology, "family": "ldi", "nodes": self.nodes, "degree": self.degree,
               "links": self.links, "self_loops": self.self_loops, "diameter": self.diameter,
               "diameter_formula": self.diameter_formula}
        if self.estimate:
            out.update({"diameter_lower_bound": self.diameter_lower_bound, "avg_hops": self.avg_hops,
                        "avg_hops_ci95": None if self.avg_hops_ci95 is None else list(self.avg_hops_ci95),
                        "avg_hops_stderr": self.avg_hops_stderr, "estimate": True, "samples": self.samples})
        else:
            out.update({"avg_hops": self.avg_hops, "hop_histogram": self.hop_histogram})
        out.update({"moore_diameter_bound": self.moore_diameter_bound, "bandwidth_factor": self.bandwidth_factor,
                    "melhem_form": None if self.melhem_form is None
                    else {"h": self.melhem_form[0], "G": self.melhem_form[1]}})
        if self.modules is not None:
            out.update(self.modules.as_dict())
        if self.bisection is not None:
            out.update(self.bisection.as_dict())
        return out


@dataclass(frozen=True)
class SuperIPFormula:
    """A super-IP graph's nucleus, its ``t`` and the diameter formula
    (Yeh & Parhami Cor. 4.2); ``formula_holds`` compares it with the
    measured diameter (None when that was not measured)."""

    nucleus_nodes: int
    nucleus_diameter: int | None
    t: int
    diameter_formula: int
    formula_holds: bool | None = None

    def as_dict(self) -> dict:
        out = {"nucleus_nodes": self.nucleus_nodes, "nucleus_diameter": self.nucleus_diameter, "t": self.t,
               "diameter_formula": self.diameter_formula}
        if self.formula_holds is not None:
            out["formula_holds"] = self.formula_holds
        return out


@dataclass(frozen=True)
class FamilyReport:
    """What :func:`measure` finds: the distance metrics, the links per node
    of a quotient (``ports``), a super-IP graph's diameter formula, module
    metrics and the bisection estimate (each None when not measured)."""

    metrics: TopologyMetrics
    ports: int | None = None
    formula: SuperIPFormula | None = None
    modules: ClusterMetrics | None = None
    bisection: Bisection | None = None

    def as_dict(self) -> dict:
        out = self.metrics.as_dict()
        if self.ports is not None:
            out["ports"] = self.ports
        for part in (self.formula, self.modules, self.bisection):
            if part is not None:
                out.update(part.as_dict())
        return out


def ldi_summary(M: int, S: int, *, exact: bool | None = None, samples: int | None = None,
                seed: int = 0) -> LdiSummary:
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
    common = dict(nodes=M, degree=S, links=M * S,
                  self_loops=int((g.indices.reshape(M, S) == np.arange(M)[:, None]).sum()),
                  diameter_formula=ldi.diameter(M, S), moore_diameter_bound=ldi.moore_diameter_bound(M, S),
                  bandwidth_factor=ldi.bandwidth_factor(M, S), melhem_form=ldi.melhem_form(M, S))
    if not exact:
        est = sampled_distance_stats(g, samples, seed)
        return LdiSummary(**common, diameter=ldi.diameter(M, S), avg_hops=est.avg_hops, estimate=True,
                          diameter_lower_bound=est.diameter_lower_bound, avg_hops_ci95=est.avg_hops_ci95,
                          avg_hops_stderr=est.avg_hops_stderr, samples=est.samples)
    stats = distance_stats(g)
    return LdiSummary(**common, diameter=stats.diameter, avg_hops=stats.avg_hops,
                      hop_histogram=stats.as_dict()["hop_histogram"])


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


def measure(built, modules=None, bisection: bool = False, exact: bool | None = None) -> FamilyReport:
    """Metrics of a built family (a Topology or an IP graph): distances
    (:meth:`~permnet.gen.topologies.families.Topology.metrics`), for super-IP
    graphs the diameter formula (Yeh & Parhami Cor. 4.2), module metrics
    (Sections 5.2-5.4) for ``modules`` (see :func:`modules_for`) and the
    METIS bisection estimate when asked."""
    from permnet.gen.analysis import clusters

    topo = getattr(built, "topology", built)
    mods = modules_for(modules, built, topo)  # a bad --modules is refused before the metrics are computed
    m = topo.metrics(exact=exact)
    # links per node of a quotient (loops and repeats kept): its planes
    ports = built.ports if hasattr(built, "ports") else None
    formula = None
    if hasattr(built, "diameter_formula") and getattr(built, "levels", 0) <= 8:
        # the formula's t comes from an exhaustive search over box arrangements (l <= 8)
        nu = built.nucleus.topology.metrics()
        f = built.diameter_formula()
        formula = SuperIPFormula(nu.nodes, nu.diameter, built.t(), f,
                                 None if m.diameter is None else f == m.diameter)
    mod_metrics = None
    if mods is not None and m.estimate:
        # inter-cluster distances are all pairs of contracted modules: affordable when there are few
        # enough of them (QCN(3, Q7/Q3): 16,384 modules of 16), else as costly as exact metrics
        from permnet.gen.errors import PermnetError
        from permnet.gen.graph.sampled import EXACT_WORK_LIMIT
        try:
            mod_metrics = clusters.cluster_metrics(topo, mods, m.diameter, m.degree, measure_missing=False,
                                                   max_work=EXACT_WORK_LIMIT)
        except PermnetError:
            if modules is not None:      # asked for: say why there are none; the family default: leave them out
                raise
        mods = None
    if mods is not None:
        mod_metrics = clusters.cluster_metrics(topo, mods, m.diameter, m.degree)
    return FamilyReport(m, ports, formula, mod_metrics, clusters.bisection_width(topo) if bisection else None)


def ldi_topology_summary(M: int, S: int, modules=None, bisection: bool = False, exact: bool | None = None,
                         samples: int | None = None) -> LdiSummary:
    """:func:`ldi_summary` plus, when asked, module metrics and the bisection
    estimate of LDI as a :class:`~permnet.gen.topologies.families.Topology`."""
    from permnet.gen.analysis import clusters

    if modules is None and not bisection:
        return ldi_summary(M, S, exact=exact, samples=samples)
    topo = ldi.topology(M, S)
    mods = modules_for(modules, topo, topo)  # a bad --modules is refused before the distances are computed
    rep = ldi_summary(M, S, exact=exact, samples=samples)
    return replace(rep,
                   modules=None if mods is None else clusters.cluster_metrics(topo, mods, rep.diameter, rep.degree),
                   bisection=clusters.bisection_width(topo) if bisection else None)
