"""Transactions that survive the controller: the intent journal, ``ocs recover``,
the device locks (issue 27), against emulated TL1 switches on loopback.

The crash test kills ``permnet ocs apply`` (a subprocess) with SIGKILL while
it reconfigures four switches (one answering slowly, to widen the window),
then runs ``permnet ocs recover``: every device, read back with the driver,
must hold exactly the old or exactly the new state, all the same one, and
the report must say which.
"""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from cli_runner import PERMNET, run_in_process
from permnet import ocsconfig
from permnet.gen.errors import PermnetError
from permnet.gen.planes.decompose import ldi_planes
from permnet.ocs.driver import Credentials, open_driver
from permnet.ocs.emulator import Emulator
from permnet.ocs.journal import Holder, Journal, JournalDevice, open_journals
from permnet.ocs.locks import LockBusy, acquire, lock_path, release
from permnet.ocs.switchcore import Faults, SwitchCore
from permnet.ocs.transaction import Target, apply_targets, state_status

CREDS = Credentials("op", "journal-test-secret-7g2")
ENV = {**os.environ, "PERMNET_OCS_USER": CREDS.user, "PERMNET_OCS_PASSWORD": CREDS.password}
N = 128
OLD = ldi_planes(N, 4, "residue").planes
NEW = OLD[[1, 2, 3, 0]]                      # every port of every device changes
assert all((OLD[k] != NEW[k]).all() for k in range(4))


def load(emus, planes):
    for e, p in zip(emus, planes):
        e.core.only([(i, int(x)) for i, x in enumerate(p) if x >= 0])


def read_back(emus):
    """Every device's state through its driver (not the emulator's memory)."""
    out = []
    for e in emus:
        with open_driver("tl1", e.address, credentials=CREDS, timeout=5) as d:
            out.append(d.read())
    return out


def classify(rows) -> list[str]:
    return ["new" if np.array_equal(r, NEW[k]) else "old" if np.array_equal(r, OLD[k]) else "neither"
            for k, r in enumerate(rows)]


@pytest.fixture
def creds_env(monkeypatch):
    """The account in the environment, for ``permnet ocs recover`` run in this process."""
    monkeypatch.setenv("PERMNET_OCS_USER", CREDS.user)
    monkeypatch.setenv("PERMNET_OCS_PASSWORD", CREDS.password)


@pytest.fixture
def four(tmp_path):
    """Four emulated 128-port TL1 switches, the first answering 40 ms late,
    holding OLD; the configuration files of OLD and NEW."""
    emus = [Emulator("tl1", SwitchCore(N), credentials=CREDS, delay_ms=40 if k == 0 else 2).start()
            for k in range(4)]
    load(emus, OLD)
    for name, planes in (("old", OLD), ("new", NEW)):
        ocsconfig.write(ocsconfig.OcsConfig(planes, {"name": name}), tmp_path / f"{name}.json")
    yield emus
    for e in emus:
        e.stop()


def apply_cmd(tmp_path, emus, which="new", state=None):
    devs = [f"--device=sw{k}={e.address}" for k, e in enumerate(emus)]
    return PERMNET + ["ocs", "apply", "--config", str(tmp_path / f"{which}.json"), *devs, "--protocol", "tl1",
                      "--settle-s", "0", "--timeout", "5", "--state-dir", str(state or tmp_path / "state")]


cli = run_in_process


def files_text(state: Path) -> str:
    return "".join(f.read_text(errors="replace") for f in state.rglob("*") if f.is_file())


# ------------------------------------------------------------------ journal and locks, in-process

def test_journal_records_old_new_and_progress_durably_without_credentials(tmp_path, four, monkeypatch):
    state = tmp_path / "state"
    closed = []
    monkeypatch.setattr(Journal, "close", lambda self: closed.append(self.id))       # keep it to look at
    rep = apply_targets([Target(f"sw{k}", "tl1", e.address, NEW[k], None, CREDS, 5.0) for k, e in enumerate(four)],
                        state_dir=state, settle_s=0)
    assert rep.verified and closed == [rep.transaction]
    (j,) = open_journals(state)
    assert j.id == rep.transaction and j.current_phase == "apply"
    assert j.progress == {f"sw{k}": "verified" for k in range(4)}
    for k, d in enumerate(j.devices):
        assert np.array_equal(d.old, OLD[k]) and np.array_equal(d.new, NEW[k]) and d.address == four[k].address
    for f in (j.folder / "intent.json", j.folder / "progress.json"):
        json.loads(f.read_text())
    text = files_text(state)
    assert CREDS.password not in text and CREDS.user not in text.replace('"op"', "")
    assert not list(j.folder.parent.glob(".*"))              # no temporary file or folder left
    assert not list((state / "locks").iterdir())             # locks released


