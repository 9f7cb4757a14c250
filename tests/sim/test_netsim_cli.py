"""``permnet netsim`` (issue 14): JSON keys, sweep and saturation, files, and
one-line errors (exit 2) for bad loads, patterns, traces and too few VCs."""

import json

import pytest

from netsim_helpers import run_main

BASE = ["netsim", "-M", "16", "-S", "4", "--cycles", "400", "--warmup", "100"]


def test_single_load_json(capsys):
    r = run_main(BASE + ["--load", "0.2", "--json"], capsys)
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.output)
    for k in ("offered", "accepted", "latency_avg", "latency_p99", "hops_avg", "cycles"):
        assert k in d
    assert d["deadlock"] is False and 0.15 < d["accepted"] < 0.25 and d["latency_p99"] >= d["latency_avg"] * 0.5


def test_text_output_uses_booksim_wording(capsys):
    r = run_main(BASE + ["--load", "0.1"], capsys)
    assert r.exit_code == 0
    for phrase in ("Packet latency average = ", "Accepted packet rate average = ", "Hops average = "):
        assert phrase in r.output


def test_sweep_json_and_files(capsys, tmp_path):
    out = tmp_path / "curves"
    r = run_main(BASE + ["--topology", "ldi,debruijn", "--load", "0.2:1:0.4", "-o", out, "--json"], capsys)
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.output)
    assert [t["topology"] for t in d["topologies"]] == ["LDI(16,4)", "deBruijn(4,2)"]
    for t in d["topologies"]:
        assert "saturation" in t and [p["load"] for p in t["points"]][0] == 0.2
    names = sorted(p.name for p in out.iterdir())
    assert {"latency.png", "latency.svg", "LDI_16_4.json", "deBruijn_4_2.json"} <= set(names)
    assert (out / "latency.png").read_bytes()[:4] == b"\x89PNG"


def test_trace_run(capsys, tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("# cycle src dst size\n0 1 2 4\n3 5 9 2\n\n10 15 0 1\n")
    r = run_main(BASE + ["--trace", f, "--json"], capsys)
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.output)
    assert d["traffic"] == "trace" and d["delivered"] == 3


@pytest.mark.parametrize("extra,needle", [
    (["--load", "0"], "outside (0, 1]"), (["--load", "1.5"], "outside (0, 1]"),
    (["--load", "0.1:2:0.5"], "outside (0, 1]"), (["--load", "a:b"], "--load"),
    (["--traffic", "zipf"], "unknown traffic"), (["--traffic", "hotspot:99"], "hot node"),
    (["--vcs", "1"], "dependency cycle"), (["--vcs", "0"], "vcs"),
    (["--packet-size", "9"], "virtual cut-through"), (["--topology", "torus", "-S", "6"], "k-ary"),
    (["--topology", "ldi,nope"], "unknown topology"), (["--load", "0.1:0.5:0.1", "--refine", "99"], "refine"),
])
def test_bad_input_is_one_line(extra, needle, capsys):
    base = BASE[:3] + BASE[5:] if "-S" in extra else BASE     # an option given twice is refused on its own
    r = run_main(base + extra, capsys)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("permnet: error:") and needle in lines[0], r.stderr


def test_transpose_needs_a_power_of_four(capsys):
    r = run_main(["netsim", "-M", "32", "-S", "4", "--traffic", "transpose"], capsys)
    assert r.exit_code == 2 and "4^k" in r.stderr


@pytest.mark.parametrize("text,needle", [("0 1 2\n", ":1:"), ("0 1 2 4\n5 1 x 4\n", ":2:"), ("0 1 77 4\n", "0..15"),
                                         ("0 1 2 20\n", "does not fit")])
def test_malformed_trace(text, needle, capsys, tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    r = run_main(BASE + ["--trace", f], capsys)
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1 and needle in r.stderr, r.stderr


def test_allowed_deadlock_is_detected_and_reported(capsys):
    r = run_main(["netsim", "-M", "16", "-S", "4", "--vcs", "1", "--allow-deadlock", "--load", "1",
                  "--timeout", "200", "--cycles", "3000"], capsys)
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "deadlock detected" in r.stderr


def test_configuration_file_topology(capsys, tmp_path):
    cfg = tmp_path / "ldi.json"
    assert run_main(["planes", "ldi", "-M", "16", "-S", "4", "-o", cfg], capsys).exit_code == 0
    r = run_main(["deadlock", "--config", cfg, "--json"], capsys)
    assert r.exit_code == 0 and json.loads(r.output)["acyclic"] is True
    r = run_main(["deadlock", "--config", cfg, "--vcs", "1", "--json"], capsys)
    assert json.loads(r.output)["acyclic"] is False
    r = run_main(["netsim", "--config", cfg, "--load", "0.2", "--cycles", "300", "--warmup", "50", "--json"], capsys)
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.output)
    assert d["topology"] == "config ldi.json" and d["stable"]


@pytest.mark.parametrize("cmd", ["netsim", "deadlock"])
def test_nodes_or_config_required(cmd, capsys):
    r = run_main([cmd], capsys)
    assert r.exit_code == 2 and "--nodes is required" in r.stderr
