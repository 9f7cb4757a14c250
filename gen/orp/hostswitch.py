"""Host-switch graphs and the order/radix problem (Yasudo et al., seed ``002``).

    >>> from permnet.gen.orp.hostswitch import HostSwitchGraph
    >>> g = HostSwitchGraph.clique(128, 24)          # Section 3.2, the clique case
    >>> g.switches, round(g.haspl(), 6), g.diameter()
    (8, 2.878445, 3)

A host-switch graph has n hosts (exactly one link each, to a switch), m
switches of at most r ports, and switch-switch links (parallel links are
allowed and reported).  Hosts are 0..n-1 and switches n..n+m-1 in files
(the Graph Golf order/radix format); in memory switches are 0..m-1,
``host_switch[h]`` is the switch of host h and ``edges`` the switch links.

h-ASPL and host diameter (Section 3.2) are computed on the switch graph
weighted by the number of hosts per switch, c_s: two hosts on switches a
and b are ``d(a, b) + 2`` apart (2 on the same switch), so
``h-ASPL = 2 + sum_{a != b} c_a c_b d(a, b) / (n (n-1))``.  The distances come
from bit-parallel breadth-first search from the switches that hold hosts
(:func:`weighted_distance_sum`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import numpy as np
from numba import njit

from permnet.gen.errors import PermnetError, require
from permnet.gen.graph.metrics import _popcount, expand_frontier

__all__ = ["HostSwitchGraph", "even_host_counts", "pair_free_ports", "HostSwitchSummary", "weighted_distance_sum", "parse_edges"]

@njit(cache=True)
def _csr(m, eu, ev):
    deg = np.zeros(m + 1, np.int64)
    for k in range(eu.shape[0]):
        deg[eu[k] + 1] += 1
        deg[ev[k] + 1] += 1
    for i in range(m):
        deg[i + 1] += deg[i]
    adj = np.empty(2 * eu.shape[0], np.int64)
    pos = deg[:-1].copy()
    for k in range(eu.shape[0]):
        adj[pos[eu[k]]] = ev[k]
        pos[eu[k]] += 1
        adj[pos[ev[k]]] = eu[k]
        pos[ev[k]] += 1
    return deg, adj


@njit(cache=True)
def weighted_distance_sum(m, eu, ev, count):
    """(W, D, ok): W = sum over ordered switch pairs a != b of
    count[a] count[b] d(a, b), D = the largest such d over switches with
    hosts (-1 if none), ok = every switch with hosts reaches every other.

    Bit-parallel breadth-first search, 64 source switches (those with hosts)
    per pass.  The sources are sorted by host count, so that a pass holds
    few distinct counts: the host weight of a set of sources (a 64-bit word)
    is ``sum_k count_k popcount(word & mask_k)`` over those counts.  A level
    is pushed (each frontier switch ORs its word into its neighbours) while
    the frontier is small and pulled once it is large (each switch still
    missing sources ORs its neighbours' words and stops when none is
    missing; Beamer et al., SC 2012, as in :mod:`permnet.gen.graph.metrics`).
    A pass ends when every switch with hosts has every source: switches
    without hosts only relay."""
    indptr, adj = _csr(m, eu, ev)
    arcs = adj.shape[0]
    src = np.nonzero(count > 0)[0]
    src = src[np.argsort(count[src], kind="mergesort")]
    ns = src.shape[0]
    total = 0
    diam = -1 if ns < 2 else 0
    ok = True
    seen = np.zeros(m, np.uint64)
    front = np.zeros(m, np.uint64)
    nxt = np.zeros(m, np.uint64)
    vals = np.zeros(64, np.int64)
    masks = np.zeros(64, np.uint64)
    for b0 in range(0, ns, 64):
        nb = min(64, ns - b0)
        nv = 0
        for j in range(nb):
            c = count[src[b0 + j]]
            bit = np.uint64(1) << np.uint64(j)
            if nv > 0 and vals[nv - 1] == c:
                masks[nv - 1] |= bit
            else:
                vals[nv] = c
                masks[nv] = bit
                nv += 1
        full = (np.uint64(1) << np.uint64(nb)) - np.uint64(1) if nb < 64 else ~np.uint64(0)
        seen[:] = 0
        front[:] = 0
        front_arcs = 0
        for j in range(nb):
            s = src[b0 + j]
            bit = np.uint64(1) << np.uint64(j)
            seen[s] |= bit
            front[s] |= bit
            front_arcs += indptr[s + 1] - indptr[s]
        missing = nb * (ns - 1)   # (source, switch with hosts) pairs not reached yet
        level = 0
        while missing > 0:       # push while the frontier is small, then pull (undirected: in-arcs = arcs)
            expand_frontier(front, seen, nxt, full, front_arcs * 2 < arcs, indptr, adj, indptr, adj)
            level += 1
            front_arcs = 0
            anything = False
            for v in range(m):
                w = nxt[v] & ~seen[v]
                nxt[v] = 0
                front[v] = w
                if w:
                    anything = True
                    seen[v] |= w
                    front_arcs += indptr[v + 1] - indptr[v]
                    cv = count[v]
                    if cv > 0:
                        if level > diam:
                            diam = level
                        weight = 0
                        for k in range(nv):
                            weight += vals[k] * np.int64(_popcount(w & masks[k]))
                        total += weight * cv * level
                        missing -= np.int64(_popcount(w))
            if not anything:
                break
        if missing > 0:
            ok = False
    return total, diam, ok


@dataclass(frozen=True)
class HostSwitchSummary:
    """A host-switch graph's h-ASPL (average over ordered pairs of distinct
    hosts of the host-to-host hops, both host links included) and host
    diameter, None when some host cannot reach another; its switch links,
    parallel links and how many switches hold k hosts (``host_distribution``)."""

    hosts: int
    switches: int
    radix: int
    haspl: float | None
    diameter: int | None
    switch_links: int
    parallel_links: int
    host_distribution: dict

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class HostSwitchGraph:
    """n hosts, m switches of radix r; ``host_switch[h]`` in 0..m-1; ``edges`` (k, 2)."""

    n: int
    m: int
    r: int
    host_switch: np.ndarray
    edges: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))

    def __post_init__(self):
        self.host_switch = np.asarray(self.host_switch, dtype=np.int64)
        self.edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)

    # -------------------------------------------------------- construction
    @classmethod
    def from_counts(cls, n: int, r: int, counts, edges) -> "HostSwitchGraph":
        """Hosts attached in order: the first counts[0] hosts to switch 0, ..."""
        counts = np.asarray(counts, dtype=np.int64)
        require(int(counts.sum()) == n, f"host counts add up to {int(counts.sum())}, not n={n}")
        return cls(n, len(counts), r, np.repeat(np.arange(len(counts)), counts), edges)

    @classmethod
    def clique(cls, n: int, r: int) -> "HostSwitchGraph":
        """The optimum for ``n <= m (r - m + 1)`` (Section 3.2): the fewest
        switches m >= 1 that fit n hosts as an m-clique, filled greedily
        (every switch but the last full), which maximises same-switch pairs."""
        check_order_radix(n, r)
        m = next((m for m in range(1, r + 2) if m * (r - m + 1) >= n), None)
        require(m is not None, f"n={n} hosts do not fit a clique of {r}-port switches")
        per = r - m + 1
        counts = [min(per, n - k * per) for k in range(m)]
        edges = [(a, b) for a in range(m) for b in range(a + 1, m)]
        return cls.from_counts(n, r, counts, edges)

    # ---------------------------------------------------------- properties
    @property
    def switches(self) -> int:
        return self.m

    def counts(self) -> np.ndarray:
        return np.bincount(self.host_switch, minlength=self.m)

    def degrees(self) -> np.ndarray:
        deg = self.counts().copy()
        np.add.at(deg, self.edges.reshape(-1), 1)
        return deg

    def parallel_links(self) -> int:
        e = np.sort(self.edges, axis=1)
        return int(len(e) - len(np.unique(e, axis=0))) if len(e) else 0

    def _eval(self):
        return weighted_distance_sum(self.m, self.edges[:, 0].copy(), self.edges[:, 1].copy(), self.counts())

    def haspl(self) -> float:
        """Host-to-host average shortest path length (inf if hosts are cut off)."""
        total, _, ok = self._eval()
        if not ok:
            return float("inf")
        return 2.0 + total / (self.n * (self.n - 1))

    def diameter(self) -> int | None:
        """Largest host-to-host distance (None if hosts are cut off)."""
        _, diam, ok = self._eval()
        if not ok:
            return None
        return diam + 2 if diam >= 0 else 2

    def unused_switches(self) -> int:
        """Switches with no host that no host-to-host shortest path can need:
        those outside the component of the hosts, or with no host and degree <= 1."""
        import networkx as nx
        g = nx.MultiGraph()
        g.add_nodes_from(range(self.m))
        g.add_edges_from(self.edges.tolist())
        c = self.counts()
        host_sw = [s for s in range(self.m) if c[s]]
        comp = nx.node_connected_component(g, host_sw[0]) if host_sw else set()
        return int(sum(1 for s in range(self.m) if s not in comp or (c[s] == 0 and g.degree(s) <= 1)))

    def summary(self) -> "HostSwitchSummary":
        total, diam, ok = self._eval()
        return HostSwitchSummary(
            hosts=self.n, switches=self.m, radix=self.r,
            haspl=2.0 + total / (self.n * (self.n - 1)) if ok else None,
            diameter=(diam + 2 if diam >= 0 else 2) if ok else None,
            switch_links=int(len(self.edges)), parallel_links=self.parallel_links(),
            host_distribution={str(k): int(v) for k, v in zip(*np.unique(self.counts(), return_counts=True))})

    # ---------------------------------------------------------------- text
    def to_edges_text(self) -> str:
        """Graph Golf order/radix text: ``n m r`` then ``u v`` lines (hosts
        0..n-1, switches n..n+m-1), host links first, then switch links."""
        lines = [f"{self.n} {self.m} {self.r}"]
        lines += [f"{h} {self.n + s}" for h, s in enumerate(self.host_switch.tolist())]
        for a, b in sorted(tuple(sorted(e)) for e in self.edges.tolist()):
            lines.append(f"{self.n + a} {self.n + b}")
        return "\n".join(lines) + "\n"


def even_host_counts(n: int, m: int) -> np.ndarray:
    """n hosts spread evenly over m switches: n // m each, one more on the
    first n % m (the random start graphs and the lift start graphs)."""
    counts = np.full(m, n // m, dtype=np.int64)
    counts[: n % m] += 1
    return counts


def pair_free_ports(free, rng) -> list[tuple[int, int]]:
    """Switch links that pair free ports at random: ``free[s]`` ports of switch s
    (negative counts as 0), shuffled by the numpy Generator ``rng`` and paired
    from the end; a port whose partner would be on its own switch waits for a
    later one. No self-loops; parallel links possible; ports left over (an odd
    one, or several on one switch) stay free. The start graphs of the anneal,
    the polarity and the relay candidates all wire their spare ports so."""
    stubs = np.repeat(np.arange(len(free)), np.maximum(free, 0))
    rng.shuffle(stubs)
    pending = stubs.tolist()
    out = []
    while len(pending) >= 2:
        a = pending.pop()
        for k in range(len(pending) - 1, -1, -1):
            if pending[k] != a:
                out.append((a, pending.pop(k)))
                break
    return out


def check_order_radix(n: int, r: int) -> None:
    require(isinstance(n, int) and n >= 3, f"hosts n must be >= 3, got {n}")
    require(isinstance(r, int) and r >= 3, f"radix r must be >= 3, got {r}")


def parse_edges(text: str, name: str = "edges") -> HostSwitchGraph:
    """Read the Graph Golf order/radix format, listing every violation."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    require(lines, f"{name}: empty file (missing 'n m r' header)")
    head = lines[0]
    require(re.fullmatch(r"\d+ \d+ \d+", head) is not None,
            f"{name}: line 1: expected the header 'n m r' (three integers, single spaces), got {head!r}")
    n, m, r = map(int, head.split())
    from permnet.gen.limits import check_memory
    check_memory(f"{name}: a host-switch graph with m={m} switches", 64 * m)
    problems: list[str] = []
    if n < 3:
        problems.append(f"n={n} < 3")
    if r < 3:
        problems.append(f"r={r} < 3")
    host_links: dict[int, list[int]] = {}
    edges = []
    for lineno, line in enumerate(lines[1:], 2):
        if "\t" in line:
            problems.append(f"line {lineno}: tab where the format wants a single space")
            continue
        if not re.fullmatch(r"\d+ \d+", line):
            problems.append(f"line {lineno}: expected 'u v', got {line!r}")
            continue
        u, v = map(int, line.split())
        if u >= n + m or v >= n + m:
            problems.append(f"line {lineno}: vertex {max(u, v)} out of range 0..{n + m - 1}")
            continue
        if u < n and v < n:
            problems.append(f"line {lineno}: host-host link {u} {v}")
            continue
        if u == v:
            problems.append(f"line {lineno}: self-loop on switch {u}")
            continue
        if u < n or v < n:
            h, s = (u, v) if u < n else (v, u)
            host_links.setdefault(h, []).append(s - n)
        else:
            edges.append((u - n, v - n))
    # hosts are checked in O(lines), not O(n): a header announcing 10^12 hosts costs nothing
    missing = n - len(host_links)
    shown_missing = 0
    h = 0
    while h < n and (shown_missing < 8 or h in host_links or h <= max(host_links, default=-1)):
        k = len(host_links.get(h, []))
        if k != 1 and (k or shown_missing < 8):
            problems.append(f"host {h} has {k} links (exactly one expected)")
            shown_missing += k == 0
        h += 1
    if missing > shown_missing:
        problems.append(f"{missing - shown_missing} more hosts have 0 links")
    if problems:
        _violations(name, problems)
    host_switch = np.array([host_links.get(h, [0])[0] for h in range(n)], dtype=np.int64)
    g = HostSwitchGraph(n, m, r, host_switch, np.array(edges, dtype=np.int64).reshape(-1, 2))
    if not problems:
        deg = g.degrees()
        over = np.nonzero(deg > r)[0]
        problems += [f"switch {n + s} has {deg[s]} links, more than radix {r}" for s in over]
    if not problems and not g._eval()[2]:
        problems.append("hosts are not all connected")
    if problems:
        _violations(name, problems)
    return g


def _violations(name: str, problems: list[str]) -> None:
    shown = "; ".join(problems[:8]) + (f"; ... {len(problems) - 8} more" if len(problems) > 8 else "")
    raise PermnetError(f"{name}: {len(problems)} violation{'s' if len(problems) > 1 else ''}: {shown}")
