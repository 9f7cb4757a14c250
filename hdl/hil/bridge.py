"""Byte stream to register bus bridge speaking UARTBone (and permnet's
CRC-framed mode); the protocol is specified in :mod:`permnet.gen.hil.protocol`.

Ports: ``i_bytes`` (stream of received bytes), ``o_bytes`` (stream of bytes
to send), and a register bus master: ``bus_addr`` (word address),
``bus_wdata``, ``bus_we`` (one-cycle write strobe), ``bus_re`` (one-cycle
read strobe; the slave presents ``bus_rdata`` in the next cycle).
``o_crc_errors`` and ``o_timeouts`` count framed requests with a bad CRC
and partial frames dropped after ``idle_timeout`` cycles without a byte.

The CRC-8 update ``crc' = T[crc ^ byte]`` is linear over GF(2) (initial
value 0, no final XOR), so each bit of ``crc'`` is the XOR of the bits of
``crc ^ byte`` selected by the table entries of the eight unit vectors:
eight XOR trees, no 256-entry table.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import memory, stream, wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.hil import protocol as P
from permnet.hdl.datapath import bits

__all__ = ["StreamBridge", "crc8_next"]


def crc8_next(crc, byte):
    """The CRC-8 register after ``byte`` (an Amaranth expression)."""
    x = crc ^ byte
    table = P.crc8_table()
    out = []
    for j in range(8):
        terms = [x[i] for i in range(8) if table[1 << i] >> j & 1]
        v = terms[0]
        for t in terms[1:]:
            v = v ^ t
        out.append(v)
    return Cat(*out)


class StreamBridge(wiring.Component):
    def __init__(self, *, framed: bool = True, idle_timeout: int = 1 << 16):
        require(isinstance(idle_timeout, int) and 16 <= idle_timeout < 1 << 32,
                f"idle time-out must be 16..2^32-1 cycles, got {idle_timeout}")
        self.framed, self.idle_timeout = framed, idle_timeout
        super().__init__({
            "i_bytes": In(stream.Signature(8)), "o_bytes": Out(stream.Signature(8)),
            "bus_addr": Out(32), "bus_wdata": Out(32), "bus_we": Out(1), "bus_re": Out(1), "bus_rdata": In(32),
            "o_crc_errors": Out(16), "o_timeouts": Out(16), "o_busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        MAXW = P.FRAMED_MAX_WORDS
        inp, out = self.i_bytes, self.o_bytes
        cmd = Signal(8)
        framed = Signal()
        seq = Signal(8)
        length = Signal(8)
        count = Signal(9)
        addr = Signal(32)
        word = Signal(32)
        nbyte = Signal(2)
        crc_in = Signal(8)
        crc_out = Signal(8)
        status = Signal(8)
        last_seq = Signal(8)
        last_valid = Signal()
        idx = Signal(bits(MAXW))
        idle = Signal(range(self.idle_timeout + 1))
        is_write = Signal()
        fixed = Signal()
        m.d.comb += [is_write.eq((cmd[:7] == P.CMD_WRITE) | (cmd[:7] == P.CMD_WRITE_FIXED)),
                     fixed.eq((cmd[:7] == P.CMD_WRITE_FIXED) | (cmd[:7] == P.CMD_READ_FIXED))]

        m.submodules.buf = buf = memory.Memory(shape=32, depth=MAXW, init=[])
        wr = buf.write_port()
        rd = buf.read_port(domain="sync")
        m.d.comb += rd.addr.eq(idx)

        got = inp.valid & inp.ready
        m.d.comb += [self.bus_addr.eq(addr), self.bus_wdata.eq(Mux(framed, rd.data, word))]

        def next_addr():
            return Mux(fixed, addr, addr + 1)

        def receiving():
            # idle time-out of a partial frame
            with m.If(got):
                m.d.sync += idle.eq(0)
            with m.Elif(idle == self.idle_timeout - 1):
                m.d.sync += [idle.eq(0), self.o_timeouts.eq(self.o_timeouts + 1)]
                m.next = "IDLE"
            with m.Else():
                m.d.sync += idle.eq(idle + 1)
            with m.If(got):
                m.d.sync += crc_in.eq(crc8_next(crc_in, inp.payload))

        def send(byte, then, crc=True):
            m.d.comb += [out.valid.eq(1), out.payload.eq(byte)]
            with m.If(out.ready):
                if crc:
                    m.d.sync += crc_out.eq(crc8_next(crc_out, byte))
                m.next = then

        with m.FSM() as fsm:
            m.d.comb += self.o_busy.eq(~fsm.ongoing("IDLE"))
            with m.State("IDLE"):
                m.d.comb += inp.ready.eq(1)
                m.d.sync += [idle.eq(0), crc_out.eq(0), nbyte.eq(0), idx.eq(0)]
                with m.If(got):
                    lo = inp.payload[:7]
                    ok = (lo >= P.CMD_WRITE) & (lo <= P.CMD_READ_FIXED)
                    if not self.framed:
                        ok = ok & ~inp.payload[7]
                    with m.If(ok):
                        m.d.sync += [cmd.eq(inp.payload), framed.eq(inp.payload[7]),
                                     crc_in.eq(crc8_next(Const(0, 8), inp.payload))]
                        with m.If(inp.payload[7]):
                            m.next = "SEQ"
                        with m.Else():
                            m.d.sync += last_valid.eq(0)
                            m.next = "LEN"
            with m.State("SEQ"):
                m.d.comb += inp.ready.eq(1)
                receiving()
                with m.If(got):
                    m.d.sync += seq.eq(inp.payload)
                    m.next = "LEN"
            with m.State("LEN"):
                m.d.comb += inp.ready.eq(1)
                receiving()
                with m.If(got):
                    m.d.sync += [length.eq(inp.payload), count.eq(inp.payload)]
                    m.next = "ADDR"
            with m.State("ADDR"):
                m.d.comb += inp.ready.eq(1)
                receiving()
                with m.If(got):
                    m.d.sync += [addr.eq(Cat(inp.payload, addr[:24])), nbyte.eq(nbyte + 1)]
                    with m.If(nbyte == 3):
                        with m.If(is_write & (count != 0)):
                            m.next = "WDATA"
                        with m.Elif(framed):
                            m.next = "CRC"
                        with m.Elif(count != 0):
                            m.next = "RD_ISSUE"
                        with m.Else():
                            m.next = "IDLE"
            with m.State("WDATA"):
                m.d.comb += inp.ready.eq(1)
                receiving()
                with m.If(got):
                    m.d.sync += [word.eq(Cat(inp.payload, word[:24])), nbyte.eq(nbyte + 1)]
                    with m.If(nbyte == 3):
                        with m.If(framed):
                            m.d.comb += [wr.addr.eq(idx), wr.data.eq(Cat(inp.payload, word[:24])),
                                         wr.en.eq(idx < MAXW)]
                            m.d.sync += [idx.eq(Mux(idx < MAXW, idx + 1, idx)), count.eq(count - 1)]
                            with m.If(count == 1):
                                m.next = "CRC"
                        with m.Else():
                            m.next = "WRITE"
            with m.State("WRITE"):       # plain mode: execute at once
                m.d.comb += self.bus_we.eq(1)
                m.d.sync += [addr.eq(next_addr()), count.eq(count - 1)]
                with m.If(count == 1):
                    m.next = "IDLE"
                with m.Else():
                    m.next = "WDATA"
            with m.State("CRC"):
                m.d.comb += inp.ready.eq(1)
                receiving()
                with m.If(got):
                    m.d.sync += [idx.eq(0), count.eq(length)]
                    with m.If(inp.payload != crc_in):
                        m.d.sync += [status.eq(P.STATUS_CRC), self.o_crc_errors.eq(self.o_crc_errors + 1)]
                        m.next = "RESP_STATUS"
                    with m.Elif(length > MAXW):
                        m.d.sync += status.eq(P.STATUS_LENGTH)
                        m.next = "RESP_STATUS"
                    with m.Elif(is_write & last_valid & (seq == last_seq)):
                        m.d.sync += status.eq(P.STATUS_DUPLICATE)
                        m.next = "RESP_STATUS"
                    with m.Else():
                        m.d.sync += status.eq(P.STATUS_OK)
                        with m.If(is_write):
                            m.d.sync += [last_seq.eq(seq), last_valid.eq(1)]
                            m.next = "FW_PREP"
                        with m.Else():
                            # an answered read proves the host saw the last write's ack
                            m.d.sync += last_valid.eq(0)
                            m.next = "RESP_STATUS"
            with m.State("FW_PREP"):     # framed writes, after the CRC check
                with m.If(count == 0):
                    m.next = "RESP_STATUS"
                with m.Else():
                    m.next = "FW_WRITE"
            with m.State("FW_WRITE"):
                m.d.comb += self.bus_we.eq(1)
                m.d.sync += [addr.eq(next_addr()), count.eq(count - 1), idx.eq(idx + 1)]
                m.next = "FW_PREP"
            with m.State("RESP_STATUS"):
                send(status, "RESP_SEQ")
            with m.State("RESP_SEQ"):
                send(seq, "RESP_LEN")
            with m.State("RESP_LEN"):
                reading = ~is_write & (status == P.STATUS_OK)
                send(Mux(reading, length, 0), "RESP_LEN")
                with m.If(out.ready):
                    m.d.sync += count.eq(length)
                    with m.If(reading & (length != 0)):
                        m.next = "RD_ISSUE"
                    with m.Else():
                        m.next = "RESP_CRC"
            with m.State("RD_ISSUE"):
                m.d.comb += self.bus_re.eq(1)
                m.next = "RD_WAIT"
            with m.State("RD_WAIT"):
                m.d.sync += [word.eq(self.bus_rdata), nbyte.eq(0), addr.eq(next_addr()), count.eq(count - 1)]
                m.next = "RD_SEND"
            with m.State("RD_SEND"):
                byte = word[24:]
                m.d.comb += [out.valid.eq(1), out.payload.eq(byte)]
                with m.If(out.ready):
                    m.d.sync += [crc_out.eq(crc8_next(crc_out, byte)), word.eq(word << 8), nbyte.eq(nbyte + 1)]
                    with m.If(nbyte == 3):
                        with m.If(count != 0):
                            m.next = "RD_ISSUE"
                        with m.Elif(framed):
                            m.next = "RESP_CRC"
                        with m.Else():
                            m.next = "IDLE"
            with m.State("RESP_CRC"):
                send(crc_out, "IDLE", crc=False)
        return m
