"""Order/radix search over switch counts: clique optimum, tiny inputs, determinism, Dask, record files."""

import json
import time

import pytest

from permnet.graphgolf import read_edges
from permnet.gen.orp.sweep import candidate_switch_counts, sweep
from cli_runner import run
from search_helpers import host_switch_stats

# h-ASPL of the published (128,24) Graph Golf 2021 file, scored independently in tests/data/graphgolf/README.md
GOLF_128_24 = 2.878444881890


def test_clique_case_returns_the_published_optimum(tmp_path):
    out = json.loads(run("orp", "search", "-n", 128, "-r", 24, "-o", tmp_path / "c.edges", "--json").stdout)
    assert out["method"] == "clique" and out["switches"] == 8
    g = read_edges(tmp_path / "c.edges")
    aspl, diam = host_switch_stats(g)
    assert aspl == pytest.approx(GOLF_128_24, abs=5e-12) and diam == 3
    assert g.degrees().max() <= 24


def test_tiny_instances_finish(tmp_path):
    # n=4, r=3 used to anneal forever (no valid move on two switches): a one-shot CLI call, then the library
    t = time.perf_counter()
    out = json.loads(run("orp", "search", "-n", 4, "-r", 3, "-o", tmp_path / "t.edges", "--json", timeout=60).stdout)
    assert time.perf_counter() - t < 30
    aspl, _ = host_switch_stats(read_edges(tmp_path / "t.edges"))
    assert aspl == pytest.approx(out["haspl"]) and out["haspl"] >= out["haspl_lb"] - 1e-12
    for n, r, m in [(3, 3, None), (4, 3, 2), (3, 3, 2), (5, 3, None)]:
        res = sweep(n, r, m=m).result
        aspl, diam = host_switch_stats(res.graph)
        assert aspl == pytest.approx(res.haspl) and diam == res.diameter
        assert res.graph.degrees().max() <= r


@pytest.mark.parametrize("args", [["-n", 2, "-r", 3], ["-n", 10, "-r", 4, "--sweep", 0]])
def test_bad_search_input_is_one_line(tmp_path, args):
    p = run("orp", "search", *args, "-o", tmp_path / "x.edges", check=False, timeout=60)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not (tmp_path / "x.edges").exists()


def test_bad_sweep_arguments_raise():
    from permnet.gen.errors import PermnetError

    for kw in ({"workers": 0}, {"seconds": 0.0}, {"evaluations": 0}, {"m": 0}, {"restarts": -1}):
        with pytest.raises(PermnetError):
            sweep(10, 4, **kw)
    with pytest.raises(PermnetError):
        sweep(10, 2)


def test_candidate_switch_counts_reach_the_published_counts():
    # the 2021 graphs use 216 switches for (432,12), 183 for (1281,21) (m_opt 101 and 138)
    assert 216 in candidate_switch_counts(432, 12, 8) and 101 in candidate_switch_counts(432, 12, 8)
    assert candidate_switch_counts(432, 12, 1) == [101]


def test_sweep_is_deterministic_and_independent_of_workers():
    a = sweep(160, 10, sweep=3, evaluations=200, seed=4, workers=1, restarts=2)
    b = sweep(160, 10, sweep=3, evaluations=200, seed=4, workers=2, restarts=2)
    assert a.method == "sweep" and a.result.graph.to_edges_text() == b.result.graph.to_edges_text()
    assert sorted(a.by_switches) == candidate_switch_counts(160, 10, 3)
    assert a.result.haspl <= min(v for v in a.by_switches.values() if isinstance(v, float)) + 1e-12
    g = a.result.graph
    aspl, diam = host_switch_stats(g)
    assert aspl == pytest.approx(a.result.haspl) and diam == a.result.diameter
    assert g.degrees().max() <= 10 and g.counts().sum() == 160


@pytest.mark.slow              # a LocalCluster by address: 12-25 s (dask="local" runs in test_orp)
def test_dask_scheduler_address_gives_the_same_graph():
    from dask.distributed import LocalCluster

    local = sweep(96, 8, evaluations=500, seed=2, workers=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        remote = sweep(96, 8, evaluations=500, seed=2, workers=2, scheduler=cluster.scheduler_address)
    assert remote.result.graph.to_edges_text() == local.result.graph.to_edges_text()


def test_records_run_writes_graph_golf_files(tmp_path):
    from permnet.graphgolf import run_instance

    row = run_instance(32, 4, 1.0, tmp_path, workers=1, sweep_k=2, evaluations=1000)
    ev = json.loads(run("orp", "eval", row.path, "--json").stdout)
    assert ev["haspl"] == pytest.approx(row.haspl) and ev["switches"] == row.switches
    assert row.published_haspl == pytest.approx(4.935483870968) and row.haspl >= row.theorem2_bound
    assert row.gap_pct == pytest.approx(100 * (row.haspl - row.published_haspl) / row.published_haspl, abs=1e-6)


class _Caught(Exception):
    pass


@pytest.mark.parametrize("workers,scheduler,each", [(1, None, 1.0), (2, None, 2.0), (1, "local", 1.0),
                                                     (2, "local", 2.0), (1, "tcp://192.0.2.1:8786", 4.0)])
def test_a_wall_time_budget_is_shared_by_the_anneals_that_run_at_once(monkeypatch, workers, scheduler, each):
    """--seconds 4 over 4 restarts: each anneal gets 4 s x (anneals at once) / 4, so the sweep
    ends in about 4 s: min(workers, 4) at once here and on a LocalCluster (was 4 s each there:
    16 s in all on one worker), all of them on a remote scheduler (its size is not known)."""
    import permnet.gen.orp.sweep as sw

    seen = []

    def caught(jobs, workers_, scheduler_):
        seen.extend(job[3] for job in jobs)
        raise _Caught

    monkeypatch.setattr(sw, "run_jobs", caught)
    with pytest.raises(_Caught):
        sw.sweep(32, 4, m=16, seconds=4.0, restarts=4, workers=workers, scheduler=scheduler)
    assert seen == [each] * 4
