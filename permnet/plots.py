"""Plots of LDI networks (matplotlib, Agg backend), written as PNG and SVG.

Files are deterministic: SVG ids are salted with a constant and no dates are
embedded.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from permnet.fileio import atomic_write  # noqa: E402
from permnet.gen.topologies import ldi  # noqa: E402
from permnet.gen.graph.metrics import Digraph, distance_stats  # noqa: E402
from permnet.gen.planes.decompose import ldi_planes  # noqa: E402

__all__ = ["plot_ldi", "hop_histogram", "unfolded"]

UNFOLD_MAX = 64
plt.rcParams["svg.hashsalt"] = "permnet"


def _save(fig, stem: Path) -> list[Path]:
    import io

    out = []
    for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None, "Creator": None})):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, metadata=meta, dpi=120)
        out.append(atomic_write(stem.with_suffix("." + ext), buf.getvalue()))
    plt.close(fig)
    return out


def hop_histogram(M: int, S: int, stem: Path) -> list[Path]:
    """Bar chart of the number of ordered pairs at each hop distance."""
    stats = distance_stats(Digraph.from_successors(ldi.successors(M, S)))
    hops = np.arange(len(stats.hop_counts))[1:]
    counts = stats.hop_counts[1:]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(hops, counts / counts.sum(), color="#3b6ea8")
    ax.set_xlabel("hops")
    ax.set_ylabel("fraction of ordered node pairs")
    ax.set_title(f"LDI({M},{S}): diameter {stats.diameter}, average {stats.avg_hops:.3f} hops")
    ax.set_xticks(hops)
    return _save(fig, stem)


def unfolded(M: int, S: int, stem: Path) -> list[Path]:
    """Unfolded drawing like Melhem's Figure 3(c/d): output NICs on the left,
    input NICs on the right, one arrow per link, coloured by plane."""
    p = ldi_planes(M, S).planes
    fig, ax = plt.subplots(figsize=(4, max(3, 0.22 * M + 1)))
    cmap = plt.get_cmap("tab10")
    for y, row in enumerate(p):
        for n, d in enumerate(row):
            ax.plot([0, 1], [-n, -d], color=cmap(y % 10), lw=0.8, alpha=0.8)
    for x in (0, 1):
        ax.scatter([x] * M, -np.arange(M), s=90, color="white", edgecolors="black", zorder=3)
        for n in range(M):
            ax.text(x, -n, str(n), ha="center", va="center", fontsize=6, zorder=4)
    ax.set_axis_off()
    ax.set_title(f"LDI({M},{S}) unfolded ({S} planes)")
    return _save(fig, stem)


def plot_ldi(M: int, S: int, outdir) -> list[Path]:
    """Write the histogram and, for M <= 64, the unfolded drawing into ``outdir``."""
    ldi.check_params(M, S)
    outdir = Path(outdir)
    paths = hop_histogram(M, S, outdir / f"ldi_{M}_{S}_hops")
    if M <= UNFOLD_MAX:
        paths += unfolded(M, S, outdir / f"ldi_{M}_{S}_unfolded")
    return paths


def orp_haspl_vs_m(n: int, r: int, samples: dict, stem: Path) -> list[Path]:
    """Figure 5 of Yasudo et al.: the continuous Moore bound (formula 2) over
    m, the Theorem 2 bound, m_opt, and annealed h-ASPL at the sampled m."""
    from permnet.gen.orp.bounds import haspl_lower_bound, m_opt, moore_haspl

    mo = m_opt(n, r)
    ms = np.arange(max(2, mo // 3), 3 * mo + 1)
    bound = [moore_haspl(n, int(m), r) for m in ms]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(ms, bound, color="#3b6ea8", label="continuous Moore bound (formula 2)")
    ax.axhline(haspl_lower_bound(n, r), color="gray", ls=":", label="Theorem 2 lower bound")
    ax.axvline(mo, color="#c44", ls="--", lw=0.8, label=f"m_opt = {mo}")
    if samples:
        xs = sorted(samples)
        ax.plot(xs, [samples[x] for x in xs], "o-", color="#e08a00", label="simulated annealing (swing)")
    finite = [b for b in bound if np.isfinite(b)]
    if finite:
        low = min(finite + list(samples.values()) + [haspl_lower_bound(n, r)])
        ax.set_ylim(low - 0.05, min(max(finite), min(finite) + 1.5))
    ax.set_xlabel("switches m")
    ax.set_ylabel("h-ASPL")
    ax.set_title(f"n = {n}, r = {r}")
    ax.legend(fontsize=7)
    return _save(fig, stem)


def host_distribution(counts, title: str, stem: Path) -> list[Path]:
    """Figure 6: how many switches hold k hosts."""
    values, freq = np.unique(np.asarray(counts), return_counts=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(values, freq, color="#3b6ea8")
    ax.set_xlabel("hosts on the switch")
    ax.set_ylabel("switches")
    ax.set_title(title)
    ax.set_xticks(values)
    return _save(fig, stem)


COMPARE_PANELS = (("degree", "degree"), ("diameter", "diameter"), ("avg_hops", "average distance"),
                  ("inter_cluster_degree", "I-degree"), ("inter_cluster_diameter", "I-diameter"),
                  ("avg_inter_cluster_distance", "average I-distance"), ("dd_cost", "DD-cost (Fig. 2)"),
                  ("id_cost", "ID-cost (Fig. 4)"), ("ii_cost", "II-cost (Fig. 5)"))


def compare_plot(rows, module_size: int, stem: Path) -> list[Path]:
    """3x3 panels of :func:`permnet.gen.analysis.compare.compare` rows (as_dict) against network
    size (log scale), one line per family, like Yeh & Parhami Figs. 2-5."""
    fams = list(dict.fromkeys(r["family"] for r in rows))
    fig, axes = plt.subplots(3, 3, figsize=(13, 11))
    for ax, (key, title) in zip(axes.flat, COMPARE_PANELS):
        for i, f in enumerate(fams):
            pts = [(r["nodes"], r[key]) for r in rows if r["family"] == f and r[key] is not None]
            if pts:
                x, y = zip(*pts)
                ax.plot(x, y, marker="osD^v<>ph"[i % 9], label=f)
        ax.set_xscale("log")
        ax.set_title(title)
        ax.set_xlabel("nodes N")
        ax.grid(True, alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(f"Families compared; modules of at most {module_size} nodes")
    fig.tight_layout()
    return _save(fig, Path(stem))
