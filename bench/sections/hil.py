"""Hardware in the loop (issue 13): a 64-port crossbar configuration loaded,
committed, read back through the datapath and verified over the socket link
into the Verilator model of the HIL top level; wall time and link bytes per
second, framed (CRC-8 + sequence numbers) against plain UARTBone; and the
model's simulated clock cycles per second."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import numpy as np

from registry import case

ROOT = Path(__file__).resolve().parents[2]
PORTS = 64
_MODEL = {}


def model():
    if "exe" not in _MODEL:
        from permnet.hdl.hil.verilator import build

        _MODEL["exe"] = build(ROOT / "build" / "hil-sim", design="crossbar", ports=PORTS, width=8, opt="-O1")
    return _MODEL["exe"]


def load_and_verify(url: str, framed: bool, plane) -> dict:
    from permnet.hil import Link
    from permnet.verify import compare

    # pyserial sleeps 0.3 s when it closes a socket:// port: closing is not timed
    with Link(url, timeout=2.0, framed=framed) as link:
        link.info()
        base = dict(link.stats)
        t = time.perf_counter()
        link.load_crossbar(plane[None, :])
        link.commit_crossbar()
        rb = link.readback_crossbar()
        ok = compare(plane[None, :], rb.connections).ok
        wall = time.perf_counter() - t
        stats = {k: v - base[k] for k, v in link.stats.items()}
    assert ok, "read-back differs from the loaded configuration"
    nbytes = stats["bytes_out"] + stats["bytes_in"]
    return {"wall_s": wall, "bytes": nbytes, "bytes_per_s": nbytes / wall, "frames": stats["frames"]}


def measure(repeat: int = 3) -> dict:
    from permnet.hdl.hil.verilator import SimServer

    rng = np.random.default_rng(0)
    out = {}
    with SimServer(model(), max_seconds=300) as srv:
        for framed in (True, False):
            runs = [load_and_verify(srv.url, framed, rng.permutation(PORTS)) for _ in range(repeat)]
            out["framed" if framed else "plain"] = min(runs, key=lambda r: r["wall_s"])
    cyc = 2_000_000
    line = subprocess.run([str(model()), "--bench-cycles", str(cyc)], capture_output=True, text=True,
                          timeout=300).stdout.split()
    out["cycles_per_s"] = float(line[line.index("cycles_per_second") + 1])
    return out


@case("HIL: load + commit + read back + verify a 64-port crossbar over TCP into Verilator (framed)",
      "< 1 s per configuration")
def bench_hil_load_verify():
    m = measure()
    return m["framed"]["wall_s"], m["plain"]["wall_s"], "plain UARTBone (no CRC, no answers to writes)"


def table(args):
    m = measure()
    rows = []
    for mode in ("framed", "plain"):
        r = m[mode]
        rows.append([f"64-port crossbar load+commit+read back+verify, {mode}", f"{r['wall_s'] * 1e3:.1f} ms",
                     f"{r['bytes']}", f"{r['frames']}", f"{r['bytes_per_s'] / 1e3:.1f} kB/s"])
    rows.append(["Verilator model of the HIL top (64-port crossbar + PRBS), free-running",
                 f"{m['cycles_per_s'] / 1e6:.2f} M cycles/s", "", "", ""])
    return ("Hardware in the loop (Verilator model over TCP)", ["what", "time / rate", "bytes", "frames", "link"],
            rows)
