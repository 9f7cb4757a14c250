# amaranth: UnusedElaboratable=no
"""Amaranth simulations of the RTL, every cycle compared with sim/reference.

Convention of the harness: inputs are set, outputs are read (after the
combinational logic settles), then the clock ticks.  A unit of latency L
shows at cycle t the result of the inputs of cycle t-L.
"""

import itertools
import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from permnet.gen.errors import PermnetError
from permnet.gen.routing import benes as router
from permnet.hdl import emit
from permnet.hdl.benes import BenesNetwork
from permnet.hdl.crossbar import CrossbarPlane, stream_words
from permnet.hdl.nexthop import LdiNextHop, LdiNextHopNaive, LdiNextHopTable
from permnet.sim.reference import NextHopSpec, benes_outputs, crossbar, crossbar_select, next_hop, route_table
from permnet.sim.testbench import pack as _pack, run_crossbar as run_crossbar_tb, run_nexthop, unpack as _unpack


NH_SIZES = [(9, 3), (18, 3), (12, 4), (15, 5), (16, 2), (64, 4), (27, 3), (50, 5)]
NH_PIPELINES = [(0, "serial"), (1, "serial"), (2, "serial"), (5, "serial"), ("depth", "serial"), (2, "parallel"),
                ("depth", "parallel")]


def _nexthop_cases():
    """make test: every pipeline on LDI(9,3), and every size with one pipeline (the pipelines
    in turn, so each also runs on a larger size); the rest of the cross product under -m slow."""
    for i, (M, S) in enumerate(NH_SIZES):
        for j, (pipeline, digits) in enumerate(NH_PIPELINES):
            fast = i == 0 or j == (i - 1) % len(NH_PIPELINES)
            yield pytest.param(M, S, pipeline, digits, marks=[] if fast else [pytest.mark.slow],
                               id=f"{pipeline}-{digits}-{M}-{S}")


@pytest.mark.parametrize("M,S,pipeline,digits", list(_nexthop_cases()))
def test_nexthop_exhaustive(M, S, pipeline, digits):
    # "depth": a register after every level of the datapath (the fast configuration)
    spec = NextHopSpec(M, S)
    cases = [(n, d, i) for n in range(M) for d in range(M) for i in range(spec.h)]
    if pipeline == "depth":
        pipeline = LdiNextHop(M, S, digits=digits).depth
    dut = LdiNextHop(M, S, pipeline=pipeline, digits=digits)
    assert run_nexthop(dut, cases, pipeline) == [next_hop(spec, *c) for c in cases]


@pytest.mark.parametrize("M,S,digits,pipeline", [
    # make test: each digit order, M a power of S and not, G > 16 both ways; the others under -m slow
    (3000, 10, "serial", 3), pytest.param(3000, 10, "serial", 13, marks=pytest.mark.slow),
    pytest.param(3000, 10, "parallel", 3, marks=pytest.mark.slow), (3000, 10, "parallel", 12),
    (4096, 8, "serial", 3), pytest.param(1000, 10, "parallel", 3, marks=pytest.mark.slow),
    pytest.param(7 ** 3 * 5, 7, "serial", 3, marks=pytest.mark.slow),
    (17 * 17, 17, "serial", 4), pytest.param(20 * 18, 20, "serial", 3, marks=pytest.mark.slow),
    (20 * 20 * 19, 20, "parallel", 5)])
def test_nexthop_random_large(request, M, S, digits, pipeline):
    # includes G > 16 (l0 by adder and split subtraction instead of a table); the simulation costs
    # about 3 ms a case: 800 random cases in make test, 2000 in the ones under -m slow
    spec = NextHopSpec(M, S)
    rng = random.Random(M * S)
    n = 2000 if request.node.get_closest_marker("slow") else 800
    cases = [(rng.randrange(M), rng.randrange(M), rng.randrange(spec.h)) for _ in range(n)]
    if spec.shortcut:   # make sure the two-hop shortcut is exercised: dest a successor of node
        cases += [(n, (S * n + rng.randrange(S)) % M, 0) for n in (rng.randrange(M) for _ in range(300))]
    dut = LdiNextHop(M, S, pipeline=pipeline, digits=digits)
    assert run_nexthop(dut, cases, pipeline) == [next_hop(spec, *c) for c in cases]


def test_nexthop_depth():
    # the pipeline depth that registers every level (the synthesis bench's configuration)
    assert LdiNextHop(3000, 10).depth == 13
    assert LdiNextHop(4096, 8).depth == 4


