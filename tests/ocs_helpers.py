"""Test fixture: a protocol front end (``serve_tl1``, ``serve_netconf``, ...)
over a :class:`SwitchCore`, running in a background thread with its own
event loop, on 127.0.0.1 and a free port, with a bounded shutdown.

    with Emulator(serve_tl1, SwitchCore(16), credentials=CREDS) as emu:
        with Tl1Driver(emu.address, credentials=CREDS) as d: ...
"""

from __future__ import annotations

import os
import tempfile
import threading

from permnet.ocs.driver import Credentials
from permnet.ocs.emulator import Emulator as _LibraryEmulator

# every NETCONF emulator of a test process adds its host key here; the drivers pin it
KNOWN_HOSTS = os.path.join(tempfile.mkdtemp(prefix="permnet-known-hosts-"), "known_hosts")
CREDS = Credentials("operator", "s3cr3t-Pa55;:\"w0rd-é", known_hosts=KNOWN_HOSTS)   # punctuation, non-ASCII
WRONG = Credentials("operator", "not-the-password-4711", known_hosts=KNOWN_HOSTS)


class Emulator(_LibraryEmulator):
    """:class:`permnet.ocs.emulator.Emulator` named by its ``serve_*``
    function (``Emulator(serve_tl1, core, credentials=...)``)."""

    def __init__(self, serve, core, **opts):
        protocol = serve.__name__.removeprefix("serve_")
        if protocol == "netconf":
            opts.setdefault("known_hosts", KNOWN_HOSTS)
        super().__init__(protocol, core, **opts)


class HangUp(bytes):
    """A reply that is sent, then the connection closed (a reply cut short)."""


class FakeServer:
    """A misbehaving device: a raw TCP server (thread) that answers every
    received chunk with ``answer(data: bytes) -> bytes | None`` (``None``
    closes the connection; a :class:`HangUp` reply is sent, then the
    connection closed).  With ``lines=True`` ``answer`` gets one line at a
    time (without its newline).  Serves one connection after another until
    closed (``with FakeServer(...) as fake`` or ``start()`` / ``close()``)."""

    def __init__(self, answer, *, lines: bool = False):
        import socket
        self.answer = answer
        self.lines = lines
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _replies(self, buf: bytes):
        """(replies to send, rest of the buffer) for the received ``buf``."""
        if not self.lines:
            return [self.answer(buf)], b""
        out = []
        while b"\n" in buf:
            line, _, buf = buf.partition(b"\n")
            out.append(self.answer(line))
            if out[-1] is None or isinstance(out[-1], HangUp):
                break
        return out, buf

    def _serve(self, conn) -> None:
        import socket
        buf = b""
        while not self.done.is_set():
            try:
                data = conn.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if not data:
                return
            replies, buf = self._replies(buf + data)
            for out in replies:
                if out is None:
                    return
                try:
                    conn.sendall(out)
                except OSError:
                    return
                if isinstance(out, HangUp):
                    return

    def _run(self) -> None:
        import socket
        while not self.done.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn.settimeout(0.2)
            with conn:
                self._serve(conn)

    def start(self) -> "FakeServer":
        self.thread.start()
        return self

    def close(self) -> None:
        self.done.set()
        self.thread.join(5)
        self.sock.close()

    def __enter__(self) -> "FakeServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()


def scpi_replies(replies: dict):
    """A line ``answer`` for :class:`FakeServer`: the reply to a query is
    ``replies[command head]`` (raw bytes; missing or ``b""``: no answer;
    ``None``: hang up; bytes not ending in a newline: a reply cut short,
    then hang up)."""
    def answer(line: bytes):
        head = line.decode().strip().split(" ")[0].lower()
        reply = replies.get(head, b"")
        if reply and not reply.endswith(b"\n"):
            return HangUp(reply)
        return reply
    return answer
