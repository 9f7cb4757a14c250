"""A ``permnet`` that starts in milliseconds, for tests that run thousands of commands.

Each ``permnet`` process spends one to two seconds importing numpy, numba,
scipy, networkx and Amaranth before it does anything; the command-line tests
and the documentation's examples run thousands of them.  :class:`ForkServer`
imports all of that once, in a process of its own, and then forks one child
per command.  A shim named ``permnet`` (:attr:`ForkServer.shim`, put first on
``PATH`` by :meth:`ForkServer.env`) hands the server its arguments, working
folder, environment, umask, SIGINT disposition and its own standard streams
(passed as file descriptors over a Unix socket), waits, and ends exactly as
the child ended: the same exit status, or death by the same signal.

The child runs :func:`permnet.cli.main` as the console script does
(``sys.exit(main())``), with fresh standard streams over the caller's file
descriptors (unbuffered when ``PYTHONUNBUFFERED`` is set, as Python would
make them), so what a test sees is the command's own behaviour: its output,
its exit status, its handling of SIGINT and SIGTERM (the shim passes them
on) and its death by ``kill -9`` or a test's time-out (the child watches the
shim's end of the socket and kills itself with SIGKILL when the shim is
gone).  What differs from a fresh process is what was imported before the
command ran, and the hash seed, which all children share (a test comparing
two runs for determinism runs fresh processes: ``cli_runner.run(fresh=True)``).

The server never runs library code, so it never starts numba's OpenMP
threads (a process that has started them cannot fork safely: GNU OpenMP
aborts the child), and it is single-threaded.  It ends with its parent, on
SIGTERM, or after :data:`LIFETIME_S`.  Without ``PERMNET_FORKSERVER`` in the
environment, or when the server cannot be reached, the shim runs the real
``permnet``.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
REAL = BIN / "permnet"
LIFETIME_S = 4 * 3600       # the server ends by itself at the latest after this long
POLL_S = 0.02               # how often it looks for children that ended

SHIM = """#!{python} -IS
# permnet through the tests' fork server (tests/forkserver.py); the real one without it
import json, os, signal, socket, struct, sys
REAL = {real!r}
path = os.environ.get("PERMNET_FORKSERVER")
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    sock.connect(path or "")
except OSError:
    os.execv(REAL, [REAL] + sys.argv[1:])
mask = os.umask(0)
os.umask(mask)
msg = json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ), "umask": mask,
                  "int_ignored": signal.getsignal(signal.SIGINT) == signal.SIG_IGN}}).encode()
socket.send_fds(sock, [struct.pack("!I", len(msg)) + msg], [0, 1, 2])

def word():
    data = b""
    while len(data) < 4:
        part = sock.recv(4 - len(data))
        if not part:
            sys.exit(70)
        data += part
    return struct.unpack("!i", data)[0]

pid = word()
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
    if signal.getsignal(sig) != signal.SIG_IGN:
        signal.signal(sig, lambda n, f: os.kill(pid, n))
