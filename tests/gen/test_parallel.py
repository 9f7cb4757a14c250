"""permnet.gen.parallel (issue 44): the same results, in the order of the jobs,
serially, on local processes and on a Dask cluster; errors and shared objects
reach the caller and the job the same way everywhere; a sweep stopped early
by its rule gives the sequential sweep's points."""

import operator

import pytest

from parallel_helpers import local_cluster_address  # noqa: F401  (the fixture 'address': a LocalCluster)
from permnet.gen.errors import PermnetError
from permnet.gen.parallel import Runner, check_parallel, map_jobs


def modes(address):
    return [{"workers": 1}, {"workers": 2}, {"workers": 2, "scheduler": address}]


def test_results_come_back_in_job_order_everywhere(address):
    # jobs of very different sizes, so that later ones finish first on two workers
    jobs = [list(range(n)) for n in (200_000, 3, 50_000, 0, 7, 100_000)]
    want = [sum(j) for j in jobs]
    for kw in modes(address):
        assert map_jobs(sum, jobs, **kw) == want, kw


def test_a_shared_object_reaches_every_job_and_errors_reach_the_caller(address):
    table = [n * n for n in range(50)]
    for kw in modes(address):
        with Runner(progress=False, **kw) as r:
            key = r.share(table)
            assert r.map(operator.getitem, [49, 0, 7], shared=key) == [2401, 0, 49], kw
            with pytest.raises(IndexError):
                r.map(operator.getitem, [3, 50], shared=key)


def test_bad_worker_counts_are_refused():
    for workers, scheduler in ((0, None), (-1, "local"), (1, " ")):
        with pytest.raises(PermnetError):
            check_parallel(workers, scheduler)


def test_a_sweep_stopped_by_its_rule_is_the_same_on_two_workers(address):
    """Loads past the stop (stop_after points after the first unstable one) are started on two
    workers but dropped: the points and the saturation are the sequential sweep's."""
    from permnet.gen.routing import tables
    from permnet.sim.netsim import Config, pattern
    from permnet.sim.netsim.sweeps import sweep_all

    net = tables.network("ldi", 16, 4)
    cfg = Config(warmup=50, cycles=200, seed=2).check(net.table.max_hops)
    item = (net, pattern("uniform", 16, 2), cfg)
    loads = [0.1, 0.4, 0.6, 0.8, 1.0]
    one = sweep_all([item], loads, stop_after=0, refine=2)[0]
    with Runner(2, address, progress=False) as r:
        two = sweep_all([item], loads, stop_after=0, refine=2, runner=r)[0]
    assert [p.load for p in one.points] == [p.load for p in two.points]
    assert len([p for p in one.points if not p.stable and p.load in loads]) == 1   # the rule did stop it
    assert one.saturation == two.saturation and one.as_dict() == two.as_dict()


@pytest.mark.slow
def test_compare_rows_are_the_same_on_a_cluster(address):
    from permnet.gen.analysis.compare import compare

    one = compare(["hypercube", "torus2d"], 64)
    assert {r.family for r in one} == {"hypercube", "torus2d"} and [r.nodes for r in one] == sorted(r.nodes for r in one)
    assert compare(["hypercube", "torus2d"], 64, scheduler=address) == one


def test_an_object_shared_after_the_processes_started_still_reaches_the_jobs():
    with Runner(2, progress=False) as r:
        first = r.share([1, 2, 3])
        assert r.map(operator.getitem, [2, 0], shared=first) == [3, 1]
        late = r.share(("value", "x"))          # the pool is running: sent with every job
        assert r.map(operator.getitem, [1, 0], shared=late) == ["x", "value"]


def test_map_jobs_runs_on_an_installed_runner():
    """Within ``runner.installed()`` every map_jobs call of the same workers runs on the runner's one pool."""
    with Runner(2, progress=False) as r, r.installed():
        assert map_jobs(sum, [[1, 2], [3], []], 2) == [3, 3, 0]
        pool = r._pool
        assert pool is not None                                    # the installed runner's processes ran them
        assert map_jobs(sum, [[4], [5, 6]], 2) == [4, 11] and r._pool is pool
        assert map_jobs(sum, [[7], [8]], 1) == [7, 8]               # other workers: a runner of its own
    assert r._pool is None


@pytest.mark.parametrize("address, says", [("tcp://127.0.0.1:{free}", "cannot connect"),
                                           ("127.0.0.1:{free}", "cannot connect"),
                                           ("tcp://nohost.invalid:8786", "cannot connect"),
                                           ("nohost", "missing port"),
                                           ("http://127.0.0.1:8786", "unknown scheme")])
def test_a_scheduler_nothing_answers_at_is_refused_at_once(address, says):
    """A bad or unreachable address is one PermnetError within seconds (the Dask client alone
    retried a refused port for 30 s, and an address without a port was a ValueError of its own)."""
    pytest.importorskip("dask.distributed")
    import time

    from port_helpers import free_port

    address = address.format(free=free_port())
    t = time.monotonic()
    with pytest.raises(PermnetError, match=says) as err, Runner(1, address, progress=False) as r:
        r.map(abs, [-1, 2])
    assert time.monotonic() - t < 10 and address in str(err.value) and "\n" not in str(err.value)


