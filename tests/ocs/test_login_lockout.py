"""The emulator's defence against password guessing (TL1 ``ACT-USER`` and
NETCONF's SSH password login): after 3 failed logins in a row from one
address every login from it fails, the right password too, until the
lock-out has passed; a success resets the count."""

import time

import pytest
from ocs_helpers import CREDS, WRONG, Emulator

from permnet.gen.errors import PermnetError
from permnet.ocs.driver import DeviceError
from permnet.ocs.frontend import LoginGuard
from permnet.ocs.netconf import NetconfDriver, serve_netconf
from permnet.ocs.switchcore import SwitchCore
from permnet.ocs.tl1 import Tl1Driver, serve_tl1

PROTOCOLS = {"tl1": (serve_tl1, Tl1Driver), "netconf": (serve_netconf, NetconfDriver)}


def login(cls, emu, creds):
    with cls(emu.address, credentials=creds, timeout=3) as d:
        return d.size()


@pytest.mark.parametrize("protocol", [pytest.param("tl1", marks=pytest.mark.slow), "netconf"])
def test_failed_logins_lock_the_peer_out(protocol):
    serve, cls = PROTOCOLS[protocol]
    # max_failures=2: every failed SSH login is answered LoginGuard.delay_s late, so the fewest that show
    # a count below the limit, its reset by a success and the lock-out once the limit is reached
    with Emulator(serve, SwitchCore(8), credentials=CREDS, max_failures=2, lockout_s=1.0) as emu:
        with pytest.raises(DeviceError, match="denied"):
            login(cls, emu, WRONG)
        assert login(cls, emu, CREDS) == 8               # below the limit; a success resets the count
        for _ in range(2):
            with pytest.raises(DeviceError, match="denied"):
                login(cls, emu, WRONG)
        with pytest.raises(DeviceError, match="denied"):
            login(cls, emu, CREDS)                       # locked out: the right password fails too
        time.sleep(1.1)
        assert login(cls, emu, CREDS) == 8


def test_login_guard_counts_per_peer():
    g = LoginGuard(CREDS, max_failures=2, lockout_s=60)
    assert not g.login("10.0.0.1", CREDS.user, "x") and not g.login("10.0.0.1", CREDS.user, "y")
    assert not g.login("10.0.0.1", CREDS.user, CREDS.password)      # locked out
    assert g.login("10.0.0.2", CREDS.user, CREDS.password)          # another peer is not
    with pytest.raises(PermnetError):
        LoginGuard(CREDS, max_failures=0)