status = word()
if os.WIFSIGNALED(status):
    sig = os.WTERMSIG(status)
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
sys.exit(os.waitstatus_to_exitcode(status))
"""


class ForkServer:
    """The server process and the folder holding its socket and the shim; :meth:`env` sets them up."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="permnet-forkserver-"))
        self.socket = self.folder / "sock"
        (self.folder / "bin").mkdir()
        self.shim = self.folder / "bin" / "permnet"
        self.shim.write_text(SHIM.format(python=sys.executable, real=str(REAL)))
        self.shim.chmod(0o755)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, __file__, str(self.socket)], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        ready = self.proc.stdout.readline()
        if ready.strip() != "ready":
            self.close()
            raise RuntimeError(f"the fork server did not start: {ready!r}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def env(self, env: dict) -> dict:
        """``env`` with the shim first on PATH and the server's socket named."""
        env = dict(env)
        env["PATH"] = f"{self.folder / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["PERMNET_FORKSERVER"] = str(self.socket)
        return env

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for path in (self.shim, self.socket):
            path.unlink(missing_ok=True)
        for path in (self.folder / "bin", self.folder):
            path.rmdir()


# ------------------------------------------------------------------ the server process

def _preload() -> None:
    """Import what the commands import: every command's module, and the heavy libraries."""
    import importlib
    import pkgutil

    import permnet.cli

    for info in pkgutil.iter_modules(permnet.cli.__path__, "permnet.cli."):
        importlib.import_module(info.name)
    for name in ("numba", "scipy.sparse.csgraph", "scipy.optimize", "networkx", "amaranth.back.verilog",
                 "amaranth.sim"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    # numba's typing and target contexts, built once here instead of in every command that calls a
    # kernel (about 0.5 s each, even when the kernel comes from numba's cache); no thread is started
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    header, fds, _, _ = socket.recv_fds(conn, 4, 3)
    if len(header) < 4:
        raise ConnectionError("short header")
    (size,) = struct.unpack("!I", header)
    data = b""
    while len(data) < size:
        part = conn.recv(size - len(data))
        if not part:
            raise ConnectionError("short message")
        data += part
    return json.loads(data), fds


def _child(conn: socket.socket, request: dict, fds: list[int], others) -> None:
    """Become the command: the caller's streams, folder, environment, umask; run it; never return."""
    import threading

    status = 1
    try:
        for other in others:        # the other commands' sockets: theirs alone
            other.close()
        for target, fd in zip((0, 1, 2), fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        _standard_streams(bool(os.environ.get("PYTHONUNBUFFERED")))
        os.umask(request["umask"])
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN if request["int_ignored"] else signal.default_int_handler)
        sys.argv = [str(REAL)] + request["argv"]

        def watch():     # the shim is gone (kill -9): so is the command
            while True:
                if not conn.recv(64):
                    os.kill(os.getpid(), signal.SIGKILL)

        threading.Thread(target=watch, daemon=True).start()
        status = _run_main()
        threading._shutdown()
        import atexit

        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                status = 120
    except KeyboardInterrupt:       # as Python does: end by SIGINT itself
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        os._exit(status)


def _standard_streams(unbuffered: bool) -> None:
    """New ``sys.stdin/stdout/stderr`` over descriptors 0-2, buffered as Python's start-up makes them."""
    import io

    def writer(fd, errors):
        raw = io.FileIO(fd, "w", closefd=False)
        if unbuffered:
            return io.TextIOWrapper(raw, encoding="utf-8", errors=errors, write_through=True)
        return io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", errors=errors,
                                line_buffering=raw.isatty() or fd == 2)

    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                                  encoding="utf-8")
    sys.stdout = sys.__stdout__ = writer(1, "strict")
    sys.stderr = sys.__stderr__ = writer(2, "backslashreplace")


def _run_main() -> int:
    """``sys.exit(main())`` as the console script runs it, with Python's handling of SystemExit."""
    from permnet.cli import main

    try:
        code = main()
    except SystemExit as exc:
        code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def serve(path: str) -> None:
    """Accept commands on the Unix socket ``path`` until the parent is gone or the lifetime ends."""
    _preload()
    parent, start = os.getppid(), time.monotonic()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    running: dict[int, socket.socket] = {}
    print("ready", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda n, f: stop.append(n))
    while not stop and os.getppid() == parent and time.monotonic() - start < LIFETIME_S:
        if selector.select(timeout=POLL_S):
            conn, _ = listener.accept()
            try:
                request, fds = _receive(conn)
            except (OSError, ValueError):
                conn.close()
                continue
            pid = os.fork()
            if pid == 0:
                listener.close()
                _child(conn, request, fds, list(running.values()))
            for fd in fds:
                os.close(fd)
            running[pid] = conn
            try:
                conn.sendall(struct.pack("!i", pid))
            except OSError:
                pass
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = running.pop(pid, None)
            if conn is not None:
                try:
                    conn.sendall(struct.pack("!i", status))
                except OSError:
                    pass
                conn.close()
    for pid in running:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


if __name__ == "__main__":
    sys.path[0] = str(BIN)        # as the console script has it, not tests/
    serve(sys.argv[1])
