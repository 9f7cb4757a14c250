"""Byte-level model of the HIL protocol written from its specification
(:mod:`permnet.gen.hil.protocol` docstring), independent of the code under
test: a bitwise CRC-8, frame builders and parsers."""

from __future__ import annotations


def crc8_bitwise(data: bytes) -> int:
    """CRC-8, polynomial x^8 + x^2 + x + 1, init 0, MSB first, bit by bit."""
    reg = 0
    for byte in data:
        for i in range(7, -1, -1):
            fb = ((reg >> 7) ^ (byte >> i)) & 1
            reg = (reg << 1) & 0xFF
            if fb:
                reg ^= 0x07
    return reg


def plain_write(addr: int, words, fixed=False) -> bytes:
    words = list(words)
    return bytes([3 if fixed else 1, len(words)]) + addr.to_bytes(4, "big") + b"".join(
        w.to_bytes(4, "big") for w in words)


def plain_read(addr: int, n: int, fixed=False) -> bytes:
    return bytes([4 if fixed else 2, n]) + addr.to_bytes(4, "big")


def framed_write(seq: int, addr: int, words) -> bytes:
    words = list(words)
    body = bytes([0x81, seq, len(words)]) + addr.to_bytes(4, "big") + b"".join(w.to_bytes(4, "big") for w in words)
    return body + bytes([crc8_bitwise(body)])


def framed_read(seq: int, addr: int, n: int) -> bytes:
    body = bytes([0x82, seq, n]) + addr.to_bytes(4, "big")
    return body + bytes([crc8_bitwise(body)])


def parse_response(data: bytes):
    """(status, seq, words) of one framed response; asserts its CRC."""
    assert len(data) >= 4, data
    status, seq, n = data[0], data[1], data[2]
    assert len(data) == 4 + 4 * n, (len(data), n)
    assert crc8_bitwise(data[:-1]) == data[-1], "response CRC"
    words = [int.from_bytes(data[3 + 4 * i:7 + 4 * i], "big") for i in range(n)]
    return status, seq, words


def words_of(data: bytes):
    return [int.from_bytes(data[i:i + 4], "big") for i in range(0, len(data), 4)]


# register addresses, written out from the register map's documentation
SYS_ID, SYS_SCRATCH, SYS_CYCLES, SYS_ERRORS = 0x0000, 0x0003, 0x0004, 0x0005
ID_VALUE = 0x504E484C


def run_stream(dut, requests, *, gap=0, quiet_cycles=80):
    """Feed each request (bytes) into ``dut.rx`` (``gap`` idle cycles
    between bytes) and collect what ``dut.tx`` sends until it has been quiet
    for ``quiet_cycles``; returns the bytes received per request."""
    got = []

    async def bench(ctx):
        ctx.set(dut.tx.ready, 1)
        out = bytearray()

        async def tick(*extra):
            _, _, tv, tp, *rest = await ctx.tick().sample(dut.tx.valid, dut.tx.payload, *extra)
            if tv:
                out.append(tp)
            return rest

        for req in requests:
            out = bytearray()
            for b in req:
                ctx.set(dut.rx.payload, b)
                ctx.set(dut.rx.valid, 1)
                for _ in range(1000):
                    (ready,) = await tick(dut.rx.ready)
                    if ready:
                        break
                else:
                    raise AssertionError("bridge never took a byte")
                ctx.set(dut.rx.valid, 0)
                for _ in range(gap):
                    await tick()
            quiet = 0
            while quiet < quiet_cycles:
                n = len(out)
                await tick()
                quiet = 0 if len(out) > n else quiet + 1
            got.append(bytes(out))

    from amaranth.sim import Simulator

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return got
