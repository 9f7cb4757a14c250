"""Compare a configuration or a switch read-back dump with what was intended.

Cross-connects are compared plane by plane (a plane is one physical switch):

* **missing**: intended ``ingress -> egress`` with the ingress not connected;
* **conflicting**: the ingress is connected elsewhere than intended, or an
  egress is driven by two ingresses, or an ingress is listed twice;
* **extra**: a connection on an ingress (or a plane) that should be unused.

Only an exact match (none of the three) passes.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Report", "compare"]


@dataclass
class Report:
    missing: list = field(default_factory=list)      # (plane, ingress, egress)
    extra: list = field(default_factory=list)        # (plane, ingress, egress)
    conflicting: list = field(default_factory=list)  # dicts

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.conflicting)

    def as_dict(self) -> dict:
        return {"match": self.ok, "missing": [list(t) for t in self.missing],
                "extra": [list(t) for t in self.extra], "conflicting": self.conflicting}

    def lines(self) -> list[str]:
        out = [f"missing     plane {p}: {i} -> {e}" for p, i, e in self.missing]
        out += [f"extra       plane {p}: {i} -> {e}" for p, i, e in self.extra]
        out += [f"conflicting plane {c['plane']}: {c['what']}" for c in self.conflicting]
        verdict = "MATCH" if self.ok else (f"MISMATCH: {len(self.missing)} missing, {len(self.extra)} extra, "
                                           f"{len(self.conflicting)} conflicting")
        return out + [verdict]


def compare(intended: np.ndarray, connections) -> Report:
    """Compare intended planes (``intended[y][i]`` egress or -1) with raw
    ``(plane, ingress, egress)`` connections (0-based)."""
    intended = np.asarray(intended)
    rep = Report()
    by_in: dict = defaultdict(set)
    by_out: dict = defaultdict(set)
    for p, i, e in connections:
        by_in[(p, i)].add(e)
        by_out[(p, e)].add(i)
    for (p, e), ins in sorted(by_out.items()):
        if len(ins) > 1:
            rep.conflicting.append({"plane": p, "egress": e, "ingress": sorted(ins),
                                    "what": f"egress {e} driven by ingress {sorted(ins)}"})
    nplanes, ports = intended.shape
    for p in range(nplanes):
        for i in range(ports):
            want = int(intended[p, i])
            got = by_in.get((p, i), set())
            if want < 0:
                rep.extra += [(p, i, e) for e in sorted(got)]
            elif not got:
                rep.missing.append((p, i, want))
            elif got != {want}:
                rep.conflicting.append({"plane": p, "ingress": i, "intended": want, "found": sorted(got),
                                        "what": f"ingress {i} -> {sorted(got)}, intended {want}"})
    for (p, i), got in sorted(by_in.items()):
        if not (0 <= p < nplanes and 0 <= i < ports):
            rep.extra += [(p, i, e) for e in sorted(got)]
    return rep
