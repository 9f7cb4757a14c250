"""Behaviour that TL1 and NETCONF sessions share, run against both front ends
of the emulated switch: state persistence across restarts, concurrent
clients, settling connections, and passwords that never reach a log."""

import logging
import re
import threading
import time

import pytest
from ocs_helpers import CREDS, WRONG, Emulator

from permnet.ocs.driver import DeviceError
from permnet.ocs.netconf import NetconfDriver, serve_netconf
from permnet.ocs.switchcore import SwitchCore
from permnet.ocs.tl1 import Tl1Driver, serve_tl1

PROTOCOLS = {"tl1": (serve_tl1, Tl1Driver), "netconf": (serve_netconf, NetconfDriver)}


@pytest.fixture(params=sorted(PROTOCOLS))
def proto(request):
    return PROTOCOLS[request.param]


def emulator(proto, ports=16, **kw):
    return Emulator(proto[0], SwitchCore(ports, **kw), credentials=CREDS)


def driver(proto, emu, timeout=5.0, credentials=CREDS):
    return proto[1](emu.address, credentials=credentials, timeout=timeout)


def test_state_survives_restart(proto, tmp_path):
    state = tmp_path / "switch.json"
    with emulator(proto, 16, state=state) as emu:
        with driver(proto, emu) as d:
            d.connect([(0, 15), (3, 4), (9, 0)])
            before = d.read()
            if hasattr(d, "finish"):          # NETCONF: confirm the commit, else the restart reverts it
                d.finish()
            emu.restart()                     # management plane restart: the session is gone
            with pytest.raises(DeviceError):
                d.read()
        with driver(proto, emu) as d:
            assert (d.read() == before).all()
    # a new emulator (new core) reading the state file
    with emulator(proto, 16, state=state) as emu, driver(proto, emu) as d:
        assert (d.read() == before).all()
    assert before.tolist()[:4] == [15, -1, -1, 4] and before[9] == 0


def test_concurrent_clients(proto):
    n, k = 48, 3
    errors = []
    with emulator(proto, n) as emu:
        denied = []

        def work(c):
            # NETCONF clients lock the datastores for their session: a client
            # refused with lock-denied tries again (bounded) until the holder is done
            for _ in range(200):
                try:
                    with driver(proto, emu) as d:
                        for i in range(c, n, k):        # client c owns ingresses i = c mod k
                            d.connect([(i, (i + 7) % n)])
                        got = d.read()
                        assert all(got[i] == (i + 7) % n for i in range(c, n, k))
                    return
                except DeviceError as exc:
                    if "lock-denied" not in str(exc):
                        errors.append(exc)
                        return
                    denied.append(str(exc))
                    time.sleep(0.02)
                except Exception as exc:  # noqa: BLE001  collected and asserted below
                    errors.append(exc)
                    return
            errors.append(RuntimeError("never got the lock"))
        threads = [threading.Thread(target=work, args=(c,)) for c in range(k)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert not errors and not any(t.is_alive() for t in threads)
        assert emu.core.snapshot().tolist() == [(i + 7) % n for i in range(n)]
        assert all(re.search(r"locked by session \d+", m) for m in denied)


def test_settling_connections_read_as_tuning_then_established(proto):
    with emulator(proto, 8, settle_s=0.6) as emu, driver(proto, emu) as d:
        d.connect([(2, 5), (4, 1)])
        assert sorted(d.settling()) == [2, 4]
        assert d.read()[2] == 5                               # a settling patch is a patch
        time.sleep(0.7)
        d.connect([(0, 0)])
        assert d.settling() == [0]


def test_password_never_logged(proto, caplog):
    with caplog.at_level(logging.DEBUG):
        with emulator(proto, 8) as emu:
            with driver(proto, emu) as d:
                d.connect([(0, 1)])
                d.read()
            with pytest.raises(DeviceError) as ei:
                driver(proto, emu, timeout=3, credentials=WRONG).open()
    if proto[1] is NetconfDriver:
        assert caplog.records                              # ncclient/paramiko/asyncssh did log
    seen = caplog.text + str(ei.value)
    assert CREDS.password not in seen and WRONG.password not in seen
