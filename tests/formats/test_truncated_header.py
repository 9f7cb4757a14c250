"""A read-back cut inside its header line is a truncated file (exit 2), not
an empty device (issue 29: exit 1 with every port reported unconnected)."""

import numpy as np
import pytest
from cli_runner import run

from permnet import formats, ocsconfig
from permnet.formats import OcsConfig
from permnet.gen.errors import PermnetError

LINE_FORMATS = [name for name, f in formats.REGISTRY.items() if isinstance(f, formats.LineFormat)]


def one_plane(n=12):
    row = np.roll(np.arange(n, dtype=np.int64), 3)
    return OcsConfig(row[None, :], {"device": "sw0"})


@pytest.mark.parametrize("fmt", LINE_FORMATS)
def test_every_cut_inside_the_header_is_refused(fmt):
    text = ocsconfig.render(one_plane(), fmt)
    header_end = text.index("\n")
    assert "permnet-ocs-config" in text[:header_end]
    for k in range(1, header_end + 1):
        with pytest.raises(PermnetError, match="truncated"):
            formats.get(fmt).parse(text[:k], device_ports=12)
    # the whole file still parses, and so does the header alone with its newline
    assert formats.get(fmt).parse(text, device_ports=12) is not None


def test_verify_of_a_cut_read_back_exits_2(tmp_path):
    cfg = one_plane()
    ocsconfig.write(cfg, tmp_path / "want.json")
    text = ocsconfig.render(cfg, "csv")
    (tmp_path / "cut.csv").write_text(text[:60])
    p = run("verify", "--config", tmp_path / "cut.csv", "--intended", tmp_path / "want.json", check=False)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "truncated" in p.stderr and p.stderr.count("\n") == 1 and "unconnected" not in p.stdout
