"""bench/orp_records.py refuses a bad --only, count or budget in one line (exit 2, no traceback),
naming the option, before any search starts."""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "orp_records.py"


@pytest.mark.parametrize("args, says", [(["--only", "32"], "--only: '32' is not hosts:radix (as 32:4)"),
                                        (["--only", "32:4,x:y"], "--only: 'x:y' is not hosts:radix (as 32:4)"),
                                        (["--evals", "0"], "--evals must be >= 1, got 0"),
                                        (["--workers", "0"], "--workers must be >= 1, got 0"),
                                        (["--sweep", "0"], "--sweep must be >= 1, got 0"),
                                        (["--seconds", "nan"], "--seconds must be > 0, got nan"),
                                        (["--scheduler", "tcp://127.0.0.1:1", "--evals", "1", "--only", "32:4"],
                                         "scheduler tcp://127.0.0.1:1: cannot connect to 127.0.0.1:1")])
def test_bad_arguments_are_one_line(tmp_path, args, says):
    p = subprocess.run([sys.executable, str(SCRIPT), *args, "-o", str(tmp_path / "out")], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert f"error: {says}" in p.stderr.strip().splitlines()[-1]
    assert not (tmp_path / "out").exists()
