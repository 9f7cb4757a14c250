"""Faulty nodes in LDI(M, S) and reconfiguration (Melhem, Section 4).

    >>> from permnet.gen.planes.faults import fault_report
    >>> r = fault_report(15, 5, [1, 2, 4])          # Figure 6(b)
    >>> r.damaged.connected, r.reembedded.diameter
    (False, 2)

The damaged network keeps the surviving nodes and the links between them.
Because the switches are non-blocking, connectivity is restored by
re-embedding LDI(M-f, S) on the f-fewer survivors: survivor k (in increasing
node order) plays node k of LDI(M-f, S); ports of failed nodes are left
unconnected in every plane.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import networkx as nx
import numpy as np

from permnet.gen.errors import require
from permnet.gen.topologies import ldi
from permnet.gen.graph.metrics import Digraph, distance_stats
from permnet.gen.planes.decompose import ldi_planes

__all__ = ["DamagedNetwork", "Reembedding", "FaultReport", "check_failed", "damaged_digraph", "reembed_planes",
           "fault_report"]


@dataclass(frozen=True)
class DamagedNetwork:
    """The survivors with the links among them: strong connectivity, and
    diameter and average hops over ordered pairs of distinct survivors
    (None unless strongly connected); its strong components, the smallest
    (fewest nodes, then least node numbers) in original node numbers."""

    connected: bool
    diameter: int | None
    avg_hops: float | None
    strong_components: int
    smallest_component: list[int]

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Reembedding:
    """LDI(M-f, S) on the survivors: its diameter and average hops, and its
    planes in original port numbers (-1 on the ports of failed nodes)."""

    nodes: int
    degree: int
    diameter: int | None
    avg_hops: float | None
    planes: np.ndarray

    @property
    def topology(self) -> str:
        return f"LDI({self.nodes},{self.degree})"

    def as_dict(self) -> dict:
        return {"topology": self.topology, "nodes": self.nodes, "diameter": self.diameter, "avg_hops": self.avg_hops,
                "planes": [[int(e) if e >= 0 else None for e in row] for row in self.planes]}


@dataclass(frozen=True)
class FaultReport:
    """LDI(M, S) with the ``failed`` nodes: the damaged network and the re-embedding."""

    nodes: int
    degree: int
    failed: list[int]
    damaged: DamagedNetwork
    reembedded: Reembedding

    @property
    def connected(self) -> bool:
        return self.damaged.connected

    @property
    def diameter(self) -> int | None:
        return self.damaged.diameter

    def as_dict(self) -> dict:
        return {"nodes": self.nodes, "degree": self.degree, "failed": self.failed, "connected": self.connected,
                "diameter": self.diameter, "damaged": self.damaged.as_dict(), "reembedded": self.reembedded.as_dict()}


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


def fault_report(M: int, S: int, failed, method: str = "auto") -> FaultReport:
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
    damaged = DamagedNetwork(stats.strongly_connected, stats.diameter, stats.avg_hops, len(components),
                             components[0] if components else [])
    return FaultReport(M, S, failed, damaged, Reembedding(Mf, S, re_stats.diameter, re_stats.avg_hops, planes))
