"""LiteX's own host tools against the HIL model, unchanged: the ``csr.csv``
of ``permnet hil regmap`` loads in LiteX's ``RemoteClient`` and
``litex_cli``, and through ``litex_server --uart`` they read ``sys_id``,
write and read back ``sys_scratch``, load a crossbar configuration and read
it back through the datapath, dump every register and the identifier.

LiteX's ``CommUART`` writes each UARTBone frame in two or three pieces on a
socket without ``TCP_NODELAY``; the first test sends frames that way without
LiteX (Nagle's algorithm then holds a piece until the previous one is
acknowledged), so the bridge's handling of a frame that arrives in pieces is
checked where LiteX is not installed too."""

from __future__ import annotations

import random
import select
import socket
import subprocess
import sys
import time

import pytest

from permnet.gen.hil import regmap as R
from permnet.hdl.hil.top import register_map_text
from permnet.hdl.hil.verilator import SimServer
from permnet.hil import Link
from port_helpers import free_port, wait_listening

SCRATCH = R.addr("sys", "scratch")


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        assert chunk, "the model closed the connection"
        data += chunk
    return data


def test_plain_frames_written_in_pieces(hil_model):
    """UARTBone frames written as CommUART writes them (command and length,
    address, data: three writes, Nagle's algorithm on) are all executed."""
    rng = random.Random(3)
    values = [rng.randrange(1 << 32) for _ in range(20)]
    with SimServer(hil_model, max_seconds=60) as srv:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=2.0) as s:
            for v in values:
                s.sendall(bytes([0x01, 1]))
                s.sendall(SCRATCH.to_bytes(4, "big"))
                s.sendall(v.to_bytes(4, "big"))
                s.sendall(bytes([0x02, 1]))
                s.sendall(SCRATCH.to_bytes(4, "big"))
                assert int.from_bytes(recv_exact(s, 4), "big") == v
            s.sendall(bytes([0x02, 1]))
            s.sendall(R.addr("sys", "bridge_errors").to_bytes(4, "big"))
            assert int.from_bytes(recv_exact(s, 4), "big") >> 16 == 0      # no frame timed out


# --- with LiteX ---------------------------------------------------------------------------------

def _litex():
    return pytest.importorskip("litex", reason="LiteX is not installed (pip install 'permnet[litex]')")


@pytest.fixture
def csr_csv(tmp_path, hil_model_params):
    path = tmp_path / "csr.csv"
    path.write_text(register_map_text(hil_model_params, "csv"))
    return path


def test_csr_csv_loads_in_litex(csr_csv, hil_model_params):
    """LiteX's CSR builder reads every register at 4 x its word address."""
    litex = _litex()
    bus = litex.RemoteClient(host="127.0.0.1", csr_csv=str(csr_csv), port=1)    # never opened
    assert bus.csr_data_width == 32 and bus.csr_bus_address_width == 32
    params = dict(hil_model_params)
    from permnet.hdl.hil.top import HilTop

    regs = HilTop(params.pop("design"), **params).registers()
    seen = 0
    for r in regs:
        if r.memory:
            continue
        indices = range(r.count) if r.array else [None]
        for i in indices:
            name = f"{r.block}_{r.name}" + ("" if i is None else str(i))
            reg = getattr(bus.regs, name)
            assert reg.addr == 4 * R.addr(r.block, r.name, i or 0) and reg.length == 1
            assert reg.mode == ("ro" if r.access == "RO" else "rw")
            seen += 1
    assert seen == len(bus.regs.d)
    assert {r.block for r in regs} == set(bus.bases.d)
    assert all(bus.bases.d[b] == 4 * R.BASES[b] for b in bus.bases.d)


@pytest.fixture
def litex_server(hil_model):
    """(our link's sys_id, the litex_server port) with the model behind it."""
    _litex()
    with SimServer(hil_model, max_seconds=120) as srv:
        with Link(srv.url, timeout=1.0) as link:      # the model serves one client at a time
            ident = link.reg("sys", "id")
        port = free_port()
        cmd = [sys.executable, "-u", "-m", "litex.tools.litex_server", "--uart", "--uart-port", srv.url,
               "--bind-ip", "127.0.0.1", "--bind-port", str(port)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            out = ""
            t_end = time.monotonic() + 20
            while "tcp port" not in out and time.monotonic() < t_end and proc.poll() is None:
                if select.select([proc.stdout], [], [], 0.2)[0]:
                    out += proc.stdout.readline()
            assert "tcp port" in out, f"litex_server did not start: {out!r}"
            wait_listening(port, t_end, "litex_server")      # litex_server prints its port before it listens
            yield ident, port
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


def test_remote_client_reads_and_writes(litex_server, csr_csv):
    litex = _litex()
    ident, port = litex_server
    assert ident == R.ID
    bus = litex.RemoteClient(host="127.0.0.1", csr_csv=str(csr_csv), port=port)
    bus.open()
    try:
        assert bus.regs.sys_id.read() == ident
        rng = random.Random(5)
        for v in [rng.randrange(1 << 32) for _ in range(4)]:
            bus.regs.sys_scratch.write(v)
            assert bus.regs.sys_scratch.read() == v
        # a burst read through litex_server (its read merger makes one UARTBone frame)
        assert bus.read(0, 2) == [ident, R.VERSION]

        # a crossbar configuration pushed with LiteX's writes, read back through the datapath
        ports = bus.regs.xbar_info.read() & 0xFFFF
        perm = list(range(ports))
        rng.shuffle(perm)                                  # ingress i -> egress perm[i]
        entries = [0] * ports
        for i, e in enumerate(perm):
            entries[e] = i | 1 << 31                       # egress e takes ingress i
        bus.write(bus.regs.xbar_cfg.addr, entries)         # an incrementing burst stays in the window
        assert bus.regs.xbar_accepted.read() == ports
        commits = bus.regs.xbar_ctrl.read() >> 16
        bus.regs.xbar_ctrl.write(1)
        assert bus.regs.xbar_ctrl.read() >> 16 == commits + 1
        bus.regs.xbar_rb_ctrl.write(1)
        t_end = time.monotonic() + 5
        while not bus.regs.xbar_rb_ctrl.read() >> 1 & 1:
            assert time.monotonic() < t_end, "the read-back never captured"
        tags = [getattr(bus.regs, f"xbar_rb{e}").read() for e in range(ports)]
        bus.regs.xbar_rb_ctrl.write(0)
        assert tags == [perm.index(e) + 1 for e in range(ports)]
    finally:
        bus.close()


def test_litex_cli_dumps_the_registers(litex_server, csr_csv, hil_model_params):
    _litex()
    ident, port = litex_server
    rows = [line.split(",") for line in csr_csv.read_text().splitlines() if line.startswith("csr_register,")]
    cmd = [sys.executable, "-m", "litex.tools.litex_client", "--csr-csv", str(csr_csv), "--host", "127.0.0.1",
           "--port", str(port), "--regs"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(rows)                         # every register read, in file order
    for line, row in zip(lines, rows):
        assert line.startswith(f"0x{int(row[2], 16):08x} : 0x") and line.endswith(f" {row[1]}")
    values = {line.split()[3]: int(line.split()[2], 16) for line in lines}
    assert values["sys_id"] == ident
    assert values["sys_version"] == R.VERSION

    cmd[-1] = "--ident"                                    # identifier_mem, one character per word
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    params = dict(hil_model_params)
    from permnet.hdl.hil.top import HilTop

    assert proc.stdout.strip("\0\n") == HilTop(params.pop("design"), **params).identifier()
