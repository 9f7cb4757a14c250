"""Minimal-change reconfiguration of a compiled fabric.

A new target (a phase change, LDI re-embedded after failures, a new
schedule) goes onto the same devices and the same cables.  Two choices
decide how many cross-connects change:

1. *which permutation goes where*: new plane q is given the place (the
   devices and node transceivers) of old plane y by a maximum-weight
   assignment on the overlap ``#{k : new_q(k) = old_y(k)}`` (Hungarian
   method, ``scipy.optimize.linear_sum_assignment``); for a plane on one
   switch the overlap is exactly the number of cross-connects kept;
2. *middle-stage routes inside Clos planes*: the edge colouring starts from
   the old one and is repaired (:mod:`permnet.gen.fabric.clos`), so a
   connection keeps its middle network, and with it its ingress
   cross-connect, wherever the new permutation allows (Protsenko, Lemma 1:
   any proper colouring routes the network, so we may choose the one
   nearest the old).

The result is compared with compiling afresh on the same inventory; the one
with fewer changes is returned, so a reconfiguration never changes more
cross-connects than compiling afresh.  A *change* is a device ingress port
whose cross-connect differs (connected, disconnected or moved); a device's
change list puts every disconnect before every connect, so no egress port is
ever claimed twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.fabric.clos import net_from_dict
from permnet.gen.fabric.compile import Fabric, Unit, inverse_partial, compile_fabric, route_units
from permnet.gen.fabric.simulate import check_fabric

__all__ = ["DeviceChanges", "Reconfiguration", "reconfigure", "diff", "change_lists"]


@dataclass(frozen=True)
class DeviceChanges:
    """What one device changes, 0-based: the ingress ports to ``disconnect``,
    then the (ingress, egress) pairs to ``connect``."""

    disconnect: list[int]
    connect: list[tuple[int, int]]

    def as_dict(self) -> dict:
        return {"disconnect": self.disconnect, "connect": [list(p) for p in self.connect]}


@dataclass
class Reconfiguration:
    fabric: Fabric
    changed: int
    kept: int
    from_scratch_changed: int
    from_scratch_kept: int
    assignment: list            # assignment[y] = target plane now at old plane y's place
    strategy: str               # "minimal-change" or "from-scratch"
    changes: dict[int, DeviceChanges] = field(default_factory=dict)   # by device index

    def as_dict(self) -> dict:
        return {"changed": self.changed, "kept": self.kept, "from_scratch_changed": self.from_scratch_changed,
                "from_scratch_kept": self.from_scratch_kept, "assignment": self.assignment,
                "strategy": self.strategy, "devices_changed": len(self.changes)}


def diff(old_xc: list, new_xc: list) -> tuple[int, int]:
    """(changed, kept) cross-connects between two sets of device states."""
    changed = kept = 0
    for a, b in zip(old_xc, new_xc):
        changed += int(np.sum(a != b))
        kept += int(np.sum((a >= 0) & (a == b)))
    return changed, kept


def change_lists(old_xc: list, new_xc: list) -> dict[int, DeviceChanges]:
    """Per changed device (by index): ``disconnect`` (ingress ports) then
    ``connect`` (ingress, egress) pairs, 0-based."""
    out = {}
    for d, (a, b) in enumerate(zip(old_xc, new_xc)):
        moved = a != b
        if not np.any(moved):
            continue
        dis = np.nonzero(moved & (a >= 0))[0]
        con = np.nonzero(moved & (b >= 0))[0]
        out[d] = DeviceChanges(dis.tolist(), [(int(i), int(b[i])) for i in con])
    return out


def _overlap(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """overlap[q, y] = #{k : new[q, k] = old[y, k] >= 0}."""
    P = new.shape[0]
    out = np.zeros((P, old.shape[0]), dtype=np.int64)
    for q in range(P):
        out[q] = np.sum((old == new[q][None, :]) & (old >= 0), axis=1)
    return out


