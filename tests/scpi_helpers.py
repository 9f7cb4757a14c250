"""Shared helpers for the SCPI driver tests: a raw SCPI client and emulators
(the fake misbehaving server is :class:`ocs_helpers.FakeServer`)."""

from __future__ import annotations

import socket


class RawScpi:
    """A bare line client, to check the wire protocol without the driver."""

    def __init__(self, address: str, timeout: float = 3.0):
        host, _, port = address.rpartition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.buf = b""

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")

    def readline(self) -> bytes:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line + b"\n"

    def query(self, line: str) -> str:
        self.send(line)
        raw = self.readline()
        assert raw.endswith(b"\r\n"), raw
        return raw[:-2].decode()

    def close(self):
        self.sock.close()


class _Group:
    def __init__(self, emus):
        self.emus = emus

    @property
    def addresses(self):
        return [e.address for e in self.emus]

    @property
    def cores(self):
        return [e.core for e in self.emus]


def emulate(ports: int = 16, protocol: str = "scpi", count: int = 1, *, faults=None, state=None, settle_s=0.0,
            **opts):
    """``with emulate(8, faults=["refuse"]) as emu``: ``count`` emulators
    (``emu.addresses``, ``emu.cores``); ``faults``/``state`` may be lists, one per emulator."""
    from contextlib import contextmanager

    from permnet.ocs.emulator import Emulator
    from permnet.ocs.switchcore import SwitchCore

    def pick(v, j):
        return v[j] if isinstance(v, list) else v

    @contextmanager
    def run():
        emus = [Emulator(protocol, SwitchCore(ports, settle_s=settle_s, state=pick(state, j),
                                              faults=pick(faults, j)), **opts).start() for j in range(count)]
        try:
            yield _Group(emus)
        finally:
            for e in emus:
                e.stop()
    return run()
