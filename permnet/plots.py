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
from permnet.gen import ldi  # noqa: E402
from permnet.gen.metrics import Digraph, distance_stats  # noqa: E402
from permnet.gen.planes import ldi_planes  # noqa: E402

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
