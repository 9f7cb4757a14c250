"""Distance metrics of very large graphs from a random sample of sources.

Exact all-pairs metrics cost O(n m / 64) word operations (the bit-parallel
BFS of :mod:`permnet.gen.graph.metrics`): about 35 s at n = 2^18 and ten
minutes at 2^20 for degree 8.  Here the BFS runs from ``samples`` sources
drawn uniformly without replacement, in B = samples/64 batches of 64.

Estimate and error bound.  Let X_s be the mean distance from source s to
the other n-1 nodes; the average hop count is the population mean of X_s.
A batch mean Y_b (64 sources) is an unbiased estimate of it; the estimate
is the mean of the B batch means, its standard error

    SE = sd(Y_1..Y_B) / sqrt(B) * sqrt(1 - samples / n)

(finite-population correction), and the 95% interval is estimate +- t SE
with t the Student quantile on B-1 degrees of freedom.  The largest
eccentricity met is a lower bound on the diameter (the exact diameter of
LDI is its closed form, Melhem Section 2).

    >>> from permnet.gen.graph.metrics import Digraph
    >>> from permnet.gen.topologies import ldi
    >>> s = sampled_distance_stats(Digraph.from_successors(ldi.successors(4096, 8)), samples=512)
    >>> abs(s.avg_hops - 3.84) < 0.05, s.diameter_lower_bound <= 4
    (True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import require

__all__ = ["SampledStats", "sampled_distance_stats", "EXACT_WORK_LIMIT", "exact_is_affordable"]

#: n * arcs above which the exact all-pairs metrics take more than ~10 s
EXACT_WORK_LIMIT = 1 << 37


def exact_is_affordable(n: int, arcs: int) -> bool:
    return n * arcs <= EXACT_WORK_LIMIT


@dataclass(frozen=True)
class SampledStats:
    n: int
    samples: int
    avg_hops: float | None
    avg_hops_stderr: float | None
    avg_hops_ci95: tuple[float, float] | None
    diameter_lower_bound: int
    samples_reach_all: bool
    seed: int

    def as_dict(self) -> dict:
        return {"nodes": self.n, "estimate": True, "samples": self.samples, "seed": self.seed,
                "avg_hops": self.avg_hops, "avg_hops_stderr": self.avg_hops_stderr,
                "avg_hops_ci95": None if self.avg_hops_ci95 is None else list(self.avg_hops_ci95),
                "diameter_lower_bound": self.diameter_lower_bound, "samples_reach_all": self.samples_reach_all}


def _relabel(g, order: np.ndarray):
    """The CSR of ``g`` with old node ``order[u]`` renamed ``u``."""
    n = g.n
    new_of_old = np.empty(n, np.int64)
    new_of_old[order] = np.arange(n, dtype=np.int64)
    deg = np.diff(g.indptr)[order]
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=indptr[1:])
    gather = np.repeat(g.indptr[order] - indptr[:-1], deg) + np.arange(indptr[-1], dtype=np.int64)
    return indptr, new_of_old[g.indices[gather]]


#: arc and node visits per level allowed for the sample (about 30 s on one core)
SAMPLE_WORK = 1 << 26


def sampled_distance_stats(g, samples: int | None = None, seed: int = 0, progress: bool | None = None
                           ) -> SampledStats:
    """Estimate the average hop count of ``g`` from ``samples`` random sources
    (rounded up to a multiple of 64, at least two batches; by default up to
    1024 sources, fewer on graphs so large that a batch costs more than
    ``SAMPLE_WORK / 16`` visits per level).  ``progress`` shows a bar on a
    terminal (``None``: only when stderr is one)."""
    from scipy.stats import t as student_t
    from tqdm import tqdm

    from permnet.gen.graph.metrics import _bfs_batches

    n = g.n
    if samples is None:
        samples = 64 * min(16, max(2, SAMPLE_WORK // (n + len(g.indices))))
    require(samples >= 1, f"samples must be >= 1, got {samples}")
    batches = max(2, -(-samples // 64))
    batches = min(batches, n // 64)
    require(batches >= 2, f"a sampled estimate needs at least 128 nodes, got {n}")
    k = batches * 64
    order = np.random.default_rng(seed).permutation(n)
    indptr, indices = _relabel(g, order)
    # the reverse CSR (in-arcs) for the kernel's pull levels
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    rptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(indices, minlength=n), out=rptr[1:])
    rind = tails[np.argsort(indices, kind="stable")]
    ecc = np.zeros(n, np.int64)
    reached = np.zeros(n, np.int64)
    hist = np.zeros((batches, n + 1), np.int64)
    chunk = 2
    with tqdm(total=k, unit="source", desc="sampled BFS", disable=None if progress is None else not progress,
              leave=False) as bar:
        for first in range(0, batches, chunk):
            c = min(chunk, batches - first)
            hist[first:first + c] = _bfs_batches(n, indptr, indices, rptr, rind, first, c, ecc, reached)
            bar.update(64 * c)
    reach_all = bool(np.all(reached[:k] == n))
    if not reach_all:
        return SampledStats(n, k, None, None, None, int(ecc[:k].max()), False, seed)
    levels = np.arange(hist.shape[1])
    means = hist @ levels / (64 * (n - 1))
    est = float(means.mean())
    se = float(means.std(ddof=1) / np.sqrt(batches) * np.sqrt(max(0.0, 1 - k / n)))
    q = float(student_t.ppf(0.975, batches - 1))
    return SampledStats(n, k, est, se, (est - q * se, est + q * se), int(ecc[:k].max()), True, seed)
