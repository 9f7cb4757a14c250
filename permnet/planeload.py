"""Load a planes file into a run-time plane set (:class:`permnet.hdl.planes.PlaneSet`).

The planes file is any configuration ``permnet planes``, ``mixed`` or
``faults`` writes (every format :func:`permnet.ocsconfig.read` reads), or
the ``fabric.json`` of ``permnet fabric compile`` (its logical planes); the writes are those of :func:`permnet.gen.planes.runtime.config_writes`.

Example (a file from ``permnet planes ldi -M 12 -S 3 -o out/ldi12.json``)::

    load_writes("out/ldi12.json", "crossbar")   # [(0, 0, 16), (0, 1, 19), ...]
"""

from __future__ import annotations

import json

import numpy as np

from permnet import ocsconfig
from permnet.fileio import read_text
from permnet.gen.errors import require
from permnet.gen.planes import runtime

__all__ = ["read_planes", "load_writes"]


def _json_or_none(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None      # ocsconfig.read reports what is wrong with it


def read_planes(path, M: int | None = None, S: int | None = None) -> np.ndarray:
    """The (S, M) planes of a configuration file (-1 unconnected), checked
    against the plane set's M and S when given."""
    from permnet import fabric

    text = read_text(path).lstrip()
    doc = _json_or_none(text) if text.startswith("{") else None
    if isinstance(doc, dict) and doc.get("format") == fabric.FORMAT:
        require("tdm" not in doc, f"{path}: a time-multiplexed fabric; give its planes file instead")
        planes = fabric.load_fabric(path).planes
    else:
        planes = ocsconfig.read(path).planes
    S_file, M_file = planes.shape
    require(M is None or M_file == M, f"{path}: {M_file} ports per plane, the plane set has {M}")
    require(S is None or S_file == S, f"{path}: {S_file} planes, the plane set has {S}")
    return runtime.check_planes(planes)


def load_writes(path, kind: str, network: str = "benes") -> list[tuple[int, int, int]]:
    """The ``(plane, addr, data)`` writes that load the file's planes (commit after the last)."""
    return runtime.config_writes(kind, read_planes(path), network)

