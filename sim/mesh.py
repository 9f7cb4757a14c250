"""Synchronous packet simulation of online permutation routing on meshes.

    >>> from permnet.sim.mesh import route_mesh
    >>> r = route_mesh(8, 1, [7, 6, 5, 4, 3, 2, 1, 0])
    >>> r.steps <= 2 * 7, r.max_buffer <= 3
    (True, True)

Protsenko, Section 2.  Model (Definition 3): in every step each processor
sends at most one package to one neighbour; all processors step together.

* (n,1) linear array, Theorem 1: phase 1 (n-1 steps) moves packages whose
  destination is to the left, phase 2 (n-1 steps) those to the right.
* (n,2) mesh, Theorem 2: first along the row to the destination column,
  then along the column; each dimension is the two-phase scheme above
  (left then right), so 4(n-1) steps in all.

A processor with several packages to move sends the one whose destination
is farthest (the paper's priority).  ``steps`` is the step at which the
last package arrived (0 if none moves); ``max_buffer`` the largest number of
packages held by one processor after any step, delivered ones included (as
in the proof of Theorem 1: "package i, package j with pi(j) = i and some
other package").  Node p of the (n,2) mesh is (row p div n, column p mod n).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from permnet.gen.errors import require
from permnet.gen.routing.benes import check_permutation

__all__ = ["MeshResult", "route_mesh", "bounds"]


@dataclass
class MeshResult:
    side: int
    dims: int
    steps: int
    max_buffer: int
    step_bound: int
    buffer_bound: int

    def as_dict(self) -> dict:
        return {"side": self.side, "dims": self.dims, "nodes": self.side ** self.dims, "steps": self.steps,
                "max_buffer": self.max_buffer, "step_bound": self.step_bound, "buffer_bound": self.buffer_bound,
                "within_bounds": self.steps <= self.step_bound and self.max_buffer <= self.buffer_bound}


def bounds(side: int, dims: int) -> tuple[int, int]:
    """(routing time, buffer) of Theorems 1 and 2."""
    return (2 * (side - 1), 3) if dims == 1 else (4 * (side - 1), side)


@njit(cache=True)
def _simulate(cur, dst, side, axes, dirs):
    """cur/dst: (P, 2) coordinates (row, column).  Runs one sub-phase of
    side-1 steps per (axis, direction); returns (last arrival step, max buffer)."""
    P = cur.shape[0]
    nodes = side * side
    best = np.empty(nodes, np.int64)
    count = np.zeros(nodes, np.int64)
    maxbuf = 0
    for k in range(P):
        count[cur[k, 0] * side + cur[k, 1]] += 1
    for v in range(nodes):
        maxbuf = max(maxbuf, count[v])
    last = 0
    step = 0
    for ph in range(axes.shape[0]):
        ax = axes[ph]
        dr = dirs[ph]
        for _ in range(side - 1):
            step += 1
            best[:] = -1
            for k in range(P):
                c = cur[k, ax]
                t = dst[k, ax]
                if (dr < 0 and t < c) or (dr > 0 and t > c):
                    v = cur[k, 0] * side + cur[k, 1]
                    b = best[v]
                    # farthest destination first; ties to the lower package index
                    if b < 0 or (dr < 0 and t < dst[b, ax]) or (dr > 0 and t > dst[b, ax]):
                        best[v] = k
            for v in range(nodes):
                k = best[v]
                if k >= 0:
                    count[v] -= 1
                    cur[k, ax] += dr
                    count[cur[k, 0] * side + cur[k, 1]] += 1
                    if cur[k, 0] == dst[k, 0] and cur[k, 1] == dst[k, 1]:
                        last = step
            for v in range(nodes):
                maxbuf = max(maxbuf, count[v])
    return last, maxbuf


def route_mesh(side: int, dims: int, perm) -> MeshResult:
    """Route ``perm`` (node i sends to node perm[i]) on the (side, dims) mesh."""
    require(dims in (1, 2), f"dims must be 1 or 2, got {dims}")
    require(side >= 1, f"side must be >= 1, got {side}")
    p = check_permutation(perm if isinstance(perm, np.ndarray) else list(perm))
    require(len(p) == side ** dims, f"permutation has {len(p)} entries, the mesh has {side ** dims} nodes")
    src = np.arange(len(p))
    if dims == 1:
        cur = np.stack([np.zeros_like(src), src], axis=1)
        dst = np.stack([np.zeros_like(p), p], axis=1)
        axes, dirs = np.array([1, 1]), np.array([-1, 1])
    else:
        cur = np.stack([src // side, src % side], axis=1)
        dst = np.stack([p // side, p % side], axis=1)
        axes, dirs = np.array([1, 1, 0, 0]), np.array([-1, 1, -1, 1])
    # The line is row 0 of a side x side grid whose other rows stay empty.
    last, buf = _simulate(np.ascontiguousarray(cur, dtype=np.int64), np.ascontiguousarray(dst, dtype=np.int64),
                          side, axes, dirs)
    sb, bb = bounds(side, dims)
    return MeshResult(side, dims, int(last), int(buf), sb, bb)
