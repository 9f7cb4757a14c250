"""``permnet hil regmap --format rdl|ipxact|cheader``: the SystemRDL, compiled
by ``systemrdl-compiler``, the IP-XACT read back by PeakRDL's importer and
the C header compiled by the C compiler each give every register of the
RTL's own map (``HilTop(...).registers()``, what the gateware decodes and
``csr.csv`` is written from) at its address, with its field and access, and
nothing else."""

import shutil
import subprocess

import pytest

from cli_runner import run

systemrdl = pytest.importorskip("systemrdl")

from permnet.hdl.hil.top import HilTop  # noqa: E402

DESIGNS = {   # the unit designs in one top level, and the network with its loadable planes
    "all": ["--design", "all", "--ports", "8", "--size", "8"],
    "network": ["--design", "network", "-M", "8", "-S", "2", "--planes", "crossbar"],
}
PARAMS = {"all": dict(ports=8, size=8), "network": dict(M=8, S=2, planes="crossbar")}
SW = {"RO": "r", "RW": "rw", "W": "w"}


def expected(design):
    """(block, name) -> (byte address, elements, access) from the RTL's map."""
    out = {}
    for r in HilTop(design, **PARAMS[design]).registers():
        n = r.count if (r.array or r.window) else 1
        out[(r.block, r.name)] = (4 * r.address, n, SW[r.access])
    return out


def walk(top):
    """The same from an elaborated SystemRDL tree, fields checked on the way."""
    from systemrdl.node import RegNode

    out = {}
    for node in top.descendants():
        if not isinstance(node, RegNode):
            continue
        fields = [(f.inst_name, f.lsb, f.msb) for f in node.fields()]
        assert fields == [("value", 0, 31)], node.get_path()
        sw = node.fields()[0].get_property("sw").name
        n = node.array_dimensions[0] if node.is_array else 1
        if node.is_array:
            assert node.array_stride == 4 and len(node.array_dimensions) == 1
        assert node.size == 4
        out[(node.parent.inst_name, node.inst_name)] = (node.raw_absolute_address, n, sw)
    return out


@pytest.mark.parametrize("design", DESIGNS)
def test_rdl_and_ipxact_hold_the_rtl_map(design, tmp_path):
    from systemrdl import RDLCompiler

    want = expected(design)
    run("hil", "regmap", *DESIGNS[design], "-o", tmp_path / "map.rdl")
    rdlc = RDLCompiler()
    rdlc.compile_file(str(tmp_path / "map.rdl"))
    top = rdlc.elaborate().top
    assert top.inst_name == f"permnet_hil_{design}"
    assert walk(top) == want

    peakrdl_ipxact = pytest.importorskip("peakrdl_ipxact")
    run("hil", "regmap", *DESIGNS[design], "-o", tmp_path / "map.xml")
    rdlc = RDLCompiler()
    peakrdl_ipxact.IPXACTImporter(rdlc).import_file(str(tmp_path / "map.xml"))
    assert walk(rdlc.elaborate().top) == want


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
@pytest.mark.parametrize("design", DESIGNS)
def test_c_header_offsets_are_the_rtl_addresses(design, tmp_path):
    pytest.importorskip("peakrdl_cheader")
    want = expected(design)
    run("hil", "regmap", *DESIGNS[design], "-o", tmp_path / "map.h")
    top_t = f"permnet_hil_{design}_t"
    # the last element of every array, so a wrong stride or length shows too
    lines = [f'    printf("%s %s %zu\\n", "{b}", "{n}", offsetof({top_t}, {b}.{n}{f"[{k - 1}]" if k > 1 else ""}));'
             for (b, n), (_, k, _) in want.items()]
    (tmp_path / "t.c").write_text('#include <stdio.h>\n#include <stddef.h>\n#include "map.h"\nint main(void) {\n'
                                  + "\n".join(lines) + "\n    return 0;\n}\n")
    subprocess.run(["cc", "-std=gnu11", "-Wall", "-Werror", "-o", "t", "t.c"], cwd=tmp_path, check=True)
    got = {}
    for line in subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, check=True).stdout.splitlines():
        b, n, off = line.split()
        got[(b, n)] = int(off)
    assert got == {key: addr + 4 * (k - 1) for key, (addr, k, _) in want.items()}


def test_formats_follow_the_suffix_and_refuse_the_unknown(tmp_path):
    run("hil", "regmap", "--design", "nexthop", "-o", tmp_path / "m.rdl")
    assert "addrmap permnet_hil_nexthop {" in (tmp_path / "m.rdl").read_text()
    p = run("hil", "regmap", "--design", "nexthop", "--format", "pdf", check=False)
    assert p.returncode == 2 and "pdf" in p.stderr
