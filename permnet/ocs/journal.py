"""The intent journal of a device transaction, in permnet's state directory.

A transaction that dies between its first and its last write leaves its
devices neither all old nor all new.  Before the first write it therefore
records durably what it read from every device (the *old* state), what it
is about to put there (the *new* state), the ports it owns and, as it goes,
each device's progress; ``permnet ocs recover`` reads that record back and
finishes the job in either direction.

Layout of the state directory (:func:`state_dir`)::

    STATE/journal/<id>/intent.json     written once, before the first write
    STATE/journal/<id>/progress.json   phase and per-device progress, rewritten
    STATE/locks/<address>.lock         see :mod:`permnet.ocs.locks`

Every file is written whole or not at all (temporary file, ``fsync``,
``rename``, ``fsync`` of the folder), and a transaction's folder appears as
a unit (it is built as ``.<id>.tmp`` and renamed), so a crash at any moment
leaves either no journal or a complete, valid one.  A closed transaction's
folder is removed.  Nothing secret is written: device names, protocols,
addresses, ports and timeouts, never a user or a password.

Per-device progress: ``pending`` (nothing sent yet), ``writing`` (commands
may have landed), ``written`` (all commands acknowledged), ``verified`` (read
back equal to the target), ``rolling-back``, ``rolled-back`` (read back equal
to the old state), ``failed`` (state unknown).  Phases: ``apply`` (going to
the new state), ``rollback`` (going back to the old state), ``recover-old``
and ``recover-new`` (a recovery under way).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from permnet.gen.errors import PermnetError, require

__all__ = ["STATE_ENV", "state_dir", "check_folder", "Damaged", "durable_write", "Holder", "JournalDevice",
           "Journal", "open_journals", "PROGRESS", "PHASES"]

STATE_ENV = "PERMNET_STATE_DIR"
FORMAT = "permnet-ocs-journal"
VERSION = 1
PROGRESS = ("pending", "writing", "written", "verified", "rolling-back", "rolled-back", "failed")
PHASES = ("apply", "rollback", "recover-old", "recover-new")
#: the largest process id a holder may name (os.kill overflows beyond a C int)
MAX_PID = 2**31 - 1


def state_dir(explicit=None) -> Path:
    """``explicit`` (``--state-dir``), else ``$PERMNET_STATE_DIR``, else
    ``$XDG_STATE_HOME/permnet``, else ``~/.local/state/permnet``; one that
    exists as something other than a folder is refused, naming where it came from."""
    if explicit:
        path, source = Path(explicit), "--state-dir"
    elif os.environ.get(STATE_ENV):
        path, source = Path(os.environ[STATE_ENV]), STATE_ENV
    else:
        base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
        path, source = Path(base) / "permnet", "XDG_STATE_HOME" if os.environ.get("XDG_STATE_HOME") else "the default"
    require(not path.exists() or path.is_dir(), f"state directory {path} (from {source}) is not a folder")
    return path


def check_folder(path: Path) -> bool:
    """True when ``path`` is a folder, False when it does not exist; a file
    (or anything else) in its place is damaged state, refused."""
    if not os.path.lexists(path):
        return False
    require(path.is_dir(), f"damaged state: {path} is not a folder; move it aside once no transaction runs")
    return True


class Damaged(ValueError):
    """A field of a state file with the wrong type, range or shape (``field``: where, as
    ``devices[0].owned``)."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}" if field else problem)


def state_file_problem(exc: BaseException) -> str:
    """What is wrong with a state file, in a few words, from the exception reading it raised."""
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc})"
    if isinstance(exc, RecursionError):
        return "not JSON (nested too deeply)"
    return str(exc)


def _json_kind(x) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(x), type(x).__name__)


def _object(doc, field: str = "") -> dict:
    if not isinstance(doc, dict):
        raise Damaged(field, f"not a JSON object ({_json_kind(doc)})")
    return doc


