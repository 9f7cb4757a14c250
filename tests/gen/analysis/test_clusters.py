"""Clustered metrics (Yeh & Parhami, Section 5) against an independent
Dijkstra and closed forms; bisection widths against known values."""

import itertools
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from permnet.gen.errors import PermnetError
from permnet.gen.analysis import clusters
from permnet.gen.topologies import families
from cli_runner import run


def reference(topo, modules):
    """I-degree, I-diameter, average I-distance by networkx Dijkstra (0/1 weights)."""
    G = nx.DiGraph()
    G.add_nodes_from(range(topo.n))
    for a, b in zip(topo.tails.tolist(), topo.heads.tolist()):
        if a != b:
            G.add_edge(a, b, w=int(modules[a] != modules[b]))
    dist = dict(nx.all_pairs_dijkstra_path_length(G, weight="w"))
    n = topo.n
    if any(len(dist[u]) < n for u in range(n)):
        diam, avg = None, None
    else:
        vals = [dist[u][v] for u in range(n) for v in range(n) if u != v]
        diam, avg = max(vals), sum(vals) / len(vals)
    per = {}
    for a, b in zip(topo.tails.tolist(), topo.heads.tolist()):
        per.setdefault(modules[a], 0)
        if a != b and modules[a] != modules[b]:
            per[modules[a]] += 1
    sizes = np.bincount(modules)
    ideg = max(per.get(c, 0) / sizes[c] for c in range(len(sizes)) if sizes[c])
    return ideg, diam, avg


