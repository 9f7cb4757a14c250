"""The driver interface every OCS protocol implements.

A driver holds one management session to one switch.  It speaks the
device's own numbering on the wire and the shared 0-based *plane* model
(``row[i]`` = egress of ingress ``i``, ``-1`` unconnected) to its caller.

Contract (tested per protocol against its emulator):

* ``read()`` returns the live state as a plane of length ``size()``;
* ``connect(pairs)`` adds cross-connects ``(ingress, egress)``; each
  ingress and each egress must be free (disconnect first);
* ``disconnect(ingresses)`` removes the cross-connects of those ingresses;
* every method raises :class:`DeviceError` (one line, naming the device,
  never the credentials) on a refused connection, a time-out, a denied
  command or a malformed reply, and never blocks longer than ``timeout``
  seconds per exchange.

Concrete drivers register themselves in :data:`DRIVERS` by protocol name.
"""

from __future__ import annotations

import os
import stat
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from permnet.gen.errors import PermnetError

__all__ = ["DeviceError", "Credentials", "Driver", "DRIVERS", "register", "open_driver", "MAX_TIMEOUT_S"]

#: the longest wait for one exchange with a device (``--timeout``; an hour is far beyond any
#: switch's answer, and a larger one overflowed the socket and clock arithmetic)
MAX_TIMEOUT_S = 3600.0


class DeviceError(PermnetError):
    """A device did not do what was asked; the message names the device."""


@dataclass(frozen=True)
class Credentials:
    """User and password for TL1/NETCONF, and which SSH host keys to trust
    (NETCONF): ``known_hosts`` a known_hosts file (default
    ``$PERMNET_KNOWN_HOSTS``, else ``~/.ssh/known_hosts``), ``trust_new``
    records a key not yet in it (trust on first use).  ``repr`` never shows
    the password."""

    user: str
    password: str
    known_hosts: str | None = None
    trust_new: bool = False
    source: str = ""                 # where user and password came from (for messages)

    def __repr__(self) -> str:
        return f"Credentials(user={self.user!r}, password=***)"

    __str__ = __repr__

    @classmethod
    def load(cls, path: str | os.PathLike | None = None) -> "Credentials | None":
        """From a file of two lines (user, password) that only its owner may
        read, else from ``PERMNET_OCS_USER``/``PERMNET_OCS_PASSWORD``; a file
        given while the environment also holds a password is refused (which
        one was meant cannot be known)."""
        user, pw = os.environ.get("PERMNET_OCS_USER"), os.environ.get("PERMNET_OCS_PASSWORD")
        if path is None:
            if user is not None and pw is not None:
                return cls(user, pw, source="environment")
            return None
        if pw is not None:
            raise PermnetError(f"both --credentials {path} and PERMNET_OCS_PASSWORD are set; unset one "
                               "(which account was meant is ambiguous)")
        p = Path(path)
        try:
            mode = p.stat().st_mode
        except OSError as exc:
            raise PermnetError(f"credentials file {p}: {exc.strerror}") from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise PermnetError(f"credentials file {p} is readable by others; chmod 600 it")
        try:
            lines = p.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise PermnetError(f"credentials file {p}: unreadable ({type(exc).__name__})") from None
        if len(lines) < 2:
            raise PermnetError(f"credentials file {p}: expected two lines, user then password")
        return cls(lines[0].strip(), lines[1].rstrip("\n"), source=str(p))


class Driver(ABC):
    """One management session to one switch (use as a context manager)."""

    protocol: str = ""
    default_port: int = 0

    def __init__(self, address: str, *, timeout: float = 5.0,
                 credentials: Credentials | None = None, name: str | None = None):
        host, _, port = address.rpartition(":")
        if not host:
            host, port = address, str(self.default_port)
        try:
            self.host, self.port = host, int(port)
        except ValueError:
            raise PermnetError(f"device address {address!r}: port is not a number") from None
        self.timeout = float(timeout)
        self.credentials = credentials
        self.name = name or f"{self.host}:{self.port}"

    # --- session
    @abstractmethod
    def open(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc):
        self.close()

    # --- state
    @abstractmethod
    def size(self) -> int:
        """N, the number of ingress (= egress) ports of the device."""

    @abstractmethod
    def read(self) -> np.ndarray:
        """The live state as a plane of length ``size()``."""

    @abstractmethod
    def connect(self, pairs: list[tuple[int, int]]) -> None:
        """Add cross-connects (0-based ingress, 0-based egress)."""

    @abstractmethod
    def disconnect(self, ingresses: list[int]) -> None:
        """Remove the cross-connects of these 0-based ingress ports."""

    def fail(self, what: str) -> DeviceError:
        return DeviceError(f"{self.name} ({self.protocol}): {what}")

    def settling(self) -> list[int]:
        """0-based ingresses whose new cross-connect has not settled yet
        (drivers that cannot tell return ``[]``)."""
        return []

    def wait_settled(self, seconds: float, poll: float = 0.05) -> None:
        """Wait until :meth:`settling` is empty, at most ``seconds``; a
        device still settling then is a :class:`DeviceError` (a read-back
        taken now would not describe light that flows)."""
        deadline = time.monotonic() + max(0.0, seconds)
        for _ in range(1_000_000):
            left = self.settling()
            if not left:
                return
            if time.monotonic() >= deadline:
                raise self.fail(f"{len(left)} cross-connect(s) still settling after {seconds:.1f} s "
                                f"(first ingress {left[0]}); raise --settle-s")
            time.sleep(min(poll, max(0.0, deadline - time.monotonic())))


DRIVERS: dict[str, type[Driver]] = {}


def register(cls: type[Driver]) -> type[Driver]:
    """Class decorator: make a driver available by its protocol name."""
    DRIVERS[cls.protocol] = cls
    return cls


def open_driver(protocol: str, address: str, **kw) -> Driver:
    """A driver for ``protocol`` (imports the protocol modules on first use)."""
    from permnet.ocs import protocols  # noqa: F401  (registers every driver)
    if protocol not in DRIVERS:
        raise PermnetError(f"unknown protocol {protocol!r}; choose from {', '.join(sorted(DRIVERS))}")
    return DRIVERS[protocol](address, **kw)
