"""``permnet rtl router --switching deflection`` / ``permnet synth router --switching deflection``
(issue 41): the bufferless deflection router with its ports as top-level ports; the VC router's
options refused with it, its own refused without it."""

import re

import pytest

from cli_runner import run
from permnet.gen.routing import tables
from permnet.gen.routing.deflection import age_bits, distances


def test_rtl_deflection_router_ports(tmp_path):
    """Module ``deflection_router``: S links each way (valid, flit = dst src age payload), the
    injection stream (dst, payload) and E ejection streams (src, payload)."""
    p = run("rtl", "router", "-M", 8, "-S", 2, "--switching", "deflection", "--flit-width", 8,
            "--ejection-width", 1, "--stages", 2, "-o", "out/d.v", cwd=tmp_path)
    assert p.stderr.strip() == "wrote out/d.v"
    text = (tmp_path / "out" / "d.v").read_text()
    top = re.search(r"^module (\w+)\((.*?)\);", text, re.S | re.M)
    assert top.group(1) == "deflection_router"
    ports = set(re.findall(r"\w+", top.group(2)))
    assert {f"{io}__{y}__{x}" for io in "io" for y in range(2) for x in ("valid", "flit")} <= ports
    assert {"inj__valid", "inj__ready", "inj__payload", "ej__0__valid", "ej__0__ready", "ej__0__payload"} <= ports
    assert not any(p.startswith("ej__1") for p in ports)
    # dst, src (3 bits each), the spec's age bits for LDI(8,2) at 2 cycles a hop, payload 8
    planes = tables.network("ldi", 8, 2).table.planes
    age = age_bits(8, 2, int(distances(planes).max()), 2)
    width = 3 + 3 + age + 8
    assert re.search(rf"input \[{width - 1}:0\] i__1__flit;", text)
    assert re.search(rf"output \[{width - 1}:0\] o__0__flit;", text)
    assert "//   stages = 2" in text and "//   hop_cycles = 2" in text and "//   switching = deflection" in text
    assert f"//   age_bits = {age}" in text


def test_rtl_deflection_router_table(tmp_path):
    """``--router table``: the loadable mask table's port ``rt__*`` (addr a destination, data an S-bit
    mask, we, commit, rdata); the default has none, and three stages make a hop of 3 cycles."""
    run("rtl", "router", "-M", 8, "-S", 2, "--switching", "deflection", "--router", "table", "--stages", 3,
        "-o", "out/t.v", cwd=tmp_path)
    run("rtl", "router", "-M", 8, "-S", 2, "--switching", "deflection", "-o", "out/f.v", cwd=tmp_path)
    text = (tmp_path / "out" / "t.v").read_text()
    for decl in ("input [2:0] rt__addr;", "input [1:0] rt__data;", "input rt__we;", "input rt__commit;",
                 "output [1:0] rt__rdata;"):
        assert decl in text
    assert "//   routing = table" in text and "//   hop_cycles = 3" in text
    fixed = (tmp_path / "out" / "f.v").read_text()
    assert "rt__" not in fixed and "//   routing = fixed" in fixed


@pytest.mark.parametrize("args,needle", [
    (["--switching", "deflection", "--vcs", "2", "--credit-stages", "1"],
     "--switching deflection has no VCs, buffers or credits: drop --vcs, --credit-stages"),
    (["--switching", "deflection", "--buffer", "4"], "drop --buffer"),
    (["--switching", "deflection", "--stages", "4"], "--stages must be 1, 2 or 3"),
    (["--switching", "deflection", "--router", "nexthop"], "--router nexthop: the deflection router takes every"),
    (["--switching", "deflection", "--ejection-width", "3"], "--ejection-width must be 1..S = 2"),
    (["--stages", "2"], "--stages needs --switching deflection"),
    (["--ejection-width", "1"], "--ejection-width needs --switching deflection"),
])
def test_rtl_deflection_router_bad_input(tmp_path, args, needle):
    p = run("rtl", "router", "-M", 8, "-S", 2, *args, "-o", "out/d.v", cwd=tmp_path, check=False)
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not (tmp_path / "out").exists()


def test_synth_deflection_router_refuses_vc_options(tmp_path):
    """``synth router`` builds through the same generator: the same one line, before any tool runs."""
    p = run("synth", "router", "-M", 8, "-S", 2, "--switching", "deflection", "--lanes", "2", cwd=tmp_path,
            check=False)
    assert p.returncode == 2 and "drop --lanes" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
