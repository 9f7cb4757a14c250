"""Issue 43: a ``hil run`` verdict says what was checked.  A unit configuration on a network
design (nothing to check it on) is refused, not a PASS; ``verified`` is true only when at least
one check ran and all held; the options of one kind of run are refused on the other, and a
network run's traffic options are checked before the link is opened."""

import json

import pytest

from permnet.gen.hil import regmap as R
from permnet.hil.link import HilInfo
from permnet.hil.run import HilRunReport


class _NetworkOnlyLink:
    """What ``Link`` reads from a network design: no crossbar, no Beneš, no next-hop unit."""

    def __init__(self, url, **kwargs):
        self.url = url

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def info(self):
        return HilInfo(1 << R.DESIGN_BITS["network"] | 1 << R.DESIGN_BITS["framed"], R.VERSION, True)

    def __getattr__(self, name):          # nothing else may be asked of it: no check can run
        raise AssertionError(f"the run used the link ({name}) on a design it cannot check")


@pytest.fixture
def ldi8(tmp_path):
    from permnet.cli import main

    path = tmp_path / "ldi8_2.json"
    assert main(["planes", "ldi", "--nodes", "8", "--degree", "2", "-o", str(path)]) == 0
    return path


def test_unit_configuration_on_a_network_design_is_refused(ldi8, monkeypatch, capsys):
    """The audit's run: ``--config ldi8_2.json`` against ``hil sim --design network`` printed
    PASS with every check null; now exit 2, one line, nothing loaded."""
    import permnet.hil.run as hilrun
    from permnet.cli import main

    monkeypatch.setattr(hilrun, "Link", _NetworkOnlyLink)
    for extra in ([], ["--prbs", "100"], ["--json"]):
        capsys.readouterr()
        assert main(["hil", "run", "--url", "socket://127.0.0.1:4399", "--config", str(ldi8), *extra]) == 2
        out, err = capsys.readouterr()
        assert "PASS" not in out and "verified" not in out
        assert err.count("\n") == 1 and "network design" in err and "--design network" in err, err


def test_a_report_without_checks_is_not_verified():
    rep = HilRunReport("loop://")
    assert not rep.checked and not rep.ok
    assert rep.as_dict()["verified"] is False
    assert rep.lines()[-1] == "FAIL" and "nothing was checked" in rep.lines()[0]
    from permnet.hil.run import NexthopCheck

    rep.nexthop = NexthopCheck(4, 4, "all", [])
    assert rep.ok and rep.as_dict()["verified"] is True and rep.lines()[-1] == "PASS"
    rep.nexthop = NexthopCheck(4, 4, "all", [[0, 1, 0, 0, 1, 1, 2]])
    assert not rep.ok


NET = ["hil", "run", "--design", "network", "--url", "socket://127.0.0.1:1", "--timeout", "0.2"]


@pytest.mark.parametrize("args,needle", [
    (["--pattern", "permutation", "--perm", "0,0,2,3,4,5,6,7"], "--perm must be a permutation"),
    (["--pattern", "hotspot", "--hot-frac", "5"], "--hot-frac must be a share in (0, 1]"),
    (["--perm", "3,0,7,2,6,1,4,5"], "--perm is an option of --pattern permutation"),
    (["--hot", "3"], "--hot is an option of --pattern hotspot"),
    (["--pattern", "bitcomp", "--hot-frac", "0.5"], "--hot-frac is an option of --pattern hotspot"),
    (["--prbs", "100"], "--prbs is an option of a unit run"),
    (["--plane", "1", "--samples", "5", "--exhaustive", "9", "--polynomial", "31"],
     "--exhaustive, --plane, --polynomial, --samples are options of a unit run"),
    (["--swap-to", "x.json", "--swap-at", "1000000"], "--swap-at must be a cycle of the run, 0..1015"),
])
def test_network_run_options_are_checked_before_the_link(args, needle, capsys):
    """Each was accepted (and ignored or clamped); each is now one line and exit 2, before the
    link is opened (the URL answers nothing)."""
    from permnet.cli import main

    assert main([*NET, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("permnet: error:") and needle in err and err.count("\n") == 1, err


@pytest.mark.parametrize("args", [["--cycles", "10"], ["--pattern", "bitcomp"], ["--planes", "p.json"],
                                  ["--swap-at", "5"]])
def test_network_options_on_a_unit_run_are_refused(args, ldi8, capsys):
    from permnet.cli import main

    assert main(["hil", "run", "--url", "socket://127.0.0.1:1", "--config", str(ldi8), *args]) == 2
    err = capsys.readouterr().err
    assert f"{args[0]} is an option of --design network" in err, err


def test_default_network_options_still_reach_the_link(capsys):
    """Options left at their defaults are not 'given': the run goes on to the (absent) link."""
    from permnet.cli import main

    assert main([*NET, "--pattern", "hotspot", "--hot", "2", "--hot-frac", "1"]) == 2
    assert "cannot open HIL link" in capsys.readouterr().err
