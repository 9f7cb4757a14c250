"""``permnet compare``: rows against closed forms, files deterministic."""

import json

import pytest

from permnet.gen.analysis.compare import compare
from cli_runner import run


def test_rows_match_closed_forms():
    rows = compare(["hypercube", "star", "ring-cn", "torus2d"], max_nodes=800, module_size=10)
    for r in rows:
        if r.family == "hypercube":
            n = r.degree
            assert r.diameter == n and r.inter_cluster_degree == max(0, n - 3)
            assert r.inter_cluster_diameter == max(0, n - 3)
        if r.family == "star":
            k = r.degree + 1
            assert r.diameter == 3 * (k - 1) // 2
        if r.family == "ring-cn":
            l = round(__import__("math").log(r.nodes, 8))
            assert r.diameter == 4 * l - 1 and r.inter_cluster_diameter == l - 1     # Cor. 4.2, D_G = 3
        if r.family == "torus2d":
            k = round(r.nodes ** 0.5)
            assert r.diameter == 2 * (k // 2)
        assert r.dd_cost == r.degree * r.diameter
        assert r.ii_cost == r.inter_cluster_degree * r.inter_cluster_diameter
    assert [r.nodes for r in rows] == sorted(r.nodes for r in rows)


def test_cli_compare_writes_deterministic_files(tmp_path):
    args = ("compare", "--families", "hypercube,hsn,debruijn", "--max-nodes", 200, "--quiet")
    run(*args, "-o", tmp_path / "a")                     # two hash seeds: the fork server's child's
    run(*args, "-o", tmp_path / "b", fresh=True)         # and a fresh interpreter's
    for f in ("compare.md", "compare.json", "compare.svg", "compare.png"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    data = json.loads((tmp_path / "a" / "compare.json").read_text())
    assert {r["family"] for r in data["rows"]} == {"hypercube", "hsn", "debruijn"}
    p = run("compare", "--families", "hypercube,moebius", "-o", tmp_path / "c", check=False)
    assert p.returncode == 2 and "unknown family" in p.stderr and not (tmp_path / "c" / "compare.md").exists()


def test_rhsn_is_compared_like_the_other_super_ip_families():
    import networkx as nx

    from permnet.gen.analysis.compare import compare
    from permnet.gen.topologies import ipgraph

    rows = [r for r in compare(["rhsn"], max_nodes=300, module_size=4) if r.family == "rhsn"]
    assert [r.nodes for r in rows] == [16, 64, 256]
    for r, l in zip(rows, (2, 3, 4)):
        t = ipgraph.super_ip("rhsn", l, "hypercube:2").topology
        G = nx.DiGraph(list(zip(t.tails.tolist(), t.heads.tolist())))
        assert r.diameter == nx.diameter(G)          # independent BFS


def test_qcn_and_rcc_series():
    """QCN(l, Q_{c+3}/Q_3) with quotient nuclei of 2^c <= module size (Q7/Q3 for Fig. 3's 24),
    RCC(l, K_m) with m = module size; diameters against the BFS-checked formulas."""
    rows = compare(["qcn", "rcc"], max_nodes=2100, module_size=24)
    got = {r.instance: r for r in rows}
    assert set(got) == {"qcn(2,Q7/Q3)", "rcc(2,K24)"}
    q = got["qcn(2,Q7/Q3)"]
    assert (q.nodes, q.degree, q.diameter, q.inter_cluster_diameter) == (2048, 12, 9, 1)
    assert abs(q.avg_inter_cluster_distance - 2032 / 2047) < 1e-12
    r = got["rcc(2,K24)"]
    assert (r.nodes, r.diameter, r.inter_cluster_diameter) == (576, 3, 1)
    # Q5/Q3 (4-node quotient nuclei) up to l = 3: diameter (c + 1) l - 1 with c = 2 (test_qcn.py's BFS-checked
    # formula); Q6/Q3 to 32768 nodes in test_qcn_series_of_8_node_quotient_nuclei (make test-slow, 5 s)
    rows = compare(["qcn"], max_nodes=9000, module_size=4)
    assert [(r.instance, r.diameter) for r in rows] == [("qcn(2,Q5/Q3)", 5), ("qcn(3,Q5/Q3)", 8)]


@pytest.mark.slow
def test_qcn_series_of_8_node_quotient_nuclei():
    rows = compare(["qcn"], max_nodes=40000, module_size=10)          # Q6/Q3: 8-node quotient nuclei
    assert [(r.instance, r.diameter) for r in rows] == [("qcn(2,Q6/Q3)", 7), ("qcn(3,Q6/Q3)", 11)]
