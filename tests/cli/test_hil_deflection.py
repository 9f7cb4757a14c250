"""``--switching deflection`` of the HIL network design (issue 41): ``permnet board --design hil
--hil-design network`` generates it, ``hil regmap`` names it, ``--ejection-width``, ``--stages`` and
``--planes`` are taken, and the options that mean nothing for bufferless routers (or the
deflection options without them) are refused in one line."""

import re

import pytest

from permnet.cli import main


def test_board_generates_the_deflection_network_design(tmp_path, capsys):
    out = tmp_path / "b"
    assert main(["board", "ulx3s", "--design", "hil", "--hil-design", "network", "-M", "4", "-S", "2",
                 "--switching", "deflection", "--no-build", "-o", str(out)]) == 0
    il = (out / "permnet_hil.il").read_text()
    modules = set(re.findall(r"^module \\(\S+)", il, re.M))
    # four deflection routers under the generators' network, no VC network IP
    assert {m.rsplit(".", 1)[1] for m in modules if re.search(r"\.net\.net\.router\d+$", m)} == \
        {f"router{n}" for n in range(4)}
    assert not any(".net.ip." in m for m in modules)
    assert re.search(r'LOCATE COMP "uart_rx_0__io" SITE "L4"', (out / "permnet_hil.lpf").read_text())


def test_the_deflection_design_reports_itself_in_its_registers():
    """netgen_info: VCs 0 marks deflection, stages in [31:28]; info2: the ejection ports in [31:24]."""
    from permnet.hdl.hil.deflgen import DeflectionGen
    from permnet.hdl.hil.top import HilTop

    top = HilTop("network", M=8, S=2, width=8, switching="deflection")
    assert isinstance(top.net, DeflectionGen) and top.identifier().endswith("network LDI(8,2) deflection, 8-bit")
    assert (top.net.E, top.net.P) == (2, 1)
    top = HilTop("network", M=8, S=2, width=8, switching="deflection", ejection=1, stages=2, planes="benes")
    assert (top.net.E, top.net.P, top.net.plane_kind) == (1, 2, "benes")
    assert top.identifier().endswith("network LDI(8,2) benes planes deflection, 8-bit")


def test_regmap_takes_ejection_ports_stages_and_planes(capsys):
    """--ejection-width, --stages and --planes are accepted with --switching deflection; the map has the
    netplanes block of the VC design (the registers the host loads and swaps planes through)."""
    assert main(["hil", "regmap", "--design", "network", "-M", "8", "-S", "2", "--switching", "deflection",
                 "--ejection-width", "1", "--stages", "2", "--planes", "crossbar"]) == 0
    out = capsys.readouterr().out
    assert "`netplanes_rt_win`" in out and "`netgen_info2`" in out


@pytest.mark.parametrize("args,message", [
    (["hil", "regmap", "--design", "network", "-M", "8", "-S", "2", "--switching", "deflection", "--vcs", "3"],
     "--vcs mean(s) nothing with --switching deflection"),
    (["hil", "regmap", "--design", "network", "-M", "8", "-S", "2", "--stages", "2"],
     "--stages needs --switching deflection"),
    (["hil", "regmap", "--design", "network", "-M", "8", "-S", "2", "--ejection-width", "1", "--stages", "2"],
     "--ejection-width, --stages needs --switching deflection"),
    (["hil", "regmap", "--design", "network", "-M", "8", "-S", "2", "--switching", "deflection",
      "--ejection-width", "3"], "--ejection-width must be 1..S = 2, got 3"),
    (["hil", "regmap", "--design", "network", "-M", "8", "-S", "2", "--switching", "deflection", "--stages", "3"],
     "--stages must be 1 or 2, got 3"),
    (["hil", "regmap", "--design", "crossbar", "--stages", "2"], "--stages: not for the crossbar design"),
    (["hil", "regmap", "--design", "network", "-M", "8", "-S", "2", "--switching", "deflection", "--planes",
      "benes", "--network", "waksman"], "--network waksman: the deflection network's run-time Beneš planes"),
    (["hil", "regmap", "--design", "crossbar", "--switching", "deflection"], "--switching: not for the crossbar"),
    (["hil", "regmap", "--design", "network", "-M", "9", "-S", "3", "--switching", "deflection"],
     "needs S a power of two"),
    (["board", "ulx3s", "--design", "hil", "--hil-design", "network", "-M", "4", "-S", "2", "--switching",
      "deflection", "--vcs", "2", "--no-build", "-o", "b"], "--vcs mean(s) nothing"),
])
def test_deflection_refuses_what_means_nothing_in_one_line(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_failing_board_build_is_one_line(monkeypatch, capsys, tmp_path):
    """A tool that stops (nextpnr killed, out of memory) is reported in one line naming the logs."""
    import subprocess

    import permnet.hdl.boards as boards

    def stop(*args, **kwargs):
        raise subprocess.CalledProcessError(143, ["sh", "build_permnet_hil.sh"])

    monkeypatch.setattr(boards, "build_board", stop)
    assert main(["board", "ulx3s", "--design", "hil", "--hil-design", "network", "-M", "4", "-S", "2",
                 "--switching", "deflection", "-o", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "the ulx3s build stopped (exit status 143)" in err and "permnet_hil.tim (nextpnr)" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
