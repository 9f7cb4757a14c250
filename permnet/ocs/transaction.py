"""Apply target states to many switches as one transaction.

0. (with a state directory, :mod:`permnet.ocs.journal`) refuse to start over
   an unfinished transaction, and lock every device of this one
   (:mod:`permnet.ocs.locks`): a second transaction on any of them fails at
   once, naming the holder;
1. read the live state of every device (concurrently);
2. plan per device only the ports that change: disconnect every owned
   ingress whose cross-connect differs from the target, then connect the
   targets that are not yet there (disconnects before connects, so an egress
   moving between ingresses is free when it is claimed);
3. record the intent durably (old and new state of every device, owned
   ports), then apply the plans, devices concurrently (at most ``parallel``
   at a time), recording each device's progress;
4. wait until no new cross-connect is settling (bounded), read every device
   back and compare its owned ports with the target (ports outside ``owned``
   belong to someone else: they are neither changed nor checked);
5. on any failure or mismatch restore the owned ports of *every* device to
   their step-1 state (the same planning, towards the old state, on a fresh
   session) and read back again.

Afterwards each device holds exactly the old or exactly the new state, the
journal is closed and the locks released; the report says which.  When a
roll-back fails (a device stays unreachable) the verdict is ``ROLLBACK
FAILED``, and the journal and locks stay for :func:`recover`.

A signal (Ctrl-C, SIGTERM: ``KeyboardInterrupt`` or ``SystemExit`` in the
calling thread) stops the sending at once: no device job that has not begun
runs, a running one stops after its current command; every device is read
back and the report says which state each holds (``INTERRUPTED``); the
journal stays unless the devices are all old or all new.
"""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.ocs.driver import MAX_TIMEOUT_S, Credentials, DeviceError, open_driver
from permnet.ocs.journal import Holder, Journal, JournalDevice, open_journals
from permnet.ocs.locks import acquire, device_lock, locks, read_lock, release

__all__ = ["Target", "Plan", "plan_changes", "DeviceReport", "TransactionReport", "apply_targets", "recover",
           "StateStatus", "state_status", "Interrupted"]


@dataclass
class Target:
    """What one device should hold (0-based plane model, ``-1`` unconnected),
    ``intended`` over the device's ports; ``owned`` (boolean, per port)
    limits the transaction to those ingress/egress ports (``None``: all)."""

    name: str
    protocol: str
    address: str
    intended: np.ndarray
    owned: np.ndarray | None = None
    credentials: Credentials | None = None
    timeout: float = 5.0

    def driver(self):
        return open_driver(self.protocol, self.address, timeout=self.timeout, credentials=self.credentials,
                           name=self.name)


@dataclass
class Plan:
    disconnect: list[int] = field(default_factory=list)
    connect: list[tuple[int, int]] = field(default_factory=list)
    unchanged: int = 0

    def as_dict(self) -> dict:
        return {"disconnect": self.disconnect, "connect": [list(p) for p in self.connect],
                "unchanged": self.unchanged}


def plan_changes(live: np.ndarray, want: np.ndarray, owned: np.ndarray | None = None, name: str = "device") -> Plan:
    """The fewest disconnects and connects turning ``live`` into ``want`` on
    the owned ports; a target that needs an egress held by a port outside
    ``owned`` is refused."""
    live, want = np.asarray(live, np.int64), np.asarray(want, np.int64)
    require(len(live) == len(want), f"{name}: the device has {len(live)} ports, the target {len(want)}")
    owned = np.ones(len(live), bool) if owned is None else np.asarray(owned, bool)
    p = Plan()
    for i in np.nonzero(owned)[0].tolist():
        have, w = int(live[i]), int(want[i])
        if have == w:
            p.unchanged += int(w >= 0)
            continue
        if have >= 0:
            p.disconnect.append(i)
        if w >= 0:
            p.connect.append((i, w))
    # an egress claimed by the plan must be free once the disconnects are done
    held = {int(e): i for i, e in enumerate(live.tolist()) if e >= 0 and (not owned[i] or i not in p.disconnect)}
    for i, e in p.connect:
        require(e not in held, f"{name}: egress {e} is held by ingress {held.get(e)}, outside the owned ports")
    return p