def test_a_second_transaction_on_a_locked_device_fails_at_once_naming_the_holder(tmp_path):
    me = Holder.me("permnet ocs apply", "T1")
    taken = acquire(tmp_path, ["127.0.0.1:7001", "127.0.0.1:7002"], me)
    try:
        t = time.monotonic()
        with pytest.raises(LockBusy) as exc:
            acquire(tmp_path, ["127.0.0.1:7003", "127.0.0.1:7002"], Holder.me("permnet fabric apply", "T2"))
        assert time.monotonic() - t < 5
        msg = str(exc.value)
        assert f"pid {os.getpid()}" in msg and me.host in msg and "T1" in msg and "\n" not in msg
        assert not lock_path(tmp_path, "127.0.0.1:7003").exists()       # all or nothing
        st = state_status(tmp_path).as_dict()
        assert [x["device"] for x in st["locks"]] == ["127.0.0.1:7001", "127.0.0.1:7002"]
        assert all(x["holder_alive"] and x["holder"]["transaction"] == "T1" for x in st["locks"])
    finally:
        release(taken)
    acquire(tmp_path, ["127.0.0.1:7002"], Holder.me("x", "T3"))         # free again


def dead_holder(transaction="T0") -> Holder:
    p = subprocess.Popen(["true"])
    p.wait()
    return Holder(p.pid, Holder.me("", "").host, "2026-01-01T00:00:00Z", "permnet ocs apply", transaction)


def test_a_stale_lock_is_reported_not_taken_and_recover_releases_it(tmp_path, capsys):
    dead = dead_holder()
    acquire(tmp_path, ["127.0.0.1:7001"], dead)
    with pytest.raises(LockBusy, match="stale lock of transaction T0.*no longer running.*ocs recover"):
        acquire(tmp_path, ["127.0.0.1:7001"], Holder.me("x", "T9"))
    assert lock_path(tmp_path, "127.0.0.1:7001").exists()
    code, out, err = cli(capsys, "ocs", "status", "--state-dir", tmp_path)
    assert code == 0 and "STALE" in out and f"pid {dead.pid}" in out
    code, out, err = cli(capsys, "ocs", "recover", "--state-dir", tmp_path)
    assert code == 0 and "released stale lock 127.0.0.1:7001" in out and "died before its first write" in out
    assert not lock_path(tmp_path, "127.0.0.1:7001").exists()
    # unlock: refuses a live holder, removes a dead one's
    acquire(tmp_path, ["127.0.0.1:7004"], Holder.me("x", "T5"))
    code, out, err = cli(capsys, "ocs", "unlock", "127.0.0.1:7004", "--state-dir", tmp_path)
    assert code == 2 and "which is running" in err and len(err.splitlines()) == 1
    acquire(tmp_path, ["127.0.0.1:7005"], dead_holder("T6"))
    code, out, err = cli(capsys, "ocs", "unlock", "127.0.0.1:7005", "--state-dir", tmp_path)
    assert code == 0 and not lock_path(tmp_path, "127.0.0.1:7005").exists()


def test_an_apply_refuses_to_start_over_an_unfinished_transaction(tmp_path, four, capsys, creds_env):
    state = tmp_path / "state"
    dead = dead_holder("20260101T000000Z-deadbeef")
    Journal(state, dead.transaction, dead,
            [JournalDevice(f"sw{k}", "tl1", e.address, OLD[k], NEW[k], None) for k, e in enumerate(four)]).begin()
    with pytest.raises(PermnetError, match="unfinished transaction 20260101T000000Z-deadbeef.*ocs recover"):
        apply_targets([Target("sw0", "tl1", four[0].address, NEW[0], None, CREDS)], state_dir=state)
    code, out, err = cli(capsys, "ocs", "status", "--state-dir", state)
    assert "UNFINISHED: transaction 20260101T000000Z-deadbeef" in out and "phase apply" in out
    # nothing was written: recover (default: finish, i.e. new) brings all four to NEW
    code, out, err = cli(capsys, "ocs", "recover", "--state-dir", state, "--settle-s", 0)
    assert code == 0, err
    assert "RECOVERED: every device holds its new state" in out
    assert classify(read_back(four)) == ["new"] * 4
    assert open_journals(state) == [] and not list((state / "locks").iterdir())


# ------------------------------------------------------------------ crash: SIGKILL, then recover

def _progress(state: Path) -> dict | None:
    """The journal's progress (asserting every journal file is valid JSON)."""
    jdir = state / "journal"
    if not jdir.is_dir():
        return None
    for d in jdir.iterdir():
        if d.name.startswith("."):
            continue
        try:
            docs = {f.name: json.loads(f.read_text()) for f in d.iterdir() if not f.name.startswith(".")}
        except FileNotFoundError:                      # closed meanwhile
            return None
        return docs.get("progress.json")
    return None


