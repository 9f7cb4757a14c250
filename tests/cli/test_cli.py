"""The CLI contract, run as a user runs it."""

import json

import pytest

from oracles import check, planes_match_edges, walk

from cli_runner import run


def test_topo_json():
    out = json.loads(run("topo", "ldi", "--nodes", 4096, "--degree", 8, "--json").stdout)
    assert out["nodes"] == 4096 and out["degree"] == 8 and out["diameter"] == 4
    assert abs(out["avg_hops"] - 3.84) < 0.01


def test_route_json_paths_walk():
    out = json.loads(run("route", "ldi", "--nodes", 18, "--degree", 3, "--src", 7, "--dst", 14, "--all",
                         "--json").stdout)
    assert len(out["paths"]) == 2
    for p, links in zip(out["paths"], out["links"]):
        assert walk(18, 3, 7, links) == p and p[-1] == 14


@pytest.mark.parametrize("fmt", ["json", "csv", "pairs", "polatis", "sonic"])
def test_planes_then_verify(tmp_path, fmt):
    f = tmp_path / f"cfg.{fmt}"
    run("planes", "ldi", "--nodes", 50, "--degree", 4, "-o", f, "--format", fmt)
    if fmt == "json":
        doc = json.loads(f.read_text())
        assert planes_match_edges(doc["planes"], 50, 4)
    if fmt in ("polatis", "sonic"):      # one file per switch, each verified against its plane
        assert not f.exists()
        for k in range(4):
            p = run("verify", "--config", tmp_path / f"cfg.plane{k}.{fmt}", "--topology", "ldi", "--nodes", 50,
                    "--degree", 4, "--format", fmt)
            assert "MATCH" in p.stdout
        run("planes", "ldi", "--nodes", 50, "--degree", 4, "-o", f, "--format", fmt, "--single-file")
    p = run("verify", "--config", f, "--topology", "ldi", "--nodes", 50, "--degree", 4, "--format", fmt)
    assert "MATCH" in p.stdout


def test_verify_reports_mismatch(tmp_path):
    f = tmp_path / "cfg.txt"
    run("planes", "ldi", "--nodes", 9, "--degree", 3, "-o", f)
    lines = f.read_text().splitlines()
    # Drop ingress 0 of plane 0 and swap two egresses of plane 1: as a switch might read back.
    body = [ln for ln in lines if not ln.startswith("# permnet")]
    p0 = body.index("# plane 0")
    del body[p0 + 1]
    p1 = body.index("# plane 1")
    a, b = body[p1 + 1].split(), body[p1 + 2].split()
    body[p1 + 1], body[p1 + 2] = f"{a[0]} {b[1]}", f"{b[0]} {a[1]}"
    dump = tmp_path / "dump.txt"
    dump.write_text("\n".join(body) + "\n")
    p = run("verify", "--config", dump, "--topology", "ldi", "--nodes", 9, "--degree", 3, "--json", check=False)
    assert p.returncode == 1
    rep = json.loads(p.stdout)
    assert rep["missing"] == [[0, 0, 0]] and len(rep["conflicting"]) == 2 and not rep["verified"]


def test_faults_json(tmp_path):
    out = json.loads(run("faults", "ldi", "--nodes", 15, "--degree", 5, "--failed", "1,2,4", "--json",
                         "-o", tmp_path / "re.json").stdout)
    assert out["connected"] is False and out["diameter"] is None
    planes = out["reembedded"]["planes"]
    assert len(planes) == 5 and all(row[1] is None for row in planes)
    survivors = [n for n in range(15) if n not in (1, 2, 4)]
    for row in planes:
        assert sorted(x for x in row if x is not None) == survivors
        assert [i for i, x in enumerate(row) if x is not None] == survivors
    p = run("verify", "--config", tmp_path / "re.json", "--intended", tmp_path / "re.json")
    assert "MATCH" in p.stdout


