"""Planes loaded into the network design over the host link, and live swaps (issue 25).

The model is the session's LDI(8,2) on crossbar planes (``conftest.NET_MODEL``). Loaded
planes: the active configuration read back equals the words loaded, and every counter equals
the simulator's run on those planes and their routes. A swap mid-run (drained): every packet
the generators made is ejected once at its destination, node for node, none misdelivered, no
payload error, the swap's drain reported. The fast tests check the host side without a model."""

import json

import pytest

from permnet.cli import main
from permnet.gen.hil import regmap as R
from permnet.gen.hil.netgen import GenParams, rate_of, trace
from permnet.hil.link import Link

# node 3 fails in the faults configuration: a permutation of the other seven, 3 -> 3 (never sends)
SURVIVOR_PERM = (4, 0, 7, 3, 6, 1, 2, 5)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Outputs of permnet planes / faults / mixed for LDI(8,2)."""
    d = tmp_path_factory.mktemp("planes")
    out = {"colouring": d / "ldi8c.json", "faults": d / "ldi8f3.json", "mixed": d / "mixed8.json"}
    assert main(["planes", "ldi", "-M", "8", "-S", "2", "--method", "colouring", "-o", str(out["colouring"])]) == 0
    assert main(["faults", "ldi", "-M", "8", "-S", "2", "--failed", "3", "-o", str(out["faults"])]) == 0
    assert main(["mixed", "ldi", "-M", "8", "-S", "2", "--plane", "ring", "--plane", "ring-",
                 "-o", str(out["mixed"])]) == 0
    return out


def _conserved(rep):
    rows = rep.packets
    assert sum(rep.got["gen_packets"]) == rows == sum(rep.got["ej_packets"])
    assert sum(rep.got["inj_flits"]) == sum(rep.got["ej_flits"])
    for name in ("misdelivered", "payload_errors", "dropped"):
        assert rep.got[name] == [0] * 8, name


@pytest.mark.slow        # the model's build: minutes; each run: seconds
@pytest.mark.parametrize("which,params", [
    ("colouring", GenParams("uniform", rate=rate_of(0.1), size=4, seed=3)),
    ("faults", GenParams("permutation", rate=rate_of(0.08), size=4, seed=5, perm=SURVIVOR_PERM)),
    ("mixed", GenParams("uniform", rate=rate_of(0.08), size=3, seed=4)),
])
def test_loaded_planes_read_back_and_counters_equal_netsim(net_url, files, which, params):
    from permnet.hil.netrun import run_network

    rep = run_network(net_url, cycles=1500, params=params, planes=files[which], timeout=2.0)
    assert rep.compared == "exact" and rep.readback["planes"] == 16 and rep.readback["routes"] > 0
    assert rep.ok, rep.diffs[:5]
    assert rep.packets > 100 and sum(rep.got["ej_packets"]) == rep.packets
    if which == "faults":
        assert rep.got["gen_packets"][3] == 0 and rep.got["ej_packets"][3] == 0


@pytest.mark.slow
@pytest.mark.parametrize("first,to,params", [
    (None, "faults", GenParams("permutation", rate=rate_of(0.08), size=4, seed=1, perm=SURVIVOR_PERM)),
    (None, "mixed", GenParams("uniform", rate=rate_of(0.1), size=4, seed=2)),
    ("mixed", "colouring", GenParams("hotspot", rate=rate_of(0.08), size=2, seed=6, hot=5)),
])
def test_live_swap_loses_nothing(net_url, files, first, to, params):
    from permnet.hil.netrun import run_network

    rep = run_network(net_url, cycles=2000, params=params, timeout=2.0, planes=files[first] if first else None,
                      swap_to=files[to], swap_at=1000)
    assert rep.compared == "conservation" and rep.ok, rep.diffs[:5]
    _conserved(rep)
    w = rep.swap
    assert w["swaps"] == 1 and w["at"] == 1000 and w["committed"] == 1000 + w["cycles"]
    # the network held packets at cycle 1000 (load 0.08..0.1): the drain takes cycles
    assert w["cycles"] >= 2 and w["readback_planes"] == 16
    # per node: every packet made at a source was ejected at its destination
    rows = trace(8, params, rep.start, rep.stop)
    assert rep.got["ej_packets"] == [sum(1 for r in rows if r[2] == d) for d in range(8)]


@pytest.mark.slow
def test_link_faults_during_a_swap_run_leave_loaded_planes_and_counters_exact(net_model, files):
    """Framed mode under a corrupted request and a dropped answer: the auto-incrementing shadow
    writes are neither repeated nor lost (duplicate writes are recognised), the counters exact."""
    from permnet.hdl.hil.verilator import SimServer
    from permnet.hil.netrun import run_network

    params = GenParams("permutation", rate=rate_of(0.1), size=4, seed=8, perm=SURVIVOR_PERM)
    with SimServer(net_model, faults=["corrupt:300", "drop:700", "corrupt:1500"], max_seconds=300) as srv:
        # a host time-out longer than the bridge's idle time-out (6553 cycles, about 0.3 s of this
        # model under load): a retry never lands on the partial frame a dropped byte left
        rep = run_network(srv.url, cycles=800, params=params, timeout=1.0, planes=files["faults"])
    assert rep.ok, rep.diffs[:5]
    assert rep.link["link_retries"] >= 2 and rep.link["link_crc_errors"] >= 1


def test_network_planes_block_is_in_the_register_map():
    regs = {f"{r.block}_{r.name}": r for r in R.registers("network", M=8)}
    for name in ("plane_addr", "plane_data", "plane_rb", "rt_addr", "rt_data", "rt_rb", "swap", "swap_at",
                 "status", "swap_cycles", "swap_cycle"):
        assert f"netplanes_{name}" in regs
    assert regs["netplanes_plane_rb"].access == "RO" and regs["netplanes_plane_data"].access == "W"
    csv = R.to_csv(R.registers("network", M=8))
    assert "csr_base,netplanes,0x0001c000,," in csv and "csr_register,netplanes_swap_cycles,0x0001c02c,1,ro" in csv
    # the read-back windows: 256 words at 0x7100 and 0x7200, memory regions for LiteX (not 512 registers)
    assert "memory_region,netplanes_plane_win,0x0001c400,1024,io" in csv and "netplanes_rt_win0" not in csv
    assert "memory_region,netplanes_rt_win,0x0001c800,1024,io" in csv


class NetplanesModel(Link):
    """A :class:`permnet.hil.link.Link` whose frames go to a register model of the netplanes
    read-back (the address registers, ``plane_rb``/``rt_rb`` and the windows, as the register
    map documents them), counting frames; the link's own splitting of bursts is kept."""

    def __init__(self, active):
        self.url, self.framed, self.stats = "model", True, {"frames": 0}
        self.active, self.addr = active, {"plane": 0, "rt": 0}

    def _framed(self, cmd, addr, words=(), n=0):
        self.stats["frames"] += 1
        base = R.BASES["netplanes"]
        if cmd == 0x01:                                    # a write of an address register
            assert n == 0 and len(words) == 1
            self.addr[{base + 2: "plane", base + 5: "rt"}[addr]] = words[0]
            return []
        assert cmd == 0x02 and n <= 32
        kind, first = {base + 4: ("plane", 0), base + 7: ("rt", 0)}.get(addr, (None, None))
        if kind is None:
            kind, first = ("plane", addr - base - 0x100) if addr < base + 0x200 else ("rt", addr - base - 0x200)
            assert 0 <= first and first + n <= 256                    # a burst stays inside its window
        a = self.addr[kind]
        return [self.active[kind].get((a >> 16, (a & 0xFFFF) + first + i), 0) for i in range(n)]


