"""Time-division multiplexing of planes on a fabric, with guard times.

A schedule (``[{"duration_us": d, "planes": [y, ...]}, ...]``, Melhem
Section 1: a switch may be time-multiplexed between planes) runs, in each
time slot, some of the logical planes.  With W the largest number of
planes in one slot, the fabric is built for W *places* (W planes of
hardware); slot s puts its planes on places 0..W-1 and every device is
reconfigured between slots.  Each slot is routed from the previous one
with the minimal-change reconfiguration (:mod:`permnet.gen.fabric.reconfig`),
so as few devices as possible switch.  A device that switches into slot s
needs its ``switch_ms`` before light may flow: the slot's *guard time* is
the largest ``switch_ms`` of the devices that change entering it (the slots
repeat cyclically, so slot 0 is entered from the last slot), and the useful
part of the slot is ``duration_us - 1000 guard_ms``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import require
from permnet.gen.fabric.compile import Fabric, compile_fabric
from permnet.gen.fabric.reconfig import reconfigure

__all__ = ["TdmSlot", "compile_tdm"]


@dataclass
class TdmSlot:
    """One time slot: its fabric state and guard time."""

    duration_us: float
    planes: list            # logical planes of the slot
    place_of: dict          # logical plane -> place (plane of hardware)
    fabric: Fabric          # the fabric with this slot's cross-connects (planes = places)
    guard_ms: float = 0.0
    devices_switching: int = 0
    changed: int = 0
    device_guard_ms: dict | None = None   # device name -> its switch_ms, for the devices switching into the slot

    def as_dict(self) -> dict:
        return {"duration_us": self.duration_us, "planes": list(self.planes),
                "place_of": {str(k): v for k, v in self.place_of.items()}, "guard_ms": self.guard_ms,
                "devices_switching": self.devices_switching, "changed": self.changed,
                "device_guard_ms": dict(self.device_guard_ms or {}),
                "useful_us": self.duration_us - 1000.0 * self.guard_ms,
                "fits": self.duration_us > 1000.0 * self.guard_ms}


def _places(planes: np.ndarray, slot_planes: list, W: int) -> np.ndarray:
    out = np.full((W, planes.shape[1]), -1, dtype=np.int64)
    for i, y in enumerate(slot_planes):
        out[i] = planes[y]
    return out


def compile_tdm(planes, schedule: list, devices, topology: dict | None = None) -> list[TdmSlot]:
    """Compile a time-multiplexed schedule; slot 0's fabric carries the layout."""
    planes = np.asarray(planes, dtype=np.int64)
    require(bool(schedule), "a schedule needs at least one slot")
    W = max(len(s["planes"]) for s in schedule)
    require(W >= 1, "every schedule slot is empty")
    slots: list[TdmSlot] = []
    prev = None
    for s in schedule:
        target = _places(planes, list(s["planes"]), W)
        if prev is None:
            fab = compile_fabric(target, devices, topology)
            assignment = list(range(W))
        else:
            rec = reconfigure(prev, target, topology)
            fab, assignment = rec.fabric, rec.assignment
        place_of = {int(s["planes"][q]): int(place) for place, q in enumerate(assignment) if q < len(s["planes"])}
        slots.append(TdmSlot(float(s["duration_us"]), [int(y) for y in s["planes"]], place_of, fab))
        prev = fab
    for i, slot in enumerate(slots):
        before = slots[i - 1].fabric.xc
        switching = [d for d, (a, b) in enumerate(zip(before, slot.fabric.xc)) if np.any(a != b)]
        slot.devices_switching = len(switching)
        slot.changed = int(sum(int(np.sum(before[d] != slot.fabric.xc[d])) for d in switching))
        slot.guard_ms = max((float(devices[d].switch_ms) for d in switching), default=0.0)
        slot.device_guard_ms = {devices[d].name: float(devices[d].switch_ms) for d in switching}
    return slots
