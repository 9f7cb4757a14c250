"""The network design through the host link (the session's Verilator model of
HilTop(design="network") on LDI(8,2), ``conftest.NET_MODEL``): every counter read over the
link equals the simulator's prediction for the generators' trace, also with faults injected on the link, and a run that overloads its source
queues is reported as different."""

import pytest

from permnet.gen.hil.netgen import GenParams, rate_of
from permnet.gen.hil import regmap as R


@pytest.mark.slow
def test_link_faults_during_a_run_leave_the_counters_exact(net_model):
    """A corrupted byte in the parameter writes and a dropped byte in the counter reads: the
    framed link retries both, and the counters still equal the simulator's."""
    from permnet.hdl.hil.verilator import SimServer
    from permnet.hil.netrun import run_network

    # the session model has loadable planes, so the host reads the netplanes block first and the
    # stream shifted: byte 40 now cost a time-out and no CRC error; byte 60 gives the CRC error
    # this test is for (measured: 2 retries, 1 CRC error, 1 time-out)
    with SimServer(net_model, faults=["corrupt:60", "drop:200"], max_seconds=120) as srv:
        rep = run_network(srv.url, cycles=500, timeout=0.3, params=GenParams("uniform", rate=rate_of(0.1), size=4,
                                                                             seed=2))
    assert rep.ok, rep.diffs
    assert rep.link["link_retries"] >= 2 and rep.link["link_crc_errors"] >= 1 and rep.link["link_timeouts"] >= 1


@pytest.mark.slow        # the model's build: minutes (amaranth + verilator); the runs: seconds
@pytest.mark.parametrize("params", [
    GenParams("uniform", rate=rate_of(0.1), size=4, seed=7),
    GenParams("permutation", rate=rate_of(0.08), size=3, seed=1, perm=(3, 0, 7, 2, 6, 1, 4, 5)),
])
def test_network_counters_equal_netsim_over_the_link(net_url, params):
    from permnet.hil.netrun import run_network

    rep = run_network(net_url, cycles=2000, params=params, timeout=2.0)
    assert rep.packets > 100 and rep.network["M"] == 8
    assert rep.ok, rep.diffs
    assert rep.link["link_retries"] == 0
    assert sum(rep.got["ej_packets"]) == rep.packets and sum(rep.got["payload_errors"]) == 0
    assert rep.got["lat_sum"] == rep.want["lat_sum"] and max(rep.got["lat_max"]) > 0


@pytest.mark.slow
def test_overloaded_queues_are_reported_different(net_url):
    from permnet.hil.netrun import run_network

    rep = run_network(net_url, cycles=400, timeout=2.0,
                      params=GenParams("permutation", rate=rate_of(0.6), size=4, seed=1, perm=(3, 0, 7, 2, 6, 1, 4, 5)))
    assert not rep.ok and sum(rep.got["dropped"]) > 0
    assert any(d[0] == "inj_packets" for d in rep.diffs)


def test_network_design_is_in_the_register_map():
    regs = {f"{r.block}_{r.name}": r for r in R.registers("network", M=8)}
    assert all(regs[f"netgen_{c}"].count == 8 and regs[f"netgen_{c}"].access == "RO" for c in R.NET_COUNTERS)
    assert regs["netgen_perm"].count == 8 and "netgen_ctrl" in regs
    from permnet.hdl.hil.netgen import COUNTERS
    assert COUNTERS == R.NET_COUNTERS


@pytest.mark.parametrize("args,needle", [
    (["--url", "socket://127.0.0.1:1"], "127.0.0.1:1"),                         # no link
    (["--url", "socket://127.0.0.1:1", "--config", "x.json"], "takes no configuration"),
])
def test_hil_run_network_unusable_input_exits_2(args, needle, capsys):
    from permnet.cli import main

    assert main(["hil", "run", "--design", "network", "--timeout", "0.2", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("permnet: error:") and needle in err and "Traceback" not in err


@pytest.mark.slow
def test_back_to_back_runs_start_from_the_same_state(net_url):
    """clear resets the routers (arbiters, credits) too: a run after a long one that left the
    round-robin pointers anywhere still equals the simulator, which starts from reset."""
    from permnet.hil.netrun import run_network

    params = GenParams("uniform", rate=rate_of(0.1), size=4, seed=2)
    first = run_network(net_url, cycles=3000, params=GenParams("uniform", rate=rate_of(0.1), size=4, seed=9))
    again = [run_network(net_url, cycles=500, params=params) for _ in range(2)]
    assert first.ok and all(r.ok for r in again), [r.diffs for r in again]
    assert again[0].got == again[1].got
