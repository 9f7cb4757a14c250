"""The network design with deflection routers through the host link (issue 41): the Verilator
model of HilTop(design="network", switching="deflection") on LDI(8,2); every counter read over
the link equals netsim's deflection model fed the generators' trace."""

import json
import shutil
from pathlib import Path

import pytest

from permnet.gen.hil.netgen import GenParams, rate_of

BUILD = Path(__file__).resolve().parents[2] / "build" / "hil-sim"
DEFL_MODEL = {"design": "network", "M": 8, "S": 2, "width": 8, "switching": "deflection", "opt": "-O1"}


@pytest.fixture(scope="module")
def defl_url():
    """The deflection network model (:data:`DEFL_MODEL`), built once (cached in build/hil-sim)."""
    from permnet.hdl.hil.verilator import SimServer, build

    if shutil.which("verilator") is None:
        try:
            from permnet.hdl.hil.verilator import verilator_path
            verilator_path()
        except Exception:
            pytest.skip("verilator not available")
    params = dict(DEFL_MODEL)
    exe = build(BUILD, design=params.pop("design"), **params)
    with SimServer(exe, max_seconds=600) as srv:
        yield srv.url


@pytest.mark.slow        # the model's build: about 1.5 minutes (amaranth + verilator); the runs: seconds
@pytest.mark.parametrize("params", [
    GenParams("uniform", rate=rate_of(0.3), size=1, seed=7),
    GenParams("permutation", rate=rate_of(0.5), size=1, seed=1, perm=(3, 0, 7, 2, 6, 1, 4, 5)),
    GenParams("hotspot", rate=rate_of(0.2), size=1, seed=3, hot=5, hot_frac=1 << 14),
])
def test_deflection_counters_equal_netsim_over_the_link(defl_url, params):
    from permnet.hil.netrun import run_network

    rep = run_network(defl_url, cycles=2000, params=params, timeout=2.0)
    assert rep.network["switching"] == "deflection" and rep.network["ejection"] == 2 and rep.network["M"] == 8
    assert rep.packets > 1000
    assert rep.ok, rep.diffs
    assert sum(rep.got["ej_packets"]) == rep.packets and sum(rep.got["dropped"]) == 0
    assert sum(rep.got["payload_errors"]) == 0 and sum(rep.got["misdelivered"]) == 0
    assert rep.got["lat_sum"] == rep.want["lat_sum"] and max(rep.got["lat_max"]) > 3


@pytest.mark.slow
def test_hil_run_cli_on_deflection_defaults_to_single_flits(defl_url, capsys):
    """``permnet hil run --design network`` without --packet-size runs 1-flit packets on deflection
    routers (exit 0, equal); --packet-size 4 is refused in one line (exit 2)."""
    from permnet.cli import main

    assert main(["hil", "run", "--url", defl_url, "--design", "network", "--cycles", "500", "--load", "0.3",
                 "--timeout", "2", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ok"] and rep["params"]["size"] == 1 and rep["network"]["switching"] == "deflection"
    assert main(["hil", "run", "--url", defl_url, "--design", "network", "--packet-size", "4",
                 "--timeout", "2"]) == 2
    err = capsys.readouterr().err
    assert "give --packet-size 1" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_overloaded_deflection_queues_are_reported_different(defl_url):
    """A permutation at one packet per node per cycle overruns the 64-packet source queues of
    injection-stalled nodes: the drops make the injection counters differ from the model's."""
    from permnet.hil.netrun import run_network

    rep = run_network(defl_url, cycles=1000, timeout=2.0,
                      params=GenParams("permutation", rate=rate_of(1.0), size=1, seed=1, perm=(3, 0, 7, 2, 6, 1, 4, 5)))
    assert not rep.ok and sum(rep.got["dropped"]) > 0
    assert any(d[0] == "inj_packets" for d in rep.diffs)
