"""Unique-path routing of a permutation on the butterfly BF(d) and its congestion.

    >>> from permnet.sim.butterfly import route_butterfly, bit_reversal
    >>> r = route_butterfly(4, bit_reversal(4))
    >>> r.max_node_load, r.hot_spot            # Protsenko Figure 5: hot spot (2, 0000)
    (4, (2, 0))

BF(d) (Protsenko Definition 9) has levels 0..d of 2^d rows; the edge from
level l to l+1 may change bit l of the row.  The unique path from (0, a) to
(d, b) is therefore at level l in row ``(b mod 2^l) + (a - a mod 2^l)``:
the low l bits already those of the destination, the others still those of
the source.  Node load = packages passing through a node; link load =
packages crossing an edge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import require
from permnet.gen.routing.benes import check_permutation

__all__ = ["ButterflyResult", "route_butterfly", "bit_reversal"]


def bit_reversal(d: int) -> np.ndarray:
    """pi(a_{d-1} .. a_0) = (a_0 .. a_{d-1})."""
    a = np.arange(2 ** d)
    out = np.zeros_like(a)
    for i in range(d):
        out |= ((a >> i) & 1) << (d - 1 - i)
    return out


@dataclass
class ButterflyResult:
    dims: int
    node_load: np.ndarray     # (d+1, 2^d)
    link_load: dict           # (level, row, next_row) -> load
    max_node_load: int
    max_link_load: int
    hot_spot: tuple

    def as_dict(self) -> dict:
        return {"dims": self.dims, "max_node_load": self.max_node_load, "max_link_load": self.max_link_load,
                "hot_spot": {"level": self.hot_spot[0], "row": self.hot_spot[1],
                             "row_bits": format(self.hot_spot[1], f"0{self.dims}b") if self.dims else "",
                             "load": self.max_node_load},
                "node_load": self.node_load.tolist()}


def route_butterfly(d: int, perm) -> ButterflyResult:
    """Route ``perm`` (row a at level 0 to row perm[a] at level d) on BF(d)."""
    require(d >= 1, f"dims must be >= 1, got {d}")
    p = check_permutation(perm if isinstance(perm, np.ndarray) else list(perm))
    require(len(p) == 2 ** d, f"permutation has {len(p)} entries, BF({d}) has {2 ** d} rows")
    a = np.arange(2 ** d)
    rows = np.stack([(p & ((1 << lv) - 1)) | (a & ~((1 << lv) - 1)) for lv in range(d + 1)])
    node = np.stack([np.bincount(r, minlength=2 ** d) for r in rows])
    links: dict = {}
    for lv in range(d):
        keys, counts = np.unique(rows[lv] * 2 ** d + rows[lv + 1], return_counts=True)
        for k, c in zip(keys.tolist(), counts.tolist()):
            links[(lv, k // 2 ** d, k % 2 ** d)] = c
    lvl, row = np.unravel_index(int(np.argmax(node)), node.shape)
    return ButterflyResult(d, node, links, int(node.max()), max(links.values()), (int(lvl), int(row)))
