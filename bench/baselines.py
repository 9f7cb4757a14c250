"""Compiled reference programs the benchmarks time permnet against, built by the bench itself."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cpp_benes_seconds(k: int = 20) -> float:
    """Compile (once, again when the source changes) and run the C++ looping
    router (``benes_baseline.cpp``) on N = 2^k; best of 3 seeds."""
    exe = Path(tempfile.gettempdir()) / "permnet_benes_baseline"
    src = HERE / "benes_baseline.cpp"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        subprocess.run(["g++", "-O2", "-march=native", "-o", str(exe), str(src)], check=True)
    return min(float(subprocess.run([str(exe), str(k), str(seed)], capture_output=True, text=True,
                                    check=True).stdout) for seed in (1, 2, 3))


def cpp_bfs(g) -> tuple[float, int, float]:
    """Run the compiled bit-parallel BFS (``bfs_baseline.cpp``, OpenMP on
    every core) on a :class:`~permnet.gen.graph.metrics.Digraph`:
    (seconds, diameter, average distance)."""
    import os

    exe = Path(tempfile.gettempdir()) / "permnet_bfs_baseline"
    src = HERE / "bfs_baseline.cpp"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        subprocess.run(["g++", "-O2", "-march=native", "-fopenmp", "-o", str(exe), str(src)], check=True)
    tails, heads = g.arcs()
    text = f"{g.n} {len(tails)}\n" + "".join(f"{a} {b}\n" for a, b in zip(tails.tolist(), heads.tolist()))
    out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True,
                         env={**os.environ, "OMP_NUM_THREADS": str(os.cpu_count())})
    secs, diam, avg = out.stdout.split()
    return float(secs), int(diam), float(avg)
