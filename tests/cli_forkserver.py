"""A fork server for :func:`cli_runner.run`: ``python tests/cli_forkserver.py``.

It imports permnet's command line and the heavy libraries once, then, for
each request line on stdin (JSON: ``args``, ``env``, ``cwd``, ``timeout``,
``paths`` of the files for stdin, stdout and stderr), forks a child that
runs ``permnet.cli.main(args)`` as the console script would, waits for it
(killing it at the time-out) and answers one JSON line: ``code`` (the exit
code as ``subprocess`` reports it, negative for a signal) and ``timed_out``.

The server itself never runs library code, so it never starts numba's
OpenMP threads: a process that has started them cannot fork safely (GNU
OpenMP aborts the child), which is why the tests do not fork themselves.
It exits at the end of its stdin.
"""

import importlib
import json
import os
import pkgutil
import signal
import sys
import time


def preload():
    import permnet.cli

    for info in pkgutil.iter_modules(permnet.cli.__path__, "permnet.cli."):
        importlib.import_module(info.name)
    for name in ("numba", "scipy.sparse.csgraph", "scipy.optimize", "networkx", "amaranth.back.verilog",
                 "amaranth.sim"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def child(req):
    code = 70                                                   # EX_SOFTWARE if the child itself breaks
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        paths = req["paths"]
        for fd, name, mode in ((0, "in", os.O_RDONLY), (1, "out", os.O_WRONLY), (2, "err", os.O_WRONLY)):
            f = os.open(paths[name], mode)
            os.dup2(f, fd)
            os.close(f)
        sys.stdin = sys.__stdin__ = open(0, "r", closefd=False)
        sys.stdout = sys.__stdout__ = open(1, "w", closefd=False)
        sys.stderr = sys.__stderr__ = open(2, "w", closefd=False)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.argv = [req["argv0"], *req["args"]]
        from permnet.cli import main

        try:
            code = main(req["args"])
        except SystemExit as exc:
            code = exc.code
        except BaseException:                                   # as the interpreter would: traceback, exit 1
            import traceback

            traceback.print_exc()
            code = 1
        if code is None:
            code = 0
        elif not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code & 0xFF if isinstance(code, int) else 70)


def serve():
    preload()
    out = sys.stdout
    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            child(req)
        deadline = time.monotonic() + req["timeout"]
        timed_out = False
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                timed_out = True
                break
            time.sleep(0.002)
        out.write(json.dumps({"code": os.waitstatus_to_exitcode(status), "timed_out": timed_out}) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
