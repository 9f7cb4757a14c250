"""Load a planes file into a run-time plane set (:class:`permnet.hdl.planes.PlaneSet`).

The planes file is any configuration ``permnet planes``, ``mixed`` or
``faults`` writes (every format :func:`permnet.ocsconfig.read` reads), or
the ``fabric.json`` of ``permnet fabric compile`` (its logical planes); the writes are those of :func:`permnet.gen.planes.runtime.config_writes`.

Example (a file from ``permnet planes ldi -M 12 -S 3 -o out/ldi12.json``)::

    load_writes("out/ldi12.json", "crossbar")   # [(0, 0, 16), (0, 1, 19), ...]

:func:`swap_load` gives the words of a drained plane swap in a network built with
loadable routes (:class:`permnet.hdl.netip.NetworkIP` with ``swap=True``): the plane
words and the route words that go with the new planes
(:mod:`permnet.gen.routing.runtime`). What it supports, by router:

* ``nexthop``: new planes made of the same LDI(M, S) links (a relabelling of the
  planes, another decomposition, e.g. ``permnet planes ldi --method colouring``);
  the routes stay Melhem's, only the link-to-plane map changes.
* ``table``: any planes, unconnected ports included (``permnet faults``: the
  survivors are routed, LDI routing where their planes are LDI links in survivor
  numbering, else shortest paths), as long as the routes are decided by
  ``(hop, dst)`` at every node and are at most as long as the network's hop-indexed
  VCs allow (the ``max_hops`` it was built for). After a faults swap, packets to a
  failed node are ejected at their source (tdest = the source itself) and a failed
  node must not inject.

Anything else is refused with one :class:`permnet.gen.errors.PermnetError`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from permnet import ocsconfig
from permnet.fileio import read_text
from permnet.gen.errors import require
from permnet.gen.planes import runtime

__all__ = ["read_planes", "load_writes", "SwapLoad", "swap_load"]


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



@dataclass(frozen=True)
class SwapLoad:
    """The words of one swap: ``planes`` ``(plane, addr, data)`` for the plane set's ``cfg``,
    ``routes`` ``(node, addr, data)`` for the network's ``rt`` port, and ``table`` (a
    :class:`permnet.gen.routing.tables.RouteTable`), the routes they give."""

    planes: list
    routes: list
    table: object


def swap_load(source, routes, kind: str, network: str = "benes", *, only_changes: bool = False) -> SwapLoad:
    """The plane and route words that swap the network of ``routes`` (a
    :class:`permnet.hdl.routes.NetworkRoutes` built with ``loadable=True``) to the planes of
    ``source`` (a planes/faults/fabric file, or an S x M array, -1 unconnected) on a plane set
    of ``kind`` (``crossbar`` or ``benes``). Write them all (any order, before the swap
    request or during the drain), then request the swap. ``only_changes``: only the words
    that differ from the network's reset configuration (enough when the shadows still hold
    it). What is supported is in the module docstring; anything else is one error."""
    from permnet.gen.routing import runtime as route_runtime
    from permnet.gen.routing import tables

    M, S = routes.M, routes.S
    require(kind in runtime.LOADABLE, f"{kind!r} planes cannot be swapped (one of {', '.join(runtime.LOADABLE)})")
    require(getattr(routes, "loadable", False), "the network was not built with loadable routes")
    if isinstance(source, (str, os.PathLike)):
        planes = read_planes(source, M, S)
    else:
        planes = runtime.check_planes(source, M, S)
    if routes.router == "nexthop":
        rwords = routes.route_words(planes)
        table = tables.ldi_table(M, S, planes)
    else:
        table = route_runtime.route_table(planes)
        longest = int(table.length.max())
        require(longest <= routes.H, f"the new routes take up to {longest} hops; the network was built for "
                f"{routes.H} (hop-indexed VCs: build it with --vcs {longest})")
        rwords = routes.route_words(planes, table.length, table.hops)
    pwords = runtime.config_writes(kind, planes, network)
    if only_changes:
        old_p = {(y, a): d for y, a, d in runtime.config_writes(kind, routes.planes, network)}
        old_r = {(n, a): d for n, a, d in routes.route_words()}
        pwords = [w for w in pwords if old_p.get(w[:2]) != w[2]]
        rwords = [w for w in rwords if old_r.get(w[:2]) != w[2]]
    return SwapLoad(pwords, rwords, table)
