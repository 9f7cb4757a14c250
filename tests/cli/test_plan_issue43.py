"""Issue 43, ``permnet plan``: demands whose scaling or sums leave the range of a float, work
without a bound, inputs that are not files, output over input and options that do not apply:
each one line on stderr (no numpy warning), exit 2, no output file, and at once."""

import numpy as np
import pytest

from cli_runner import run

PLAN = ["plan", "-M", "16", "-S", "4"]
SCHEDULE = [*PLAN, "--schedule"]


def _refused(p, needle):
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stderr.startswith("permnet: error:") and p.stderr.count("\n") == 1, p.stderr
    assert needle in p.stderr, p.stderr
    assert "Warning" not in p.stderr


@pytest.mark.parametrize("args", [
    ["--reconfig-delay", "1", "--horizon", "100", "--traffic", "d.csv"],          # 1e-320 scaled to inf
    ["--reconfig-delay", "1", "--horizon", "100", "--traffic", "uniform", "--load", "1e308"],
    ["--reconfig-delay", "1e-300", "--horizon", "1e308", "--traffic", "uniform"],
])
def test_schedule_whose_scaling_overflows_is_refused_not_a_hang(args, tmp_path):
    (tmp_path / "d.csv").write_text("src,dst,weight\n0,1,1e-320\n")
    p = run(*SCHEDULE, *args, "-o", "out.json", check=False, cwd=tmp_path, timeout=60)
    _refused(p, "cannot be scaled")
    assert not (tmp_path / "out.json").exists()


def test_schedule_with_a_delay_far_below_the_horizon_is_bounded(tmp_path):
    """horizon / delay = 1e600 matchings was the peeling's budget (int(inf): an overflow)."""
    p = run(*SCHEDULE, "--reconfig-delay", "1e-300", "--horizon", "1e300", "--traffic", "uniform", "--json",
            cwd=tmp_path, timeout=120)
    assert '"served"' in p.stdout and p.stderr == ""


def test_demand_whose_sums_overflow_is_refused(tmp_path):
    np.save(tmp_path / "huge.npy", np.full((16, 16), 1e308))
    p = run(*PLAN, "--traffic", "huge.npy", "-o", "out.json", check=False, cwd=tmp_path, timeout=60)
    _refused(p, "sum to more than the largest float")
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("args,needle", [
    (["--traffic", "/dev/zero", "-o", "out.json"], "not a regular file"),     # read until memory ran out
    (["--traffic", "uniform", "--evals", "1000000000", "-o", "out.json"], "--evals must be 0..10,000,000"),
    (["--traffic", "uniform", "-o", "out.json", "--single-file"], "--single-file: a json file holds every plane"),
    (["--traffic", "uniform", "--device-ports", "32"], "give -o"),
    (["--traffic", "uniform", "--load", "1.0"], "--load and --two-hop need --schedule"),
    (["--schedule", "--reconfig-delay", "1", "--horizon", "100", "--traffic", "uniform", "-o", "out.csv"],
     "--schedule writes a JSON configuration"),
])
def test_plan_options_that_do_not_apply_are_refused(args, needle, tmp_path):
    p = run(*PLAN, *args, check=False, cwd=tmp_path, timeout=60)
    _refused(p, needle)
    assert list(tmp_path.iterdir()) == []
