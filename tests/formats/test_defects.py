"""Each defect of the configuration files and ``verify`` found by trying them
as a new user would, reproduced (these fail on the code before the format
registry) and fixed.  The CLI runs in-process (``permnet.cli.main``)."""

import json
import re

import numpy as np
import pytest

from formats_helpers import partial_permutation
from permnet import ocsconfig
from permnet.cli import main
from permnet.gen.errors import PermnetError
from permnet.gen.planes.decompose import ldi_planes


def cli(capsys, *args):
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:       # verify's mismatch exit
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line_error(code, err, needle):
    assert code == 2 and len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err, err


def intended(tmp_path, planes, **kw):
    cfg = ocsconfig.OcsConfig(np.asarray(planes), {"family": "test"}, **kw)
    return ocsconfig.write(cfg, tmp_path / "intended.json"), cfg


# (a) Polatis egress ports numbered from the device, out-of-range read-backs rejected

def test_polatis_egress_numbered_from_the_device_size(tmp_path, capsys):
    code, _, err = cli(capsys, "planes", "ldi", "-M", 16, "-S", 2, "--device-ports", 192, "-o", tmp_path / "p.scpi")
    assert code == 0 and "2 files, one per switch" in err
    want = ldi_planes(16, 2).planes
    for k in range(2):
        line = [ln for ln in (tmp_path / f"p.plane{k}.scpi").read_text().splitlines() if ln.startswith(":oxc")][0]
        ins, outs = re.fullmatch(r":oxc:swit:conn:only \(@([\d,]+)\),\(@([\d,]+)\)", line).groups()
        pairs = list(zip(map(int, ins.split(",")), map(int, outs.split(","))))
        assert pairs == [(i + 1, 192 + int(e) + 1) for i, e in enumerate(want[k])]
        assert all(193 <= e <= 384 for _, e in pairs)
        code, out, _ = cli(capsys, "verify", "--config", tmp_path / f"p.plane{k}.scpi", "--topology", "ldi",
                           "-M", 16, "-S", 2)
        assert code == 0 and out.strip().endswith("MATCH")


def test_device_smaller_than_the_plane_is_refused(tmp_path, capsys):
    code, _, err = cli(capsys, "planes", "ldi", "-M", 16, "-S", 2, "--device-ports", 8, "-o", tmp_path / "p.scpi")
    one_line_error(code, err, "device")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text,port", [
    (":oxc:swit:conn:only (@1,2),(@193,400)\n", "egress port 400"),      # beyond 2 x 192
    (":oxc:swit:conn:only (@1,193),(@193,194)\n", "ingress port 193"),   # an egress port used as ingress
    (":oxc:swit:conn:only (@1,2),(@5,194)\n", "egress port 5"),          # an ingress port used as egress
])
def test_polatis_read_back_out_of_range_is_rejected(tmp_path, capsys, text, port):
    path, _ = intended(tmp_path, [np.arange(16)], device_ports=192)
    (tmp_path / "rb.scpi").write_text(text)
    code, _, err = cli(capsys, "verify", "--config", tmp_path / "rb.scpi", "--intended", path)
    one_line_error(code, err, port)
    with pytest.raises(PermnetError, match=port):
        ocsconfig.read_dump(tmp_path / "rb.scpi", device_ports=192)


def test_sonic_read_back_beyond_the_device_is_rejected(tmp_path, capsys):
    path, _ = intended(tmp_path, [np.arange(16)])
    (tmp_path / "rb.sh").write_text("config ocs cross-connect add 1A-17B\n")
    code, _, err = cli(capsys, "verify", "--config", tmp_path / "rb.sh", "--intended", path)
    one_line_error(code, err, "egress port 17")


def test_read_back_on_device_ports_beyond_the_plane_is_extra(tmp_path, capsys):
    path, _ = intended(tmp_path, [np.arange(16)], device_ports=32)
    (tmp_path / "rb.sh").write_text("".join(f"config ocs cross-connect add {i}A-{i}B\n" for i in range(1, 17))
                                     + "config ocs cross-connect add 20A-21B\n")
    code, out, _ = cli(capsys, "verify", "--config", tmp_path / "rb.sh", "--intended", path, "--json")
    rep = json.loads(out)
    assert code == 1 and rep["extra"] == [[0, 19, 20]] and not rep["missing"] and not rep["conflicting"]


