"""The network design with deflection routers through the host link (issue 41): the Verilator
model of HilTop(design="network", switching="deflection") on LDI(8,2); every counter read over
the link equals netsim's deflection model fed the generators' trace."""

import json
import shutil
from pathlib import Path

import pytest

from permnet.gen.hil.netgen import GenParams, rate_of

BUILD = Path(__file__).resolve().parents[2] / "build" / "hil-sim"
MODELS = {
    "defl": {"design": "network", "M": 8, "S": 2, "width": 8, "switching": "deflection", "opt": "-O1"},
    # run-time crossbar planes, one ejection port, two stages a hop: not the defaults
    "swap": {"design": "network", "M": 8, "S": 2, "width": 8, "switching": "deflection", "planes": "crossbar",
             "ejection": 1, "stages": 2, "opt": "-O1"},
}


@pytest.fixture(scope="module")
def model_url(request):
    """The Verilator model ``MODELS[request.param]`` (a test names it with :func:`model`), built once
    (cached in build/hil-sim) and served while the module's tests use it."""
    from permnet.hdl.hil.verilator import SimServer, build

    if shutil.which("verilator") is None:
        try:
            from permnet.hdl.hil.verilator import verilator_path
            verilator_path()
        except Exception:
            pytest.skip("verilator not available")
    params = dict(MODELS[request.param])
    exe = build(BUILD, design=params.pop("design"), **params)
    with SimServer(exe, max_seconds=600) as srv:
        yield srv.url


def model(name: str):
    """The test runs against the model ``MODELS[name]`` (its ``model_url``)."""
    return pytest.mark.parametrize("model_url", [name], indirect=True)


@pytest.mark.slow        # the model's build: about 1.5 minutes (amaranth + verilator); the runs: seconds
@model("defl")
@pytest.mark.parametrize("params", [
    GenParams("uniform", rate=rate_of(0.3), size=1, seed=7),
    GenParams("permutation", rate=rate_of(0.5), size=1, seed=1, perm=(3, 0, 7, 2, 6, 1, 4, 5)),
    GenParams("hotspot", rate=rate_of(0.2), size=1, seed=3, hot=5, hot_frac=1 << 14),
])
def test_deflection_counters_equal_netsim_over_the_link(model_url, params):
    from permnet.hil.netrun import run_network

    rep = run_network(model_url, cycles=2000, params=params, timeout=2.0)
    assert rep.network["switching"] == "deflection" and rep.network["ejection"] == 2 and rep.network["M"] == 8
    assert rep.packets > 1000
    assert rep.ok, rep.diffs
    assert sum(rep.got["ej_packets"]) == rep.packets and sum(rep.got["dropped"]) == 0
    assert sum(rep.got["payload_errors"]) == 0 and sum(rep.got["misdelivered"]) == 0
    assert rep.got["lat_sum"] == rep.want["lat_sum"] and max(rep.got["lat_max"]) > 3


