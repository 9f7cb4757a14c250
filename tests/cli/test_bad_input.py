"""Bad input, tried on every command of the CLI's own command tree (so a new
command cannot escape): one line ``permnet: error: ...``, exit 2, no
traceback, nothing written."""

import click
import pytest

from permnet.cli import cli, main


def leaves(group, prefix=()):
    for name in group.list_commands(None):        # loads every lazily imported command
        cmd = group.get_command(None, name)
        if isinstance(cmd, click.Group):
            yield from leaves(cmd, prefix + (name,))
        else:
            yield prefix + (name,), cmd


COMMANDS = list(leaves(cli))
IDS = [" ".join(p) for p, _ in COMMANDS]


def run_main(argv, capsys):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_one_line_error(code, err):
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("permnet: error:"), err
    assert "Traceback" not in err


def test_the_tree_is_walked():
    assert len(COMMANDS) >= 40 and ("benes",) in [p for p, _ in COMMANDS]


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=IDS)
def test_missing_required_options(path, cmd, capsys):
    required = [p for p in cmd.params if p.required]
    if not required:
        pytest.skip("no required option")
    code, _, err = run_main(path, capsys)
    assert_one_line_error(code, err)


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=IDS)
def test_non_numbers_for_numeric_options(path, cmd, capsys, tmp_path):
    numeric = [p for p in cmd.params if isinstance(p, click.Option) and not p.is_flag
               and isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType, click.IntRange,
                                       click.FloatRange)) or type(p.type).__name__ == "FinitePositiveFloat"]
    if not numeric:
        pytest.skip("no numeric option")
    for p in numeric:
        code, _, err = run_main(list(path) + [p.opts[0], "abc"], capsys)
        assert_one_line_error(code, err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=IDS)
def test_output_below_a_regular_file(path, cmd, capsys, tmp_path):
    """``-o FILE/x`` cannot be created: one line naming the path (the other
    options come from a valid call where the command has a cheap one)."""
    if not any("-o" in p.opts for p in cmd.params if isinstance(p, click.Option)):
        pytest.skip("no -o")
    valid = VALID.get(" ".join(path))
    if valid is None:
        pytest.skip("no cheap valid call listed")
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run_main(list(path) + valid + ["-o", str(blocker / "x" / "out.json")], capsys)
    assert_one_line_error(code, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


VALID = {
    "netsim": ["-M", "9", "-S", "3", "--cycles", "50", "--warmup", "10"],
    "planes ldi": ["-M", "9", "-S", "3"],
    "benes": ["--perm", "1,0,2"],
    "rtl nexthop": ["-M", "9", "-S", "3"],
    "rtl crossbar": ["--ports", "4", "--width", "1"],
    "rtl benes": ["--size", "4", "--width", "1"],
    "topo debruijn": ["-d", "2", "-D", "3"],
    "faults ldi": ["-M", "9", "-S", "3", "--failed", "1"],
    "plan": ["--traffic", "uniform", "-M", "8", "-S", "2"],
}


def test_internal_errors_are_not_bad_input(monkeypatch, capsys):
    from permnet.gen.topologies import ldi

    def broken(*a, **k):
        raise ZeroDivisionError("a bug")
    monkeypatch.setattr(ldi, "route", broken)
    code, _, err = run_main(["route", "ldi", "-M", "9", "-S", "3", "--src", "0", "--dst", "1"], capsys)
    assert code == 3 and err.startswith("permnet: internal error: ZeroDivisionError") and "Traceback" not in err


def test_interrupt_exits_130_and_leaves_no_temporary_file(monkeypatch, capsys, tmp_path):
    from permnet import switching

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(switching, "write_hex", interrupted)
    code, _, err = run_main(["benes", "--perm", "1,0,3,2", "-o", str(tmp_path / "hx")], capsys)
    assert code == 130 and err.strip() == "permnet: interrupted"
    assert list(tmp_path.iterdir()) == []
