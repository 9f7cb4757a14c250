"""``permnet hil sim`` serves the model on 127.0.0.1 (port 0: a free port,
printed), ``permnet hil run`` exits 2 with one line when the link is
unusable, and stopping the command stops the model."""

import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from permnet.cli import main
from permnet.hil import Link

BUILD = Path(__file__).resolve().parents[2] / "build" / "hil-sim"


def test_hil_sim_command_serves_the_model(hil_model):
    # the same parameters as the session model (tests/hil/conftest.py): the cached build is reused
    args = ["hil", "sim", "--design", "all", "--ports", "8", "--width", "8", "--size", "8", "-M", "18", "-S", "3",
            "--opt", "-O0", "--listen", "127.0.0.1:0", "--max-seconds", "60", "--build-dir", str(BUILD)]
    exe = Path(sys.executable).parent / "permnet"
    proc = subprocess.Popen([str(exe), *args], stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        t_end = time.monotonic() + 60
        while time.monotonic() < t_end and "listening" not in line:
            if select.select([proc.stderr], [], [], 0.5)[0]:
                line = proc.stderr.readline()
        assert "listening on socket://127.0.0.1:" in line, line
        url = line.split()[-1]
        with Link(url, timeout=1.0) as link:
            assert link.info().nexthop["M"] == 18
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    import socket

    host, port = url.removeprefix("socket://").split(":")
    time.sleep(0.2)
    s = socket.socket()
    try:
        assert s.connect_ex((host, int(port))) != 0       # the model stopped with the command
    finally:
        s.close()


def test_hil_run_on_a_dead_link_is_one_line(tmp_path, capsys):
    cfg = tmp_path / "c.csv"
    cfg.write_text("0,0,1\n0,1,0\n")
    assert main(["hil", "run", "--url", "socket://127.0.0.1:1", "--config", str(cfg), "--timeout", "0.2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("permnet: error: cannot open HIL link")


def test_a_busy_port_is_one_clear_error(hil_model):
    import pytest

    from permnet.gen.errors import PermnetError
    from permnet.hdl.hil.verilator import SimServer

    with SimServer(hil_model, max_seconds=30) as first:
        with pytest.raises(PermnetError, match=f"cannot listen on 127.0.0.1:{first.port}: Address already in use"):
            with SimServer(hil_model, port=first.port, max_seconds=30):
                pass
