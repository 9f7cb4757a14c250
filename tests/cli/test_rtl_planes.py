"""``permnet rtl planes`` and ``--target ecp5`` of ``rtl``/``synth`` crossbar|benes."""

# amaranth: UnusedElaboratable=no

import json
import re

import pytest

from permnet.gen.planes import runtime
from permnet.planeload import load_writes
from cli_runner import run


@pytest.fixture(scope="module")
def ldi6(tmp_path_factory):
    path = tmp_path_factory.mktemp("p") / "ldi6.json"
    run("planes", "ldi", "-M", 6, "-S", 2, "-o", path)
    return path


def port_width(text, name):
    m = re.search(rf"^\s*(input|output) (?:\[(\d+):0\] )?{re.escape(name)};", text, re.M)
    assert m, name
    return (int(m.group(2)) + 1 if m.group(2) else 1), m.group(1)


@pytest.mark.parametrize("kind", ["crossbar", "benes"])
def test_rtl_planes_ports_and_load_file(tmp_path, ldi6, kind):
    run("rtl", "planes", "--kind", kind, "--planes", ldi6, "--fwd-width", 8, "--bwd-width", 2,
        "-o", tmp_path / "p.v")
    text = (tmp_path / "p.v").read_text()
    M, S = 6, 2
    ab, db = runtime.addr_bits(kind, M), runtime.data_bits(kind, M)
    assert port_width(text, "fwd_i") == (S * M * 8, "input") and port_width(text, "fwd_o") == (S * M * 8, "output")
    assert port_width(text, "bwd_i") == (S * M * 2, "input") and port_width(text, "bwd_o") == (S * M * 2, "output")
    assert port_width(text, "cfg__plane") == (1, "input") and port_width(text, "cfg__addr") == (ab, "input")
    assert port_width(text, "cfg__data") == (db, "input") and port_width(text, "cfg__rdata") == (db, "output")
    assert port_width(text, "cfg__we") == (1, "input") and port_width(text, "cfg__commit") == (1, "input")
    # the _cfg.hex lines are the writes that load the file: plane | addr | data
    words = [int(x, 16) for x in (tmp_path / "p_cfg.hex").read_text().split()]
    writes = [(w >> (ab + db), (w >> db) & ((1 << ab) - 1), w & ((1 << db) - 1)) for w in words]
    assert writes == load_writes(ldi6, kind)
    planes = json.loads(ldi6.read_text())["planes"]
    per_plane = len(writes) // S
    for y in range(S):
        got = runtime.decode_readback(kind, M, [d for _, _, d in writes[y * per_plane:(y + 1) * per_plane]])
        assert got == planes[y]


def test_rtl_planes_wires_has_no_config_port(tmp_path, ldi6):
    run("rtl", "planes", "--kind", "wires", "--planes", ldi6, "-o", tmp_path / "w.v")
    text = (tmp_path / "w.v").read_text()
    assert "cfg__" not in text and "input clk" not in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.v"]


def test_rtl_target_ecp5_instantiates_the_hand_mapped_cells(tmp_path):
    run("rtl", "crossbar", "--ports", 8, "--width", 1, "--target", "ecp5", "-o", tmp_path / "e.v")
    text = (tmp_path / "e.v").read_text()
    assert re.search(r"^\s*L6MUX21 ", text, re.M) and "//   target = ecp5" in text


@pytest.mark.parametrize("target,cells", [("ecp5", True), ("generic", False), ("ice40", False)])
@pytest.mark.parametrize("module", ["crossbar", "benes", "planes-crossbar", "planes-benes"])
def test_emit_target_selects_the_cells(module, target, cells):
    from amaranth.back import rtlil

    from permnet.hdl import emit
    if module == "crossbar":
        gen, cell = emit.crossbar(8, 2, target=target), "L6MUX21"
    elif module == "benes":
        gen, cell = emit.benes(6, 2, target=target), "LUT4"
    else:
        kind = module.split("-")[1]
        gen = emit.planes(kind, [[1, 2, 3, 4, 5, 0]], 2, 1, target=target)
        cell = "L6MUX21" if kind == "crossbar" else "LUT4"
    text = rtlil.convert(gen.component, name="top")
    assert (f"cell \\{cell} " in text) == cells


@pytest.mark.parametrize("args,needle", [
    (["--kind", "crossbar", "--planes", "MISSING"], "MISSING"),
    (["--kind", "crossbar", "--planes", "PLANES", "--fwd-width", 0], "fwd_width must be >= 1"),
    (["--kind", "mesh", "--planes", "PLANES"], "Invalid value for '--kind'"),
])
def test_rtl_planes_bad_input(tmp_path, ldi6, args, needle):
    args = [str(ldi6) if a == "PLANES" else str(tmp_path / "missing.json") if a == "MISSING" else a for a in args]
    p = run("rtl", "planes", *args, "-o", tmp_path / "out.v", check=False)
    assert p.returncode == 2 and needle.replace("MISSING", "missing.json") in p.stderr, p.stderr
    assert not (tmp_path / "out.v").exists()


@pytest.mark.parametrize("module,args", [("crossbar", ["--ports", 8, "--width", 2]),
                                         ("benes", ["--size", 8, "--width", 2]),
                                         ("planes", ["--kind", "benes", "--planes", "PLANES"])])
def test_synth_builds_the_ecp5_cells_only_for_ecp5(monkeypatch, ldi6, module, args):
    # the component handed to synthesis, captured instead of synthesized
    from click.testing import CliRunner

    import permnet.hdl.synth
    from permnet.cli.synth import synth
    seen = []
    monkeypatch.setattr(permnet.hdl.synth, "synthesize",
                        lambda comp, target, **options: seen.append(comp) or {"target": target})
    args = [str(ldi6) if a == "PLANES" else str(a) for a in args]
    for target in ("ecp5", "ice40"):
        res = CliRunner().invoke(synth, [module, *args, "--target", target, "--json"])
        assert res.exit_code == 0, res.output
    assert [c.cells for c in seen] == ["ecp5", None]
