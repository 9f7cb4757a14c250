"""Issue 43: ``netsim --traffic-matrix`` beside ``--traffic`` (one was ignored), a matrix whose
sums leave the range of a float (numpy warnings, then exit 0 on doubtful traffic), an unknown
pattern named as ``--traffic``; and ``plan`` on a sparse pair whose weights add up past the
largest float (a numpy RuntimeWarning on stderr before the error)."""

import numpy as np
import pytest

from cli_runner import run

NETSIM = ["netsim", "-M", "16", "-S", "4", "--cycles", "200"]


@pytest.mark.parametrize("args,needle", [
    ([*NETSIM, "--traffic-matrix", "uniform", "--traffic", "transpose"], "--traffic and --traffic-matrix exclude"),
    ([*NETSIM, "--traffic-matrix", "nosuchpattern"], "--traffic-matrix 'nosuchpattern' is neither a pattern"),
    ([*NETSIM, "--traffic-matrix", "huge.npy"], "huge.npy: the weights sum to more than the largest float"),
    (["plan", "-M", "16", "-S", "4", "--traffic", "pair.csv"], "pair.csv:3: the weights of (0,1) add up past"),
])
def test_refused_in_one_line_without_warnings(args, needle, tmp_path):
    np.save(tmp_path / "huge.npy", np.full((16, 16), 1e308))
    (tmp_path / "pair.csv").write_text("src,dst,weight\n0,1,1e308\n0,1,1e308\n")
    p = run(*args, check=False, cwd=tmp_path, timeout=60)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stderr.startswith("permnet: error:") and p.stderr.count("\n") == 1 and needle in p.stderr, p.stderr
    assert "Warning" not in p.stderr and p.stdout == ""
