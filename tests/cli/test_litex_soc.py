"""``permnet.litex.PermnetNetwork`` in a LiteX ``SoCCore`` without a CPU:
LiteX's own ``Builder`` writes the SoC's Verilog and ``csr.csv``; the
network's CSRs are in that ``csr.csv`` and Verilator lints the whole design
(the network's Verilog beside LiteX's) with every port of the instance
connected at its width."""

import pytest

from litex_helpers import (assert_lints, build_soc, csr_addresses, csr_map, instance, load, readback, run_testbench,
                           sim_soc, tb_head, tb_tail)

pytest.importorskip("litex")

CSRS = {"plane_addr": "rw", "plane_data": "rw", "plane_rdata": "ro", "rt_addr": "rw", "rt_data": "rw",
        "rt_rdata": "ro", "swap": "rw", "status": "ro", "swap_cycles": "ro"}


def test_soc_with_the_network_has_its_csrs_and_lints(tmp_path):
    soc, out = build_soc(tmp_path, nodes=4, degree=2, flit_width=16, planes="crossbar")
    assert len(soc.net.sinks) == len(soc.net.sources) == 4
    assert soc.net.sinks[0].data.nbits == 16 and soc.net.sinks[0].dest.nbits == 2
    base, regs = csr_map(out)
    assert "net" in base
    assert {name: regs[f"net_{name}"][1] for name in CSRS} == CSRS
    assert all(base["net"] <= regs[f"net_{name}"][0] < base["net"] + 0x800 for name in CSRS)

    top = out / "gateware" / "platform.v"
    start, end, inst = instance(top, soc.net.top)
    assert inst.count("\t.n") == 4 * 10           # every stream port of every node connected
    assert_lints(top, sorted((tmp_path / "permnet").glob("*.v")), start, end)


# ---------------------------------------------------------------- simulation (slow)

M, S, W, PACKETS = 4, 2, 16, 3


def sim_testbench(a: dict, before, after) -> str:
    """Read the active planes back over the CSRs (``before``), load ``after`` (plane and
    route words) into the shadows, swap, read back again, then send packets."""
    return tb_head(M, W, last=True, ready=False) + f"""\
  integer got [0:{M - 1}], polls;
  initial begin
    for (s = 0; s < {M}; s = s + 1) begin sent[s] = 0; got[s] = 0; end
    release_reset;
{readback(a, 'net_plane_addr', 'net_plane_rdata', before.planes, "reset")}
{load(a, after.planes, after.routes)}
    wb_write({a['net_swap']}, 1);
    polls = 0; r = 0;
    while (r[31:16] != 1 && polls < 200) begin wb_read({a['net_status']}, r); polls = polls + 1; end
    if (r[31:16] != 1) begin errors = errors + 1; $display("no swap: status %h", r); end
{readback(a, 'net_plane_addr', 'net_plane_rdata', after.planes, "swapped")}
    go = 1;
  end
  always @(*) for (s = 0; s < {M}; s = s + 1) begin
    k = sent[s] / 2;
    d = (s + 1 + k) % {M};
    in_valid[s] = go && sent[s] < {2 * PACKETS};
    in_last[s] = sent[s] % 2;
    in_dest[s] = d;
    in_data[s] = (s << 12) | (d << 8) | (k << 4) | (sent[s] % 2);
  end
  always @(posedge clk) begin
    cycle <= cycle + 1;
    for (s = 0; s < {M}; s = s + 1) if (in_valid[s] && in_ready[s]) sent[s] = sent[s] + 1;
    for (d = 0; d < {M}; d = d + 1) if (out_valid[d]) begin
      if (out_data[d][{W - 1}:12] != out_src[d] || out_data[d][11:8] != d || out_data[d][3:0] != got[d]
          || out_last[d] != (got[d] == 1)) begin
        errors = errors + 1;
        $display("bad flit at node %0d: data %h source %0d", d, out_data[d], out_src[d]);
      end
      got[d] = out_last[d] ? 0 : got[d] + 1;
      if (out_last[d]) packets = packets + 1;
    end
""" + tb_tail(M * PACKETS, 20000, "packets after the swap")


@pytest.mark.slow
def test_soc_loads_planes_over_csrs_and_carries_packets(tmp_path):
    import numpy as np

    from permnet.rtlnet import swap_words, wired_network

    out = sim_soc(tmp_path, nodes=M, degree=S, flit_width=W, planes="crossbar")
    own = np.asarray(wired_network(M, S).planes)
    before = swap_words(M, S, own, "crossbar")                 # what the network holds from reset
    after = swap_words(M, S, own[::-1].copy(), "crossbar")     # its two planes exchanged
    assert sorted(before.planes) != sorted(after.planes)
    stdout = run_testbench(tmp_path, out, sim_testbench(csr_addresses(out), before, after))
    assert f"PASS: {M * PACKETS} packets after the swap" in stdout, stdout[-3000:]
