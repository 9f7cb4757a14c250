"""Compare a configuration or a switch read-back dump with what was intended.

Cross-connects are compared plane by plane (a plane is one physical switch):

* **missing**: intended ``ingress -> egress`` with the ingress not connected;
* **not established**: the switch lists the intended cross-connect but has
  not completed it (a SONiC status other than ``tuned``: ``tuning``,
  ``blocked``, ``failed``);
* **conflicting**: the ingress is connected elsewhere than intended, or an
  egress is driven by two ingresses, or an ingress is listed twice;
* **extra**: a connection on an ingress (or a plane) that should be unused,
  including ports of the device beyond the plane's.

Only an exact match (none of the four) passes.  The size of a header-less
read-back is the intended configuration's (plane ports, device ports), never
guessed from the largest port it mentions.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from permnet.gen.errors import require

__all__ = ["Report", "compare", "verify_files"]


@dataclass
class Report:
    missing: list = field(default_factory=list)      # (plane, ingress, egress)
    extra: list = field(default_factory=list)        # (plane, ingress, egress)
    conflicting: list = field(default_factory=list)  # dicts
    not_established: list = field(default_factory=list)  # (plane, ingress, egress, status)
    warnings: list = field(default_factory=list)     # remarks that do not decide the verdict
    planes: list | None = None                       # the planes compared (None: all)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.conflicting or self.not_established)

    def as_dict(self) -> dict:
        return {"verified": self.ok, "missing": [list(t) for t in self.missing],
                "extra": [list(t) for t in self.extra], "conflicting": self.conflicting,
                "not_established": [list(t) for t in self.not_established], "warnings": list(self.warnings),
                "planes": self.planes}

    def lines(self) -> list[str]:
        out = [f"warning     {w}" for w in self.warnings]
        out += [f"missing     plane {p}: {i} -> {e}" for p, i, e in self.missing]
        out += [f"not tuned   plane {p}: {i} -> {e} ({st})" for p, i, e, st in self.not_established]
        out += [f"extra       plane {p}: {i} -> {e}" for p, i, e in self.extra]
        out += [f"conflicting plane {c['plane']}: {c['what']}" for c in self.conflicting]
        counts = (f"{len(self.missing)} missing, {len(self.extra)} extra, {len(self.conflicting)} conflicting"
                  + (f", {len(self.not_established)} not established" if self.not_established else ""))
        return out + ["MATCH" if self.ok else f"MISMATCH: {counts}"]


def compare(intended: np.ndarray, connections, planes=None, not_established=()) -> Report:
    """Compare intended planes (``intended[y][i]`` egress or -1) with raw
    ``(plane, ingress, egress)`` connections (0-based); only the planes in
    ``planes`` if given.  ``not_established`` ``(plane, ingress, egress,
    status)`` are cross-connects the switch has not completed."""
    intended = np.asarray(intended)
    nplanes, ports = intended.shape
    rep = Report(planes=None if planes is None else sorted(planes))
    wanted = set(range(nplanes)) if planes is None else set(planes)
    by_in: dict = defaultdict(set)
    by_out: dict = defaultdict(set)
    for p, i, e in connections:
        by_in[(p, i)].add(e)
        by_out[(p, e)].add(i)
    pending = {(p, i): (e, st) for p, i, e, st in not_established}
    for (p, e), ins in sorted(by_out.items()):
        if len(ins) > 1:
            rep.conflicting.append({"plane": p, "egress": e, "ingress": sorted(ins),
                                    "what": f"egress {e} driven by ingress {sorted(ins)}"})
    for p in sorted(wanted):
        for i in range(ports):
            want = int(intended[p, i])
            got = by_in.get((p, i), set())
            if want < 0:
                rep.extra += [(p, i, e) for e in sorted(got)]
            elif not got:
                if (p, i) in pending and pending[(p, i)][0] == want:
                    rep.not_established.append((p, i, want, pending[(p, i)][1]))
                else:
                    rep.missing.append((p, i, want))
            elif got != {want}:
                rep.conflicting.append({"plane": p, "ingress": i, "intended": want, "found": sorted(got),
                                        "what": f"ingress {i} -> {sorted(got)}, intended {want}"})
    for (p, i), got in sorted(by_in.items()):
        if not (p in wanted and 0 <= i < ports):
            rep.extra += [(p, i, e) for e in sorted(got)]
    for (p, i), (e, st) in sorted(pending.items()):
        in_plane = p in wanted and 0 <= i < ports
        if not in_plane or int(intended[p, i]) != e:
            rep.not_established.append((p, i, e, st))     # not intended, and not even up
    return rep


def verify_files(config_path, *, intended_path=None, topology=None, M=None, S=None, method=None, fmt=None,
                 index_base=None, device_ports=None, plane=None) -> Report:
    """``permnet verify``: read the intent (a configuration file, or LDI(M,S)
    decomposed into planes) and the read-back, sized from the intent, and
    compare them; ``plane`` K compares a single switch's read-back with
    plane K of the intent (default: the plane its header names, if any)."""
    from permnet import ocsconfig
    from permnet.gen.planes.decompose import ldi_planes

    first = 0       # an intent holding one switch's plane (a per-switch file) numbers it as it says
    if intended_path:
        given = [o for o, v in (("--topology", topology), ("--nodes", M), ("--degree", S), ("--method", method))
                 if v is not None]
        require(not given, f"--intended FILE is the intent; {', '.join(given)} would be ignored: give one or the other")
        cfg = ocsconfig.read(intended_path)
        want, dev = cfg.planes, device_ports or cfg.device_ports
        if len(want) == 1 and isinstance(cfg.topology.get("plane"), int):
            first = cfg.topology["plane"]
    else:
        require(topology == "ldi" and M is not None and S is not None,
                "give --intended FILE or --topology ldi --nodes M --degree S")
        want, dev = None, device_ports
    ports = want.shape[1] if want is not None else M
    require(dev is None or dev >= ports, f"--device-ports {dev} is smaller than the plane ({ports} ports)")
    dump = ocsconfig.read_dump(config_path, fmt, index_base, ports=ports, device_ports=dev)
    if want is None:
        topo = dump.meta.get("topology") if isinstance(dump.meta.get("topology"), dict) else dump.meta
        want = ldi_planes(M, S, method or topo.get("plane_method") or "auto").planes
    # a read-back of a larger device (``permnet ocs read``) is compared on the plane's ports;
    # its connections beyond them are reported as extra
    require(dump.ports is None or dump.ports >= want.shape[1],
            f"{config_path}: its header says ports={dump.ports}, the intended planes have {want.shape[1]}")
    nplanes = len(want)
    conns, pending = dump.connections, dump.not_established
    said = dump.plane
    what = f"--plane {plane}"
    if plane is None and said is not None and (dump.nplanes or 1) == 1:
        plane, what = said, f"{config_path} is the switch of plane {said}, but the intent's plane"
    if first and plane is None:
        plane = first
    if plane is not None:
        require(first <= plane < first + nplanes, f"{what} out of range {first}..{first + nplanes - 1}")
        require(said is None or said == plane,
                f"{config_path}: its header says it is the switch of plane {said}, not plane {plane}")
        held = sorted({p for p, _, _ in conns} | {p for p, *_ in pending})
        require(len(held) <= 1, f"{config_path}: holds planes {held}; --plane compares one switch's read-back")
        conns = [(plane, i, e) for _, i, e in conns]
        pending = [(plane, i, e, st) for _, i, e, st in pending]
    if first:
        want = np.concatenate([np.full((first, want.shape[1]), -1, dtype=want.dtype), want])
    rep = compare(want, conns, None if plane is None else [plane], pending)
    rep.warnings = list(dump.warnings)
    return rep
