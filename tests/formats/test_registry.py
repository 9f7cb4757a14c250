"""The format registry: every format round-trips random partial permutations
(device larger than the plane, TDM schedule, metadata), numbers ports the way
its device does (checked on the text with the test's own regular
expressions), and is picked by detection and by extension."""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from formats_helpers import labels, partial_permutation
from permnet import formats, ocsconfig
from permnet.formats.model import tdm_schedule
from permnet.gen.errors import PermnetError

ALL = formats.names()
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_registry_lists_every_format_once_with_its_numbering():
    assert ALL == ["json", "csv", "pairs", "polatis", "tl1", "netconf", "sonic"]
    assert ocsconfig.FORMATS == tuple(ALL)
    exts = [e for f in formats.REGISTRY.values() for e in f.extensions]
    assert len(exts) == len(set(exts))
    assert {f.name for f in formats.REGISTRY.values() if f.per_device} == {"polatis", "tl1", "netconf", "sonic"}
    assert formats.get("sonic").numbering.base == 1 and not formats.get("sonic").numbering.egress_after_ingress
    with pytest.raises(PermnetError, match="unknown format"):
        formats.get("cisco")


def _config(seed, n, nplanes, device, base, with_schedule):
    rng = np.random.default_rng(seed)
    planes = np.stack([partial_permutation(rng, n, int(rng.integers(0, n))) for _ in range(nplanes)])
    sched = tdm_schedule(nplanes, max(1, nplanes // 2), 12.5) if with_schedule else None
    meta = {"family": "random", "nodes": n, "chords": [[1, 2]], "note": "two words"}
    return ocsconfig.OcsConfig(planes, meta, base, sched, device)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), nplanes=st.integers(1, 4),
       extra=st.integers(0, 200), base=st.integers(0, 1), with_schedule=st.booleans(),
       fmt=st.sampled_from(ALL))
def test_round_trip_every_format(seed, n, nplanes, extra, base, with_schedule, fmt):
    cfg = _config(seed, n, nplanes, n + extra, base, with_schedule)
    f = formats.get(fmt)
    if fmt == "netconf":
        cfg = cfg.plane_config(nplanes - 1)     # one document per switch
    text = f.render(cfg)
    assert formats.detect(text).name == fmt
    if fmt != "json":
        d = cfg.device
        want = [(i, int(e)) for row in cfg.planes for i, e in enumerate(row) if e >= 0]
        b = 1 if f.numbering.base == 1 else cfg.index_base
        off = d if f.numbering.egress_after_ingress else 0
        assert labels(fmt, text) == [(i + b, e + b + off) for i, e in want]
        assert all(b <= i < b + d and b + off <= e < b + off + d for i, e in labels(fmt, text))
    dump = f.parse(text, name="t")
    back = ocsconfig.config_from_dump(dump, "t") if fmt != "json" else \
        formats.jsonfmt.config_from_document(__import__("json").loads(text))
    assert np.array_equal(back.planes, cfg.planes)
    assert back.schedule == cfg.schedule and back.device_ports == cfg.device_ports
    assert back.topology == cfg.topology and back.index_base == cfg.index_base
    assert back.document()["checksum"] == cfg.document()["checksum"]


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), nplanes=st.integers(2, 4), extra=st.integers(1, 100),
       fmt=st.sampled_from(["polatis", "tl1", "netconf", "sonic"]))
def test_per_switch_files_read_back_to_their_plane(tmp_path_factory, seed, n, nplanes, extra, fmt):
    cfg = _config(seed, n, nplanes, n + extra, 0, True)
    out = tmp_path_factory.mktemp("split")
    paths = ocsconfig.write_files(cfg, out / f"cfg.{formats.get(fmt).extensions[0]}", fmt)
    assert [p.name for p in paths] == [f"cfg.plane{k}.{formats.get(fmt).extensions[0]}" for k in range(nplanes)]
    for k, p in enumerate(paths):
        text = p.read_text()
        assert f"plane={k}" in text and f"of_planes={nplanes}" in text and f"plane {k} of {nplanes}" in text
        back = ocsconfig.read(p)
        assert np.array_equal(back.planes[0], cfg.planes[k]) and back.topology["plane"] == k
        slots = [s for s in back.schedule if s["planes"]]
        assert [s["duration_us"] for s in slots] == [s["duration_us"] for s in cfg.schedule if k in s["planes"]]


def test_extensions_pick_formats():
    for f in formats.REGISTRY.values():
        for e in f.extensions:
            assert formats.for_path(f"x/y.{e.upper()}").name == f.name
    assert formats.for_path("noext").name == "json"


def test_single_file_netconf_of_many_planes_is_refused(tmp_path):
    cfg = _config(1, 8, 3, None, 0, False)
    with pytest.raises(PermnetError, match="one document per switch"):
        ocsconfig.write_files(cfg, tmp_path / "c.xml", single_file=True)
    assert list(tmp_path.iterdir()) == []


def test_a_vendor_format_is_one_class():
    from permnet.formats import LineFormat, PortNumbering, register

    class Toy(LineFormat):
        name = "toy"
        extensions = ("toy",)
        numbering = PortNumbering(1, egress_after_ingress=True)
        per_device = True

        def plane_lines(self, y, pairs):
            return [f"CONNECT {i} TO {e}\n" for i, e in pairs]

        def line(self, s, where, state, dump):
            _, i, _, e = s.split()
            return [(state["plane"], int(i), int(e))]

        def detect(self, text):
            return 0.9 if "CONNECT" in text else 0.0

    try:
        register(Toy)
        assert "toy" in formats.names() and formats.for_path("a.toy").name == "toy"
        cfg = _config(5, 12, 1, 20, 0, True)
        text = formats.get("toy").render(cfg)
        assert all(e > 20 for e in map(int, re.findall(r"TO (\d+)", text))) and formats.detect(text).name == "toy"
        back = ocsconfig.config_from_dump(formats.get("toy").parse(text))
        assert np.array_equal(back.planes, cfg.planes) and back.schedule == cfg.schedule
    finally:
        formats.REGISTRY.pop("toy", None)
