"""``permnet rtl network --planes crossbar|benes`` (issue 24): the plane set's ``cfg`` port on
the top, and with streams the swap controller's ports; ``permnet.rtlnet.swap_words`` refuses
the swaps its router cannot route, with one clear error each."""

import re

import numpy as np
import pytest

from cli_runner import run
from permnet.gen.errors import PermnetError
from permnet.rtlnet import swap_words


def top_ports(path):
    text = path.read_text()
    header = re.search(r"^module \w+\((.*?)\);", text, re.S | re.M).group(1)
    return text, {q.strip() for q in header.split(",")}


@pytest.mark.slow      # make test checks these ports on tests/cli/test_rtl_stream.py's build of this network
def test_stream_top_has_the_plane_route_and_swap_ports(tmp_path):
    p = run("rtl", "network", "-M", 4, "-S", 2, "--endpoints", "stream", "--planes", "crossbar", "-o", "out/x.v",
            cwd=tmp_path)
    assert p.stderr.strip() == "wrote out/x.v"
    text, ports = top_ports(tmp_path / "out" / "x.v")
    control = {"cfg__plane", "cfg__addr", "cfg__data", "cfg__we", "cfg__commit", "cfg__rdata",
               "rt__node", "rt__addr", "rt__data", "rt__we", "rt__rdata",
               "swap_req", "swap_draining", "swap_done", "swap_cycles", "idle"}
    assert control <= ports and not {q for q in ports if q.startswith("rt__")} - control
    assert "//   planes = crossbar" in text and re.search(r"output \[15:0\] swap_cycles;", text)


@pytest.mark.parametrize("source,kw,needle", [
    ("faults", {"planes": "crossbar"}, "the next-hop router needs every port connected"),
    ("ring", {"planes": "benes"}, "routes LDI(9,3) links only"),
    ("ring", {"planes": "benes", "router": "table"}, "the new routes take up to 3 hops; the network was built for 2"),
    ("ldi", {"planes": "wires"}, "cannot be swapped at run time"),
])
def test_swap_words_refuse_what_the_router_cannot_route(source, kw, needle):
    from permnet.gen.planes.faults import fault_report
    from permnet.gen.routing import tables

    planes = {"faults": fault_report(9, 3, [4]).reembedded.planes,
              "ring": np.array([[(n + 1) % 9 for n in range(9)], [(n + 2) % 9 for n in range(9)],
                                [(n + 3) % 9 for n in range(9)]]),
              "ldi": tables.network("ldi", 9, 3).planes}[source]
    with pytest.raises(PermnetError, match=re.escape(needle)):
        swap_words(9, 3, planes, **kw)


def test_swap_words_from_files(tmp_path):
    """A ``permnet planes`` file (another decomposition) and a ``permnet faults`` file load."""
    run("planes", "ldi", "-M", 9, "-S", 3, "--method", "colouring", "-o", "c.json", cwd=tmp_path)
    run("faults", "ldi", "-M", 9, "-S", 3, "--failed", 4, "-o", "f.json", cwd=tmp_path)
    a = swap_words(9, 3, tmp_path / "c.json", "crossbar")
    assert a.table.method == "ldi-melhem" and len(a.planes) == 27 and len(a.routes) == 27
    b = swap_words(9, 3, tmp_path / "f.json", "benes", router="table", only_changes=True)
    assert b.table.method == "ldi-shortest" and int(b.table.length[4].max()) == 0 and 0 < len(b.routes) < 9 * 4 * 9
