"""One-call summaries of a topology, shared by the CLI, the demo and tests."""

from __future__ import annotations

import numpy as np

from permnet.gen.topologies import ldi
from permnet.gen.graph.metrics import Digraph, distance_stats

__all__ = ["ldi_summary"]


def ldi_summary(M: int, S: int) -> dict:
    """Metrics of LDI(M, S): exact diameter and average hops over ordered
    pairs of distinct nodes (by BFS), the closed-form diameter h, the
    directed Moore bound and the bandwidth factor S/h (Section 5)."""
    ldi.check_params(M, S)
    stats = distance_stats(Digraph.from_successors(ldi.successors(M, S)))
    form = ldi.melhem_form(M, S)
    return {
        "topology": f"LDI({M},{S})",
        "family": "ldi",
        "nodes": M,
        "degree": S,
        "links": M * S,
        "self_loops": int((ldi.successors(M, S) == np.arange(M)[:, None]).sum()),
        "diameter": stats.diameter,
        "diameter_formula": ldi.diameter(M, S),
        "avg_hops": stats.avg_hops,
        "hop_histogram": stats.as_dict()["hop_histogram"],
        "moore_diameter_bound": ldi.moore_diameter_bound(M, S),
        "bandwidth_factor": ldi.bandwidth_factor(M, S),
        "melhem_form": None if form is None else {"h": form[0], "G": form[1]},
    }
