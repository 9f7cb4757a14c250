"""A signal sent to a ``permnet`` command while its worker processes run (issue 44): the command
started as a user starts it (a fresh interpreter), the signal sent once its workers are busy, and
what is left afterwards: its exit code, output, the time it took to stop and its workers still running.
And a Dask scheduler of a test's own, in processes of their own (:func:`dask_scheduler`), or a
LocalCluster shared by a test module (:func:`local_cluster_address`)."""

import contextlib
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cli_runner import PERMNET
from port_helpers import free_port, wait_listening

SIGNAL_LINE = {130: "permnet: interrupted", 143: "permnet: terminated"}   # all a signal leaves on stderr


def stop_when_busy(args, sig, cwd, busy: int = 2, settle_s: float = 0.0, wait_s: float = 120):
    """Run ``permnet ARGS`` (SIGINT at its default, as from a terminal); once ``busy`` of its
    descendant processes have used 0.5 s of CPU (at most ``wait_s``; ``busy=0``: at once), and
    ``settle_s`` later, send ``sig``.  Returns ``(returncode, stdout, stderr, seconds to stop,
    pids of descendants still running)``."""
    return when_busy(args, lambda p, kids: p.send_signal(sig), cwd, busy, settle_s, wait_s)


def when_busy(args, act, cwd, busy: int = 2, settle_s: float = 0.0, wait_s: float = 120):
    """:func:`stop_when_busy` with ``act(command, its descendants)`` (a Popen and psutil processes)
    in place of the signal; the seconds returned are those from ``act`` to the command's end."""
    import psutil

    p = subprocess.Popen(PERMNET + list(args), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        me = psutil.Process(p.pid)
        deadline = time.monotonic() + wait_s
        kids = []
        while time.monotonic() < deadline:  # until the workers are computing (they have used CPU time)
            kids = me.children(recursive=True)
            if len([k for k in kids if _cpu(k) > 0.5]) >= busy:
                break
            time.sleep(0.3)
        assert len([k for k in kids if _cpu(k) > 0.5]) >= busy, "the workers never started"
        time.sleep(settle_s)
        assert p.poll() is None, p.communicate()       # still running when it is acted on
        kids = me.children(recursive=True)
        t = time.monotonic()
        act(p, kids)
        out, err = p.communicate(timeout=30)
        took = time.monotonic() - t
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    time.sleep(0.5)
    left = [k.pid for k in kids if _running(k)]
    return p.returncode, out, err, took, left


def _running(proc) -> bool:
    import psutil

    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _cpu(proc) -> float:
    try:
        t = proc.cpu_times()
        return t.user + t.system
    except Exception:  # gone meanwhile
        return 0.0


class DaskCluster:
    """A ``dask scheduler`` and its ``dask worker`` processes (:func:`dask_scheduler`)."""

    def __init__(self, address: str, scheduler: subprocess.Popen):
        self.address, self.scheduler, self.workers = address, scheduler, []

    def stop(self) -> None:
        """The scheduler ended by its host (SIGTERM), its workers killed."""
        self.scheduler.terminate()
        for w in self.workers:
            w.kill()


@contextlib.contextmanager
def dask_scheduler(cwd, workers: int = 0):
    """A Dask scheduler on a free port of 127.0.0.1 (waited for until it listens, at most 60 s) and
    ``workers`` single-threaded worker processes (given 5 s to join it): yields a :class:`DaskCluster`
    and ends whatever of it still runs."""
    dask = shutil.which("dask", path=str(Path(PERMNET[0]).parent))
    assert dask is not None
    port = free_port()
    quiet = {"cwd": cwd, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    cluster = DaskCluster(f"tcp://127.0.0.1:{port}",
                          subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                            "--no-dashboard"], **quiet))
    try:
        wait_listening(port, time.monotonic() + 60, "the dask scheduler", pause=0.5)
        if workers:
            cluster.workers.append(subprocess.Popen([dask, "worker", cluster.address, "--nworkers", str(workers),
                                                     "--nthreads", "1", "--no-dashboard"], **quiet))
            time.sleep(5)
        yield cluster
    finally:
        for p in [cluster.scheduler, *cluster.workers]:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
            p.wait()


@pytest.fixture(scope="module", name="address")
def local_cluster_address():
    """The ``address`` fixture of a test module that imports this: one two-worker Dask LocalCluster
    for the module (its start costs seconds), reached by its scheduler's address."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  host="127.0.0.1") as cluster:
        yield cluster.scheduler_address
