"""Issue 29 (audit of the newer commands): each defect reproduced, then fixed."""

import json
import re
from pathlib import Path

import click
import pytest

from cli_runner import run
from permnet.cli import cli, main
from permnet.gen.topologies import ldi
from permnet.gen.planes.methods import PLANE_METHODS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _one_line_error(p, code=2):
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("permnet: error:"), p.stderr
    return lines[0]


def _method_options():
    """Every --method option of every command that decomposes LDI(M,S) into planes."""
    ctx = click.Context(cli)
    found = []

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), path + [name])
            return
        for p in cmd.params:
            if "--method" in getattr(p, "opts", ()) and "colouring" in getattr(p.type, "choices", ()):
                found.append((" ".join(path), tuple(p.type.choices)))

    walk(cli, [])
    return found


def test_documented_plane_methods_are_declared_once():
    documented = set(re.findall(r"`(\w+)`", (DOCS / "howto" / "write-configurations.md").read_text()
                                .split("`--method` chooses", 1)[1][:300]))
    assert "gcd" in documented and documented <= set(PLANE_METHODS)
    opts = _method_options()
    assert {"planes ldi", "faults ldi", "verify"} <= {name for name, _ in opts}, opts
    for name, choices in opts:
        assert choices == PLANE_METHODS, name


@pytest.mark.parametrize("method", PLANE_METHODS)
def test_every_plane_method_is_accepted(tmp_path, method):
    # M = 16, S = 4 satisfies eq. (3) (M = S^2 * 1), so every method applies:
    # the S planes are permutations whose union is exactly the LDI edge set
    out = tmp_path / "p.json"
    assert main(["planes", "ldi", "-M", "16", "-S", "4", "--method", method, "-o", str(out)]) == 0
    planes = json.loads(out.read_text())["planes"]
    assert all(sorted(p) == list(range(16)) for p in planes)
    edges = sorted((i, int(j)) for i, row in enumerate(ldi.successors(16, 4)) for j in row)
    assert sorted((i, p[i]) for p in planes for i in range(16)) == edges


@pytest.mark.parametrize("args,where", [
    (["search", "chordal", "--degree", "100000", "--diameter", "6", "--quiet"], "degree"),
    (["deadlock", "-M", "16", "-S", "2", "--vcs", str(10 ** 9)], "--vcs"),
])
def test_crashes_are_one_line_errors(args, where):
    p = run(*args, check=False, timeout=60)
    assert where in _one_line_error(p)


def test_verilog_and_init_files_are_written_together_or_not_at_all(tmp_path):
    from types import SimpleNamespace

    from permnet.gen.errors import PermnetError
    from permnet.hdl.emit import write_verilog

    gen = SimpleNamespace(verilog=lambda: "module x; endmodule\n", init_files={"expected": [1, 2, 3]},
                          word_digits={"expected": 2})
    (tmp_path / "x_expected.hex").mkdir()          # the companion file cannot be written
    with pytest.raises(PermnetError, match="x_expected.hex"):
        write_verilog(gen, tmp_path / "x.v")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x_expected.hex"]
    (tmp_path / "x_expected.hex").rmdir()
    write_verilog(gen, tmp_path / "x.v")
    assert (tmp_path / "x.v").read_text() == "module x; endmodule\n"
    assert (tmp_path / "x_expected.hex").read_text().split() == ["01", "02", "03"]


def test_rtl_network_refuses_deadlock_prone_vcs(tmp_path):
    # hop-indexed VCs on LDI(8,2) (3 hops): 1 VC has a channel dependency cycle, netsim refuses it
    args = ["-M", 8, "-S", 2, "--vcs", 1]
    ns = run("netsim", *args, check=False, cwd=tmp_path, timeout=120)
    assert "channel dependency cycle" in _one_line_error(ns)
    p = run("rtl", "network", *args, "-o", "net.v", check=False, cwd=tmp_path, timeout=120)
    assert "channel dependency cycle" in _one_line_error(p)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("plane", ["shift:0", "shift:16", "shift:-32"])
def test_mixed_refuses_an_identity_plane(tmp_path, plane):
    p = run("mixed", "ldi", "-M", 16, "-S", 4, "--plane", plane, "-o", "m.json", check=False, cwd=tmp_path)
    assert "identity" in _one_line_error(p)
    assert not list(tmp_path.iterdir())


def _ldi_config(tmp_path, M=16, S=4):
    out = tmp_path / "c.json"
    assert main(["planes", "ldi", "-M", str(M), "-S", str(S), "-o", str(out)]) == 0
    return out


def test_contradictory_options_are_refused(tmp_path, capsys):
    cfg = _ldi_config(tmp_path)
    trace = tmp_path / "t.txt"
    trace.write_text("0 0 5 1\n")
    cases = [
        # verify: an --intended file and a --topology that would be ignored
        (["verify", "--config", str(cfg), "--intended", str(cfg), "--topology", "ldi", "-M", "16", "-S", "2"],
         "--intended"),
        # deadlock: chordal(16;8) has degree 3, not 9
        (["deadlock", "--topology", "chordal", "-M", "16", "--chords", "8", "--degree", "9"], "--degree 9"),
        # netsim: a trace fixes every packet, so --load and --traffic cannot apply
        (["netsim", "-M", "16", "-S", "4", "--trace", str(trace), "--load", "0.5"], "--trace"),
        (["netsim", "-M", "16", "-S", "4", "--trace", str(trace), "--traffic", "transpose"], "--trace"),
    ]
    for argv, where in cases:
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and where in err[0], (argv, err)
    # the same commands without the contradiction run
    assert main(["verify", "--config", str(cfg), "--intended", str(cfg)]) == 0
    assert main(["deadlock", "--topology", "chordal", "-M", "16", "--chords", "8", "--degree", "3"]) == 0
    assert main(["netsim", "-M", "16", "-S", "4", "--trace", str(trace)]) == 0


