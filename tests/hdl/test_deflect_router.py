"""The deflection router's RTL (:class:`permnet.hdl.deflect.DeflectionRouter`, issue 41) against
its spec, :func:`permnet.gen.routing.deflection.route_step`, cycle for cycle: random flits on
every input, random injection offers and ejection ``ready``; the outputs, the injection
``ready`` and the ejection streams compared every cycle with a model of ``route_step`` plus
the ejection FIFOs as the spec states them (registered, ``EJECT_DEPTH`` flits, room counted at
the start of the cycle)."""

import random
import shutil
import subprocess
from collections import deque

import pytest
from amaranth.sim import Simulator

from permnet.gen.errors import PermnetError
from permnet.gen.routing import tables
from permnet.gen.routing.deflection import EJECT_DEPTH, Flit, productive_masks, route_step
from permnet.hdl.deflect import DeflectionRouter


def planes_of(M, S):
    return tables.network("ldi", M, S).table.planes.tolist()


def run_against_spec(M, S, node, E, P, cycles, seed, ties=False, width=8, load=None):
    """Drive the router ``cycles`` cycles and assert it computes the spec; returns counts of what
    happened (so a test can check the stimulus exercised the cases).

    ``load``: other planes; the router is built with a loadable table (``rt``), and during the
    traffic each entry of the table is written with the productive mask of ``load`` (one write a
    cycle, every ``rdata`` checked), then committed: the spec's mask row is the planes' until the
    commit's cycle and ``load``'s after it."""
    planes = planes_of(M, S)
    dut = DeflectionRouter(planes, node, ejection=E, width=width, stages=P, loadable=load is not None)
    mask_row = productive_masks(planes)[node]
    new_row = productive_masks(load)[node] if load is not None else mask_row
    commit_at = M + 3
    top = (1 << dut.age_bits) - 1
    rng = random.Random(seed)
    seen = {"ejected": 0, "injected": 0, "full": 0, "deflected": 0, "tie": 0, "saturated": 0, "by_table": 0}

    def flit():
        if ties:          # few ages and sources: equal (age, src) keys among the inputs
            age, src = rng.choice([0, 1, top - 1, top]), rng.randrange(2)
        else:
            age, src = rng.randrange(top + 1), rng.randrange(M)
        dst = node if rng.random() < 0.35 else rng.randrange(M)
        return Flit(dst, src, age, rng.randrange(1 << width))

    async def tb(ctx):
        queues = [deque() for _ in range(E)]
        expect = deque([[None] * S] * P)           # what o[y] shows now: route_step's outputs P cycles ago
        active = [int(x) for x in mask_row]
        for cycle in range(cycles):
            row = active[:]
            if load is not None:
                ctx.set(dut.rt.we, cycle < M)
                addr = cycle if cycle < M else rng.randrange(M)
                ctx.set(dut.rt.addr, addr)
                ctx.set(dut.rt.data, int(new_row[addr]))
                ctx.set(dut.rt.commit, cycle == commit_at)
                assert ctx.get(dut.rt.rdata) == active[addr]
                if cycle == commit_at:
                    active = [int(x) for x in new_row]
            slots = [flit() if rng.random() < 0.75 else None for _ in range(S)]
            if not ties:                            # the spec's premise: no two flits share an age
                pool = range(max(0, top - S - 3), top + 1) if rng.random() < 0.2 else range(top + 1)
                ages = rng.sample(pool, S)
                slots = [f and Flit(f.dst, f.src, a, f.payload) for f, a in zip(slots, ages)]
            offer = Flit(rng.randrange(M), node, 0, rng.randrange(1 << width)) if rng.random() < 0.6 else None
            ready = [rng.random() < 0.5 for _ in range(E)]
            for y, f in enumerate(slots):
                g = f or flit()                     # an invalid input still carries some data
                ctx.set(dut.i[y].valid, f is not None)
                for name in ("dst", "src", "age", "payload"):
                    ctx.set(getattr(dut.i[y].flit, name), getattr(g, name))
            ctx.set(dut.inj.valid, offer is not None)
            probe = offer or Flit(rng.randrange(M), node, 0, rng.randrange(1 << width))
            ctx.set(dut.inj.payload.dst, probe.dst)
            ctx.set(dut.inj.payload.payload, probe.payload)
            for e in range(E):
                ctx.set(dut.ej[e].ready, ready[e])

            room = [len(q) < EJECT_DEPTH for q in queues]
            outs, ejected, injected = route_step(node, slots, row, offer, room, E, hop_cycles=dut.K,
                                                 age_max=top)
            would = route_step(node, slots, row, probe, room, E, hop_cycles=dut.K, age_max=top)[2]
            if row != [int(x) for x in mask_row]:       # after the commit: would the planes' masks differ?
                seen["by_table"] += route_step(node, slots, mask_row, offer, room, E, hop_cycles=dut.K,
                                               age_max=top)[0] != outs
            assert ctx.get(dut.inj.ready) == would
            assert injected == (offer is not None and would)
            for e in range(E):
                assert ctx.get(dut.ej[e].valid) == bool(queues[e])
                if queues[e]:
                    assert (ctx.get(dut.ej[e].payload.src), ctx.get(dut.ej[e].payload.payload)) == \
                        (queues[e][0].src, queues[e][0].payload)
            got = []
            for y in range(S):
                if ctx.get(dut.o[y].valid):
                    got.append(Flit(*(ctx.get(getattr(dut.o[y].flit, f)) for f in ("dst", "src", "age", "payload"))))
                else:
                    got.append(None)
            assert got == expect.popleft()
            expect.append(outs)

            seen["ejected"] += sum(f is not None for f in ejected)
            seen["injected"] += injected
            seen["full"] += not all(room)
            seen["deflected"] += sum(f is not None and f.dst != node and not row[f.dst] >> y & 1
                                     for y, f in enumerate(outs))
            keys = [f.key() for f in slots if f is not None]
            seen["tie"] += len(keys) != len(set(keys))
            seen["saturated"] += any(f is not None and f.age == top for f in outs)
            await ctx.tick()
            for e in range(E):
                if queues[e] and ready[e]:
                    queues[e].popleft()
                if ejected[e] is not None:
                    queues[e].append(ejected[e])

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return seen


