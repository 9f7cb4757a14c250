"""``permnet board``'s report (issue 41): the build script asks nextpnr for its JSON report, and
``--report-only`` reads one (a build run by hand from the script of ``--no-build``): the Fmax of
each clock against its constraint, ok or FAIL by comparison, the cells used of each type against
the device's; a report missing, unreadable or of another board is one line, no traceback. The
real builds (the figures against nextpnr's log) are tests/cli/test_rtl.py's board builds."""

import json

import pytest

from permnet.cli import main


def _report(fmax: dict, util: dict) -> dict:
    """A report in nextpnr's layout (``--report``): fmax clock -> achieved/constraint MHz,
    utilization cell type -> used/available."""
    return {"fmax": {k: {"achieved": a, "constraint": c} for k, (a, c) in fmax.items()},
            "utilization": {k: {"used": u, "available": n} for k, (u, n) in util.items()},
            "critical_paths": [], "detailed_net_timings": []}


def _board(args, capsys) -> tuple[int, list[str], str]:
    status = main(["board", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def test_the_build_script_asks_nextpnr_for_its_report(tmp_path, capsys):
    """A user who runs the script of --no-build gets the report --report-only reads."""
    assert _board(["ulx3s", "--no-build", "-o", tmp_path], capsys)[0] == 0
    script = (tmp_path / "build_permnet_demo.sh").read_text()
    nextpnr = next(line for line in script.splitlines() if line.startswith('"$NEXTPNR_ECP5"'))
    assert "--report permnet_demo.nextpnr.json" in nextpnr


@pytest.mark.parametrize("achieved,verdict", [(24.99, "FAIL"), (25.0, "ok"), (31.37, "ok")])
def test_report_only_compares_fmax_with_the_constraint(tmp_path, capsys, achieved, verdict):
    (tmp_path / "permnet_hil.nextpnr.json").write_text(json.dumps(_report(
        {"$glbnet$cd_sync.clk": (achieved, 25.0)},
        {"TRELLIS_COMB": (50646, 83640), "TRELLIS_FF": (11778, 83640), "DP16KD": (0, 208),
         "MULT18X18D": (32, 156)})))
    (tmp_path / "permnet_hil.bit").write_bytes(b"\0" * 10)
    status, lines, err = _board(["ulx3s", "--design", "hil", "--report-only", "-o", tmp_path], capsys)
    assert status == 0, err
    assert lines == [f"ulx3s hil in {tmp_path}: permnet_hil.bit",
                     f"Fmax $glbnet$cd_sync.clk: {achieved:.2f} MHz against 25.00 MHz: {verdict}",
                     "cells used (nextpnr, of the LFE5U-85F):",
                     "  TRELLIS_COMB  50,646 /  83,640   60.6 %",      # 50646 / 83640 = 0.6055
                     "  TRELLIS_FF    11,778 /  83,640   14.1 %",
                     "  MULT18X18D        32 /     156   20.5 %",
                     f"figures in {tmp_path}/report.json, from nextpnr's report {tmp_path}/permnet_hil.nextpnr.json"]
    written = json.loads((tmp_path / "report.json").read_text())
    assert written["fmax"] == {"$glbnet$cd_sync.clk": {"achieved_mhz": achieved, "constraint_mhz": 25.0,
                                                       "met": verdict == "ok"}}
    assert written["utilisation"]["DP16KD"] == {"used": 0, "available": 208, "percent": 0.0}
    assert written["utilisation"]["MULT18X18D"] == {"used": 32, "available": 156, "percent": 20.5}
    assert written["bitstream"] == "permnet_hil.bit" and written["device"] == "LFE5U-85F"


def test_a_clock_without_constraint_gets_no_verdict(tmp_path, capsys):
    (tmp_path / "permnet_demo.nextpnr.json").write_text(json.dumps(_report(
        {"clk": (80.0, 0)}, {"ICESTORM_LC": (100, 5280)})))
    status, lines, err = _board(["icebreaker", "--report-only", "-o", tmp_path], capsys)
    assert status == 0, err
    assert lines[:2] == [f"icebreaker demo in {tmp_path}: no bitstream", "Fmax clk: 80.00 MHz (no constraint)"]


@pytest.mark.parametrize("content,message", [
    (None, "permnet_demo.nextpnr.json: no nextpnr report (nextpnr writes it when the build runs"),
    ("{\"fmax\": ", "permnet_demo.nextpnr.json: not a readable nextpnr report ("),
    ("[1, 2]", "permnet_demo.nextpnr.json: not a nextpnr report (no 'utilization' and 'fmax' objects)"),
    (json.dumps(_report({"clk": (30.0, 25.0)}, {"ICESTORM_LC": (100, 5280)})),
     "permnet_demo.nextpnr.json: not a ulx3s report (no TRELLIS_COMB cells)"),
    (json.dumps({"fmax": {"clk": {"constraint": 25.0}}, "utilization": {"TRELLIS_COMB": {"used": 1, "available": 9}}}),
     "permnet_demo.nextpnr.json: not a nextpnr report (an entry without 'achieved')"),
])
def test_a_missing_or_unreadable_report_is_one_line(tmp_path, capsys, content, message):
    if content is not None:
        (tmp_path / "permnet_demo.nextpnr.json").write_text(content)
    status, lines, err = _board(["ulx3s", "--report-only", "-o", tmp_path], capsys)
    assert status == 2 and lines == []
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "report.json").exists()


def test_a_log_of_an_unfinished_nextpnr_is_refused(tmp_path, capsys):
    """Without the JSON report (a script of an older permnet) the log is read, but only once nextpnr
    has finished: before routing its last Fmax is the placer's estimate."""
    (tmp_path / "permnet_demo.tim").write_text(
        "Info: Device utilisation:\nInfo: \t        TRELLIS_COMB:     110/  83640     0%\n\n"
        "Info: Max frequency for clock '$glbnet$cd_sync.clk': 148.50 MHz (PASS at 25.00 MHz)\n")
    status, lines, err = _board(["ulx3s", "--report-only", "-o", tmp_path], capsys)
    assert status == 2 and lines == [] and len(err.strip().splitlines()) == 1
    assert "permnet_demo.tim: nextpnr has not finished (no 'Program finished normally.')" in err
    with open(tmp_path / "permnet_demo.tim", "a") as f:
        f.write("Info: Max frequency for clock '$glbnet$cd_sync.clk': 130.07 MHz (PASS at 25.00 MHz)\n\n"
                "Info: Program finished normally.\n")
    status, lines, err = _board(["ulx3s", "--report-only", "-o", tmp_path], capsys)
    assert status == 0, err
    assert lines[1:4] == ["Fmax $glbnet$cd_sync.clk: 130.07 MHz against 25.00 MHz: ok",
                          "cells used (nextpnr, of the LFE5U-85F):", "  TRELLIS_COMB     110 /  83,640    0.1 %"]


def test_report_only_and_no_build_are_one_or_the_other(tmp_path, capsys):
    status, _, err = _board(["ulx3s", "--no-build", "--report-only", "-o", tmp_path], capsys)
    assert status == 2 and "--no-build, --report-only: choose one" in err
    assert list(tmp_path.iterdir()) == []
