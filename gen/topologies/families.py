"""Topology families: one builder per family, each returning a :class:`Topology`.

    >>> from permnet.gen.topologies import families
    >>> t = families.kautz(2, 3)
    >>> t.n, t.metrics().diameter
    (12, 3)

Nodes are the integers 0..n-1; the Notes of each builder say how labels map
to integers.  Directed families: de Bruijn, Kautz, Imase-Itoh, ShuffleNet
(and generalised de Bruijn = LDI, :mod:`permnet.gen.topologies.ldi`).  Undirected
(stored as symmetric digraphs): k-ary n-cube (torus), mesh, hypercube, star
graph, cube-connected cycles, Petersen.  Metrics come from the bit-parallel
BFS engine (:mod:`permnet.gen.graph.metrics`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from permnet.gen.errors import require
from permnet.gen.graph.bounds import moore_bound

__all__ = ["Topology", "TopologyMetrics", "de_bruijn", "kautz", "imase_itoh", "shufflenet", "torus", "mesh",
           "hypercube", "star_graph", "cube_connected_cycles", "petersen", "FAMILIES"]


@dataclass
class Topology:
    """A named graph: ``arcs`` as (tails, heads); undirected graphs hold both directions."""

    name: str
    n: int
    tails: np.ndarray
    heads: np.ndarray
    directed: bool
    params: dict = field(default_factory=dict)

    def digraph(self):
        # numba is imported only when a graph is measured, not when the CLI starts
        from permnet.gen.graph.metrics import Digraph
        return Digraph.from_arcs(self.n, self.tails, self.heads)

    def metrics(self, *, exact: bool | None = None, samples: int | None = None, seed: int = 0
                ) -> "TopologyMetrics":
        """nodes, degree (max out-degree), degree statistics, diameter, average
        hops (ordered pairs of distinct nodes), eccentricity distribution,
        (strong) connectivity and the Moore bound on the diameter.

        Exact by all-pairs BFS unless that would take long (``exact=None``)
        or ``exact=False``: then the average comes from ``samples`` random
        sources with a 95% interval, the diameter from below
        (:mod:`permnet.gen.graph.sampled`)."""
        from permnet.gen.graph.metrics import distance_stats
        from permnet.gen.graph.sampled import exact_is_affordable, sampled_distance_stats

        g = self.digraph()
        out_deg = np.diff(g.indptr)
        in_deg = np.bincount(self.heads, minlength=self.n)
        d = int(out_deg.max()) if self.n else 0
        base = dict(family=self.name, params=self.params, nodes=self.n, directed=self.directed,
                    links=int(len(self.tails) // (1 if self.directed else 2)),
                    degree=d, min_degree=int(out_deg.min()), mean_degree=float(out_deg.mean()),
                    max_in_degree=int(in_deg.max()), regular=bool(out_deg.min() == out_deg.max() == in_deg.max()),
                    moore_diameter_bound=moore_bound(self.n, d, self.directed))
        if exact is None:
            exact = self.n < 128 or exact_is_affordable(self.n, len(self.tails))
        if not exact:
            est = sampled_distance_stats(g, samples, seed)
            return TopologyMetrics(**base, connected=None if est.samples_reach_all else False, diameter=None,
                                   avg_hops=est.avg_hops, estimate=True,
                                   diameter_lower_bound=est.diameter_lower_bound,
                                   avg_hops_ci95=None if est.avg_hops_ci95 is None else list(est.avg_hops_ci95),
                                   samples=est.samples)
        s = distance_stats(g)
        ecc, counts = np.unique(s.eccentricity, return_counts=True)
        return TopologyMetrics(**base, connected=s.strongly_connected, diameter=s.diameter, avg_hops=s.avg_hops,
                               eccentricity_distribution={str(int(e)): int(c) for e, c in zip(ecc, counts)})

    def networkx(self):
        import networkx as nx
        G = nx.MultiDiGraph() if self.directed else nx.MultiGraph()
        G.add_nodes_from(range(self.n))
        pairs = zip(self.tails.tolist(), self.heads.tolist())
        G.add_edges_from(pairs if self.directed else ((a, b) for a, b in pairs if a <= b))
        return G


@dataclass(frozen=True)
class TopologyMetrics:
    """What :meth:`Topology.metrics` measures.  ``links`` counts arcs of a
    directed graph and edges of an undirected one; ``degree`` is the largest
    out-degree.  An exact run has ``connected`` (strong connectivity),
    ``diameter`` and ``avg_hops`` over ordered pairs of distinct nodes, and
    the eccentricity distribution; an estimate (``estimate``) has
    ``connected`` None unless a sampled source missed a node (then False),
    no diameter but a lower bound on it, and ``avg_hops`` from ``samples``
    sources with its 95% interval."""

    family: str
    params: dict
    nodes: int
    directed: bool
    links: int
    degree: int
    min_degree: int
    mean_degree: float
    max_in_degree: int
    regular: bool
    moore_diameter_bound: int | None
    connected: bool | None
    diameter: int | None
    avg_hops: float | None
    eccentricity_distribution: dict | None = None
    estimate: bool = False
    diameter_lower_bound: int | None = None
    avg_hops_ci95: list | None = None
    samples: int | None = None

    def as_dict(self) -> dict:
        out = {"family": self.family, **self.params, "nodes": self.nodes, "directed": self.directed,
               "arcs" if self.directed else "edges": self.links,
               "degree": self.degree, "min_degree": self.min_degree, "mean_degree": self.mean_degree,
               "max_in_degree": self.max_in_degree, "regular": self.regular}
        if self.estimate:
            out.update(connected=self.connected, diameter=None, diameter_lower_bound=self.diameter_lower_bound,
                       avg_hops=self.avg_hops, avg_hops_ci95=self.avg_hops_ci95, estimate=True,
                       samples=self.samples, moore_diameter_bound=self.moore_diameter_bound)
        else:
            out.update({"connected": self.connected, "diameter": self.diameter, "avg_hops": self.avg_hops,
                        "eccentricity_distribution": self.eccentricity_distribution,
                        "moore_diameter_bound": self.moore_diameter_bound})
        return out


def _topology(name, n, pairs, directed, **params) -> Topology:
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if not directed:
        arr = np.concatenate([arr, arr[:, ::-1]])
    return Topology(name, n, arr[:, 0].copy(), arr[:, 1].copy(), directed, params)


def _from_arrays(name, n, tails, heads, directed, **params) -> Topology:
    """Like :func:`_topology` for arcs already in numpy arrays (undirected: one per edge)."""
    tails, heads = np.asarray(tails, np.int64).ravel(), np.asarray(heads, np.int64).ravel()
    if not directed:
        tails, heads = np.concatenate([tails, heads]), np.concatenate([heads, tails])
    return Topology(name, n, tails, heads, directed, params)


def _size(what: str, n: int, arcs: int) -> None:
    """Refuse before allocating a graph of ``n`` nodes and ``arcs`` stored arcs."""
    from permnet.gen.limits import check_arcs
    check_arcs(f"{what} with {n:,} nodes", arcs)


def de_bruijn(d: int, D: int) -> Topology:
    """de Bruijn B(d, D): d^D nodes (base-d strings of length D, node = its
    value), arcs shift left and append a digit: n -> (d n + a) mod d^D."""
    require(d >= 2 and D >= 1, f"de Bruijn needs degree >= 2 and diameter >= 1, got d={d}, D={D}")
    n = d ** D
    _size(f"de Bruijn B({d},{D})", n, n * d)
    v = np.arange(n, dtype=np.int64)[:, None]
    heads = (d * v + np.arange(d, dtype=np.int64)[None, :]) % n
    return _from_arrays("debruijn", n, np.repeat(v, d, axis=1), heads, True, degree_param=d, diameter_param=D)


def kautz(d: int, D: int) -> Topology:
    """Kautz K(d, D): strings of length D over d+1 symbols with no two equal
    neighbours, (d+1) d^(D-1) nodes (numbered in lexicographic order); arcs
    shift left and append any symbol other than the last one.

    Numbering: a word s_0 ... s_{D-1} has the mixed-radix rank with digits
    c_0 = s_0 (radix d+1) and c_i = s_i - [s_i > s_{i-1}] (radix d), which is
    increasing in lexicographic order.  Shifting keeps c_2 ... c_{D-1}, so the
    j-th successor of v is s_1 d^(D-1) + (v mod d^(D-2)) d + j, with
    s_1 = c_1 + [c_1 >= s_0]."""
    require(d >= 2 and D >= 1, f"Kautz needs degree >= 2 and diameter >= 1, got d={d}, D={D}")
    n = (d + 1) * d ** (D - 1)
    _size(f"Kautz K({d},{D})", n, n * d)
    v = np.arange(n, dtype=np.int64)
    j = np.arange(d, dtype=np.int64)[None, :]
    if D == 1:
        heads = j + (j >= v[:, None])             # every other symbol
    else:
        top = d ** (D - 1)
        s0, c1 = v // top, (v % top) // d ** (D - 2)
        s1 = c1 + (c1 >= s0)
        heads = (s1 * top + (v % d ** (D - 2)) * d)[:, None] + j
    return _from_arrays("kautz", n, np.repeat(v[:, None], d, axis=1), heads, True, degree_param=d,
                        diameter_param=D)


def imase_itoh(d: int, n: int) -> Topology:
    """Imase-Itoh II(d, n): arcs v -> (-d v - a) mod n for a = 1..d."""
    require(d >= 2 and n > d, f"Imase-Itoh needs degree >= 2 and nodes > degree, got d={d}, n={n}")
    _size(f"Imase-Itoh II({d},{n})", n, n * d)
    v = np.arange(n, dtype=np.int64)[:, None]
    heads = (-d * v - np.arange(1, d + 1, dtype=np.int64)[None, :]) % n
    return _from_arrays("imase-itoh", n, np.repeat(v, d, axis=1), heads, True)


def shufflenet(S: int, k: int, bidirectional: bool = False) -> Topology:
    """ShuffleNet with degree S and k columns of S^k nodes (n = k S^k); node
    c S^k + r (column c, row r) links to column c+1 mod k, rows
    (S r + j) mod S^k.  ``bidirectional`` adds every reverse arc."""
    require(S >= 2 and k >= 1, f"ShuffleNet needs degree >= 2 and columns >= 1, got S={S}, k={k}")
    rows = S ** k
    n = k * rows
    _size(f"ShuffleNet({S},{k})", n, n * S * (2 if bidirectional else 1))
    v = np.arange(n, dtype=np.int64)[:, None]
    c, r = v // rows, v % rows
    heads = ((c + 1) % k) * rows + (S * r + np.arange(S, dtype=np.int64)[None, :]) % rows
    tails = np.repeat(v, S, axis=1)
    if bidirectional:
        tails, heads = np.concatenate([tails.ravel(), heads.ravel()]), np.concatenate([heads.ravel(), tails.ravel()])
    return _from_arrays("shufflenet", n, tails, heads, True, degree_param=S, columns=k, bidirectional=bidirectional)


def torus(k: int, dims: int) -> Topology:
    """k-ary n-cube: k^dims nodes (base-k digits), neighbours +-1 mod k in each dimension."""
    require(k >= 3 and dims >= 1, f"a k-ary n-cube needs k >= 3 and dims >= 1, got k={k}, dims={dims}")
    n = k ** dims
    _size(f"torus {k}-ary {dims}-cube", n, 2 * n * dims)
    v = np.arange(n, dtype=np.int64)[:, None]
    w = k ** np.arange(dims, dtype=np.int64)[None, :]
    digit = (v // w) % k
    heads = v + (((digit + 1) % k) - digit) * w
    return _from_arrays("torus", n, np.repeat(v, dims, axis=1), heads, False, radix=k, dims=dims)


def mesh(k: int, dims: int) -> Topology:
    """k^dims mesh: neighbours +-1 in each dimension, no wrap-around."""
    require(k >= 2 and dims >= 1, f"a mesh needs k >= 2 and dims >= 1, got k={k}, dims={dims}")
    n = k ** dims
    _size(f"mesh {k}^{dims}", n, 2 * n * dims)
    v = np.arange(n, dtype=np.int64)[:, None]
    w = k ** np.arange(dims, dtype=np.int64)[None, :]
    keep = (v // w) % k < k - 1
    tails = np.broadcast_to(v, keep.shape)[keep]
    return _from_arrays("mesh", n, tails, (v + w)[keep], False, radix=k, dims=dims)


def hypercube(dims: int) -> Topology:
    """Q_dims: 2^dims nodes, neighbours differ in one bit."""
    require(dims >= 1, f"hypercube needs dims >= 1, got {dims}")
    require(dims <= 62, f"hypercube needs dims <= 62, got {dims}")
    n = 2 ** dims
    _size(f"hypercube Q_{dims}", n, n * dims)
    v = np.arange(n, dtype=np.int64)[:, None]
    bit = np.int64(1) << np.arange(dims, dtype=np.int64)[None, :]
    keep = (v & bit) == 0
    return _from_arrays("hypercube", n, np.broadcast_to(v, keep.shape)[keep], (v ^ bit)[keep], False, dims=dims)


def star_graph(k: int) -> Topology:
    """Star graph S_k: the k! permutations (lexicographic numbering),
    neighbours swap the first symbol with symbol i, i = 1..k-1."""
    require(2 <= k <= 9, f"star graph needs 2 <= k <= 9, got {k}")
    perms = list(itertools.permutations(range(k)))
    index = {p: i for i, p in enumerate(perms)}
    pairs = []
    for p in perms:
        for i in range(1, k):
            q = list(p)
            q[0], q[i] = q[i], q[0]
            a, b = index[p], index[tuple(q)]
            if a < b:
                pairs.append((a, b))
    return _topology("star", len(perms), pairs, False, k=k)


def cube_connected_cycles(dims: int) -> Topology:
    """CCC(dims): node x dims + i (cube node x, cycle position i); cycle edges
    i <-> i+1 mod dims and the cube edge x <-> x xor 2^i at position i."""
    require(dims >= 3, f"cube-connected cycles need dims >= 3, got {dims}")
    require(dims <= 40, f"cube-connected cycles need dims <= 40, got {dims}")
    n = dims * 2 ** dims
    _size(f"CCC({dims})", n, 3 * n)
    x = np.arange(2 ** dims, dtype=np.int64)[:, None]
    i = np.arange(dims, dtype=np.int64)[None, :]
    here = x * dims + i
    cube = ((x >> i) & 1) == 0
    # edge order: node by node, per position i the cycle edge then (if any) the cube edge
    order_t = np.stack([here, np.where(cube, here, -1)], axis=2).reshape(-1)
    order_h = np.stack([x * dims + (i + 1) % dims, np.where(cube, (x ^ (np.int64(1) << i)) * dims + i, -1)],
                       axis=2).reshape(-1)
    keep = order_t >= 0
    return _from_arrays("ccc", n, order_t[keep], order_h[keep], False, dims=dims)


def petersen() -> Topology:
    """The Petersen graph (networkx's numbering)."""
    import networkx as nx
    return _topology("petersen", 10, list(nx.petersen_graph().edges()), False)


FAMILIES = {"debruijn": de_bruijn, "kautz": kautz, "imase-itoh": imase_itoh, "shufflenet": shufflenet,
            "torus": torus, "mesh": mesh, "hypercube": hypercube, "star": star_graph,
            "ccc": cube_connected_cycles, "petersen": petersen}


def parse_chords(text: str) -> list[list[int]]:
    """``50,11,89`` (one chord per residue class: degree 3) or ``3,9;6;...``
    (``;`` between classes, ``,`` between the chords of a class)."""
    from permnet.gen.errors import PermnetError

    groups = text.split(";") if ";" in text else text.split(",")
    out = []
    for g in groups:
        try:
            out.append([int(t) for t in g.split(",") if t.strip()])
        except ValueError:
            raise PermnetError(f"chords: {g!r} is not a list of integers") from None
    return out


def chordal_ring(n: int, chords) -> Topology:
    """Chordal ring of order r = len(chords) (Doty, Section 3): the ring
    0-1-...-(n-1)-0 plus, for node i of residue class p = i mod r, a chord
    to i + w (mod n) for each w in ``chords[p]`` (an int means one chord).

    The pairing must be consistent: a chord w from class p lands in class
    q = (p + w) mod r, whose chords must include n - w (so every chord is
    the same edge seen from both ends); w = n/2 pairs a class with itself.
    Degree 2 + (chords per class); an odd degree needs n even, and r must
    divide n.  Inconsistent pairings are rejected with the reason.
    """
    groups = [[c] if isinstance(c, (int, np.integer)) else list(c) for c in chords]
    r = len(groups)
    require(n >= 3, f"a ring needs at least 3 nodes, got {n}")
    require(r >= 1 and n % r == 0, f"the order r={r} (number of chord classes) must divide n={n}")
    sizes = {len(g) for g in groups}
    require(len(sizes) == 1, "every residue class needs the same number of chords (a regular graph)")
    degree = 2 + sizes.pop()
    require(not (degree % 2 and n % 2), f"degree {degree} is odd, so n must be even; n={n}")
    for p, g in enumerate(groups):
        for w in g:
            require(0 < w < n, f"class {p}: chord {w} out of range 1..{n - 1}")
            require(w not in (1, n - 1), f"class {p}: chord {w} duplicates a ring link")
            q, back = (p + w) % r, n - w
            require(back in groups[q], f"class {p}: chord {w} reaches class {q}, whose chords must include "
                                       f"n-{w}={back} (an inconsistent pairing)")
    pairs = set()
    for i in range(n):
        j = (i + 1) % n
        pairs.add((min(i, j), max(i, j)))
    for i in range(n):
        for w in groups[i % r]:
            j = (i + w) % n
            pairs.add((min(i, j), max(i, j)))
    t = _topology("chordal", n, sorted(pairs), False, order=r, chords=[list(g) for g in groups])
    deg = np.bincount(t.tails, minlength=n)
    require(int(deg.max()) == int(deg.min()) == degree,
            f"chords give node degrees {int(deg.min())}..{int(deg.max())}, not {degree}: chords coincide")
    return t


def cyclic_product(g: Topology, m: int) -> Topology:
    """Doty's product of m copies of an undirected graph G: node
    (v_1, ..., v_m) (number sum v_i n_G^(i-1)) links to its two cyclic
    shifts and to (v_1', v_2, ..., v_m) for every neighbour v_1' of v_1.
    Degree d_G + 2 (d_G + 1 for m = 2, where both shifts are the same
    node), diameter at most m k_G + m - 1, n_G^m nodes."""
    require(not g.directed, "the cyclic product takes an undirected graph")
    require(m >= 2, f"the product needs m >= 2 copies, got {m}")
    nG = g.n
    N = nG ** m
    require(N <= 2_000_000, f"the product would have {N} nodes (limit 2,000,000)")
    nbrs = [[] for _ in range(nG)]
    for a, b in zip(g.tails.tolist(), g.heads.tolist()):
        nbrs[a].append(b)
    pairs = set()
    for x in range(N):
        digits = [(x // nG ** i) % nG for i in range(m)]
        left = digits[1:] + digits[:1]      # (v2, ..., vm, v1)
        y = sum(v * nG ** i for i, v in enumerate(left))
        pairs.add((min(x, y), max(x, y)))
        for v in nbrs[digits[0]]:
            z = x - digits[0] + v
            pairs.add((min(x, z), max(x, z)))
    pairs = {p for p in pairs if p[0] != p[1]}   # constant nodes are their own shifts
    return _topology("cyclic-product", N, sorted(pairs), False, copies=m, component=g.name)


FAMILIES.update({"chordal": chordal_ring, "cyclic-product": cyclic_product})


def _exponent(base: int, n: int, scale: int = 1) -> int | None:
    """The D in 1..63 with scale * base^D = n, or None."""
    if base < 2:
        return None
    return next((D for D in range(1, 64) if scale * base ** D == n), None)


def _root(n: int, e: int) -> int | None:
    """The integer k with k^e = n, or None."""
    r = round(n ** (1.0 / e))
    return next((c for c in (r - 1, r, r + 1) if c >= 1 and c ** e == n), None)


def by_size(family: str, nodes: int, degree: int | None, chords=None) -> tuple[Topology, str, dict]:
    """The member of ``family`` with ``nodes`` nodes of degree ``degree`` (the
    way ``permnet netsim`` and ``permnet deadlock`` name networks), its display
    name and the family parameters solved for:

    * ``debruijn``: B(d, D) with d^D = nodes;  ``kautz``: K(d, D) with (d+1) d^(D-1) = nodes;
    * ``torus``: the k-ary n-cube with n = degree/2 and k^n = nodes (k >= 3);
    * ``hypercube``: 2^degree = nodes;  ``imase-itoh``: II(degree, nodes);
    * ``chordal``: the ring of ``nodes`` with ``chords`` (degree from the chords).
    """
    params: dict = {}
    if family == "debruijn":
        D = _exponent(degree, nodes)
        require(D is not None, f"no de Bruijn graph has {nodes} nodes of degree {degree} (needs degree^D)")
        return de_bruijn(degree, D), f"deBruijn({degree},{D})", params
    if family == "kautz":
        D = _exponent(degree, nodes * degree, degree + 1)     # (d+1) d^(D-1) = n  <=>  (d+1) d^D = n d
        require(D is not None, f"no Kautz graph has {nodes} nodes of degree {degree} (needs (d+1) d^(D-1))")
        return kautz(degree, D), f"Kautz({degree},{D})", params
    if family == "torus":
        dims = degree // 2
        k = _root(nodes, dims) if degree % 2 == 0 and dims >= 1 else None
        require(k is not None and k >= 3,
                f"no k-ary n-cube (k >= 3) has {nodes} nodes of degree {degree} (needs even degree 2n, k^n nodes)")
        return torus(k, dims), f"torus({k}^{dims})", {"radix": k, "dims": dims}
    if family == "hypercube":
        require(2 ** degree == nodes, f"a hypercube of degree {degree} has {2 ** degree} nodes, not {nodes}")
        return hypercube(degree), f"hypercube({degree})", params
    if family == "imase-itoh":
        return imase_itoh(degree, nodes), f"ImaseItoh({degree},{nodes})", params
    require(family == "chordal", f"{family} is not given by size and degree")
    require(chords is not None, "chordal needs --chords")
    ring = chordal_ring(nodes, parse_chords(chords) if isinstance(chords, str) else chords)
    return ring, f"chordal({nodes};{chords})", params