def cycles_for(request):
    """80 cycles in make test (every case's counters still well above 0: ties, full FIFOs and
    saturated ages at least 4 times, more than 50 cycles routed by a loaded table), 150 under -m slow."""
    return 150 if request.node.get_closest_marker("slow") else 80


@pytest.mark.parametrize("M,S,node,E,P,ties", [
    (8, 2, 3, 1, 1, False),
    (8, 2, 0, 2, 2, True),
    (16, 4, 0, 2, 1, False),
    (16, 4, 5, 1, 1, True),
    (16, 4, 0, 2, 2, False),
    (16, 4, 9, 2, 2, True),
    (16, 4, 0, 2, 3, False),
    (8, 2, 5, 1, 3, True),
    pytest.param(16, 4, 6, 1, 3, True, marks=pytest.mark.slow),
    pytest.param(16, 8, 2, 2, 1, False, marks=pytest.mark.slow),      # S = 8: a minute each in the simulator
    pytest.param(16, 8, 7, 1, 2, True, marks=pytest.mark.slow),
])
def test_router_computes_route_step(request, M, S, node, E, P, ties):
    seen = run_against_spec(M, S, node, E, P, cycles=cycles_for(request), seed=M * 100 + S * 10 + node + P, ties=ties)
    assert seen["ejected"] and seen["injected"] and seen["full"] and seen["deflected"] and seen["saturated"]
    assert bool(seen["tie"]) == ties


def other_planes(M, S, how):
    """Another valid routing for the router's node: LDI(M, S)'s planes in the other order
    (``reversed``: output y goes where output S-1-y went, so the masks are the planes' with the
    bits reversed), or relabelled by a seeded shuffle of the nodes (``relabelled``)."""
    planes = planes_of(M, S)
    if how == "reversed":
        return planes[::-1]
    pi = list(range(M))
    random.Random(7).shuffle(pi)
    out = [[0] * M for _ in planes]
    for y, row in enumerate(planes):
        for n, d in enumerate(row):
            out[y][pi[n]] = pi[d]
    return out


@pytest.mark.parametrize("M,S,node,E,P,how", [
    (16, 4, 0, 2, 2, "reversed"),
    (16, 4, 3, 2, 3, "relabelled"),
    pytest.param(16, 4, 5, 1, 1, "relabelled", marks=pytest.mark.slow),
])
def test_router_routes_by_a_loaded_table(request, M, S, node, E, P, how):
    """The table loaded through ``rt`` in traffic routes from the commit on, not the planes' masks
    (``by_table``: cycles in which the planes' masks would have sent the flits elsewhere)."""
    other = other_planes(M, S, how)
    assert productive_masks(other)[node].tolist() != productive_masks(planes_of(M, S))[node].tolist()
    seen = run_against_spec(M, S, node, E, P, cycles=cycles_for(request), seed=M + node + P, load=other)
    assert seen["ejected"] and seen["injected"] and seen["deflected"] and seen["by_table"] > 10


def test_parameters_refused():
    planes = planes_of(16, 4)
    for kw, needle in [({"stages": 4}, "stages must be 1, 2 or 3"), ({"ejection": 5}, "ejection ports must be 1..S"),
                       ({"hop_cycles": 2, "stages": 3}, "hop cycles"), ({"hop_cycles": 1, "stages": 2}, "hop cycles")]:
        with pytest.raises(PermnetError, match=needle):
            DeflectionRouter(planes, 0, **kw)
    with pytest.raises(PermnetError, match="power of two"):
        DeflectionRouter(planes_of(9, 3), 0)


@pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not on PATH")
@pytest.mark.parametrize("P", [1, 2, 3])
def test_verilog_lints(tmp_path, P):
    from permnet.hdl.verilogtext import convert

    f = tmp_path / "deflect.v"
    f.write_text(convert(DeflectionRouter(planes_of(16, 4), 0, stages=P, loadable=P == 3), "deflect"))
    lint = subprocess.run(["verilator", "--lint-only", "-Wno-fatal", "-Wno-WIDTHEXPAND", "-Wno-WIDTHTRUNC", str(f)],
                          capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stderr
    assert "%Error" not in lint.stderr