INVENTORIES = {
    "ports": '[[device]]\nname = "big"\nports = 100000000\nprotocol = "sonic"\nport_base = 1\negress_offset = 0\n',
    "count": '[[device]]\nname = "ocs"\nmodel = "sonic-64"\ncount = 1000000000\n',
}


@pytest.mark.parametrize("kind", sorted(INVENTORIES))
def test_huge_inventories_are_refused_before_allocating(tmp_path, kind, monkeypatch):
    from permnet.gen.fabric.inventory import parse_inventory
    from permnet.gen.errors import PermnetError
    import tomllib

    doc = tomllib.loads(INVENTORIES[kind])
    # 1 GiB budget: a real 10^8-port or 10^9-device inventory would exhaust it long before the error
    monkeypatch.setenv("PERMNET_MAX_MEMORY", "1G")
    with pytest.raises(PermnetError, match="PERMNET_MAX_MEMORY"):
        parse_inventory(doc)
    (tmp_path / "inv.toml").write_text(INVENTORIES[kind])
    p = run("fabric", "compile", "--topology", "ldi", "--nodes", 64, "--degree", 4, "--inventory", "inv.toml",
            "-o", "fab", check=False, cwd=tmp_path, timeout=60, env=_env(PERMNET_MAX_MEMORY="1G"))
    assert "PERMNET_MAX_MEMORY" in _one_line_error(p)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["inv.toml"]


def _env(**extra):
    import os

    return {**os.environ, **extra}


def test_huge_node_and_port_counts_are_refused(tmp_path):
    inv = tmp_path / "inv.toml"
    inv.write_text('[[device]]\nname = "ocs"\nmodel = "sonic-64"\ncount = 8\n')
    cfg = _ldi_config(tmp_path)
    assert main(["fabric", "compile", "--topology", "ldi", "--nodes", "64", "--degree", "4",
                 "--inventory", str(inv), "-o", str(tmp_path / "fab0")]) == 0
    for args in (["fabric", "compile", "--topology", "ldi", "--nodes", 10 ** 9, "--degree", 8,
                  "--inventory", inv, "-o", "fab"],
                 ["fabric", "reconfigure", "--fabric", tmp_path / "fab0" / "fabric.json", "--topology", "ldi",
                  "--nodes", 10 ** 9, "--degree", 4, "-o", "fab"],
                 # port 9 (discard) is never contacted: the size is refused first
                 ["ocs", "apply", "--config", cfg, "--device", "127.0.0.1:9", "--protocol", "tl1",
                  "--device-ports", 10 ** 9]):
        p = run(*args, check=False, cwd=tmp_path, timeout=60)
        assert p.returncode == 2, (args, p.stderr)
        assert "PERMNET_MAX_MEMORY" in _one_line_error(p), args
        assert not (tmp_path / "fab").exists()


def test_chordal_search_looks_at_its_deadline_between_small_groups(monkeypatch):
    from permnet.gen.search import chordal

    looks = []
    monkeypatch.setattr(chordal, "_late", lambda deadline: bool(looks.append(deadline)) or len(looks) > 1)
    # n = 200 nodes of degree 3 with diameter <= 4 exceeds the Moore bound (46): no ring exists,
    # so the local search would run every restart of its batch (64 x 500) if not cut
    hit, evals = chordal._find(200, 3, 4, [1, 2, 4], 100_000, 0, 0, restart_steps=500, deadline=1.0)
    assert hit is None and 0 < evals <= chordal.GROUP * 500 and len(looks) == 2


@pytest.mark.parametrize("args,where", [
    (["search", "chordal", "--diameter", str(10 ** 6), "--evals", "100", "--quiet"], "--diameter"),
    (["orp", "search", "-n", str(10 ** 9), "-r", "24", "--evals", "10", "-o", "o.edges"], "at most 131072 hosts"),
    (["deadlock", "--nodes", "4096", "--degree", "64", "--routing", "shortest"], "shortest-path tables"),
    # refused before the link is opened (port 9, discard, is never contacted)
    (["hil", "run", "--url", "socket://127.0.0.1:9", "--config", "c.json", "--prbs", str(10 ** 9)], "--prbs"),
])
def test_unbounded_runs_are_refused_up_front(tmp_path, args, where):
    _ldi_config(tmp_path)
    p = run(*args, check=False, timeout=60, cwd=tmp_path)
    assert where in _one_line_error(p)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["c.json"]


@pytest.mark.parametrize("sig,code,word", [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")])
def test_netsim_stops_at_a_signal(tmp_path, sig, code, word):
    import signal
    import subprocess
    import time

    from cli_runner import PERMNET

    # 10^7 cycles at 1024 nodes run for minutes unless the kernel sees the signal
    proc = subprocess.Popen(PERMNET + ["netsim", "-M", "1024", "-S", "4", "--cycles", str(10 ** 7), "--load", "0.2"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(3)                          # start-up and the first cycles; the signal may come at any time
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    assert err.strip().splitlines() == [f"permnet: {word}"] and out == ""


def test_rtl_network_refuses_what_it_cannot_elaborate_in_time(tmp_path):
    p = run("rtl", "network", "-M", 64, "-S", 8, "-o", "big.v", check=False, cwd=tmp_path, timeout=60)
    assert "VC buffers" in _one_line_error(p)
    assert not list(tmp_path.iterdir())
