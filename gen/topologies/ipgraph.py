"""Index-permutation (IP) graphs: the ball-arrangement model of Yeh & Parhami.

    >>> from permnet.gen.topologies import ipgraph
    >>> g = ipgraph.ip_graph("123321", ["(1,2)", "(1,3)", "456123"])
    >>> g.topology.n                          # the paper's example, Section 2
    36
    >>> h = ipgraph.super_ip("hsn", 2, "hypercube:2")    # HSN(2, Q_2) = HCN(2,2)
    >>> h.topology.n, h.topology.metrics().diameter, h.diameter_formula()
    (16, 5, 5)

A node is a label, a sequence of k symbols (balls); a generator is a
permutation of positions, written in one-line notation ``g = g_1 ... g_k``:
the node x_1 ... x_k has the neighbour x_{g_1} x_{g_2} ... x_{g_k} (Section 2:
``456123`` puts the symbols at positions 4, 5, 6, 1, 2, 3 in front).  The
nodes are the labels reachable from the seed, numbered in breadth-first
order (the seed is node 0, generators tried in the order given).  With
repeated symbols the graph is not a Cayley graph; with distinct symbols it is.

A *super-IP graph* (Section 3) has l super-symbols (boxes) of m symbols:
nucleus generators permute the leftmost box, super-generators permute boxes.
Super-generator families: transposition ``hsn`` (T_{i,m} = (1,i)_m, the
hierarchical swapped network), cyclic-shift ``ring-cn`` (L_1, R_1),
``complete-cn`` (L_1 .. L_{l-1}), ``directed-cn`` (L_1 only), flip
``superflip`` (F_2 .. F_l), and ``rhsn`` (recursive HSN, l = 2^q: S_i swaps
the leftmost 2^(i-1) boxes with the next 2^(i-1)).  The *symmetric* variant (Section 3.5) gives
box i its own colour (symbols offset by i times the alphabet size), so
boxes are distinguishable and the graph is a Cayley graph of
(super-generator group) x nucleus^l: l! M^l nodes for HSN and super-flip,
l M^l for the cyclic-shift networks.

Routing (Theorem 4.1) sorts the label: a shortest super-generator word that
brings every box to the front (and, in the symmetric variant, leaves the
boxes in the destination's colour order) is interleaved with nucleus routes
that sort each box the first time it is in front.  The diameter is printed
as l D_G + t (t_S in Theorem 4.3); :meth:`SuperIP.diameter_formula` computes
t exactly by search and the tests compare it with the exact diameter.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.graph.sortkeys import distinct_sorted
from permnet.gen.topologies.families import Topology, _topology
from permnet.gen.topologies.names import SUPER_FAMILIES

__all__ = ["IPGraph", "SuperIP", "parse_seed", "parse_generator", "ip_graph", "nucleus", "nucleus_spec", "super_ip",
           "super_generators", "rcc", "build_super", "simple_topology", "hcn", "de_bruijn_ip", "SUPER_FAMILIES",
           "NUCLEI"]

MAX_NODES = 2_000_000


# ------------------------------------------------------------------ parsing

def _seed_items(text: str) -> list[str]:
    """The symbols of a seed written ``123321`` or ``1,2,3,3,2,1`` / ``1 2 3 3 2 1``."""
    text = text.strip()
    if re.search(r"[,\s]", text):
        return [t for t in re.split(r"[,\s]+", text) if t]
    return list(text)


def parse_seed(text) -> np.ndarray:
    """``123321`` (one symbol per character) or ``1,2,3,3,2,1`` / ``1 2 3 3 2 1``
    (integers); returns symbols as small integers in order of first use."""
    items = _seed_items(text) if isinstance(text, str) else list(text)
    require(len(items) >= 1, "the seed label is empty")
    require(len(items) <= 255, f"the seed has {len(items)} symbols (limit 255)")
    codes: dict = {}
    return np.array([codes.setdefault(str(s), len(codes)) for s in items], dtype=np.uint8)


def parse_generator(text: str, k: int) -> np.ndarray:
    """A generator on k positions as a 0-based one-line array ``g``
    (neighbour[i] = label[g[i]]).

    Cycle notation: ``(1,2)`` swaps positions 1 and 2; ``(a1,a2,...,aj)``
    moves the symbol at a1 to a2, a2 to a3, ..., aj to a1; several cycles may
    follow each other, ``(1,2)(3,4)``.  One-line notation: ``456123`` (k <= 9)
    or ``4,5,6,1,2,3``, positions counted from 1."""
    s = text.strip()
    require(bool(s), "empty generator")
    if s.startswith("("):
        g = list(range(k))
        seen: set = set()
        cycles = re.findall(r"\(([^()]*)\)", s)
        require(re.sub(r"\s", "", "".join(f"({c})" for c in cycles)) == re.sub(r"\s", "", s) and cycles,
                f"generator {text!r}: expected cycles like (1,2)(3,4)")
        for cyc in cycles:
            try:
                pos = [int(t) for t in re.split(r"[,\s]+", cyc.strip()) if t]
            except ValueError:
                raise PermnetError(f"generator {text!r}: cycle ({cyc}) is not a list of positions") from None
            require(len(pos) >= 2, f"generator {text!r}: a cycle needs at least two positions")
            require(all(1 <= p <= k for p in pos), f"generator {text!r}: positions must be in 1..{k}")
            require(not seen & set(pos) and len(set(pos)) == len(pos),
                    f"generator {text!r}: a position appears twice, so it is not a permutation")
            seen |= set(pos)
            for a, b in zip(pos, pos[1:] + pos[:1]):
                g[b - 1] = a - 1        # the symbol at a moves to b
        return np.array(g, dtype=np.int64)
    items = [t for t in re.split(r"[,\s\[\]]+", s) if t] if re.search(r"[,\s\[\]]", s) else list(s)
    try:
        g = [int(t) - 1 for t in items]
    except ValueError:
        raise PermnetError(f"generator {text!r}: expected cycle or one-line notation") from None
    require(sorted(g) == list(range(k)),
            f"generator {text!r} is not a permutation of the {k} positions of the seed")
    return np.array(g, dtype=np.int64)


def _generators_arg(gens, k: int) -> list[np.ndarray]:
    if isinstance(gens, str):
        gens = [t for t in gens.split(";") if t.strip()]
    out = [parse_generator(g, k) if isinstance(g, str) else np.asarray(g, dtype=np.int64) for g in gens]
    require(len(out) >= 1, "an IP graph needs at least one generator")
    for g in out:
        require(len(g) == k and sorted(g.tolist()) == list(range(k)),
                f"generator {g.tolist()} is not a permutation of the {k} seed positions")
    return out


# --------------------------------------------------------------- the model

@dataclass
class IPGraph:
    """An IP graph: ``labels[v]`` is the label of node v, ``index`` maps
    ``labels[v].tobytes()`` back to v, and ``succ[v, j]`` is the node
    reached from v by generator j (possibly v itself).  ``topology`` is the
    simple graph: no self-loops or repeated arcs; undirected when every arc
    has its reverse."""

    seed: np.ndarray
    generators: list
    labels: np.ndarray
    succ: np.ndarray
    index: dict
    name: str = "ip"
    params: dict = field(default_factory=dict)

    @cached_property
    def topology(self) -> Topology:
        return simple_topology(self.name, self.succ, **self.params)

    def label_text(self, v: int) -> str:
        sym = self.params.get("symbols")
        row = self.labels[v]
        if sym is not None:
            parts = [sym[int(s)] for s in row]
            return ("," if any(len(p) > 1 for p in parts) else "").join(parts)
        return ",".join(str(int(s) + 1) for s in row)    # symbols counted from 1, as in the paper


def simple_topology(name: str, succ: np.ndarray, **params) -> Topology:
    """The simple graph of an (n, d) successor array: self-loops and repeated
    arcs dropped; undirected when every arc has its reverse."""
    n, d = succ.shape
    tails = np.repeat(np.arange(n, dtype=np.int64), d)
    heads = np.asarray(succ, dtype=np.int64).reshape(-1)
    keep = tails != heads
    code = distinct_sorted(tails[keep] * n + heads[keep])   # sorted by (tail, head)
    pairs = np.stack([code // n, code % n], axis=1)
    directed = not np.array_equal(code, np.sort(pairs[:, 1] * n + pairs[:, 0]))
    if not directed:
        pairs = pairs[pairs[:, 0] < pairs[:, 1]]
    return _topology(name, n, pairs, directed, **params)


def _explore(seed: np.ndarray, gens: list[np.ndarray], max_nodes: int = MAX_NODES):
    """Breadth-first search over labels: (labels, succ, index of each label)."""
    k = len(seed)
    index = {seed.tobytes(): 0}
    labels = [seed]
    succ_rows = []
    frontier = seed[None, :]
    while len(frontier):
        nxt = []
        block = np.empty((len(frontier), len(gens)), dtype=np.int64)
        for j, g in enumerate(gens):
            cand = np.ascontiguousarray(frontier[:, g])
            buf = cand.tobytes()
            for i in range(len(cand)):
                key = buf[i * k:(i + 1) * k]
                v = index.get(key)
                if v is None:
                    v = index[key] = len(index)
                    nxt.append(cand[i])
                    require(v < max_nodes, f"the IP graph has more than {max_nodes} nodes")
                block[i, j] = v
        succ_rows.append(block)
        labels.extend(nxt)
        frontier = np.array(nxt, dtype=np.uint8).reshape(-1, k)
    return np.array(labels, dtype=np.uint8).reshape(-1, k), np.concatenate(succ_rows), index


def ip_graph(seed, gens, name: str = "ip", max_nodes: int = MAX_NODES, **params) -> IPGraph:
    """The IP graph of a seed label and generators (Yeh & Parhami, Section 2).

    Parameters
    ----------
    seed : str or sequence
        The seed label, e.g. ``"123321"`` or ``"1,2,3,3,2,1"``.
    gens : str or list
        Generators, each in cycle or one-line notation (:func:`parse_generator`);
        a string separates them with ``;``.

    Notes
    -----
    Nodes are numbered in breadth-first order from the seed (node 0).  The
    search stops with an error beyond ``max_nodes`` labels.
    """
    if isinstance(seed, str):
        params = {**params, "symbols": list(dict.fromkeys(_seed_items(seed)))}
    s = parse_seed(seed)
    g = _generators_arg(gens, len(s))
    return IPGraph(s, g, *_explore(s, g, max_nodes), name, params)


# ------------------------------------------------------------------- nuclei

def _marked_ball(n: int, moves: list[list[int]]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Seed ``1 0 0 ... 0`` on n positions: the state is where the marked ball is."""
    seed = np.zeros(n, dtype=np.uint8)
    seed[0] = 1
    return seed, [np.array(m, dtype=np.int64) for m in moves]