@given(st.integers(4, 40), st.integers(1, 6), st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_inter_cluster_metrics_match_dijkstra(n, k, directed, seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(n, 3 * n))
    pairs = rng.integers(0, n, size=(m, 2))
    # a ring keeps most graphs connected; random arcs make modules internally disconnected
    pairs = np.concatenate([pairs, np.stack([np.arange(n), (np.arange(n) + 1) % n], 1)])
    topo = families._topology("random", n, pairs, directed)
    modules = rng.integers(0, k, size=n)
    modules = np.unique(modules, return_inverse=True)[1]
    got = clusters.cluster_metrics(topo, modules, diameter=1, degree=1)
    ideg, diam, avg = reference(topo, modules)
    assert got.inter_cluster_degree == pytest.approx(ideg)
    assert got.inter_cluster_diameter == diam
    assert got.avg_inter_cluster_distance == (None if avg is None else pytest.approx(avg))


@given(st.integers(4, 30), st.sampled_from([1, 2, 3]), st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_equal_connected_modules_match_dijkstra(n, size, directed, seed):
    """Modules of equal size, each a ring inside (the contracted graph has only
    off-module arcs: the bit-parallel BFS path), plus random arcs between them."""
    rng = np.random.default_rng(seed)
    n -= n % size
    modules = np.arange(n) // size
    inner = [(v, v - v % size + (v % size + 1) % size) for v in range(n) if size > 1]
    inner += [(b, a) for a, b in inner] if size > 1 else []
    pairs = rng.integers(0, n, size=(int(rng.integers(n, 3 * n)), 2))
    pairs = np.concatenate([np.array(inner, dtype=np.int64).reshape(-1, 2), pairs,
                            np.stack([np.arange(n), (np.arange(n) + size) % n], 1)])
    topo = families._topology("random", n, pairs, directed)
    got = clusters.cluster_metrics(topo, modules, diameter=1, degree=1)
    _, diam, avg = reference(topo, modules)
    assert got.inter_cluster_diameter == diam
    assert got.avg_inter_cluster_distance == (None if avg is None else pytest.approx(avg))


@pytest.mark.parametrize("n,c", [(6, 2), (6, 3), (8, 3), (8, 4)])
def test_hypercube_subcube_modules(n, c):
    # Section 5.3: with 2^c-node subcubes on a module, n - c off-module links
    # per node, and n - c off-module hops between antipodes.
    m = clusters.cluster_metrics(families.hypercube(n), clusters.blocks(2 ** n, 2 ** c))
    assert m.inter_cluster_degree == n - c and m.inter_cluster_diameter == n - c
    assert m.dd_cost == n * n and m.ii_cost == (n - c) ** 2


@pytest.mark.parametrize("k", [3, 4])
def test_star_graph_substar_modules(k):
    # A k-star on a module keeps k-1 of the n-1 links inside: n - k off-module.
    # (The paper prints n-2 (or n-3) for 3- (or 4-) stars; we count n-3 (n-4).)
    n = 6
    perms = list(itertools.permutations(range(n)))
    modules = np.unique(np.array([p[k:] for p in perms]), axis=0, return_inverse=True)[1].ravel()
    m = clusters.cluster_metrics(families.star_graph(n), modules)
    assert m.inter_cluster_degree == n - k


@pytest.mark.parametrize("topo,width", [(lambda: families.hypercube(6), 32), (lambda: families.torus(8, 1), 2),
                                        (lambda: families.torus(6, 2), 12), (lambda: families.petersen(), 5)])
def test_bisection_width_known_values(topo, width):
    t = topo()
    b = clusters.bisection_width(t)
    assert b.width == width and abs(b.sides[0] - b.sides[1]) <= 1
    assert b.as_dict()["bisection_width"] == width


def test_metis_partition_cut_is_counted():
    t = families.torus(6, 2)
    cut, member = clusters.metis_partition(t, 4)
    assert np.bincount(member).max() <= 9 + 1
    assert cut == sum(member[a] != member[b] for a, b in zip(t.tails, t.heads) if a < b)


def test_cli_modules_options(tmp_path):
    out = json.loads(run("topo", "hypercube", "-n", 6, "--modules", "blocks:8", "--bisection", "--json").stdout)
    assert out["inter_cluster_degree"] == 3 and out["bisection_width"] == 32
    f = tmp_path / "m.txt"
    f.write_text("\n".join(str(v // 8) for v in range(64)))
    out2 = json.loads(run("topo", "hypercube", "-n", 6, "--modules", f"file:{f}", "--json").stdout)
    assert out2["ii_cost"] == out["ii_cost"] == 9
    out3 = json.loads(run("topo", "torus", "-k", 8, "-n", 2, "--modules", "metis:16", "--json").stdout)
    assert out3["modules"] == 4 and out3["max_module_size"] <= 17
    f.write_text("0 1 2")
    for spec in ("blocks:0", "metis:x", "bogus:3", f"file:{f}", "nuclei"):
        p = run("topo", "hypercube", "-n", 6, "--modules", spec, check=False)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1


def test_bad_module_arrays():
    with pytest.raises(PermnetError):
        clusters.cluster_metrics(families.hypercube(3), np.zeros(5, int))


def test_a_bad_modules_spec_is_refused_before_any_distance_is_computed(monkeypatch, tmp_path):
    """``topo ... --modules blocks:0`` computed the whole topology's metrics (an all-pairs search,
    minutes on a large one) before it looked at the spec; now the spec is checked first, both for a
    family (``measure``) and for LDI (``ldi_topology_summary``)."""
    from permnet.gen.analysis import report
    from permnet.topofiles import read_modules

    def computed(*args, **kwargs):
        raise AssertionError("distances computed before the spec was checked")

    monkeypatch.setattr(families.Topology, "metrics", computed)
    monkeypatch.setattr(report, "ldi_summary", computed)
    f = tmp_path / "m.txt"
    f.write_text("0 1 2")
    for spec in ("blocks:0", "metis:x", "bogus:3", f"file:{f}"):
        with pytest.raises(PermnetError, match="modules"):
            report.measure(families.hypercube(6), read_modules(spec))
        with pytest.raises(PermnetError, match="modules"):
            report.ldi_topology_summary(16, 4, read_modules(spec))
