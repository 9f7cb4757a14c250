"""The live-traffic network (hdl/hil/netgen.py) in the Amaranth simulator: its generators
create exactly the packets of the model (gen/hil/netgen.trace) and its counters equal the
cycle-level simulator fed that trace, counter for counter."""

import pytest

from permnet.gen.hil.netgen import GenParams, rate_of, trace
from permnet.gen.routing import tables
from permnet.hdl.hil.netgen import COUNTERS, NetworkGen
from permnet.sim import netsim
from permnet.sim.netsim.counters import predict
from netgen_helpers import run_rtl


def _setup(M, S, params, start, stop, buffer=4, width=8):
    """LDI(M,S)'s HIL network with its generators: the model's rows in the window, the
    simulator's counters for them, and the design."""
    net = tables.network("ldi", M, S)
    t = net.table
    rows = trace(M, params, start, stop)
    want = predict(net, rows, netsim.Config(vcs=t.max_hops, buffer=buffer))
    dut = NetworkGen(t.planes.tolist(), t.length.tolist(), t.hops.tolist(), vcs=t.max_hops, buffer=buffer,
                     flit_width=width, queue=8)
    return rows, want, dut


def _case(M, S, params, start, stop, buffer=4, width=8):
    rows, want, dut = _setup(M, S, params, start, stop, buffer, width)
    [(made, got)] = run_rtl(dut, M, params, start, stop, want["cycles"] + 3)
    return rows, want, made, got


UNIFORM = GenParams("uniform", rate=rate_of(0.3), size=3, seed=11)


@pytest.fixture(scope="module")
def ldi82():
    """LDI(8,2), UNIFORM in cycles 5..45: one simulation (one elaboration, the most of a test's
    time) of two runs, a clean one, then, after a clear, the same with one payload bit flipped
    in the first buffer entry that holds a flit (see test_counters_see_a_corrupted_flit)."""
    M = 8
    rows, want, dut = _setup(M, 2, UNIFORM, 5, 45)
    bufs = [(n, key, q) for n, r in enumerate(dut.ip.routers) for key, q in r.buffers.items()]
    hit = {}

    def poke(ctx):
        if "payload" in hit:
            return
        for n, key, q in bufs:
            cnt = ctx.get(q["count"])
            if cnt:
                head = ctx.get(q["head"])
                ent = q["ent"][head]
                ctx.set(ent["payload"], ctx.get(ent["payload"]) ^ 1)
                hit["payload"] = n
                return

    runs = run_rtl(dut, M, UNIFORM, 5, 45, want["cycles"] + 3, pokes=(None, poke))
    return rows, want, runs, hit


@pytest.mark.parametrize("M,S,params", [
    (8, 2, UNIFORM),                                # the clean run of the ldi82 fixture
    # about 5 s each in the Amaranth simulator
    pytest.param(9, 3, GenParams("hotspot", rate=rate_of(0.25), size=2, seed=3, hot=4, hot_frac=1 << 14),
                 marks=pytest.mark.slow),
    pytest.param(8, 2, GenParams("permutation", rate=rate_of(0.2), size=4, seed=5, perm=(3, 0, 7, 2, 6, 1, 4, 5)),
                 marks=pytest.mark.slow),
    pytest.param(8, 2, GenParams("bitcomp", rate=rate_of(0.2), size=2, seed=9), marks=pytest.mark.slow),
    pytest.param(9, 3, GenParams("transpose", rate=rate_of(0.4), size=3, seed=2), marks=pytest.mark.slow),
])
def test_generators_and_counters_match_the_model_and_the_simulator(M, S, params, request):
    if (M, S, params) == (8, 2, UNIFORM):
        rows, want, [(made, got), _], _ = request.getfixturevalue("ldi82")
    else:
        rows, want, made, got = _case(M, S, params, start=5, stop=45)
    assert made == rows and len(rows) > 10                               # same cycles, src, dst, size
    contention = want["lat_sum"] != [0] * M
    assert contention
    for name in COUNTERS:
        assert got[name] == want[name], name
    assert sum(got["ej_packets"]) == len(rows) and got["misdelivered"] == [0] * M


@pytest.mark.slow
def test_an_overloaded_source_queue_drops_and_the_counts_differ():
    """One permutation flow at 2 flits per cycle overruns its 8-descriptor queue: the RTL counts
    the drops, and the injection counters no longer equal the simulator's (whose queue holds the
    whole trace), so a comparison reports a difference rather than a false match."""
    params = GenParams("permutation", rate=rate_of(0.5), size=4, seed=5, perm=(3, 0, 7, 2, 6, 1, 4, 5))
    rows, want, made, got = _case(8, 2, params, start=5, stop=45)
    assert made == rows
    assert sum(got["dropped"]) > 0 and got["inj_packets"] != want["inj_packets"]
    assert [g - d for g, d in zip(got["gen_packets"], got["dropped"])] == got["inj_packets"]


def test_counters_see_a_corrupted_flit(ldi82):
    """A flit whose payload is flipped in a buffer is counted as a payload error at its
    destination (the second run of the ldi82 fixture, after a clear: the same packets)."""
    rows, _, [_, (made, got)], hit = ldi82
    assert made == rows
    assert "payload" in hit
    assert sum(got["payload_errors"]) == 1
