"""Hardware in the loop (issue 13): a 64-port crossbar configuration loaded,
committed, read back through the datapath and verified over the socket link
into the Verilator model of the HIL top level; wall time and link bytes per
second, framed (CRC-8 + sequence numbers) against plain UARTBone; and the
model's simulated clock cycles per second.  Issue 25: the network design
(LDI(16,4), 32-bit flits, crossbar planes loaded over the link) runs
100,000 cycles of uniform traffic at 30 % load (0.3 flits per node per
cycle: 4-flit packets at 0.075 per node per cycle) and its counters are
read and compared with netsim's; the model's build is timed apart."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import numpy as np

from registry import case

ROOT = Path(__file__).resolve().parents[2]
PORTS = 64
_MODEL = {}
NET = {"design": "network", "M": 16, "S": 4, "width": 32, "planes": "crossbar", "opt": "-O1"}
NET_CYCLES, NET_LOAD_FLITS, NET_SIZE = 100_000, 0.3, 4


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


def network_model() -> tuple:
    """The LDI(16,4) network model and its build time (0 when it was cached)."""
    from permnet.hdl.hil.verilator import build

    if "net" not in _MODEL:
        params = dict(NET)
        t = time.perf_counter()
        exe = build(ROOT / "build" / "hil-sim", design=params.pop("design"), **params)
        _MODEL["net"] = (exe, time.perf_counter() - t)
    return _MODEL["net"]


def network_measure() -> dict:
    """Load LDI(16,4)'s planes (``permnet planes ldi``), run the traffic, compare every counter."""
    import tempfile

    from permnet.cli import main
    from permnet.gen.hil.netgen import GenParams, rate_of
    from permnet.hdl.hil.verilator import SimServer
    from permnet.hil.netrun import run_network

    exe, build_s = network_model()
    params = GenParams("uniform", rate=rate_of(NET_LOAD_FLITS / NET_SIZE), size=NET_SIZE, seed=1)
    with tempfile.TemporaryDirectory() as d:
        planes = Path(d) / "ldi16.json"
        assert main(["planes", "ldi", "-M", "16", "-S", "4", "-o", str(planes)]) == 0
        with SimServer(exe, max_seconds=600) as srv:
            t = time.perf_counter()
            rep = run_network(srv.url, cycles=NET_CYCLES, params=params, planes=planes, timeout=5.0,
                              max_seconds=300)
            wall = time.perf_counter() - t
    assert rep.ok, rep.diffs[:5]
    cyc = 200_000
    line = subprocess.run([str(exe), "--bench-cycles", str(cyc)], capture_output=True, text=True,
                          timeout=600).stdout.split()
    return {"wall_s": wall, "build_s": build_s, "packets": rep.packets, "timing": rep.timing,
            "cycles_per_s": float(line[line.index("cycles_per_second") + 1])}


@case("HIL network: LDI(16,4) W=32 crossbar planes loaded, 100,000 cycles at 30 % load, counters vs netsim",
      "< 60 s")
def bench_hil_network():
    m = network_measure()
    _MODEL["net_result"] = m
    return (m["wall_s"], m["timing"]["model_s"],
            f"netsim's prediction alone (model {m['cycles_per_s']:.0f} cycles/s, build {m['build_s']:.0f} s)")


def table(args):
    m = measure()
    rows = []
    for mode in ("framed", "plain"):
        r = m[mode]
        rows.append([f"64-port crossbar load+commit+read back+verify, {mode}", f"{r['wall_s'] * 1e3:.1f} ms",
                     f"{r['bytes']}", f"{r['frames']}", f"{r['bytes_per_s'] / 1e3:.1f} kB/s"])
    rows.append(["Verilator model of the HIL top (64-port crossbar + PRBS), free-running",
                 f"{m['cycles_per_s'] / 1e6:.2f} M cycles/s", "", "", ""])
    n = _MODEL.get("net_result") or network_measure()
    rows.append([f"network LDI(16,4), W=32, crossbar planes loaded: {NET_CYCLES:,} cycles, {n['packets']:,} packets, "
                 "counters equal netsim's", f"{n['wall_s']:.1f} s", "", "", ""])
    rows.append(["its Verilator model: build (0: cached) / free-running",
                 f"{n['build_s']:.0f} s / {n['cycles_per_s'] / 1e3:.1f} k cycles/s", "", "", ""])
    return ("Hardware in the loop (Verilator model over TCP)", ["what", "time / rate", "bytes", "frames", "link"],
            rows)