def crash_and_recover(tmp_path, emus, capsys, trigger, label):
    """Start the apply, SIGKILL it when ``trigger(progress, seconds)`` says so,
    check the journal, recover, check the devices; the state reached."""
    state = tmp_path / f"state-{label}"
    load(emus, OLD)
    proc = subprocess.Popen(apply_cmd(tmp_path, emus, state=state), env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    try:
        while proc.poll() is None and time.monotonic() - t0 < 30:
            prog = _progress(state)
            if trigger(prog, time.monotonic() - t0):
                break
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    prog = _progress(state)                            # valid JSON at the kill, or no journal at all
    assert CREDS.password not in files_text(state)
    before = classify(read_back(emus))
    code, out, err = cli(capsys, "ocs", "recover", "--state-dir", state, "--settle-s", 0)
    assert code == 0, out + err
    got = classify(read_back(emus))
    assert len(set(got)) == 1 and got[0] in ("old", "new"), (label, prog, got)
    if prog is not None:
        assert f"RECOVERED: every device holds its {got[0]} state" in out, out
        assert got[0] == "new"                         # default: finish what was started
    assert open_journals(state) == [] and not any((state / "locks").glob("*"))
    return got[0], prog, before


def _writing(prog, t):
    return prog is not None and "writing" in prog["devices"].values()


def _some_written(prog, t):
    return prog is not None and list(prog["devices"].values()).count("written") >= 2


def test_sigkill_while_writing_then_recover_gives_one_state(tmp_path, four, capsys, creds_env):
    for label, trig in (("writing", _writing), ("written", _some_written)):
        state, prog, _ = crash_and_recover(tmp_path, four, capsys, trig, label)
        assert prog is not None and prog["phase"] == "apply"       # killed after the first write
        assert state == "new"


def _after_journal(delay):
    """A trigger: ``delay`` seconds after the journal was first seen."""
    seen = []

    def trigger(prog, t):
        if prog is not None and not seen:
            seen.append(t)
        return bool(seen) and t - seen[0] >= delay
    return trigger


@pytest.mark.slow
def test_sigkill_at_ten_moments_then_recover_gives_one_state(tmp_path, four, capsys, creds_env):
    """Ten kills spread evenly over the window from the journal's creation
    to the end of an uninterrupted apply (measured first)."""
    load(four, OLD)
    state = tmp_path / "state-full"
    proc = subprocess.Popen(apply_cmd(tmp_path, four, state=state), env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    t0, begun = time.monotonic(), None
    while proc.poll() is None and time.monotonic() - t0 < 60:
        if begun is None and _progress(state) is not None:
            begun = time.monotonic()
        time.sleep(0.002)
    assert proc.wait(10) == 0 and begun is not None
    window = time.monotonic() - begun
    seen = [crash_and_recover(tmp_path, four, capsys, _after_journal(window * k / 10), f"t{k}") for k in range(10)]
    assert sum(prog is not None for _, prog, _ in seen) >= 8, seen    # the kills landed inside the apply
    # and some left the switches in neither state (a device half-written, or old and new mixed)
    assert any("neither" in before or len(set(before)) > 1 for _, _, before in seen), seen


# ------------------------------------------------------------------ concurrency

def test_two_applies_on_overlapping_devices_one_runs_the_other_is_refused(tmp_path, four):
    """The issue's case: a reconfiguration, and while it runs an apply of the
    original planes on three of the same switches (started as soon as the
    first holds its locks; the slow switch freezes for 2.5 s at its first
    command, so that the two overlap whatever the load)."""
    state = tmp_path / "state"
    four[0].core.faults = Faults.parse("freeze:2.5")
    a = subprocess.Popen(apply_cmd(tmp_path, four, "new", state), env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while a.poll() is None and not list((state / "locks").glob("*.lock")) and time.monotonic() - t0 < 30:
        time.sleep(0.002)
    b = subprocess.Popen(apply_cmd(tmp_path, four[1:], "old", state), env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    (oa, ea), (ob, eb) = a.communicate(timeout=60), b.communicate(timeout=60)
    assert (a.returncode, b.returncode) == (0, 2), (oa, ea, ob, eb)
    assert "VERIFIED" in oa and ob == ""
    assert "is locked by transaction" in eb and f"pid {a.pid}" in eb, eb
    assert len(eb.strip().splitlines()) == 1, eb
    assert classify(read_back(four)) == ["new"] * 4       # the target of the one that reported success


def test_a_holder_is_alive_only_as_the_same_process():
    me = Holder.me("x", "T")
    assert me.alive() is True
    assert dead_holder().alive() is False
    reused = Holder(me.pid, me.host, me.started, "x", "T", proc_start="1")     # same id, another process
    assert reused.alive() is False
    assert Holder(me.pid, "another-host.example", me.started, "x", "T").alive() is None


def test_a_killed_holder_not_yet_reaped_is_dead():
    # a process killed with SIGKILL stays a zombie until its parent waits for it: it holds its
    # id but runs no transaction, so its locks are stale
    import signal
    import subprocess
    import sys
    import time

    from permnet.ocs.journal import _proc_start

    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        holder = Holder(p.pid, Holder.me("x", "T").host, "2026-01-01T00:00:00Z", "x", "T", _proc_start(p.pid))
        assert holder.alive() is True
        p.send_signal(signal.SIGKILL)
        for _ in range(200):                      # until the kernel has made it a zombie (not reaped)
            with open(f"/proc/{p.pid}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    break
            time.sleep(0.01)
        assert holder.alive() is False
    finally:
        p.kill()
        p.wait(timeout=10)