@dataclass
class DeviceReport:
    name: str
    status: str = "unknown"          # new | old | mixed (interrupted) | unknown
    added: int = 0
    removed: int = 0
    unchanged: int = 0
    verified: bool = False
    error: str | None = None
    plan: Plan | None = None

    def as_dict(self, with_plan: bool = False) -> dict:
        d = {"name": self.name, "status": self.status, "added": self.added, "removed": self.removed,
             "unchanged": self.unchanged, "verified": self.verified, "error": self.error}
        if with_plan and self.plan is not None:
            d["plan"] = self.plan.as_dict()
        return d


#: verdicts, in the order they are decided
VERDICTS = ("UNREACHABLE", "DRY RUN", "INTERRUPTED", "VERIFIED", "RECOVERED", "ROLLED BACK", "ROLLBACK FAILED")


@dataclass
class TransactionReport:
    devices: list[DeviceReport]
    rolled_back: bool = False
    dry_run: bool = False
    seconds: float = 0.0
    unreachable: bool = False        # a device could not be read in step 1: nothing was sent anywhere
    interrupted: int | None = None   # the exit status of the signal that stopped it (130, 143)
    journal: str | None = None       # id of a journal left open (devices neither all old nor all new)
    transaction: str | None = None   # id of the journalled transaction
    recovered: str | None = None     # a recovery: the state it was asked for (old | new)

    @property
    def verified(self) -> bool:
        return (not self.dry_run and not self.rolled_back and self.interrupted is None and not self.unreachable
                and all(d.verified for d in self.devices))

    @property
    def verdict(self) -> str:
        if self.unreachable:
            return "UNREACHABLE"
        if self.dry_run:
            return "DRY RUN"
        if self.interrupted is not None:
            return "INTERRUPTED"
        if self.verified:
            return "RECOVERED" if self.recovered else "VERIFIED"
        if self.rolled_back and all(d.status == "old" for d in self.devices):
            return "RECOVERED" if self.recovered == "old" else "ROLLED BACK"
        return "ROLLBACK FAILED"

    def state(self) -> str:
        """``new``, ``old`` (every device) or ``mixed``."""
        st = {d.status for d in self.devices}
        return st.pop() if len(st) == 1 and st <= {"old", "new"} else "mixed"

    def as_dict(self) -> dict:
        return {"added": sum(d.added for d in self.devices), "removed": sum(d.removed for d in self.devices),
                "unchanged": sum(d.unchanged for d in self.devices), "verified": self.verified,
                "verdict": self.verdict, "state": self.state(),
                "rolled_back": self.rolled_back, "dry_run": self.dry_run, "unreachable": self.unreachable,
                "interrupted": self.interrupted, "journal_kept": self.journal, "transaction": self.transaction,
                "recovered": self.recovered, "seconds": round(self.seconds, 3),
                "devices": [d.as_dict(with_plan=self.dry_run) for d in self.devices]}

    def verdict_line(self) -> str:
        v = self.verdict
        keep = (f"; journal {self.journal} kept: run `permnet ocs recover` (--to old|new)"
                if self.journal else "")
        if v == "UNREACHABLE":
            return "UNREACHABLE: nothing changed" + keep
        if v == "INTERRUPTED":
            st = self.state()
            what = ("nothing changed" if not self.transaction else
                    f"every device holds its {st} state" if st != "mixed" else "devices left in mixed states")
            return f"INTERRUPTED: {what}" + keep
        if v == "RECOVERED":
            return f"RECOVERED: every device holds its {self.state()} state (transaction {self.transaction} closed)"
        if v == "ROLLED BACK":
            return "ROLLED BACK: every device holds its old state"
        if v == "ROLLBACK FAILED":
            return "ROLLBACK FAILED: devices hold neither all old nor all new" + keep
        return v

    def lines(self) -> list[str]:
        out = []
        for d in self.devices:
            tail = f"  {d.error}" if d.error else ""
            out.append(f"{d.name:20} {d.status:8} +{d.added} -{d.removed} ={d.unchanged}{tail}")
            if self.dry_run and d.plan is not None:
                out += [f"  disconnect ingress {i}" for i in d.plan.disconnect]
                out += [f"  connect    ingress {i} -> egress {e}" for i, e in d.plan.connect]
        return out + [self.verdict_line()]


