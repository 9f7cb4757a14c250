"""Read-back of a TDM crossbar (2 slots) through the bridge in the Amaranth
simulator: each slot's active configuration comes back from the datapath,
named by tags, and only after the slot has come round (captured bit)."""

import hil_helpers as H
from hil_helpers import run_stream
from permnet.hdl.hil.top import HilTop

XB = 0x1000


def selects(plane):
    """Per egress, the ingress driving it (0 tag = none), computed here."""
    sel = [-1] * len(plane)
    for i, e in enumerate(plane):
        if e >= 0:
            sel[e] = i
    return sel


def test_tdm_readback_per_slot():
    planes = [[2, 0, 3, 1], [1, -1, 0, 2]]
    dut = HilTop("crossbar", ports=4, width=4, slots=2, idle_timeout=64)
    entries = [(s | 1 << 31) if s >= 0 else 0 for p in planes for s in selects(p)]
    reqs = [H.framed_write(1, XB + 0x100, entries), H.framed_write(2, XB + 0x200, [3, 5]),
            H.framed_write(3, XB + 0x001, [1]), H.framed_read(4, XB + 0x001, 2)]
    for y in range(2):
        reqs += [H.framed_write(10 + y, XB + 0x003, [1 | y << 8]), H.framed_read(20 + y, XB + 0x003, 1),
                 H.framed_read(30 + y, XB + 0x400, 4)]
    got = [H.parse_response(g) for g in run_stream(dut, reqs)]
    assert all(status == 0 for status, _, _ in got)
    ctrl, accepted = got[3][2]
    assert ctrl >> 16 == 1 and accepted == 0            # one commit, shadow empty again
    for y in range(2):
        rb_ctrl = got[5 + 3 * y][2][0]
        assert rb_ctrl & 3 == 3 and rb_ctrl >> 8 & 0xFF == y
        tags = got[6 + 3 * y][2]
        assert tags == [s + 1 for s in selects(planes[y])], (y, tags)
