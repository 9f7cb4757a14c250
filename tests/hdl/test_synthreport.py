"""Where the LUTs go and what the critical path runs through (permnet.hdl.synthreport): a
netlist written by hand, whose shares are counted by hand below, and one real yosys + nextpnr
run of a design whose two registers' logic has known sizes."""

import re

import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

import permnet.hdl.synth as synth
from permnet.hdl.synthreport import critical_path, group_name, lut_breakdown


def _cell(kind, **con):
    return {"type": kind, "connections": {p: list(b) for p, b in con.items()}}


def test_a_lut_is_charged_to_the_registers_it_reaches_split_evenly():
    """Nets are numbers. Inputs 2..5 come from the input chain (``sin``).
    x (LUT4) -> y (LUT4) -> own[0] and, through the PFUMX m, -> own[1] and cr: y reaches two
    groups (own#, cr#), x through y the same two; z (LUT4) reaches only the output chain
    (``sout``), the carry c only own#; the RAM d is 6 sites of its own and r (LUT4), its write
    address, is charged to it. own#: 1/2 + 1/2 + 2 = 3; cr#: 1/2 + 1/2 = 1; (outputs): 1 - 1
    chain LUT = 0 (left out); ram: 6 + 1 = 7."""
    cells = {
        "sin_TRELLIS_FF_Q": _cell("TRELLIS_FF", DI=[1], Q=[2]),
        "dut.x": _cell("LUT4", A=[2], B=[3], C=[4], D=[5], Z=[10]),
        "dut.y": _cell("LUT4", A=[10], B=[3], C=[4], D=[5], Z=[11]),
        "dut.m": _cell("PFUMX", ALUT=[11], BLUT=[2], C0=[3], Z=[12]),
        "dut.own0_0_TRELLIS_FF_Q": _cell("TRELLIS_FF", DI=[11], Q=[20]),
        "dut.own1_0_TRELLIS_FF_Q": _cell("TRELLIS_FF", DI=[12], Q=[21]),
        "dut.cr1_1_TRELLIS_FF_Q_3": _cell("TRELLIS_FF", DI=[2], CE=[12], Q=[22]),
        "dut.c": _cell("CCU2C", A0=[20], B0=[21], S0=[13], S1=[14], COUT=[15]),
        "dut.own2_0_TRELLIS_FF_Q": _cell("TRELLIS_FF", DI=[13], Q=[23]),
        "dut.z": _cell("LUT4", A=[20], B=[21], C=[22], D=[23], Z=[16]),
        "sout_TRELLIS_FF_Q": _cell("TRELLIS_FF", DI=[16], Q=[30]),
        "dut.r": _cell("LUT4", A=[20], B=[21], C=[2], D=[3], Z=[17]),
        "dut.ram0.0.0": _cell("TRELLIS_DPR16X4", DI=[2, 3, 4, 5], WAD=[17, 2, 3, 4], WRE=[5], RAD=[2, 3, 4, 5],
                              DO=[40, 41, 42, 43]),
    }
    for name in ("dut.own0_0_TRELLIS_FF_Q", "dut.own1_0_TRELLIS_FF_Q", "dut.own2_0_TRELLIS_FF_Q"):
        cells[name]["attributes"] = {"src": "/repo/hdl/router.py:485|/share/lattice/cells_map_trellis.v:68.1-68.2"}
    cells["dut.cr1_1_TRELLIS_FF_Q_3"]["attributes"] = {"src": "/venv/lib/site-packages/amaranth/lib/fifo.py:9"}
    parts = lut_breakdown({"modules": {"top": {"cells": cells}}}, out_bits=1, root="/repo")
    # the RAM keeps no line of Python: it goes to the file of most flip-flops of its module
    assert parts["by_register"] == {"ram# (hdl/router.py)": 7.0, "own# (hdl/router.py:485)": 3.0,
                                    "cr# (amaranth/lib/fifo.py:9)": 1.0}
    assert parts["by_source"] == {"hdl/router.py": 10.0, "amaranth/lib/fifo.py": 1.0}


def test_group_names_keep_the_hierarchy_and_number_the_instances():
    assert group_name("dut.ip.router2.own0_1_0_TRELLIS_FF_Q") == "ip.router#.own#"
    assert group_name("dut.ip.router12.cr0_1_1_TRELLIS_FF_Q_3") == "ip.router#.cr#"
    assert group_name("dut.inject3.flits.storage.0.1") == "inject#.flits"
    assert group_name("dut.count_SB_DFFER_Q_2") == "count"


class TwoRegisters(wiring.Component):
    """``parity`` is the XOR of 16 input bits (at least 5 LUT4: a LUT4 takes 4 inputs, so each
    LUT past the first adds at most 3 of the 16), ``both`` the AND of two (one LUT4 at most)."""
    a: In(16)
    b: In(2)
    parity_out: Out(1)
    both_out: Out(1)

    def elaborate(self, platform):
        m = Module()
        parity, both = Signal(name="parity"), Signal(name="both")
        m.d.sync += [parity.eq(self.a.xor()), both.eq(self.b.all())]
        m.d.comb += [self.parity_out.eq(parity), self.both_out.eq(both)]
        return m


