# amaranth: UnusedElaboratable=no
"""Run-time loadable planes (hdl/planes.py) in the Amaranth simulator.

The oracle is the planes file itself: every plane is a permutation, and a
word driven on node n's output y must arrive on input y of node P_y(n)
(Melhem eq. (3)), the backward word the other way; unconnected ports read 0.
The files are what the ``permnet`` commands write."""

import json

import pytest
from amaranth.sim import Simulator
from hypothesis import given, settings, strategies as st

from permnet.gen.errors import PermnetError
from permnet.gen.planes import runtime
from permnet.hdl.planes import PlaneSet
from permnet.planeload import load_writes, read_planes
from cli_runner import run as permnet

FW, BW = 8, 4


def identity(M, S):
    return [list(range(M))] * S


def stimulus(M, S, salt):
    """Distinct non-zero words on every fwd_i and every bwd_i."""
    fwd = [[1 + (salt * 37 + y * M + n) % 255 for n in range(M)] for y in range(S)]
    bwd = [[1 + (salt * 11 + y * M + n) % 15 for n in range(M)] for y in range(S)]
    return fwd, bwd


def expected(planes, fwd, bwd):
    """fwd_o[y][P(n)] = fwd_i[y][n]; bwd_o[y][n] = bwd_i[y][P(n)]; 0 unconnected."""
    S, M = len(planes), len(planes[0])
    fo = [[0] * M for _ in range(S)]
    bo = [[0] * M for _ in range(S)]
    for y in range(S):
        for n, d in enumerate(planes[y]):
            if d is not None and d >= 0:
                fo[y][d] = fwd[y][n]
                bo[y][n] = bwd[y][d]
    return fo, bo


class Bench:
    """Drives a PlaneSet from one async testbench."""

    def __init__(self, ctx, dut):
        self.ctx, self.dut = ctx, dut

    def drive(self, salt):
        d, ctx = self.dut, self.ctx
        fwd, bwd = stimulus(d.M, d.S, salt)
        for y in range(d.S):
            for n in range(d.M):
                ctx.set(d.fwd_i[y][n], fwd[y][n])
                ctx.set(d.bwd_i[y][n], bwd[y][n])
        return fwd, bwd

    def outputs(self):
        d, ctx = self.dut, self.ctx
        return ([[ctx.get(d.fwd_o[y][n]) for n in range(d.M)] for y in range(d.S)],
                [[ctx.get(d.bwd_o[y][n]) for n in range(d.M)] for y in range(d.S)])

    async def write(self, y, a, v):
        c = self.dut.cfg
        self.ctx.set(c.plane, y)
        self.ctx.set(c.addr, a)
        self.ctx.set(c.data, v)
        self.ctx.set(c.we, 1)
        await self.ctx.tick()
        self.ctx.set(c.we, 0)

    async def load(self, writes):
        for w in writes:
            await self.write(*w)

    async def commit(self):
        self.ctx.set(self.dut.cfg.commit, 1)
        await self.ctx.tick()
        self.ctx.set(self.dut.cfg.commit, 0)

    async def readback(self, y):
        d, c, out = self.dut, self.dut.cfg, []
        for a in range(d.entries):
            self.ctx.set(c.plane, y)
            self.ctx.set(c.addr, a)
            await self.ctx.tick()
            out.append(self.ctx.get(c.rdata))
        return out


def simulate(dut, body):
    sim = Simulator(dut)
    sim.add_clock(1e-6, if_exists=True)

    async def tb(ctx):
        await body(Bench(ctx, dut))
    sim.add_testbench(tb)
    sim.run()


def check_routes(b, planes, salt):
    fwd, bwd = b.drive(salt)
    assert b.outputs() == expected(planes, fwd, bwd)


