"""Independent jobs on one process, on local processes or on a Dask cluster.

Every command that runs independent jobs (the anneals of ``orp search``, the
load points of ``netsim``, the restarts of ``search chordal`` and ``plan
--evals``) maps a module-level job function over a list of jobs with
:func:`map_jobs`, or opens one :class:`Runner` for several rounds:

    >>> from permnet.gen.parallel import map_jobs
    >>> map_jobs(abs, [-3, 1, -2])
    [3, 1, 2]

``workers=1`` and no scheduler runs the jobs here, in order.  ``workers=N``
runs them on N local processes (``concurrent.futures``, started by a fork
server, so a parent that has started numba's OpenMP threads forks nothing
itself).  ``scheduler="local"`` starts a Dask ``LocalCluster`` of N
single-threaded worker processes here; any other scheduler is the address of
a running Dask scheduler (``tcp://host:8786``: ``dask scheduler`` on one
host, ``dask worker tcp://host:8786`` on the others).  Whatever runs them,
the results come back in the order of the jobs, so a seeded computation
gives the same answer on any number of workers.

The job function must be defined at module level (processes and Dask pickle
it by name).  A large object every job reads (a network's routing tables) is
given once with :meth:`Runner.share` and reaches the function as its first
argument: it is sent to each worker process once, not with every job.

A caller that runs a library function calling :func:`map_jobs` many times
(``bench/orp_records.py``: two rounds of anneals per instance, thirteen
instances) can open one :class:`Runner` and install it: within ``with
runner.installed():`` every :func:`map_jobs` call asking for the same
``workers`` and ``scheduler`` runs on that runner's processes or cluster
instead of starting its own.

Ctrl-C (``KeyboardInterrupt``) or SIGTERM (the CLI raises ``SystemExit(143)``)
while the jobs run cancels the pending ones, terminates the local worker
processes or closes the Dask cluster, and is raised again.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import signal
import time
from concurrent.futures import CancelledError
from concurrent.futures.process import BrokenProcessPool

from permnet.gen.errors import PermnetError, require

__all__ = ["Runner", "map_jobs", "check_parallel", "check_scheduler", "at_once"]

NO_WORKERS_S = 60  # a Dask cluster without a worker for this long: its jobs are refused (Runner.result)
WORKER_DIED = "a worker process died (killed or out of memory)"  # the start of the PermnetError that says so
_SHARED: dict = {}  # in a local worker process: the shared objects, by key
_INSTALLED: contextvars.ContextVar = contextvars.ContextVar("permnet_runner", default=None)  # Runner.installed


def check_parallel(workers: int, scheduler: str | None) -> None:
    """Refuse a worker count below 1 or an empty scheduler address."""
    require(isinstance(workers, int) and workers >= 1, f"workers must be >= 1, got {workers}")
    require(scheduler is None or scheduler.strip() != "", "scheduler: give an address or 'local'")


def at_once(workers: int, scheduler: str | None, jobs: int) -> int:
    """How many of ``jobs`` run at the same time: ``min(workers, jobs)`` here or on a LocalCluster
    (``scheduler="local"``: ``workers`` single-threaded processes); on a remote scheduler, whose
    workers are not known here, all of them.  A wall-time budget shared by the jobs gives each
    ``seconds * at_once / jobs``."""
    return jobs if scheduler not in (None, "local") else max(1, min(workers, jobs))


def check_scheduler(address: str) -> None:
    """Refuse a scheduler address Dask cannot parse, or a host and port nothing listens on, in one line
    (a script that runs other work before its jobs calls it first; ``"local"`` is not an address).

    A refused connection or an unknown host fails here at once, an unanswered one after 5 s; the Dask
    client alone would retry either for its whole 30 s connect timeout."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import backends

    try:
        scheme, location = parse_address(address)
        if scheme not in backends:
            raise ValueError(f"unknown scheme {scheme!r} (known: {', '.join(sorted(backends))})")
        if scheme not in ("tcp", "tls", "ws", "wss"):
            return
        host, port = parse_host_port(location)
    except ValueError as exc:
        raise PermnetError(f"scheduler {address}: {exc}") from None
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as exc:
        raise PermnetError(f"scheduler {address}: cannot connect to {host}:{port} "
                           f"({exc.strerror or type(exc).__name__})") from None


