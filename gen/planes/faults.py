"""Faulty nodes in LDI(M, S) and reconfiguration (Melhem, Section 4).

    >>> from permnet.gen.planes.faults import fault_report
    >>> r = fault_report(15, 5, [1, 2, 4])          # Figure 6(b)
    >>> r["damaged"]["connected"], r["reembedded"]["diameter"]
    (False, 2)

The damaged network keeps the surviving nodes and the links between them.
Because the switches are non-blocking, connectivity is restored by
re-embedding LDI(M-f, S) on the f-fewer survivors: survivor k (in increasing
node order) plays node k of LDI(M-f, S); ports of failed nodes are left
unconnected in every plane.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from permnet.gen.errors import require
from permnet.gen.topologies import ldi
from permnet.gen.graph.metrics import Digraph, distance_stats
from permnet.gen.planes.decompose import ldi_planes

__all__ = ["check_failed", "damaged_digraph", "reembed_planes", "fault_report"]


def check_failed(M: int, failed) -> list[int]:
    """Validate a failed-node list: integers in range, none named twice."""
    seen: set[int] = set()
    for v in failed:
        require(isinstance(v, (int, np.integer)), f"failed node {v!r} is not an integer")
        require(0 <= v < M, f"failed node {v} out of range 0..{M - 1}")
        require(v not in seen, f"failed node {v} named twice")
        seen.add(int(v))
    return sorted(seen)


def damaged_digraph(M: int, S: int, failed) -> tuple[Digraph, np.ndarray]:
    """The surviving nodes (relabelled 0..M-f-1) with the links among them,
    and the array mapping new labels to original node numbers."""
    failed = check_failed(M, failed)
    alive = np.ones(M, dtype=bool)
    alive[failed] = False
    survivors = np.nonzero(alive)[0]
    label = np.full(M, -1, dtype=np.int64)
    label[survivors] = np.arange(len(survivors))
    succ = ldi.successors(M, S)[survivors]
    tails = np.repeat(np.arange(len(survivors)), S)
    heads = label[succ.reshape(-1)]
    keep = heads >= 0
    return Digraph.from_arcs(len(survivors), tails[keep], heads[keep]), survivors


def reembed_planes(M: int, S: int, failed, method: str = "auto") -> np.ndarray:
    """Planes of LDI(M-f, S) on the survivors, in original port numbers
    (-1 on the ports of failed nodes)."""
    failed = check_failed(M, failed)
    survivors = np.setdiff1d(np.arange(M), failed)
    Mf = len(survivors)
    require(Mf > S, f"{Mf} survivors: LDI(M-f, S) needs more than S={S} nodes")
    small = ldi_planes(Mf, S, method).planes
    out = np.full((S, M), -1, dtype=np.int64)
    out[:, survivors] = survivors[small]
    return out


def fault_report(M: int, S: int, failed, method: str = "auto") -> dict:
    """Connectivity and diameter of the damaged LDI(M, S), and the
    re-embedded LDI(M-f, S) with its planes."""
    ldi.check_params(M, S)
    failed = check_failed(M, failed)
    g, survivors = damaged_digraph(M, S, failed)
    stats = distance_stats(g)
    nxg = nx.DiGraph()
    nxg.add_nodes_from(range(g.n))
    nxg.add_edges_from(zip(*(a.tolist() for a in g.arcs())))
    components = sorted((sorted(int(survivors[v]) for v in c)
                         for c in nx.strongly_connected_components(nxg)), key=lambda c: (len(c), c))
    planes = reembed_planes(M, S, failed, method)
    Mf = M - len(failed)
    re_stats = distance_stats(Digraph.from_successors(ldi.successors(Mf, S)))
    return {
        "nodes": M,
        "degree": S,
        "failed": failed,
        "connected": stats.strongly_connected,
        "diameter": stats.diameter,
        "damaged": {
            "connected": stats.strongly_connected,
            "diameter": stats.diameter,
            "avg_hops": stats.avg_hops,
            "strong_components": len(components),
            "smallest_component": components[0] if components else [],
        },
        "reembedded": {
            "topology": f"LDI({Mf},{S})",
            "nodes": Mf,
            "diameter": re_stats.diameter,
            "avg_hops": re_stats.avg_hops,
            "planes": [[int(e) if e >= 0 else None for e in row] for row in planes],
        },
    }
