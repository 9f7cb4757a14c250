"""Graph Golf order/radix files (``n m r`` then ``u v`` lines; hosts 0..n-1,
switches n..n+m-1): reading and writing them, and the record runs that write
one file per instance.  The format itself (text <-> graph) is
:func:`permnet.gen.orp.hostswitch.parse_edges` and
:meth:`~permnet.gen.orp.hostswitch.HostSwitchGraph.to_edges_text`."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from permnet.fileio import atomic_write, read_text
from permnet.gen.errors import require
from permnet.gen.orp.hostswitch import HostSwitchGraph, parse_edges
from permnet.gen.orp.records import INSTANCES, RecordRow, search_instance

__all__ = ["read_edges", "write_edges", "run_instance", "run_records"]


def read_edges(path) -> HostSwitchGraph:
    """The host-switch graph of a Graph Golf file, every violation listed."""
    return parse_edges(read_text(path), str(path))


def write_edges(g: HostSwitchGraph, path) -> Path:
    """Write ``g`` as a Graph Golf file (:func:`permnet.fileio.atomic_write`)."""
    return atomic_write(path, g.to_edges_text())


def run_instance(n: int, r: int, seconds: float, outdir, *, workers: int = 2, sweep_k: int = 8, seed: int = 0,
                 scheduler: str | None = None, evaluations: int | None = None) -> RecordRow:
    """:func:`permnet.gen.orp.records.search_instance`, the graph written to ``outdir/h{n}r{r}.edges``."""
    t = time.perf_counter()
    row, g = search_instance(n, r, seconds, workers=workers, sweep_k=sweep_k, seed=seed, scheduler=scheduler,
                             evaluations=evaluations)
    path = write_edges(g, Path(outdir) / f"h{n}r{r}.edges")
    return dataclasses.replace(row, seconds=time.perf_counter() - t, path=str(path))


def run_records(seconds: float, outdir, *, instances=None, workers: int = 2, sweep_k: int = 8, seed: int = 0,
                scheduler: str | None = None, evaluations: int | None = None, progress=None) -> list[RecordRow]:
    """Every instance with ``seconds`` of wall time each (or ``evaluations`` per anneal)."""
    require(seconds > 0, f"seconds must be > 0, got {seconds}")
    rows = []
    for n, r in instances or INSTANCES:
        row = run_instance(n, r, seconds, outdir, workers=workers, sweep_k=sweep_k, seed=seed,
                           scheduler=scheduler, evaluations=evaluations)
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows
