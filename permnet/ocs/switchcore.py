"""The state of an emulated optical circuit switch, shared by every protocol
front end (SCPI, TL1, NETCONF) and usable directly as a test fixture.

Semantics follow a real N x N OCS:

* one cross-connect per ingress and per egress (a second one on either is
  refused, nothing changes);
* ``only(pairs)`` replaces the whole state, ``clear()`` disconnects all;
* a new cross-connect *settles*: for ``settle_s`` seconds after it was made
  it is reported with status ``tuning`` and is not yet ``established``;
* the state survives a restart of the management plane: with a ``state``
  file every change is written to it (atomically) and read back on start.

Faults (``--fault SPEC``, several joined by ``+``) are decided here and acted
out by the front ends:

* ``refuse``      every new management connection is closed at once;
* ``drop:N``      the session is dropped when the N-th set command arrives
                  (counted over the emulator's life, 1-based), before it acts;
* ``deny:K``      the K-th set command is denied with an error;
* ``misapply``    the first pair of a connect silently lands on another egress
                  (a free one, else the second pair's: the two swap);
* ``freeze:T``    the first set command freezes the whole switch for T seconds:
                  that command and every command of every session wait
                  (:meth:`Faults.thaw`) until the switch thaws, then act.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from permnet.gen.errors import PermnetError, require

__all__ = ["Faults", "SwitchCore", "SwitchRefused"]


class SwitchRefused(Exception):
    """A command the switch refuses (the front end turns it into its protocol's error)."""


@dataclass
class Faults:
    refuse: bool = False
    drop_at: int | None = None
    deny_at: int | None = None
    misapply: bool = False
    freeze_s: float = 0.0
    _sets: int = field(default=0, repr=False)
    _misapplied: bool = field(default=False, repr=False)
    _frozen: bool = field(default=False, repr=False)
    _frozen_until: float = field(default=0.0, repr=False)

    @classmethod
    def parse(cls, spec: str | None) -> "Faults":
        f = cls()
        if spec is None:
            return f
        if not all(spec.split("+")):
            raise PermnetError(f"--fault {spec!r}: an empty fault (nothing before, between or after a '+'); "
                               "expected refuse, drop:N, deny:K, misapply or freeze:T, joined with +")
        for part in spec.split("+"):
            kind, _, arg = part.partition(":")
            try:
                if kind == "refuse" and not arg:
                    f.refuse = True
                elif kind == "drop":
                    f.drop_at = int(arg)
                elif kind == "deny":
                    f.deny_at = int(arg)
                elif kind == "misapply" and not arg:
                    f.misapply = True
                elif kind == "freeze":
                    f.freeze_s = float(arg)
                else:
                    raise ValueError
            except ValueError:
                raise PermnetError(f"fault {part!r}: expected refuse, drop:N, deny:K, misapply or freeze:T") \
                    from None
        require(f.drop_at is None or f.drop_at >= 1, "fault drop:N needs N >= 1")
        require(f.deny_at is None or f.deny_at >= 1, "fault deny:K needs K >= 1")
        require(0 <= f.freeze_s <= 3600, "fault freeze:T needs 0 <= T <= 3600 seconds")
        return f

    def on_set(self) -> str | None:
        """Called by a front end before each set command: ``'drop'``,
        ``'deny'``, ``'freeze'`` or ``None`` (go ahead)."""
        self._sets += 1
        if self.drop_at == self._sets:
            return "drop"
        if self.deny_at == self._sets:
            return "deny"
        if self.freeze_s and not self._frozen:
            self._frozen = True
            self._frozen_until = time.monotonic() + self.freeze_s
            return "freeze"
        return None

    async def before_set(self) -> str | None:
        """:meth:`on_set` with a freeze waited out: ``'drop'`` (end the session
        without a reply), ``'deny'`` (refuse the command) or ``None`` (go ahead)."""
        fault = self.on_set()
        if fault == "freeze":
            await self.thaw()
            return None
        return fault

    async def thaw(self) -> None:
        """Wait (front ends, before every command) while the switch is frozen."""
        import asyncio
        while (left := self._frozen_until - time.monotonic()) > 0:
            await asyncio.sleep(left)


class SwitchCore:
    """An N x N switch: ``row[i]`` = egress of ingress i (0-based) or -1."""

    def __init__(self, ports: int, *, settle_s: float = 0.0, state: str | Path | None = None,
                 faults: Faults | str | None = None):
        require(2 <= ports <= 4096, f"ports must be in 2..4096, got {ports}")
        self.ports = int(ports)
        self.settle_s = float(settle_s)
        self.state_path = Path(state) if state else None
        self.faults = faults if isinstance(faults, Faults) else Faults.parse(faults)
        self.lock = threading.RLock()
        self.row = np.full(self.ports, -1, np.int64)
        self.made = np.zeros(self.ports)          # time.monotonic() when each ingress was connected
        if self.state_path and self.state_path.exists():
            self._load()

    # ------------------------------------------------------------ persistence
    def _load(self) -> None:
        try:
            cells = json.loads(self.state_path.read_text())["row"]
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            raise PermnetError(f"emulator state {self.state_path}: unreadable") from None
        require(not isinstance(cells, list) or len(cells) == self.ports,
                f"emulator state {self.state_path}: {len(cells)} ports, not {self.ports}")
        # np.asarray would read 0.7 as 0 and true as 1, and fail inside on 1e400
        require(isinstance(cells, list) and all(type(x) is int and -2**62 < x < 2**62 for x in cells),
                f"emulator state {self.state_path}: row must be a list of whole port numbers")
        row = np.asarray(cells, np.int64)
        require(row.ndim == 1 and len(row) == self.ports,
                f"emulator state {self.state_path}: {row.size} ports, not {self.ports}")
        where = f"emulator state {self.state_path}"
        bad = np.flatnonzero((row < -1) | (row >= self.ports))
        if len(bad):
            raise PermnetError(f"{where}: ingress {int(bad[0])} connected to egress {int(row[bad[0]])}, "
                               f"not in -1..{self.ports - 1}")
        vals, counts = np.unique(row[row >= 0], return_counts=True)
        if (counts > 1).any():
            twice = int(vals[counts > 1][0])
            raise PermnetError(f"{where}: not a (partial) permutation: egress {twice} is held by ingresses "
                               f"{', '.join(str(int(i)) for i in np.flatnonzero(row == twice)[:2])}")
        self.row = row

    def _save(self) -> None:
        if self.state_path is None:
            return
        from permnet.fileio import atomic_write
        atomic_write(self.state_path, json.dumps({"ports": self.ports, "row": self.row.tolist()}) + "\n")

    # ------------------------------------------------------------------ reads
    def snapshot(self) -> np.ndarray:
        with self.lock:
            return self.row.copy()

    def status(self, ingress: int) -> str:
        """``established``, ``tuning`` (settling) or ``none``."""
        with self.lock:
            if self.row[ingress] < 0:
                return "none"
            return "tuning" if time.monotonic() - self.made[ingress] < self.settle_s else "established"

    # ----------------------------------------------------------------- writes
    def _check_port(self, p: int, what: str) -> None:
        if not 0 <= p < self.ports:
            raise SwitchRefused(f"{what} port {p} out of range")

    def connect(self, pairs) -> None:
        """Add cross-connects; all-or-nothing."""
        with self.lock:
            row = self.row.copy()
            used = set(int(e) for e in row[row >= 0])
            for i, e in pairs:
                self._check_port(i, "ingress")
                self._check_port(e, "egress")
                if row[i] >= 0:
                    raise SwitchRefused(f"ingress {i} already connected")
                if e in used:
                    raise SwitchRefused(f"egress {e} already connected")
                row[i] = e
                used.add(e)
            if self.faults.misapply and not self.faults._misapplied and pairs:
                # the first pair lands on a free egress, or (none free) swaps egresses with the second
                i, e = pairs[0]
                free = sorted(set(range(self.ports)) - used)
                if free:
                    row[i] = free[0]
                    self.faults._misapplied = True
                elif len(pairs) >= 2:
                    j = pairs[1][0]
                    row[i], row[j] = row[j], row[i]
                    self.faults._misapplied = True
            now = time.monotonic()
            for i, _ in pairs:
                self.made[i] = now
            self.row = row
            self._save()

    def disconnect(self, ingresses) -> None:
        with self.lock:
            for i in ingresses:
                self._check_port(i, "ingress")
            self.row[list(ingresses)] = -1
            self._save()

    def only(self, pairs) -> None:
        """Replace the whole state by ``pairs``."""
        with self.lock:
            old = self.row.copy()
            self.row[:] = -1
            try:
                self.connect(pairs)
            except SwitchRefused:
                self.row = old
                raise

    def clear(self) -> None:
        with self.lock:
            self.row[:] = -1
            self._save()
