"""A worker process killed from outside (``kill -9``, or the kernel's out-of-memory killer) while a
``--workers N`` command runs (issue 44): the command ends with one line saying so, exit 2, no
traceback, and no worker left running; it was ``permnet: internal error: BrokenProcessPool: ...``,
exit 3."""

import pytest

from parallel_helpers import when_busy

SWEEP = ["netsim", "--topology", "ldi", "-M", "256", "-S", "4", "--load", "0.05:0.5:0.05", "--cycles", "200000",
         "--workers", "2", "--json"]


def test_a_killed_worker_process_is_one_line(tmp_path):
    pytest.importorskip("psutil")

    def kill_a_worker(command, kids):
        # the pool's workers are the children of its fork server, not of the command (the fork server
        # and multiprocessing's resource tracker are): the one that has computed longest
        workers = [k for k in kids if _ppid(k) not in (None, command.pid)]
        assert workers, [k.cmdline() for k in kids]
        max(workers, key=lambda k: k.cpu_times().user).kill()

    code, out, err, took, left = when_busy(SWEEP, kill_a_worker, tmp_path, settle_s=1)
    assert code == 2, err
    assert out == "" and err.strip().splitlines() == [err.strip()], err
    assert err.startswith("permnet: error: a worker process died (killed or out of memory); "), err
    assert "Traceback" not in err and took < 15, (err, took)
    assert left == [], "processes left running"


def _ppid(proc) -> int | None:
    try:
        return proc.ppid()
    except Exception:  # gone meanwhile
        return None
