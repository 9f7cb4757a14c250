"""The run's window of the HIL generator tops (hdl/hil/netgen.py ``run_window``): the
generators create packets in exactly the cycles ``start <= cycle < stop`` of a cleared run,
from the seed's state in cycle ``start``, whatever clear and hold do around the window's
edges (the model: gen/hil/netgen.trace). ``active`` and ``first`` are registers computed a
cycle ahead, so a window one cycle early or late, or a first draw taken a cycle off, shows
here as rows at other cycles or with other destinations. The source queue with its head in
a register (``SourceQueue``) is the bypassed ``SyncFIFO`` the designs had, cycle for cycle."""

import random

import pytest
from amaranth.hdl import Cat, Module, Mux
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from permnet.gen.hil.netgen import GOLDEN, RATE_BITS, GenParams, rate_of, trace
from permnet.gen.routing import tables
from permnet.hdl.hil.deflgen import DeflectionGen
from permnet.hdl.hil.netgen import COUNTERS, PATTERN_CODES, SourceQueue, run_window
from permnet.hdl.router import bits
from permnet.sim import netsim
from permnet.sim.netsim.counters import predict


class Window(wiring.Component):
    """The clock, window and generators alone (what ``run_window`` gives a design)."""

    def __init__(self, M, cycle_bits=16):
        self.M, self.cb, self.cw, nb = M, cycle_bits, 8, bits(M - 1)
        super().__init__({"clear": In(1), "hold": In(1), "pattern": In(3), "rate": In(RATE_BITS + 1),
                          "seed": In(64), "hot": In(nb), "hot_frac": In(RATE_BITS + 1), "start": In(cycle_bits),
                          "stop": In(cycle_bits), "perm": In(nb).array(M), "cycle": Out(cycle_bits)})

    def elaborate(self, platform):
        m = Module()
        run_window(m, self, self.M)
        return m


def drive(dut, M, params, start, stop, script, on_tick=None):
    """Set the parameters, then play ``script``: ``(cycles, clear, hold)`` phases. Returns the
    packets ``(cycle, src, dst, size)`` the generators create after the last clear (the clear
    cycle itself excluded: the generators and everything they feed are reset in it)."""
    return drive_many(dut, M, [(params, start, stop, script)], on_tick)[0]


def drive_many(dut, M, jobs, on_tick=None):
    """:func:`drive` for each ``(params, start, stop, script)`` of ``jobs`` in turn, in one
    simulation (one elaboration); each job's rows are those after its own last clear, so a job
    whose script clears starts from whatever state the one before left (the first from reset)."""
    out = []

    async def tb(ctx):
        for params, start, stop, script in jobs:
            rows = []
            ctx.set(dut.pattern, PATTERN_CODES[params.pattern])
            for sig, v in ((dut.rate, params.rate), (dut.seed, params.seed), (dut.hot, params.hot),
                           (dut.hot_frac, params.hot_frac), (dut.start, start), (dut.stop, stop)):
                ctx.set(sig, v)
            for n in range(M):
                ctx.set(dut.perm[n], params.perm[n] if params.perm else 0)
            for cycles, clear, hold in script:
                ctx.set(dut.clear, clear)
                ctx.set(dut.hold, hold)
                for _ in range(cycles):
                    if clear:
                        rows.clear()
                    else:
                        c = ctx.get(dut.cycle)
                        rows.extend((c, n, ctx.get(g.dst), params.size) for n, g in enumerate(dut.gens)
                                    if ctx.get(g.valid))
                    await ctx.tick()
                    if on_tick is not None:
                        on_tick(ctx)
            out.append(rows)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return out


# a run before the clear (its window open), the clear, a hold, a hold inside the window, the end
SCRIPT = [(9, 0, 0), (1, 1, 0), (3, 0, 1), (4, 0, 0), (3, 0, 1), (40, 0, 0)]
WINDOWS = [(0, 0), (0, 1), (0, 12), (1, 2), (3, 4), (3, 20), (5, 30), (6, 5)]
PARAMS = [
    GenParams("uniform", rate=rate_of(1.0), size=1, seed=11),            # a packet in every window cycle
    GenParams("hotspot", rate=rate_of(0.5), size=2, seed=0x9E3779B97F4A7C15 ^ 2, hot=3, hot_frac=1 << 15),
    GenParams("permutation", rate=rate_of(0.7), size=1, seed=5, perm=(3, 0, 7, 2, 6, 5, 4, 1)),
]


GOLDEN_CASE = (GenParams("uniform", rate=rate_of(0.5), size=1, seed=GOLDEN), 3, 40, SCRIPT)
HELD_CASE = (GenParams("uniform", rate=rate_of(0.6), size=1, seed=3), 4, 20,
             [(1, 1, 0), (4, 0, 0), (6, 0, 1), (30, 0, 0)])        # cycles 0..3 run, held at 4


@pytest.fixture(scope="module")
def windows():
    """Every (params, window) case of SCRIPT, then GOLDEN_CASE and HELD_CASE, played one after
    the other in one simulation of ``Window(8)`` (an elaboration costs ten times a case's 60
    cycles): each case's run before its clear starts where the previous case ended, the first
    from reset."""
    keys = [(i, w) for i in range(len(PARAMS)) for w in WINDOWS] + ["golden", "held"]
    jobs = [(params, start, stop, SCRIPT) for params in PARAMS for start, stop in WINDOWS] + [GOLDEN_CASE, HELD_CASE]
    return dict(zip(keys, drive_many(Window(8), 8, jobs)))


