"""8N1 UART PHY: one start bit (0), eight data bits LSB first, one stop bit (1).

``divisor`` is the bit time in clock cycles (clock / baud rate, >= 4).

* :class:`UartRx` synchronises the line through two flip-flops, waits for a
  falling edge, checks the start bit at its middle (divisor // 2 cycles
  later: a glitch shorter than half a bit is ignored), then samples every
  bit one divisor later, i.e. at the middle of each bit.  A byte whose stop
  bit reads 0 is dropped and counted in ``o_framing_errors``; a byte the
  consumer did not take before the next one arrives is overwritten and
  counted in ``o_overruns``.
* :class:`UartTx` sends the bytes of its stream, the line idle high.
"""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.hdl.datapath import bits

__all__ = ["UartRx", "UartTx"]


def _check(divisor):
    require(isinstance(divisor, int) and divisor >= 4, f"UART divisor must be an integer >= 4, got {divisor}")


class UartRx(wiring.Component):
    def __init__(self, divisor: int):
        _check(divisor)
        self.divisor = divisor
        super().__init__({"i_rx": In(1, init=1), "o_data": Out(stream.Signature(8)),
                          "o_framing_errors": Out(16), "o_overruns": Out(16)})

    def elaborate(self, platform):
        m = Module()
        d = self.divisor
        sync1, line = Signal(init=1), Signal(init=1)
        m.d.sync += [sync1.eq(self.i_rx), line.eq(sync1)]
        timer = Signal(bits(d))
        nbit = Signal(4)
        shift = Signal(8)
        with m.If(self.o_data.ready):
            m.d.sync += self.o_data.valid.eq(0)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(~line):
                    m.d.sync += timer.eq(d // 2 - 1)
                    m.next = "START"
            with m.State("START"):
                with m.If(timer == 0):
                    with m.If(~line):
                        m.d.sync += [timer.eq(d - 1), nbit.eq(0)]
                        m.next = "DATA"
                    with m.Else():
                        m.next = "IDLE"
                with m.Else():
                    m.d.sync += timer.eq(timer - 1)
            with m.State("DATA"):
                with m.If(timer == 0):
                    m.d.sync += [shift.eq((shift >> 1) | (line << 7)), timer.eq(d - 1), nbit.eq(nbit + 1)]
                    with m.If(nbit == 7):
                        m.next = "STOP"
                with m.Else():
                    m.d.sync += timer.eq(timer - 1)
            with m.State("STOP"):
                with m.If(timer == 0):
                    with m.If(line):
                        m.d.sync += [self.o_data.payload.eq(shift), self.o_data.valid.eq(1)]
                        with m.If(self.o_data.valid & ~self.o_data.ready):
                            m.d.sync += self.o_overruns.eq(self.o_overruns + 1)
                    with m.Else():
                        m.d.sync += self.o_framing_errors.eq(self.o_framing_errors + 1)
                    # wait for the line to be high (a framing error may be a break)
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += timer.eq(timer - 1)
        return m


class UartTx(wiring.Component):
    def __init__(self, divisor: int):
        _check(divisor)
        self.divisor = divisor
        super().__init__({"i_data": In(stream.Signature(8)), "o_tx": Out(1, init=1)})

    def elaborate(self, platform):
        m = Module()
        d = self.divisor
        timer = Signal(bits(d))
        frame = Signal(10, init=0x3FF)   # stop . data . start, sent LSB first
        left = Signal(4)
        m.d.comb += [self.o_tx.eq(frame[0]), self.i_data.ready.eq(left == 0)]
        with m.If(left == 0):
            with m.If(self.i_data.valid):
                m.d.sync += [frame.eq((1 << 9) | (self.i_data.payload << 1)), left.eq(10), timer.eq(d - 1)]
        with m.Elif(timer == 0):
            m.d.sync += [frame.eq((frame >> 1) | (1 << 9)), left.eq(left - 1), timer.eq(d - 1)]
        with m.Else():
            m.d.sync += timer.eq(timer - 1)
        return m
