"""``--workers`` and ``--scheduler`` (issue 44): a seeded run gives byte-identical
``--json`` on one worker, two local processes and a Dask LocalCluster (``search
chordal`` and ``plan`` but for their ``seconds``, the time taken), and
Ctrl-C or SIGTERM during a ``--scheduler local`` sweep exits 130 or 143 at
once, leaving no worker process behind."""

import json
import signal

import pytest

from cli_runner import run
from parallel_helpers import SIGNAL_LINE, dask_scheduler, stop_when_busy
from parallel_helpers import local_cluster_address  # noqa: F401  (the fixture 'address': the searches' LocalCluster)

NETSIM = ["netsim", "--topology", "ldi,debruijn", "-M", "64", "-S", "4", "--load", "0.1:0.5:0.2", "--refine", "2",
          "--cycles", "300", "--warmup", "100", "--seed", "3", "--json"]


def test_netsim_sweep_is_byte_identical_on_any_workers(tmp_path):
    """Three loads on two topologies, then two bisection rounds (the saturation lies between the
    first and the second load of both)."""
    one = run(*NETSIM, cwd=tmp_path).stdout
    assert '"saturation": 0.2' in one or '"saturation": 0.15' in one     # the refinement ran
    assert run(*NETSIM, "--workers", "2", cwd=tmp_path).stdout == one
    # a fresh interpreter (another hash seed) for the cluster: two seeds, one interpreter start
    assert run(*NETSIM, "--workers", "2", "--scheduler", "local", cwd=tmp_path, fresh=True).stdout == one


def _timeless(text: str):
    """The JSON answer without its ``seconds`` (the time each part took: the one field that may differ)."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "seconds"}
        return [strip(v) for v in x] if isinstance(x, list) else x
    return strip(json.loads(text))


@pytest.mark.slow              # 20-60 s of worker start-up; netsim's identity test runs in make test
def test_search_chordal_rows_are_the_same_on_any_workers(tmp_path, address):
    """Diameter 6 starts from Doty's Table 2 entry, at once; 4 and 5 have none: 5 starts from
    the ring found for 4, once that search has ended."""
    args = ["search", "chordal", "-d", "3", "-k", "4-6", "--evals", "300", "--window", "2", "--quiet", "--json"]
    one = run(*args, cwd=tmp_path).stdout
    rows = _timeless(one)["rows"]
    assert [r["diameter"] for r in rows] == [4, 5, 6] and all(r["nodes"] for r in rows)
    assert _timeless(run(*args, "--workers", "2", cwd=tmp_path, fresh=True).stdout) == _timeless(one)
    assert _timeless(run(*args, "--scheduler", address, cwd=tmp_path, fresh=True).stdout) == _timeless(one)


@pytest.mark.slow
def test_plan_restarts_are_the_same_on_any_workers(tmp_path, address):
    args = ["plan", "--traffic", "hotspot", "-M", "64", "-S", "4", "--evals", "200", "--restarts", "3", "--seed", "2",
            "--json"]
    one = _timeless(run(*args, "-o", "one.json", cwd=tmp_path).stdout)
    assert one["evaluations"] == 600 and one["free_planes"].endswith("+arc-swaps")
    for extra, name in ((["--workers", "2"], "two.json"), (["--scheduler", address], "dask.json")):
        got = _timeless(run(*args, *extra, "-o", name, cwd=tmp_path, fresh=True).stdout)
        assert {**got, "wrote": None} == {**one, "wrote": None}
        assert (tmp_path / name).read_bytes() == (tmp_path / "one.json").read_bytes()


# SIGTERM under make test-slow only: the SIGINT case stops the same cluster and its workers, and
# test_signals_issue43.py::test_sigterm_during_numba_kernels_is_143 checks SIGTERM's exit 143
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), pytest.param(signal.SIGTERM, 143, marks=pytest.mark.slow)])
def test_a_signal_stops_a_local_cluster_sweep_and_its_workers(tmp_path, sig, code):
    pytest.importorskip("psutil")
    got, out, err, took, left = stop_when_busy(["netsim", "--topology", "ldi", "-M", "256", "-S", "4", "--load",
                                                "0.05:0.5:0.05", "--cycles", "200000", "--workers", "2",
                                                "--scheduler", "local", "--json"], sig, tmp_path, settle_s=1)
    assert got == code, err
    assert took < 15, took
    assert out == "" and err.strip().splitlines() == [SIGNAL_LINE[code]], err
    assert left == [], "worker processes left running"


@pytest.mark.slow              # a scheduler, a worker and a fresh command: about 20 s
def test_a_lost_scheduler_is_one_line(tmp_path):
    """The scheduler of a running sweep goes away (its host ends it): the command ends with one
    line naming the scheduler, exit 2, and no traceback (Dask's client logged one, and the
    cancelled jobs were an internal error, exit 3)."""
    pytest.importorskip("dask.distributed")
    import subprocess
    import time

    from cli_runner import PERMNET

    with dask_scheduler(tmp_path, workers=1) as cluster:
        cmd = subprocess.Popen(PERMNET + ["mixed", "ldi", "-M", "64", "-S", "5", "--plane", "ring", "--optimize",
                                          "--evals", "10000000", "--restarts", "2", "--scheduler", cluster.address],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(10)
            assert cmd.poll() is None, cmd.communicate()
            cluster.stop()
            out, err = cmd.communicate(timeout=90)
        finally:
            if cmd.poll() is None:
                cmd.kill()
            cmd.wait()
    assert cmd.returncode == 2 and out == "", err
    assert err.strip().splitlines() == [err.strip()]
    assert err.startswith(f"permnet: error: scheduler {cluster.address}: ")
