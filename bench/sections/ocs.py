"""Reconfiguring 24 emulated 192-port switches (the planes of LDI(192,24),
then the same planes with the egresses of 16 random ingresses per switch
rotated, as after a partial re-embedding) through the transaction of :mod:`permnet.ocs.transaction`
(only the ports that change, devices concurrently, read back and verify),
each emulator answering every command 5 ms late, against the naive way: devices one after another, each wiped and reloaded
whole (disconnect every port, connect the new plane, read back).  Both over
TL1 on loopback; commands counted on the emulators (every set command)."""

from __future__ import annotations

import secrets
import time

import numpy as np
from registry import case

from permnet.gen.planes.decompose import ldi_planes
from permnet.ocs.driver import Credentials, open_driver
from permnet.ocs.emulator import Emulator
from permnet.ocs.switchcore import SwitchCore
from permnet.ocs.transaction import Target, apply_targets

PORTS, DEVICES = 192, 24
DELAY_MS = 5.0      # every reply 5 ms late, a modest management-plane latency


class _Counting(SwitchCore):
    """A switch core that counts the set commands reaching it."""
    sets = 0

    def connect(self, pairs):
        type(self).sets += 1
        super().connect(pairs)

    def disconnect(self, ingresses):
        type(self).sets += 1
        super().disconnect(ingresses)


def _load(emus, planes):
    for e, p in zip(emus, planes):
        e.core.only([(i, int(x)) for i, x in enumerate(p) if x >= 0])


_ROWS: list = []


@case(f"OCS reconfigure {DEVICES} x {PORTS}-port switches (TL1 emulators), transaction",
      "report; baseline: one device at a time, whole-switch wipe and reload")
def bench_ocs_transaction():
    creds = Credentials("bench", secrets.token_hex(8))
    old = ldi_planes(PORTS, DEVICES, "residue").planes
    new = old.copy()
    rng = np.random.default_rng(7)
    for row in new:
        moved = rng.choice(PORTS, 16, replace=False)
        row[moved] = np.roll(row[moved], 1)
    emus = [Emulator("tl1", _Counting(PORTS), credentials=creds, delay_ms=DELAY_MS).start()
            for _ in range(DEVICES)]
    try:
        _load(emus, old)
        _Counting.sets = 0
        t = time.perf_counter()
        rep = apply_targets([Target(f"sw{k}", "tl1", e.address, new[k], None, creds, 10.0)
                             for k, e in enumerate(emus)], parallel=8, settle_s=1, progress=False)
        ours = time.perf_counter() - t
        assert rep.verified
        ours_cmds = _Counting.sets
        _load(emus, old)
        _Counting.sets = 0
        t = time.perf_counter()
        for k, e in enumerate(emus):
            with open_driver("tl1", e.address, credentials=creds, timeout=10) as d:
                d.disconnect(list(range(PORTS)))
                d.connect([(i, int(x)) for i, x in enumerate(new[k]) if x >= 0])
                assert np.array_equal(d.read(), new[k])
        base = time.perf_counter() - t
        base_cmds = _Counting.sets
    finally:
        for e in emus:
            e.stop()
    changed = int((old != new).sum())
    _ROWS.append([f"{DEVICES} x {PORTS}", changed, ours_cmds, base_cmds, f"{ours:.3f}", f"{base:.3f}",
                  f"{base / ours:.1f}"])
    return ours, base, "one device at a time, wipe + reload"


def table(args):
    return ("OCS transaction: reconfiguring emulated switches",
            ["switches", "cross-connects changed", "set commands (ours)", "set commands (baseline)",
             "seconds (ours)", "seconds (baseline)", "speed-up"], _ROWS)
