"""Routing tables over switching planes: the link every packet takes at every hop.

A network is given as S switching planes (Melhem, Section 3): ``planes[y][n]``
is the node that node n reaches through plane y, so a *link* is a pair
``(n, y)`` and a route is a sequence of planes.  A :class:`RouteTable` holds
for every ordered pair (src, dst) the number of hops ``length[src, dst]`` and
the plane of each hop ``hops[src, dst, k]`` (-1 past the end).  The cycle-level
simulator (:mod:`permnet.sim.netsim`) uses it as source routing and the
deadlock analysis (:mod:`permnet.gen.analysis.deadlock`) reads its channel
dependencies from it.

    >>> from permnet.gen.routing import tables
    >>> net = tables.network("ldi", 18, 3)
    >>> net.table.nodes(7, 14)          # Melhem's Theorem 3 route (docs/theory/melhem.md)
    [7, 3, 10, 14]

Routing functions
-----------------
* IP and super-IP families (``IP_TOPOLOGIES``: HSN, the cyclic-shift networks,
  super-flip, RHSN, RCC, QCN) are built from ``levels`` and ``nucleus`` (and
  ``merge`` for QCN) exactly as ``permnet topo`` builds them; their planes are
  the generators (QCN: its ports, by edge colouring) and their routing is
  ``shortest``.
* ``family``: LDI(M, S) uses its own routing (:func:`permnet.gen.topologies.ldi.route`,
  ``auto``: Melhem's Theorem 3 with the Section 4 shortcuts where
  ``M = S^(h-1) G``, else the digit rule for shortest routes), evaluated for
  all pairs at once; the k-ary n-cube uses dimension-order routing (lowest
  dimension first, the shorter way round, ties the + way); every other family
  has no routing algorithm of its own here and uses ``shortest``.
* ``shortest``: BFS distances; at each hop the lowest plane whose far end is
  one hop closer to the destination (a destination-based table, so every
  prefix of a route is itself a shortest route).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.topologies.names import IP_NETWORKS, NETWORKS

__all__ = ["RouteTable", "Network", "TOPOLOGIES", "IP_TOPOLOGIES", "ROUTINGS", "network", "from_planes", "ldi_table",
           "shortest_table", "torus_dor_table", "plane_of", "link_planes"]

#: IP and super-IP families (Yeh & Parhami), built from --levels/--nucleus as ``permnet topo`` builds them
IP_TOPOLOGIES = IP_NETWORKS
TOPOLOGIES = NETWORKS
ROUTINGS = ("family", "shortest")
MAX_NODES = 4096
#: the most M^2 S (every source, destination and plane) a shortest-path table is built for:
#: LDI(1024, 32), 2^25, took 2.6 s on the audit machine (and as long again for the deadlock analysis)
MAX_SHORTEST_WORK = 1 << 28
_CHUNK = 1 << 22          # pairs handled at once when walking (bounded temporaries)


@dataclass(frozen=True)
class RouteTable:
    """``length[s, d]`` hops and ``hops[s, d, k]`` planes of the route s -> d."""

    planes: np.ndarray     # (S, M) int64
    length: np.ndarray     # (M, M) int16
    hops: np.ndarray       # (M, M, H) int8, -1 past the end
    method: str

    @property
    def M(self) -> int:
        return int(self.planes.shape[1])

    @property
    def S(self) -> int:
        return int(self.planes.shape[0])

    @property
    def max_hops(self) -> int:
        return int(self.length.max()) if self.length.size else 0

    def links(self, src: int, dst: int) -> list[int]:
        """Planes taken by the route src -> dst."""
        return [int(y) for y in self.hops[src, dst, : self.length[src, dst]]]

    def nodes(self, src: int, dst: int) -> list[int]:
        """Nodes visited by the route src -> dst (src first, dst last)."""
        out = [int(src)]
        for y in self.links(src, dst):
            out.append(int(self.planes[y, out[-1]]))
        return out


@dataclass(frozen=True)
class Network:
    """A named network: its planes and routing table."""

    name: str
    table: RouteTable
    params: dict

    @property
    def planes(self) -> np.ndarray:
        return self.table.planes


def plane_of(planes: np.ndarray, cur: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """Lowest plane y with ``planes[y, cur] == nxt`` (element-wise); an error if the link is missing."""
    S = planes.shape[0]
    out = np.full(cur.shape, -1, dtype=np.int64)
    for y in range(S - 1, -1, -1):
        out[planes[y, cur] == nxt] = y
    if np.any(out < 0):
        i = int(np.argmax(out < 0))
        raise PermnetError(f"no plane carries the link {int(cur.flat[i])} -> {int(nxt.flat[i])}")
    return out


def _from_next(planes: np.ndarray, next_plane, max_hops: int, method: str) -> RouteTable:
    """Walk ``next_plane(cur, dst, src, k) -> plane or -1 (arrived)`` from every
    source to every destination, ``max_hops`` at most, in bounded chunks."""
    S, M = planes.shape
    length = np.zeros((M, M), dtype=np.int16)
    hops = np.full((M, M, max(max_hops, 1)), -1, dtype=np.int8)
    rows = max(1, _CHUNK // max(M, 1))
    for r0 in range(0, M, rows):
        r1 = min(M, r0 + rows)
        src = np.repeat(np.arange(r0, r1, dtype=np.int64), M)
        dst = np.tile(np.arange(M, dtype=np.int64), r1 - r0)
        cur = src.copy()
        live = np.ones(src.size, dtype=bool)
        for k in range(max_hops + 1):
            y = np.full(src.size, -1, dtype=np.int64)
            y[live] = next_plane(cur[live], dst[live], src[live], k)
            live &= y >= 0
            if not live.any():
                break
            require(k < max_hops, f"{method} routing did not arrive within {max_hops} hops")
            idx = np.nonzero(live)[0]
            hops[src[idx], dst[idx], k] = y[idx]
            length[src[idx], dst[idx]] += 1
            cur[idx] = planes[y[idx], cur[idx]]
        require(np.array_equal(cur, dst), f"{method} routing ended at the wrong node")
    H = int(length.max()) if M else 0
    return RouteTable(planes, length, np.ascontiguousarray(hops[:, :, : max(H, 1)]), method)


def link_planes(M: int, S: int, planes: np.ndarray) -> np.ndarray:
    """``lp[n, L]`` = the plane carrying LDI link L of node n (target ``(S n + L) mod M``, Melhem eq. 3).
    When S divides M no plane is made of one link index, so this map differs from node to node."""
    lp = np.empty((M, S), dtype=np.int64)
    n = np.arange(M, dtype=np.int64)
    for y in range(S):
        L = (planes[y] - S * n) % M
        require(bool(np.all(L < S)), f"plane {y} is not made of LDI({M},{S}) links")
        lp[n, L] = y
    return lp


def ldi_table(M: int, S: int, planes: np.ndarray, method: str = "auto") -> RouteTable:
    """LDI(M, S)'s own routing for all pairs (see :func:`permnet.gen.topologies.ldi.route`):
    ``melhem`` = Theorem 3 (eqs. 10.a/10.b) with the Section 4 shortcuts
    (zero hops to itself; the direct link when h = 2), ``shortest`` = the
    least x with ``x = (d - S^k n) mod M < S^k`` read as k base-S digits."""
    from permnet.gen.topologies import ldi

    ldi.check_params(M, S)
    if method == "auto":
        method = "melhem" if ldi.melhem_form(M, S) else "shortest"
    h = ldi.diameter(M, S)
    lp = link_planes(M, S, planes)
    if method == "melhem":
        form = ldi.melhem_form(M, S)
        require(form is not None, f"Melhem routing needs M = S^(h-1)*G; not LDI({M},{S})")
        _, G = form

        def digits(src, dst):
            k = np.full(src.size, h, dtype=np.int64)
            first = (dst // S ** (h - 1) - S * src) % G      # least L with (S n + L) mod G = d div S^(h-1)
            x = first * S ** (h - 1) + dst % S ** (h - 1)     # l_0 then the tail digits of d (eq. 10.b)
            k[src == dst] = 0
            x[src == dst] = 0
            if h == 2:
                direct = (dst - S * src) % M
                one = (direct < S) & (src != dst)
                k[one], x[one] = 1, direct[one]
            return k, x
    elif method == "shortest":
        def digits(src, dst):
            k = np.full(src.size, -1, dtype=np.int64)
            x = np.zeros(src.size, dtype=np.int64)
            span = 1
            for j in range(h + 1):
                cand = (dst - span * src) % M
                hit = (k < 0) & (cand < span)
                k[hit], x[hit] = j, cand[hit]
                span *= S
            return k, x
    else:
        raise PermnetError(f"unknown LDI routing {method!r} (melhem, shortest, auto)")

    def next_plane(cur, dst, src, step):
        k, x = digits(src, dst)
        out = np.full(cur.size, -1, dtype=np.int64)
        go = step < k
        e = np.maximum(k - 1 - step, 0)
        L = (x // np.power(S, e)) % S
        out[go] = lp[cur[go], L[go]]
        return out
    return _from_next(np.asarray(planes, dtype=np.int64), next_plane, h, f"ldi-{method}")


def _distances(planes: np.ndarray) -> np.ndarray:
    """All-pairs hop distances (int16, -1 unreachable) by BFS (scipy), in row blocks."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    S, M = planes.shape
    g = csr_matrix((np.ones(S * M), (np.tile(np.arange(M), S), planes.reshape(-1))), shape=(M, M))
    out = np.empty((M, M), dtype=np.int16)
    rows = max(1, (1 << 21) // M)
    for r0 in range(0, M, rows):
        d = shortest_path(g, unweighted=True, indices=np.arange(r0, min(M, r0 + rows)))
        d[~np.isfinite(d)] = -1
        out[r0:r0 + d.shape[0]] = d.astype(np.int16)
    return out


def shortest_table(planes: np.ndarray) -> RouteTable:
    """Shortest-path routing from BFS: at each hop the lowest plane leading one hop closer."""
    planes = np.asarray(planes, dtype=np.int64)
    S, M = planes.shape
    require(M * M * S <= MAX_SHORTEST_WORK,
            f"shortest-path tables take M^2 S <= 2^{MAX_SHORTEST_WORK.bit_length() - 1} "
            f"(e.g. 4096 nodes of degree 16); {M} nodes of degree {S} is {M * M * S:,}")
    dist = _distances(planes)
    require(bool(np.all(dist >= 0)), "the network is not strongly connected: some destinations are unreachable")

    def next_plane(cur, dst, src, step):
        d = dist[cur, dst].astype(np.int64)
        out = np.full(cur.size, -1, dtype=np.int64)
        for y in range(planes.shape[0] - 1, -1, -1):
            ok = (d > 0) & (dist[planes[y, cur], dst] == d - 1)
            out[ok] = y
        return out
    return _from_next(planes, next_plane, int(dist.max()), "shortest")


def torus_dor_table(k: int, dims: int, planes: np.ndarray) -> RouteTable:
    """Dimension-order routing on the k-ary n-cube (node = base-k digits,
    :func:`permnet.gen.topologies.families.torus`): correct dimension 0 first,
    then 1, ...; in each the shorter way round, the + way on a tie."""
    planes = np.asarray(planes, dtype=np.int64)

    def next_plane(cur, dst, src, step):
        nxt = cur.copy()
        todo = np.ones(cur.size, dtype=bool)
        for i in range(dims):
            p = k ** i
            a, b = (cur // p) % k, (dst // p) % k
            fwd = (b - a) % k
            sel = todo & (fwd != 0)
            plus = fwd <= k - fwd
            step_d = np.where(plus, 1, -1)
            nxt[sel] = cur[sel] + (((a[sel] + step_d[sel]) % k) - a[sel]) * p
            todo &= fwd == 0
        out = np.full(cur.size, -1, dtype=np.int64)
        moving = nxt != cur
        out[moving] = plane_of(planes, cur[moving], nxt[moving])
        return out
    return _from_next(planes, next_plane, dims * (k // 2), "dimension-order")


def from_planes(planes: np.ndarray, routing: str = "shortest") -> RouteTable:
    """A table for planes with no family attached (a configuration file): shortest paths."""
    require(routing in ROUTINGS, f"unknown routing {routing!r}; choose from {', '.join(ROUTINGS)}")
    planes = np.asarray(planes, dtype=np.int64)
    require(planes.ndim == 2 and planes.shape[1] <= MAX_NODES,
            f"at most {MAX_NODES} nodes for routing tables, got {planes.shape[-1]}")
    require(bool(np.all(planes >= 0)), "every plane port must be connected (no null entries)")
    return shortest_table(planes)


def ip_network_graph(topology: str, levels: int | None, nucleus: str | None = None, merge: str | None = None,
                     symmetric: bool = False, max_nodes: int = MAX_NODES):
    """The built IP family (a :class:`~permnet.gen.topologies.ipgraph.SuperIP` or
    :class:`~permnet.gen.topologies.qcn.QCN`) and its display name, e.g. ``hsn(2,Q3)``."""
    from permnet.gen.topologies import ipgraph, qcn

    require(topology in IP_TOPOLOGIES, f"{topology!r} is not an IP family ({', '.join(IP_TOPOLOGIES)})")
    require(levels is not None, f"{topology} needs --levels (and --nucleus)")
    if topology == "qcn":
        require(not symmetric, "qcn has no symmetric variant")
        nucleus, merge = nucleus or "Q7", merge or "Q3"
        n, k = qcn.parse_merge(nucleus, merge)
        return qcn.qcn(levels, n, k, max_nodes=max_nodes), f"qcn({levels},Q{n}/Q{k})"
    require(merge is None, f"--merge is for qcn, not {topology}")
    nucleus = nucleus or ("K4" if topology == "rcc" else "hypercube:2")
    g = ipgraph.build_super(topology, levels, nucleus, symmetric, max_nodes)
    return g, f"{'symmetric-' if symmetric else ''}{topology}({levels},{nucleus})"


def network(topology: str, nodes: int | None, degree: int | None = None, routing: str = "family", *,
            chords=None, levels: int | None = None, nucleus: str | None = None, merge: str | None = None,
            symmetric: bool = False) -> Network:
    """Build a family from its size and degree, decompose it into planes and route it.

    ``ldi``: LDI(nodes, degree).  ``debruijn``: B(degree, D) with degree^D = nodes.
    ``kautz``: K(degree, D) with (degree+1) degree^(D-1) = nodes.  ``torus``:
    k-ary n-cube with n = degree/2 and k^n = nodes.  ``hypercube``: 2^degree = nodes.
    ``imase-itoh``: II(degree, nodes).  ``chordal``: ring of ``nodes`` with ``chords``
    (degree = 2 + chords per class).  Planes by Melhem's residue form / edge
    colouring (:mod:`permnet.gen.planes.decompose`).  IP families (``IP_TOPOLOGIES``)
    take ``levels``, ``nucleus``, ``merge`` (QCN) and ``symmetric`` instead, as
    ``permnet topo`` does; ``nodes`` and ``degree`` (planes), when given, must agree.
    """
    from permnet.gen.planes import decompose
    from permnet.gen.topologies import families as f

    require(topology in TOPOLOGIES, f"unknown topology {topology!r}; choose from {', '.join(TOPOLOGIES)}")
    require(routing in ROUTINGS, f"unknown routing {routing!r}; choose from {', '.join(ROUTINGS)}")
    if topology in IP_TOPOLOGIES:
        built, name = ip_network_graph(topology, levels, nucleus, merge, symmetric)
        n = built.topology.n
        require(nodes is None or nodes == n, f"--nodes {nodes} disagrees with {name}, which has {n} nodes")
        require(n <= MAX_NODES, f"{name} has {n} nodes; routing tables take at most {MAX_NODES}")
        planes = decompose.topology_planes(built).planes
        require(degree is None or degree == planes.shape[0],
                f"--degree {degree} disagrees with {name}, which has {planes.shape[0]} planes")
        return Network(name, shortest_table(planes), {"nodes": n, "degree": int(planes.shape[0]),
                                                      "levels": levels, **built.topology.params})
    require(levels is None and nucleus is None and merge is None and not symmetric,
            f"--levels, --nucleus, --merge and --symmetric are for the IP families ({', '.join(IP_TOPOLOGIES)})")
    require(isinstance(nodes, (int, np.integer)) and 2 <= nodes <= MAX_NODES,
            f"nodes must be in 2..{MAX_NODES}, got {nodes}")
    if topology != "chordal":
        require(degree is not None and degree >= 1, f"{topology} needs --degree")
    params: dict = {"nodes": int(nodes), "degree": degree}
    if topology == "ldi":
        planes = decompose.ldi_planes(nodes, degree).planes
        table = (ldi_table(nodes, degree, planes) if routing == "family" else shortest_table(planes))
        return Network(f"LDI({nodes},{degree})", table, params)
    built, name, solved = f.by_size(topology, int(nodes), degree, chords)
    params.update(solved)
    planes = decompose.topology_planes(built).planes
    # a chordal ring's degree follows from its chords (2 + chords per class): a --degree must agree
    require(topology != "chordal" or degree is None or degree == planes.shape[0],
            f"--degree {degree} disagrees with {name}, which has degree {planes.shape[0]} (2 + its chords per class)")
    params["degree"] = int(planes.shape[0])
    if topology == "torus" and routing == "family":
        table = torus_dor_table(params["radix"], params["dims"], planes)
    else:
        table = shortest_table(planes)
    return Network(name, table, params)
