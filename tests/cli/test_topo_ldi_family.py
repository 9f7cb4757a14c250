"""LDI is an ordinary family on the command line: -o, --planes, --modules, --bisection, --estimate."""

import json

from cli_runner import run


def test_ldi_graph_file_holds_eq1_arcs(tmp_path):
    run("topo", "ldi", "-M", 50, "-S", 3, "-o", tmp_path / "g.edges")
    arcs = sorted(tuple(map(int, ln.split())) for ln in (tmp_path / "g.edges").read_text().splitlines())
    assert arcs == sorted((n, (3 * n + L) % 50) for n in range(50) for L in range(3))


def test_ldi_planes_match_the_planes_command_byte_for_byte(tmp_path):
    run("topo", "ldi", "-M", 48, "-S", 4, "--planes", tmp_path / "a.csv")
    run("planes", "ldi", "-M", 48, "-S", 4, "-o", tmp_path / "b.csv")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_ldi_module_metrics_match_the_generic_family_path(tmp_path):
    # LDI(64,4) is the de Bruijn graph B(4,3): same arcs, so same module metrics for the same blocks.
    a = json.loads(run("topo", "ldi", "-M", 64, "-S", 4, "--modules", "blocks:16", "--json").stdout)
    b = json.loads(run("topo", "debruijn", "-d", 4, "-D", 3, "--modules", "blocks:16", "--json").stdout)
    for k in ("inter_cluster_degree", "inter_cluster_diameter", "avg_inter_cluster_distance", "diameter"):
        assert a[k] == b[k], k


def test_ldi_estimate_brackets_the_exact_average():
    exact = json.loads(run("topo", "ldi", "-M", 3000, "-S", 5, "--json").stdout)
    est = json.loads(run("topo", "ldi", "-M", 3000, "-S", 5, "--estimate", "--json").stdout)
    lo, hi = est["avg_hops_ci95"]
    assert est["estimate"] and lo <= exact["avg_hops"] <= hi


def test_huge_ldi_is_refused_in_one_line():
    p = run("topo", "ldi", "-M", 10 ** 9, "-S", 8, check=False)
    assert p.returncode == 2 and "would need about" in p.stderr and len(p.stderr.strip().splitlines()) == 1
