"""Read-backs in the vendor formats as a switch returns them (TL1 responses,
NETCONF replies, SCPI ranges), and absurd sizes refused early."""

import pytest

from permnet import formats, ocsconfig
from permnet.gen.errors import PermnetError


def test_tl1_rtrv_patch_response_and_ranges():
    text = ("RTRV-PATCH:::7;\n"
            "   OCS-1 24-05-01 10:00:00\n"
            "M  7 COMPLD\n"
            '   "1,194"\n'
            '   "2,193"\n'
            ";\n"
            "ENT-PATCH::3&&5,197&&199:8;\n"
            "ENT-PATCH::6&8,200&202:9;\n")
    d = formats.get("tl1").parse(text, device_ports=192)
    assert sorted(d.connections) == [(0, 0, 1), (0, 1, 0), (0, 2, 4), (0, 3, 5), (0, 4, 6), (0, 5, 7), (0, 7, 9)]
    with pytest.raises(PermnetError, match="ENT-PATCH"):
        formats.get("tl1").parse("DLT-EQPT::1:1;\n", device_ports=192)


def test_netconf_rpc_reply_read_back():
    text = ('<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="1"><data>'
            '<cross-connects xmlns="http://www.polatis.com/yang/optical-switch">'
            "<pair><ingress>1</ingress><egress>34</egress></pair>"
            "<pair><ingress>2</ingress><egress>33</egress></pair>"
            "</cross-connects></data></rpc-reply>")
    assert formats.detect(text).name == "netconf"
    d = formats.get("netconf").parse(text, device_ports=32)
    assert sorted(d.connections) == [(0, 0, 1), (0, 1, 0)]
    with pytest.raises(PermnetError, match="namespace"):
        formats.get("netconf").parse(text.replace("polatis.com", "example.com"), device_ports=32)
    with pytest.raises(PermnetError, match="entities"):
        formats.get("netconf").parse('<!DOCTYPE x [<!ENTITY a "b">]><x/>', device_ports=32)
    with pytest.raises(PermnetError, match="malformed XML"):
        formats.get("netconf").parse("<cross-connects><pair>", device_ports=32)


def test_scpi_ranges_and_add_lines():
    d = formats.get("polatis").parse(":oxc:swit:conn:only (@1:3),(@6:8)\n:oxc:swit:conn:add (@4),(@5)\n",
                                     device_ports=4)
    assert sorted(d.connections) == [(0, 0, 1), (0, 1, 2), (0, 2, 3), (0, 3, 0)]


@pytest.mark.parametrize("text,needle", [
    ("0,0,30000000\n", "30000001-port plane"),
    ("0,0,1\n999999999,0,1\n", "MiB"),
    ("# permnet-ocs-config v1 ports=99999999999 planes=1 index_base=0\n0,0,0\n", "out of range"),
])
def test_absurd_sizes_are_refused_naming_the_size(tmp_path, text, needle):
    (tmp_path / "x.csv").write_text(text)
    with pytest.raises(PermnetError, match=needle):
        ocsconfig.read(tmp_path / "x.csv")


def test_tl1_rtrv_crs_tuning_is_not_established():
    text = ('M  9 COMPLD\n   "1,5:STATUS=ESTABLISHED"\n   "2,7:STATUS=TUNING"\n;\n')
    d = formats.get("tl1").parse(text, device_ports=4)
    assert d.connections == [(0, 0, 0)] and d.not_established == [(0, 1, 2, "tuning")]
