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

import numpy as np

from permnet.gen.errors import PermnetError
from permnet.ocs.driver import Credentials

__all__ = ["ServerHandle", "check_login", "emulator_credentials", "to_plane", "to_device", "plane_from_labels"]


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
