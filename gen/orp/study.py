"""The paper's comparisons as library calls (Yasudo et al., Section 6 and
Figures 5-6): conventional topologies against the annealed graph, and
h-ASPL against the switch count m."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import PermnetError, require

__all__ = ["compare_conventional", "HasplVsM", "haspl_vs_m"]


def compare_conventional(n: int, r: int, *, seconds: float, seed: int = 0, dims: int = 2) -> dict:
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
            rows.append({"topology": name, "skipped": str(exc)})
            continue
        rows.append({"topology": name, "switches": g.m, "haspl": g.haspl(), "diameter": g.diameter(),
                     "bisection": bisection(g, seed)})
    res = search(n, r, seconds=seconds, seed=seed)
    rows.append({"topology": "annealed (m_opt)", "switches": res.graph.m, "haspl": res.haspl,
                 "diameter": res.diameter, "bisection": bisection(res.graph, seed)})
    return {"hosts": n, "radix": r, "haspl_lb": haspl_lower_bound(n, r), "rows": rows}


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