def test_a_job_the_lost_scheduler_cancelled_is_one_line():
    """A remote scheduler that goes away cancels every pending future (Dask's FutureCancelledError,
    measured: after the client's 30 s of reconnecting); waiting on one is a PermnetError naming the
    scheduler and Dask's reason, not an internal error."""
    pytest.importorskip("distributed")
    from distributed.client import FutureCancelledError

    class Lost:
        def result(self, timeout=None):
            raise FutureCancelledError("job-1", "scheduler-connection-lost",
                                       "Client lost the connection to the scheduler.\nPlease check your connection.")

    r = Runner(1, "tcp://host-a:8786", progress=False)       # nothing is started: the handle is given
    with pytest.raises(PermnetError, match="tcp://host-a:8786: a job was cancelled: Client lost the") as err:
        r.result(Lost())
    assert "\n" not in str(err.value)


@pytest.mark.slow      # a scheduler of its own: about 15 s
def test_a_cluster_without_workers_is_refused_not_waited_on(monkeypatch, tmp_path):
    """A scheduler that has no worker (none started, or all gone) would hold the jobs for ever:
    after NO_WORKERS_S (60 s; 2 s here) of none, one PermnetError saying so."""
    pytest.importorskip("dask.distributed")
    import time

    from parallel_helpers import dask_scheduler
    from permnet.gen import parallel

    with dask_scheduler(tmp_path) as cluster:
        monkeypatch.setattr(parallel, "NO_WORKERS_S", 2)
        t = time.monotonic()
        with pytest.raises(PermnetError, match=f"scheduler {cluster.address}: no worker for 2 s"), \
                Runner(1, cluster.address, progress=False) as r:
            r.map(abs, [-1, 2])
        assert time.monotonic() - t < 30


def test_a_local_worker_killed_from_outside_is_one_line():
    """``kill -9`` (or the out-of-memory killer) of a pool worker breaks the pool: the next job, waited
    on or submitted, is a PermnetError saying so (it was concurrent.futures' BrokenProcessPool)."""
    import os
    import re
    import signal
    import time

    from permnet.gen.parallel import WORKER_DIED

    with Runner(2, progress=False) as r:
        assert r.map(abs, [-1, -2]) == [1, 2]
        os.kill(next(iter(r._pool._processes)), signal.SIGKILL)
        time.sleep(0.5)
        with pytest.raises(PermnetError, match="^" + re.escape(WORKER_DIED) + "; ") as err:
            r.map(abs, [-3, 4])
    assert "\n" not in str(err.value)


def test_a_job_whose_dask_workers_all_died_is_one_line():
    """Dask gives a job up (KilledWorker) once the workers running it died ``allowed_failures`` + 1
    times; waiting on it is a PermnetError naming the scheduler, not an internal error."""
    distributed = pytest.importorskip("distributed")

    class Gone:
        address = "tcp://host-b:40000"

    class Killed:
        def result(self, timeout=None):
            raise distributed.KilledWorker("job-1", Gone(), 3)

    r = Runner(1, "tcp://host-a:8786", progress=False)       # nothing is started: the handle is given
    with pytest.raises(PermnetError, match=r"^scheduler tcp://host-a:8786: a worker process died \(killed or out of "
                                           r"memory\) on each of the 4 workers that ran a job; ") as err:
        r.result(Killed())
    assert "\n" not in str(err.value)


def test_a_local_cluster_says_nothing_when_port_8787_is_taken(recwarn):
    """Dask's default HTTP port (8787: another cluster's dashboard, or this module's LocalCluster) in
    use: a ``--scheduler local`` run warned 'Port 8787 is already in use ...' in four lines on stderr
    before its output (the signal tests of tests/cli/test_parallel_jobs.py failed on it)."""
    pytest.importorskip("dask.distributed")
    import socket

    held = socket.socket()
    try:
        try:
            held.bind(("127.0.0.1", 8787))
            held.listen()
        except OSError:         # taken already: as well
            pass
        with Runner(1, "local", progress=False) as r:
            assert r.map(abs, [-1, 2]) == [1, 2]
    finally:
        held.close()
    assert [str(w.message) for w in recwarn if "already in use" in str(w.message)] == []


def test_a_local_clusters_workers_log_nothing_when_the_command_stops():
    """A SIGINT to ``netsim --scheduler local`` printed Dask's 'Batched Comm Closed' INFO line with a
    CommClosedError traceback above 'permnet: interrupted' (CI, stop 48): the cluster's log handlers
    are quiet in this process only while it runs, and not at all in its worker processes.  The
    workers' own log level, asked in the workers, and this process's after a kill."""
    pytest.importorskip("dask.distributed")
    import logging

    before = logging.getLogger("distributed").level
    try:
        with Runner(2, "local", progress=False) as r:
            # a lambda: Dask sends it by value (the workers cannot import this test module)
            level = lambda _job: __import__("logging").getLogger("distributed").getEffectiveLevel()  # noqa: E731
            assert r.map(level, [0, 1]) == [logging.CRITICAL] * 2
            r.close(kill=True)
        assert logging.getLogger("distributed").getEffectiveLevel() == logging.CRITICAL
    finally:
        logging.getLogger("distributed").setLevel(before)
