"""permnet as a FuseSoC generator (``fusesoc/permnet.core``, :mod:`permnet.fusesoc`):
a user's core (docs/howto/fusesoc_example, copied to a temporary folder) asks
for an LDI(4,2) network with stream endpoints by the options of ``permnet rtl
network``; ``fusesoc run`` runs the generator and builds the user's testbench
with the generated Verilog on Icarus (and, under ``slow``, on Verilator); its
4 nodes each send 3 packets of 2 flits, every flit checked at its destination
(source, destination, packet, flit index, tlast)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from permnet.fusesoc import cli_args
from permnet.gen.errors import PermnetError

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EXAMPLE = ROOT / "docs" / "howto" / "fusesoc_example"   # the user's core and testbench of the how-to
M, PACKETS, WIDTH = 4, 3, 16                           # what they ask for and send


def user_core(folder: Path) -> None:
    """The user's core and testbench of docs/howto/fusesoc.md, copied into ``folder``."""
    for name in ("ldi_tb.core", "tb.v"):
        shutil.copy(EXAMPLE / name, folder / name)


def fusesoc(folder: Path, *args: str) -> subprocess.CompletedProcess:
    # the generator's interpreter (python3) and Verilator are looked up on PATH: this venv's; Icarus the system's
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([str(BIN / "fusesoc"), "--cores-root", str(ROOT / "fusesoc"), "--cores-root", str(folder),
                           "run", "--target", "sim", *args, "user:demo:ldi_tb"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=1200)


needs_fusesoc = pytest.mark.skipif(not (BIN / "fusesoc").exists(), reason="fusesoc comes with the dev extra")


def test_parameters_are_the_cli_long_options():
    assert cli_args({"design": "network", "nodes": 4, "degree": 2, "flit-width": 16, "endpoints": "stream"}) == \
        ["rtl", "network", "--nodes", "4", "--degree", "2", "--flit-width", "16", "--endpoints", "stream"]
    assert cli_args({"design": "nexthop", "nodes": 18, "degree": 3, "shortcut": False}) == \
        ["rtl", "nexthop", "--nodes", "18", "--degree", "3", "--no-shortcut"]
    for bad in ({"nodes": 4}, {"design": "switch"}, {"design": "crossbar", "output": "x.v"},
                {"design": "crossbar", "--ports": 4}):
        with pytest.raises(PermnetError, match="FuseSoC parameter"):
            cli_args(bad)


@needs_fusesoc
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus Verilog (Debian: iverilog)")
def test_fusesoc_run_on_icarus_delivers_every_packet(tmp_path):
    """``fusesoc run --tool icarus``: the generator writes the network and a core
    listing it, edalize builds it with the user's testbench, and every packet arrives."""
    user_core(tmp_path)
    p = fusesoc(tmp_path, "--tool", "icarus")
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    generated = [c for c in tmp_path.rglob("*.core") if c.name != "ldi_tb.core"]
    assert len(generated) == 1, sorted(str(c) for c in tmp_path.rglob("*.core"))
    verilog = generated[0].parent / "permnet_network.v"
    text = verilog.read_text()
    assert f"input [{WIDTH - 1}:0] n{M - 1}_in_tdata;" in text and f"n{M}_in_tdata" not in text
    assert "permnet rtl network --nodes 4 --degree 2 --endpoints stream --flit-width 16" in generated[0].read_text()
    assert f"PASS: {M * PACKETS} packets arrived" in out and "FAIL" not in out, out


@pytest.mark.slow
@needs_fusesoc
@pytest.mark.skipif(shutil.which("make") is None, reason="Verilator's build needs make")
def test_fusesoc_run_on_verilator_delivers_every_packet(tmp_path):
    user_core(tmp_path)
    p = fusesoc(tmp_path)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert f"PASS: {M * PACKETS} packets arrived" in out and "FAIL" not in out, out


@pytest.mark.parametrize("design,params", [("crossbar", {"ports": 4, "width": 8}), ("benes", {"size": 4, "width": 8}),
                                           ("nexthop", {"nodes": 18, "degree": 3, "variant": "table"})])
def test_generator_core_lists_the_verilog_and_its_data_files(design, params, tmp_path):
    """The generator on the file FuseSoC writes: the core names the Verilog and
    the init files ``permnet rtl`` wrote beside it (copied into the build)."""
    import yaml

    from permnet.fusesoc import generate

    cfg = tmp_path / "unit_input.yml"
    cfg.write_text(yaml.safe_dump({"files_root": str(tmp_path), "gapi": "1.0", "vlnv": "user:demo:top-unit:0",
                                   "parameters": {"design": design, **params}}))
    core = generate(cfg, tmp_path / "gen")
    assert core.name == "top-unit.core"
    text = yaml.safe_load(core.read_text().split("\n", 1)[1])       # after the CAPI=2: line
    files = {k: v for f in text["filesets"]["rtl"]["files"] for k, v in f.items()}
    written = sorted(p.name for p in (tmp_path / "gen").iterdir() if p.name != core.name)
    assert sorted(files) == written and f"permnet_{design}.v" in files
    assert files.pop(f"permnet_{design}.v") == {"file_type": "verilogSource"}
    assert files and all(v == {"file_type": "user", "copyto": k} and k.endswith(".hex") for k, v in files.items())
    assert text["name"] == "user:demo:top-unit:0"
