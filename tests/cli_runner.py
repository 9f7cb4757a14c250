"""Run the ``permnet`` command line as a user does: in a process of its own.

:func:`run` hands the command to a fork server (:mod:`cli_forkserver`, one
per test process, started on first use), which has imported permnet's
command line and the heavy libraries once and forks a child per command:
the child runs the console script's entry point, ``permnet.cli:main``, with
its own stdin, stdout, stderr, argv, working folder and environment (the
test's), and its exit code, stdout and stderr come back as from
``subprocess.run``.  What the fork does not repeat is the interpreter start
and the imports (numba, scipy, Amaranth: 1 to 2 s a command), which were
most of the time of the command-line tests.  The console script itself, a
fresh interpreter, runs in every docs example
(``tests/test_docs_examples.py``), in the signal tests, and wherever a test
asks with ``fresh=True`` (a test comparing two runs for determinism does:
two forks share one hash seed).  ``PERMNET_TEST_EXEC=1`` makes every call
a fresh interpreter.
"""

import atexit
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PERMNET = [str(Path(sys.executable).with_name("permnet"))]
DEFAULT_TIMEOUT_S = 900          # no command in the suite comes near it: a hung child is killed, not waited on
_server = None


def run(*args, check=True, fresh=False, **kwargs):
    """Run ``permnet ARGS``; with ``check``, assert it exited 0 (stderr in the message).
    Keyword arguments as ``subprocess.run``'s: ``env``, ``cwd``, ``timeout``, ``input``."""
    args = [str(a) for a in args]
    if fresh or os.environ.get("PERMNET_TEST_EXEC") == "1" or set(kwargs) - {"env", "cwd", "timeout", "input"}:
        p = subprocess.run(PERMNET + args, capture_output=True, text=True, **kwargs)
    else:
        p = _forked(args, **kwargs)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def _fork_server():
    global _server
    if _server is None or _server.poll() is not None:
        _server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("cli_forkserver.py"))],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        atexit.register(_server.kill)
    return _server


def _forked(args, env=None, cwd=None, timeout=None, input=None):
    server = _fork_server()
    with tempfile.TemporaryDirectory(prefix="permnet-run-") as tmp:
        paths = {name: os.path.join(tmp, name) for name in ("in", "out", "err")}
        Path(paths["in"]).write_text(input or "")
        Path(paths["out"]).touch()
        Path(paths["err"]).touch()
        req = {"args": args, "argv0": PERMNET[0], "paths": paths, "cwd": str(cwd if cwd is not None else os.getcwd()),
               "env": dict(env if env is not None else os.environ),
               "timeout": timeout if timeout is not None else DEFAULT_TIMEOUT_S}
        server.stdin.write(json.dumps(req) + "\n")
        server.stdin.flush()
        answer = server.stdout.readline()
        assert answer, "the permnet fork server died"
        reply = json.loads(answer)
        if reply["timed_out"]:
            raise subprocess.TimeoutExpired(PERMNET + args, timeout)
        out = Path(paths["out"]).read_text(errors="replace")
        err = Path(paths["err"]).read_text(errors="replace")
    return subprocess.CompletedProcess(PERMNET + args, reply["code"], out, err)


def run_in_process(capsys, *args):
    """Run ``permnet ARGS`` through the entry point's ``main`` in this process (no subprocess);
    returns ``(exit code, stdout, stderr)``."""
    from permnet.cli import main

    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err
