"""The paper's comparisons as library calls (Yasudo et al., Section 6 and
Figures 5-6): conventional topologies against the annealed graph, and
h-ASPL against the switch count m."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import PermnetError, require

__all__ = ["ComparisonRow", "ConventionalComparison", "compare_conventional", "HasplVsM", "haspl_vs_m"]


@dataclass(frozen=True)
class ComparisonRow:
    """One topology of :func:`compare_conventional`: its switches, h-ASPL,
    diameter and bisection, or why it was ``skipped``."""

    topology: str
    switches: int | None = None
    haspl: float | None = None
    diameter: int | None = None
    bisection: int | None = None
    skipped: str | None = None

    def as_dict(self) -> dict:
        if self.skipped is not None:
            return {"topology": self.topology, "skipped": self.skipped}
        return {"topology": self.topology, "switches": self.switches, "haspl": self.haspl,
                "diameter": self.diameter, "bisection": self.bisection}


@dataclass(frozen=True)
class ConventionalComparison:
    """The rows of :func:`compare_conventional` and Theorem 2's bound ``haspl_lb``."""

    hosts: int
    radix: int
    haspl_lb: float
    rows: list[ComparisonRow]

    def as_dict(self) -> dict:
        return {"hosts": self.hosts, "radix": self.radix, "haspl_lb": self.haspl_lb,
                "rows": [row.as_dict() for row in self.rows]}


def compare_conventional(n: int, r: int, *, seconds: float, seed: int = 0, dims: int = 2
                         ) -> ConventionalComparison:
    """Torus (``dims``-D), dragonfly and fat-tree built by formulas 3-5,
    each with its h-ASPL, diameter and Kernighan-Lin bisection, and the
    annealed graph at m_opt; topologies that cannot be built for (n, r)
    are listed with the reason."""
    from permnet.gen.orp.anneal import search
    from permnet.gen.orp.bounds import haspl_lower_bound
    from permnet.gen.orp.conventional import TOPOLOGIES, bisection

    rows = []
    for name, build in TOPOLOGIES.items():
        try:
            g = build(n, r, dims) if name == "torus" else build(n, r)
        except PermnetError as exc:
            rows.append(ComparisonRow(name, skipped=str(exc)))
            continue
        rows.append(ComparisonRow(name, g.m, g.haspl(), g.diameter(), bisection(g, seed)))
    res = search(n, r, seconds=seconds, seed=seed)
    rows.append(ComparisonRow("annealed (m_opt)", res.graph.m, res.haspl, res.diameter, bisection(res.graph, seed)))
    return ConventionalComparison(n, r, haspl_lower_bound(n, r), rows)


@dataclass
class HasplVsM:
    m_opt: int
    haspl: dict            # m -> h-ASPL found
    best: object | None    # the annealing result at m_opt


def haspl_vs_m(n: int, r: int, *, evaluations: int, samples: int, seed: int = 0) -> HasplVsM:
    """Anneal at ``samples`` switch counts from m_opt/2 to 2 m_opt (m_opt
    included); counts that cannot hold the hosts are skipped (Figure 5)."""
    from permnet.gen.orp.anneal import anneal
    from permnet.gen.orp.bounds import m_opt

    require(samples >= 1, "--samples must be >= 1")
    mo = m_opt(n, r)
    ms = sorted({int(x) for x in np.linspace(max(2, mo // 2), 2 * mo, samples)} | {mo})
    out = HasplVsM(mo, {}, None)
    for m in ms:
        try:
            res = anneal(n, r, m=m, evaluations=evaluations, seed=seed)
        except PermnetError:
            continue
        out.haspl[m] = res.haspl
        if m == mo:
            out.best = res
    return out
