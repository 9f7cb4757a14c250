"""bench/orp_records.py (``make bench-records``) on ``--workers`` and ``--scheduler local`` (issue 44):
with ``--evals`` (a fixed number of evaluations per anneal, not wall time) two local processes and a
two-worker LocalCluster find the same records: the same rows but for their times, the same Graph
Golf file, whose h-ASPL, re-scored by ``permnet orp eval``, is the row's."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import run

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "orp_records.py"
ARGS = ["--only", "32:4", "--sweep", "2", "--evals", "150", "--seconds", "1"]


def _records(out: Path, *extra) -> list:
    subprocess.run([sys.executable, str(SCRIPT), *ARGS, *extra, "-o", str(out)], check=True, capture_output=True,
                   text=True, timeout=600)
    meta = json.loads((out / "records.json").read_text())
    assert "150 evaluations per anneal" in (out / "records.md").read_text()
    return [{k: v for k, v in r.items() if k not in ("seconds", "path")} for r in meta["rows"]]


@pytest.mark.slow      # two fresh interpreters, one with a LocalCluster: about 40 s on 2 busy cores
def test_records_are_the_same_on_two_processes_and_a_local_cluster(tmp_path):
    pytest.importorskip("dask.distributed")
    two = _records(tmp_path / "two", "--workers", "2")
    dask = _records(tmp_path / "dask", "--workers", "2", "--scheduler", "local")
    assert two == dask and [(r["hosts"], r["radix"]) for r in two] == [(32, 4)]
    edges = (tmp_path / "two" / "h32r4.edges").read_bytes()
    assert (tmp_path / "dask" / "h32r4.edges").read_bytes() == edges
    scored = json.loads(run("orp", "eval", tmp_path / "two" / "h32r4.edges", "--json").stdout)
    assert scored["haspl"] == pytest.approx(two[0]["haspl"], abs=1e-12)


def test_bad_worker_counts_are_refused_in_one_line(tmp_path):
    p = subprocess.run([sys.executable, str(SCRIPT), *ARGS, "--workers", "0", "-o", str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == "" and "--workers" in p.stderr.strip().splitlines()[-1]