# (b) a header-less read-back is sized from the intent, not from its largest port

@pytest.mark.parametrize("fmt", ["polatis", "tl1", "netconf", "sonic", "pairs", "csv"])
def test_header_less_read_back_with_one_missing_is_one_missing(tmp_path, capsys, fmt):
    rng = np.random.default_rng(7)
    row = rng.permutation(16)
    path, cfg = intended(tmp_path, [row], index_base=1)
    text = ocsconfig.render(cfg, fmt)
    drop = int(np.flatnonzero(row == 15)[0])          # the connection to the last egress port
    back = cfg.planes.copy()
    back[0, drop] = -1
    rb = ocsconfig.render(ocsconfig.OcsConfig(back, {}, 1), fmt)
    rb = "\n".join(ln for ln in rb.splitlines() if "permnet-ocs-config" not in ln) + "\n"   # no header
    assert "permnet-ocs-config" in text and "permnet-ocs-config" not in rb
    (tmp_path / "rb").write_text(rb)
    code, out, err = cli(capsys, "verify", "--config", tmp_path / "rb", "--intended", path, "--format", fmt, "--json")
    rep = json.loads(out)
    assert code == 1, err
    assert rep["missing"] == [[0, drop, 15]] and rep["conflicting"] == [] and rep["extra"] == []


# (c) a header-less 1-based CSV is not read 0-based

def test_header_less_one_based_csv_needs_its_base(tmp_path, capsys):
    (tmp_path / "one.csv").write_text("plane,ingress,egress\n0,1,2\n0,2,3\n0,3,1\n")
    code, _, err = cli(capsys, "convert", tmp_path / "one.csv", "-o", tmp_path / "out.json")
    one_line_error(code, err, "--index-base")
    assert not (tmp_path / "out.json").exists()
    assert cli(capsys, "convert", tmp_path / "one.csv", "-o", tmp_path / "out.json", "--index-base", 1)[0] == 0
    assert ocsconfig.read(tmp_path / "out.json").planes.tolist() == [[1, 2, 0]]
    # a port 0 says 0-based; a port equal to the size says 1-based
    (tmp_path / "zero.csv").write_text("0,0,2\n0,2,1\n")
    assert ocsconfig.read(tmp_path / "zero.csv").planes.tolist() == [[2, -1, 1]]
    path, _ = intended(tmp_path, [[1, 2, 0]])
    code, out, _ = cli(capsys, "verify", "--config", tmp_path / "one.csv", "--intended", path)
    assert code == 0 and out.strip() == "MATCH"     # port 3 = size 3: 1-based


# (e) one switch's read-back against one plane

def test_verify_one_switch_against_plane_k(tmp_path, capsys):
    want = ldi_planes(9, 3).planes
    path, _ = intended(tmp_path, want)
    rb = "".join(f"config ocs cross-connect add {i + 1}A-{int(e) + 1}B\n" for i, e in enumerate(want[2]))
    (tmp_path / "sw2.sh").write_text(rb)
    code, out, _ = cli(capsys, "verify", "--config", tmp_path / "sw2.sh", "--intended", path, "--plane", 2)
    assert code == 0 and out.strip() == "MATCH"
    code, out, _ = cli(capsys, "verify", "--config", tmp_path / "sw2.sh", "--intended", path, "--plane", 1, "--json")
    rep = json.loads(out)
    assert code == 1 and rep["planes"] == [1] and all(c["plane"] == 1 for c in rep["conflicting"])
    assert len(rep["conflicting"]) + len(rep["missing"]) >= 1
    code, _, err = cli(capsys, "verify", "--config", tmp_path / "sw2.sh", "--intended", path, "--plane", 3)
    one_line_error(code, err, "--plane 3 out of range")
    # without --plane the read-back is plane 0 and mismatches
    assert cli(capsys, "verify", "--config", tmp_path / "sw2.sh", "--intended", path)[0] == 1


