"""TL1 and NETCONF drivers against their emulators on loopback: a full
192-port permutation connected and read back, batched (64 pairs per
``ENT-PATCH``, 256 per ``edit-config``) against one command per pair.
ncclient sends a queued request only at its reader thread's next 0.1 s
select tick, so every NETCONF round trip costs up to 0.1 s: batching is
what makes NETCONF usable for whole-switch changes."""

from __future__ import annotations

import asyncio
import secrets
import threading
import time

import numpy as np
from registry import best_time, case

from permnet.ocs.driver import Credentials
from permnet.ocs.netconf import NetconfDriver, serve_netconf
from permnet.ocs.switchcore import SwitchCore
from permnet.ocs.tl1 import Tl1Driver, serve_tl1

PORTS = 192


def _with_emulator(serve, driver_cls):
    """(batched seconds, one-per-pair seconds) for connect-all + read."""
    creds = Credentials("bench", secrets.token_hex(8))
    core = SwitchCore(PORTS)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    handle = asyncio.run_coroutine_threadsafe(serve(core, "127.0.0.1", 0, credentials=creds), loop).result(10)
    perm = np.random.default_rng(1).permutation(PORTS)
    pairs = [(i, int(perm[i])) for i in range(PORTS)]
    try:
        with driver_cls(handle.address, credentials=creds, timeout=10) as d:
            def run(batch):
                def go():
                    core.clear()
                    d.batch = batch
                    d.connect(pairs)
                    assert (d.read() == perm).all()
                return go
            ours, _ = best_time(run(driver_cls.batch))
            t = time.perf_counter()
            run(1)()                          # once: up to 192 round trips
            base = time.perf_counter() - t
    finally:
        async def down():
            handle.close()
            await handle.wait_closed(2)
        asyncio.run_coroutine_threadsafe(down(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
    return ours, base


@case(f"OCS TL1 connect+read {PORTS} ports, batched ENT-PATCH", "report")
def bench_tl1_batched():
    ours, base = _with_emulator(serve_tl1, Tl1Driver)
    return ours, base, "one ENT-PATCH per pair"


@case(f"OCS NETCONF connect+read {PORTS} ports, one edit-config", "report")
def bench_netconf_batched():
    ours, base = _with_emulator(serve_netconf, NetconfDriver)
    return ours, base, "one edit-config per pair"
