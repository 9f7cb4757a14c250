"""Apply target states to many switches as one transaction.

1. read the live state of every device (concurrently);
2. plan per device only the ports that change: disconnect every owned
   ingress whose cross-connect differs from the target, then connect the
   targets that are not yet there (disconnects before connects, so an egress
   moving between ingresses is free when it is claimed);
3. apply the plans, devices concurrently (at most ``parallel`` at a time);
4. wait until no new cross-connect is settling (bounded), read every device
   back and compare its owned ports with the target (ports outside ``owned``
   belong to someone else: they are neither changed nor checked);
5. on any failure or mismatch restore the owned ports of *every* device to
   their step-1 state (the same planning, towards the old state, on a fresh
   session) and read back again.

Afterwards each device holds exactly the old or exactly the new state, and
the report says which (``unknown`` only when a device stayed unreachable
during the roll-back).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.ocs.driver import Credentials, DeviceError, open_driver

__all__ = ["Target", "Plan", "plan_changes", "DeviceReport", "TransactionReport", "apply_targets"]


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
    status: str = "unknown"          # new | old | unknown
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


@dataclass
class TransactionReport:
    devices: list[DeviceReport]
    rolled_back: bool = False
    dry_run: bool = False
    seconds: float = 0.0
    unreachable: bool = False        # a device could not be read in step 1: nothing was sent anywhere

    @property
    def verified(self) -> bool:
        return not self.dry_run and not self.rolled_back and all(d.verified for d in self.devices)

    def as_dict(self) -> dict:
        return {"added": sum(d.added for d in self.devices), "removed": sum(d.removed for d in self.devices),
                "unchanged": sum(d.unchanged for d in self.devices), "verified": self.verified,
                "rolled_back": self.rolled_back, "dry_run": self.dry_run, "unreachable": self.unreachable,
                "seconds": round(self.seconds, 3),
                "devices": [d.as_dict(with_plan=self.dry_run) for d in self.devices]}

    def lines(self) -> list[str]:
        out = []
        for d in self.devices:
            tail = f"  {d.error}" if d.error else ""
            out.append(f"{d.name:20} {d.status:8} +{d.added} -{d.removed} ={d.unchanged}{tail}")
            if self.dry_run and d.plan is not None:
                out += [f"  disconnect ingress {i}" for i in d.plan.disconnect]
                out += [f"  connect    ingress {i} -> egress {e}" for i, e in d.plan.connect]
        verdict = ("UNREACHABLE: nothing changed" if self.unreachable else "DRY RUN" if self.dry_run else
                   "VERIFIED" if self.verified else "ROLLED BACK" if self.rolled_back else "FAILED")
        return out + [verdict]


def _settle(driver, deadline: float) -> None:
    """Wait (bounded) until the device reports nothing settling; a device
    still settling at the deadline is a DeviceError (:meth:`Driver.wait_settled`)."""
    driver.wait_settled(deadline - time.monotonic())


def _drive(target: Target, want: np.ndarray, live: np.ndarray, settle_s: float) -> tuple[Plan, np.ndarray]:
    """One fresh session: plan against ``live``, apply, settle, read back."""
    with target.driver() as d:
        p = plan_changes(live, want, target.owned, target.name)
        if p.disconnect:
            d.disconnect(p.disconnect)
        if p.connect:
            d.connect(p.connect)
        _settle(d, time.monotonic() + settle_s)
        return p, d.read()


def _read(target: Target) -> np.ndarray:
    with target.driver() as d:
        return d.read()


def _mismatch(target: Target, back: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Owned ingress ports whose read-back differs from ``want`` (other ports
    belong to someone else and may change meanwhile)."""
    owned = np.ones(len(back), bool) if target.owned is None else np.asarray(target.owned, bool)
    return np.nonzero(owned & (np.asarray(back) != np.asarray(want)))[0]


def apply_targets(targets: list[Target], *, parallel: int = 8, dry_run: bool = False, settle_s: float = 5.0,
                  progress: bool | None = None) -> TransactionReport:
    """Run the five steps of the module docstring; never raises for a device
    fault (it is reported), only for unusable targets."""
    from tqdm import tqdm

    require(targets, "no devices to apply to")
    require(len({t.name for t in targets}) == len(targets), "device names must be distinct")
    require(parallel >= 1, f"--parallel must be >= 1, got {parallel}")
    t0 = time.monotonic()
    reports = [DeviceReport(t.name) for t in targets]
    with ThreadPoolExecutor(max_workers=min(parallel, len(targets))) as pool:
        # 1. live state
        old: list[np.ndarray | None] = [None] * len(targets)
        for k, fut in enumerate([pool.submit(_read, t) for t in targets]):
            try:
                old[k] = fut.result()
            except (DeviceError, PermnetError) as exc:
                reports[k].error = str(exc)
        if any(o is None for o in old):
            for r in reports:
                r.status = "old"             # nothing was sent to any device
            return TransactionReport(reports, rolled_back=False, dry_run=dry_run, seconds=time.monotonic() - t0,
                                     unreachable=True)
        # 2. plans (also checks every target against its device)
        for t, r, o in zip(targets, reports, old):
            want = np.asarray(t.intended, np.int64)
            require(len(want) == len(o), f"{t.name}: the device has {len(o)} ports, the target {len(want)}")
            r.plan = plan_changes(o, want, t.owned, t.name)
            r.added, r.removed, r.unchanged = len(r.plan.connect), len(r.plan.disconnect), r.plan.unchanged
            r.status = "old"
        if dry_run:
            return TransactionReport(reports, dry_run=True, seconds=time.monotonic() - t0)
        # 3.-4. apply, settle, read back
        futs = {pool.submit(_drive, t, np.asarray(t.intended, np.int64), o, settle_s): k
                for k, (t, o) in enumerate(zip(targets, old))}
        failed = False
        with tqdm(total=len(futs), unit="device", desc="apply", disable=None if progress is None else not progress,
                  leave=False) as bar:
            for fut, k in futs.items():
                t, r = targets[k], reports[k]
                try:
                    _, back = fut.result()
                    want = np.asarray(t.intended, np.int64)
                    bad = _mismatch(t, back, want)
                    r.verified = len(bad) == 0
                    r.status = "new" if r.verified else "unknown"
                    if not r.verified:
                        r.error = (f"{t.name}: read-back differs from the target on {len(bad)} ingress port(s), "
                                   f"first ingress {int(bad[0])}: {int(back[bad[0]])} instead of {int(want[bad[0]])}")
                except (DeviceError, PermnetError) as exc:
                    r.error, r.status = str(exc), "unknown"
                failed |= not r.verified
                bar.update()
        if not failed:
            return TransactionReport(reports, seconds=time.monotonic() - t0)
        # 5. roll every device back to its step-1 state, on fresh sessions
        futs = {}
        for k, t in enumerate(targets):
            futs[pool.submit(_restore, t, old[k], settle_s)] = k
        for fut, k in futs.items():
            r = reports[k]
            r.verified = False
            try:
                r.status = "old" if fut.result() else "unknown"
            except (DeviceError, PermnetError) as exc:
                r.status = "unknown"
                r.error = (r.error + "; " if r.error else "") + f"roll-back failed: {exc}"
    return TransactionReport(reports, rolled_back=True, seconds=time.monotonic() - t0)


def _restore(target: Target, old: np.ndarray, settle_s: float, attempts: int = 3) -> bool:
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
            _, back = _drive(back_to, old, now, settle_s)
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
