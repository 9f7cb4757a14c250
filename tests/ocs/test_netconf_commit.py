"""NETCONF transactions on the emulated switch (RFC 6241): the candidate
datastore, confirmed commit with its revert timer, cancel-commit,
discard-changes and locks with their rpc-errors; a controller that dies
before confirming leaves a device that puts itself back.  SSH host keys
(known_hosts pinning, trust on first use, a changed key)."""

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest
from ocs_helpers import CREDS, KNOWN_HOSTS, Emulator

from permnet.ocs.driver import DeviceError
from permnet.ocs.netconf import NC, NetconfDriver, serve_netconf
from permnet.ocs.switchcore import SwitchCore

OLD = [(0, 3), (1, 2)]                       # what the switch holds before each test
NEW = [(0, 1), (2, 3), (4, 5)]


def emulator(ports=8, **opts):
    core = SwitchCore(ports)
    core.connect(OLD)
    return Emulator(serve_netconf, core, credentials=CREDS, **opts)


def plane(pairs, n=8):
    row = np.full(n, -1, np.int64)
    for i, e in pairs:
        row[i] = e
    return row


def change(d):
    """OLD -> NEW through the driver (the plan a transaction would send)."""
    d.disconnect([0, 1])
    d.connect(NEW)


def wait_for(core, row, seconds):
    """Poll the switch until it holds ``row``, at most ``seconds``; True if it did."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if (core.snapshot() == row).all():
            return True
        time.sleep(0.05)
    return (core.snapshot() == row).all()


def ncclient(emu, **kw):
    from ncclient import manager
    return manager.connect(host="127.0.0.1", port=emu.port, username=CREDS.user, password=CREDS.password,
                           hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=3, **kw)


# ------------------------------------------------------------------ confirmed commit
def test_edits_go_to_the_candidate_and_commit_confirms():
    with emulator() as emu:
        with NetconfDriver(emu.address, credentials=CREDS, timeout=3, confirm_timeout=1) as d:
            assert d.use_candidate
            change(d)
            assert (emu.core.snapshot() == plane(OLD)).all()     # only the candidate changed
            assert (d.read() == plane(NEW)).all()                 # the read commits (confirmed)
        # the clean exit confirmed it: the 1 s timer does not revert it
        assert not wait_for(emu.core, plane(OLD), 1.3)
        assert (emu.core.snapshot() == plane(NEW)).all()


def test_unconfirmed_commit_reverts_within_the_timeout():
    with emulator() as emu:
        # the shortest confirm timeout the driver takes (1 s): the revert is what is checked, not its length
        d = NetconfDriver(emu.address, credentials=CREDS, timeout=3, confirm_timeout=1)
        d.open()
        try:
            change(d)
            assert (d.read() == plane(NEW)).all()
            assert (emu.core.snapshot() == plane(NEW)).all()
            # the controller hangs (session open, no confirm): the timer reverts it
            assert wait_for(emu.core, plane(OLD), 1 + 1)
        finally:
            d._abandon()


def test_controller_killed_before_confirm_device_reverts(tmp_path):
    script = (
        "import sys, time\n"
        "from permnet.ocs.netconf import NetconfDriver\n"
        "d = NetconfDriver(sys.argv[1], timeout=3, confirm_timeout=2)\n"
        "d.open(); d.disconnect([0, 1]); d.connect([(0, 1), (2, 3), (4, 5)]); d.read()\n"
        "print('committed', flush=True)\n"
        "time.sleep(60)\n")
    env = dict(os.environ, PERMNET_OCS_USER=CREDS.user, PERMNET_OCS_PASSWORD=CREDS.password,
               PERMNET_KNOWN_HOSTS=KNOWN_HOSTS)
    with emulator() as emu:
        proc = subprocess.Popen([sys.executable, "-c", script, emu.address], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, text=True)
        try:
            line = proc.stdout.readline()          # bounded: the child's driver calls time out
            assert line.strip() == "committed", proc.stderr.read()
            assert (emu.core.snapshot() == plane(NEW)).all()
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            assert wait_for(emu.core, plane(OLD), 2 + 1)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)


def test_exception_in_the_block_cancels_the_commit():
    with emulator() as emu:
        with pytest.raises(RuntimeError):
            with NetconfDriver(emu.address, credentials=CREDS, timeout=3, confirm_timeout=60) as d:
                change(d)
                d.read()
                raise RuntimeError("controller gave up")
        assert (emu.core.snapshot() == plane(OLD)).all()        # cancel-commit: at once, not in 60 s


def test_cancel_discard_and_confirm_on_the_wire():
    with emulator() as emu:
        m = ncclient(emu)
        cfg = (f'<nc:config xmlns:nc="{NC}"><cross-connects xmlns="http://www.polatis.com/yang/optical-switch">'
               '<pair><ingress>3</ingress><egress>14</egress></pair></cross-connects></nc:config>')
        m.edit_config(target="candidate", config=cfg)
        assert (emu.core.snapshot() == plane(OLD)).all()
        m.discard_changes()
        m.commit()
        assert (emu.core.snapshot() == plane(OLD)).all()        # the discarded edit is gone
        m.edit_config(target="candidate", config=cfg)
        m.commit(confirmed=True, timeout="60")
        assert emu.core.snapshot()[2] == 5
        m.cancel_commit()
        assert (emu.core.snapshot() == plane(OLD)).all()
        m.edit_config(target="candidate", config=cfg)
        m.commit(confirmed=True, timeout="60")
        m.commit()                                               # the confirming commit
        other = ncclient(emu)
        from ncclient.operations.rpc import RPCError
        with pytest.raises(RPCError) as ei:
            other.cancel_commit()
        assert ei.value.tag == "operation-failed"                 # nothing pending any more
        assert emu.core.snapshot()[2] == 5
        other.close_session()
        m.close_session()


def test_locks_and_their_rpc_errors():
    from ncclient.operations.rpc import RPCError
    with emulator() as emu:
        a, b = ncclient(emu), ncclient(emu)
        a.lock("running")
        a.lock("candidate")
        with pytest.raises(RPCError) as ei:
            b.lock("running")
        assert ei.value.tag == "lock-denied"
        assert f"<session-id>{a.session_id}</session-id>" in ei.value.info.replace(f' xmlns="{NC}"', "")
        with pytest.raises(RPCError) as ei:
            b.unlock("candidate")
        assert ei.value.tag == "operation-failed"
        with pytest.raises(RPCError) as ei:
            b.edit_config(target="running", config=f'<nc:config xmlns:nc="{NC}"/>')
        assert ei.value.tag == "in-use"
        # a driver names the holder in its one-line error
        with NetconfDriver(emu.address, credentials=CREDS, timeout=3) as d:
            with pytest.raises(DeviceError, match=rf"lock candidate denied .*locked by session {a.session_id}"):
                change(d)
        a.close_session()                  # the session's locks end with it
        b.lock("running")
        b.unlock("running")
        b.close_session()
        assert (emu.core.snapshot() == plane(OLD)).all()


def test_without_candidate_the_driver_edits_running_under_a_lock():
    with emulator(candidate=False) as emu:
        with NetconfDriver(emu.address, credentials=CREDS, timeout=3) as d:
            assert not d.use_candidate
            change(d)
            assert (emu.core.snapshot() == plane(NEW)).all()
            with NetconfDriver(emu.address, credentials=CREDS, timeout=3) as d2:
                with pytest.raises(DeviceError, match="lock running denied"):
                    d2.disconnect([0])


# ------------------------------------------------------------------ host keys
def test_host_key_pinning_trust_on_first_use_and_change(tmp_path):
    known = tmp_path / "known_hosts"
    key = tmp_path / "host_key"
    creds = replace(CREDS, known_hosts=str(known))
    with emulator(host_key=str(key), known_hosts=str(tmp_path / "emulator_known_hosts")) as emu:
        port = emu.port
        with pytest.raises(DeviceError, match="known hosts .*no such file"):
            NetconfDriver(emu.address, credentials=creds, timeout=3).open()
        known.write_text("")
        with pytest.raises(DeviceError) as ei:
            NetconfDriver(emu.address, credentials=creds, timeout=3).open()
        assert "unknown host key" in str(ei.value) and "\n" not in str(ei.value)
        with NetconfDriver(emu.address, credentials=replace(creds, trust_new=True), timeout=3) as d:
            assert d.size() == 8
        line = known.read_text().strip()
        assert line == (tmp_path / "emulator_known_hosts").read_text().strip()   # the emulator's own line
        assert line.startswith(f"[127.0.0.1]:{port} ssh-ed25519 ")
        with NetconfDriver(emu.address, credentials=creds, timeout=3) as d:     # pinned now
            assert d.size() == 8
    # the same key file: the same key after a restart
    with emulator(host_key=str(key), port=port) as emu:
        with NetconfDriver(emu.address, credentials=creds, timeout=3) as d:
            assert d.size() == 8
    # another key on the same address: refused, even with trust on first use
    with emulator(port=port) as emu:
        for c in (creds, replace(creds, trust_new=True)):
            with pytest.raises(DeviceError) as ei:
                NetconfDriver(emu.address, credentials=c, timeout=3).open()
            assert "host key CHANGED" in str(ei.value) and CREDS.password not in str(ei.value)
        assert (emu.core.snapshot() == plane(OLD)).all()
    assert known.read_text().strip() == line


def test_persistent_confirmed_commit_outlives_its_session_and_needs_the_token():
    from ncclient.operations.rpc import RPCError
    with emulator() as emu:
        cfg = (f'<nc:config xmlns:nc="{NC}"><cross-connects xmlns="http://www.polatis.com/yang/optical-switch">'
               '<pair><ingress>3</ingress><egress>14</egress></pair></cross-connects></nc:config>')
        a = ncclient(emu)
        a.edit_config(target="candidate", config=cfg)
        a.commit(confirmed=True, timeout="60", persist="tok-1")
        a.close_session()                          # with persist, the end of the session reverts nothing
        assert emu.core.snapshot()[2] == 5
        b = ncclient(emu)
        with pytest.raises(RPCError) as ei:
            b.commit()                             # a confirming commit without the token is refused
        assert ei.value.tag == "invalid-value"
        with pytest.raises(RPCError):
            b.cancel_commit(persist_id="wrong")
        b.commit(persist_id="tok-1")               # confirmed from another session
        b.close_session()
        assert emu.core.snapshot()[2] == 5 and (emu.core.snapshot()[:2] == plane(OLD)[:2]).all()


def test_a_long_settle_wait_lengthens_the_confirm_timeout():
    with emulator() as emu:
        with NetconfDriver(emu.address, credentials=CREDS, timeout=3, confirm_timeout=2) as d:
            change(d)
            d.wait_settled(5.0)
            assert d.confirm_timeout >= 5 + 4 * 3
        assert (emu.core.snapshot() == plane(NEW)).all()


@pytest.mark.slow
def test_known_hosts_from_the_command_line(tmp_path):
    from cli_runner import run
    env = dict(os.environ, PERMNET_OCS_USER=CREDS.user, PERMNET_OCS_PASSWORD=CREDS.password)
    known = tmp_path / "kh"
    known.write_text("")
    with emulator() as emu:
        p = run("ocs", "read", "--device", emu.address, "--protocol", "netconf", "--known-hosts", known,
                check=False, env=env)
        assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
        assert "unknown host key" in p.stderr and CREDS.password not in p.stderr
        p = run("ocs", "read", "--device", emu.address, "--protocol", "netconf", "--known-hosts", known,
                "--trust-new-host-key", "-o", tmp_path / "rb.csv", check=False, env=env)
        assert p.returncode == 0, p.stderr
        assert known.read_text().startswith(f"[127.0.0.1]:{emu.port} ssh-ed25519 ")
        assert "0,0,3" in (tmp_path / "rb.csv").read_text()