def test_readback_reads_runs_of_entries_through_the_windows(files):
    """The LDI(8,2) device's read-back of a mixed (ring, reverse ring) set: per plane and per node
    one address write and one framed read per 32 entries, all equal; a wrong active entry is
    reported at its (plane, entry)."""
    from permnet.gen.routing import tables
    from permnet.hil.netrun import _readback, device_routes
    from permnet.planeload import swap_load

    routes = device_routes({"vcs": 4}, tables.network("ldi", 8, 2).table)
    words = swap_load(files["mixed"], routes, "crossbar")
    active = {"plane": {(y, a): d for y, a, d in words.planes}, "rt": {(n, a): d for n, a, d in words.routes}}
    link = NetplanesModel(active)
    diffs, counts = _readback(link, words, "planes")
    assert diffs == [] and counts == {"planes": 16, "routes": 8 * 64}
    assert link.stats["frames"] == 2 * (1 + 1) + 8 * (1 + 2)    # 28 frames (2 per entry before the windows: 1056)
    active["rt"][(5, 17)] ^= 2
    diffs, _ = _readback(NetplanesModel(active), words, "swap")
    assert [d[:2] for d in diffs] == [["readback swap routes", [5, 17]]]


def test_conservation_counts_come_from_the_trace():
    from permnet.hil.netrun import _conservation

    params = GenParams("uniform", rate=rate_of(0.2), size=3, seed=1)
    rows = trace(8, params, 0, 200)
    want = _conservation(8, rows)
    assert sum(want["ej_packets"]) == len(rows) == sum(want["gen_packets"])
    assert want["ej_flits"] == [3 * k for k in want["ej_packets"]]
    assert want["lat_sum"] is None and want["lat_max"] is None and want["misdelivered"] == [0] * 8


