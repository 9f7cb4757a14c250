"""Switch links of a host-switch graph as OCS plane configurations.

Each undirected switch link {a, b} is two directed circuits a -> b and
b -> a; the directed switch graph (max degree Delta) is a bipartite graph
(out-ports on the left, in-ports on the right) of max degree Delta, which
König's theorem colours with Delta colours.  Padded with dummy edges to a
Delta-regular multigraph, it goes through the same edge colouring as the
LDI planes (:mod:`permnet.gen.graph.coloring`); each colour is one plane, a
partial permutation of the m switch ports (dummies removed).
"""

from __future__ import annotations

import numpy as np

from permnet.gen.graph.coloring import edge_colour_regular_bipartite
from permnet.gen.orp.hostswitch import HostSwitchGraph

__all__ = ["switch_planes"]


def switch_planes(g: HostSwitchGraph) -> np.ndarray:
    """(Delta, m) array: plane y sends switch port i to planes[y][i] (-1: idle)."""
    m = g.m
    tails = np.concatenate([g.edges[:, 0], g.edges[:, 1]])
    heads = np.concatenate([g.edges[:, 1], g.edges[:, 0]])
    if len(tails) == 0:
        return np.full((1, m), -1, dtype=np.int64)
    out_deg = np.bincount(tails, minlength=m)
    in_deg = np.bincount(heads, minlength=m)
    delta = int(max(out_deg.max(), in_deg.max()))
    # Pad: pair left deficits with right deficits (same totals on both sides).
    left_need = np.repeat(np.arange(m), delta - out_deg)
    right_need = np.repeat(np.arange(m), delta - in_deg)
    left = np.concatenate([tails, left_need])
    right = np.concatenate([heads, right_need])
    colour = edge_colour_regular_bipartite(left, right, m)
    planes = np.full((delta, m), -1, dtype=np.int64)
    real = len(tails)
    planes[colour[:real], tails] = heads
    return planes
