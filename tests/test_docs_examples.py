"""Every console session in the documentation runs, and prints what the page says.

A fenced block tagged ``console`` in ``README.md`` or ``docs/**/*.md`` is a
session: each line starting with ``$ `` is a command run by bash from the
repository root (a temporary folder where the repository's top-level folders
are linked, so outputs such as ``out/`` or ``ldi9.json`` land in the
temporary folder), and the lines after it, up to the next ``$ `` line, are
its output, stdout and stderr together.  In the expected output a line of
only ``...`` matches any number of lines (none included) and ``...`` inside a
line matches any text, for what changes from run to run (times, temporary
paths).  ``permnet`` and ``python`` are the virtual environment's;
``permnet`` runs through :mod:`cli_forkserver` (the libraries imported once,
a fork per command), or as a fresh process with ``PERMNET_TEST_EXEC=1``.

Within a block the commands share the folder, ``export NAME=VALUE`` lines set
the environment of the commands after them, ``$?`` is the status of the
command before, and a command ending in ``&`` runs in the background (the
lines after it are its first lines of output; it is stopped at the end of the
block).  A block preceded by ``<!-- slow -->`` runs only with ``-m slow``.

Each block is one test, named after its page and line.  To paste the real
output into a page after changing a command::

    .venv/bin/python tests/test_docs_examples.py --update docs/howto/verify-switch.md[:LINE] ...

(only the commands whose output does not match are rewritten; re-add the
``...`` masks where the output is volatile).
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cli_runner import fork_server

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
LINKED = ("bench", "constraints", "docs", "fusesoc", "gen", "hdl", "permnet", "sim", "tests", "pyproject.toml",
          "Makefile")
TIMEOUT_S = 600
BACKGROUND_WAIT_S = 600      # a background `permnet hil sim` builds its Verilator model first: 4-5 min for LDI(8,2)


@dataclass
class Step:
    command: str
    expected: list[str] = field(default_factory=list)
    line: int = 0                 # 1-based line of the command in its file


@dataclass
class Block:
    path: Path
    line: int                     # 1-based line of the opening fence
    slow: bool
    steps: list[Step]

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.line}"


def doc_files() -> list[Path]:
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def parse(path: Path) -> list[Block]:
    lines = path.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            prev = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            start, steps = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                text = lines[i]
                if text.startswith("$ "):
                    steps.append(Step(text[2:], [], i + 1))
                elif steps:
                    steps[-1].expected.append(text)
                i += 1
            blocks.append(Block(path, start, prev == "<!-- slow -->", steps))
        i += 1
    return blocks


def _line_regex(expected: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(p) for p in expected.rstrip().split("...")))


def matches(expected: list[str], actual: list[str]) -> bool:
    """``...`` alone on a line matches any number of lines; inside a line, any text."""
    exp = [e.rstrip() for e in expected]
    act = [a.rstrip() for a in actual]
    while exp and not exp[-1]:
        exp.pop()
    while act and not act[-1]:
        act.pop()
    pats = [None if e.strip() == "..." else _line_regex(e) for e in exp]
    memo: dict = {}

    def go(i, j):
        key = (i, j)
        if key not in memo:
            if i == len(pats):
                memo[key] = j == len(act)
            elif pats[i] is None:
                memo[key] = any(go(i + 1, k) for k in range(j, len(act) + 1))
            else:
                memo[key] = j < len(act) and pats[i].fullmatch(act[j]) is not None and go(i + 1, j + 1)
        return memo[key]

    return go(0, 0)


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONUNBUFFERED"] = "1"
    env["COLUMNS"] = "200"
    env.pop("PERMNET_DEBUG", None)
    if env.get("PERMNET_TEST_EXEC") != "1":
        env = fork_server().env(env)
    return env


def _workdir(tmp: Path) -> Path:
    for name in LINKED:
        if (ROOT / name).exists():
            (tmp / name).symlink_to(ROOT / name)
    return tmp


class _Background:
    """A command started with ``&``: its output is read by a thread, line by line."""

    def __init__(self, command, cwd, env):
        self.proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                                     start_new_session=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for text in self.proc.stdout:
            self.lines.put(text.rstrip("\n"))
        self.lines.put(None)

    def first_lines(self, n: int) -> list[str]:
        out, deadline = [], time.monotonic() + BACKGROUND_WAIT_S
        while len(out) < n:
            try:
                text = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if text is None:
                break
            out.append(text)
        return out

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def _background(cmd: str) -> bool:
    """A command line that runs in the background: it ends in ``&`` (not ``&&``)."""
    return cmd.endswith("&") and not cmd.endswith("&&")


def run_block(block: Block, tmp: Path) -> list[tuple[Step, list[str]]]:
    """Run every command of the block; returns each step with its actual output lines."""
    cwd, env, status, results, background = _workdir(tmp), _env(), 0, [], []
    try:
        for step in block.steps:
            cmd = step.command.strip()
            m = re.fullmatch(r"export\s+(.*)", cmd)
            if m:
                for assignment in m.group(1).split():
                    name, _, value = assignment.partition("=")
                    env[name] = value
                results.append((step, []))
                continue
            if _background(cmd):
                job = _Background(cmd[:-1].rstrip(), cwd, env)
                background.append(job)
                wanted = len([e for e in step.expected if e.strip()])
                results.append((step, job.first_lines(wanted)))
                status = 0
                continue
            proc = subprocess.run(["bash", "-c", f"(exit {status}); {cmd}"], cwd=cwd, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  timeout=TIMEOUT_S)
            status = proc.returncode
            results.append((step, proc.stdout.splitlines()))
    finally:
        for job in background:
            job.stop()
    return results


BLOCKS = [b for p in doc_files() for b in parse(p) if b.steps]


@pytest.mark.parametrize("block", [pytest.param(b, id=b.id, marks=[pytest.mark.slow] if b.slow else [])
                                   for b in BLOCKS])
def test_console_block(block, tmp_path):
    for step, actual in run_block(block, tmp_path):
        assert matches(step.expected, actual), (
            f"{block.path.relative_to(ROOT)}:{step.line}: $ {step.command}\n--- expected\n"
            + "\n".join(step.expected) + "\n--- actual\n" + "\n".join(actual))


def test_no_example_installs_packages():
    """A session runs with the test's own virtual environment on PATH: a ``pip install`` in
    it would reinstall that environment (once, an editable install pointing at a
    temporary folder that was deleted after the run)."""
    installs = [f"{b.id}: $ {s.command}" for b in BLOCKS for s in b.steps
                if re.search(r"\bpip3?\s+install\b|-m\s+pip\b", s.command)]
    assert not installs, installs


def test_every_background_command_shows_its_first_line():
    """A command started with ``&`` is waited for only until its first lines of output: one
    that shows none (``> /dev/null &``) lets the next command run before it is ready (an
    emulator not yet listening: "Connection refused" under CI load). A server's example shows
    its ``listening on`` line, so the session, and a reader, waits for it."""
    silent = [f"{b.id}: $ {s.command}" for b in BLOCKS for s in b.steps
              if _background(s.command.strip()) and not any(e.strip() for e in s.expected)]
    assert not silent, silent


def test_matcher():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["time ... s"], ["time 1.5 s"])
    assert not matches(["a", "b"], ["a", "c"])
    assert not matches(["a"], ["a", "b"])
    assert not matches(["x ... y"], ["x 1 z"])


def test_readme_is_a_five_minute_read():
    """README.md stays at most 12 KB: the worked sessions live in docs/."""
    assert (ROOT / "README.md").stat().st_size <= 12 * 1024


def test_every_page_has_its_examples_parsed():
    """A fence that is opened as console but never closed would swallow the rest of the page."""
    for path in doc_files():
        assert fences_balanced(path.read_text()), f"{path}: unbalanced code fences"


def fences_balanced(text: str) -> bool:
    """Fences are lines starting with three backticks; inline code such as ```` ```console ```` is no fence."""
    return sum(bool(re.match(r"\s{0,3}```+[^`]*$", line)) for line in text.splitlines()) % 2 == 0


def test_fence_count_ignores_inline_backticks():
    assert fences_balanced("a ```` ```console ```` b\n```console\n$ true\n```\n")
    assert not fences_balanced("```console\n$ true\n")


def test_site_builds(tmp_path):
    """``make docs``: the site builds offline with warnings as errors (links, nav, generated reference)."""
    mkdocs = BIN / "mkdocs"
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    proc = subprocess.run([str(mkdocs), "build", "--strict", "-q", "-d", str(tmp_path / "site")], cwd=ROOT,
                          env=_env(), text=True, capture_output=True, timeout=TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").exists()
    # the command reference lists every command, those the root group loads lazily included
    html = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    missing = [name for name in _command_names() if f">{name}<" not in html and f">{name} <" not in html]
    assert not missing, f"not in the command reference: {missing}"


def _command_names() -> list[str]:
    import click

    from permnet.cli import cli

    names, todo = [], [("permnet", cli)]
    while todo:
        prefix, group = todo.pop()
        ctx = click.Context(group, info_name=prefix)
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            names.append(f"{prefix} {name}")
            if isinstance(sub, click.Group):
                todo.append((f"{prefix} {name}", sub))
    return sorted(names)


# ---------------------------------------------------------------- --update

def update(path: Path, only_lines: set[int]) -> None:
    """Rewrite the expected output of the commands that do not match with their real output."""
    import tempfile

    lines = path.read_text().splitlines()
    replace = {}
    for block in parse(path):
        if only_lines and block.line not in only_lines:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            results = run_block(block, Path(tmp))
            print(f"{path.name}:{block.line}: {time.perf_counter() - t:.1f} s{' (slow)' if block.slow else ''}")
        for step, actual in results:
            if not matches(step.expected, actual):
                replace[step.line] = (len(step.expected), actual)
    out, i = [], 0
    while i < len(lines):
        out.append(lines[i])
        if i + 1 in replace:
            n, actual = replace[i + 1]
            out.extend(actual)
            i += n
        i += 1
    path.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] != "--update" or len(args) < 2:
        sys.exit("usage: test_docs_examples.py --update FILE.md[:LINE] ...")
    wanted: dict = {}
    for arg in args[1:]:
        name, _, line = arg.partition(":")
        wanted.setdefault(Path(name).resolve(), set()).update({int(line)} if line else set())
    for path, lines in wanted.items():
        update(path, lines)
