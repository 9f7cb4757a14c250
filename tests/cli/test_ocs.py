"""``permnet ocs`` and ``permnet fabric apply`` from the command line, against
emulated switches on loopback (started in-process), with faults injected."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cli_runner import PERMNET, run
from permnet.ocs.driver import Credentials
from permnet.ocs.emulator import Emulator
from permnet.ocs.switchcore import Faults, SwitchCore

CREDS = Credentials("op", "cli-test-pw")
ENV = {**os.environ, "PERMNET_OCS_USER": CREDS.user, "PERMNET_OCS_PASSWORD": CREDS.password}


@pytest.fixture
def two_switches():
    emus = [Emulator("tl1", SwitchCore(32), credentials=CREDS).start() for _ in range(2)]
    yield emus
    for e in emus:
        e.stop()


_LDI16: list[str] = []


def ldi16(tmp_path):
    """The planes of LDI(16, 2) in ``tmp_path/p.json``: made by ``permnet planes ldi`` once per
    test process, then copied (the same file for every test)."""
    if not _LDI16:
        run("planes", "ldi", "-M", 16, "-S", 2, "-o", tmp_path / "p.json")
        _LDI16.append((tmp_path / "p.json").read_text())
    (tmp_path / "p.json").write_text(_LDI16[0])
    return tmp_path / "p.json", json.loads(_LDI16[0])["planes"]


def test_apply_two_planes_then_read_back_and_verify(tmp_path, two_switches):
    cfg, planes = ldi16(tmp_path)
    devs = [f"--device=sw{k}={e.address}" for k, e in enumerate(two_switches)]
    p = run("ocs", "apply", "--config", cfg, *devs, "--protocol", "tl1", "--json", env=ENV)
    rep = json.loads(p.stdout)
    assert rep["verified"] and not rep["rolled_back"] and rep["added"] == 32
    for e, plane in zip(two_switches, planes):
        got = e.core.snapshot()
        assert got[:16].tolist() == plane and (got[16:] == -1).all()
    run("ocs", "read", "--device", two_switches[1].address, "--protocol", "tl1", "-o", tmp_path / "rb.json", env=ENV)
    v = run("verify", "--config", tmp_path / "rb.json", "--intended", cfg, "--plane", 1, check=False)
    assert v.returncode == 0, v.stdout + v.stderr
    again = json.loads(run("ocs", "apply", "--config", cfg, *devs, "--protocol", "tl1", "--json", env=ENV).stdout)
    assert again["added"] == again["removed"] == 0 and again["unchanged"] == 32
    two_switches[1].core.connect([(20, 21)])        # a stray cross-connect beyond the plane's 16 ports
    run("ocs", "read", "--device", two_switches[1].address, "--protocol", "tl1", "-o", tmp_path / "rb2.json",
        env=ENV)
    v = run("verify", "--config", tmp_path / "rb2.json", "--intended", cfg, "--plane", 1, "--json", check=False)
    assert v.returncode == 1 and json.loads(v.stdout)["extra"] == [[1, 20, 21]]


def test_dry_run_changes_nothing(tmp_path, two_switches):
    cfg, _ = ldi16(tmp_path)
    p = run("ocs", "apply", "--config", cfg, f"--device={two_switches[0].address}", "--protocol", "tl1",
            "--dry-run", env=ENV)
    assert "connect    ingress 0 -> egress 0" in p.stdout and "DRY RUN" in p.stdout
    assert (two_switches[0].core.snapshot() == -1).all()


def test_a_misapplied_switch_rolls_both_back_and_exits_1(tmp_path, two_switches):
    cfg, _ = ldi16(tmp_path)
    two_switches[1].core.faults = Faults.parse("misapply")
    devs = [f"--device=sw{k}={e.address}" for k, e in enumerate(two_switches)]
    # --timeout 1: a rolled-back device is read once more after one time-out (5 s by default)
    p = run("ocs", "apply", "--config", cfg, *devs, "--protocol", "tl1", "--timeout", 1, check=False, env=ENV)
    assert p.returncode == 1 and "ROLLED BACK" in p.stdout and "sw1" in p.stdout
    for e in two_switches:
        assert (e.core.snapshot() == -1).all()


def test_unreachable_device_and_bad_address_are_one_line(tmp_path):
    cfg, _ = ldi16(tmp_path)
    p = run("ocs", "read", "--device", "127.0.0.1:9", "--protocol", "tl1", check=False, env=ENV, timeout=30)
    assert p.returncode == 2 and "connection refused" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    p = run("ocs", "apply", "--config", cfg, "--device", "127.0.0.1:9", "--protocol", "tl1", "--device-ports", 16,
            check=False, env=ENV, timeout=30)
    assert p.returncode == 2 and "UNREACHABLE: nothing changed" in p.stdout and "127.0.0.1:9" in p.stdout
    p = run("ocs", "apply", "--config", cfg, "--device", "nohost", "--protocol", "scpi", check=False)
    assert p.returncode == 2 and "HOST:PORT" in p.stderr


def test_credentials_never_appear_in_output_or_errors(tmp_path, two_switches):
    cfg, _ = ldi16(tmp_path)
    wrong = {**ENV, "PERMNET_OCS_PASSWORD": "wrong-pw-123"}
    p = run("ocs", "apply", "--config", cfg, f"--device={two_switches[0].address}", "--protocol", "tl1",
            "--json", check=False, env=wrong)
    assert p.returncode in (1, 2)
    assert "wrong-pw-123" not in p.stdout + p.stderr and CREDS.password not in p.stdout + p.stderr


def test_emulate_listens_on_loopback_and_stops_by_itself(tmp_path):
    proc = subprocess.Popen(PERMNET + ["ocs", "emulate", "--ports", "8", "--protocol", "tl1", "--seconds", "20",
                                       "--state", str(tmp_path / "state.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on 127.0.0.1:"), line + proc.stderr.read()
        address = line.split()[2]
        run("planes", "ldi", "-M", 8, "-S", 2, "-o", tmp_path / "p8.json")
        run("ocs", "apply", "--config", tmp_path / "p8.json", "--device", address, "--protocol", "tl1", env=ENV)
    finally:
        proc.terminate()
        proc.wait(10)
    state = json.loads((tmp_path / "state.json").read_text())
    assert state["row"] == json.loads((tmp_path / "p8.json").read_text())["planes"][0]
    p = run("ocs", "emulate", "--ports", 8, "--listen", "0.0.0.0:0", check=False)
    assert p.returncode == 2 and "loopback" in p.stderr


def test_fabric_apply_loads_every_device_of_a_compiled_fabric(tmp_path):
    emus = [Emulator("tl1", SwitchCore(24), credentials=CREDS).start() for _ in range(3)]
    try:
        inv = tmp_path / "inv.toml"
        inv.write_text("".join(f'[[device]]\nname = "s{k}"\nprotocol = "tl1"\nports = 24\naddress = "{e.address}"\n'
                               for k, e in enumerate(emus)))
        run("planes", "ldi", "-M", 24, "-S", 3, "-o", tmp_path / "p.json")
        run("fabric", "compile", "--config", tmp_path / "p.json", "--inventory", inv, "-o", tmp_path / "fab")
        rep = json.loads(run("fabric", "apply", "--fabric", tmp_path / "fab" / "fabric.json", "--inventory", inv,
                             "--json", env=ENV).stdout)
        assert rep["verified"] and rep["added"] == 72
        planes = np.array(json.loads((tmp_path / "p.json").read_text())["planes"])
        got = sorted(e.core.snapshot().tolist() for e in emus)
        assert got == sorted(planes.tolist())            # one plane per device, each exactly
        emus[2].core.faults = Faults.parse("deny:1")
        for e in emus:
            e.core.clear()
        p = run("fabric", "apply", "--fabric", tmp_path / "fab" / "fabric.json", "--inventory", inv, "--timeout", 1,
                check=False, env=ENV)
        assert p.returncode == 1 and "ROLLED BACK" in p.stdout
        assert all((e.core.snapshot() == -1).all() for e in emus)      # all back to the old (empty) state
    finally:
        for e in emus:
            e.stop()


@pytest.mark.parametrize("protocol", ["scpi", "netconf"])
def test_apply_and_read_over_every_protocol(tmp_path, protocol):
    cfg, planes = ldi16(tmp_path)
    kh = tmp_path / "known_hosts"
    ssh = {"known_hosts": kh} if protocol == "netconf" else {}
    with Emulator(protocol, SwitchCore(24), credentials=CREDS, **ssh) as e:
        pin = ["--known-hosts", kh] if ssh else []
        rep = json.loads(run("ocs", "apply", "--config", cfg, "--device", e.address, "--protocol", protocol,
                             "--plane", 1, "--json", *pin, env=ENV).stdout)
        assert rep["verified"] and rep["added"] == 16
        assert e.core.snapshot()[:16].tolist() == planes[1] and (e.core.snapshot()[16:] == -1).all()
        run("ocs", "read", "--device", e.address, "--protocol", protocol, "-o", tmp_path / "rb.csv", *pin, env=ENV)
        assert run("verify", "--config", tmp_path / "rb.csv", "--intended", cfg, "--plane", 1,
                   check=False).returncode == 0
