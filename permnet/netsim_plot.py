"""Latency-throughput curves of network simulations (matplotlib, Agg), PNG and SVG.

One line per topology: average packet latency against accepted throughput
(packets per node per cycle), the way network architects compare networks
(Dally & Towles, Fig. 23.1); the saturation point of each sweep is marked.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from permnet.plots import _save  # noqa: E402

__all__ = ["latency_throughput"]

plt.rcParams["svg.hashsalt"] = "permnet"


def latency_throughput(sweeps, stem, title: str | None = None) -> list[Path]:
    """Plot :class:`permnet.sim.netsim.Sweep` results (several topologies) on one figure."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    marks = "osD^v<>ph"
    top, zero = 0.0, 0.0
    for i, sw in enumerate(sweeps):
        pts = [p for p in sw.points if not p.deadlock and np.isfinite(p.latency_avg)]
        if not pts:
            continue
        x = [p.accepted for p in pts]
        y = [p.latency_avg for p in pts]
        sat = f", saturation {sw.saturation:g}" if sw.saturation is not None else ""
        line, = ax.plot(x, y, marker=marks[i % len(marks)], label=f"{sw.topology}{sat}")
        stable = [p.latency_avg for p in pts if p.stable]
        top = max(top, max(stable) if stable else min(y))
        ax.axhline(sw.zero_load_latency, color=line.get_color(), ls=":", lw=0.8)
        zero = max(zero, sw.zero_load_latency)
    if top > 0:
        ax.set_ylim(0, min(top * 2.5, 10 * zero) if zero > 0 else top * 2.5)
    ax.set_xlabel("accepted throughput (packets/node/cycle)")
    ax.set_ylabel("average packet latency (cycles)")
    traffic = sweeps[0].traffic if sweeps else ""
    ax.set_title(title or f"latency vs throughput, {traffic} traffic (dotted: zero-load latency)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, Path(stem))
