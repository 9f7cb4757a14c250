"""Loopback ports for tests that start servers of their own (Dask schedulers, litex_server):
one that nothing listens on, and the wait until a server listens on one."""

import socket
import time


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (bound, never listened, closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, t_end: float, what: str, pause: float = 0.05) -> None:
    """Return once something accepts connections on ``port`` of 127.0.0.1; fail the test when it
    has not by ``t_end`` (``time.monotonic()``), naming ``what``."""
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return
        except OSError:
            assert time.monotonic() < t_end, f"{what} never listened on port {port}"
            time.sleep(pause)
