"""Quotient cyclic-shift networks QCN(l, Q_n/Q_k) (Yeh & Parhami, Fig. 3),
against the quotient taken independently from CN(l, Q_n) as built by the
generic IP-graph engine, and their figures against BFS (networkx, scipy)."""

import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from permnet.gen.analysis.clusters import cluster_metrics
from permnet.gen.errors import PermnetError
from permnet.gen.topologies import ipgraph as ip
from permnet.gen.topologies import qcn as q


def box_values(g, n):
    """Box values of every label of a super-IP graph on the nucleus hypercube:n
    (seed 12 34 ...; generator j swaps pair j, so bit j = pair j swapped)."""
    lab = g.labels.astype(np.int64)
    l = lab.shape[1] // (2 * n)
    out = np.zeros((len(lab), l), dtype=np.int64)
    for b in range(l):
        for j in range(n):
            out[:, b] |= (lab[:, b * 2 * n + 2 * j] > lab[:, b * 2 * n + 2 * j + 1]).astype(np.int64) << j
    return out


def quotient_of_cn(family, l, n, k):
    """(class of every CN node, set of simple quotient arcs) from super_ip's CN(l, Q_n)."""
    g = ip.super_ip(family, l, f"hypercube:{n}")
    X = box_values(g, n)
    cls = X[:, 0] >> k
    for i in range(1, l):
        cls = cls | (X[:, i] << (n - k + n * (i - 1)))
    t = g.topology
    arcs = {(int(cls[a]), int(cls[b])) for a, b in zip(t.tails.tolist(), t.heads.tolist()) if cls[a] != cls[b]}
    return g, cls, arcs


def arcs_of(topo):
    return {(a, b) for a, b in zip(topo.tails.tolist(), topo.heads.tolist())}


@pytest.mark.parametrize("family,l,n,k", [("ring-cn", 2, 3, 1), ("ring-cn", 3, 3, 1), ("ring-cn", 2, 4, 2),
                                          ("ring-cn", 3, 4, 2), ("ring-cn", 4, 2, 1), ("ring-cn", 3, 3, 0),
                                          ("complete-cn", 3, 3, 1), ("complete-cn", 4, 2, 1),
                                          ("directed-cn", 3, 3, 1), ("directed-cn", 2, 3, 2)])
def test_quotient_equals_cn_with_its_k_cubes_merged(family, l, n, k):
    g, cls, want = quotient_of_cn(family, l, n, k)
    Q = q.qcn(l, n, k, family)
    assert Q.topology.n == len(np.unique(cls)) == 2 ** (n - k + n * (l - 1))
    assert arcs_of(Q.topology) == want
    assert Q.topology.directed == g.topology.directed
    # every class is a k-cube of one nucleus copy: 2^k CN nodes with the same other boxes
    assert np.all(np.bincount(cls) == 2 ** k)


@pytest.mark.parametrize("l,n,k", [(2, 3, 1), (3, 3, 2), (3, 4, 2)])
def test_ports_are_the_merged_nodes_links(l, n, k):
    """succ holds, for every class, the classes of its members' super-generator
    neighbours (a multiset) and the n-k unmerged flips, once each."""
    g = ip.super_ip("ring-cn", l, f"hypercube:{n}")
    X = box_values(g, n)
    cls = X[:, 0] >> k
    for i in range(1, l):
        cls = cls | (X[:, i] << (n - k + n * (i - 1)))
    Q = q.qcn(l, n, k)
    nuc = len(g.nucleus.generators)
    want = [[] for _ in range(Q.topology.n)]
    for v in range(len(cls)):
        for j in range(nuc, g.succ.shape[1]):
            want[cls[v]].append(int(cls[g.succ[v, j]]))
        if X[v, 0] % 2 ** k == 0:                     # one member adds the flips of the unmerged bits
            want[cls[v]] += [int(cls[g.succ[v, j]]) for j in range(k, n)]
    assert [sorted(w) for w in want] == [sorted(r) for r in Q.succ.tolist()]
    ports = (n - k) + 2 ** k * (1 if l == 2 else 2)
    assert Q.ports == ports
    assert np.all(np.bincount(Q.succ.ravel(), minlength=Q.topology.n) == ports)   # regular multigraph