def test_naive_baseline_is_the_same_function():
    spec = NextHopSpec(18, 3)
    cases = [(n, d, i) for n in range(18) for d in range(18) for i in range(3)]
    assert run_nexthop(LdiNextHopNaive(18, 3), cases, 1) == [next_hop(spec, *c) for c in cases]


@pytest.mark.parametrize("M,S,pipeline", [(20, 3, 1), (20, 3, 3), (10, 4, 2)])
def test_nexthop_table_exhaustive(M, S, pipeline):
    table = route_table(M, S)
    cases = [(n, d, 0) for n in range(M) for d in range(M)]
    got = run_nexthop(LdiNextHopTable(M, S, pipeline=pipeline), cases, pipeline)
    assert got == [(int(table[n, d]), (S * n + int(table[n, d])) % M) for n, d, _ in cases]


@pytest.mark.parametrize("M,S", [(18, 3), (12, 4), (16, 4)])
def test_unit_walks_reproduce_the_reference_router(M, S):
    # Iterate the hardware decision from the source: the path is the
    # router's (h hops; in the two-hop case the shortcut stops on arrival).
    from permnet.gen.topologies import ldi
    spec = NextHopSpec(M, S)
    pairs = [(n, d) for n in range(M) for d in range(M) if n != d]
    paths = {p: [p[0]] for p in pairs}
    for hop in range(spec.h):
        live = [p for p in pairs if not (spec.shortcut and paths[p][-1] == p[1])]
        cases = [(paths[p][-1], p[1], hop) for p in live]
        for p, (_, nxt) in zip(live, run_nexthop(LdiNextHop(M, S), cases, 1)):
            paths[p].append(nxt)
    for (n, d), path in paths.items():
        assert path == ldi.route_melhem(M, S, n, d, shortcut=True).paths[0]


def run_crossbar(N, W, K, configs, durations, cycles, seed=0):
    return run_crossbar_tb(CrossbarPlane(N, W, slots=K), configs, durations, cycles, seed)


@pytest.mark.parametrize("N", [2, 3, 4])
def test_crossbar_every_permutation(N):
    for p in itertools.permutations(range(N)):
        sel = crossbar_select(list(p)).tolist()
        assert run_crossbar(N, 3, 1, [sel], [1], 4) == []


def all_permutations_one_run(dut, N, W, load_words, expect, sample=None):
    """Load every permutation of N (or a seeded sample of ``sample`` of them) back to back in
    one simulation; after each commit check one data word.  Returns the permutations that failed."""
    perms = list(itertools.permutations(range(N)))
    if sample is not None:
        perms = random.Random(N * 7919 + sample).sample(perms, sample)
    bad = []
    data = [(k * 5 + 3) % (1 << W) for k in range(N)]
    sim = Simulator(dut)
    sim.add_clock(1e-6)

    payload = dut.cfg.payload
    payload = payload.as_value() if hasattr(payload, "as_value") else payload

    async def tb(ctx):
        ctx.set(dut.i_data, _pack(data, W))
        for p in perms:
            ctx.set(dut.cfg.valid, 1)
            for w in load_words(p):
                ctx.set(payload, w)
                await ctx.tick()
            ctx.set(dut.cfg.valid, 0)
            ctx.set(dut.commit, 1)
            await ctx.tick()
            ctx.set(dut.commit, 0)
            await ctx.tick()
            if _unpack(ctx.get(dut.o_data), N, W) != expect(p, data):
                bad.append(p)
    sim.add_testbench(tb)
    sim.run()
    return bad


# N = 8 (40,320 permutations) takes minutes: exhaustive under the slow marker, a sample in make test
# (a permutation costs about 3 ms in the simulator: 500 of them in make test, 2000 under -m slow)
_EIGHT = [pytest.param(8, None, marks=pytest.mark.slow), pytest.param(8, 2000, marks=pytest.mark.slow), (8, 500)]


@pytest.mark.parametrize("N,sample", [(5, None), (6, None), pytest.param(7, None, marks=pytest.mark.slow)] + _EIGHT)
def test_crossbar_every_permutation_up_to_8(N, sample):
    def words(p):
        return stream_words([crossbar_select(list(p)).tolist()], N)

    def expect(p, data):
        return crossbar(crossbar_select(list(p)).tolist(), data)
    assert all_permutations_one_run(CrossbarPlane(N, 4), N, 4, words, expect, sample) == []


# N = 7 (5,040 permutations): exhaustive under -m slow, 1,000 of them in make test
@pytest.mark.parametrize("N,sample", [pytest.param(7, None, marks=pytest.mark.slow), (7, 1000)] + _EIGHT)
def test_benes_every_permutation_up_to_8(N, sample):
    routes = {}

    def words(p):
        routes[p] = router.route(list(p))
        return router.stage_words(routes[p])

    def expect(p, data):
        return benes_outputs(routes[p], data)
    assert all_permutations_one_run(BenesNetwork(N, 4), N, 4, words, expect, sample) == []