def test_mixed_and_plot_and_convert(tmp_path):
    out = json.loads(run("mixed", "ldi", "-M", 64, "-S", 6, "--plane", "torus:8x8", "--json").stdout)
    assert out["union"]["diameter"] <= out["ldi"]["diameter"]
    run("plot", "ldi", "-M", 9, "-S", 3, "-o", tmp_path / "plots")
    names = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert names == ["ldi_9_3_hops.png", "ldi_9_3_hops.svg", "ldi_9_3_unfolded.png", "ldi_9_3_unfolded.svg"]
    run("planes", "ldi", "-M", 9, "-S", 3, "-o", tmp_path / "a.json")
    run("convert", tmp_path / "a.json", "-o", tmp_path / "a.scpi", "--single-file")
    run("convert", tmp_path / "a.scpi", "-o", tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_outputs_are_deterministic(tmp_path):
    # two hash seeds: the fork server's child (its seed) and a fresh interpreter (another)
    run("demo", "-o", tmp_path / "x", "-M", 16, "-S", 4)
    run("demo", "-o", tmp_path / "y", "-M", 16, "-S", 4, fresh=True)
    for f in sorted((tmp_path / "x").rglob("*")):
        if f.is_file():
            assert f.read_bytes() == (tmp_path / "y" / f.relative_to(tmp_path / "x")).read_bytes(), f


def test_demo_fabric_verifies_from_its_own_device_files(tmp_path):
    # LDI(72,3) on 64-port switches: every plane (72 ports) a three-stage Clos network of devices.
    # (M just above 64 keeps the demo's RTL, a next-hop table of M^2 entries, small: LDI(200,4) took 3 s more)
    run("demo", "-o", tmp_path / "d", "-M", 72, "-S", 3)
    fab = tmp_path / "d" / "fabric" / "ldi"
    p = run("fabric", "verify", "--fabric", fab / "fabric.json", "--readback", fab / "devices", "--json")
    assert json.loads(p.stdout)["verified"] is True or "MATCH" in p.stdout
    report = json.loads((tmp_path / "d" / "report.json").read_text())
    assert report["fabric"]["max_passes"] == 3
    assert report["fabric"]["devices_used"] == len(list((fab / "devices").iterdir()))
    # the demo composes its own device files with the cabling too, and says so
    assert (report["fabric"]["circuits"], report["fabric"]["broken"], report["fabric"]["verified"]) == (72 * 3, 0, True)
    assert "## OCS fabric" in (tmp_path / "d" / "report.md").read_text()


@pytest.mark.parametrize("args,needle", [
    (["topo", "ldi", "-M", 4, "-S", 4], "must be >"),
    (["topo", "ldi", "-M", 10, "-S", 1], "degree S must be >= 2"),
    (["faults", "ldi", "-M", 15, "-S", 5, "--failed", "1,1"], "named twice"),
    (["faults", "ldi", "-M", 15, "-S", 5, "--failed", "1,99"], "out of range"),
    (["faults", "ldi", "-M", 15, "-S", 5, "--failed", "1,x"], "not an integer"),
    (["route", "ldi", "-M", 100, "-S", 7, "--src", 0, "--dst", 1, "--method", "melhem"], "not of that form"),
    (["planes", "ldi", "-M", 4096, "-S", 8, "--method", "formula3", "-o", "OUT"], "eq. (3)"),
    (["verify", "--config", "MISSING.json", "--topology", "ldi", "-M", 9, "-S", 3], "cannot read"),
    (["topo", "nosuch"], "No such command"),
])
def test_bad_input_one_line_no_output(tmp_path, args, needle):
    args = [str(tmp_path / "out.json") if a == "OUT" else a for a in args]
    args = [str(tmp_path / "missing.json") if a == "MISSING.json" else a for a in args]
    p = run(*args, check=False)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and needle in p.stderr and "Traceback" not in p.stderr
    assert not any(tmp_path.iterdir())


def test_truncated_config_is_rejected(tmp_path):
    f = tmp_path / "c.json"
    run("planes", "ldi", "-M", 30, "-S", 3, "-o", f)
    f.write_text(f.read_text()[:200])
    p = run("verify", "--config", f, "--topology", "ldi", "-M", 30, "-S", 3, check=False)
    assert p.returncode == 2 and "truncated" in p.stderr and len(p.stderr.splitlines()) == 1


# ------------------------------------------------------------ issue 3 CLI

def test_benes_json_and_hex(tmp_path):
    out = json.loads(run("benes", "--perm", "4,1,0,3,2,6,5,7", "--json", "-o", tmp_path / "hx").stdout)
    assert out["size"] == 8 and out["switches"] == 20 and len(out["stages"]) == 5 and len(out["links"]) == 4
    check(out, [4, 1, 0, 3, 2, 6, 5, 7])
    files = sorted(p.name for p in (tmp_path / "hx").iterdir())
    assert files == ["config.hex", "network.json"] + [f"stage_{i:02d}.hex" for i in range(5)]
    # Hex files and JSON agree: line j of stage_SS.hex is the state of switch j; config.hex packs them.
    words = [int(w, 16) for w in (tmp_path / "hx" / "config.hex").read_text().split()]
    for s, stage in enumerate(out["stages"]):
        lines = (tmp_path / "hx" / f"stage_{s:02d}.hex").read_text().split()
        assert [int(x, 16) for x in lines] == [sw["state"] for sw in stage]
        assert words[s] == sum(sw["state"] << j for j, sw in enumerate(stage))


def test_benes_radix_and_perm_file(tmp_path):
    f = tmp_path / "p.json"
    p = [5, 3, 8, 0, 1, None, 2, 4, 7]
    f.write_text(json.dumps(p))
    out = json.loads(run("benes", "--perm-file", f, "--radix", 3, "--json").stdout)
    assert out["radix"] == 3 and out["switches"] == 9 and all(len(sw["state"]) == 3 for sw in out["stages"][0])
    check(out, p)
    g = tmp_path / "p.txt"
    g.write_text("\n".join(map(str, [2, 0, 1, 4, 3])) + "\n")
    out = json.loads(run("benes", "--perm-file", g, "--network", "waksman", "--json").stdout)
    check(out, [2, 0, 1, 4, 3])


@pytest.mark.parametrize("args,needle", [
    (["benes", "--perm", "0,1,1", "-o", "OUT"], "entry 2: output 1 repeats entry 1"),
    (["benes", "--perm", "0,3,1", "-o", "OUT"], "entry 1: 3 out of range"),
    (["benes", "--perm", "0,1.5,2", "-o", "OUT"], "entry 1: '1.5' is not an integer"),
    (["benes", "--perm", "", "-o", "OUT"], "empty"),
    (["benes", "--perm", "0,1,2,3,4", "--radix", "3", "-o", "OUT"], "not a power of radix 3"),
    (["mesh", "--side", "3", "--dims", "2"], "exactly one"),
    (["butterfly", "--dims", "0"], "dims"),
])
def test_benes_bad_input(tmp_path, args, needle):
    args = [str(tmp_path / "out") if a == "OUT" else a for a in args]
    p = run(*args, check=False)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and needle in p.stderr
    assert not any(tmp_path.iterdir())


def test_mesh_and_butterfly_json():
    out = json.loads(run("mesh", "--side", 6, "--dims", 2, "--random", "--seed", 3, "--json").stdout)
    assert out["steps"] <= 20 and out["max_buffer"] <= 6 and out["within_bounds"]
    out = json.loads(run("butterfly", "--dims", 4, "--perm", "bit-reversal", "--json").stdout)
    assert out["max_node_load"] == 4 and out["max_link_load"] >= 2