def load_and_check(kind, planes, start=None, network="benes"):
    """Reset with ``start``, load ``planes`` through the port: the routes do
    not change before commit, equal ``planes`` after it, read back as ``planes``."""
    S, M = len(planes), len(planes[0])
    start = start if start is not None else identity(M, S)
    dut = PlaneSet(M, S, FW, BW, kind, start, network=network)
    writes = dut.writes(planes)

    async def body(b):
        check_routes(b, start, 0)
        await b.load(writes)
        check_routes(b, start, 1)                 # the shadow alone changes nothing
        await b.commit()
        check_routes(b, planes, 2)
        for y in range(S):
            assert dut.decode(await b.readback(y)) == list(planes[y])
    simulate(dut, body)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("planes")
    permnet("planes", "ldi", "-M", 12, "-S", 3, "-o", d / "ldi.json")
    permnet("mixed", "ldi", "-M", 12, "-S", 3, "--plane", "ring", "-o", d / "mixed.json")
    permnet("faults", "ldi", "-M", 12, "-S", 3, "--failed", "2,5", "-o", d / "faults.json")
    permnet("planes", "ldi", "-M", 9, "-S", 3, "-o", d / "ldi9.txt", "--format", "pairs")
    (d / "inv.toml").write_text('[[device]]\nname = "g"\nmodel = "generic"\nports = 16\ncount = 4\n')
    permnet("fabric", "compile", "--topology", "ldi", "-M", 10, "-S", 3, "--inventory", d / "inv.toml",
            "-o", d / "fab")
    return d


LOADED_FILES = ["ldi.json", "mixed.json", "faults.json", "ldi9.txt", "fab/fabric.json"]


# make test: every file once, on crossbar and Beneš planes in turn; the other pairings under -m slow
@pytest.mark.parametrize("name,kind", [pytest.param(n, k, marks=[] if (i + j) % 2 == 0 else [pytest.mark.slow])
                                       for i, n in enumerate(LOADED_FILES) for j, k in enumerate(["crossbar", "benes"])])
def test_loaded_file_routes_as_the_file_says(files, kind, name):
    planes = read_planes(files / name).tolist()
    if name == "fab/fabric.json":
        assert planes == json.loads((files / name).read_text())["planes"]
    assert load_writes(files / name, kind) == runtime.config_writes(kind, planes)
    load_and_check(kind, planes)


def test_faults_file_leaves_failed_ports_unconnected(files):
    planes = read_planes(files / "faults.json")
    assert (planes[:, [2, 5]] == -1).all() and (planes == -1).sum() == 6


@pytest.mark.parametrize("kind", ["wires", "crossbar", "benes"])
def test_reset_configuration_routes(kind):
    planes = [[3, 0, 4, 1, 2], [1, 2, 3, 4, 0]]
    simulate(PlaneSet(5, 2, FW, BW, kind, planes), lambda b: _check_async(b, planes))


async def _check_async(b, planes):
    check_routes(b, planes, 5)


@pytest.mark.parametrize("kind", ["crossbar", "benes"])
def test_commit_takes_effect_at_one_clock_edge(kind):
    M, S = 6, 2
    old = identity(M, S)
    new = [[5, 4, 3, 2, 1, 0], [1, 2, 3, 4, 5, 0]]
    later = [[2, 3, 4, 5, 0, 1], [1, 2, 3, 4, 5, 0]]
    dut = PlaneSet(M, S, FW, BW, kind, old)

    async def body(b):
        await b.load(runtime.config_writes(kind, new))
        # the cycle that carries commit still routes the old planes ...
        b.ctx.set(dut.cfg.commit, 1)
        # ... and a write in that cycle lands in the shadow only
        y, a, d = runtime.config_writes(kind, later)[0]
        b.ctx.set(dut.cfg.plane, y)
        b.ctx.set(dut.cfg.addr, a)
        b.ctx.set(dut.cfg.data, d)
        b.ctx.set(dut.cfg.we, 1)
        check_routes(b, old, 3)
        await b.ctx.tick()
        b.ctx.set(dut.cfg.commit, 0)
        b.ctx.set(dut.cfg.we, 0)
        check_routes(b, new, 4)                     # the next cycle routes the new ones
        await b.ctx.tick()
        check_routes(b, new, 5)
        await b.load(runtime.config_writes(kind, later)[1:])
        check_routes(b, new, 6)
        await b.commit()
        check_routes(b, later, 7)
    simulate(dut, body)


def test_crossbar_partial_update_keeps_the_rest_of_the_shadow():
    # the shadow survives a commit: two writes swap two destinations of plane 1
    M, S = 5, 2
    start = [[1, 2, 3, 4, 0], [4, 3, 2, 1, 0]]
    swapped = [[1, 2, 3, 4, 0], [3, 4, 2, 1, 0]]
    dut = PlaneSet(M, S, FW, BW, "crossbar", start)
    writes = [w for w in runtime.config_writes("crossbar", swapped) if w[0] == 1 and w[1] in (0, 1)]

    async def body(b):
        await b.load(writes)
        await b.commit()
        check_routes(b, swapped, 1)
    simulate(dut, body)


