"""The cost of making a device transaction survive the controller: the same
reconfiguration of 24 emulated 192-port TL1 switches (LDI(192,24)'s planes,
then every plane moved to the next switch: every port of every switch
changes) through :func:`permnet.ocs.transaction.apply_targets` without a
state directory, with the device locks only, and with locks and the intent
journal (every record written to a temporary file, fsync'ed, renamed, the
folder fsync'ed: 2 + 3 x 24 records).  Each emulator answers 5 ms late, as
in the ``ocs`` section; the state directory is a fresh folder under the
system's temporary directory (its file system is named in the table).
Best of ``REPEAT`` applies per mode after one warm-up, the modes taken in turn,
alternating the direction."""

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
            best = {mode: float("inf") for mode, _, _ in MODES}
            # one untimed apply first (sessions, threads), then the modes in turn, so drift hits all alike
            for r in range(repeat + 1):
                for mode, sd, journal in MODES:
                    want = new if now is old else old
                    t = time.perf_counter()
                    rep = apply_targets([Target(f"sw{k}", "tl1", e.address, want[k], None, creds, 10.0)
                                         for k, e in enumerate(emus)], parallel=8, settle_s=0, progress=False,
                                        state_dir=state if sd else None, journal=journal)
                    if r:
                        best[mode] = min(best[mode], time.perf_counter() - t)
                    assert rep.verified, rep.lines()[-1]
                    assert not journal or not os.listdir(os.path.join(state, "journal"))
                    now = want
            out = [(mode, best[mode]) for mode, _, _ in MODES]
        finally:
            for e in emus:
                e.stop()
        fs = _filesystem(os.path.realpath(state))
        out.append(("journal records alone (no devices)", journal_only(state, old, new, repeat)))
    return out, fs


def journal_only(state, old, new, repeat: int = REPEAT) -> float:
    """Best time of what the journal writes in one apply, devices aside: the
    intent, a ``writing`` and a ``written`` record per device, the verdicts,
    the close."""
    from permnet.ocs.journal import Holder, Journal, JournalDevice

    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        h = Holder.me("bench", Journal.new_id())
        j = Journal(state, h.transaction, h, [JournalDevice(f"sw{k}", "tl1", f"127.0.0.1:{7000 + k}", old[k], new[k],
                                                            None) for k in range(len(old))]).begin()
        for mark in ("writing", "written"):
            for k in range(len(old)):
                j.mark(f"sw{k}", mark)
        j.mark_many({f"sw{k}": "verified" for k in range(len(old))})
        j.close()
        best = min(best, time.perf_counter() - t)
    return best


@case(f"OCS apply {DEVICES} x {PORTS}-port switches with the intent journal and locks",
      "report; baseline: the same apply without a state directory")
def bench_journal():
    res, fs = measure()
    t = dict(res)
    ours, base = t["locks + journal"], t["no state directory"]
    for mode, s in res:
        if mode.startswith("journal records"):
            _ROWS.append([f"{DEVICES} x {PORTS}", mode, fs, f"{s:.3f}", "", ""])
            continue
        _ROWS.append([f"{DEVICES} x {PORTS}", mode, fs, f"{s:.3f}", f"{s - base:+.3f}",
                      f"{100 * (s / base - 1):+.1f} %"])
    return ours, base, "no journal, no locks"


def table(args):
    return ("OCS transaction: cost of the intent journal and the device locks",
            ["switches", "mode", "state dir file system", "seconds (best of 3)", "vs none (s)", "vs none"], _ROWS)
