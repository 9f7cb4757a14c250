"""Device files and read-backs of OCS fabrics (permnet.fabric): every protocol's
file reads back to the cross-connects it was written from; switch replies
without a header; bad read-backs are refused with one line."""

import numpy as np
import pytest

from permnet.fabric import read_device, render_device, write_fabric, load_fabric
from permnet.gen.errors import PermnetError
from permnet.gen.fabric.compile import compile_fabric
from permnet.gen.fabric.inventory import Device


def _fabric(protocol, bidirectional=False, ports=12):
    rng = np.random.default_rng(4)
    if bidirectional:
        p = rng.permutation(5)
        planes = np.array([p, np.argsort(p)])
    else:
        planes = np.array([rng.permutation(5), rng.permutation(5)])
    return compile_fabric(planes, [Device("dev", ports, protocol=protocol, bidirectional=bidirectional,
                                          model="generic")])


@pytest.mark.parametrize("protocol", ["scpi", "sonic", "tl1", "netconf", "file"])
@pytest.mark.parametrize("bidi", [False, True])
def test_device_files_read_back_exactly(tmp_path, protocol, bidi):
    fab = _fabric(protocol, bidi)
    text = render_device(fab, 0)
    f = tmp_path / "dev.txt"
    f.write_text(text)
    got = read_device(f, fab.devices[0])
    assert np.array_equal(got[0], fab.xc[0])
    # shared device (two planes on 12 ports, 2 left over): scoped commands only
    assert "conn:only" not in text and 'operation="replace"' not in text and "DLT-PATCH" not in text


def test_a_whole_device_gets_a_whole_switch_replace(tmp_path):
    fab = compile_fabric(np.array([[1, 0, 3, 2]]), [Device("w", 4, protocol="scpi")])
    assert ":oxc:swit:conn:only" in render_device(fab, 0)


def test_a_headerless_switch_reply_is_read_with_the_devices_numbering(tmp_path):
    dev = Device("pol", 48, protocol="scpi", model="polatis-48")
    f = tmp_path / "pol.txt"
    f.write_text("(@1,2,3),(@50,49,96)\n")          # egress ports 49..96
    xc = read_device(f, dev)
    assert xc[0, :3].tolist() == [1, 0, 47] and np.all(xc[0, 3:] == -1)


def test_bad_readbacks(tmp_path):
    dev = Device("a", 8, protocol="tl1")
    f = tmp_path / "a.tl1"
    f.write_text("# permnet-ocs-fabric device=b\nENT-PATCH::1,9:C1;\n")
    with pytest.raises(PermnetError, match="from device b, not a"):
        read_device(f, dev)
    f.write_text("ENT-PATCH::1,99:C1;\n")
    with pytest.raises(PermnetError, match="outside the ports"):
        read_device(f, dev)
    f.write_text("# slot 0\nENT-PATCH::1,9:C1;\n# slot 1\nENT-PATCH::1,10:C1;\n")
    with pytest.raises(PermnetError, match="time slot"):
        read_device(f, dev)
    assert read_device(f, dev, slots=2)[:, 0].tolist() == [0, 1]
    # an ingress listed twice: both entries count as unconnected (reported broken, not refused)
    f.write_text("ENT-PATCH::1,9:C1;\nENT-PATCH::1,10:C2;\n")
    assert read_device(f, dev)[0, 0] == -1


def test_fabric_json_round_trip(tmp_path):
    rng = np.random.default_rng(2)
    planes = np.array([rng.permutation(30) for _ in range(2)])
    fab = compile_fabric(planes, [Device(f"s{i}", 8) for i in range(40)], {"family": "test"})
    write_fabric(fab, tmp_path / "fab")
    back = load_fabric(tmp_path / "fab" / "fabric.json")
    assert np.array_equal(back.planes, planes)
    assert all(np.array_equal(a, b) for a, b in zip(back.xc, fab.xc))
    assert np.array_equal(back.cables, fab.cables)
    doc = (tmp_path / "fab" / "fabric.json").read_text()
    (tmp_path / "fab" / "fabric.json").write_text(doc.replace('"family":"test"', '"family":"tost"'))
    with pytest.raises(PermnetError, match="checksum"):
        load_fabric(tmp_path / "fab" / "fabric.json")


def test_device_targets_for_an_applier(tmp_path):
    from permnet.fabric import device_targets

    planes = np.array([[1, 2, 0], [2, 0, 1]])
    fab = compile_fabric(planes, [Device("a", 8), Device("b", 8)])
    write_fabric(fab, tmp_path / "fab")
    (t,) = device_targets(tmp_path / "fab" / "fabric.json")
    assert t.device.name == "a" and t.owned.tolist() == [True] * 6 + [False] * 2
    assert np.array_equal(t.target, fab.xc[0])