class Interrupted(Exception):
    """A device job saw the stop flag (the transaction was interrupted)."""


class _Recorder:
    """The journal, written by one thread at a time (or nothing without one)."""

    def __init__(self, journal: Journal | None):
        self.journal = journal
        self.lock = threading.Lock()

    def mark(self, name: str, state: str) -> None:
        self.mark_many({name: state})

    def mark_many(self, states: dict) -> None:
        if self.journal is not None and states:
            with self.lock:
                self.journal.mark_many(states)

    def phase(self, phase: str) -> None:
        if self.journal is not None:
            with self.lock:
                self.journal.phase(phase)


def _settle(driver, deadline: float) -> None:
    """Wait (bounded) until the device reports nothing settling; a device
    still settling at the deadline is a DeviceError (:meth:`Driver.wait_settled`)."""
    driver.wait_settled(deadline - time.monotonic())


def _chunks(items: list, n: int):
    return [items[k:k + n] for k in range(0, len(items), n)]


def _drive(target: Target, want: np.ndarray, live: np.ndarray, settle_s: float,
           stop: threading.Event | None = None, rec: _Recorder | None = None,
           marks: tuple = ("writing", "written")) -> tuple[Plan, np.ndarray]:
    """One fresh session: plan against ``live``, apply (one batch per
    command, stopping between commands when ``stop`` is set), settle, read back."""
    if stop is not None and stop.is_set():
        raise Interrupted(target.name)
    with target.driver() as d, device_lock(d):
        p = plan_changes(live, want, target.owned, target.name)
        batch = max(1, int(getattr(d, "batch", 64)))
        jobs = [(d.disconnect, c) for c in _chunks(p.disconnect, batch)]
        jobs += [(d.connect, c) for c in _chunks(p.connect, batch)]
        if jobs and rec is not None:
            rec.mark(target.name, marks[0])
        for send, chunk in jobs:
            if stop is not None and stop.is_set():
                raise Interrupted(target.name)
            send(chunk)
        if jobs and rec is not None and marks[1]:
            rec.mark(target.name, marks[1])
        _settle(d, time.monotonic() + settle_s)
        return p, d.read()


def _read(target: Target) -> np.ndarray:
    with target.driver() as d:
        return d.read()


def _owned(target: Target, n: int) -> np.ndarray:
    return np.ones(n, bool) if target.owned is None else np.asarray(target.owned, bool)


