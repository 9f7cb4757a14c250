"""Low Diameter Interconnections LDI(M, S): topology, metrics and routing.

Implements Melhem, *Low Diameter Interconnections for Routing in High
Performance Parallel Systems* (seed ``000``).  A typical call::

    >>> from permnet.gen.topologies import ldi
    >>> ldi.successors(9, 3)[4].tolist()          # the S links of node 4
    [3, 4, 5]
    >>> ldi.route(18, 3, 7, 14, method="melhem", all_paths=True).paths
    [[7, 3, 10, 14], [7, 5, 16, 14]]

Nodes are the integers ``0 .. M-1``; the L-th link of node n goes to
``(S*n + L) mod M`` (eq. 1), self-loops included (they are plane entries).

Walks, the fact everything here rests on
----------------------------------------
A k-hop walk from n taking links l_0 .. l_{k-1} ends at
``(S^k n + x) mod M`` with ``x = sum_i l_i S^(k-1-i)``, i.e. the links are
the base-S digits of x, most significant first.  So the nodes reachable in
exactly k hops form S^k consecutive nodes (mod M), the diameter is the h with
``S^(h-1) < M <= S^h`` (node 0 needs all h hops: its k-hop sets are nested
prefixes of [0, S^k)), and every shortest path is read off the digits of the
least x with ``x = (d - S^k n) mod M (mod M)`` and ``x < S^k``.  This gives
exact shortest-path routing for *every* M, not only ``M = S^(h-1) G``.

Departures from the paper
-------------------------
* Eq. (2) prints ``y = (n mod S + L) mod S``; the proof and the worked
  example use ``n div S``.  The ``mod`` reading is not a permutation (LDI(9,3)
  maps nodes 0 and 3 to node 0); see :mod:`permnet.gen.planes.decompose`.
* Section 4's first two-hop routing step prints ``(Sn+L) mod G = d mod S``;
  the sentence after it and Theorem 3 (10.a) use ``d div S``, which is what
  is implemented (the ``mod`` reading fails, e.g. LDI(12,4) 0 -> 1).
* The one-hop test ``(Sn) mod M <= d < (Sn+S) mod M`` fails when the S
  successors wrap past M-1; the test used is ``(d - Sn) mod M < S``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from permnet.gen.errors import PermnetError, require

__all__ = [
    "check_params",
    "successors",
    "topology",
    "diameter",
    "moore_diameter_bound",
    "melhem_form",
    "bandwidth_factor",
    "walk",
    "Routes",
    "route",
    "route_melhem",
    "route_shortest",
]


def check_params(M: int, S: int) -> None:
    """Validate LDI parameters: ``S >= 2`` and ``M > S`` (the paper's h > 1)."""
    require(isinstance(S, (int, np.integer)) and S >= 2, f"degree S must be >= 2, got {S}")
    require(isinstance(M, (int, np.integer)) and M > S, f"nodes M must be > degree S={S}, got {M}")


def successors(M: int, S: int) -> np.ndarray:
    """The (M, S) array of link targets: entry [n, L] is ``(S*n + L) mod M`` (eq. 1)."""
    from permnet.gen.limits import check_arcs

    check_params(M, S)
    check_arcs(f"LDI({M},{S})", M * S, per_arc=24)
    n = np.arange(M, dtype=np.int64)[:, None]
    return (S * n + np.arange(S, dtype=np.int64)[None, :]) % M


def topology(M: int, S: int):
    """LDI(M, S) as a :class:`~permnet.gen.topologies.families.Topology`
    (family ``ldi``), so it goes wherever any other family goes."""
    from permnet.gen.topologies.families import Topology

    succ = successors(M, S)
    return Topology("ldi", M, np.repeat(np.arange(M, dtype=np.int64), S), succ.reshape(-1), True,
                    {"degree_param": S})


def diameter(M: int, S: int) -> int:
    """The diameter h of LDI(M, S): the least h with ``S^h >= M`` (Section 2)."""
    from permnet.gen.graph.bounds import ilog_ceil

    check_params(M, S)
    return ilog_ceil(M, S)


def moore_diameter_bound(M: int, S: int) -> int:
    """Directed Moore bound: least D with ``1 + S + ... + S^D >= M`` (Section 1).

    No digraph of out-degree S on M nodes has a smaller diameter.
    """
    from permnet.gen.graph.bounds import moore_bound

    check_params(M, S)
    return moore_bound(M, S, directed=True)


def melhem_form(M: int, S: int) -> tuple[int, int] | None:
    """Return ``(h, G)`` with ``M = S^(h-1) G`` and ``1 < G <= S``, or None.

    These are the M for which Theorem 3 gives h-hop routes by formula.
    """
    check_params(M, S)
    h = diameter(M, S)
    base = S ** (h - 1)
    if M % base:
        return None
    return h, M // base


def bandwidth_factor(M: int, S: int) -> float:
    """Aggregate effective bandwidth of S planes with h-hop routing, in units of
    one plane's bandwidth B: ``S / h`` (Section 5, "B S / h")."""
    return S / diameter(M, S)


def walk(M: int, S: int, src: int, links) -> list[int]:
    """Follow ``links`` from ``src``; return the visited nodes (eq. 1)."""
    nodes = [src]
    for L in links:
        require(0 <= L < S, f"link {L} out of range 0..{S - 1}")
        nodes.append((S * nodes[-1] + L) % M)
    return nodes


@dataclass
class Routes:
    """Paths from ``src`` to ``dst``: ``paths[i]`` lists nodes, ``links[i]`` link indices."""

    src: int
    dst: int
    method: str
    paths: list[list[int]] = field(default_factory=list)
    links: list[list[int]] = field(default_factory=list)

    def add(self, M: int, S: int, links: list[int]) -> None:
        """Append the path taking ``links`` from src, checking that it ends at dst."""
        nodes = walk(M, S, self.src, links)
        if nodes[-1] != self.dst:  # pragma: no cover - would be a bug in a router
            raise AssertionError(f"route {nodes} does not end at {self.dst}")
        self.paths.append(nodes)
        self.links.append(list(links))

    def as_dict(self) -> dict:
        return asdict(self)


def _digits(x: int, S: int, k: int) -> list[int]:
    """The k base-S digits of x, most significant first."""
    out = [0] * k
    for i in range(k - 1, -1, -1):
        x, out[i] = divmod(x, S)
    return out


def _check_nodes(M: int, S: int, src: int, dst: int) -> None:
    check_params(M, S)
    for name, v in (("source", src), ("destination", dst)):
        require(0 <= v < M, f"{name} {v} out of range 0..{M - 1}")


def route_melhem(M: int, S: int, src: int, dst: int, *, all_paths: bool = False,
                 shortcut: bool = False) -> Routes:
    """Melhem's h-hop routing for ``M = S^(h-1) G`` (Theorem 3, eqs. 10.a/10.b).

    Link ``l_0`` is any L in 0..S-1 with ``(S n + L) mod G = d div S^(h-1)``
    (there are ceil or floor of S/G choices when G < S: ``all_paths`` returns a
    path for each, every path the theorem allows); then
    ``l_i = (d div S^(h-i-1)) mod S`` for i = 1..h-1.

    ``shortcut`` applies Section 4's improvements to the two-hop case
    (h = 2), and its zero-hop case to every h: a zero-hop route when
    ``src == dst``, the direct link (h = 2) when d is
    a successor of n, and otherwise the two-hop route (whose first hop is
    never a self-loop then, so the paper's "skip" needs no extra case).
    """
    _check_nodes(M, S, src, dst)
    form = melhem_form(M, S)
    require(form is not None,
            f"Melhem routing needs M = S^(h-1)*G with 1 < G <= S; M={M}, S={S} is not of "
            "that form (use --method shortest)")
    h, G = form
    routes = Routes(src, dst, "melhem-shortcut" if shortcut and (h == 2 or src == dst) else "melhem")
    if shortcut and src == dst:
        routes.add(M, S, [])        # staying put beats Theorem 3's h hops for any h
        return routes
    if shortcut and h == 2:
        direct = (dst - S * src) % M
        if direct < S:
            routes.add(M, S, [direct])
            return routes
    top = dst // S ** (h - 1)
    tail = [(dst // S ** (h - i - 1)) % S for i in range(1, h)]
    for l0 in range(S):
        if (S * src + l0) % G == top:
            routes.add(M, S, [l0] + tail)
            if not all_paths:
                break
    return routes


def route_shortest(M: int, S: int, src: int, dst: int, *, all_paths: bool = False) -> Routes:
    """Shortest routes for any M (module docstring: links = digits of x).

    Returns the shortest path with the least digit string, or with
    ``all_paths`` every shortest path (one per admissible x).
    """
    _check_nodes(M, S, src, dst)
    routes = Routes(src, dst, "shortest")
    k, span = 0, 1
    while True:
        x = (dst - span * src) % M
        if x < span:
            break
        k, span = k + 1, span * S
    while x < span:
        routes.add(M, S, _digits(x, S, k))
        if not all_paths:
            break
        x += M
    return routes


def route(M: int, S: int, src: int, dst: int, *, method: str = "auto",
          all_paths: bool = False, shortcut: bool = True) -> Routes:
    """Route src -> dst.  ``method``: ``melhem``, ``shortest`` or ``auto``
    (Melhem where M has the form of Theorem 3, shortest otherwise)."""
    if method == "auto":
        method = "melhem" if melhem_form(M, S) else "shortest"
    if method == "melhem":
        return route_melhem(M, S, src, dst, all_paths=all_paths, shortcut=shortcut)
    if method == "shortest":
        return route_shortest(M, S, src, dst, all_paths=all_paths)
    raise PermnetError(f"unknown routing method {method!r} (melhem, shortest, auto)")
