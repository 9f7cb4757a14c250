"""The driver's framing on ``loop://`` (pyserial's loopback: the driver
reads its own request back, which is never a valid answer) and against a
silent TCP peer: clear errors, bounded time, nothing hangs."""

import socket
import time

import pytest

from permnet.gen.errors import PermnetError
from permnet.hil import HilError, HilFramingError, HilTimeout, Link


def test_framed_request_echoed_is_a_framing_error():
    link = Link("loop://", timeout=0.2, framed=True, retries=2, resync=0.01)
    t0 = time.monotonic()
    with pytest.raises(HilFramingError) as exc:
        link.read(0x0003)
    assert "gave up after 3 attempts" in str(exc.value)
    assert link.stats["retries"] == 2
    assert time.monotonic() - t0 < 3
    assert isinstance(exc.value, PermnetError)


def test_detect_on_loop_is_not_a_bridge():
    with pytest.raises(HilError, match="not a permnet HIL bridge|time-out"):
        Link("loop://", timeout=0.2, retries=0, resync=0.01)


def test_silent_peer_times_out():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    try:
        link = Link(f"socket://127.0.0.1:{port}", timeout=0.15, framed=True, retries=1, resync=0.01)
        t0 = time.monotonic()
        with pytest.raises(HilTimeout, match="time-out after 0.15 s"):
            link.write(0x0003, [1])
        assert time.monotonic() - t0 < 2
        link.close()
    finally:
        srv.close()


def test_unreachable_url_is_a_clear_error():
    with pytest.raises(HilError, match="cannot open HIL link"):
        Link("socket://127.0.0.1:1", timeout=0.2)
