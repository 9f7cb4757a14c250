"""Per-port PRBS7 / PRBS31 generators and self-synchronising checkers.

A PRBS of length 2^L - 1 satisfies ``b[n] = b[n-L] ^ b[n-t]`` (PRBS7:
x^7 + x^6 + 1, L = 7, t = 6; PRBS31: x^31 + x^28 + 1, L = 31, t = 28, the
ITU-T O.150 polynomials).  A W-bit word carries W consecutive bits, the
earliest in bit 0; a generator produces a whole word per cycle by unrolling
the recurrence W times over its last 31 bits.

A checker does not need to know which ingress drives its egress: it
predicts every received bit from the bits received before it (the same
recurrence), so it locks after L bits from any generator, whatever its
seed.  The first ceil(L/W) words after a clear only fill the history; every
later word is an *error word* if any bit differs from its prediction or if
the word and the history are all zero (a disconnected egress delivers
zeros, which the recurrence alone would accept).  One flipped bit on the
line makes up to three error words (it is also used as a tap for the
next predictions).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.gen.hil.regmap import block_registers
from permnet.hdl.datapath import bits
from permnet.hdl.hil.csr import RegisterDecode

__all__ = ["PrbsBank", "POLYS", "prbs_word"]

POLYS = {7: 6, 31: 28}
HIST = 31


def prbs_word(hist, width: int, L: int):
    """(new word bits, new history) from ``hist`` (hist[k] = the bit k+1
    places back) for the PRBS of length L; list of 1-bit values."""
    t = POLYS[L]
    new = []

    def bit(j):   # b[n + j], j may be negative
        return new[j] if j >= 0 else hist[-j - 1]
    for j in range(width):
        new.append(bit(j - L) ^ bit(j - t))
    full = [new[width - 1 - k] if k < width else hist[k - width] for k in range(HIST)]
    return new, full


class PrbsBank(wiring.Component):
    """N generators (``o_ingress``) and N checkers (``i_egress``), W bits per
    port, the datapath between them having ``latency`` cycles; a register
    block, ``regs`` (default: the ``xbar_prbs`` block of
    :mod:`permnet.gen.hil.regmap` for ``ports`` ports; every PRBS block has
    its layout), decoded by name."""

    def __init__(self, ports: int, width: int, latency: int, regs=None):
        require(latency >= 0, "latency must be >= 0")
        self.ports, self.width, self.latency = ports, width, latency
        self.regs = regs if regs is not None else block_registers("xbar_prbs", ports=ports)
        super().__init__({"o_ingress": Out(ports * width), "i_egress": In(ports * width),
                          "addr": In(12), "we": In(1), "re": In(1), "wdata": In(32), "rdata": Out(32)})

    def elaborate(self, platform):
        m = Module()
        N, W = self.ports, self.width
        poly31 = Signal()
        remaining = Signal(32)
        inject = Signal(bits(N))
        inject_pending = Signal()
        clear = Signal()
        running = Signal()
        m.d.comb += running.eq(remaining != 0)

        # generators
        outs = []
        for k in range(N):
            seed = ((0x5A5A5A5 * (k + 1) + k) & 0x7FFFFFFF) | 1
            hist = Signal(HIST, name=f"gen{k}_hist", init=seed)
            hb = [hist[i] for i in range(HIST)]
            n7, h7 = prbs_word(hb, W, 7)
            n31, h31 = prbs_word(hb, W, 31)
            word = Signal(W, name=f"gen{k}_word")
            flip = inject_pending & (inject == k)
            m.d.comb += word.eq(Mux(poly31, Cat(*n31), Cat(*n7)) ^ flip)
            with m.If(running):
                m.d.sync += hist.eq(Mux(poly31, Cat(*h31), Cat(*h7)))
            outs.append(Mux(running, word, 0))
        m.d.comb += self.o_ingress.eq(Cat(*outs))
        with m.If(running):
            m.d.sync += remaining.eq(remaining - 1)
            with m.If(inject_pending):
                m.d.sync += inject_pending.eq(0)

        # valid delayed by the datapath latency
        valid = running
        for d in range(self.latency):
            v = Signal(name=f"valid_d{d}")
            m.d.sync += v.eq(valid)
            valid = v

        # checkers
        lock_words = Signal(bits((HIST + W - 1) // W))
        m.d.comb += lock_words.eq(Mux(poly31, (31 + W - 1) // W, (7 + W - 1) // W))
        words = [Signal(32, name=f"chk{e}_words") for e in range(N)]
        errors = [Signal(32, name=f"chk{e}_errors") for e in range(N)]
        for e in range(N):
            r = self.i_egress[e * W:(e + 1) * W]
            hist = Signal(HIST, name=f"chk{e}_hist")
            seen = Signal(bits((HIST + W - 1) // W), name=f"chk{e}_seen")
            hb = [hist[i] for i in range(HIST)]

            def predict(L):
                t = POLYS[L]

                def bit(j):
                    return r[j] if j >= 0 else hb[-j - 1]
                pred = Cat(*[bit(j - L) ^ bit(j - t) for j in range(W)])
                full = Cat(*[r[W - 1 - k] if k < W else hb[k - W] for k in range(HIST)])
                zero = (r == 0) & (hist[:L] == 0)
                return (pred != r) | zero, full
            bad7, full = predict(7)
            bad31, _ = predict(31)
            bad = Mux(poly31, bad31, bad7)
            with m.If(clear):
                m.d.sync += [words[e].eq(0), errors[e].eq(0), seen.eq(0)]
            with m.Elif(valid):
                m.d.sync += [hist.eq(full), words[e].eq(words[e] + 1)]
                with m.If(seen < lock_words):
                    m.d.sync += seen.eq(seen + 1)
                with m.Elif(bad):
                    m.d.sync += errors[e].eq(errors[e] + 1)

        # registers
        regs = RegisterDecode(m, self.regs, off=self.addr, we=self.we, re=self.re, rdata=self.rdata)
        m.d.comb += clear.eq(0)
        with m.If(regs.write("ctrl")):
            m.d.sync += poly31.eq(self.wdata[0])
            m.d.comb += clear.eq(self.wdata[1])
        with m.If(regs.write("run")):
            m.d.sync += remaining.eq(self.wdata)
        with m.If(regs.write("inject")):
            m.d.sync += [inject.eq(self.wdata), inject_pending.eq(1)]
        with m.If(self.re):
            m.d.sync += self.rdata.eq(0)
        regs.read({"info": N | (W << 16), "ctrl": poly31, "run": remaining, "words": words, "errors": errors})
        regs.check()
        return m
