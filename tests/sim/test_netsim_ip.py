"""IP and super-IP families in netsim and deadlock (issue 14): built by name as
``permnet topo`` builds them, routed by shortest-path tables; every delivered
packet took exactly the BFS distance of the family's graph (networkx, on the
topology itself, not on the planes or the tables)."""

import json

import networkx as nx
import numpy as np
import pytest

from netsim_helpers import run_main
from permnet.gen.routing import tables
from permnet.gen.topologies import ipgraph, qcn
from permnet.sim import netsim


def bfs_lengths(topo):
    G = nx.DiGraph() if topo.directed else nx.Graph()
    G.add_nodes_from(range(topo.n))
    G.add_edges_from(zip(topo.tails.tolist(), topo.heads.tolist()))
    return dict(nx.all_pairs_shortest_path_length(G))


@pytest.mark.parametrize("family,kw,graph", [
    ("hsn", {"levels": 2, "nucleus": "Q3"}, lambda: ipgraph.super_ip("hsn", 2, "hypercube:3")),
    ("rcc", {"levels": 3, "nucleus": "K4"}, lambda: ipgraph.rcc(3, "K4")),
    ("qcn", {"levels": 2, "nucleus": "Q5", "merge": "Q2"}, lambda: qcn.qcn(2, 5, 2)),
    ("directed-cn", {"levels": 3, "nucleus": "Q2"}, lambda: ipgraph.super_ip("directed-cn", 3, "hypercube:2")),
])
def test_delivered_hops_are_bfs_distances(family, kw, graph):
    net = tables.network(family, None, **kw)
    topo = graph().topology
    M = topo.n
    assert net.table.M == M
    dist = bfs_lengths(topo)
    rng = np.random.default_rng(7)
    rows = sorted((int(rng.integers(0, 1500)), int(s), int(d), int(rng.integers(1, 5)))
                  for s, d in rng.integers(0, M, size=(300, 2)))
    text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
    r = netsim.simulate(net, netsim.parse_trace(text, M, 8), 1.0, netsim.Config(log=10 ** 5))
    assert not r.deadlock and r.delivered_total == len(rows) and r.in_flight == 0
    assert len(r.log) == len(rows)
    for serial, src, dst, t0, done, hops, size in r.log.tolist():
        assert hops == dist[src][dst]
        assert done - t0 >= hops + size


def test_cli_netsim_and_deadlock_by_name(capsys):
    r = run_main(["netsim", "--topology", "hsn", "--levels", "2", "--nucleus", "Q3", "--load", "0.05",
                  "--cycles", "300", "--warmup", "50", "--json"], capsys)
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.output)
    assert d["topology"] == "hsn(2,Q3)" and d["delivered"] > 0
    r = run_main(["deadlock", "--topology", "qcn", "--levels", "2", "--nucleus", "Q4", "--merge", "Q2", "--json"],
                 capsys)
    assert r.exit_code == 0 and json.loads(r.output)["acyclic"] is True
    for argv, msg in [(["netsim", "--topology", "rcc", "--nucleus", "K4"], "needs --levels"),
                      (["deadlock", "--topology", "hsn", "--levels", "2", "--nucleus", "Q3", "-M", "60"],
                       "disagrees"),
                      (["deadlock", "--topology", "ldi", "-M", "16", "-S", "4", "--levels", "2"], "IP families"),
                      (["netsim", "--topology", "hsn", "--levels", "4", "--nucleus", "Q4"], "limit 4096"),
                      (["deadlock", "--topology", "rcc", "--levels", "2", "--nucleus", "Q2"], "complete graph")]:
        r = run_main(argv, capsys)
        assert r.exit_code == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, (argv, r.stderr)