def test_survivor_prediction_matches_the_renumbered_network(files):
    """With a failed node the simulator runs on the survivors (renumbered); counters map back."""
    from permnet.gen.routing.runtime import route_table
    from permnet.hil.netrun import _predict
    from permnet.planeload import read_planes
    from permnet.sim.netsim import Config

    table = route_table(read_planes(files["faults"]))
    rows = trace(8, GenParams("permutation", rate=rate_of(0.1), size=4, seed=5, perm=SURVIVOR_PERM), 0, 300)
    got = _predict(table, rows, Config(vcs=4, buffer=4, lanes=2))
    assert got["ej_packets"][3] == 0 and sum(got["ej_packets"]) == len(rows)
    for d in range(8):
        assert got["ej_packets"][d] == sum(1 for r in rows if r[2] == d)
    assert got["lat_sum"][3] == 0 and min(got["lat_max"][n] for n in range(8) if n != 3) >= 4


@pytest.mark.parametrize("pattern", ["uniform", "hotspot"])
def test_traffic_to_failed_nodes_is_refused(files, pattern):
    from permnet.gen.errors import PermnetError
    from permnet.hil.netrun import _check_traffic
    from permnet.planeload import read_planes

    with pytest.raises(PermnetError, match="unconnected"):
        _check_traffic(8, GenParams(pattern, seed=1), [read_planes(files["faults"])])
    _check_traffic(8, GenParams("permutation", seed=1, perm=SURVIVOR_PERM), [read_planes(files["faults"])])
    with pytest.raises(PermnetError, match="unconnected"):       # 0 sends to the failed node 3
        _check_traffic(8, GenParams("permutation", seed=1, perm=(3, 0, 7, 2, 6, 1, 4, 5)),
                       [read_planes(files["faults"])])


@pytest.mark.parametrize("args,needle", [
    (["--design", "network", "--swap-at", "100"], "--swap-at needs --swap-to"),
    (["--config", "y.json", "--planes", "x.json"], "--planes is an option of --design network"),
])
def test_hil_run_swap_options_unusable_input_exits_2(args, needle, capsys):
    code = main(["hil", "run", "--url", "socket://127.0.0.1:1", "--timeout", "0.2", *args])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("permnet: error:") and needle in err and "Traceback" not in err
