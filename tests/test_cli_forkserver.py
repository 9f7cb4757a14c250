"""The tests' fork server (tests/cli_forkserver.py) behaves as the console script does.

Most command-line tests and every documentation example run ``permnet``
through it, so each property it claims is checked here against a fresh
``permnet`` process: output, exit status, the file mode under a umask, the
working folder, SIGTERM passed on, and the command's death with its shim
(``kill -9``, a test's time-out)."""

import os
import signal
import socket
import subprocess
import time

import pytest

from cli_runner import PERMNET, fork_server


def _both(args, cwd, umask=None):
    """(fresh, forked) CompletedProcess of ``permnet ARGS`` run from ``cwd`` under ``umask``."""
    def mask():
        if umask is not None:
            os.umask(umask)

    server = fork_server()
    fresh = subprocess.run(PERMNET + args, cwd=cwd / "fresh", capture_output=True, text=True, timeout=120,
                           preexec_fn=mask)
    forked = subprocess.run([str(server.shim)] + args, cwd=cwd / "forked", env=server.env(os.environ),
                            capture_output=True, text=True, timeout=120, preexec_fn=mask)
    return fresh, forked


@pytest.mark.parametrize("args", [["topo", "ldi", "-M", "9", "-S", "3"],            # output, exit 0
                                  ["topo", "ldi", "-M", "9", "-S", "3", "--bogus"]])  # one line on stderr, exit 2
def test_output_and_status_are_the_console_scripts(tmp_path, args):
    (tmp_path / "fresh").mkdir()
    (tmp_path / "forked").mkdir()
    fresh, forked = _both(args, tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)


def test_files_land_in_the_callers_folder_under_its_umask(tmp_path):
    (tmp_path / "fresh").mkdir()
    (tmp_path / "forked").mkdir()
    fresh, forked = _both(["topo", "ldi", "-M", "9", "-S", "3", "-o", "t.json"], tmp_path, umask=0o027)
    assert fresh.returncode == forked.returncode == 0, forked.stderr
    a, b = tmp_path / "fresh" / "t.json", tmp_path / "forked" / "t.json"
    assert a.read_bytes() == b.read_bytes()
    assert (a.stat().st_mode & 0o777) == (b.stat().st_mode & 0o777) == 0o640


def _emulator(tmp_path):
    server = fork_server()
    proc = subprocess.Popen([str(server.shim), "ocs", "emulate", "--ports", "4", "--seconds", "60"], cwd=tmp_path,
                            env=server.env(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("listening on 127.0.0.1:"), line + proc.stderr.read()
    host, port = line.split()[2].rsplit(":", 1)
    return proc, (host, int(port))


def _listening(address) -> bool:
    try:
        with socket.create_connection(address, timeout=1):
            return True
    except OSError:
        return False


def _gone(address, within_s=10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not _listening(address):
            return True
        time.sleep(0.05)
    return False


def test_sigterm_to_the_shim_ends_the_command_with_143(tmp_path):
    proc, address = _emulator(tmp_path)
    assert _listening(address)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 143
    assert _gone(address)


def test_kill_9_of_the_shim_kills_the_command(tmp_path):
    """As ``kill -9 $!`` in docs/howto/transactions.md: the command dies with it, not later."""
    proc, address = _emulator(tmp_path)
    proc.kill()
    assert proc.wait(timeout=10) == -signal.SIGKILL
    assert _gone(address)
