"""Pieces shared by the asyncio protocol front ends (TL1, NETCONF) of the
emulated switch: the handle a ``serve_*`` coroutine returns, the emulator's
login check and the Polatis port numbering.

Polatis numbering (used on the wire by TL1 and NETCONF alike): an N x N
switch has ingress ports ``1..N`` and egress ports ``N+1..2N``; the shared
plane model is 0-based, so device ingress ``p`` is plane ingress ``p-1`` and
device egress ``q`` is plane egress ``q-N-1``.
"""

from __future__ import annotations

import asyncio
import hmac
import time

import numpy as np

from permnet.gen.errors import PermnetError
from permnet.ocs.driver import Credentials

__all__ = ["ServerHandle", "LoginGuard", "check_login", "emulator_credentials", "to_plane", "to_device", "plane_from_labels"]


class ServerHandle:
    """A running front end: ``port`` is the bound TCP port; ``close()`` stops
    listening *and* drops every open session (a restart of the management
    plane), ``wait_closed()`` waits for that, bounded by ``timeout``."""

    def __init__(self, server, port: int, host: str, protocol: str):
        self.server = server
        self.port = int(port)
        self.host = host
        self.protocol = protocol
        self.sessions: set = set()          # objects with .close()

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def close(self) -> None:
        self.server.close()
        for s in list(self.sessions):
            try:
                s.close()
            except Exception:  # noqa: BLE001  (a session already gone)
                pass

    async def wait_closed(self, timeout: float = 5.0) -> None:
        try:
            await asyncio.wait_for(self.server.wait_closed(), timeout)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001  bounded shutdown
            pass

    def __repr__(self) -> str:
        return f"<{self.protocol} emulator on {self.address}>"


def emulator_credentials(credentials: Credentials | None, protocol: str) -> Credentials:
    """The account the emulator accepts: given, else from the environment."""
    creds = credentials or Credentials.load()
    if creds is None:
        raise PermnetError(f"the {protocol} emulator needs an account: set PERMNET_OCS_USER and "
                           "PERMNET_OCS_PASSWORD")
    return creds


def check_login(expected: Credentials, user: str, password: str) -> bool:
    """Constant-time comparison of both fields (no early exit on the user)."""
    ok_user = hmac.compare_digest(user.encode("utf-8", "replace"), expected.user.encode("utf-8", "replace"))
    ok_pw = hmac.compare_digest(password.encode("utf-8", "replace"),
                                expected.password.encode("utf-8", "replace"))
    return ok_user and ok_pw


class LoginGuard:
    """The emulator's defence against password guessing, as real switches
    have: after ``max_failures`` failed logins in a row from one peer
    address, every login from it fails (the right password too) until
    ``lockout_s`` seconds have passed since its last failure; a success
    resets the count.  Front ends also answer each failure ``delay_s`` late."""

    delay_s = 0.2

    def __init__(self, credentials: Credentials, max_failures: int = 3, lockout_s: float = 30.0):
        if max_failures < 1 or lockout_s < 0:
            raise PermnetError("max_failures must be >= 1 and lockout_s >= 0")
        self.creds, self.max_failures, self.lockout_s = credentials, int(max_failures), float(lockout_s)
        self.failures: dict[str, tuple[int, float]] = {}   # peer -> (failed logins in a row, last at)

    def locked_out(self, peer: str) -> bool:
        n, last = self.failures.get(peer, (0, 0.0))
        return n >= self.max_failures and time.monotonic() - last < self.lockout_s

    def login(self, peer: str, user: str, password: str) -> bool:
        n, _ = self.failures.get(peer, (0, 0.0))
        if self.locked_out(peer):
            self.failures[peer] = (n + 1, time.monotonic())
            return False
        if check_login(self.creds, user, password):
            self.failures.pop(peer, None)
            return True
        self.failures[peer] = ((0 if n >= self.max_failures else n) + 1, time.monotonic())
        return False


def peer_of(transport_or_conn) -> str:
    """The peer's address (for :class:`LoginGuard`), ``?`` if unknown."""
    try:
        peer = transport_or_conn.get_extra_info("peername")
    except Exception:  # noqa: BLE001  a transport already gone
        peer = None
    return str(peer[0]) if peer else "?"


def to_plane(ports: int, ingress: int, egress: int | None = None) -> tuple[int, int | None]:
    """Device (1-based ingress, N+1-based egress) -> 0-based plane ports;
    ``ValueError`` when out of range."""
    if not 1 <= ingress <= ports:
        raise ValueError(f"ingress port {ingress} not in 1..{ports}")
    if egress is None:
        return ingress - 1, None
    if not ports + 1 <= egress <= 2 * ports:
        raise ValueError(f"egress port {egress} not in {ports + 1}..{2 * ports}")
    return ingress - 1, egress - ports - 1


def plane_from_labels(ports: int, pairs) -> np.ndarray:
    """The plane of (device ingress, device egress) pairs read back from a
    switch; ``ValueError`` for a port out of range, an ingress or an egress
    listed twice."""
    row = np.full(ports, -1, np.int64)
    for ingress, egress in pairs:
        i, e = to_plane(ports, ingress, egress)
        if row[i] >= 0:
            raise ValueError(f"ingress {ingress} listed twice")
        row[i] = e
    used = row[row >= 0]
    if len(np.unique(used)) != len(used):
        raise ValueError("an egress port listed twice")
    return row


def to_device(ports: int, ingress: int, egress: int) -> tuple[int, int]:
    """0-based plane ports -> device numbering."""
    return ingress + 1, egress + ports + 1