@pytest.mark.parametrize("start,stop", WINDOWS)
@pytest.mark.parametrize("params", PARAMS)
def test_the_generators_draw_in_exactly_the_window(start, stop, params, windows):
    M = 8
    rows = windows[PARAMS.index(params), (start, stop)]
    want = trace(M, params, start, stop) if start <= stop else []
    assert rows == want
    if params.rate == 1 << RATE_BITS:
        assert {c for c, *_ in rows} == set(range(start, stop))


def test_a_seed_that_zeroes_a_state_draws_from_state_1(windows):
    """seed = GOLDEN makes node 0's start state ``seed ^ GOLDEN`` zero, which the model replaces
    by 1 (:func:`permnet.gen.hil.netgen.seed_state`: xorshift never leaves 0): node 0 draws
    packets, as the model's, in the window."""
    params, start, stop, _ = GOLDEN_CASE
    rows = windows["golden"]
    assert rows == trace(8, params, start, stop)
    assert any(n == 0 for _, n, *_ in rows)


def test_a_window_started_while_held_begins_at_its_first_cycle(windows):
    """Held at cycle == start: nothing is drawn until the hold is released, then the first draw
    is the seed's (rows equal the model's from cycle start on)."""
    params, start, stop, _ = HELD_CASE
    rows = windows["held"]
    assert rows == trace(8, params, start, stop) and rows[0][0] == start == 4


def test_deflection_counters_after_a_held_clear_from_cycle_0_equal_netsim():
    """The host's sequence with planes: clear and hold, a wait, then the run, whose window
    starts at cycle 0 (the first cycle after the hold); the counters equal netsim's for the
    model's trace of cycles 0..30."""
    M, S = 8, 2
    net = tables.network("ldi", M, S)
    params = GenParams("uniform", rate=rate_of(0.45), size=1, seed=21)
    rows = trace(M, params, 0, 30)
    want = predict(net, rows, netsim.Config(switching="deflection", packet_size=1, ejection_width=2))
    dut = DeflectionGen(net.table.planes.tolist(), ejection=2, flit_width=8, queue=8)
    counters = {}

    def grab(ctx):
        counters.update({name: [ctx.get(getattr(dut, name)[n]) for n in range(M)] for name in COUNTERS})

    script = [(6, 0, 0), (1, 1, 1), (5, 0, 1), (want["cycles"] + 3, 0, 0)]
    made = drive(dut, M, params, 0, 30, script, on_tick=grab)
    assert made == rows and len(rows) > 50
    assert sum(counters["dropped"]) == 0
    for name in COUNTERS:
        assert counters[name] == want[name], name


class BypassedFifo(wiring.Component):
    """The source queue as the designs had it: a SyncFIFO with ``front = r_rdy ? r_data : new``,
    beside the SourceQueue under test, both fed the same descriptors and ready."""

    def __init__(self, width, depth):
        self.width, self.depth = width, depth
        super().__init__({"new": In(width), "new_valid": In(1), "ready": In(1),
                          "valid": Out(2), "front": Out(2 * width), "drop": Out(2)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.fifo = q = SyncFIFO(width=self.width, depth=self.depth)
        m.submodules.dut = d = SourceQueue(self.width, self.depth)
        w_en = self.new_valid & (q.r_rdy | ~self.ready)
        m.d.comb += [q.w_data.eq(self.new), q.w_en.eq(w_en), q.r_en.eq(self.ready),
                     d.new.eq(self.new), d.new_valid.eq(self.new_valid), d.ready.eq(self.ready),
                     self.valid.eq(Cat(q.r_rdy | self.new_valid, d.valid)),
                     self.front.eq(Cat(Mux(q.r_rdy, q.r_data, self.new), d.front)),
                     self.drop.eq(Cat(w_en & ~q.w_rdy, d.drop))]
        return m


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_the_source_queue_is_the_bypassed_fifo(depth):
    """Random arrivals and readiness (bursts that fill the queue, stalls that drain it): the
    head-register queue shows the same front, valid and drops as the bypassed SyncFIFO in
    every cycle."""
    rng = random.Random(depth)
    dut = BypassedFifo(8, depth)
    seen = {"cycles": 0, "drops": 0}

    async def tb(ctx):
        for t in range(1200):
            phase = (t // 40) % 3           # 0: heavy arrivals, 1: balanced, 2: draining
            ctx.set(dut.new, rng.randrange(256))
            ctx.set(dut.new_valid, rng.random() < (0.9, 0.5, 0.1)[phase])
            ctx.set(dut.ready, rng.random() < (0.2, 0.5, 0.9)[phase])
            valid, front, drop = ctx.get(dut.valid), ctx.get(dut.front), ctx.get(dut.drop)
            assert valid & 1 == valid >> 1, t
            assert drop & 1 == drop >> 1, t
            if valid & 1:
                assert front & 0xFF == front >> 8, t
            seen["cycles"] += 1
            seen["drops"] += drop & 1
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    assert seen["drops"] > 10           # the queue was full, often