def _graph_nucleus(topo: Topology) -> tuple[np.ndarray, list[np.ndarray]]:
    """Any undirected graph as an IP graph (the idea behind Theorem 2.1): a
    marked ball on n positions, one generator per colour class of a proper
    edge colouring, swapping the ends of every edge of that colour."""
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(topo.n))
    G.add_edges_from(zip(topo.tails.tolist(), topo.heads.tolist()))
    L = nx.line_graph(G)
    colour = nx.greedy_color(L, strategy="largest_first")
    moves = []
    for c in sorted(set(colour.values())):
        g = list(range(topo.n))
        for (a, b), cc in sorted(colour.items()):
            if cc == c:
                g[a], g[b] = b, a
        moves.append(g)
    return _marked_ball(topo.n, moves)


def nucleus_spec(spec: str) -> str:
    """The paper's short names as specs: ``Q7`` is ``hypercube:7``, ``K5`` is
    ``complete:5``; any other spec is returned unchanged."""
    m = re.fullmatch(r"\s*([QK])(\d+)\s*", spec)
    if m:
        return f"{'hypercube' if m.group(1) == 'Q' else 'complete'}:{int(m.group(2))}"
    return spec.strip()


def nucleus(spec: str) -> IPGraph:
    """A nucleus graph from ``hypercube:n`` or ``Qn`` (seed 12 34 ... with (1,2),
    (3,4), ... as in Section 2), ``star:k`` (distinct symbols, (1,i)),
    ``complete:k`` or ``Kk``, ``ring:k`` (a marked ball moved by rotations) or
    ``petersen`` (edge colouring)."""
    from permnet.gen.topologies import families

    given = spec
    name, _, arg = nucleus_spec(spec).partition(":")
    if name == "petersen":
        require(not arg, "petersen takes no size")
        seed, gens = _graph_nucleus(families.petersen())
        return ip_graph(seed, gens, name=given.strip())
    try:
        size = int(arg)
    except ValueError:
        raise PermnetError(f"nucleus {spec!r}: expected NAME:SIZE, e.g. hypercube:2 (or Q2), star:4, complete:4 "
                           "(or K4), ring:5, or petersen") from None
    if name == "hypercube":
        require(1 <= size <= 8, f"nucleus hypercube:{size}: dimension must be 1..8")
        seed = np.arange(2 * size, dtype=np.uint8)
        gens = []
        for i in range(size):
            g = list(range(2 * size))
            g[2 * i], g[2 * i + 1] = 2 * i + 1, 2 * i
            gens.append(g)
    elif name == "star":
        require(2 <= size <= 8, f"nucleus star:{size}: symbols must be 2..8")
        seed = np.arange(size, dtype=np.uint8)
        gens = []
        for i in range(1, size):
            g = list(range(size))
            g[0], g[i] = i, 0
            gens.append(g)
    elif name == "complete":
        require(2 <= size <= 64, f"nucleus complete:{size}: size must be 2..64")
        seed, gens = _marked_ball(size, [[(i + j) % size for i in range(size)] for j in range(1, size)])
    elif name == "ring":
        require(3 <= size <= 255, f"nucleus ring:{size}: size must be 3..255")
        seed, gens = _marked_ball(size, [[(i + 1) % size for i in range(size)],
                                         [(i - 1) % size for i in range(size)]])
    else:
        raise PermnetError(f"unknown nucleus {name!r}: use hypercube:N (QN), star:K, complete:K (KK), ring:K "
                           "or petersen")
    return ip_graph(seed, gens, name=given.strip())