def _route_overlap(new: np.ndarray, old: np.ndarray, k: int) -> np.ndarray:
    """For a Clos place with k-port ingress/egress switches: how many
    connections of ``new`` could reuse a middle route of ``old`` (ingress
    switch a to egress switch b), summed over (a, b)."""
    r = -(-new.shape[1] // k)

    def pairs(p):
        m = p >= 0
        return np.bincount((np.nonzero(m)[0] // k) * r + p[m] // k, minlength=r * r)

    cn = [pairs(p) for p in new]
    co = [pairs(p) for p in old]
    return np.array([[int(np.minimum(a, b).sum()) for b in co] for a in cn], dtype=np.int64)


def _assign(units: list[Unit], old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """assignment[y] = new plane placed where old plane y was.  The weight
    of new plane q at place y is the number of cross-connects it could keep:
    the equal destinations (one per stage) plus, at a Clos place, the
    connections that can reuse a middle route (a cross-connect each)."""
    from scipy.optimize import linear_sum_assignment

    P, n = new.shape
    ov = _overlap(new, old)
    for u in units:
        if u.kind == "clos":
            y = u.planes[0]
            ov[:, y] = u.net.stages * ov[:, y] + _route_overlap(new, old[[y]], u.net.k)[:, 0]
    assignment = np.full(P, -1, dtype=np.int64)
    free = np.ones(P, dtype=bool)
    for u in units:                       # bidirectional places first: they constrain the plane
        if u.kind == "bidi-involution":
            y = u.planes[0]
            cands = [q for q in range(P) if free[q] and np.array_equal(inverse_partial(new[q]), new[q])
                     and not np.any(new[q][new[q] >= 0] == np.nonzero(new[q] >= 0)[0])]
            require(bool(cands), f"the new plane for bidirectional place of plane {y} must be a "
                    "fixed-point-free involution; none is left: compile afresh")
            q = max(cands, key=lambda q: ov[q, y])
            assignment[y] = q
            free[q] = False
        elif u.kind == "bidi-pair":
            y, z = u.planes
            best = None
            for q in range(P):
                if not free[q]:
                    continue
                inv = inverse_partial(new[q])
                for q2 in range(P):
                    if q2 != q and free[q2] and np.array_equal(new[q2], inv):
                        score = ov[q, y] + ov[q2, z]
                        if best is None or score > best[0]:
                            best = (score, q, q2)
            require(best is not None, f"planes {y} and {z} share a bidirectional device as a plane and its "
                    "inverse; the new target has no such pair left: compile afresh")
            assignment[y], assignment[z] = best[1], best[2]
            free[best[1]] = free[best[2]] = False
    rest_y = [y for y in range(P) if assignment[y] < 0]
    rest_q = np.nonzero(free)[0]
    if rest_y:
        sub = ov[np.ix_(rest_q, rest_y)]
        rows, cols = linear_sum_assignment(-sub)
        for r_, c_ in zip(rows, cols):
            assignment[rest_y[c_]] = rest_q[r_]
    return assignment


def _clone_units(units: list[Unit]) -> list[Unit]:
    return [Unit(u.kind, list(u.planes), net_from_dict(u.net.as_dict())) for u in units]


def reconfigure(fab: Fabric, new_planes, topology: dict | None = None) -> Reconfiguration:
    """Reconfigure ``fab`` to ``new_planes`` on the same devices and cables."""
    new_planes = np.asarray(new_planes, dtype=np.int64)
    P, n = fab.planes.shape
    require(new_planes.ndim == 2 and new_planes.shape == (P, n),
            f"a reconfiguration keeps the devices and cables of the fabric ({P} planes of {n} ports); "
            f"the new target has {new_planes.shape[0]} planes of {new_planes.shape[-1]} ports: compile afresh")
    assignment = _assign(fab.units, fab.planes, new_planes)
    placed = new_planes[assignment]
    units = _clone_units(fab.units)
    xc = route_units(units, placed, fab.devices, fab.slot_device, fab.slot_offset, old_units=fab.units)
    topo = dict(topology if topology is not None else fab.topology)
    if not np.array_equal(assignment, np.arange(P)):
        topo["target_plane_of_place"] = assignment.tolist()
    new = Fabric(fab.devices, placed, units, fab.slot_device, fab.slot_offset, fab.slot_size, fab.slot_role,
                 xc, fab.cables, fab.inputs, fab.outputs, topo)
    check_fabric(new)
    changed, kept = diff(fab.xc, new.xc)
    try:
        scratch = compile_fabric(new_planes, fab.devices, dict(topology if topology is not None else fab.topology))
    except PermnetError:
        scratch = None          # afresh it would not even fit: any reconfiguration is better
    if scratch is None:
        same_cables, s_changed, s_kept = False, sum(int(np.sum(x >= 0)) for x in fab.xc) + new.crossconnects(), 0
    else:
        same_cables = (scratch.cables.shape == fab.cables.shape and np.array_equal(scratch.cables, fab.cables)
                       and np.array_equal(scratch.inputs, fab.inputs) and np.array_equal(scratch.outputs, fab.outputs))
        s_changed, s_kept = diff(fab.xc, scratch.xc)
    strategy = "minimal-change"
    if same_cables and s_changed < changed:
        new, changed, kept, assignment, strategy = scratch, s_changed, s_kept, np.arange(P), "from-scratch"
    return Reconfiguration(new, changed, kept, s_changed, s_kept, assignment.tolist(), strategy,
                           change_lists(fab.xc, new.xc))