def _take(doc: dict, key: str, field: str, kinds: tuple, *, default=KeyError):
    """``doc[key]`` when of one of ``kinds`` (bool is never a number here)."""
    name = f"{field}.{key}" if field else key
    if key not in doc:
        if default is KeyError:
            raise Damaged(name, "missing")
        return default
    v = doc[key]
    if not isinstance(v, kinds) or (isinstance(v, bool) and bool not in kinds):
        got = repr(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else _json_kind(v)
        want = {int: "a whole number", float: "a number", str: "a string", list: "a list", dict: "an object",
                type(None): "null", bool: "a boolean"}
        raise Damaged(name, f"{got}, expected {' or '.join(want[k] for k in kinds)}")
    return v


def _text(doc: dict, key: str, field: str, *, default=KeyError, empty: bool = True) -> str:
    """A one-line printable string (it is echoed into one-line messages)."""
    v = _take(doc, key, field, (str,), default=default)
    if (not empty and not v) or not v.isprintable() or len(v) > 4096:
        raise Damaged(f"{field}.{key}" if field else key, "expected a non-empty printable line" if not empty
                      else "expected a printable line")
    return v


def _row(v, field: str, n: int | None) -> np.ndarray:
    """A device state: ``n`` ports (any number >= 1 when None), each -1 or an egress 0..n-1 held once."""
    if not isinstance(v, list) or not all(type(x) is int for x in v):
        raise Damaged(field, "expected a list of egress port numbers (-1: unconnected)")
    if n is None:
        if not v:
            raise Damaged(field, "no ports")
    elif len(v) != n:
        raise Damaged(field, f"{len(v)} ports, expected {n} (as old)")
    bad = [x for x in v if not -1 <= x < len(v)]
    if bad:
        raise Damaged(field, f"egress {bad[0]} outside -1..{len(v) - 1}")
    held = [x for x in v if x >= 0]
    if len(set(held)) != len(held):
        dup = next(x for k, x in enumerate(held) if x in held[:k])
        raise Damaged(field, f"egress {dup} held by two ingresses")
    return np.asarray(v, np.int64)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def durable_write(path: Path, text: str, sync: bool = True, sync_dir: bool = True) -> None:
    """Write ``text`` to ``path`` as a unit: a temporary file beside it,
    ``fsync``, ``rename`` over ``path``, ``fsync`` of the folder (``sync``
    False skips both ``fsync`` calls, for a folder not yet published;
    ``sync_dir`` False the second: the rename may be lost in a power cut,
    leaving the previous version, never a partial file)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, text.encode())
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise PermnetError(f"cannot write the journal {path}: {exc.strerror or exc}") from None
    if sync and sync_dir:
        _fsync_dir(path.parent)


def _proc_stat(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/PID/stat`` after the command name (Linux): ``[0]`` the state,
    ``[19]`` the start time in clock ticks since boot; None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _proc_start(pid: int) -> str | None:
    """The start time of process ``pid``, to tell a live holder from a later process that got
    the same id."""
    tail = _proc_stat(pid)
    return tail[19].decode() if tail is not None and len(tail) > 19 else None


def _zombie(pid: int) -> bool:
    """A killed process nobody has reaped yet (state Z) still has its id, but it runs no
    transaction any more."""
    tail = _proc_stat(pid)
    return tail is not None and tail[:1] == [b"Z"]


@dataclass(frozen=True)
class Holder:
    """Who runs a transaction (or holds a lock): process id, host, start
    time (UTC, ISO 8601), the command line and the transaction id."""

    pid: int
    host: str
    started: str
    command: str
    transaction: str
    proc_start: str | None = None

    @classmethod
    def me(cls, command: str, transaction: str) -> "Holder":
        return cls(os.getpid(), socket.gethostname(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   command, transaction, _proc_start(os.getpid()))

    @classmethod
    def from_dict(cls, d: dict, field: str = "") -> "Holder":
        """From a journal's ``holder`` or a lock file; raises :class:`Damaged` naming the field."""
        d = _object(d, field)
        pid = _take(d, "pid", field, (int,))
        if not 1 <= pid <= MAX_PID:
            raise Damaged(f"{field}.pid" if field else "pid", f"{pid} is not a process id (1..{MAX_PID})")
        proc_start = _take(d, "proc_start", field, (str, type(None)), default=None)
        return cls(pid, _text(d, "host", field, empty=False), _text(d, "started", field),
                   _text(d, "command", field, default=""), _text(d, "transaction", field, default=""), proc_start)

    def as_dict(self) -> dict:
        return {"pid": self.pid, "host": self.host, "started": self.started, "command": self.command,
                "transaction": self.transaction, "proc_start": self.proc_start}

    def alive(self) -> bool | None:
        """True/False for a holder on this host; None (cannot tell) for another host."""
        if self.host != socket.gethostname():
            return None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass                                   # someone else's live process
        if _zombie(self.pid):
            return False
        now = _proc_start(self.pid)
        return self.proc_start is None or now is None or now == self.proc_start

    def describe(self) -> str:
        return f"{self.command or 'permnet'}, pid {self.pid} on {self.host} since {self.started}"


@dataclass
class JournalDevice:
    """One device of a journalled transaction (no credentials)."""

    name: str
    protocol: str
    address: str
    old: np.ndarray
    new: np.ndarray
    owned: np.ndarray | None
    timeout: float = 5.0

    def as_dict(self) -> dict:
        return {"name": self.name, "protocol": self.protocol, "address": self.address, "timeout": self.timeout,
                "old": np.asarray(self.old).tolist(), "new": np.asarray(self.new).tolist(),
                "owned": None if self.owned is None else np.nonzero(np.asarray(self.owned, bool))[0].tolist()}

    @classmethod
    def from_dict(cls, d: dict, field: str = "device") -> "JournalDevice":
        """Every field checked for type, range and shape; raises :class:`Damaged` naming it."""
        from permnet.ocs import protocols  # noqa: F401  (registers every driver)
        from permnet.ocs.driver import DRIVERS, MAX_TIMEOUT_S

        d = _object(d, field)
        name = _text(d, "name", field, empty=False)
        protocol = _take(d, "protocol", field, (str,))
        if protocol not in DRIVERS:
            raise Damaged(f"{field}.protocol", f"unknown protocol {protocol[:40]!r}")
        address = _text(d, "address", field, empty=False)
        timeout = _take(d, "timeout", field, (int, float), default=5.0)
        if not (math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT_S):
            raise Damaged(f"{field}.timeout", f"{timeout} is not a time-out in seconds (0 < t <= {MAX_TIMEOUT_S:g})")
        old = _row(_take(d, "old", field, (list,)), f"{field}.old", None)
        new = _row(_take(d, "new", field, (list,)), f"{field}.new", len(old))
        owned = None
        ports = _take(d, "owned", field, (list, type(None)), default=None)
        if ports is not None:
            if not all(type(p) is int and 0 <= p < len(old) for p in ports):
                raise Damaged(f"{field}.owned", f"expected port numbers 0..{len(old) - 1}")
            if len(set(ports)) != len(ports):
                raise Damaged(f"{field}.owned", "a port listed twice")
            owned = np.zeros(len(old), bool)
            owned[np.asarray(ports, np.int64)] = True
        return cls(name, protocol, address, old, new, owned, float(timeout))


@dataclass
class Journal:
    """The record of one transaction; :meth:`begin` publishes it, :meth:`mark`
    and :meth:`phase` update it, :meth:`close` removes it."""

    root: Path
    id: str
    holder: Holder
    devices: list[JournalDevice]
    progress: dict = field(default_factory=dict)
    current_phase: str = "apply"
    sync: bool = True

    def __post_init__(self):
        self.root = Path(self.root)

    @property
    def folder(self) -> Path:
        return self.root / "journal" / self.id

    @staticmethod
    def new_id() -> str:
        return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:8]

    def _progress_doc(self) -> dict:
        return {"phase": self.current_phase, "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "devices": {d.name: self.progress.get(d.name, "pending") for d in self.devices}}

    def begin(self) -> "Journal":
        """Write intent and progress into a hidden folder, then rename it into
        place: from here on, a crash leaves a complete journal.  What
        :meth:`load` would refuse is refused here, before anything is written."""
        for k, d in enumerate(self.devices):
            try:
                JournalDevice.from_dict(d.as_dict(), f"devices[{k}]")
            except Damaged as exc:
                raise PermnetError(f"cannot journal this transaction: {exc}") from None
        jdir = self.root / "journal"
        try:
            jdir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PermnetError(f"cannot create the state directory {jdir}: {exc.strerror or exc}") from None
        tmp = jdir / f".{self.id}.tmp"
        tmp.mkdir(mode=0o700)
        intent = {"format": FORMAT, "version": VERSION, "id": self.id, "holder": self.holder.as_dict(),
                  "devices": [d.as_dict() for d in self.devices]}
        durable_write(tmp / "intent.json", json.dumps(intent, separators=(",", ":")) + "\n", self.sync)
        durable_write(tmp / "progress.json", json.dumps(self._progress_doc()) + "\n", self.sync)
        if self.sync:
            _fsync_dir(tmp)
        os.replace(tmp, self.folder)
        if self.sync:
            _fsync_dir(jdir)
        return self

    def _write_progress(self) -> None:
        # the folder's fsync is left out: a progress record lost in a power cut
        # leaves the previous one, and recovery reads the devices anyway
        durable_write(self.folder / "progress.json", json.dumps(self._progress_doc()) + "\n", self.sync,
                      sync_dir=False)

    def mark(self, name: str, state: str) -> None:
        """Record one device's progress (callers serialise: one writer at a time)."""
        self.mark_many({name: state})

    def mark_many(self, states: dict) -> None:
        """Record the progress of several devices in one write."""
        assert set(states.values()) <= set(PROGRESS), states
        self.progress.update(states)
        self._write_progress()

    def phase(self, phase: str) -> None:
        assert phase in PHASES, phase
        self.current_phase = phase
        self._write_progress()

    def adopt(self, holder: Holder) -> None:
        """A recovery takes the transaction over (its holder is recorded)."""
        self.holder = holder
        intent = {"format": FORMAT, "version": VERSION, "id": self.id, "holder": holder.as_dict(),
                  "devices": [d.as_dict() for d in self.devices]}
        durable_write(self.folder / "intent.json", json.dumps(intent, separators=(",", ":")) + "\n", self.sync)

    def close(self) -> None:
        """Every device is exactly old or exactly new: the record goes."""
        shutil.rmtree(self.folder, ignore_errors=True)
        try:
            _fsync_dir(self.root / "journal")
        except OSError:
            pass

    @property
    def default_direction(self) -> str:
        """Finish what was started: ``new`` while applying (every device has
        its target recorded), ``old`` once a roll-back had begun."""
        return "old" if self.current_phase in ("rollback", "recover-old") else "new"

    @classmethod
    def load(cls, root: Path, folder: Path) -> "Journal":
        """The journal in ``folder``, every field of both files checked for type,
        range and shape: a damaged one is refused in one line naming the file and
        the field (recovering from nonsense could only make the devices worse)."""
        folder = Path(folder)
        path = folder / "intent.json"
        try:
            intent = _object(json.loads(path.read_text(encoding="utf-8")))
            if intent.get("format") != FORMAT:
                raise Damaged("format", f"expected {FORMAT!r}")
            if type(intent.get("version")) is not int or intent["version"] != VERSION:
                raise Damaged("version", f"expected {VERSION}")
            jid = _text(intent, "id", "", empty=False)
            if jid != folder.name:
                raise Damaged("id", f"{jid[:80]!r} is not the folder's name {folder.name!r}")
            holder = Holder.from_dict(_take(intent, "holder", "", (dict,)), "holder")
            docs = _take(intent, "devices", "", (list,))
            if not docs:
                raise Damaged("devices", "empty: a transaction has at least one device")
            devices, names = [], set()
            for k, doc in enumerate(docs):
                dev = JournalDevice.from_dict(doc, f"devices[{k}]")
                if dev.name in names:
                    raise Damaged(f"devices[{k}].name", f"{dev.name!r} twice")
                names.add(dev.name)
                devices.append(dev)
            path = folder / "progress.json"
            prog = _object(json.loads(path.read_text(encoding="utf-8")))
            phase = _take(prog, "phase", "", (str,))
            if phase not in PHASES:
                raise Damaged("phase", f"{phase[:40]!r}, expected one of {', '.join(PHASES)}")
            progress = _take(prog, "devices", "", (dict,))
            for name, state in progress.items():
                if name not in names:
                    raise Damaged(f"devices.{name[:80]}", "no such device in intent.json")
                if state not in PROGRESS:
                    raise Damaged(f"devices.{name}", f"{str(state)[:40]!r}, expected one of {', '.join(PROGRESS)}")
            return cls(Path(root), jid, holder, devices, dict(progress), phase)
        except (OSError, ValueError, RecursionError) as exc:
            raise PermnetError(f"damaged journal {path}: {state_file_problem(exc)}; move {folder} aside and "
                               "check the devices by hand") from None

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for d in self.devices:
            s = self.progress.get(d.name, "pending")
            counts[s] = counts.get(s, 0) + 1
        prog = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        return (f"transaction {self.id} ({self.holder.describe()}): "
                f"phase {self.current_phase}, {len(self.devices)} device(s): {prog}")


def open_journals(root) -> list[Journal]:
    """The unfinished transactions in state directory ``root``, oldest first
    (half-built ``.<id>.tmp`` folders are crashes before the first write:
    they are removed)."""
    root = Path(root)
    jdir = root / "journal"
    if not check_folder(root) or not check_folder(jdir):
        return []
    out = []
    for f in sorted(jdir.iterdir()):
        if f.name.startswith("."):
            # a begin that died before its rename (nothing was sent); a minute
            # old, it cannot be a begin still under way
            if f.name.endswith(".tmp") and time.time() - f.stat().st_mtime > 60:
                shutil.rmtree(f, ignore_errors=True)
            continue
        check_folder(f)                     # a file where a transaction's folder should be
        out.append(Journal.load(root, f))
    return out
