"""Issue 29 defects of ``permnet ocs`` and ``permnet fabric``, each reproduced
against emulated TL1 switches on loopback: a reconfiguration that would
overwrite its own input, a failed roll-back reported as ROLLED BACK, a
signal that did not stop the sending, device errors missing from stderr."""

import json
import os
import signal
import subprocess
import time

import pytest

from cli_runner import PERMNET, run, run_in_process
from permnet.ocs.driver import Credentials
from permnet.ocs.emulator import Emulator
from permnet.ocs.journal import open_journals
from permnet.ocs.switchcore import Faults, SwitchCore

CREDS = Credentials("op", "tx-cli-secret-51x")
ENV = {**os.environ, "PERMNET_OCS_USER": CREDS.user, "PERMNET_OCS_PASSWORD": CREDS.password}


@pytest.fixture
def creds_env(monkeypatch):
    monkeypatch.setenv("PERMNET_OCS_USER", CREDS.user)
    monkeypatch.setenv("PERMNET_OCS_PASSWORD", CREDS.password)


cli = run_in_process


class Logged(SwitchCore):
    """A switch core that stamps every set command with the time it acts."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.sets: list[float] = []

    def connect(self, pairs):
        self.sets.append(time.monotonic())
        super().connect(pairs)

    def disconnect(self, ingresses):
        self.sets.append(time.monotonic())
        super().disconnect(ingresses)


def test_reconfigure_refuses_to_overwrite_its_own_input(tmp_path, capsys):
    inv = tmp_path / "inv.toml"
    inv.write_text('[[device]]\nname = "ocs"\nmodel = "sonic-64"\nports = 8\ncount = 80\n')
    fab = tmp_path / "fab"
    assert cli(capsys, "fabric", "compile", "--topology", "ldi", "--nodes", 16, "--degree", 2, "--inventory", inv,
               "-o", fab)[0] == 0
    before = (fab / "fabric.json").read_bytes()
    for out in (fab, tmp_path):
        code, o, err = cli(capsys, "fabric", "reconfigure", "--fabric", fab / "fabric.json", "--topology", "ldi",
                           "--nodes", 16, "--degree", 2, "--fail", "3", "-o", out)
        assert code == 2 and "holds" in err and "fabric.json" in err and len(err.splitlines()) == 1, err
        assert (fab / "fabric.json").read_bytes() == before
    code, o, err = cli(capsys, "fabric", "compile", "--topology", "ldi", "--nodes", 16, "--degree", 2,
                       "--inventory", inv, "-o", tmp_path)
    assert code == 2 and "inventory" in err and inv.exists()


def _two_with_config(tmp_path):
    run("planes", "ldi", "-M", 16, "-S", 2, "-o", tmp_path / "p.json")
    return tmp_path / "p.json", json.loads((tmp_path / "p.json").read_text())["planes"]


def test_a_failed_rollback_has_its_own_verdict_and_exit_4_and_recover_finishes_it(tmp_path, capsys, creds_env):
    cfg, _ = _two_with_config(tmp_path)
    state = tmp_path / "state"
    emus = [Emulator("tl1", SwitchCore(32), credentials=CREDS).start() for _ in range(2)]
    try:
        emus[1].core.faults = Faults.parse("freeze:4")
        t0 = time.monotonic()
        code, out, err = cli(capsys, "ocs", "apply", "--config", cfg, *[f"--device=sw{k}={e.address}"
                             for k, e in enumerate(emus)], "--protocol", "tl1", "--timeout", "0.5",
                             "--settle-s", "0", "--state-dir", state)
        assert time.monotonic() - t0 < 4, "the roll-back gave up while the switch was still frozen"
        assert code == 4, out + err
        assert "ROLLBACK FAILED" in out and "ROLLED BACK" not in out and "ocs recover" in out
        assert "sw1" in err and "roll-back failed" in err
        (j,) = open_journals(state)
        assert j.current_phase == "rollback" and j.progress["sw1"] == "failed"
        code, out, err = cli(capsys, "ocs", "status", "--state-dir", state)
        assert f"transaction {j.id}" in out and "phase rollback" in out
        # a new apply is refused while it is unfinished (its holder, this process, is alive: the lock refuses)
        code, out, err = cli(capsys, "ocs", "apply", "--config", cfg, f"--device=sw1={emus[1].address}",
                             "--protocol", "tl1", "--state-dir", state)
        assert code == 2 and "locked by" in err and len(err.splitlines()) == 1
        time.sleep(max(0.0, 4.2 - (time.monotonic() - t0)))                # the switch thaws
        import permnet.ocs.journal as jmod
        saved = jmod.Holder.alive
        jmod.Holder.alive = lambda self: False                               # as after this process died
        try:
            code, out, err = cli(capsys, "ocs", "recover", "--state-dir", state, "--settle-s", 0)
        finally:
            jmod.Holder.alive = saved
        assert code == 0, out + err
        assert "RECOVERED: every device holds its old state" in out          # the roll-back is finished
        assert all((e.core.snapshot() == -1).all() for e in emus)
        assert open_journals(state) == []
    finally:
        for e in emus:
            e.stop()


def _fabric(tmp_path, emus, capsys):
    inv = tmp_path / "inv.toml"
    inv.write_text("".join(f'[[device]]\nname = "s{k}"\nprotocol = "tl1"\nports = 24\naddress = "{e.address}"\n'
                           for k, e in enumerate(emus)))
    run("planes", "ldi", "-M", 24, "-S", len(emus), "-o", tmp_path / "p.json")
    assert cli(capsys, "fabric", "compile", "--config", tmp_path / "p.json", "--inventory", inv,
               "-o", tmp_path / "fab")[0] == 0
    return inv, tmp_path / "fab" / "fabric.json"


def test_sigterm_during_fabric_apply_stops_sending_reads_back_and_reports(tmp_path, capsys, creds_env):
    emus = [Emulator("tl1", Logged(24), credentials=CREDS, delay_ms=25).start() for _ in range(4)]
    state = tmp_path / "state"
    try:
        inv, fab = _fabric(tmp_path, emus, capsys)
        proc = subprocess.Popen(PERMNET + ["fabric", "apply", "--fabric", str(fab), "--inventory", str(inv),
                                           "--parallel", "1", "--settle-s", "0", "--state-dir", str(state)],
                                env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        t0 = time.monotonic()
        prog = None
        while proc.poll() is None and time.monotonic() - t0 < 30:
            for f in (state / "journal").glob("[!.]*/progress.json"):
                try:
                    prog = json.loads(f.read_text())
                except FileNotFoundError:          # closed meanwhile
                    pass
            if prog and "writing" in prog["devices"].values():
                break
            time.sleep(0.002)
        proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 143, out + err
        assert prog and list(prog["devices"].values()).count("pending") == 3, prog
        for e in emus:                                     # no device job began after the signal
            assert not e.core.sets or e.core.sets[0] < signalled + 0.5
        pending = [k for k, e in enumerate(emus) if not e.core.sets]
        assert pending                                     # the queued ones never ran
        assert "INTERRUPTED" in out and "INTERRUPTED" in err
        got = [e.core.snapshot() for e in emus]
        for k in pending:
            assert (got[k] == -1).all()
        # the report says what each device holds; devices left mixed keep the journal for `ocs recover`
        kept = open_journals(state)
        lines = {ln.split()[0]: ln.split()[1] for ln in out.splitlines() if ln.startswith("s")}
        assert all(lines[f"s{k}"] == "old" for k in pending)
        assert bool(kept) == ("new" in lines.values() or "mixed" in lines.values())
        if kept:
            assert "ocs recover" in out
            code, o, e = cli(capsys, "ocs", "recover", "--to", "old", "--state-dir", state, "--settle-s", 0)
            assert code == 0 and "RECOVERED: every device holds its old state" in o, o + e
            assert all((e.core.snapshot() == -1).all() for e in emus)
    finally:
        for e in emus:
            e.stop()


def test_fabric_apply_reports_an_unreachable_device_on_stderr(tmp_path, capsys, creds_env):
    emus = [Emulator("tl1", SwitchCore(24), credentials=CREDS).start() for _ in range(2)]
    try:
        inv, fab = _fabric(tmp_path, emus, capsys)
    finally:
        for e in emus:
            e.stop()                                       # both now unreachable
    code, out, err = cli(capsys, "fabric", "apply", "--fabric", fab, "--inventory", inv, "--timeout", "1",
                         "--state-dir", tmp_path / "state")
    assert code == 2 and "UNREACHABLE: nothing changed" in out
    assert "permnet: error: s0 (tl1)" in err and "permnet: error: s1 (tl1)" in err and "UNREACHABLE" in err
    assert open_journals(tmp_path / "state") == []