def test_registered_outputs_take_one_cycle():
    M, S = 4, 1
    planes = [[2, 0, 3, 1]]
    dut = PlaneSet(M, S, FW, BW, "crossbar", planes, register=True)

    async def body(b):
        fwd, bwd = b.drive(1)
        await b.ctx.tick()
        b.drive(2)                                  # the outputs show the previous cycle's words
        assert b.outputs() == expected(planes, fwd, bwd)
    simulate(dut, body)


def partial_perms(max_m=9):
    @st.composite
    def draw(draw_):
        M = draw_(st.integers(2, max_m))
        S = draw_(st.integers(1, 2))
        planes = []
        for _ in range(S):
            p = draw_(st.permutations(range(M)))
            off = draw_(st.sets(st.integers(0, M - 1), max_size=M // 2))
            planes.append([-1 if n in off else d for n, d in enumerate(p)])
        return planes
    return draw()


@settings(max_examples=15, deadline=None)
@given(planes=partial_perms(), network=st.sampled_from(["benes", "waksman"]))
def test_benes_random_permutations(planes, network):
    # non-powers of two included (any M >= 2: Chang & Melhem's arbitrary-size Beneš)
    load_and_check("benes", planes, network=network)


@settings(max_examples=8, deadline=None)
@given(planes=partial_perms())
def test_crossbar_random_permutations(planes):
    load_and_check("crossbar", planes)


def test_benes_reverse_is_the_inverse_for_every_permutation_of_4():
    import itertools
    perms = [list(p) for p in itertools.permutations(range(4))]
    for k in range(0, len(perms), 4):
        load_and_check("benes", perms[k:k + 4])


@pytest.mark.parametrize("kind", ["crossbar", "benes"])
def test_gate_bits_zero_only_the_low_bits_of_an_unconnected_forward_word(kind):
    """``gate_bits=1`` (the network's links): a connected port passes its whole words, an
    unconnected one reads bit 0 of its forward word and all of its backward word as 0."""
    planes = [[2, -1, 0, 3, -1], [-1, 4, 3, 1, 0]]

    async def body(b):
        fwd, bwd = b.drive(7)
        fo, bo = b.outputs()
        want_f, want_b = expected(planes, fwd, bwd)
        for y in range(2):
            reached = {d for d in planes[y] if d >= 0}
            for n in range(5):
                if n in reached:
                    assert fo[y][n] == want_f[y][n]
                else:
                    assert fo[y][n] & 1 == 0
                assert bo[y][n] == want_b[y][n]
        assert any(fo[y][n] >> 1 for y in range(2) for n in range(5) if n not in set(planes[y]))
    simulate(PlaneSet(5, 2, FW, BW, kind, planes, gate_bits=1), body)


@pytest.mark.parametrize("args,msg", [
    ((1, 1, 8, 4, "crossbar", [[0]]), "M must be >= 2"),
    ((4, 1, 8, 4, "mesh", [[0, 1, 2, 3]]), "unknown plane kind"),
    ((4, 2, 8, 4, "benes", [[0, 1, 2, 3]]), "1 planes given, the plane set has 2"),
    ((3, 1, 8, 4, "crossbar", [[0, 0, 1]]), "plane 0"),
])
def test_bad_parameters(args, msg):
    with pytest.raises(PermnetError, match=msg):
        PlaneSet(*args)


def test_bad_gate_bits():
    for g in (0, 9):
        with pytest.raises(PermnetError, match="gate_bits must be 1..8"):
            PlaneSet(4, 1, 8, 4, "crossbar", [[0, 1, 2, 3]], gate_bits=g)




def test_cells_ecp5_instantiates_the_hand_mapped_trees():
    from amaranth.back import rtlil
    for kind, cell in (("crossbar", "L6MUX21"), ("benes", "LUT4")):
        dut = PlaneSet(8, 1, 2, 1, kind, identity(8, 1))
        dut.cells = "ecp5"
        text = rtlil.convert(dut, name="planes")
        assert f"cell \\{cell} " in text
