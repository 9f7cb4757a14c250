"""``permnet.litex.PermnetNetwork(..., switching="deflection")`` in a LiteX ``SoCCore`` without a
CPU, built as a user builds it (LiteX's ``Builder`` writes the SoC's Verilog and ``csr.csv``):
the instance is the deflection network (not the VC network with the option dropped), its CSRs
are the deflection register map of docs/howto/litex-soc.md (a write of ``swap`` commits at once:
no ``swap_cycles``, ``swap`` driving ``cfg__commit``), and Verilator lints the whole SoC with every
port of the instance connected at its width."""

import re

import pytest

from litex_helpers import (assert_lints, build_soc, csr_addresses, csr_map, instance, load, readback, run_testbench,
                           sim_soc, tb_head, tb_tail)

pytest.importorskip("litex")

M, S, W = 4, 2, 16
# the deflection network's register map (docs/howto/litex-soc.md): no swap_cycles, nothing drains
CSRS = {"plane_addr": "rw", "plane_data": "rw", "plane_rdata": "ro", "rt_addr": "rw", "rt_data": "rw",
        "rt_rdata": "ro", "swap": "rw", "status": "ro"}


def test_soc_with_the_deflection_network_has_its_csrs_and_lints(tmp_path):
    soc, out = build_soc(tmp_path, nodes=M, degree=S, flit_width=W, planes="crossbar", switching="deflection")
    (net,) = sorted((tmp_path / "permnet").glob("*.v"))
    assert "//   switching = deflection" in net.read_text().splitlines()[:12]
    assert re.search(r"^module \\?ldi_network_deflection\.net\.router0\b", net.read_text(), re.M)
    assert len(soc.net.sinks) == len(soc.net.sources) == M
    assert soc.net.sinks[0].data.nbits == W and soc.net.sinks[0].dest.nbits == 2
    assert soc.net.ports["rt__data"] == ("input", S)           # a router's productive mask: S bits

    base, regs = csr_map(out)
    regs = {name: reg for name, reg in regs.items() if name.startswith("net_")}
    assert {name[4:]: access for name, (_, access) in regs.items()} == CSRS
    assert all(base["net"] <= addr < base["net"] + 0x800 for addr, _ in regs.values())

    top = out / "gateware" / "platform.v"
    start, end, inst = instance(top, "ldi_network_deflection")
    assert inst.count("\t.n") == M * 10                         # every stream port of every node connected
    commit = re.search(r"\.cfg__commit\s*\((.*?)\)", inst)[1]
    assert re.fullmatch(r"\w*_swap_re", commit), commit         # the swap CSR's write strobe, not a constant
    assert not re.search(r"\.(swap_req|swap_done|idle)\b", inst)

    assert_lints(top, [net], start, end)


# ---------------------------------------------------------------- simulation (slow)

PACKETS, GAP = 200, 2       # per node, one every GAP cycles: traffic flows while the CSRs load and commit


def sim_testbench(a: dict, before: list, after: list, masks: list) -> str:
    """Traffic from the first cycle after reset (one single-flit packet per node every GAP
    cycles, node d's ``tready`` low one cycle in three); meanwhile read the active planes back
    (``before``), load ``after`` and the productive ``masks`` into the shadows, commit (``swap``),
    read the planes and masks back. Every packet must arrive once, at its destination, with
    its source; the packets sent before the commit are printed."""
    return tb_head(M, W, last=False, ready=True) + f"""\
  reg [{PACKETS - 1}:0] seen [0:{M - 1}];
  initial begin
    for (s = 0; s < {M}; s = s + 1) begin sent[s] = 0; seen[s] = 0; end
    release_reset;
    go = 1;
{readback(a, 'net_plane_addr', 'net_plane_rdata', before, "reset")}
{load(a, after, masks)}
    wb_read({a['net_status']}, r);
    if (r[31:16] != 0) begin errors = errors + 1; $display("commits before the swap: status %h", r); end
    wb_write({a['net_swap']}, 1);
    $display("COMMIT at cycle %0d: %0d packets sent, %0d delivered", cycle,
             {" + ".join(f"sent[{s}]" for s in range(M))}, packets);
    wb_read({a['net_status']}, r);
    if (r[31:16] != 1 || r[2:0] != 0) begin errors = errors + 1; $display("after the commit: status %h", r); end
{readback(a, 'net_plane_addr', 'net_plane_rdata', after, "committed")}
{readback(a, 'net_rt_addr', 'net_rt_rdata', masks, "committed")}
  end
  always @(*) for (s = 0; s < {M}; s = s + 1) begin
    d = (s + 1 + sent[s]) % {M};
    in_valid[s] = go && sent[s] < {PACKETS} && cycle % {GAP} == 0;
    in_dest[s] = d;
    in_data[s] = (s << 12) | (d << 8) | sent[s];
    out_ready[s] = (cycle + s) % 3 != 0;
  end
  always @(posedge clk) begin
    cycle <= cycle + 1;
    for (s = 0; s < {M}; s = s + 1) if (in_valid[s] && in_ready[s]) sent[s] = sent[s] + 1;
    for (d = 0; d < {M}; d = d + 1) if (out_valid[d] && out_ready[d]) begin
      s = out_data[d][{W - 1}:12];
      k = out_data[d][7:0];
      if (s != out_src[d] || out_data[d][11:8] != d || !out_last[d] || k >= {PACKETS} || seen[s][k]) begin
        errors = errors + 1;
        $display("bad flit at node %0d: data %h source %0d", d, out_data[d], out_src[d]);
      end else seen[s][k] = 1;
      packets = packets + 1;
    end
""" + tb_tail(M * PACKETS, 40000, "packets, each once")


@pytest.mark.slow
def test_deflection_soc_commits_planes_over_csrs_under_traffic(tmp_path):
    import numpy as np

    from permnet.gen.planes import runtime
    from permnet.hdl.deflect_net import mask_writes
    from permnet.rtlnet import wired_network

    out = sim_soc(tmp_path, nodes=M, degree=S, flit_width=W, planes="crossbar", switching="deflection")
    own = np.asarray(wired_network(M, S).table.planes)
    before = runtime.config_writes("crossbar", own)              # what the network holds from reset
    after = runtime.config_writes("crossbar", own[::-1].copy())  # its two planes exchanged
    masks = mask_writes(own[::-1].copy())
    assert sorted(before) != sorted(after) and masks != mask_writes(own)
    stdout = run_testbench(tmp_path, out, sim_testbench(csr_addresses(out), before, after, masks))
    assert f"PASS: {M * PACKETS} packets, each once" in stdout, stdout[-3000:]
    sent, got = map(int, re.search(r"COMMIT at cycle \d+: (\d+) packets sent, (\d+) delivered", stdout).groups())
    assert 0 < got < sent < M * PACKETS, stdout        # the commit came with flits in flight