NUCLEI = ("hypercube:N", "QN", "star:K", "complete:K", "KN", "ring:K", "petersen")


# -------------------------------------------------------- super-generators

def super_generators(family: str, l: int) -> list[tuple[str, list[int]]]:
    """Box permutations (one-line, 0-based: new box i = old box sigma[i]) of a
    super-IP family with l boxes (Section 3.2-3.4)."""
    require(l >= 2, f"a super-IP graph needs at least 2 levels, got {l}")
    ident = list(range(l))

    def left(i):                     # L_i: X_{i+1} ... X_l X_1 ... X_i
        return [(b + i) % l for b in ident]

    if family == "hsn":
        out = []
        for i in range(1, l):
            s = ident.copy()
            s[0], s[i] = i, 0
            out.append((f"T{i + 1}", s))
        return out
    if family == "ring-cn":
        out = [("L1", left(1))]
        if l > 2:
            out.append(("R1", left(l - 1)))
        return out
    if family == "directed-cn":
        return [("L1", left(1))]
    if family == "complete-cn":
        return [(f"L{i}", left(i)) for i in range(1, l)]
    if family == "superflip":
        return [(f"F{i}", list(range(i - 1, -1, -1)) + list(range(i, l))) for i in range(2, l + 1)]
    if family == "rhsn":
        # recursive HSN (Yeh & Parhami's RHSN): for l = 2^q boxes, S_i swaps the block of the leftmost
        # 2^(i-1) boxes with the next 2^(i-1), i = 1..q (S_1 = T_2; l = 2 is HSN(2, G)).  Other l
        # (an extension): when b < l < 2b the last generator swaps boxes 0..l-b-1 with b..l-1.
        out, b = [], 1
        while b < l:
            w = min(b, l - b)
            s = ident.copy()
            s[:w], s[b:b + w] = ident[b:b + w], ident[:w]
            out.append((f"S{b.bit_length()}", s))
            b *= 2
        return out
    raise PermnetError(f"unknown super-IP family {family!r}: use one of {', '.join(SUPER_FAMILIES)}")




