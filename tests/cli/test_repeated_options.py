"""Issue 43: an option given twice (``-M 16 -M 32``) was taken at its last value, silently;
every command now refuses it in one line, as it refuses options that contradict each other.
Options meant to be repeated (``multiple``, such as ``--fault``) still are."""

import pytest

from permnet.cli import main


@pytest.mark.parametrize("args,flag", [
    (["topo", "ldi", "-M", "16", "-M", "32", "-S", "4"], "--nodes/-M"),
    (["topo", "ldi", "--nodes", "16", "-S", "4", "-M", "16"], "--nodes/-M"),          # the same value too
    (["plan", "-M", "16", "-S", "4", "--traffic", "uniform", "--traffic", "transpose"], "--traffic"),
    (["rtl", "router", "-M", "8", "-S", "2", "--vcs", "3", "--vcs", "4", "-o", "r.v"], "--vcs"),
    (["hil", "run", "--url", "loop://", "--design", "network", "--cycles", "5", "--cycles", "6"], "--cycles"),
])
def test_an_option_given_twice_is_refused(args, flag, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err == f"permnet: error: {flag} given more than once; give it once\n"
    assert list(tmp_path.iterdir()) == []


def test_options_meant_to_be_repeated_still_are(capsys):
    """``--fault`` of ``ocs emulate``/``hil sim`` is ``multiple``; here ``mixed --plane``."""
    assert main(["mixed", "ldi", "-M", "16", "-S", "4", "--plane", "shift:1", "--plane", "shift:3"]) in (0, 2)
    assert "given more than once" not in capsys.readouterr().err
