"""Route words of routers whose routing is loaded at run time (issue 24).

    >>> from permnet.gen.routing.runtime import nexthop_words, route_table
    >>> from permnet.gen.planes.decompose import ldi_planes
    >>> planes = ldi_planes(9, 3).planes
    >>> nexthop_words(9, 3, planes[[1, 2, 0]])[:3]     # node 0: LDI links 0, 1, 2 on planes 2, 0, 1
    [(0, 0, 2), (0, 1, 0), (0, 2, 1)]
    >>> t = route_table(planes); t.method, int(t.length.max())
    ('ldi-melhem', 2)

A plane swap (:mod:`permnet.hdl.swapctl`) loads new planes (the words of
:mod:`permnet.gen.planes.runtime`) and, with them, the routing that goes with
them; this module computes the latter as ``(node, addr, data)`` writes into the
routers' shadow tables (:class:`permnet.hdl.router.Router` with loadable
routes). Two routers:

* ``nexthop`` (Melhem's routing of LDI(M, S), the divider-free unit picks the
  LDI link L of a head; Melhem eq. 3 puts link L of node n, to
  ``(S n + L) mod M``, on some plane): the node's link-to-plane map,
  ``addr`` = L, ``data`` = the plane (:func:`nexthop_words`). New planes must
  again be made of LDI(M, S) links (a relabelling of the planes, another
  decomposition); the routes, as node sequences, do not change.
* ``table``: per node a table keyed by ``(hop, dst)``, ``addr = hop << bits(M-1)
  | dst``, ``data = arrived | plane << 1`` (:func:`table_words`); every state
  no route reaches, a destination that no longer exists included, reads
  ``arrived`` (such a head is ejected where it is rather than sent on). The
  new routes must be decided by ``(hop, dst)`` at every node (true of
  destination-based tables such as ``shortest`` and of LDI routing, whose
  Theorem 3 routes may pass through the destination, hence the hop).

Planes with unconnected ports (``permnet faults``: LDI(M-f, S) re-embedded on
the survivors, Melhem Section 4) are routed on the survivors only
(:func:`route_table`): LDI routing when the survivors' planes are LDI links in
survivor numbering, else shortest paths; pairs with a failed node get no route.
"""

from __future__ import annotations

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.routing import tables

__all__ = ["ROUTERS", "key_addr", "nexthop_words", "table_words", "route_table", "alive_nodes"]

ROUTERS = ("nexthop", "table")


def _bits(x: int) -> int:
    return max(1, int(x).bit_length())


def key_addr(hop: int, dst: int, M: int) -> int:
    """The table address of ``(hop, dst)``: ``hop << bits(M - 1) | dst``."""
    return (int(hop) << _bits(M - 1)) | int(dst)


def nexthop_words(M: int, S: int, planes) -> list[tuple[int, int, int]]:
    """``(node, L, plane)`` for every node and LDI link L (:func:`permnet.gen.routing.tables.link_planes`);
    an error unless every plane is made of LDI(M, S) links."""
    arr = np.asarray(planes, dtype=np.int64)
    require(arr.shape == (S, M), f"{arr.shape[0]} planes of {arr.shape[-1]} ports given, the network has {S} of {M}")
    require(bool(np.all(arr >= 0)), "the next-hop router needs every port connected (no failed nodes); "
            "build with --router table to swap to a faults reconfiguration")
    try:
        lp = tables.link_planes(M, S, arr)
    except PermnetError as e:
        raise PermnetError(f"the next-hop router routes LDI({M},{S}) links only: {e}; build with --router table "
                           "to swap to other planes") from None
    return [(n, L, int(lp[n, L])) for n in range(M) for L in range(S)]


def table_words(planes, length, hops, hop_bits: int) -> list[tuple[int, int, int]]:
    """Every ``(node, addr, data)`` of the ``(hop, dst)``-keyed tables (module doc) for the
    routes ``length[src][dst]``, ``hops[src][dst][k]`` on ``planes``: each route is walked
    through the planes and every node it visits gets its decision; states no route reaches
    read ``arrived``. An error if two routes want different decisions at one node and key,
    or a route is longer than ``2**hop_bits - 1`` hops."""
    arr = np.asarray(planes, dtype=np.int64)
    S, M = arr.shape
    length, hops = np.asarray(length), np.asarray(hops)
    longest = int(length.max()) if length.size else 0
    require(longest < 1 << hop_bits, f"routes of {longest} hops do not fit {hop_bits} hop bits")
    table: dict[tuple[int, int], int] = {}
    for s in range(M):
        for d in range(M):
            u, k_end = s, int(length[s, d])
            if k_end == 0 and s != d:
                continue                                    # no route (a failed node)
            for k in range(k_end + 1):
                word = 1 if k == k_end else int(hops[s, d, k]) << 1
                key = (u, key_addr(k, d, M))
                if table.setdefault(key, word) != word:
                    raise PermnetError(f"the routes need more than (hop, dst) to decide at node {u} "
                                       f"(hop {k}, dst {d}): a source-routed table cannot be loaded")
                if k < k_end:
                    u = int(arr[hops[s, d, k], u])
    return [(n, key_addr(h, d, M), table.get((n, key_addr(h, d, M)), 1))
            for n in range(M) for h in range(1 << hop_bits) for d in range(M)]


def alive_nodes(planes) -> np.ndarray:
    """The nodes with every plane port connected (the others have failed), checked to be
    closed: the connected ports of the survivors reach survivors only."""
    arr = np.asarray(planes, dtype=np.int64)
    alive = np.all(arr >= 0, axis=0)
    reached = arr[:, alive]
    require(bool(np.all(alive[reached])), "some plane port joins a survivor to a node with unconnected ports")
    return np.flatnonzero(alive)


def route_table(planes) -> tables.RouteTable:
    """Routes for ``planes`` (S x M, -1 unconnected): LDI routing
    (:func:`permnet.gen.routing.tables.ldi_table`, Melhem's where it applies) when the
    survivors' planes, in survivor numbering, are made of LDI(K, S) links (K survivors),
    else shortest paths; in original numbering, length 0 and no hops for pairs with a
    failed node."""
    arr = np.asarray(planes, dtype=np.int64)
    S, M = arr.shape
    alive = alive_nodes(arr)
    K = len(alive)
    require(K >= 2, "fewer than two nodes left")
    index = np.full(M, -1, dtype=np.int64)
    index[alive] = np.arange(K)
    sub = index[arr[:, alive]]
    try:
        tables.link_planes(K, S, sub)
        t = tables.ldi_table(K, S, sub)
    except PermnetError:
        t = tables.shortest_table(sub)
    length = np.zeros((M, M), dtype=np.int16)
    hops = np.full((M, M, t.hops.shape[2]), -1, dtype=np.int8)
    length[np.ix_(alive, alive)] = t.length
    hops[np.ix_(alive, alive)] = t.hops
    return tables.RouteTable(arr, length, hops, t.method)
