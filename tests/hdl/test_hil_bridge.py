"""Amaranth simulation of the HIL bridge and UART PHY against the byte-level
model of tests/hil_helpers.py (CRC computed bit by bit there)."""

import pytest
from amaranth.sim import Simulator

import hil_helpers as H
from hil_helpers import run_stream
from permnet.gen.hil.protocol import crc8
from permnet.hdl.hil.top import HilTop


def test_crc8_matches_bitwise_model():
    import random

    rng = random.Random(1)
    for n in range(40):
        data = bytes(rng.randrange(256) for _ in range(n))
        assert crc8(data) == H.crc8_bitwise(data)
    assert H.crc8_bitwise(b"123456789") == 0xF4     # CRC-8/SMBUS check value


@pytest.fixture(scope="module")
def nh_top():
    return lambda idle_timeout=64, **kw: HilTop("nexthop", M=18, S=3, idle_timeout=idle_timeout, **kw)


def test_plain_uartbone_write_read(nh_top):
    dut = nh_top()
    got = run_stream(dut, [H.plain_read(H.SYS_ID, 1), H.plain_write(H.SYS_SCRATCH, [0xDEADBEEF]),
                           H.plain_read(H.SYS_SCRATCH, 1), H.plain_read(H.SYS_ID, 4),
                           H.plain_write(H.SYS_SCRATCH, [1, 2, 0x12345678], fixed=True),
                           H.plain_read(H.SYS_SCRATCH, 2, fixed=True), H.plain_read(H.SYS_SCRATCH, 0)])
    assert H.words_of(got[0]) == [H.ID_VALUE]
    assert got[1] == b""                               # UARTBone writes have no answer
    assert H.words_of(got[2]) == [0xDEADBEEF]
    words = H.words_of(got[3])
    assert words[0] == H.ID_VALUE and words[1] >> 16 == 1 and words[2] >> 2 & 1 and words[3] == 0xDEADBEEF
    assert got[4] == b""
    assert H.words_of(got[5]) == [0x12345678, 0x12345678]   # fixed burst: the last write wins
    assert got[6] == b""


def test_framed_ok_crc_error_duplicate_and_length(nh_top):
    dut = nh_top()
    bad = bytearray(H.framed_write(7, H.SYS_SCRATCH, [0xAAAA5555]))
    bad[-2] ^= 0x10                                   # corrupt a data byte: the CRC no longer matches
    toolong = bytes([0x82, 9, 40]) + H.SYS_ID.to_bytes(4, "big")
    toolong += bytes([H.crc8_bitwise(toolong)])
    got = run_stream(dut, [H.framed_write(1, H.SYS_SCRATCH, [0x11]), H.framed_read(2, H.SYS_SCRATCH, 1),
                           bytes(bad), H.framed_read(3, H.SYS_SCRATCH, 2),
                           H.framed_write(4, H.SYS_SCRATCH, [0x22]), H.framed_write(4, H.SYS_SCRATCH, [0x33]),
                           H.framed_read(5, H.SYS_SCRATCH, 1), toolong, H.framed_read(6, H.SYS_ERRORS, 1)])
    r = [H.parse_response(g) for g in got]
    assert r[0] == (0x00, 1, [])
    assert r[1] == (0x00, 2, [0x11])
    assert r[2][0] == 0xE1 and r[2][2] == []          # CRC error, nothing written
    assert r[3][:2] == (0x00, 3) and r[3][2][0] == 0x11 and r[3][2][1] > 0   # scratch unchanged; then cycles
    assert r[4] == (0x00, 4, [])
    assert r[5] == (0x01, 4, [])                      # same sequence number: acknowledged, not executed
    assert r[6] == (0x00, 5, [0x22])
    assert r[7][0] == 0xE2
    assert r[8][2][0] & 0xFFFF == 1                   # one CRC error counted


def test_a_read_ends_duplicate_detection(nh_top):
    """After an answered read the same sequence number is a new write."""
    dut = nh_top()
    got = run_stream(dut, [H.framed_write(9, H.SYS_SCRATCH, [0x1]), H.framed_read(10, H.SYS_ID, 1),
                           H.framed_write(9, H.SYS_SCRATCH, [0x2]), H.framed_read(11, H.SYS_SCRATCH, 1)])
    r = [H.parse_response(g) for g in got]
    assert r[2] == (0x00, 9, []) and r[3][2] == [0x2]


def test_partial_frame_dropped_after_idle_timeout(nh_top):
    dut = nh_top()
    partial = H.framed_read(1, H.SYS_ID, 1)[:4]
    got = run_stream(dut, [partial, H.framed_read(2, H.SYS_ERRORS, 1)], quiet_cycles=200)
    assert got[0] == b""
    status, seq, words = H.parse_response(got[1])
    assert (status, seq) == (0, 2) and words[0] >> 16 == 1      # one time-out counted


def uart_bits(byte, divisor):
    """Line levels of one 8N1 character, one entry per clock cycle."""
    levels = [0] + [(byte >> i) & 1 for i in range(8)] + [1]
    return [v for v in levels for _ in range(divisor)]


@pytest.mark.parametrize("divisor", [4, 7])
def test_through_uart_phy(nh_top, divisor):
    dut = nh_top(uart_divisor=divisor, idle_timeout=40 * divisor)
    request = H.framed_write(3, H.SYS_SCRATCH, [0xC0FFEE42]) + H.framed_read(4, H.SYS_SCRATCH, 1)
    line = [1] * 5
    for b in request:
        line += uart_bits(b, divisor) + [1] * 2       # a little idle time between characters
    received = bytearray()

    async def bench(ctx):
        samples = []
        for v in line + [1] * (divisor * 10 * 16):
            ctx.set(dut.uart_rx, v)
            _, _, tx = await ctx.tick().sample(dut.uart_tx)
            samples.append(tx)
        # decode the transmitted line: start edge, then sample at the middle of each bit
        i = 0
        while i < len(samples):
            if samples[i] == 0:
                mid = i + divisor // 2
                bits = [samples[mid + divisor * (k + 1)] for k in range(8)]
                assert samples[mid + 9 * divisor] == 1, "stop bit"
                received.append(sum(b << k for k, b in enumerate(bits)))
                i = mid + 9 * divisor
            i += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    first = bytes(received[:4])
    assert H.parse_response(first) == (0, 3, [])
    assert H.parse_response(bytes(received[4:])) == (0, 4, [0xC0FFEE42])
