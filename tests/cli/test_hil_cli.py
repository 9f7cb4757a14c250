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
    (``identifier_mem``) is its block's ``csr_base`` row."""
    assert main(["hil", "regmap", "--design", "all", "--ports", "16", "--size", "8"]) == 0
    md = capsys.readouterr().out
    assert main(["hil", "regmap", "--design", "all", "--ports", "16", "--size", "8", "-o",
                 str(tmp_path / "csr.csv")]) == 0
    csv = (tmp_path / "csr.csv").read_text()
    md_regs = {}
    for m in re.finditer(r"\| `(0x[0-9a-f]+)` \| `(\w+)` \| \w+ \| (\d+)( \((window|array|memory)\))?", md):
        addr, name, count = int(m.group(1), 16), m.group(2), int(m.group(3))
        if m.group(5) == "memory":                        # LiteX sees a memory by its csr_base only
            assert f"csr_base,{name.removesuffix('_data')},0x{4 * addr:08x},," in csv
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
