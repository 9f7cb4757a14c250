"""What every benchmark module shares: the case registry and the timer.

A timing case is a function returning ``(ours_s, baseline_s, baseline_name)``
registered with ``@case(name, target)``.  A module in ``bench/sections/``
may also define ``table(args) -> (title, headers, rows)`` for a table of its
own (search quality, synthesis, devices...); ``bench/run.py`` imports every
section module, runs its cases with the others and appends its table.
"""

from __future__ import annotations

import time

CASES: list = []

# what a section's row says when ``run.py --rows`` left it out; ``run.py --section`` keeps
# the saved row in its place
NOT_MEASURED = "not measured in this run (bench/run.py --rows)"


def case(name, target):
    """Register a timing case; a name registered again (a module imported a second
    time, e.g. ``run`` as ``__main__`` and as ``run``) keeps its first registration."""
    def deco(f):
        if all(name != c[0] for c in CASES):
            CASES.append((name, target, f))
        return f
    return deco


def best_time(fn, repeat=3):
    fn()  # warm-up / JIT
    best = float("inf")
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out