def scipy_distances(topo):
    a = csr_matrix((np.ones(len(topo.tails)), (topo.tails, topo.heads)), shape=(topo.n, topo.n))
    return shortest_path(a, unweighted=True, directed=True)


@pytest.mark.parametrize("l,n,k", [(2, 3, 1), (2, 4, 2), (3, 3, 1), (3, 4, 2), (4, 3, 1), (2, 7, 3), (3, 4, 1)])
def test_diameter_formula_against_bfs(l, n, k):
    Q = q.qcn(l, n, k)
    d = scipy_distances(Q.topology)
    assert np.isfinite(d).all()
    assert int(d.max()) == Q.diameter_formula() == (n - k + 1) * l - 1        # l D_G + t, t = l - 1
    m = Q.topology.metrics()
    assert m.diameter == int(d.max())
    assert m.avg_hops == pytest.approx(d.sum() / (Q.topology.n * (Q.topology.n - 1)))
    # degree: n-k flips and 2^k links per super-generator, less loops and coincidences
    assert m.degree == Q.ports


def avg_i_distance_formula(l, n, k):
    """Average I-distance with the quotient nuclei as modules: the module graph is
    the undirected de Bruijn graph on words of l-1 boxes over q = 2^n symbols."""
    q_, C = 2 ** n, 2 ** (n - k)
    N = C * q_ ** (l - 1)
    if l == 2:
        total = q_ * (q_ - 1)                                          # every other module at distance 1
    else:
        assert l == 3
        total = (q_ * q_ - q_) * (1 * (2 * q_ - 1) + 2 * (q_ * q_ - 2 * q_)) \
            + q_ * (1 * (2 * q_ - 2) + 2 * (q_ * q_ - 2 * q_ + 1))
    return C * C * total / (N * (N - 1))


@pytest.mark.parametrize("l,n,k", [(2, 3, 1), (2, 4, 2), (3, 3, 1), (3, 3, 2),
                                   pytest.param(3, 4, 2, marks=pytest.mark.slow)])   # the largest (44 s under load): slow
def test_inter_cluster_figures_against_dijkstra(l, n, k):
    Q = q.qcn(l, n, k)
    t = Q.topology
    mods = Q.clusters()
    G = nx.DiGraph()
    G.add_weighted_edges_from((a, b, int(mods[a] != mods[b])) for a, b in zip(t.tails.tolist(), t.heads.tolist()))
    dist = dict(nx.all_pairs_dijkstra_path_length(G))
    vals = [dist[u][v] for u in range(t.n) for v in range(t.n) if u != v]
    c = cluster_metrics(t, mods)
    assert c.max_module_size == 2 ** (n - k)
    assert c.inter_cluster_diameter == max(vals) == l - 1
    assert c.avg_inter_cluster_distance == pytest.approx(sum(vals) / len(vals))
    assert c.avg_inter_cluster_distance == pytest.approx(avg_i_distance_formula(l, n, k))


@pytest.mark.parametrize("l,n,k", [(2, 3, 1), (3, 3, 1), (3, 4, 2)])
def test_modules_are_connected_as_the_nuclei_of_cn(l, n, k):
    """Why merge: QCN's 2^(n-k)-node modules form the same module graph as the
    2^n-node nuclei of CN(l, Q_n)."""
    g, cls, _ = quotient_of_cn("ring-cn", l, n, k)
    Q = q.qcn(l, n, k)
    mq = Q.clusters()
    X = box_values(g, n)
    mc = np.zeros(len(X), dtype=np.int64)
    for i in range(1, l):
        mc |= X[:, i] << (n * (i - 1))                 # CN's nucleus copy: X_2 ... X_l
    def module_arcs(topo, mods):
        return {(int(mods[a]), int(mods[b])) for a, b in zip(topo.tails.tolist(), topo.heads.tolist())
                if mods[a] != mods[b]}
    assert module_arcs(Q.topology, mq) == module_arcs(g.topology, mc)


def test_fig3_qcn_2_q7_q3():
    Q = q.qcn(2, "Q7", "Q3")
    m = Q.topology.metrics()
    assert (m.nodes, m.degree, m.min_degree, m.diameter) == (2048, 12, 11, 9)
    c = cluster_metrics(Q.topology, Q.clusters(), m.diameter, m.degree)
    assert (c.modules, c.max_module_size, c.inter_cluster_diameter) == (128, 16, 1)
    assert c.avg_inter_cluster_distance == pytest.approx(2032 / 2047)
    assert Q.label_text(2047) == "1111***,1111111"


