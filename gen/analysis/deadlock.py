"""Channel dependency graph and deadlock freedom (Melhem, Section 6; Dally & Seitz).

A *channel* is a link with a virtual channel: ``((n, y), v)``, the buffer of
VC v at the far end of node n's link through plane y.  A packet holding
channel a while it waits for channel b makes a *dependency* a -> b; routing
is deadlock-free if the graph of all dependencies the routing can create is
acyclic (Dally & Seitz's theorem).  The dependencies are read off a
:class:`permnet.gen.routing.tables.RouteTable`: for every route and every pair
of consecutive hops k, k+1, the channel of hop k depends on that of hop k+1.

VC policy ``hop`` (Melhem, Section 6: h virtual channels for h-hop routes):
hop k (0-based) uses VC ``min(k, vcs - 1)``.  With ``vcs`` at least the
longest route the VC index grows along every dependency, so the graph is
acyclic whatever the topology; with fewer VCs the last VC is shared by the
later hops and cycles can appear (LDI with one VC: node 0's self-loop, or a
cycle of the de Bruijn graph, is walked by several routes).

    >>> from permnet.gen.routing import tables
    >>> net = tables.network("ldi", 16, 4)
    >>> analyse(net.table, vcs=2).acyclic, analyse(net.table, vcs=1).acyclic
    (True, False)

Acyclicity is decided by Tarjan/Pearce strongly connected components
(scipy, iterative, O(channels + dependencies)) plus a self-dependency check;
a cycle is the shortest one through a channel of a non-trivial component
(BFS from it).  Dependencies are collected in chunks of routes and
de-duplicated as they come, so memory is bounded by the number of distinct
dependencies (at most channels x S), not by the number of routes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from permnet.gen.errors import require

__all__ = ["DeadlockReport", "channel", "channel_id", "dependencies", "analyse", "POLICIES"]

POLICIES = ("hop",)
_CHUNK = 1 << 21


@dataclass
class DeadlockReport:
    """``acyclic``; ``cycle`` as ``[((node, plane), vc), ...]`` (each depends on the next, the last on the first)."""

    acyclic: bool
    cycle: list = field(default_factory=list)
    channels: int = 0
    dependencies: int = 0
    vcs: int = 1
    vcs_sufficient: int = 1
    max_hops: int = 0
    routing: str = ""
    policy: str = "hop"
    topology: str = ""

    def as_dict(self) -> dict:
        return {"topology": self.topology, "routing": self.routing, "policy": self.policy, "vcs": self.vcs,
                "vcs_sufficient": self.vcs_sufficient, "max_hops": self.max_hops, "acyclic": self.acyclic,
                "cycle": [[[n, y], v] for (n, y), v in self.cycle],
                "channels": self.channels, "dependencies": self.dependencies}

    def cycle_text(self, limit: int = 8) -> str:
        parts = [f"({n},{y})/vc{v}" for (n, y), v in self.cycle[:limit]]
        more = f" ... ({len(self.cycle)} channels)" if len(self.cycle) > limit else ""
        return " -> ".join(parts) + more + (" -> back" if self.cycle else "")


#: the most virtual channels analysed or simulated (netsim's limit too): hop k uses VC
#: min(k, vcs-1), so VCs beyond the longest route are never used anyway
MAX_VCS = 64


def channel_id(node, plane, vc, S: int, vcs: int):
    """Index of channel ((node, plane), vc): ``(node S + plane) vcs + vc``."""
    return (node * S + plane) * vcs + vc


def channel(c: int, S: int, vcs: int) -> tuple[tuple[int, int], int]:
    """Inverse of :func:`channel_id`."""
    link, v = divmod(int(c), vcs)
    n, y = divmod(link, S)
    return (n, y), v


def vc_of_hop(k, vcs: int, policy: str = "hop"):
    """The VC used by hop k under ``policy`` (``hop``: ``min(k, vcs-1)``)."""
    require(policy in POLICIES, f"unknown VC policy {policy!r}; choose from {', '.join(POLICIES)}")
    return np.minimum(k, vcs - 1)


def dependencies(table, vcs: int, policy: str = "hop") -> np.ndarray:
    """Distinct dependencies as codes ``a * C + b`` (C channels), sorted."""
    require(isinstance(vcs, (int, np.integer)) and vcs >= 1, f"vcs must be >= 1, got {vcs}")
    S, M = table.planes.shape
    C = M * S * vcs
    planes = table.planes
    H = table.hops.shape[2]
    rows = max(1, _CHUNK // max(M, 1))
    found = np.zeros(0, dtype=np.int64)
    for r0 in range(0, M, rows):
        r1 = min(M, r0 + rows)
        src = np.repeat(np.arange(r0, r1, dtype=np.int64), M)
        dst = np.tile(np.arange(M, dtype=np.int64), r1 - r0)
        length = table.length[src, dst].astype(np.int64)
        cur = src.copy()
        prev = np.full(src.size, -1, dtype=np.int64)
        parts = [found]
        for k in range(H):
            live = k < length
            if not live.any():
                break
            y = table.hops[src, dst, k].astype(np.int64)
            ch = np.where(live, channel_id(cur, np.maximum(y, 0), vc_of_hop(k, vcs, policy), S, vcs), -1)
            both = live & (prev >= 0)
            if both.any():
                parts.append(np.unique(prev[both] * C + ch[both]))
            prev = ch
            cur = np.where(live, planes[np.maximum(y, 0), cur], cur)
        found = np.unique(np.concatenate(parts))
    return found


def analyse(table, vcs: int | None = None, policy: str = "hop", topology: str = "") -> DeadlockReport:
    """Build the channel dependency graph and decide whether it is acyclic.

    ``vcs`` defaults to the longest route (hop-indexed VCs, always enough).
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    H = table.max_hops
    require(vcs is None or 1 <= vcs <= MAX_VCS, f"--vcs must be in 1..{MAX_VCS}, got {vcs}")
    vcs = max(H, 1) if vcs is None else vcs
    S, M = table.planes.shape
    C = M * S * vcs
    deps = dependencies(table, vcs, policy)
    a, b = np.divmod(deps, C)
    rep = DeadlockReport(True, [], C, int(deps.size), vcs, max(H, 1), H, table.method, policy, topology)
    self_dep = a == b
    if self_dep.any():
        rep.acyclic, rep.cycle = False, [channel(a[self_dep][0], S, vcs)]
        return rep
    g = csr_matrix((np.ones(a.size, dtype=np.int8), (a, b)), shape=(C, C))
    ncomp, label = connected_components(g, directed=True, connection="strong")
    if ncomp == C:
        return rep
    sizes = np.bincount(label)
    comp = int(np.argmax(sizes > 1))
    start = int(np.argmax(label == comp))
    # shortest cycle through `start`: BFS from start, close with an arc back to start
    order, pred = breadth_first_order(g, start, directed=True, return_predecessors=True)
    depth = np.full(C, -1, dtype=np.int64)
    depth[order] = np.arange(order.size)          # BFS order is monotone in depth: enough to pick the nearest
    into = a[(b == start) & (depth[a] >= 0)]
    last = int(into[np.argmin(depth[into])])
    path = [last]
    for _ in range(C):                             # bounded walk back along BFS predecessors
        if path[-1] == start:
            break
        path.append(int(pred[path[-1]]))
    path.reverse()
    rep.acyclic = False
    rep.cycle = [channel(c, S, vcs) for c in path]
    return rep


def check(topology: str, nodes: int, degree: int | None = None, *, vcs: int | None = None,
          routing: str = "family", policy: str = "hop", chords=None) -> DeadlockReport:
    """Build the network (:func:`permnet.gen.routing.tables.network`) and analyse it."""
    from permnet.gen.routing import tables

    require(vcs is None or 1 <= vcs <= MAX_VCS, f"--vcs must be in 1..{MAX_VCS}, got {vcs}")
    net = tables.network(topology, nodes, degree, routing, chords=chords)
    return analyse(net.table, vcs, policy, topology=net.name)