def test_per_switch_file_names_its_plane_and_a_wrong_plane_is_refused(tmp_path, capsys):
    assert cli(capsys, "planes", "ldi", "-M", 9, "-S", 3, "-o", tmp_path, "--format", "tl1")[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plane0.tl1", "plane1.tl1", "plane2.tl1"]
    code, _, err = cli(capsys, "verify", "--config", tmp_path / "plane1.tl1", "--topology", "ldi", "-M", 9, "-S", 3,
                       "--plane", 2)
    one_line_error(code, err, "switch of plane 1")
    code, out, _ = cli(capsys, "verify", "--config", tmp_path / "plane1.tl1", "--topology", "ldi", "-M", 9, "-S", 3)
    assert code == 0 and out.strip() == "MATCH"


# (f) an edited JSON read-back is compared, with a warning

def test_edited_json_read_back_is_diffed_not_rejected(tmp_path, capsys):
    path, cfg = intended(tmp_path, ldi_planes(9, 3).planes)
    doc = json.loads(path.read_text())
    doc["planes"][1][0], doc["planes"][1][1] = doc["planes"][1][1], doc["planes"][1][0]
    doc["planes"][0][4] = None
    (tmp_path / "rb.json").write_text(json.dumps(doc))
    code, out, _ = cli(capsys, "verify", "--config", tmp_path / "rb.json", "--intended", path)
    lines = out.strip().splitlines()
    assert code == 1 and lines[0].startswith("warning") and "checksum differs" in lines[0]
    assert lines[-1] == "MISMATCH: 1 missing, 0 extra, 2 conflicting"
    with pytest.raises(PermnetError, match="checksum"):       # as a configuration it is still refused
        ocsconfig.read(tmp_path / "rb.json")
    doc["planes"][0][3] = "x"                                    # a bad field is bad input, not a mismatch
    (tmp_path / "rb.json").write_text(json.dumps(doc))
    one_line_error(*cli(capsys, "verify", "--config", tmp_path / "rb.json", "--intended", path)[::2], "not a port")


# (g) multi-plane vendor output: one file per switch unless asked

@pytest.mark.parametrize("fmt,ext", [("polatis", "scpi"), ("sonic", "sh"), ("tl1", "tl1"), ("netconf", "xml")])
def test_one_file_per_switch_unless_single_file(tmp_path, capsys, fmt, ext):
    assert cli(capsys, "planes", "ldi", "-M", 9, "-S", 3, "-o", tmp_path / f"c.{ext}", "--format", fmt)[0] == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"c.plane{k}.{ext}" for k in range(3)]
    for k in range(3):
        head = (tmp_path / f"c.plane{k}.{ext}").read_text()
        assert f"plane={k}" in head and f"for the switch of plane {k} of 3 only" in head
    if fmt == "netconf":
        code, _, err = cli(capsys, "planes", "ldi", "-M", 9, "-S", 3, "-o", tmp_path / "all.xml", "--single-file")
        one_line_error(code, err, "one document per switch")
        return
    assert cli(capsys, "planes", "ldi", "-M", 9, "-S", 3, "-o", tmp_path / f"all.{ext}", "--single-file")[0] == 0
    assert ocsconfig.read(tmp_path / f"all.{ext}").planes.tolist() == ldi_planes(9, 3).planes.tolist()


# (h) a TDM schedule is carried by every text format

@pytest.mark.parametrize("fmt,ext", [("csv", "csv"), ("pairs", "txt"), ("polatis", "scpi"), ("sonic", "sh"),
                                     ("tl1", "tl1")])
