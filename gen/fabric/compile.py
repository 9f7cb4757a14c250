"""Placement of logical planes on devices: port ranges, Clos networks, cables.

A *unit* is what one placement decision puts somewhere:

* ``switch``: a plane of n ports on one unidirectional device (ingress and
  egress port range ``[off, off + n)``);
* ``clos``: a plane larger than every device, a Clos network of devices
  (:mod:`permnet.gen.fabric.clos`; Melhem Section 1, Protsenko Lemma 1);
* ``bidi-pair``: a plane pi together with its inverse on a bidirectional
  (circulator) device, ports ``A_k = off + k`` and ``B_k = off + n + k``:
  the cross-connect ``A_k <-> B_pi(k)`` carries node k's signal of pi
  (transmitted on A_k, received on B_pi(k)) and node pi(k)'s signal of
  pi^-1 (transmitted on B_pi(k), received on A_k);
* ``bidi-involution``: a fixed-point-free involution on n ports of a
  bidirectional device (``k <-> pi(k)``).  A directed plane that is neither
  cannot go on a bidirectional device: a circulator port pairs both
  directions, so every cross-connect it makes is undirected.

Every switch of every unit (a :class:`~permnet.gen.fabric.clos.Leaf`) is a
*slot*: a port range of one device.  Slots are packed best-fit-decreasing
(largest first, into the fullest device that still has room, else into the
smallest unused device that fits), so several small planes share a device on
disjoint port ranges and large devices stay free for large slots.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.graph.permutations import inverse_partial
from permnet.gen.fabric.clos import Clos, Leaf, design, design_choices, route
from permnet.gen.fabric.inventory import Device

__all__ = ["Unit", "Fabric", "compile_fabric", "inverse_partial", "plane_units", "place_units", "route_units"]


@dataclass
class Unit:
    """Planes placed together: ``kind`` is switch, clos, bidi-pair or bidi-involution."""

    kind: str
    planes: list
    net: object

    def as_dict(self) -> dict:
        return {"kind": self.kind, "planes": list(self.planes), "net": self.net.as_dict()}


@dataclass
class Fabric:
    """A compiled fabric: devices, their cross-connects and the cables between them.

    ``xc[d][i]`` is the 0-based egress port of device d's ingress port i
    (-1: unconnected); for a bidirectional device it is an involution.
    ``cables[c] = (from_device, from_egress_port, to_device, to_ingress_port)``.
    ``inputs[y, k] = (device, ingress port)`` where node k's transmitter of
    plane y enters the fabric; ``outputs[y, j] = (device, egress port)``
    where node j's receiver of plane y is attached.
    """

    devices: list
    planes: np.ndarray
    units: list
    slot_device: np.ndarray
    slot_offset: np.ndarray
    slot_size: np.ndarray
    slot_role: list
    xc: list
    cables: np.ndarray
    inputs: np.ndarray
    outputs: np.ndarray
    topology: dict = field(default_factory=dict)

    @property
    def used(self) -> np.ndarray:
        """Indices of the devices holding at least one slot."""
        mask = np.zeros(len(self.devices), dtype=bool)
        mask[self.slot_device] = True
        return np.nonzero(mask)[0]

    def roles(self) -> list[list[str]]:
        out: list[set] = [set() for _ in self.devices]
        for d, role in zip(self.slot_device.tolist(), self.slot_role):
            out[d].add(role)
        return [sorted(r) for r in out]

    def crossconnects(self) -> int:
        return int(sum(int(np.sum(x >= 0)) for x in self.xc))


# -------------------------------------------------------------- units

def plane_units(planes: np.ndarray, devices: list[Device]) -> list[Unit]:
    """Units for the planes: bidirectional pairs and involutions where the
    inventory has bidirectional devices they fit, else one unit per plane
    (a switch or a Clos network sized for the largest unidirectional device)."""
    P, n = planes.shape
    uni = [d.ports for d in devices if not d.bidirectional]
    bidi = [d.ports for d in devices if d.bidirectional]
    units: list[Unit] = []
    taken = np.zeros(P, dtype=bool)
    if bidi:
        big = max(bidi)
        for y in range(P):
            if taken[y]:
                continue
            p = planes[y]
            inv = inverse_partial(p)
            conn = p >= 0
            if n <= big and np.array_equal(inv, p) and not np.any(p[conn] == np.nonzero(conn)[0]):
                units.append(Unit("bidi-involution", [y], Leaf(n, "plane")))
                taken[y] = True
                continue
            if 2 * n <= big:
                for z in range(y + 1, P):
                    if not taken[z] and np.array_equal(planes[z], inv):
                        units.append(Unit("bidi-pair", [y, z], Leaf(2 * n, "plane")))
                        taken[y] = taken[z] = True
                        break
    # Keep only as many bidirectional units as the bidirectional devices hold.
    bidi_ids = [i for i, d in enumerate(devices) if d.bidirectional]
    while units and _pack([u.net.size for u in units], bidi_ids, bidi) is None:
        for y in units.pop().planes:
            taken[y] = False
    rest = [y for y in range(P) if not taken[y]]
    if rest:
        if not uni:
            y = rest[0]
            raise PermnetError(
                f"plane {y} is neither a fixed-point-free involution nor paired with its inverse "
                f"(or it is larger than every bidirectional device): a bidirectional (circulator) "
                f"device pairs ports in both directions and cannot carry it; add unidirectional devices")
        largest = max(uni)
        for y in rest:
            net = design(n, largest)
            units.append(Unit("switch" if isinstance(net, Leaf) else "clos", [y], net))
    return units


def _redesign(units: list[Unit], n: int, big: int, small: int, t: int) -> list[Unit]:
    """The first ``t`` unidirectional planes designed for devices of ``big``
    ports, the others for devices of ``small`` ports."""
    out, i = [], 0
    for u in units:
        if u.kind.startswith("bidi"):
            out.append(u)
            continue
        net = design(n, big if i < t else small)
        out.append(Unit("switch" if isinstance(net, Leaf) else "clos", list(u.planes), net))
        i += 1
    return out


def _fewest_devices(units: list[Unit], n: int, devices: list[Device]) -> list[Unit]:
    """Among the Clos shapes of :func:`design_choices`, the one whose slots
    pack onto the fewest devices (all Clos planes get the same shape)."""
    clos = [u for u in units if u.kind == "clos"]
    if not clos:
        return units
    largest = max(d.ports for d in devices if not d.bidirectional)
    ids = [i for i, d in enumerate(devices) if not d.bidirectional]
    ports = [devices[i].ports for i in ids]
    best = None
    for r in design_choices(n, largest):
        trial = [Unit(u.kind, list(u.planes), design(n, largest, r)) if u.kind == "clos" else u for u in units]
        sizes = [lf.size for u in trial if not u.kind.startswith("bidi") for lf in u.net.leaves()]
        place = _pack(sizes, ids, ports)
        if place is None:
            continue
        used = len({d for d, _ in place})
        if best is None or used < best[0]:
            best = (used, trial)
        if used * largest < sum(sizes) + largest:   # cannot do better than ceil(ports / largest)
            break
    return best[1] if best else units


# -------------------------------------------------------------- packing

def _pack(sizes: list[int], dev_ids: list[int], dev_ports: list[int]):
    """Best-fit-decreasing packing of slots (``sizes``) into devices; returns
    (device, offset) per slot, or None if they do not fit."""
    order = sorted(range(len(sizes)), key=lambda s: (-sizes[s], s))
    free_unused = sorted(range(len(dev_ids)), key=lambda j: (dev_ports[j], j))
    open_by_cap: dict[int, list[int]] = {}
    fill = [0] * len(dev_ids)
    place = [(-1, -1)] * len(sizes)
    for s in order:
        need = sizes[s]
        best = None
        for cap in sorted(open_by_cap):
            if cap >= need and open_by_cap[cap]:
                best = cap
                break
        if best is not None:
            j = open_by_cap[best].pop(0)
            if not open_by_cap[best]:
                del open_by_cap[best]
        else:
            pos = next((q for q, j in enumerate(free_unused) if dev_ports[j] >= need), None)
            if pos is None:
                return None
            j = free_unused.pop(pos)
        place[s] = (dev_ids[j], fill[j])
        fill[j] += need
        cap = dev_ports[j] - fill[j]
        if cap > 0:
            lst = open_by_cap.setdefault(cap, [])
            # keep inventory order within a capacity
            lst.append(j)
            lst.sort()
    return place


def _describe(units: list[Unit]) -> str:
    parts = []
    for u in units:
        net = u.net
        if isinstance(net, Clos):
            stages = net.stages
            parts.append(f"plane {u.planes[0]} of {net.size} ports: a {stages}-stage Clos network of "
                         f"{net.r} ingress switches of {net.k} ports, {net.k} middle networks of "
                         f"{net.r} ports and {net.r} egress switches")
            break
    return "; ".join(parts)


def place_units(units: list[Unit], devices: list[Device]):
    """Give every leaf of every unit a slot (device, port offset)."""
    slot_device, slot_offset, slot_size, slot_role = [], [], [], []
    for bidi in (True, False):
        leaves = [lf for u in units if u.kind.startswith("bidi") == bidi for lf in u.net.leaves()]
        if not leaves:
            continue
        ids = [i for i, d in enumerate(devices) if d.bidirectional == bidi]
        ports = [devices[i].ports for i in ids]
        sizes = [lf.size for lf in leaves]
        place = _pack(sizes, ids, ports)
        if place is None:
            kind = "bidirectional" if bidi else "unidirectional"
            largest = max(ports) if ports else 0
            need = _pack(sizes, list(range(len(sizes))), [largest] * len(sizes)) if largest else None
            needed = len({d for d, _ in need}) if need else None
            what = _describe([u for u in units if not u.kind.startswith("bidi")]) if not bidi else \
                f"{len(leaves)} bidirectional planes or pairs of {max(sizes)} ports"
            raise PermnetError(
                f"the planes do not fit: they need {needed} {kind} devices of {largest} ports"
                f" ({len(sizes)} switches, {sum(sizes)} ports in all{'; ' + what if what else ''}); "
                f"the inventory has {len(ids)} {kind} devices with {sum(ports)} ports")
        for lf, (d, off) in zip(leaves, place):
            lf.slot = len(slot_device)
            slot_device.append(d)
            slot_offset.append(off)
            slot_size.append(lf.size)
            slot_role.append(lf.role)
    return (np.array(slot_device, dtype=np.int64), np.array(slot_offset, dtype=np.int64),
            np.array(slot_size, dtype=np.int64), slot_role)


# -------------------------------------------------------------- routing and cables

def _terminal_in(net, i):
    """(leaf, local ingress port) of input i of a network."""
    while isinstance(net, Clos):
        net, i = net.ingress[i // net.k], i % net.k
    return net, i


def _terminal_out(net, j):
    while isinstance(net, Clos):
        net, j = net.egress[j // net.k], j % net.k
    return net, j


def _cables(net, out: list):
    """Append (from leaf, egress port, to leaf, ingress port) for the fibres inside ``net``."""
    if isinstance(net, Leaf):
        return
    k, r = net.k, net.r
    for a in range(r):
        for c in range(k):
            lf, i = _terminal_in(net.middle[c], a)
            out.append((net.ingress[a], c, lf, i))
    for c in range(k):
        for b in range(r):
            lf, j = _terminal_out(net.middle[c], b)
            out.append((lf, j, net.egress[b], c))
        _cables(net.middle[c], out)


def route_units(fab_units: list[Unit], planes: np.ndarray, devices: list[Device], slot_device, slot_offset,
                old_units: list | None = None) -> list[np.ndarray]:
    """Cross-connects of every device for the planes routed through the units
    (with ``old_units``, Clos routes keep the most existing cross-connects)."""
    xc = [np.full(d.ports, -1, dtype=np.int64) for d in devices]
    n = planes.shape[1]
    for u_i, u in enumerate(fab_units):
        if u.kind in ("switch", "clos"):
            old = old_units[u_i].net if old_units is not None else None
            local = route(u.net, planes[u.planes[0]], old)
            for lf in u.net.leaves():
                d, off = slot_device[lf.slot], slot_offset[lf.slot]
                loc = local[id(lf)]
                m = loc >= 0
                xc[d][off + np.nonzero(m)[0]] = off + loc[m]
        else:
            lf = u.net
            d, off = slot_device[lf.slot], slot_offset[lf.slot]
            p = planes[u.planes[0]]
            m = p >= 0
            src = np.nonzero(m)[0]
            if u.kind == "bidi-involution":
                xc[d][off + src] = off + p[m]
            else:
                xc[d][off + src] = off + n + p[m]
                xc[d][off + n + p[m]] = off + src
    return xc


def terminals(units: list[Unit], P: int, n: int, slot_device, slot_offset):
    """Where each plane's node ports attach: inputs[y, k], outputs[y, j] = (device, port)."""
    inputs = np.full((P, n, 2), -1, dtype=np.int64)
    outputs = np.full((P, n, 2), -1, dtype=np.int64)
    ks = np.arange(n)
    for u in units:
        if u.kind in ("switch", "clos"):
            y = u.planes[0]
            for k in range(n):
                lf, i = _terminal_in(u.net, k)
                inputs[y, k] = (slot_device[lf.slot], slot_offset[lf.slot] + i)
                lf, j = _terminal_out(u.net, k)
                outputs[y, k] = (slot_device[lf.slot], slot_offset[lf.slot] + j)
        else:
            lf = u.net
            d, off = slot_device[lf.slot], slot_offset[lf.slot]
            if u.kind == "bidi-involution":
                y = u.planes[0]
                inputs[y, :, 0] = outputs[y, :, 0] = d
                inputs[y, :, 1] = outputs[y, :, 1] = off + ks
            else:
                y, z = u.planes
                inputs[y, :, 0] = outputs[y, :, 0] = inputs[z, :, 0] = outputs[z, :, 0] = d
                inputs[y, :, 1] = off + ks
                outputs[y, :, 1] = off + n + ks
                inputs[z, :, 1] = off + n + ks
                outputs[z, :, 1] = off + ks
    return inputs, outputs


