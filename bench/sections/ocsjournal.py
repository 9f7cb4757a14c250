"""The cost of making a device transaction survive the controller: the same
reconfiguration of 24 emulated 192-port TL1 switches (LDI(192,24)'s planes,
then every plane moved to the next switch: every port of every switch
changes) through :func:`permnet.ocs.transaction.apply_targets` without a
state directory, with the device locks only, and with locks and the intent
journal (every record written to a temporary file, fsync'ed, renamed, the
folder fsync'ed: 2 + 3 x 24 records).  Each emulator answers 5 ms late, as
in the ``ocs`` section; the state directory is a fresh folder under the
system's temporary directory (its file system is named in the table).
Best of ``REPEAT`` applies per mode, alternating the direction."""

from __future__ import annotations

import os
import secrets
import tempfile
import time

from registry import case

PORTS, DEVICES, REPEAT, DELAY_MS = 192, 24, 3, 5.0
MODES = (("no state directory", None, False), ("locks only", "dir", False), ("locks + journal", "dir", True))
_ROWS: list = []


def _filesystem(path: str) -> str:
    best, kind = "", "?"
    try:
        with open("/proc/mounts") as fh:
            for line in fh:
                _, mnt, fs = line.split()[:3]
                if path.startswith(mnt) and len(mnt) > len(best):
                    best, kind = mnt, fs
    except OSError:
        pass
    return kind


def measure(devices: int = DEVICES, ports: int = PORTS, repeat: int = REPEAT, delay_ms: float = DELAY_MS) -> list:
    """``[(mode, best seconds)]`` for each of :data:`MODES`, and the file system."""
    import numpy as np

    from permnet.gen.planes.decompose import ldi_planes
    from permnet.ocs.driver import Credentials
    from permnet.ocs.emulator import Emulator
    from permnet.ocs.switchcore import SwitchCore
    from permnet.ocs.transaction import Target, apply_targets

    creds = Credentials("bench", secrets.token_hex(8))
    old = ldi_planes(ports, devices, "residue").planes
    new = np.roll(old, 1, axis=0)
    emus = [Emulator("tl1", SwitchCore(ports), credentials=creds, delay_ms=delay_ms).start() for _ in range(devices)]
    out = []
    with tempfile.TemporaryDirectory(prefix="permnet-bench-state-") as state:
        try:
            for e, p in zip(emus, old):
                e.core.only([(i, int(x)) for i, x in enumerate(p) if x >= 0])
            now = old
            for mode, sd, journal in MODES:
                best = float("inf")
                for _ in range(repeat):
                    want = new if now is old else old
                    t = time.perf_counter()
                    rep = apply_targets([Target(f"sw{k}", "tl1", e.address, want[k], None, creds, 10.0)
                                         for k, e in enumerate(emus)], parallel=8, settle_s=0, progress=False,
                                        state_dir=state if sd else None, journal=journal)
                    best = min(best, time.perf_counter() - t)
                    assert rep.verified, rep.lines()[-1]
                    assert not os.listdir(os.path.join(state, "journal")) if journal else True
                    now = want
                out.append((mode, best))
        finally:
            for e in emus:
                e.stop()
        fs = _filesystem(os.path.realpath(state))
    return out, fs


@case(f"OCS apply {DEVICES} x {PORTS}-port switches with the intent journal and locks",
      "report; baseline: the same apply without a state directory")
def bench_journal():
    res, fs = measure()
    t = dict(res)
    ours, base = t["locks + journal"], t["no state directory"]
    for mode, s in res:
        _ROWS.append([f"{DEVICES} x {PORTS}", mode, fs, f"{s:.3f}", f"{s - base:+.3f}", f"{100 * (s / base - 1):+.1f} %"])
    return ours, base, "no journal, no locks"


def table(args):
    return ("OCS transaction: cost of the intent journal and the device locks",
            ["switches", "mode", "state dir file system", "seconds (best of 3)", "vs none (s)", "vs none"], _ROWS)
