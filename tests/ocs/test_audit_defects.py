"""Issue 29 defects of the device commands, each reproduced first: settling
switches (SCPI rolled every apply back, TL1 reported VERIFIED while still
tuning), two device names at one address, a password in the environment
beside ``--credentials FILE``, an emulator state file that is not a
permutation."""

import json
import os
import socket

import numpy as np
import pytest
from cli_runner import run
from ocs_helpers import CREDS, Emulator

from permnet import ocsconfig
from permnet.formats import OcsConfig
from permnet.gen.errors import PermnetError
from permnet.ocs.driver import Credentials
from permnet.ocs.netconf import serve_netconf
from permnet.ocs.scpi import serve_scpi
from permnet.ocs.session import check_distinct_addresses
from permnet.ocs.switchcore import SwitchCore
from permnet.ocs.tl1 import serve_tl1
from permnet.ocs.transaction import Target, apply_targets

SERVE = {"scpi": serve_scpi, "tl1": serve_tl1, "netconf": serve_netconf}
WANT = np.array([3, 0, 1, 2, -1, -1], np.int64)


def settle_apply(protocol, device_settle_s, wait_s):
    creds = None if protocol == "scpi" else CREDS
    opts = {} if protocol == "scpi" else {"credentials": CREDS}
    core = SwitchCore(6, settle_s=device_settle_s)
    with Emulator(SERVE[protocol], core, **opts) as emu:
        rep = apply_targets([Target("sw", protocol, emu.address, WANT, None, creds, 1.0)], settle_s=wait_s,
                            progress=False)
        return rep, core.snapshot()


# ------------------------------------------------------------------ settling
@pytest.mark.parametrize("protocol", ["scpi", "tl1", "netconf"])
def test_a_settling_switch_is_waited_for(protocol):
    rep, live = settle_apply(protocol, 0.3, 3.0)
    assert rep.verified, rep.lines()
    assert (live == WANT).all()


@pytest.mark.parametrize("protocol", ["scpi", "tl1", "netconf"])
def test_still_settling_at_the_deadline_is_not_verified(protocol):
    rep, live = settle_apply(protocol, 1.0, 0.1)
    assert not rep.verified and rep.rolled_back
    assert "still settling" in rep.devices[0].error
    assert (live == -1).all()                     # rolled back to the old (empty) state


# ------------------------------------------------------------------ two names, one address
def test_two_names_at_one_address_are_refused_before_anything_is_sent(tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    try:
        ocsconfig.write(OcsConfig(np.array([[1, 2, 3, 0], [2, 3, 0, 1]], np.int64), {}), tmp_path / "p.json")
        p = run("ocs", "apply", "--config", tmp_path / "p.json", "--protocol", "scpi",
                "--device", f"a=127.0.0.1:{port}", "--device", f"b=localhost:{port}", check=False)
        assert p.returncode == 2 and p.stdout == ""
        assert "'a' and 'b' are both at" in p.stderr and p.stderr.count("\n") == 1
        with pytest.raises(BlockingIOError):
            listener.accept()                     # nobody connected
    finally:
        listener.close()


def test_check_distinct_addresses():
    check_distinct_addresses([("a", "127.0.0.1:5025"), ("b", "127.0.0.1:5026")])
    for other in ("127.0.0.1:5025", "LOCALHOST:5025", "localhost:05025"):
        with pytest.raises(PermnetError, match="both at"):
            check_distinct_addresses([("a", "127.0.0.1:5025"), ("b", other)])


# ------------------------------------------------------------------ credentials
def test_password_in_the_environment_and_a_credentials_file_is_ambiguous(tmp_path, monkeypatch):
    f = tmp_path / "creds"
    f.write_text("fileuser\nfile-secret-123\n")
    f.chmod(0o600)
    monkeypatch.delenv("PERMNET_OCS_USER", raising=False)
    monkeypatch.delenv("PERMNET_OCS_PASSWORD", raising=False)
    c = Credentials.load(f)
    assert (c.user, c.password, c.source) == ("fileuser", "file-secret-123", str(f))
    monkeypatch.setenv("PERMNET_OCS_USER", "envuser")
    monkeypatch.setenv("PERMNET_OCS_PASSWORD", "env-secret-456")
    assert Credentials.load().user == "envuser"
    with pytest.raises(PermnetError, match="both --credentials .* and PERMNET_OCS_PASSWORD"):
        Credentials.load(f)
    p = run("ocs", "read", "--device", "127.0.0.1:9", "--protocol", "tl1", "--credentials", f, check=False,
            env={**os.environ})
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "ambiguous" in p.stderr
    assert "secret" not in p.stderr + p.stdout


# ------------------------------------------------------------------ emulator state
@pytest.mark.parametrize("row,match", [([1, 1, -1, -1], "egress 1 is held by ingresses 0, 1"),
                                       ([0, 4, -1, -1], "ingress 1 connected to egress 4"),
                                       ([0, -2, -1, -1], "ingress 1 connected to egress -2"),
                                       ([[0, 1], [2, 3]], "ports, not 4")])
def test_a_state_file_that_is_not_a_permutation_is_refused(tmp_path, row, match):
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"ports": 4, "row": row}))
    with pytest.raises(PermnetError, match=match):
        SwitchCore(4, state=state)
    if row != [1, 1, -1, -1]:
        return                                    # one command-line run is enough
    p = run("ocs", "emulate", "--ports", 4, "--state", state, "--seconds", 1, check=False)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and "emulator state" in p.stderr


# ------------------------------------------------------------------ errors on stderr (issue 27)
def test_device_errors_of_apply_go_to_stderr(tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()                              # nothing listens there now
    ocsconfig.write(OcsConfig(np.array([[1, 2, 3, 0]], np.int64), {}), tmp_path / "p.json")
    p = run("ocs", "apply", "--config", tmp_path / "p.json", "--protocol", "scpi", "--device",
            f"sw=127.0.0.1:{port}", "--device-ports", 4, check=False)
    assert p.returncode == 2 and "UNREACHABLE" in p.stdout
    # one line per device error, then the verdict: nothing else on stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("permnet: error: sw (scpi): cannot connect")
    assert lines[1].startswith("permnet: UNREACHABLE")
