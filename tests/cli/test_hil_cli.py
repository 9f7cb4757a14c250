"""``permnet hil regmap`` / ``permnet rtl hil`` / ``permnet board --design hil --no-build``:
the register map is consistent (Markdown and CSV list the same registers,
no two overlap), the emitted Verilog has the ports the option asks for, and
the board build files carry the UART pins of the constraint file."""

import re
import sys
from pathlib import Path

import pytest

from permnet.cli import main


def test_regmap_markdown_and_csv_agree_and_do_not_overlap(tmp_path, capsys):
    """The CSV (LiteX's csr.csv) has one 32-bit row per Markdown register,
    per element of an array (``xbar_rb0`` ...) and one per window; a memory
    (``identifier_mem``) is a ``memory_region`` row and its block's ``csr_base`` row."""
    assert main(["hil", "regmap", "--design", "all", "--ports", "16", "--size", "8"]) == 0
    md = capsys.readouterr().out
    assert main(["hil", "regmap", "--design", "all", "--ports", "16", "--size", "8", "-o",
                 str(tmp_path / "csr.csv")]) == 0
    csv = (tmp_path / "csr.csv").read_text()
    md_regs = {}
    for m in re.finditer(r"\| `(0x[0-9a-f]+)` \| `(\w+)` \| \w+ \| (\d+)( \((window|array|memory)\))?", md):
        addr, name, count = int(m.group(1), 16), m.group(2), int(m.group(3))
        if m.group(5) == "memory":                        # LiteX sees a memory as a memory region
            assert f"memory_region,{name},0x{4 * addr:08x},{4 * count},io" in csv
            assert f"csr_base,{name.removesuffix('_data')},0x{4 * addr:08x},," in csv   # identifier_mem
        elif m.group(5) != "array":
            md_regs[name] = addr
        else:
            md_regs.update({f"{name}{i}": addr + i for i in range(count)})
    csv_regs = {}
    for line in csv.splitlines():
        if line.startswith("csr_register,"):
            _, name, byte_addr, size, _ = line.split(",")
            assert size == "1"
            csv_regs[name] = int(byte_addr, 16) // 4
    assert md_regs == csv_regs and len(md_regs) >= 30
    addrs = sorted(csv_regs.values())
    assert len(set(addrs)) == len(addrs), "registers overlap"
    assert "xbar_rb15" in csv_regs and "xbar_rb16" not in csv_regs and "benes_rb7" in csv_regs
    assert "benes_chunk0" in csv_regs                     # an array of one element keeps its index
    constants = dict(line.split(",")[1:3] for line in csv.splitlines() if line.startswith("constant,"))
    assert constants["config_csr_data_width"] == "32" and constants["config_bus_address_width"] == "32"
    assert all(len(line.split(",")) == 5 for line in csv.splitlines() if not line.startswith("#"))


def test_rtl_hil_ports(tmp_path, capsys):
    out = tmp_path / "hil.v"
    assert main(["rtl", "hil", "--design", "nexthop", "--uart-divisor", "8", "-o", str(out)]) == 0
    text = out.read_text()
    assert re.search(r"module hil_top\(.*uart_tx.*\);", text) and "uart_rx" in text
    assert main(["rtl", "hil", "--design", "crossbar", "-o", str(out)]) == 0
    assert "rx__payload" in out.read_text() and "tx__valid" in out.read_text()


def test_rtl_hil_rejects_a_width_too_small_for_tags(tmp_path, capsys):
    assert main(["rtl", "hil", "--ports", "16", "--width", "3", "-o", str(tmp_path / "x.v")]) == 2
    assert "data width >= 5" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_board_hil_build_files_have_uart_pins(tmp_path, capsys):
    out = tmp_path / "b"
    assert main(["board", "ulx3s", "--design", "hil", "--no-build", "-o", str(out)]) == 0
    lpf = (out / "permnet_hil.lpf").read_text()
    assert re.search(r'LOCATE COMP "uart_rx_0__io" SITE "L4"', lpf)
    assert re.search(r'LOCATE COMP "uart_tx_0__io" SITE "M1"', lpf)


def test_board_takes_the_network_options_of_hil_sim(tmp_path, capsys):
    """``permnet board --design hil --hil-design network`` builds the network design with the
    options of ``permnet hil sim``: LDI(4,2) has four routers, a plane set and a swap controller,
    their configuration ports addressed by the netplanes registers (planes loadable over the UART)."""
    out = tmp_path / "b"
    assert main(["board", "ulx3s", "--design", "hil", "--hil-design", "network", "-M", "4", "-S", "2",
                 "--planes", "crossbar", "--width", "8", "--no-build", "-o", str(out)]) == 0
    il = (out / "permnet_hil.il").read_text()
    modules = set(re.findall(r"^module \\(\S+)", il, re.M))
    assert {m.rsplit(".", 1)[1] for m in modules if ".net.ip.router" in m} == {f"router{n}" for n in range(4)}
    assert "permnet_hil.hil.net.ip.planes" in modules and "permnet_hil.hil.net.ip.swapctl" in modules
    # netplanes' address registers select the plane (S = 2: bit 16) and the router (M = 4: bits 17:16)
    assert re.search(r"connect \\cfg__plane \\np_plane_addr \[16\]\n", il)
    assert re.search(r"connect \\rt__node \\np_rt_addr \[17:16\]\n", il)
    assert re.search(r'LOCATE COMP "uart_rx_0__io" SITE "L4"', (out / "permnet_hil.lpf").read_text())


@pytest.mark.parametrize("args,message", [
    (["--design", "hil", "--hil-design", "network", "-M", "4", "-S", "2", "--planes", "crossbar", "--vcs", "1"],
     "--vcs 1 is below the longest route"),
    (["--design", "hil", "--hil-design", "crossbar", "--planes", "crossbar"], "options of the network design"),
    (["--planes", "crossbar", "-M", "4"], "--nodes, --planes: option(s) of --design hil"),
])
def test_board_bad_hil_options_fail_in_one_line(tmp_path, capsys, args, message):
    out = tmp_path / "b"
    assert main(["board", "ulx3s", *args, "--no-build", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_board_and_hil_sim_share_the_hil_options():
    """Every HIL-parameter option of ``permnet hil sim`` is an option of ``permnet board`` with the
    same flags, type and default (one definition: they cannot drift)."""
    from permnet.cli.board import board
    from permnet.cli.hil import sim

    own = {"listen", "faults", "max_seconds", "opt", "build_dir", "design"}
    sim_params = {p.name: p for p in sim.params if p.name not in own}
    board_params = {p.name: p for p in board.params}
    assert {"M", "S", "planes_kind", "vcs", "width", "network"} <= set(sim_params)
    for name, p in sim_params.items():
        q = board_params[name]
        assert (q.opts, q.default, repr(q.type)) == (p.opts, p.default, repr(p.type)), name


def test_hil_sim_listen_is_loopback_only(capsys):
    assert main(["hil", "sim", "--listen", "0.0.0.0:4000"]) == 2
    assert "127.0.0.1" in capsys.readouterr().err


@pytest.mark.slow
def test_board_hil_bitstream(tmp_path):
    """The HIL top level (8-port crossbar) placed and routed for the iCEBreaker (about 2 minutes)."""
    import os

    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    assert main(["board", "icebreaker", "--design", "hil", "-o", str(tmp_path / "b")]) == 0
    assert (tmp_path / "b" / "permnet_hil.bin").stat().st_size > 1000