@dataclass
class SuperIP(IPGraph):
    """A (symmetric) super-IP graph; ``nucleus`` is the nucleus IP graph,
    ``box_perms`` the super-generators as box permutations.  Generators
    0..len(nucleus.generators)-1 are the nucleus generators."""

    nucleus: IPGraph = None
    box_perms: list = None
    box_names: list = None
    levels: int = 0
    symmetric: bool = False

    @property
    def m(self) -> int:
        return len(self.nucleus.seed)

    def clusters(self) -> np.ndarray:
        """Module of each node: nodes that differ only in the leftmost box
        (one nucleus each, Section 5.3), numbered by first appearance."""
        tails = np.ascontiguousarray(self.labels[:, self.m:])
        _, first, inv = np.unique(tails.view(f"V{tails.shape[1]}").ravel(), return_index=True,
                                  return_inverse=True)
        rank = np.argsort(np.argsort(first))
        return rank[inv].astype(np.int64)

    # ---- Theorem 4.1 / 4.3: super-generator words that visit every box
    @cached_property
    def _box_search(self):
        """BFS over (box arrangement, boxes seen in front) from (identity, {box 0})."""
        l = self.levels
        require(l <= 8, f"routing searches box arrangements exhaustively: l <= 8, got {l}")
        start = (tuple(range(l)), 1)
        parent = {start: None}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            arr, seen = state
            for j, s in enumerate(self.box_perms):
                new = tuple(arr[i] for i in s)
                nxt = (new, seen | 1 << new[0])
                if nxt not in parent:
                    parent[nxt] = (state, j)
                    queue.append(nxt)
        return parent

    def _word(self, target: tuple | None) -> list[int]:
        """Shortest word visiting all boxes, ending in ``target`` (any if None)."""
        full = (1 << self.levels) - 1
        parent = self._box_search
        if target is None:
            end = next(s for s in parent if s[1] == full)   # dict order is BFS order
        else:
            end = (tuple(target), full)
            require(end in parent, f"box arrangement {target} cannot be reached")
        word = []
        while parent[end] is not None:
            end, j = parent[end]
            word.append(j)
        return word[::-1]

    def t(self) -> int:
        """t (Theorem 4.1) or, symmetric, t_S (Theorem 4.3)."""
        full = (1 << self.levels) - 1
        if not self.symmetric:
            return len(self._word(None))
        return max(len(self._word(arr)) for arr, seen in self._box_search if seen == full)

    def diameter_formula(self) -> int:
        """l D_G + t (Theorem 4.1; t_S for the symmetric variant, Theorem 4.3)."""
        from permnet.gen.graph.metrics import distance_stats
        dg = distance_stats(self.nucleus.topology.digraph()).diameter
        return self.levels * dg + self.t()

    # ---- routing by sorting labels
    @cached_property
    def _alphabet(self) -> int:
        return int(self.nucleus.seed.max()) + 1

    def _nucleus_route(self, a: bytes, b: bytes) -> list[int]:
        """Nucleus generators leading from label a to label b (shortest, BFS)."""
        nu = self.nucleus
        src, dst = nu.index[a], nu.index[b]
        prev = {src: None}
        queue = deque([src])
        while queue and dst not in prev:
            u = queue.popleft()
            for j in range(len(nu.generators)):
                v = int(nu.succ[u, j])
                if v not in prev:
                    prev[v] = (u, j)
                    queue.append(v)
        out = []
        v = dst
        while prev[v] is not None:
            v, j = prev[v]
            out.append(j)
        return out[::-1]

    def route(self, src: int, dst: int) -> list[tuple[int, str]]:
        """The path of Theorem 4.1's routing by sorting: [(node, generator
        used to reach it)], starting with (src, "").  At most l D_G + t hops."""
        m, l = self.m, self.levels
        A = self._alphabet
        boxes = lambda v: [self.labels[v][i * m:(i + 1) * m] for i in range(l)]  # noqa: E731
        s_boxes, d_boxes = boxes(src), boxes(dst)
        if self.symmetric:
            colour = lambda box: int(box[0]) // A                                  # noqa: E731
            where = {colour(b): p for p, b in enumerate(s_boxes)}
            target = tuple(where[colour(b)] for b in d_boxes)
            word = self._word(target)
        else:
            word = self._word(None)
        arr = list(range(l))
        final = arr
        for j in word:
            final = [final[i] for i in self.box_perms[j]]
        dest_pos = {box: p for p, box in enumerate(final)}   # where each source box ends
        path = [(src, "")]
        v = src

        def sort_front(v, box):
            cur = self.labels[v][:m]
            goal = d_boxes[dest_pos[box]]
            off = (int(cur[0]) // A) * A if self.symmetric else 0
            for j in self._nucleus_route((cur - off).astype(np.uint8).tobytes(),
                                         (goal - off).astype(np.uint8).tobytes()):
                v = int(self.succ[v, j])
                path.append((v, f"n{j + 1}"))
            return v

        seen = {0}
        v = sort_front(v, 0)
        for j in word:
            arr = [arr[i] for i in self.box_perms[j]]
            v = int(self.succ[v, len(self.nucleus.generators) + j])
            path.append((v, self.box_names[j]))
            if arr[0] not in seen:
                seen.add(arr[0])
                v = sort_front(v, arr[0])
        require(v == dst, "internal: routing by sorting did not reach the destination")
        return path


def super_ip(family: str, levels: int, nucleus_spec, symmetric: bool = False,
             max_nodes: int = MAX_NODES) -> SuperIP:
    """Super-IP graph ``family``(l, G) (Yeh & Parhami, Section 3).

    Parameters
    ----------
    family : {"hsn", "ring-cn", "complete-cn", "directed-cn", "superflip"}
    levels : int
        l, the number of boxes (super-symbols).
    nucleus_spec : str or IPGraph
        The nucleus G (:func:`nucleus`), e.g. ``"hypercube:2"``.
    symmetric : bool
        Distinct-symbol seed S_1 S_2 ... S_l (Section 3.5).

    Notes
    -----
    M_N^l nodes (Theorem 3.2); symmetric: l! M_N^l (HSN, super-flip) or
    l M_N^l (cyclic-shift).  Nodes are numbered in BFS order from the seed.
    """
    nu = nucleus(nucleus_spec) if isinstance(nucleus_spec, str) else nucleus_spec
    perms = super_generators(family, levels)
    m = len(nu.seed)
    k = m * levels
    require(k <= 255, f"labels would have {k} symbols (limit 255)")
    A = int(nu.seed.max()) + 1
    require(not symmetric or A * levels <= 256, "too many symbols for a symmetric seed (limit 256)")
    seed = np.concatenate([nu.seed + (i * A if symmetric else 0) for i in range(levels)]).astype(np.uint8)
    gens = [np.concatenate([g, np.arange(m, k)]) for g in nu.generators]
    for _, s in perms:
        gens.append(np.array([s[i // m] * m + i % m for i in range(k)], dtype=np.int64))
    size = len(nu.labels) ** levels * (_group_order(perms) if symmetric else 1)
    require(size <= max_nodes, f"{family}({levels}, {nu.name}) would have {size} nodes (limit {max_nodes})")
    name = ("symmetric-" if symmetric else "") + family
    nname = nucleus_spec if isinstance(nucleus_spec, str) else nu.name
    return SuperIP(seed, gens, *_explore(seed, gens, max_nodes), name, {"levels": levels, "nucleus": nname},
                   nucleus=nu, box_perms=[s for _, s in perms], box_names=[n for n, _ in perms],
                   levels=levels, symmetric=symmetric)


def rcc(levels: int, nucleus_spec="K4", symmetric: bool = False, max_nodes: int = MAX_NODES) -> SuperIP:
    """Recursively connected complete network RCC(l, K_m) as a super-IP graph.

    Yeh & Parhami list RCC [Hamdi 1994] among the super-IP graphs of
    Corollary 4.2 but give no construction; Hamdi's own definition is not
    in the seed text.  This is the reading the corollary implies: the
    nucleus is the complete graph K_m (``complete:m`` or ``Km``: a marked
    ball on m positions, generators the m-1 rotations, so D_G = 1 and
    M_N = m) and the super-generators are RHSN's recursive swaps (for
    l = 2^q boxes S_i swaps the leftmost 2^(i-1) boxes with the next
    2^(i-1); other l as in :func:`super_generators`), i.e. RHSN(l, K_m)
    under the name ``rcc``.  m^l nodes (Theorem 3.2), degree at most
    m - 1 + ceil(log2 l) (fewer where a swap fixes a label or two coincide).

    Corollary 4.2 gives the diameter (D_G + 1) log_{M_N} N - 1 = 2l - 1;
    :meth:`SuperIP.diameter_formula` is Theorem 4.1's l D_G + t with t
    found by search, and the tests compare both with networkx's BFS.

        >>> g = rcc(4, "K3")
        >>> g.topology.n, g.topology.metrics().diameter, g.diameter_formula()
        (81, 7, 7)
    """
    nu = nucleus(nucleus_spec) if isinstance(nucleus_spec, str) else nucleus_spec
    t = nu.topology
    m = t.n
    require(not t.directed and m >= 2 and len(t.tails) == m * (m - 1),
            f"RCC's nucleus is a complete graph K_m (--nucleus Km or complete:m), not {nu.name}")
    g = super_ip("rhsn", levels, nu, symmetric, max_nodes)
    g.name = ("symmetric-" if symmetric else "") + "rcc"
    return g


def build_super(family: str, levels: int, nucleus_spec, symmetric: bool = False,
                max_nodes: int = MAX_NODES) -> SuperIP:
    """:func:`super_ip` for a family of ``SUPER_FAMILIES``, or :func:`rcc` for ``"rcc"``."""
    if family == "rcc":
        return rcc(levels, nucleus_spec, symmetric, max_nodes)
    return super_ip(family, levels, nucleus_spec, symmetric, max_nodes)


def _group_order(perms) -> int:
    """Order of the group the box permutations generate (closure by BFS)."""
    start = tuple(range(len(perms[0][1])))
    seen = {start}
    queue = deque([start])
    while queue:
        a = queue.popleft()
        for _, s in perms:
            b = tuple(a[i] for i in s)
            if b not in seen:
                seen.add(b)
                queue.append(b)
    return len(seen)


# ------------------------------------------------ classic graphs as IP graphs

def hcn(n: int) -> IPGraph:
    """HCN(n,n) without diameter links (Section 2): seed 12..(2n) 12..(2n),
    generators T_{2,2n} and the n-cube's (1,2), (3,4), ..., (2n-1,2n)."""
    require(1 <= n <= 8, f"HCN(n,n) needs 1 <= n <= 8, got {n}")
    half = list(range(2 * n))
    seed = np.array(half + half, dtype=np.uint8)
    gens = [np.array([i + 2 * n for i in half] + half)]
    for i in range(n):
        g = list(range(4 * n))
        g[2 * i], g[2 * i + 1] = 2 * i + 1, 2 * i
        gens.append(np.array(g))
    return ip_graph(seed, gens, name="hcn", dims=n)


def de_bruijn_ip(n: int) -> IPGraph:
    """The binary de Bruijn graph of dimension n as an IP graph (Section 2):
    seed 12 12 ... 12 (2n symbols), generators L_{1,2} = 34 56 ... (2n-1)(2n) 12
    and its variant 34 56 ... 21."""
    require(1 <= n <= 16, f"de Bruijn as an IP graph needs 1 <= n <= 16, got {n}")
    seed = np.array([0, 1] * n, dtype=np.uint8)
    shift = list(range(2, 2 * n))
    return ip_graph(seed, [np.array(shift + [0, 1]), np.array(shift + [1, 0])], name="debruijn-ip", dims=n)
