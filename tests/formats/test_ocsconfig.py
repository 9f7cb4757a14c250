"""Configuration files: every format reads back to the same planes."""

import json

import numpy as np
import pytest
from hypothesis import given, strategies as st

from permnet import ocsconfig
from permnet.gen.errors import PermnetError
from permnet.gen.planes.faults import reembed_planes
from permnet.gen.planes.decompose import ldi_planes

EXT = {"json": "json", "csv": "csv", "pairs": "txt", "polatis": "scpi", "sonic": "sh"}


def make_cfg(M, S, base=0, schedule=None, failed=()):
    planes = reembed_planes(M, S, list(failed)) if failed else ldi_planes(M, S).planes
    return ocsconfig.OcsConfig(planes, {"family": "ldi", "nodes": M, "degree": S}, base, schedule)


@given(st.integers(2, 8).flatmap(lambda S: st.tuples(st.integers(S + 1, 300), st.just(S))),
       st.sampled_from(list(EXT)), st.integers(0, 1), st.booleans())
def test_round_trip_every_format(tmp_path_factory, p, fmt, base, partial):
    M, S = p
    failed = [0, M - 1] if partial and M - 2 > S else []
    cfg = make_cfg(M, S, base, failed=failed)
    path = tmp_path_factory.mktemp("rt") / f"cfg.{EXT[fmt]}"
    ocsconfig.write(cfg, path, fmt)
    back = ocsconfig.read(path)
    assert np.array_equal(back.planes, cfg.planes)
    assert back.topology == cfg.topology and back.index_base == cfg.index_base


def test_polatis_line_is_what_a_switch_takes(tmp_path):
    cfg = make_cfg(9, 3)
    text = ocsconfig.render(cfg, "polatis")
    line = [ln for ln in text.splitlines() if ln.startswith(":oxc")][0]
    # plane 0 of LDI(9,3): 0->0, 1->3, ...; ingress 1-based, egress offset by N=9.
    assert line.startswith(":oxc:swit:conn:only (@1,2,3,4,5,6,7,8,9),(@10,13,16,12,15,18,11,14,17)")


def test_header_less_switch_dumps_parse(tmp_path):
    (tmp_path / "dump.scpi").write_text("(@1,2,3,4),(@6,5,8,7)\n")
    with pytest.raises(PermnetError, match="--device-ports"):      # no guessing the size from port 8
        ocsconfig.read_dump(tmp_path / "dump.scpi")
    d = ocsconfig.read_dump(tmp_path / "dump.scpi", ports=4)
    assert d.ports == 4 and sorted(d.connections) == [(0, 0, 1), (0, 1, 0), (0, 2, 3), (0, 3, 2)]
    (tmp_path / "dump.txt").write_text("1 2\n2 1\n")
    d = ocsconfig.read_dump(tmp_path / "dump.txt", index_base=1)
    assert sorted(d.connections) == [(0, 0, 1), (0, 1, 0)]


def test_schedule_round_trip_and_checksum(tmp_path):
    cfg = make_cfg(16, 4, schedule=ocsconfig.tdm_schedule(4, 2, 50.0))
    path = ocsconfig.write(cfg, tmp_path / "c.json")
    doc = json.loads(path.read_text())
    assert doc["schedule"] == [{"duration_us": 50.0, "planes": [0, 1]}, {"duration_us": 50.0, "planes": [2, 3]}]
    assert ocsconfig.read(path).schedule == doc["schedule"]
    doc["planes"][0][0], doc["planes"][0][1] = doc["planes"][0][1], doc["planes"][0][0]
    path.write_text(json.dumps(doc))
    with pytest.raises(PermnetError, match="checksum"):
        ocsconfig.read(path)


def test_output_is_byte_identical(tmp_path):
    for fmt, ext in EXT.items():
        a = ocsconfig.write(make_cfg(50, 3), tmp_path / f"a.{ext}", fmt).read_bytes()
        b = ocsconfig.write(make_cfg(50, 3), tmp_path / f"b.{ext}", fmt).read_bytes()
        assert a == b


def test_truncated_and_malformed_files(tmp_path):
    good = ocsconfig.render(make_cfg(20, 3), "json")
    (tmp_path / "t.json").write_text(good[: len(good) // 2])
    with pytest.raises(PermnetError, match="truncated"):
        ocsconfig.read(tmp_path / "t.json")
    for fmt in ("csv", "pairs", "sonic"):
        lines = ocsconfig.render(make_cfg(20, 3), fmt).splitlines()
        (tmp_path / f"t.{EXT[fmt]}").write_text("\n".join(lines[:-3]) + "\n")
        with pytest.raises(PermnetError, match="checksum"):
            ocsconfig.read(tmp_path / f"t.{EXT[fmt]}")
    (tmp_path / "bad.csv").write_text("plane,ingress,egress\n0,1\n")
    with pytest.raises(PermnetError, match="expected"):
        ocsconfig.read(tmp_path / "bad.csv")
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(PermnetError, match="no cross-connects"):
        ocsconfig.read(tmp_path / "empty.txt")


def test_plane_that_is_not_a_permutation(tmp_path):
    cfg = make_cfg(9, 3).document()
    cfg["planes"][1][0] = cfg["planes"][1][1]
    cfg["checksum"] = ocsconfig.checksum(cfg)
    (tmp_path / "p.json").write_text(json.dumps(cfg))
    with pytest.raises(PermnetError, match="not a permutation"):
        ocsconfig.read(tmp_path / "p.json")
    (tmp_path / "p.txt").write_text("0 1\n1 1\n")
    with pytest.raises(PermnetError, match="not a permutation"):
        ocsconfig.read(tmp_path / "p.txt")


@pytest.mark.parametrize("fmt", ["json", "csv", "pairs", "polatis", "sonic"])
def test_structured_metadata_round_trips(tmp_path, fmt):
    # chordal rings carry chord lists, IP graphs strings with ':' and flags
    meta = {"family": "chordal", "chords": [[50], [11], [89]], "nucleus": "hypercube:2", "symmetric": True,
            "note": "two words", "word": "true", "ratio": 0.5, "nodes": 6}
    cfg = ocsconfig.OcsConfig(np.array([[1, 0, 3, 2, 5, 4]]), meta)
    path = ocsconfig.write(cfg, tmp_path / f"c.{fmt}", fmt)
    back = ocsconfig.read(path, fmt)
    assert back.topology == meta and np.array_equal(back.planes, cfg.planes)