@pytest.mark.parametrize("N,K,durations", [(4, 2, [1, 3]), (5, 3, [2, 0, 4]), (6, 4, [1, 1, 2, 3])])
def test_crossbar_tdm_slots(N, K, durations):
    rng = random.Random(N * K)
    configs = [[rng.randrange(-1, N) for _ in range(N)] for _ in range(K)]
    assert run_crossbar(N, 4, K, configs, durations, 30) == []


def test_crossbar_never_half_loaded():
    # Commit before the load is complete is ignored: output keeps the old configuration.
    N, W = 4, 4
    dut = CrossbarPlane(N, W)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    seen = []

    async def tb(ctx):
        for w in stream_words([[3, 2, 1, 0]], N)[:2]:
            ctx.set(dut.cfg.payload.as_value(), w)
            ctx.set(dut.cfg.valid, 1)
            await ctx.tick()
        ctx.set(dut.cfg.valid, 0)
        ctx.set(dut.commit, 1)
        ctx.set(dut.i_data, _pack([1, 2, 3, 4], W))
        await ctx.tick()
        ctx.set(dut.commit, 0)
        await ctx.tick()
        seen.append(_unpack(ctx.get(dut.o_data), N, W))
    sim.add_testbench(tb)
    sim.run()
    assert seen == [[1, 2, 3, 4]]       # identity (reset configuration), not a mix


def run_benes(N, W, mask, network, schedule, cycles, seed=0):
    """schedule: {cycle: permutation} committed (after loading) at that cycle."""
    dut = BenesNetwork(N, W, network=network, pipeline_mask=mask)
    L = dut.latency
    rng = np.random.default_rng(seed)
    errors = []
    sim = Simulator(dut)
    sim.add_clock(1e-6)

    async def tb(ctx):
        current = router.route(np.arange(N), network)
        history = []
        for t in range(cycles):
            if t in schedule:
                nxt = router.route(schedule[t], network)
                for w in router.stage_words(nxt):
                    ctx.set(dut.cfg.payload, w)
                    ctx.set(dut.cfg.valid, 1)
                    history.append(None)
                    await ctx.tick()
                ctx.set(dut.cfg.valid, 0)
                ctx.set(dut.commit, 1)
            data = rng.integers(0, 1 << W, N).tolist()
            ctx.set(dut.i_data, _pack(data, W))
            history.append((data, current))
            if len(history) > L and history[-1 - L] is not None:
                d, r = history[-1 - L]
                if _unpack(ctx.get(dut.o_data), N, W) != benes_outputs(r, d):
                    errors.append(t)
            await ctx.tick()
            if t in schedule:
                ctx.set(dut.commit, 0)
                current = nxt
    sim.add_testbench(tb)
    sim.run()
    return errors


@pytest.mark.parametrize("N", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("network", ["benes", "waksman"])
def test_benes_every_permutation(N, network):
    perms = list(itertools.permutations(range(N)))
    schedule = {2 * k: list(p) for k, p in enumerate(perms)}
    assert run_benes(N, 3, 0, network, schedule, 2 * len(perms) + 1) == []


@pytest.mark.parametrize("N,mask", [(8, 0b10101), (8, 0b11111), (11, 0b1000001), (16, 0b1001001)])
def test_benes_pipelined_config_follows_data(N, mask):
    rng = np.random.default_rng(N)
    schedule = {3: rng.permutation(N), 7: rng.permutation(N), 15: rng.permutation(N)}
    assert run_benes(N, 5, mask, "benes", schedule, 30) == []


def test_hdl_bad_parameters():
    with pytest.raises(PermnetError, match="width"):
        CrossbarPlane(4, 0)
    with pytest.raises(PermnetError, match="ports"):
        CrossbarPlane(1, 8)
    with pytest.raises(PermnetError, match="longer than"):
        BenesNetwork(8, 4, pipeline_mask=1 << 5)
    with pytest.raises(PermnetError, match="closed-form"):
        LdiNextHop(100, 7)
    with pytest.raises(PermnetError, match="pipeline"):
        LdiNextHop(18, 3, pipeline=-1)
    with pytest.raises(PermnetError, match="pipeline"):
        emit.nexthop(18, 3, pipeline=0)
    with pytest.raises(PermnetError, match="must be >"):
        LdiNextHop(3, 4)
