"""One set of conventions across commands (issue 28): every command is walked.

* Every command that takes ``--json`` is classified here: a *verifying* command
  (it compares hardware, a device or a file with the intent) reports that
  comparison under the one key ``verified`` and exits 0 when it holds and 1
  when it does not; every other ``--json`` command is a *report*. A new
  command with ``--json`` fails this test until it is classified.
* Every command refuses an unknown option the same way: one line on stderr
  starting ``permnet: error:``, nothing on stdout, exit 2.
"""

from __future__ import annotations

import json

import click
import pytest

from cli_runner import run
from permnet.cli import cli, main

# commands whose --json result says whether the hardware, device or file matches the intent
VERIFYING = {"verify", "fabric verify", "hil run", "ocs apply", "fabric apply", "ocs recover"}


def _walk(group, prefix=()):
    ctx = click.Context(group, info_name="permnet")
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        path = prefix + (name,)
        if isinstance(cmd, click.Group):
            yield from _walk(cmd, path)
        else:
            yield " ".join(path), cmd


COMMANDS = dict(_walk(cli))


def _takes_json(cmd) -> bool:
    return any("--json" in p.opts for p in cmd.params if isinstance(p, click.Option))


def test_every_verifying_command_exists_and_takes_json():
    missing = sorted(v for v in VERIFYING if v not in COMMANDS or not _takes_json(COMMANDS[v]))
    assert missing == []


def test_the_walk_sees_the_whole_tree():
    # the root group loads its subcommands lazily: the walk must still reach the nested ones
    assert {"fabric compile", "ocs emulate", "rtl network", "orp search", "plan"} <= set(COMMANDS)
    assert len(COMMANDS) > 40


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_an_unknown_option_is_one_line_on_stderr_and_exit_2(path, capsys):
    # in process (the entry point's own main): 70-odd commands, one subprocess each would cost a minute
    code = main([*path.split(), "--no-such-option"])
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("permnet: error:") and "--no-such-option" in lines[0]


def test_verify_reports_verified_and_exits_0_or_1(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    run("planes", "ldi", "--nodes", "9", "--degree", "3", "-o", a)
    planes = json.loads(a.read_text())
    run("planes", "ldi", "--nodes", "9", "--degree", "3", "-o", b)
    same = run("verify", "--config", a, "--intended", b, "--json", check=False)
    assert same.returncode == 0 and json.loads(same.stdout)["verified"] is True
    # swap two targets of plane 0: the file no longer holds the intent
    body = json.loads(b.read_text())
    row = _first_plane(body)
    row[0], row[1] = row[1], row[0]
    b.write_text(json.dumps(body))
    diff = run("verify", "--config", b, "--intended", a, "--json", check=False)
    assert diff.returncode == 1 and json.loads(diff.stdout)["verified"] is False
    assert planes  # the intended file was read as written


def _first_plane(body):
    """The first plane's target list in a planes JSON file, whatever its nesting."""
    planes = body["planes"] if isinstance(body, dict) else body
    first = planes[0]
    return first["targets"] if isinstance(first, dict) and "targets" in first else first