@pytest.mark.parametrize("args,msg", [((2, 3, 3), "smaller than"), ((2, "K3", 1), "hypercube nucleus"),
                                      ((1, 3, 1), "at least 2 levels"), ((2, 9, 1), "1..8"),
                                      ((4, 8, 1), "would have"), ((2, 3, 1, "hsn"), "cyclic-shift")])
def test_bad_parameters(args, msg):
    with pytest.raises(PermnetError, match=msg):
        q.qcn(*args)


def test_cli_topo_qcn_and_its_planes(tmp_path):
    import json

    from cli_runner import run
    from permnet import ocsconfig

    cfg = tmp_path / "qcn.json"
    out = json.loads(run("topo", "qcn", "--levels", 3, "--nucleus", "Q3", "--merge", "Q1", "--json",
                         "--planes", cfg).stdout)
    assert (out["family"], out["nodes"], out["ports"], out["diameter"]) == ("qcn", 256, 6, 8)
    assert out["formula_holds"] and out["inter_cluster_diameter"] == 2 and out["max_module_size"] == 4
    planes = ocsconfig.read(cfg).planes
    Q = q.qcn(3, 3, 1)
    assert planes.shape == (6, 256)
    for row in planes:
        assert sorted(row.tolist()) == list(range(256))                 # each plane a permutation
    got = sorted((u, int(v)) for row in planes for u, v in enumerate(row))
    assert got == sorted((u, int(v)) for u in range(256) for v in Q.succ[u])   # exactly the ports
    for args, msg in [(("--nucleus", "Q3", "--merge", "Q3"), "smaller than"),
                      (("--nucleus", "K5"), "hypercube nucleus"), (("--merge", "3x"), "hypercube")]:
        p = run("topo", "qcn", "--levels", 2, *args, check=False)
        assert p.returncode == 2 and msg in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_estimated_run_keeps_the_module_figures():
    """Fig. 3's figures need only the module graph: an estimated run still prints them (same values),
    and a module graph too large for an exact run is refused in one line when asked for."""
    import json

    from cli_runner import run

    args = ("topo", "qcn", "--levels", 3, "--nucleus", "Q4", "--merge", "Q2", "--json")
    exact, est = json.loads(run(*args).stdout), json.loads(run(*args, "--estimate").stdout)
    assert est["estimate"] and est["diameter"] is None and est["dd_cost"] is None
    for key in ("modules", "inter_cluster_degree", "inter_cluster_diameter", "avg_inter_cluster_distance",
                "ii_cost"):
        assert est[key] == exact[key], key
    with pytest.raises(PermnetError, match="pass --exact"):
        cluster_metrics(q.qcn(3, 4, 2).topology, np.arange(1024), None, None, measure_missing=False, max_work=10)


@pytest.mark.parametrize("family,l,n", [("ring-cn", 3, 2), ("ring-cn", 3, 3), ("ring-cn", 4, 2), ("ring-cn", 5, 1),
                                        ("complete-cn", 3, 3)])
def test_cubes_mixing_flips_and_rotations_need_repeated_boxes(family, l, n):
    """The docstring's reason for merging nucleus subcubes: every 4-cycle that mixes
    flips (same X_2..X_l) and rotations passes through a label with repeated boxes."""
    import itertools

    g = ip.super_ip(family, l, f"hypercube:{n}")
    X = box_values(g, n)
    t = g.topology
    adj = {v: set() for v in range(t.n)}
    for a, b in zip(t.tails.tolist(), t.heads.tolist()):
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    flip = lambda a, b: bool((X[a, 1:] == X[b, 1:]).all())      # noqa: E731
    repeated = lambda v: len(set(X[v].tolist())) < l             # noqa: E731
    for a in range(t.n):
        for b, d in itertools.combinations(adj[a], 2):
            for c in (adj[b] & adj[d]) - {a}:
                if len({flip(a, b), flip(b, c), flip(c, d), flip(d, a)}) == 2:
                    assert any(repeated(v) for v in (a, b, c, d))