def _init_worker(shared: dict) -> None:
    # The parent turns Ctrl-C into a clean stop of the whole pool; a worker that
    # also raised KeyboardInterrupt would only print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _SHARED.update(shared)


def _call_shared(fn, key, job):
    return fn(_SHARED[key], job)


def _call_value(fn, value, job):
    return fn(value, job)


class _Inline:
    """A shared object sent with every job (the processes had started when it was shared)."""

    def __init__(self, obj):
        self.obj = obj


class Runner:
    """One pool of workers for several rounds of jobs (a context manager).

    ``progress``: a tqdm bar per :meth:`map` (None: only on a terminal and
    only for more than one job; False: never)."""

    def __init__(self, workers: int = 1, scheduler: str | None = None, progress: bool | None = None):
        check_parallel(workers, scheduler)
        self.workers, self.scheduler, self.progress = workers, scheduler, progress
        self._shares: dict = {}
        self._pool = self._client = self._cluster = None
        self._before: set = set()
        self._keys = itertools.count()
        self._polled = 0.0  # when the Dask scheduler was last asked for its workers
        self._quiet = contextlib.ExitStack()  # Dask's log handlers silenced while the client is open

    # ---------------------------------------------------------------- set-up
    @property
    def serial(self) -> bool:
        return self.scheduler is None and self.workers == 1

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(kill=exc_type is not None)

    @contextlib.contextmanager
    def installed(self):
        """Within it, :func:`map_jobs` with this runner's ``workers`` and ``scheduler`` runs on this
        runner (one pool of processes or one cluster for many calls) instead of opening its own."""
        token = _INSTALLED.set(self)
        try:
            yield self
        finally:
            _INSTALLED.reset(token)

    def share(self, obj):
        """A handle for ``obj``, to pass as ``shared`` to :meth:`submit` or :meth:`map`."""
        key = next(self._keys)
        if self.serial:
            self._shares[key] = obj
        elif self.scheduler is not None:
            client = self._start()
            self._shares[key] = client.scatter(obj, broadcast=True, hash=False)
        elif self._pool is None:  # sent to each process once, when it starts
            self._shares[key] = obj
        else:  # the processes have started: sent with every job instead
            self._shares[key] = _Inline(obj)
        return key

    def _start(self, fn=None):
        if self.scheduler is not None:
            if self._client is None:
                try:
                    from dask.distributed import Client, LocalCluster
                except ImportError:
                    raise PermnetError("--scheduler needs Dask: pip install 'permnet[cluster]'") from None
                import logging

                if self.scheduler == "local":
                    import multiprocessing as mp

                    self._before = set(mp.active_children())
                    # its own log lines (a worker lost to Ctrl-C) are not the user's business: a job's
                    # error comes back as the job's exception.  Without a dashboard its scheduler still
                    # serves HTTP, on 8787 unless told: a free port, not a warning when 8787 is taken
                    # (silence_logs quiets this process; the workers are quieted by this module's
                    # dask_setup, run in each as a preload)
                    self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                                 dashboard_address=None, silence_logs=logging.CRITICAL,
                                                 preload=[__name__],
                                                 scheduler_kwargs={"dashboard": False,
                                                                   "dashboard_address": "127.0.0.1:0"})
                    self._client = Client(self._cluster)
                else:
                    from distributed.utils import silence_logging_cmgr

                    check_scheduler(self.scheduler)
                    # as for the LocalCluster: a lost scheduler's reconnection traceback is not the user's
                    # business; the jobs' cancellation says it in one line (result)
                    self._quiet.enter_context(silence_logging_cmgr(logging.CRITICAL))
                    try:
                        self._client = Client(self.scheduler, timeout="30s")  # a busy machine answers late
                    except OSError as exc:
                        raise PermnetError(f"scheduler {self.scheduler}: {exc}") from None
            return self._client
        if self._pool is None:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor

            ctx = mp.get_context("forkserver")
            if fn is not None:  # the fork server imports the job's module once, for every worker
                ctx.set_forkserver_preload([fn.__module__])
            self._before = set(mp.active_children())
            self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_init_worker,
                                             initargs=({k: v for k, v in self._shares.items()},))
        return self._pool

    # ---------------------------------------------------------------- jobs
    def submit(self, fn, job, shared=None):
        """Start ``fn(job)`` (or ``fn(shared object, job)``); a handle for :meth:`result`."""
        if self.serial:
            return ("job", fn, job, shared)
        if self.scheduler is not None:
            client = self._start()
            if shared is None:
                return client.submit(fn, job, pure=False)
            return client.submit(_call_value, fn, self._shares[shared], job, pure=False)
        pool = self._start(fn)
        if shared is None:
            call = (fn, job)
        elif isinstance(self._shares[shared], _Inline):
            call = (_call_value, fn, self._shares[shared].obj, job)
        else:
            call = (_call_shared, fn, shared, job)
        try:
            return pool.submit(*call)
        except BrokenProcessPool:  # a worker died in an earlier round
            raise self._died() from None

    def result(self, handle):
        """The result of a submitted job (waits; a signal meanwhile is raised here)."""
        if isinstance(handle, tuple) and handle and handle[0] == "job":
            _, fn, job, shared = handle
            return fn(job) if shared is None else fn(self._shares[shared], job)
        alone = None  # since when a Dask cluster has had no worker to run the job
        while True:  # short waits, so that a signal is handled at once; ends with the job, or as below
            try:
                return handle.result(timeout=0.2)
            except TimeoutError:
                if self._client is None:
                    continue
                alone = self._check_workers(alone)
                continue
            except CancelledError as exc:  # only Dask cancels a job we wait for: the scheduler was lost
                if self.scheduler is None:
                    raise
                why = (getattr(exc, "msg", None) or getattr(exc, "reason", None) or str(exc)).replace("\n", " ")
                raise PermnetError(f"scheduler {self.scheduler}: a job was cancelled: {why}") from None
            except BrokenProcessPool:  # a local worker ended from outside (kill -9, the out-of-memory killer)
                raise self._died() from None
            except Exception as exc:  # the job's own error, or Dask's KilledWorker
                if self.scheduler is not None and type(exc).__name__ == "KilledWorker":
                    raise self._died(getattr(exc, "allowed_failures", None)) from None
                raise

    def _died(self, allowed_failures: int | None = None) -> PermnetError:
        """The one line of a job whose worker process died: locally the pool is broken (the other jobs
        are lost with it); a Dask cluster gives a job up once ``allowed_failures`` + 1 workers died running it."""
        if self.scheduler is None:
            return PermnetError(f"{WORKER_DIED}; the command stopped (fewer --workers use less memory)")
        times = "" if allowed_failures is None else f" on each of the {allowed_failures + 1} workers that ran a job"
        return PermnetError(f"scheduler {self.scheduler}: {WORKER_DIED}{times}; the command stopped")

    def _check_workers(self, alone: float | None) -> float | None:
        """While a Dask job waits: refuse a cluster that has had no worker for :data:`NO_WORKERS_S`
        (its jobs would wait for ever); the time since it has had none, or None."""
        now = time.monotonic()
        if now - self._polled < 5:  # the scheduler asked every 5 s at most
            return alone
        self._polled = now
        if self._client.scheduler_info().get("workers"):
            return None
        if alone is None:
            return now
        require(now - alone < NO_WORKERS_S, f"scheduler {self.scheduler}: no worker for {NO_WORKERS_S:g} s "
                                            "(start some: dask worker ADDRESS)")
        return alone

    def cancel(self, handles) -> None:
        """Cancel jobs not yet needed (those running finish; their results are dropped)."""
        for h in handles:
            if not (isinstance(h, tuple) and h and h[0] == "job"):
                h.cancel()

    def imap(self, fn, jobs, shared=None, desc: str = "jobs"):
        """Results of ``fn`` over ``jobs``, in their order; all are submitted at once,
        and those not yet consumed when the iteration stops are cancelled."""
        jobs = list(jobs)
        handles = [self.submit(fn, j, shared) for j in jobs]
        bar = self.bar(len(jobs), desc)
        done = 0
        try:
            for h in handles:
                out = self.result(h)
                done += 1
                if bar is not None:
                    bar.update(1)
                yield out
        finally:
            if bar is not None:
                bar.close()
            self.cancel(handles[done:])

    def map(self, fn, jobs, shared=None, desc: str = "jobs") -> list:
        """:meth:`imap` as a list."""
        return list(self.imap(fn, jobs, shared, desc))

    def bar(self, n: int | None, desc: str):
        """A tqdm bar of ``n`` jobs as :attr:`progress` asks, or None."""
        if self.progress is False or (n is not None and n <= 1):
            return None
        from tqdm import tqdm

        return tqdm(total=n, desc=desc, unit="job", leave=False, disable=None if self.progress is None else False)

    # ---------------------------------------------------------------- tear-down
    def close(self, kill: bool = False) -> None:
        """Shut the workers down; ``kill``: at once, pending jobs cancelled and running ones stopped."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            if kill:
                pool.shutdown(wait=False, cancel_futures=True)
                self._terminate_children()
            else:
                pool.shutdown(wait=True)
        if self._client is not None:
            client, self._client = self._client, None
            if kill:  # the command is ending: the connections dropped under Dask's pending reads are logged
                # by asyncio ("Future exception was never retrieved", with a traceback) when the futures are
                # collected, before or after the command's one line: not the user's business
                import logging

                logging.getLogger("asyncio").disabled = True
                # nor is Dask's own INFO line, with a traceback, on a stream the scheduler still closes after
                # the cluster has put its log handlers back ("Batched Comm Closed ... CommClosedError")
                logging.getLogger("distributed").setLevel(logging.CRITICAL)
            client.close(timeout=5 if kill else 30)
        if self._cluster is not None:
            cluster, self._cluster = self._cluster, None
            if kill:  # a nanny lets a busy worker finish its job: the workers (children of this process) are
                # stopped now, their nannies told first that this is their end (else they start new ones)
                from distributed.core import Status

                for nanny in list(getattr(cluster, "workers", {}).values()):
                    nanny.status = Status.closing_gracefully
                self._terminate_children()
            try:
                cluster.close(timeout=5 if kill else 30)
            except (TimeoutError, OSError):
                if not kill:
                    raise
            if kill:
                self._terminate_children()
        self._shares.clear()
        self._quiet.close()

    def _terminate_children(self) -> None:
        """SIGTERM, then SIGKILL after 5 s, to the worker processes this runner started."""
        import multiprocessing as mp

        procs = [p for p in mp.active_children() if p not in self._before]
        for p in procs:
            p.terminate()
        deadline = time.monotonic() + 5
        for p in procs:
            p.join(max(deadline - time.monotonic(), 0.1))
            if p.is_alive():
                p.kill()
                p.join(1)


def dask_setup(worker) -> None:
    """Run by Dask in each worker process of a local cluster (``preload``): the worker's own log lines
    (its stream to the scheduler closed when the command stops) are not the user's business, as the
    cluster's are not in this process (``silence_logs``)."""
    import logging

    logging.getLogger("distributed").setLevel(logging.CRITICAL)


def map_jobs(fn, jobs, workers: int = 1, scheduler: str | None = None, progress: bool | None = None,
             desc: str = "jobs") -> list:
    """``[fn(j) for j in jobs]`` on ``workers`` local processes or a Dask ``scheduler``
    (``"local"``: a LocalCluster here); results in the order of ``jobs``.  On the installed
    runner (:meth:`Runner.installed`) if it has the same ``workers`` and ``scheduler``."""
    jobs = list(jobs)
    check_parallel(workers, scheduler)
    mine = _INSTALLED.get()
    if mine is not None and (mine.workers, mine.scheduler) == (workers, scheduler):
        return mine.map(fn, jobs, desc=desc)
    with Runner(max(1, min(workers, len(jobs))) if scheduler is None else workers, scheduler, progress) as r:
        return r.map(fn, jobs, desc=desc)
