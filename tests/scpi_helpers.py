"""Shared helpers for the OCS driver tests: a raw SCPI client and a fake misbehaving server."""

from __future__ import annotations

import socket
import threading


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


class FakeServer:
    """Answers each query from ``replies`` (command head -> raw bytes, or None to hang up)."""

    def __init__(self, replies: dict):
        self.replies = replies
        self.srv = socket.create_server(("127.0.0.1", 0))
        self.srv.settimeout(5)
        self.address = f"127.0.0.1:{self.srv.getsockname()[1]}"
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            conn, _ = self.srv.accept()
        except OSError:
            return
        conn.settimeout(5)
        buf = b""
        try:
            for _ in range(100):
                while b"\n" not in buf:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    buf += chunk
                line, _, buf = buf.partition(b"\n")
                head = line.decode().strip().split(" ")[0].lower()
                reply = self.replies.get(head, b"")
                if reply is None:
                    return
                conn.sendall(reply)
                if reply and not reply.endswith(b"\n"):
                    return  # a reply cut short: hang up
        except OSError:
            return
        finally:
            conn.close()

    def close(self):
        self.srv.close()
        self.thread.join(5)


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
