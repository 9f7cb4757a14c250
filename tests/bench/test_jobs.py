"""bench/jobs.py (issue 44): a section's independent rows run on ``bench/run.py --workers`` /
``--scheduler`` and come back in the places of their jobs; a timed job runs here, never in a
worker; a bench module's function reaches the workers by name (their path has ``bench/``)."""

import operator
import os
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from jobs import Job, run_rows  # noqa: E402


def _rows():
    return ["kept", Job.of(operator.mul, 6, 7), Job.of(os.getpid), ["also", "kept"], Job.of(os.getpid),
            Job("sections.router", "_router_name", ("router", "a bench module's function")),
            Job.of(os.getpid, timed=True)]


def _check(rows):
    assert rows[0] == "kept" and rows[1] == 42 and rows[3] == ["also", "kept"]
    assert rows[5] == "router (a bench module's function)"
    assert rows[6] == os.getpid()                          # the timed job ran here
    return rows[2], rows[4]


def test_serial_rows_run_here_in_order():
    assert _check(run_rows(_rows())) == (os.getpid(), os.getpid())
    assert _check(run_rows(_rows(), Namespace(workers=1, scheduler=None))) == (os.getpid(), os.getpid())


@pytest.mark.parametrize("scheduler", [None, "local"])
def test_untimed_rows_run_on_the_workers_and_keep_their_places(scheduler):
    if scheduler is not None:
        pytest.importorskip("dask.distributed")
    pids = _check(run_rows(_rows(), Namespace(workers=2, scheduler=scheduler), desc="test"))
    assert os.getpid() not in pids                          # the untimed jobs ran in worker processes


def test_run_py_says_timed_rows_run_alone_and_refuses_no_workers():
    bench = Path(__file__).resolve().parents[2] / "bench" / "run.py"
    out = subprocess.run([sys.executable, str(bench), "--help"], capture_output=True, text=True, check=True).stdout
    text = " ".join(out.split())
    assert "--workers" in text and "--scheduler ADDRESS|local" in text and "one at a time, whatever --workers" in text
    p = subprocess.run([sys.executable, str(bench), "--workers", "0"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.strip().splitlines()[-1].endswith("got 0")


def test_run_py_refuses_a_scheduler_nothing_answers_at_before_measuring(tmp_path):
    """Checked before the timing table (minutes of it; the synthesis jobs come after), in one line."""
    from port_helpers import free_port

    port = free_port()
    bench = Path(__file__).resolve().parents[2] / "bench" / "run.py"
    p = subprocess.run([sys.executable, str(bench), "--scheduler", f"tcp://127.0.0.1:{port}", "-k", "no such case",
                        "-o", str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines()[-1].endswith(f"error: scheduler tcp://127.0.0.1:{port}: cannot connect to "
                                                      f"127.0.0.1:{port} (Connection refused)")
    assert not (tmp_path / "out").exists()
