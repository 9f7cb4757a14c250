"""Independent rows of ``make bench`` on several workers (``bench/run.py --workers N --scheduler ADDRESS|local``).

A row whose figure is not a wall-clock time (a synthesis: LUT4, FF and Fmax
from yosys and nextpnr, the same whatever else the machine runs) is an
independent job of minutes.  A section lists such rows as :class:`Job`
placeholders among its finished rows and hands the list to :func:`run_rows`,
which runs the jobs on ``--workers`` local processes or the ``--scheduler``
(:func:`permnet.gen.parallel.map_jobs`) and puts each result in the place of
its job, so the table's rows keep their order on any number of workers::

    rows = [Job.of(_router_row, name, kw, note) if wanted else _skipped(name) for ...]
    rows = run_rows(rows, args, desc="synthesis")

A row that times something must not run beside another (each would measure
the other's load): a job made with ``timed=True`` runs here, in the process
of ``bench/run.py``, one at a time and after the untimed jobs have ended,
whatever ``--workers`` says.  The timed cases of ``bench/run.py`` and the
sections' own timed rows run so too.

A job names its function by module and name (a script run as ``__main__``,
``bench/run.py``, by its file name), so the workers import it: local worker
processes and a ``LocalCluster`` have ``bench/`` on their path as this process
does; the workers of a remote scheduler need the same checkout with
``PYTHONPATH=bench``.  A local worker process imports the script that
started it again (as ``__mp_main__``), so a script that runs jobs keeps its
work under ``if __name__ == "__main__":``, as ``bench/run.py`` does.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Job", "run_rows", "parallel_args"]


@dataclass(frozen=True)
class Job:
    """``module.name(*args)``, picklable; ``timed``: its figure is a time (run alone, here)."""

    module: str
    name: str
    args: tuple = ()
    timed: bool = False

    @classmethod
    def of(cls, fn, *args, timed: bool = False) -> "Job":
        """The job calling the module-level function ``fn`` with ``args``."""
        module = fn.__module__
        if module == "__main__":  # bench/run.py run as a script: importable by its file name
            module = Path(sys.modules["__main__"].__file__).stem
        return cls(module, fn.__qualname__, tuple(args), timed)

    def __call__(self):
        return getattr(importlib.import_module(self.module), self.name)(*self.args)


def _call(job: Job):
    return job()


def parallel_args(args) -> tuple[int, str | None]:
    """``(workers, scheduler)`` of ``bench/run.py``'s arguments (1, None when it has none)."""
    return getattr(args, "workers", 1) or 1, getattr(args, "scheduler", None)


def run_rows(rows, args=None, desc: str = "rows") -> list:
    """``rows`` with every :class:`Job` replaced by its result, in place: the untimed jobs on
    ``args.workers`` / ``args.scheduler`` (results in the order of the jobs), then the timed ones
    here, one after another."""
    rows = list(rows)
    from permnet.gen.parallel import map_jobs

    workers, scheduler = parallel_args(args)
    free = [i for i, r in enumerate(rows) if isinstance(r, Job) and not r.timed]
    if free:
        for i, out in zip(free, map_jobs(_call, [rows[i] for i in free], workers, scheduler, desc=desc)):
            rows[i] = out
    for i, r in enumerate(rows):
        if isinstance(r, Job):
            rows[i] = r()
    return rows
