"""Damaged OCS state (issue 43): a journal or lock file whose fields have the
wrong type, range or shape, a ``journal`` folder replaced by a file, a state
directory that is a file.  ``ocs status``, ``ocs recover`` and ``ocs unlock``
refuse each with one line naming the file and the field, exit 2 (they ended
in internal errors, or worse, recovered to nonsense), and keep the locks.

No device is contacted: every journal names a closed port on 127.0.0.1, and
each refusal must come before any connection is tried."""

import json
import subprocess

import numpy as np
import pytest
from cli_runner import run_in_process

from permnet.gen.errors import PermnetError
from permnet.ocs.journal import Holder, Journal, JournalDevice, open_journals, state_dir
from permnet.ocs.locks import acquire, lock_path

N = 16
OLD = np.arange(N)[::-1].copy()
NEW = np.roll(np.arange(N), 1)
ADDRESS = "127.0.0.1:9"                           # discard: nothing listens there
TID = "20260101T000000Z-deadbeef"


def dead_holder(transaction=TID) -> Holder:
    p = subprocess.Popen(["true"])
    p.wait()
    return Holder(p.pid, Holder.me("", "").host, "2026-01-01T00:00:00Z", "permnet ocs apply", transaction)


@pytest.fixture
def state(tmp_path):
    """A valid unfinished transaction of a dead holder, with its lock."""
    root = tmp_path / "state"
    h = dead_holder()
    Journal(root, TID, h, [JournalDevice("sw0", "scpi", ADDRESS, OLD, NEW, np.ones(N, bool))]).begin()
    acquire(root, [ADDRESS], h)
    return root


def edit(path, fn):
    doc = json.loads(path.read_text())
    doc = fn(doc)
    path.write_text(json.dumps(doc) if not isinstance(doc, str) or not doc.startswith("RAW:") else doc[4:])


def set_device(field, value):
    def fn(doc):
        doc["devices"][0][field] = value
        return doc
    return fn


def refused(capsys, state, *args, what):
    code, out, err = run_in_process(capsys, "ocs", *args, "--state-dir", state)
    assert code == 2, (code, out, err)
    assert len(err.splitlines()) == 1 and err.startswith("permnet: error: ")
    assert "Traceback" not in err and "internal error" not in err
    for w in what:
        assert w in err, err
    return err


def test_the_valid_journal_loads(state):
    (j,) = open_journals(state)
    assert j.id == TID and j.devices[0].owned.all()


INTENT_DAMAGE = {
    "list": (lambda d: [d], ["intent.json", "not a JSON object"]),
    "string": (lambda d: "a string", ["intent.json", "not a JSON object"]),
    "owned 999": (set_device("owned", [0, 999]), ["intent.json", "devices[0].owned"]),
    "owned -1": (set_device("owned", [-1]), ["intent.json", "devices[0].owned"]),
    "owned twice": (set_device("owned", [1, 1]), ["devices[0].owned"]),
    "owned float": (set_device("owned", [1.5]), ["devices[0].owned"]),
    "old short": (set_device("old", OLD[:8].tolist()), ["devices[0].old"]),
    "old 999": (set_device("old", [999] * N), ["devices[0].old"]),
    "old repeats": (set_device("old", [0] * N), ["devices[0].old"]),
    "new below -1": (set_device("new", [-2] * N), ["devices[0].new"]),
    "rows 2-D": (set_device("new", [NEW.tolist(), NEW.tolist()]), ["devices[0].new"]),
    "row of strings": (set_device("old", ["a"] * N), ["devices[0].old"]),
    "row of bools": (set_device("old", [True] * N), ["devices[0].old"]),
    "row empty": (lambda d: set_device("new", [])(set_device("old", [])(d)), ["devices[0].old"]),
    "no devices": (lambda d: dict(d, devices=[]), ["intent.json", "devices"]),
    "devices not a list": (lambda d: dict(d, devices={"a": 1}), ["devices"]),
    "device a list": (lambda d: dict(d, devices=[[1]]), ["devices[0]"]),
    "timeout nan": (set_device("timeout", float("nan")), ["devices[0].timeout"]),
    "timeout -1": (set_device("timeout", -1), ["devices[0].timeout"]),
    "timeout 1e308": (set_device("timeout", 1e308), ["devices[0].timeout"]),
    "timeout string": (set_device("timeout", "5"), ["devices[0].timeout"]),
    "protocol": (set_device("protocol", "http"), ["devices[0].protocol"]),
    "address": (set_device("address", 7), ["devices[0].address"]),
    "name newline": (set_device("name", "a\nb"), ["devices[0].name"]),
    "two names": (lambda d: dict(d, devices=d["devices"] * 2), ["devices[1].name"]),
    "holder pid 1e400": (lambda d: "RAW:" + json.dumps(d).replace(f'"pid": {d["holder"]["pid"]}', '"pid": 1e400'),
                         ["holder.pid"]),
    "holder pid 0": (lambda d: dict(d, holder=dict(d["holder"], pid=0)), ["holder.pid"]),
    "holder pid -1": (lambda d: dict(d, holder=dict(d["holder"], pid=-1)), ["holder.pid"]),
    "holder a list": (lambda d: dict(d, holder=[1]), ["holder"]),
    "holder host": (lambda d: dict(d, holder=dict(d["holder"], host=None)), ["holder.host"]),
    "id elsewhere": (lambda d: dict(d, id="../../elsewhere"), ["intent.json", "id"]),
    "version": (lambda d: dict(d, version=True), ["version"]),
}