def test_tdm_schedule_survives_every_text_format(tmp_path, capsys, fmt, ext):
    args = ["planes", "ldi", "-M", 16, "-S", 4, "--switches", 2, "--slot-us", 50, "--single-file"]
    assert cli(capsys, *args, "-o", tmp_path / "c.json")[0] == 0
    assert cli(capsys, *args, "-o", tmp_path / f"c.{ext}", "--format", fmt)[0] == 0
    assert cli(capsys, "convert", tmp_path / f"c.{ext}", "-o", tmp_path / "back.json")[0] == 0
    assert (tmp_path / "back.json").read_bytes() == (tmp_path / "c.json").read_bytes()
    assert json.loads((tmp_path / "back.json").read_text())["schedule"] == [
        {"duration_us": 50.0, "planes": [0, 1]}, {"duration_us": 50.0, "planes": [2, 3]}]


def test_schedule_in_per_switch_files_says_when_and_where(tmp_path, capsys):
    assert cli(capsys, "planes", "ldi", "-M", 16, "-S", 4, "--switches", 2, "--slot-us", 50, "-o",
               tmp_path / "c.sh")[0] == 0
    cfg = ocsconfig.read(tmp_path / "c.plane3.sh")
    assert cfg.topology["switch"] == 1 and cfg.schedule == [{"duration_us": 50.0, "planes": []},
                                                            {"duration_us": 50.0, "planes": [0]}]


def test_byte_order_mark_and_random_partial_read_backs(tmp_path):
    rng = np.random.default_rng(3)
    row = partial_permutation(rng, 24, 5)
    cfg = ocsconfig.OcsConfig([row], {}, 0, None, 64)
    for fmt in ocsconfig.FORMATS:
        (tmp_path / "f").write_text("\ufeff" + ocsconfig.render(cfg, fmt), encoding="utf-8")
        assert ocsconfig.read(tmp_path / "f", fmt).planes.tolist() == [row.tolist()]


def test_per_switch_intent_against_per_switch_read_back(tmp_path, capsys):
    assert cli(capsys, "planes", "ldi", "-M", 9, "-S", 3, "-o", f"{tmp_path}/sw/", "--format", "sonic")[0] == 0
    assert cli(capsys, "convert", tmp_path / "sw" / "plane2.sh", "-o", tmp_path / "p2.json")[0] == 0
    code, out, _ = cli(capsys, "verify", "--config", tmp_path / "sw" / "plane2.sh", "--intended", tmp_path / "p2.json")
    assert code == 0 and out.strip() == "MATCH"
    code, _, err = cli(capsys, "verify", "--config", tmp_path / "sw" / "plane1.sh", "--intended", tmp_path / "p2.json")
    one_line_error(code, err, "is the switch of plane 1")


@pytest.mark.parametrize("fmt,ext", [("polatis", "scpi"), ("netconf", "xml"), ("sonic", "sh")])
def test_per_switch_files_merge_back_into_the_configuration(tmp_path, capsys, fmt, ext):
    args = ["planes", "ldi", "-M", 16, "-S", 4, "--switches", 2, "--slot-us", 50, "--device-ports", 40]
    assert cli(capsys, *args, "-o", tmp_path / "c.json")[0] == 0
    assert cli(capsys, *args, "-o", tmp_path / f"c.{ext}", "--format", fmt)[0] == 0
    parts = [tmp_path / f"c.plane{k}.{ext}" for k in (2, 0, 3, 1)]
    assert cli(capsys, "convert", *parts, "-o", tmp_path / "back.json")[0] == 0
    assert (tmp_path / "back.json").read_bytes() == (tmp_path / "c.json").read_bytes()
    code, _, err = cli(capsys, "convert", *parts[:3], "-o", tmp_path / "bad.json")
    one_line_error(code, err, "expected each of 0..3 once")


def test_stale_per_switch_files_of_a_larger_run_are_removed(tmp_path, capsys):
    assert cli(capsys, "planes", "ldi", "-M", 16, "-S", 4, "-o", tmp_path / "c.sh")[0] == 0
    (tmp_path / "c.plane9.sh").write_text("mine\n")          # not ours: kept
    assert cli(capsys, "planes", "ldi", "-M", 9, "-S", 2, "-o", tmp_path / "c.sh")[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.plane0.sh", "c.plane1.sh", "c.plane9.sh"]
