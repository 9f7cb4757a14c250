"""Test fixture: a protocol front end (``serve_tl1``, ``serve_netconf``, ...)
over a :class:`SwitchCore`, running in a background thread with its own
event loop, on 127.0.0.1 and a free port, with a bounded shutdown.

    with Emulator(serve_tl1, SwitchCore(16), credentials=CREDS) as emu:
        with Tl1Driver(emu.address, credentials=CREDS) as d: ...
"""

from __future__ import annotations

import threading

from permnet.ocs.driver import Credentials
from permnet.ocs.emulator import Emulator as _LibraryEmulator

CREDS = Credentials("operator", "s3cr3t-Pa55;:\"w0rd-é")   # punctuation and non-ASCII on purpose (quoting)
WRONG = Credentials("operator", "not-the-password-4711")


class Emulator(_LibraryEmulator):
    """:class:`permnet.ocs.emulator.Emulator` named by its ``serve_*``
    function (``Emulator(serve_tl1, core, credentials=...)``)."""

    def __init__(self, serve, core, **opts):
        super().__init__(serve.__name__.removeprefix("serve_"), core, **opts)


class FakeServer:
    """A misbehaving device: a raw TCP server (thread) that answers every
    received chunk with ``answer(data: bytes) -> bytes | None`` (``None``
    closes the connection)."""

    def __init__(self, answer):
        import socket
        self.answer = answer
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _run(self) -> None:
        import socket
        while not self.done.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            conn.settimeout(0.2)
            with conn:
                while not self.done.is_set():
                    try:
                        data = conn.recv(65536)
                    except socket.timeout:
                        continue
                    except OSError:
                        break
                    if not data:
                        break
                    out = self.answer(data)
                    if out is None:
                        break
                    try:
                        conn.sendall(out)
                    except OSError:
                        break

    def __enter__(self) -> "FakeServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join(5)
        self.sock.close()