@pytest.mark.parametrize("damage", list(INTENT_DAMAGE))
def test_a_damaged_intent_is_refused_naming_file_and_field(capsys, state, damage):
    fn, what = INTENT_DAMAGE[damage]
    intent = state / "journal" / TID / "intent.json"
    edit(intent, fn)
    before = intent.read_text()
    for args in (("status",), ("recover", "--settle-s", "0", "--timeout", "0.5"), ("unlock", ADDRESS)):
        refused(capsys, state, *args, what=what)
    assert intent.read_text() == before                  # nothing adopted or rewritten
    assert lock_path(state, ADDRESS).exists()             # the lock is kept


PROGRESS_DAMAGE = {
    "list": (lambda d: [d], ["progress.json", "not a JSON object"]),
    "string": (lambda d: "x", ["progress.json", "not a JSON object"]),
    "phase": (lambda d: dict(d, phase="sideways"), ["progress.json", "phase"]),
    "no phase": (lambda d: {k: v for k, v in d.items() if k != "phase"}, ["progress.json", "phase"]),
    "devices list": (lambda d: dict(d, devices=["sw0"]), ["progress.json", "devices"]),
    "progress value": (lambda d: dict(d, devices={"sw0": "half"}), ["progress.json", "devices.sw0"]),
    "unknown device": (lambda d: dict(d, devices={"sw0": "pending", "sw9": "pending"}), ["devices.sw9"]),
}


@pytest.mark.parametrize("damage", list(PROGRESS_DAMAGE))
def test_a_damaged_progress_is_refused_naming_file_and_field(capsys, state, damage):
    fn, what = PROGRESS_DAMAGE[damage]
    edit(state / "journal" / TID / "progress.json", fn)
    for args in (("status",), ("recover", "--settle-s", "0", "--timeout", "0.5")):
        refused(capsys, state, *args, what=what)
    assert lock_path(state, ADDRESS).exists()


@pytest.mark.parametrize("text,what", [('{"pid": 1e400, "host": "h", "started": "s"}', "pid"),
                                       ('{"pid": -1, "host": "h", "started": "s"}', "pid"),
                                       ('{"pid": 5, "host": "h", "started": "s", "device": [1]}', "device"),
                                       ("[1, 2]", "not a JSON object"),
                                       ('"x"', "not a JSON object")])
def test_a_damaged_lock_file_is_refused_naming_it(capsys, tmp_path, text, what):
    path = lock_path(tmp_path, ADDRESS)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    for args in (("status",), ("recover", "--settle-s", "0"), ("unlock", ADDRESS)):
        err = refused(capsys, tmp_path, *args, what=[what])
        assert str(path) in err
    assert path.exists()


def test_a_journal_folder_replaced_by_a_file_keeps_the_locks(capsys, state):
    """recover said "no unfinished transaction" and released both stale locks
    of the transaction that was writing."""
    other = "127.0.0.1:10"
    acquire(state, [other], Journal.load(state, state / "journal" / TID).holder)
    jdir = state / "journal"
    (jdir / TID / "intent.json").unlink()
    (jdir / TID / "progress.json").unlink()
    (jdir / TID).rmdir()
    jdir.rmdir()
    jdir.write_text("not a folder\n")
    for args in (("recover", "--settle-s", "0"), ("status",), ("unlock", ADDRESS)):
        refused(capsys, state, *args, what=[str(jdir), "not a folder"])
    assert lock_path(state, ADDRESS).exists() and lock_path(state, other).exists()


def test_a_journal_entry_that_is_a_file_is_refused(capsys, state):
    (state / "journal" / "20260101T000001Z-0badf00d").write_text("{}")
    refused(capsys, state, "recover", "--settle-s", "0", what=["20260101T000001Z-0badf00d", "not a folder"])
    assert lock_path(state, ADDRESS).exists()


def test_a_locks_folder_replaced_by_a_file_is_refused(capsys, tmp_path):
    (tmp_path / "locks").write_text("x")
    refused(capsys, tmp_path, "status", what=["locks", "not a folder"])


def test_a_state_dir_from_the_environment_that_is_a_file_is_refused(capsys, tmp_path, monkeypatch):
    f = tmp_path / "file"
    f.write_text("x")
    monkeypatch.setenv("PERMNET_STATE_DIR", str(f))
    for args in (("status",), ("recover",), ("unlock", ADDRESS)):
        code, out, err = run_in_process(capsys, "ocs", *args)
        assert code == 2 and out == "", (code, out, err)
        assert err.count("\n") == 1 and "PERMNET_STATE_DIR" in err and "not a folder" in err
    with pytest.raises(PermnetError, match="PERMNET_STATE_DIR"):
        state_dir()


def test_what_cannot_be_loaded_is_never_journalled(tmp_path):
    """A device name with a control character would make a journal that
    ``ocs recover`` then refuses as damaged: the apply refuses it before the
    first write, and gives its locks back."""
    from ocs_helpers import Emulator

    from permnet.ocs.scpi import serve_scpi
    from permnet.ocs.switchcore import SwitchCore
    from permnet.ocs.transaction import Target, apply_targets

    core = SwitchCore(4)
    with Emulator(serve_scpi, core) as emu:
        with pytest.raises(PermnetError, match=r"devices\[0\]\.name"):
            apply_targets([Target("sw\t0", "scpi", emu.address, np.array([1, 2, 3, 0]), None, None, 1.0)],
                          state_dir=tmp_path, settle_s=0, progress=False)
    assert (core.snapshot() == -1).all()
    assert open_journals(tmp_path) == [] and not list((tmp_path / "locks").glob("*.lock"))