def cable_array(units: list[Unit], slot_device, slot_offset) -> np.ndarray:
    rows: list = []
    for u in units:
        _cables(u.net, rows)
    out = np.empty((len(rows), 4), dtype=np.int64)
    for c, (fl, j, tl, i) in enumerate(rows):
        out[c] = (slot_device[fl.slot], slot_offset[fl.slot] + j, slot_device[tl.slot], slot_offset[tl.slot] + i)
    return out


def compile_fabric(planes, devices: list[Device], topology: dict | None = None) -> Fabric:
    """Compile logical planes (``planes[y][k]`` = egress of node k in plane y,
    -1 unconnected) onto ``devices``.  Raises PermnetError saying how many
    devices of what size are needed when they do not fit.  The result is
    checked by :func:`permnet.gen.fabric.simulate.check_fabric` before it is
    returned: the composed fabric realises every plane exactly."""
    from permnet.gen.fabric.simulate import check_fabric

    planes = np.asarray(planes, dtype=np.int64)
    require(planes.ndim == 2 and planes.shape[0] >= 1 and planes.shape[1] >= 1, "no planes to compile")
    require(len(devices) >= 1, "the inventory has no devices")
    units = _fewest_devices(plane_units(planes, devices), planes.shape[1], devices)
    try:
        sd, so, ss, sr = place_units(units, devices)
    except PermnetError as first:
        # Too few devices as large as one plane: put fewer planes on them and
        # build the others as Clos networks of smaller devices.
        sizes = sorted({d.ports for d in devices if not d.bidirectional}, reverse=True)
        nuni = sum(1 for u in units if not u.kind.startswith("bidi"))
        for small in sizes[1:] or sizes:
            for t in range(nuni, -1, -1):
                trial = _redesign(units, planes.shape[1], sizes[0], small, t)
                try:
                    sd, so, ss, sr = place_units(trial, devices)
                except PermnetError:
                    continue
                units = trial
                break
            else:
                continue
            break
        else:
            raise first from None
    xc = route_units(units, planes, devices, sd, so)
    inputs, outputs = terminals(units, planes.shape[0], planes.shape[1], sd, so)
    cables = cable_array(units, sd, so)
    fab = Fabric(list(devices), planes, units, sd, so, ss, sr, xc, cables, inputs, outputs, dict(topology or {}))
    check_fabric(fab)
    return fab