def _mismatch(target: Target, back: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Owned ingress ports whose read-back differs from ``want`` (other ports
    belong to someone else and may change meanwhile)."""
    return np.nonzero(_owned(target, len(back)) & (np.asarray(back) != np.asarray(want)))[0]


def _unfinished_refusal(root: Path) -> None:
    """An apply never starts over a transaction whose holder died."""
    for j in open_journals(root):
        if j.holder.alive() is False:
            names = ", ".join(d.name for d in j.devices[:4]) + (" ..." if len(j.devices) > 4 else "")
            raise PermnetError(f"unfinished transaction {j.id} on {names} ({j.holder.describe()}, no longer "
                               f"running): run `permnet ocs recover --state-dir {root}` first")


#: the longest wait for new cross-connects to settle (``--settle-s``)
MAX_SETTLE_S = 600.0


def check_times(settle_s: float, timeouts=()) -> None:
    """``settle_s`` in 0..MAX_SETTLE_S and every time-out in (0, MAX_TIMEOUT_S], all finite
    (NaN passed a range check; 1e308 overflowed the clock arithmetic)."""
    require(isinstance(settle_s, (int, float)) and math.isfinite(settle_s) and 0 <= settle_s <= MAX_SETTLE_S,
            f"--settle-s must be a number in 0..{MAX_SETTLE_S:g} seconds, got {settle_s!r}")
    for t in timeouts:
        require(isinstance(t, (int, float)) and math.isfinite(t) and 0 < t <= MAX_TIMEOUT_S,
                f"--timeout must be a time-out in seconds, 0 < t <= {MAX_TIMEOUT_S:g}, got {t!r}")


def apply_targets(targets: list[Target], *, parallel: int = 8, dry_run: bool = False, settle_s: float = 5.0,
                  progress: bool | None = None, state_dir=None, journal: bool = True,
                  command: str = "permnet") -> TransactionReport:
    """Run the steps of the module docstring; never raises for a device
    fault (it is reported), only for unusable targets, a busy device or an
    unfinished transaction.  ``state_dir`` (a folder) turns on the locks and,
    unless ``journal`` is False, the intent journal; without it neither."""
    require(targets, "no devices to apply to")
    require(len({t.name for t in targets}) == len(targets), "device names must be distinct")
    require(parallel >= 1, f"--parallel must be >= 1, got {parallel}")
    check_times(settle_s, [t.timeout for t in targets])
    t0 = time.monotonic()
    root = Path(state_dir) if state_dir is not None and not dry_run else None
    tid = Journal.new_id()
    holder = Holder.me(command, tid)
    taken: list = []
    if root is not None:
        _unfinished_refusal(root)
        taken = acquire(root, [t.address for t in targets], holder)
    run = _Run(targets, parallel, settle_s, progress)
    keep = False
    try:
        rep = run.apply(dry_run, root if journal else None, holder)
        keep = rep.journal is not None
    except BaseException:
        # a journal begun stays, with its locks, for `ocs recover`
        keep = root is not None and (root / "journal" / tid).exists()
        raise
    finally:
        if not keep:
            release(taken)
    rep.seconds = time.monotonic() - t0
    return rep


class _Run:
    """One transaction's devices, thread pool, stop flag and journal."""

    def __init__(self, targets, parallel, settle_s, progress):
        self.targets, self.parallel, self.settle_s, self.progress = targets, parallel, settle_s, progress
        self.reports = [DeviceReport(t.name) for t in targets]
        self.stop = threading.Event()
        self.rec = _Recorder(None)
        self.pool: ThreadPoolExecutor | None = None

    # ------------------------------------------------------------------ steps
    def _read_all(self) -> list:
        out: list = [None] * len(self.targets)
        for k, fut in enumerate([self.pool.submit(_read, t) for t in self.targets]):
            try:
                out[k] = fut.result()
            except (DeviceError, PermnetError) as exc:
                self.reports[k].error = str(exc)
        return out

    def _towards(self, wants, lives, marks, bar_desc: str) -> bool:
        """Drive every device from ``lives`` to ``wants``; True when all verified."""
        from tqdm import tqdm

        futs = {self.pool.submit(_drive, t, w, o, self.settle_s, self.stop, self.rec, marks[:2]): k
                for k, (t, w, o) in enumerate(zip(self.targets, wants, lives))}
        ok = True
        done = {}                                  # verdicts, recorded together once all are in
        with tqdm(total=len(futs), unit="device", desc=bar_desc, leave=False,
                  disable=None if self.progress is None else not self.progress) as bar:
            for fut, k in futs.items():
                t, r = self.targets[k], self.reports[k]
                try:
                    _, back = fut.result()
                    bad = _mismatch(t, back, wants[k])
                    r.verified = len(bad) == 0
                    if not r.verified:
                        r.error = (f"{t.name}: read-back differs from the target on {len(bad)} ingress port(s), "
                                   f"first ingress {int(bad[0])}: {int(back[bad[0]])} instead of "
                                   f"{int(wants[k][bad[0]])}")
                except (DeviceError, PermnetError) as exc:
                    r.error, r.verified = str(exc), False
                done[t.name] = marks[2] if r.verified else "failed"
                ok &= r.verified
                bar.update()
        self.rec.mark_many(done)
        return ok

    def _restore_all(self, olds) -> None:
        self.rec.phase("rollback")
        futs = {self.pool.submit(_restore, t, olds[k], self.settle_s, self.stop, self.rec): k
                for k, t in enumerate(self.targets)}
        done = {}
        for fut, k in futs.items():
            r = self.reports[k]
            r.verified = False
            try:
                r.status = "old" if fut.result() else "unknown"
            except (DeviceError, PermnetError) as exc:
                r.status = "unknown"
                r.error = (r.error + "; " if r.error else "") + f"roll-back failed: {exc}"
            done[self.targets[k].name] = "rolled-back" if r.status == "old" else "failed"
        self.rec.mark_many(done)

    def apply(self, dry_run: bool, root: Path | None, holder: Holder,
              existing: Journal | None = None, olds=None, direction: str | None = None) -> TransactionReport:
        """Steps 1-5; ``existing`` (a recovery): the journal to continue, with
        ``olds`` the journal's old states (the roll-back goes there, not to
        the live states read now)."""
        targets, reports = self.targets, self.reports
        self.pool = ThreadPoolExecutor(max_workers=min(self.parallel, len(targets)))
        jr: Journal | None = existing
        lives = None
        wants = [np.asarray(t.intended, np.int64) for t in targets]
        try:
            # 1. live state
            lives = self._read_all()
            if any(x is None for x in lives):
                for r in reports:
                    r.status = "old" if existing is None else "unknown"   # nothing was sent to any device
                return TransactionReport(reports, dry_run=dry_run, unreachable=True,
                                         journal=existing.id if existing else None,
                                         transaction=existing.id if existing else None, recovered=direction)
            # 2. plans (also checks every target against its device)
            for t, r, o, w in zip(targets, reports, lives, wants):
                require(len(w) == len(o), f"{t.name}: the device has {len(o)} ports, the target {len(w)}")
                r.plan = plan_changes(o, w, t.owned, t.name)
                r.added, r.removed, r.unchanged = len(r.plan.connect), len(r.plan.disconnect), r.plan.unchanged
                r.status = "old" if existing is None else "unknown"
            if dry_run:
                return TransactionReport(reports, dry_run=True)
            if olds is None:
                olds = lives
            # 3. the intent, durably, before the first write
            if jr is None and root is not None:
                jr = Journal(root, holder.transaction, holder,
                             [JournalDevice(t.name, t.protocol, t.address, o, w, t.owned, t.timeout)
                              for t, o, w in zip(targets, olds, wants)]).begin()
            self.rec = _Recorder(jr)
            # 3.-4. apply, settle, read back
            marks = ("writing", "written", "verified")
            if self._towards(wants, lives, marks, "apply"):
                for r in reports:
                    r.status = "new" if direction != "old" else "old"
                if jr is not None:
                    jr.close()
                return TransactionReport(reports, transaction=jr.id if jr else None, recovered=direction)
            # 5. roll every device back to the old state, on fresh sessions
            self._restore_all(olds)
            consistent = all(r.status == "old" for r in reports)
            if jr is not None and consistent:
                jr.close()
            return TransactionReport(reports, rolled_back=True, transaction=jr.id if jr else None,
                                     journal=None if consistent or jr is None else jr.id, recovered=direction)
        except (KeyboardInterrupt, SystemExit) as exc:
            code = 130 if isinstance(exc, KeyboardInterrupt) else exc.code if isinstance(exc.code, int) else 143
            return self._interrupted(code, jr, olds if olds is not None else lives, wants, direction)
        finally:
            self.stop.set()
            self.pool.shutdown(wait=True, cancel_futures=True)

    def _interrupted(self, code: int, jr: Journal | None, olds, wants, direction) -> TransactionReport:
        """Stop sending (queued jobs never start, running ones stop after their
        command), read every device back, say what each holds."""
        self.stop.set()
        self.pool.shutdown(wait=True, cancel_futures=True)
        reports = self.reports
        if jr is None:
            for r in reports:
                r.status, r.verified = "old", False
            return TransactionReport(reports, interrupted=code)
        with ThreadPoolExecutor(max_workers=min(self.parallel, len(self.targets))) as pool:
            futs = [pool.submit(_read, t) for t in self.targets]
            backs = []
            for fut, r in zip(futs, reports):
                try:
                    backs.append(fut.result())
                except (DeviceError, PermnetError) as exc:
                    backs.append(None)
                    r.error = str(exc)
        all_old = all_new = True
        for t, r, b, o, w in zip(self.targets, reports, backs, olds, wants):
            r.verified = False
            if b is None:
                r.status, all_old, all_new = "unknown", False, False
                continue
            is_old, is_new = not len(_mismatch(t, b, o)), not len(_mismatch(t, b, w))
            all_old &= is_old
            all_new &= is_new
            r.status = "new" if is_new and not is_old else "old" if is_old else "mixed"
        if all_old or all_new:
            for r in reports:
                r.status = "old" if all_old else "new"
            jr.close()
        return TransactionReport(reports, interrupted=code, transaction=jr.id,
                                 journal=None if all_old or all_new else jr.id, recovered=direction)


def _restore(target: Target, old: np.ndarray, settle_s: float, stop: threading.Event | None = None,
             rec: _Recorder | None = None, attempts: int = 3) -> bool:
    """Bring the owned ports back to ``old`` (read what the device holds now,
    undo the difference), retrying a bounded number of times; True when verified."""
    last: Exception | None = None
    back_to = Target(target.name, target.protocol, target.address, old, target.owned, target.credentials,
                     target.timeout)
    for _ in range(attempts):
        try:
            now = _read(target)
            if not len(_mismatch(target, now, old)):
                return True
            _, back = _drive(back_to, old, now, settle_s, stop, rec, ("rolling-back", None))
            if not len(_mismatch(target, back, old)):
                # a command of a timed-out session may still land (a frozen switch
                # answers late): look once more after one time-out
                time.sleep(target.timeout)
                if not len(_mismatch(target, _read(target), old)):
                    return True
        except DeviceError as exc:
            last = exc
    if last is not None:
        raise last
    return False


# ------------------------------------------------------------------ recovery and status

def recover(state_dir, *, to: str | None = None, credentials: Credentials | None = None,
            timeout: float | None = None, parallel: int = 8, settle_s: float = 5.0, progress: bool | None = None,
            command: str = "permnet ocs recover") -> tuple[list[TransactionReport], list[str]]:
    """Bring every device of every unfinished transaction in ``state_dir`` to
    exactly its old or exactly its new state (``to``; default: finish what
    was started, :attr:`Journal.default_direction`), read back, close the
    journal.  If the new state cannot be reached every device goes back to
    the old one.  Returns the reports and the stale locks released (those of
    transactions that died before their first write)."""
    require(to in (None, "old", "new"), f"--to must be old or new, got {to!r}")
    check_times(settle_s, [] if timeout is None else [timeout])
    root = Path(state_dir)
    journals = open_journals(root)
    for j in journals:
        alive = j.holder.alive()
        require(alive is False, f"transaction {j.id} is still running ({j.holder.describe()})" if alive else
                f"transaction {j.id} runs on host {j.holder.host}: recover it there")
    reports = []
    for j in journals:
        direction = to or j.default_direction
        holder = Holder.me(command, j.id)
        taken = acquire(root, [d.address for d in j.devices], holder, takeover=j.id)
        j.adopt(holder)
        j.phase(f"recover-{direction}")
        targets = [Target(d.name, d.protocol, d.address, d.new if direction == "new" else d.old, d.owned,
                          credentials, timeout or d.timeout) for d in j.devices]
        t0 = time.monotonic()
        rep = _Run(targets, parallel, settle_s, progress).apply(False, root, holder, existing=j,
                                                                 olds=[d.old for d in j.devices],
                                                                 direction=direction)
        rep.seconds = time.monotonic() - t0
        if rep.unreachable or rep.journal is not None:
            rep.journal = j.id                      # kept, with its locks, for the next try
        else:
            release(taken)
        reports.append(rep)
        if rep.interrupted is not None:
            break
    # locks of transactions that died before writing anything (no journal)
    released = []
    open_ids = {j.id for j in open_journals(root)}
    for address, h, path in locks(root):
        if h.transaction not in open_ids and h.alive() is False:
            release([path])
            released.append(f"{address} (transaction {h.transaction}, {h.describe()}: died before its first "
                            "write)")
    return reports, released


@dataclass
class StateStatus:
    """The state directory at a glance: unfinished transactions and locks."""

    root: Path
    journals: list
    held: list

    def as_dict(self) -> dict:
        return {"state_dir": str(self.root),
                "transactions": [{"id": j.id, "phase": j.current_phase, "holder": j.holder.as_dict(),
                                  "holder_alive": j.holder.alive(),
                                  "devices": {d.name: j.progress.get(d.name, "pending") for d in j.devices}}
                                 for j in self.journals],
                "locks": [{"device": a, "holder": h.as_dict(), "holder_alive": h.alive()}
                          for a, h, _ in self.held]}

    def lines(self) -> list[str]:
        out = [f"state directory {self.root}"]
        if not self.journals:
            out.append("no unfinished transaction")
        for j in self.journals:
            alive = j.holder.alive()
            out.append(("running: " if alive else "UNFINISHED: ") + j.summary())
            out += [f"  {d.name:20} {j.progress.get(d.name, 'pending'):12} {d.protocol} {d.address}"
                    for d in j.devices]
            if not alive:
                out.append("  run `permnet ocs recover` (--to old|new) to finish it")
        if not self.held:
            out.append("no device locked")
        for a, h, _ in self.held:
            alive = h.alive()
            tag = "locked" if alive else "STALE " if alive is False else "locked?"
            out.append(f"{tag} {a:21} transaction {h.transaction} ({h.describe()})")
        return out


def state_status(state_dir) -> StateStatus:
    root = Path(state_dir)
    return StateStatus(root, open_journals(root), locks(root))


def unlock(state_dir, addresses, *, force: bool = False) -> list[str]:
    """Remove the locks of ``addresses`` whose holder is dead (``force``: also
    one held on another host); never one of an unfinished transaction."""
    from permnet.ocs.locks import lock_path

    root = Path(state_dir)
    open_ids = {j.id for j in open_journals(root)}
    out = []
    for a in addresses:
        path = lock_path(root, a)
        h = read_lock(path)
        require(h is not None, f"device {a} is not locked ({path})")
        alive = h.alive()
        require(alive is False or (alive is None and force),
                f"device {a} is locked by {h.describe()}, which is running" if alive else
                f"device {a} is locked from host {h.host}; --force removes it only if nothing runs there")
        require(h.transaction not in open_ids,
                f"device {a} belongs to unfinished transaction {h.transaction}: run `permnet ocs recover`")
        release([path])
        out.append(f"unlocked {a} (transaction {h.transaction}, {h.describe()})")
    return out
