"""Faults injected in the model's TCP bridge: a corrupted byte (bad CRC,
answered with an error), a dropped byte and a stalled link (time-outs, the
bridge drops the partial frame): the driver detects each, retries within
its bound, and the result is right."""

import pytest

from permnet.hdl.hil.verilator import SimServer
from permnet.hil import HilTimeout, Link

WRITE = 0x0003   # sys scratch


def run_with(model, fault, retries=3):
    with SimServer(model, faults=[fault], max_seconds=60) as srv:
        with Link(srv.url, timeout=0.3, framed=True, retries=retries, resync=0.12) as link:
            link.write(WRITE, [0x1234ABCD])            # host bytes 0..11: the fault hits this frame
            value = link.read(WRITE)[0]
            stats = dict(link.stats)
            counters = link.counters()
    return value, stats, counters


def test_corrupted_byte_is_caught_by_crc_and_retried(hil_model):
    value, stats, counters = run_with(hil_model, "corrupt:6")
    assert value == 0x1234ABCD
    assert stats["retries"] == 1 and stats["crc_errors"] == 1
    assert counters.bridge_crc_errors == 1


def test_dropped_byte_times_out_and_is_retried(hil_model):
    value, stats, counters = run_with(hil_model, "drop:9")
    assert value == 0x1234ABCD
    assert stats["retries"] == 1 and stats["timeouts"] == 1
    assert counters.bridge_timeouts == 1


def test_stalled_link_recovers_within_the_retry_bound(hil_model):
    value, stats, _ = run_with(hil_model, "stall:4:500")
    assert value == 0x1234ABCD
    assert 1 <= stats["retries"] <= 3


def test_stall_longer_than_the_retries_is_reported(hil_model):
    with pytest.raises(HilTimeout, match="gave up after 2 attempts"):
        run_with(hil_model, "stall:0:5000", retries=1)
