"""``permnet plan``: planes and schedules from the files written, bad input one line and exit 2."""

import json

import networkx as nx
import numpy as np
import pytest

from permnet.cli import main
from permnet.gen.traffic.patterns import pattern


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _union_hops(planes, D):
    g = nx.MultiDiGraph()
    g.add_edges_from((u, int(p[u])) for p in planes for u in range(len(p)))
    dist = dict(nx.all_pairs_shortest_path_length(g))
    return sum(D[s, d] * dist[s][d] for s, d in zip(*np.nonzero(D))) / D.sum()


def test_plan_from_a_sparse_file_writes_planes_other_commands_read(tmp_path, capsys):
    M = 16
    D = pattern("stencil2d", M)
    f = tmp_path / "demand.csv"
    f.write_text("src,dst,weight\n" + "".join(f"{s},{d},{D[s, d]}\n" for s, d in zip(*np.nonzero(D))))
    out = tmp_path / "planes.json"
    code, text, err = run(capsys, "plan", "--traffic", f, "--nodes", M, "--degree", 4, "-o", out, "--json")
    assert code == 0, err
    rep = json.loads(text)
    doc = json.loads(out.read_text())
    planes = np.array(doc["planes"])
    assert planes.shape == (4, M) and all(sorted(p) == list(range(M)) for p in planes.tolist())
    assert rep["circuits"] == 4 and rep["mean_hops"] == 1.0 == _union_hops(planes, D)
    assert rep["ldi"]["mean_hops"] == pytest.approx(_union_hops(np.array([(4 * np.arange(M) + L) % M for L in range(4)]), D))
    code, text, err = run(capsys, "verify", "--config", out, "--intended", out)
    assert code == 0 and "MATCH" in text


def test_plan_text_report_and_npy_input(tmp_path, capsys):
    f = tmp_path / "t.npy"
    np.save(f, pattern("transpose", 64))
    code, text, err = run(capsys, "plan", "--traffic", f, "-M", 64, "-S", 4)
    assert code == 0, err
    assert "circuits K     1 of 4 planes" in text and "mean hops      1 " in text and "LDI(64,4)" in text


def test_schedule_file_replays(tmp_path, capsys):
    M, S, delay, horizon = 24, 2, 30.0, 1500.0
    out = tmp_path / "sched.json"
    code, text, err = run(capsys, "plan", "--traffic", "skewed", "-M", M, "-S", S, "--schedule", "--reconfig-delay",
                          delay, "--horizon", horizon, "-o", out, "--json")
    assert code == 0, err
    rep = json.loads(text)
    doc = json.loads(out.read_text())
    planes = np.array(doc["planes"])
    D = pattern("skewed", M)
    D = D * (S * horizon / max(D.sum(0).max(), D.sum(1).max()))
    left = D.copy()
    assert sum(s["duration_us"] for s in doc["schedule"]) <= horizon + 1e-6
    for slot in doc["schedule"]:
        assert len(slot["planes"]) == S
        t = slot["duration_us"] - delay
        for y in slot["planes"]:
            assert sorted(planes[y].tolist()) == list(range(M))
            cap = np.zeros((M, M))
            cap[np.arange(M), planes[y]] = t
            np.fill_diagonal(cap, 0)
            left -= np.minimum(left, cap)
    served = 1 - left.sum() / D.sum()
    assert served == pytest.approx(rep["ours"]["served"], abs=1e-7)
    assert rep["ours"]["served"] >= rep["solstice"]["served"] - 1e-12


@pytest.mark.parametrize("text,args,needle", [
    ("src,dst,weight\n0,1,-2\n", [], "negative"),
    ("src,dst,weight\n0,9,2\n", [], "out of range"),
    ("src,dst,weight\n0,1,nan\n", [], "not finite"),
    ("0,1\n1,0\n0,0\n", [], "not square"),
    ("0,1\n1,0\n", [], "2 x 2 matrix for M=8"),
    (None, ["--traffic", "nosuch"], "neither a pattern"),
    (None, ["--traffic", "transpose"], "perfect square"),
    (None, ["--traffic", "uniform", "--schedule"], "--schedule needs"),
    (None, ["--traffic", "uniform", "--horizon", "10"], "need --schedule"),
    (None, ["--traffic", "uniform", "--schedule", "--reconfig-delay", "10", "--horizon", "5"], "must exceed"),
    (None, ["--traffic", "uniform", "-S", "0"], "degree S"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, text, args, needle):
    f = tmp_path / "d.csv"
    if text is not None:
        f.write_text(text)
        args = ["--traffic", f]
    argv = ["plan", "-M", 8, "-S", 2, *args, "-o", tmp_path / "o.json"]
    if "-S" in args:
        argv = ["plan", "-M", 8, *args, "-o", tmp_path / "o.json"]
    code, _, err = run(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and needle in err, err
    assert not (tmp_path / "o.json").exists()


def test_schedule_file_compiles_as_tdm_slots(tmp_path, capsys):
    """The TDM path plays the schedule: one fabric state per configuration, verified per slot."""
    out = tmp_path / "sched.json"
    code, _, err = run(capsys, "plan", "--traffic", "skewed", "-M", 16, "-S", 2, "--schedule", "--reconfig-delay", 30,
                       "--horizon", 1500, "-o", out)
    assert code == 0, err
    slots = json.loads(out.read_text())["schedule"]
    inv = tmp_path / "inv.toml"
    inv.write_text('[[device]]\nname = "s"\nprotocol = "tl1"\nports = 16\nswitch_ms = 0.02\ncount = 4\n')
    fab = tmp_path / "fab"
    code, text, err = run(capsys, "fabric", "compile", "--config", out, "--inventory", inv, "-o", fab, "--json")
    assert code == 0, err
    rep = json.loads(text)
    assert rep["slots"] == len(slots) and max(rep["guard_ms"]) * 1000 <= 30
    code, text, err = run(capsys, "fabric", "verify", "--fabric", fab / "fabric.json", "--readback", fab / "devices")
    assert code == 0 and "MATCH" in text, err
