"""Run the installed ``permnet`` console script as a user does (a subprocess)."""

import subprocess
import sys
from pathlib import Path

PERMNET = [str(Path(sys.executable).with_name("permnet"))]


def run(*args, check=True, **kwargs):
    """Run ``permnet ARGS``; with ``check``, assert it exited 0 (stderr in the message)."""
    p = subprocess.run(PERMNET + [str(a) for a in args], capture_output=True, text=True, **kwargs)
    if check:
        assert p.returncode == 0, p.stderr
    return p


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
