"""Load a planes file into a run-time plane set (:class:`permnet.hdl.planes.PlaneSet`).

The planes file is any configuration ``permnet planes``, ``fabric``,
``mixed`` or ``faults`` writes (every format :func:`permnet.ocsconfig.read`
reads); the writes are those of :func:`permnet.gen.planes.runtime.config_writes`.

Example (a file from ``permnet planes ldi -M 12 -S 3 -o out/ldi12.json``)::

    load_writes("out/ldi12.json", "crossbar")   # [(0, 0, 16), (0, 1, 19), ...]
"""

from __future__ import annotations

import numpy as np

from permnet import ocsconfig
from permnet.gen.errors import require
from permnet.gen.planes import runtime

__all__ = ["read_planes", "load_writes"]


def read_planes(path, M: int | None = None, S: int | None = None) -> np.ndarray:
    """The (S, M) planes of a configuration file (-1 unconnected), checked
    against the plane set's M and S when given."""
    cfg = ocsconfig.read(path)
    require(M is None or cfg.ports == M, f"{path}: {cfg.ports} ports per plane, the plane set has {M}")
    require(S is None or len(cfg.planes) == S, f"{path}: {len(cfg.planes)} planes, the plane set has {S}")
    return runtime.check_planes(cfg.planes)


def load_writes(path, kind: str, network: str = "benes") -> list[tuple[int, int, int]]:
    """The ``(plane, addr, data)`` writes that load the file's planes (commit after the last)."""
    return runtime.config_writes(kind, read_planes(path), network)

