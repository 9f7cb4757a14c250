"""``mixed ldi --optimize --restarts R`` on ``--workers`` / ``--scheduler`` (issue 44): R independent
searches, the one of fewest hops kept (ties to the lower seed), and the same answer (``--json`` but
for its ``seconds``, the planes file byte for byte) on one worker, two local processes and a Dask
LocalCluster; the options refused without ``--optimize``; Ctrl-C or SIGTERM stops the workers."""

import json
import signal

import networkx as nx
import pytest

from cli_runner import run
from parallel_helpers import SIGNAL_LINE, stop_when_busy

ARGS = ["mixed", "ldi", "-M", "64", "-S", "5", "--plane", "ring", "--optimize", "--evals", "120", "--seed", "2",
        "--json"]


def _timeless(text: str) -> dict:
    return {k: v for k, v in json.loads(text).items() if k != "seconds"}


def _avg_hops(planes) -> float:
    """The exact average shortest-path length of the union of the planes, by networkx."""
    G = nx.DiGraph()
    for p in planes:
        G.add_edges_from(enumerate(p))
    M = len(planes[0])
    return sum(sum(d.values()) for _, d in nx.all_pairs_shortest_path_length(G)) / (M * (M - 1))


def test_restarts_keep_the_best_chain_and_are_the_same_on_two_processes(tmp_path):
    chains = [_timeless(run(*ARGS[:-3], "--seed", str(s), "--json", cwd=tmp_path).stdout) for s in (2, 3, 4)]
    best = min(range(3), key=lambda i: (chains[i]["avg_hops"], i))
    assert len({c["avg_hops"] for c in chains}) > 1          # the seeds do give different searches
    one = _timeless(run(*ARGS, "--restarts", "3", "-o", "one.json", cwd=tmp_path).stdout)
    assert one["avg_hops"] == chains[best]["avg_hops"] and one["best_seed"] == 2 + best
    assert one["restarts"] == 3 and one["evaluations"] == sum(c["evaluations"] for c in chains)
    written = json.loads((tmp_path / "one.json").read_text())
    planes = written["planes"]
    assert written["topology"]["seed"] == 2 and written["topology"]["restarts"] == 3   # how to run it again
    assert written["topology"]["best_seed"] == 2 + best                                  # which chain it is
    assert _avg_hops(planes) == pytest.approx(one["avg_hops"], abs=1e-12)
    two = _timeless(run(*ARGS, "--restarts", "3", "--workers", "2", "-o", "two.json", cwd=tmp_path).stdout)
    assert two == one
    assert (tmp_path / "two.json").read_bytes() == (tmp_path / "one.json").read_bytes()


@pytest.mark.slow      # a LocalCluster's start-up: 10-60 s on a busy machine
def test_restarts_are_the_same_on_a_local_cluster(tmp_path):
    pytest.importorskip("dask.distributed")
    one = _timeless(run(*ARGS, "--restarts", "3", "-o", "one.json", cwd=tmp_path).stdout)
    got = _timeless(run(*ARGS, "--restarts", "3", "--workers", "2", "--scheduler", "local", "-o", "dask.json",
                        cwd=tmp_path, fresh=True).stdout)
    assert got == one
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "one.json").read_bytes()


@pytest.mark.parametrize("workers, scheduler, each", [(1, None, 0.5), (2, None, 1.0), (4, None, 2.0),
                                                     (1, "local", 0.5), (2, "local", 1.0),
                                                     (1, "tcp://host:8786", 2.0)])
def test_a_seconds_budget_is_shared_by_the_chains_running_at_once(monkeypatch, workers, scheduler, each):
    """--seconds 2 --restarts 4: four chains of 0.5 s one after another, two pairs of 1 s on two
    processes or a two-worker LocalCluster, 2 s each on a remote cluster (its size is not known
    here).  The jobs are caught before they run, so no cluster starts."""
    import numpy as np

    from permnet.gen.planes import mixed_search

    jobs = []

    def caught(fn, js, *args, **kwargs):
        jobs.extend(js)
        raise KeyboardInterrupt

    monkeypatch.setattr(mixed_search, "map_jobs", caught)
    with pytest.raises(KeyboardInterrupt):
        mixed_search.optimize_mixed(16, 3, [np.roll(np.arange(16), 1)], seconds=2.0, restarts=4, workers=workers,
                                    scheduler=scheduler)
    assert [j[3] for j in jobs] == [each] * 4 and [j[5] for j in jobs] == [0, 1, 2, 3]


@pytest.mark.parametrize("extra", [["--workers", "2"], ["--restarts", "2"], ["--scheduler", "local"]])
def test_the_parallel_options_need_optimize(tmp_path, extra):
    p = run("mixed", "ldi", "-M", "64", "-S", "5", "--plane", "ring", *extra, check=False, cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and extra[0] in p.stderr and "--optimize" in p.stderr


@pytest.mark.slow      # two fresh interpreters and their workers: about 10 s each
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_restarts_and_their_workers(tmp_path, sig, code):
    pytest.importorskip("psutil")
    got, out, err, took, left = stop_when_busy(["mixed", "ldi", "-M", "2048", "-S", "8", "--plane", "ring",
                                                "--optimize", "--evals", "1000000", "--restarts", "4", "--workers", "2",
                                                "--json"], sig, tmp_path)
    assert got == code, err
    assert took < 15, took
    assert out == "" and err.strip().splitlines() == [SIGNAL_LINE[code]], err
    assert left == [], "worker processes left running"
