"""``permnet rtl network --planes-file`` (issue 26): the planes ``permnet plan`` chose for a
demand become the RTL network's wires, routed by route tables; the self-test top delivers
every packet at the cycle the simulator does."""

import numpy as np
import pytest

from cli_runner import run_in_process
from network_helpers import selftest_run
from permnet import ocsconfig
from permnet.rtlnet import network


def bfs_hops(planes, src):
    """Hop counts from src on the union of the planes (an independent BFS)."""
    dist = {src: 0}
    front = [src]
    while front:
        nxt = []
        for u in front:
            for row in planes:
                v = int(row[u])
                if v not in dist:
                    dist[v] = dist[u] + 1
                    nxt.append(v)
        front = nxt
    return dist


def test_planned_planes_wire_the_selftest_network(tmp_path, capsys):
    path = tmp_path / "p.json"
    code, _, err = run_in_process(capsys, "plan", "--traffic", "stencil2d", "--nodes", 8, "--degree", 2, "-o", path)
    assert code == 0, err
    planes = ocsconfig.read(path).planes
    gen = network(8, 2, planes_file=path, packets=24, span=12, max_size=3, seed=1)
    dut = gen.component
    assert gen.name == "planes_network" and gen.params["router"] == "table"
    assert dut.planes == planes.tolist()                       # the file's planes are the wires
    # every route a walk along the planes to its destination, on a shortest path
    for s in range(8):
        dist = bfs_hops(planes, s)
        for d in range(8):
            node = s
            for y in dut.hops[s][d][:dut.length[s][d]]:
                node = int(planes[y][node])
            assert node == d and dut.length[s][d] == dist[d]
    expected = gen.init_files["expected"]
    got, out = selftest_run(dut, 8, max(expected) + 5)
    assert out["error"] == 0
    assert got == dict(enumerate(expected))                    # every packet, at the simulator's cycle


@pytest.mark.parametrize("args,needle", [
    (["-M", 9, "-S", 2], "8 ports per plane, the plane set has 9"),
    (["-M", 8, "-S", 3], "2 planes, the plane set has 3"),
    (["-M", 8, "-S", 2, "--router", "nexthop"], "--router nexthop needs LDI(M,S)"),
])
def test_planes_file_mismatch_is_one_line(tmp_path, capsys, args, needle):
    run_in_process(capsys, "plan", "--traffic", "tornado", "--nodes", 8, "--degree", 2, "-o", tmp_path / "p.json")
    code, _, err = run_in_process(capsys, "rtl", "network", *args, "--planes-file", tmp_path / "p.json",
                                  "-o", tmp_path / "out" / "x.v")
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_unconnected_ports_are_refused(tmp_path, capsys):
    planes = np.array([[1, 2, 3, 0], [-1, 3, 0, 1]])
    ocsconfig.write_files(ocsconfig.OcsConfig(planes, {}), tmp_path / "f.json", "json", None, False)
    code, _, err = run_in_process(capsys, "rtl", "network", "-M", 4, "-S", 2, "--planes-file", tmp_path / "f.json",
                                  "-o", tmp_path / "x.v")
    assert code == 2 and "unconnected ports" in err and not (tmp_path / "x.v").exists()


def test_stream_routes_and_swap_words_start_from_the_file(tmp_path, capsys):
    """With streams and run-time planes the file's planes are the reset configuration: the
    routes start there, and a swap back to LDI(8,2) needs words that differ from them."""
    from permnet.gen.routing import tables
    from permnet.rtlnet import stream_routes, swap_words

    path = tmp_path / "p.json"
    run_in_process(capsys, "plan", "--traffic", "tornado", "--nodes", 8, "--degree", 2, "-o", path)
    planes = ocsconfig.read(path).planes
    net, routes, vcs = stream_routes(8, 2, planes="crossbar", planes_file=path)
    assert routes.planes == planes.tolist() and routes.router == "table" and routes.loadable
    assert vcs == int(np.max(routes.length)) and net.name == "planes p.json"
    ldi = tables.network("ldi", 8, 2).planes
    same = swap_words(8, 2, path, "crossbar", router="table", planes_file=path, only_changes=True)
    assert same.planes == [] and same.routes == []               # swapping to the reset planes changes nothing
    other = swap_words(8, 2, ldi, "crossbar", router="table", vcs=4, planes_file=path, only_changes=True)
    assert other.planes and other.table.planes.tolist() == ldi.tolist()
