`timescale 1ns/1ps
// Node s sends 3 packets of 2 flits, packet k to node (s + 1 + k) mod 4;
// flit data = s << 12 | dest << 8 | k << 4 | flit; every output checks each flit it receives.
module tb;
  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  reg  [3:0] in_valid, in_last; wire [3:0] in_ready;
  reg  [15:0] in_data [0:3]; reg [1:0] in_dest [0:3];
  wire [3:0] out_valid, out_last; wire [15:0] out_data [0:3];
  wire [1:0] out_src [0:3];
  wire dest_error;
  ldi_network_stream dut(.clk(clk), .rst(rst), .dest_error(dest_error),
    .n0_in_tvalid(in_valid[0]),
    .n0_in_tready(in_ready[0]),
    .n0_in_tdata(in_data[0]),
    .n0_in_tlast(in_last[0]),
    .n0_in_tdest(in_dest[0]),
    .n0_out_tvalid(out_valid[0]),
    .n0_out_tready(1'b1),
    .n0_out_tdata(out_data[0]),
    .n0_out_tlast(out_last[0]),
    .n0_out_tdest(out_src[0]),
    .n1_in_tvalid(in_valid[1]),
    .n1_in_tready(in_ready[1]),
    .n1_in_tdata(in_data[1]),
    .n1_in_tlast(in_last[1]),
    .n1_in_tdest(in_dest[1]),
    .n1_out_tvalid(out_valid[1]),
    .n1_out_tready(1'b1),
    .n1_out_tdata(out_data[1]),
    .n1_out_tlast(out_last[1]),
    .n1_out_tdest(out_src[1]),
    .n2_in_tvalid(in_valid[2]),
    .n2_in_tready(in_ready[2]),
    .n2_in_tdata(in_data[2]),
    .n2_in_tlast(in_last[2]),
    .n2_in_tdest(in_dest[2]),
    .n2_out_tvalid(out_valid[2]),
    .n2_out_tready(1'b1),
    .n2_out_tdata(out_data[2]),
    .n2_out_tlast(out_last[2]),
    .n2_out_tdest(out_src[2]),
    .n3_in_tvalid(in_valid[3]),
    .n3_in_tready(in_ready[3]),
    .n3_in_tdata(in_data[3]),
    .n3_in_tlast(in_last[3]),
    .n3_in_tdest(in_dest[3]),
    .n3_out_tvalid(out_valid[3]),
    .n3_out_tready(1'b1),
    .n3_out_tdata(out_data[3]),
    .n3_out_tlast(out_last[3]),
    .n3_out_tdest(out_src[3]));
  integer sent [0:3];   // flits node s has sent
  integer got [0:3];    // flits of the packet arriving at node d so far
  integer packets = 0, errors = 0, cycle = 0, s, d, k;
  initial begin
    for (s = 0; s < 4; s = s + 1) begin sent[s] = 0; got[s] = 0; end
  end
  always @(*) for (s = 0; s < 4; s = s + 1) begin
    k = sent[s] / 2;
    d = (s + 1 + k) % 4;
    in_valid[s] = !rst && sent[s] < 6;
    in_last[s] = sent[s] % 2;
    in_dest[s] = d;
    in_data[s] = (s << 12) | (d << 8) | (k << 4) | (sent[s] % 2);
  end
  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (cycle == 4) rst <= 0;   // reset for 5 cycles, released like any register (no race with the DUT)
    for (s = 0; s < 4; s = s + 1) if (in_valid[s] && in_ready[s]) sent[s] = sent[s] + 1;
    for (d = 0; d < 4; d = d + 1) if (out_valid[d]) begin
      if (out_data[d][15:12] != out_src[d] || out_data[d][11:8] != d || out_data[d][3:0] != got[d]
          || out_last[d] != (got[d] == 1)) begin
        errors = errors + 1;
        $display("bad flit at node %0d: data %h source %0d", d, out_data[d], out_src[d]);
      end
      got[d] = out_last[d] ? 0 : got[d] + 1;
      if (out_last[d]) packets = packets + 1;
    end
    if (packets == 12 || cycle == 3000) begin
      if (packets == 12 && errors == 0 && !dest_error)
        $display("PASS: %0d packets arrived in %0d cycles", packets, cycle);
      else $display("FAIL: %0d of 12 packets, %0d bad flits, dest_error %0d", packets, errors, dest_error);
      $finish;
    end
  end
endmodule
