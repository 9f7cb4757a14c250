"""Quotient cyclic-shift networks QCN(l, Q_n/Q_k) (Yeh & Parhami, Fig. 3).

    >>> from permnet.gen.topologies import qcn
    >>> g = qcn.qcn(2, 7, 3)                  # QCN(2, Q7/Q3): CN(2, Q7) with its 3-cubes merged
    >>> g.topology.n, g.ports, g.diameter_formula()
    (2048, 12, 9)

Fig. 3's caption: "Quotient-CN(l, Q7/Q3) ... is obtained by merging each
3-cube in CN(l, Q7) into a node".  CN(l, Q_n) is the ring (basic)
cyclic-shift network: labels X_1 X_2 ... X_l of l boxes, each an n-bit
hypercube node; nucleus generators flip one bit of the leftmost box X_1,
super-generators L_1, R_1 rotate the boxes (Section 3.3).

Which 3-cubes
-------------
The 3-cubes to merge are subcubes of the nucleus copies (the Q_n spanned
by the flips of the leftmost box: the graph's modules, and the only cubes
present around every node -- a few 4-cycles mixing flips and rotations
exist, e.g. boxes (0,0,1)-(1,0,1)-(1,1,0)-(0,1,0) in CN(3, Q_2), but only where
boxes repeat), and a partition of every nucleus copy into k-cubes that is
the same in all copies fixes k of the n dimensions.  We merge the **k lowest bits of the leftmost
box**: the node X_1 X_2 ... X_l belongs to the class (X_1 >> k, X_2, ...,
X_l).  Which k dimensions does not matter: permuting the bits of every box
alike is an automorphism of CN(l, Q_n) (it commutes with the rotations and
permutes the flips), so every such choice gives an isomorphic quotient.
Merging the same k bits of every box instead would not be a union of
3-cubes of the graph (a box away from the front has no flips of its own).

This is the reading under which Fig. 3 makes sense: a merged node is one
processor that keeps every external link of its 3-cube, and the quotient's
nucleus Q_{n-k} (16 nodes for Q7/Q3) fits the figure's module of at most 24
processors, while leaving the front box moves its k merged bits to any
value for free -- so the modules are connected exactly as the Q_7 nuclei of
CN(l, Q7) are (module graph: drop a box at one end, append any 7-bit box at
the other), with 16 instead of 128 processors per module.

The graph
---------
Node number v = a + 2^(n-k) (X_2 + 2^n X_3 + ... ) where a = X_1 >> k is
the front box without its merged bits (so a module, one quotient nucleus,
is a block of 2^(n-k) consecutive numbers).  Links: the n-k flips of a,
and for every super-generator sigma and every value of the merged bits the
class of sigma(X).  ``succ`` holds those ``ports`` = (n-k) + 2^k s links of
every node (s super-generators: 1 for l = 2, else 2), a regular multigraph
(every CN node has one arc in and out per generator); ``topology`` is the
simple graph (self-loops and repeated links dropped, undirected for ring-
and complete-CN, directed for directed-CN with l > 2), which is not regular:
a link from a class to itself (labels whose boxes repeat) is dropped.
The switching planes come from ``succ`` by edge colouring: a merged node's
ports, a dropped loop as a port looped to itself.

Diameter: every box must reach the front to have its n-k unmerged bits
set (its merged bits are set as it leaves), so it is Theorem 4.1's
l D_G + t with D_G = n-k: (n-k+1) l - 1 for ring-CN (Corollary 4.2 with the
quotient nucleus); the tests compare it with BFS.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from permnet.gen.errors import require
from permnet.gen.topologies.families import Topology

__all__ = ["QCN", "qcn", "parse_merge", "CN_FAMILIES", "MAX_NODES"]

CN_FAMILIES = ("ring-cn", "complete-cn", "directed-cn")
MAX_NODES = 2_000_000


def _cube_dims(spec, what: str) -> int:
    """``Q7``, ``hypercube:7`` or 7 -> 7."""
    from permnet.gen.topologies.ipgraph import nucleus_spec

    if isinstance(spec, (int, np.integer)):
        return int(spec)
    s = nucleus_spec(str(spec))
    name, _, arg = s.partition(":")
    require(name == "hypercube" and arg.isdigit(),
            f"{what} {spec!r}: QCN merges subcubes of a hypercube nucleus; use Q<n> or hypercube:<n>")
    return int(arg)


def parse_merge(nucleus, merge) -> tuple[int, int]:
    """(n, k) from ``--nucleus Q7 --merge Q3``."""
    return _cube_dims(nucleus, "--nucleus"), _cube_dims(merge, "--merge")


@dataclass
class QCN:
    """QCN(l, Q_n/Q_k) over the cyclic-shift family ``family``; see the module notes."""

    family: str
    levels: int
    n: int
    k: int
    succ: np.ndarray            # (nodes, ports) links of every node, loops and repeats kept
    box_perms: list
    box_names: list
    params: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return "qcn"                 # the super-generators are params["cn"] when not ring-CN

    @property
    def ports(self) -> int:
        return int(self.succ.shape[1])

    @cached_property
    def topology(self) -> Topology:
        from permnet.gen.topologies.ipgraph import simple_topology
        return simple_topology(self.name, self.succ, **self.params)

    @cached_property
    def nucleus(self):
        """The quotient nucleus Q_{n-k} (an IP graph, as for super-IP graphs)."""
        from permnet.gen.topologies.ipgraph import nucleus
        return nucleus(f"hypercube:{self.n - self.k}")

    def clusters(self) -> np.ndarray:
        """Module of each node: one quotient nucleus (the same X_2 ... X_l)."""
        return np.arange(len(self.succ), dtype=np.int64) >> (self.n - self.k)

    def t(self) -> int:
        """Fewest super-generator steps that bring every box to the front (Theorem 4.1's t)."""
        l = self.levels
        start = (tuple(range(l)), 1)
        seen = {start}
        queue = deque([(start, 0)])
        full = (1 << l) - 1
        while queue:
            (arr, mask), dist = queue.popleft()
            if mask == full:
                return dist
            for s in self.box_perms:
                new = tuple(arr[i] for i in s)
                nxt = (new, mask | 1 << new[0])
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, dist + 1))
        raise AssertionError("the super-generators cannot bring every box to the front")

    def diameter_formula(self) -> int:
        """l D_G + t with D_G = n - k, the quotient nucleus's diameter."""
        return self.levels * (self.n - self.k) + self.t()

    def label_text(self, v: int) -> str:
        """The boxes X_1, ..., X_l in binary, most significant bit first; merged bits as ``*``."""
        n, k = self.n, self.k
        a, rest = v & ((1 << (n - k)) - 1), v >> (n - k)
        boxes = [format(a, f"0{n - k}b") + "*" * k if n > k else "*" * k]
        boxes += [format((rest >> (n * i)) & ((1 << n) - 1), f"0{n}b") for i in range(self.levels - 1)]
        return ",".join(boxes)