@pytest.mark.slow
@model("defl")
def test_hil_run_cli_on_deflection_defaults_to_single_flits(model_url, capsys):
    """``permnet hil run --design network`` without --packet-size runs 1-flit packets on deflection
    routers (exit 0, equal); --packet-size 4 is refused in one line (exit 2)."""
    from permnet.cli import main

    assert main(["hil", "run", "--url", model_url, "--design", "network", "--cycles", "500", "--load", "0.3",
                 "--timeout", "2", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ok"] and rep["params"]["size"] == 1 and rep["network"]["switching"] == "deflection"
    assert main(["hil", "run", "--url", model_url, "--design", "network", "--packet-size", "4",
                 "--timeout", "2"]) == 2
    err = capsys.readouterr().err
    assert "give --packet-size 1" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
@model("defl")
def test_overloaded_deflection_queues_are_reported_different(model_url):
    """A permutation at one packet per node per cycle overruns the 64-packet source queues of
    injection-stalled nodes: the drops make the injection counters differ from the model's."""
    from permnet.hil.netrun import run_network

    rep = run_network(model_url, cycles=1000, timeout=2.0,
                      params=GenParams("permutation", rate=rate_of(1.0), size=1, seed=1, perm=(3, 0, 7, 2, 6, 1, 4, 5)))
    assert not rep.ok and sum(rep.got["dropped"]) > 0
    assert any(d[0] == "inj_packets" for d in rep.diffs)


@pytest.fixture(scope="module")
def plane_files(tmp_path_factory):
    """LDI(8,2) decomposed by colouring, and the ring + reverse ring (diameter 4, not LDI's 3)."""
    from permnet.cli import main

    d = tmp_path_factory.mktemp("planes")
    out = {"colouring": d / "ldi8c.json", "mixed": d / "mixed8.json"}
    assert main(["planes", "ldi", "-M", "8", "-S", "2", "--method", "colouring", "-o", str(out["colouring"])]) == 0
    assert main(["mixed", "ldi", "-M", "8", "-S", "2", "--plane", "ring", "--plane", "ring-",
                 "-o", str(out["mixed"])]) == 0
    return out


@pytest.mark.slow        # the model's build: about 2 minutes; the runs: seconds
@model("swap")
@pytest.mark.parametrize("params", [
    GenParams("uniform", rate=rate_of(0.25), size=1, seed=2),
    GenParams("hotspot", rate=rate_of(0.15), size=1, seed=4, hot=2, hot_frac=1 << 14),
])
def test_one_ejection_port_two_stages_equal_netsim(model_url, params):
    """E = 1, P = 2 read from the device; its counters equal netsim's with --ejection-width 1 and
    --link-stages 1 (a hop of two cycles), on the reset planes."""
    from permnet.hil.netrun import run_network

    rep = run_network(model_url, cycles=2000, params=params, timeout=2.0)
    assert (rep.network["ejection"], rep.network["stages"], rep.network["planes"]) == (1, 2, "crossbar")
    assert rep.model == "netsim" and rep.compared == "exact" and rep.packets > 500
    assert rep.ok, rep.diffs[:5]
    assert sum(rep.got["ej_packets"]) == rep.packets and sum(rep.got["dropped"]) == 0


@pytest.mark.slow
@model("swap")
@pytest.mark.parametrize("first,to,params", [
    (None, "mixed", GenParams("uniform", rate=rate_of(0.2), size=1, seed=5)),
    ("colouring", "mixed", GenParams("permutation", rate=rate_of(0.3), size=1, seed=1, perm=(3, 0, 7, 2, 6, 1, 4, 5))),
    ("mixed", "colouring", GenParams("uniform", rate=rate_of(0.25), size=1, seed=6)),
])
def test_swap_without_drain_equals_the_model(model_url, plane_files, first, to, params):
    """Planes loaded and swapped in traffic: every counter (latencies too) equals the spec's
    route_step model with the planes changed at the commit, nothing lost or misdelivered; the
    commit is at the request (no drain) and the cycles until the last flit injected before it
    left equal the model's."""
    from permnet.hil.netrun import run_network

    rep = run_network(model_url, cycles=2000, params=params, timeout=2.0, swap_at=1000, swap_to=plane_files[to],
                      planes=plane_files[first] if first else None)
    assert rep.model == "route_step" and rep.compared == "exact"
    assert rep.ok, rep.diffs[:5]
    w = rep.swap
    assert w["swaps"] == 1 and w["committed"] == w["at"] == 1000 and w["cycles"] == 0
    assert w["old_flits_left"] == w["old_flits_left_model"] >= 2      # flits were in flight at the commit
    assert w["readback_planes"] == 16 and w["readback_routes"] == 64
    assert sum(rep.got["ej_packets"]) == rep.packets > 500
    for name in ("misdelivered", "payload_errors", "dropped"):
        assert rep.got[name] == [0] * 8, name


@pytest.mark.slow
@model("swap")
def test_hil_run_cli_swaps_deflection_planes(model_url, plane_files, capsys):
    from permnet.cli import main

    assert main(["hil", "run", "--url", model_url, "--design", "network", "--cycles", "800", "--load", "0.2",
                 "--planes", str(plane_files["colouring"]), "--swap-to", str(plane_files["mixed"]),
                 "--timeout", "2", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ok"] and rep["swap"]["swaps"] == 1 and rep["model"] == "route_step"


def test_latencies_are_exact_across_the_creation_stamp_wrap():
    """A flit carries its creation cycle mod 2^k (``stamp_bits``); with k = 8 and packets made in
    cycles 240..271, t0 mod 256 wraps in the run (made at 250, ejected after 256), yet every
    counter, ``lat_sum`` and ``lat_max`` too, equals netsim's fed the generators' trace: the
    latency (c + 1 - t0 mod 2^k) mod 2^k is exact while it is below 2^k."""
    from amaranth.sim import Simulator

    from permnet.gen.hil.netgen import trace
    from permnet.gen.routing import tables
    from permnet.hdl.hil.deflgen import DeflectionGen
    from permnet.hdl.hil.netgen import COUNTERS, PATTERN_CODES
    from permnet.sim import netsim
    from permnet.sim.netsim.counters import predict

    M, S, start, stop = 8, 2, 240, 272
    params = GenParams("uniform", rate=rate_of(0.45), size=1, seed=11)
    net = tables.network("ldi", M, S)
    rows = trace(M, params, start, stop)
    want = predict(net, rows, netsim.Config(switching="deflection", packet_size=1, ejection_width=1))
    assert any(c < 256 for c, *_ in rows) and want["cycles"] > 256 and len(rows) > 50
    dut = DeflectionGen(net.table.planes.tolist(), ejection=1, flit_width=8, queue=8, stamp_bits=8)
    got = {}

    async def tb(ctx):
        ctx.set(dut.pattern, PATTERN_CODES[params.pattern])
        for sig, v in ((dut.rate, params.rate), (dut.size, 1), (dut.seed, params.seed), (dut.start, start),
                       (dut.stop, stop)):
            ctx.set(sig, v)
        await ctx.tick().repeat(want["cycles"] + 3)
        got.update({name: [ctx.get(getattr(dut, name)[n]) for n in range(M)] for name in COUNTERS})

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    assert sum(got["ej_packets"]) == len(rows) and sum(got["dropped"]) == 0
    for name in COUNTERS:
        assert got[name] == want[name], name
    assert 0 < max(got["lat_max"]) < 256