@pytest.mark.parametrize("target", ["ecp5", pytest.param("ice40", marks=pytest.mark.slow)])
def test_a_real_run_charges_each_registers_logic_and_names_the_slow_path(target):
    r = synth.synthesize(TwoRegisters(), target)
    regs = r["breakdown"]["by_register"]
    here = "tests/hdl/test_synthreport.py"
    parity = next(v for k, v in regs.items() if re.fullmatch(rf"parity \({here}:\d+\)", k))
    assert parity >= 5 and sum(v for k, v in regs.items() if k.startswith("both ")) <= 1
    assert r["breakdown"]["by_source"][here] >= 5
    # the shares add up to yosys's LUT4 sites less the output chain's one per output bit
    assert abs(sum(regs.values()) - (r["lut4"] + 2 * r["carry"] + 6 * r["lutram"] - 2)) < 0.5
    path = r["critical_path"]
    # the deepest logic is the XOR tree, from the input chain into parity
    assert path["to"] == "parity" and path["logic_cells"] >= 1
    assert abs(path["logic_ns"] + path["routing_ns"] - path["ns"]) <= 0.02
    assert abs(1000 / path["ns"] - r["fmax_mhz"]) / r["fmax_mhz"] < 0.01
    for src in path["sources"]:
        file, line = re.fullmatch(r"(.+\.py):(\d+)", src).groups()
        assert (synth.SOURCE_ROOT / file).is_file() and int(line) > 0


LOG = """\
Info: Critical path report for clock 'clk' (posedge -> posedge):
Info:       type curr  total name
Info:   clk-to-q  0.52  0.52 Source dut.early_TRELLIS_FF_Q.Q
Info:    routing  9.00  9.52 Net dut.early (1,1) -> (2,2)
Info:                          Sink dut.x_LUT4_Z.A
Info: 0.52 ns logic, 9.00 ns routing

Info: Max frequency for clock 'clk': 105.04 MHz (PASS at 100.00 MHz)
Info: Critical path report for clock 'clk' (posedge -> posedge):
Info:       type curr  total name
Info:   clk-to-q  0.52  0.52 Source dut.fv0_2_0_TRELLIS_FF_Q.Q
Info:    routing  1.14  1.67 Net dut.fv0_2_0 (99,7) -> (98,9)
Info:                          Sink dut.g_LUT4_Z.A
Info:                          Defined in:
Info:                               {root}/hdl/router.py:523
Info:      logic  0.24  1.90 Source dut.g_LUT4_Z.F
Info:    routing  1.01  2.91 Net dut.g (98,9) -> (96,11)
Info:                          Sink dut.h_PFUMX.BLUT
Info:                          Defined in:
Info:                               /share/lattice/cells_map_trellis.v:108.23-108.24
Info:                               /elsewhere/lib.py:7
Info:      logic  0.17  3.08 Source dut.h_PFUMX.OFX
Info:    routing  6.44  9.52 Net dut.h (96,11) -> (105,6)
Info:                          Sink dut.ao0_0_1_TRELLIS_FF_Q_1.CE
Info:                          Defined in:
Info:                               {root}/hdl/router.py:523
Info:      setup  0.00  9.52 Source dut.ao0_0_1_TRELLIS_FF_Q_1.CE
Info: 0.93 ns logic, 8.59 ns routing

Info: Critical path report for cross-domain path '<async>' -> 'posedge clk':
Info:   clk-to-q  0.52  0.52 Source sin_TRELLIS_FF_Q.Q
"""


def test_the_critical_path_is_the_last_report_with_its_ends_and_python_lines(tmp_path):
    path = critical_path(LOG.format(root=tmp_path), tmp_path)
    assert path == {"ns": 9.52, "logic_ns": 0.93, "routing_ns": 8.59, "logic_cells": 2,
                    "from": "fv0_2_0", "to": "ao0_0_1", "sources": ["hdl/router.py:523"]}
    assert critical_path("Info: Max frequency for clock 'clk': 105.04 MHz") is None


def test_ice40_registers_are_named_without_the_logic_cell_they_are_packed_in():
    """nextpnr-ice40 packs a flip-flop with the LUT before it (``..._SB_LUT4_O_LC``) or alone
    (``..._DFFLC``); the path's ends are the registers' names all the same."""
    log = """Info: Critical path report for clock 'clk' (posedge -> posedge):
Info:   clk-to-q  0.54  0.54 Source cfg__valid_SB_DFFSR_Q_DFFLC.O
Info:    routing  1.00  1.54 Net cfg__valid (1,1) -> (2,2)
Info:                          Sink parity_SB_DFFSR_Q_D_SB_LUT4_O_LC.I0
Info:      setup  0.50  2.04 Source parity_SB_DFFSR_Q_D_SB_LUT4_O_LC.I0
Info: 1.04 ns logic, 1.00 ns routing
"""
    path = critical_path(log)
    assert (path["from"], path["to"], path["ns"], path["logic_cells"]) == ("cfg__valid", "parity", 2.04, 0)
