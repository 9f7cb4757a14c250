"""Run the ``permnet`` command line as a user does: in a process of its own.

:func:`run` runs the command through the tests' fork server
(:mod:`cli_forkserver`, one per test process, started on first use and also
used by the documentation's examples): its ``permnet`` shim is a process of
its own, with the test's stdin, stdout, stderr, argv, working folder and
environment, and the forked child it hands them to runs the console
script's entry point, ``permnet.cli:main``; exit code, stdout and stderr
come back from ``subprocess.run``, a time-out kills the command.  What the
fork does not repeat is the interpreter start and the imports (numba, scipy,
Amaranth: 1 to 2 s a command), which were most of the time of the
command-line tests.  The console script itself, a fresh interpreter, runs
in the signal tests and wherever a test asks with ``fresh=True`` (a test
comparing two runs for determinism does: two forks share one hash seed).
``PERMNET_TEST_EXEC=1`` makes every call, docs examples included, a fresh
interpreter.
"""

import atexit
import os
import subprocess
import sys
from pathlib import Path

from cli_forkserver import ForkServer

PERMNET = [str(Path(sys.executable).with_name("permnet"))]
DEFAULT_TIMEOUT_S = 900          # no command in the suite comes near it: a hung child is killed, not waited on
_server: list[ForkServer] = []


def run(*args, check=True, fresh=False, **kwargs):
    """Run ``permnet ARGS``; with ``check``, assert it exited 0 (stderr in the message).
    Keyword arguments as ``subprocess.run``'s."""
    args = [str(a) for a in args]
    kwargs.setdefault("timeout", DEFAULT_TIMEOUT_S)
    if fresh or os.environ.get("PERMNET_TEST_EXEC") == "1":
        p = subprocess.run(PERMNET + args, capture_output=True, text=True, **kwargs)
    else:
        server = fork_server()
        kwargs["env"] = server.env(kwargs.get("env") or os.environ)
        p = subprocess.run([str(server.shim)] + args, capture_output=True, text=True, **kwargs)
        p.args = PERMNET + args
    if check:
        assert p.returncode == 0, p.stderr
    return p


def fork_server() -> ForkServer:
    """This process's fork server, started on first use (again if it died)."""
    if not _server or not _server[0].alive():
        if _server:
            _server.pop().close()
        _server.append(ForkServer())
        atexit.register(_server[0].close)
    return _server[0]


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