def qcn(levels: int, n, k, family: str = "ring-cn", max_nodes: int = MAX_NODES) -> QCN:
    """QCN(l, Q_n/Q_k): the cyclic-shift network CN(l, Q_n) with the k lowest
    bits of the leftmost box merged (each k-cube of a nucleus becomes one node).

    Parameters
    ----------
    levels : int
        l >= 2 boxes.
    n, k : int or str
        The nucleus Q_n and the merged subcube Q_k (``7``, ``"Q7"`` or
        ``"hypercube:7"``), 0 <= k < n <= 8.  k = 0 is CN(l, Q_n) itself.
    family : {"ring-cn", "complete-cn", "directed-cn"}
        The super-generators; Fig. 3's QCN is ring-CN (L_1, R_1).

    Notes
    -----
    2^(n-k) 2^(n (l-1)) nodes, numbered as in the module notes.
    """
    from permnet.gen.limits import check_arcs
    from permnet.gen.topologies.ipgraph import super_generators

    n, k = _cube_dims(n, "nucleus"), _cube_dims(k, "merged cube")
    require(family in CN_FAMILIES, f"unknown cyclic-shift family {family!r}: use {', '.join(CN_FAMILIES)}")
    require(1 <= n <= 8, f"the nucleus Q{n}: dimension must be 1..8")
    require(0 <= k < n, f"the merged cube Q{k} must be smaller than the nucleus Q{n} (0 <= k < n)")
    perms = super_generators(family, levels)
    a_bits = n - k
    bits = a_bits + n * (levels - 1)
    require(bits <= 40 and (1 << bits) <= max_nodes,
            f"QCN({levels}, Q{n}/Q{k}) would have 2^{bits} nodes (limit {max_nodes:,})")
    N = 1 << bits
    ports = a_bits + (1 << k) * len(perms)
    check_arcs(f"QCN({levels}, Q{n}/Q{k}) with {N:,} nodes", N * ports * 3)
    v = np.arange(N, dtype=np.int64)
    a = v & ((1 << a_bits) - 1)
    rest = v >> a_bits
    mask = (1 << n) - 1
    tail = [(rest >> (n * i)) & mask for i in range(levels - 1)]     # X_2 .. X_l
    cols = [v ^ (np.int64(1) << j) for j in range(a_bits)]           # the unmerged flips of the front box
    for _, sigma in perms:
        for low in range(1 << k):
            boxes = [(a << k) | low] + tail                          # one member of the class
            new = [boxes[i] for i in sigma]                          # box i of sigma(X) is box sigma[i] of X
            w = new[0] >> k
            for i in range(1, levels):
                w = w | (new[i] << (a_bits + n * (i - 1)))
            cols.append(w)
    succ = np.stack(cols, axis=1)
    params = {"levels": levels, "nucleus": f"Q{n}", "merge": f"Q{k}"}
    if family != "ring-cn":
        params["cn"] = family
    return QCN(family, levels, n, k, succ, [s for _, s in perms], [nm for nm, _ in perms], params)
