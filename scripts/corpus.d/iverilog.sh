# iverilog: Icarus Verilog (Debian's iverilog: the compiler /usr/bin/iverilog and the
# simulator /usr/bin/vvp) simulating a clocked digital design, cycle by cycle. The
# design is CORES multiply-accumulate cores, each fed by its own 32-bit LFSR (initial
# states drawn with Verilog's $random from the +seed plusarg), all on one clock; the
# testbench (Verilog's own loop) prints a checksum of the accumulators every CYCLES
# clock cycles: one block of cycles is a unit. The design is compiled once per stratum
# before the runs (iverilog -P sets CORES and CYCLES); vvp, event-driven and
# single-threaded, is the program measured. Cost per unit is constant (a control): every
# block is the same number of cycles of the same logic, every register toggling alike,
# whatever the seed. Two sizes: cores=8 (4000 cycles a block) and cores=64 (2000).
# vvp's stdout to the pipe: the testbench calls $fflush after each line.

corpus_apt_iverilog=(iverilog)

run_iverilog() {
    cat >"$DRIVERS/iverilog_mac.v" <<'EOF'
// Icarus Verilog: CORES multiply-accumulate cores, each fed by its own 32-bit LFSR
// (initial states from $random of the +seed plusarg), clocked together; the testbench
// prints a checksum of the accumulators every CYCLES cycles, +blocks times, then ends.
module core(input clk, input rst, input [31:0] init, output reg [31:0] acc);
  reg [31:0] lfsr;
  always @(posedge clk)
    if (rst) begin lfsr <= init | 32'h1; acc <= 32'h0; end
    else begin
      lfsr <= {lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]};
      acc <= (acc ^ (acc >> 7)) + lfsr[15:0] * lfsr[31:16];
    end
endmodule

module tb;
  parameter CORES = 8;
  parameter CYCLES = 1000;
  reg clk = 0, rst = 1;
  reg [31:0] inits [0:CORES-1];
  wire [31:0] accs [0:CORES-1];
  integer seed, blocks, b, k;
  reg [31:0] sum;
  genvar g;
  generate for (g = 0; g < CORES; g = g + 1) begin : c
    core u(.clk(clk), .rst(rst), .init(inits[g]), .acc(accs[g]));
  end endgenerate
  always #5 clk = ~clk;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("blocks=%d", blocks)) blocks = 10;
    for (k = 0; k < CORES; k = k + 1) inits[k] = $random(seed);
    @(posedge clk); @(posedge clk); #1 rst = 0;
    for (b = 1; b <= blocks; b = b + 1) begin
      repeat (CYCLES) @(posedge clk);
      #1 sum = 0;
      for (k = 0; k < CORES; k = k + 1) sum = sum ^ accs[k];
      $display("block %0d cycles %0d checksum %h", b, b * CYCLES, sum);
      $fflush;
    end
    $finish;
  end
endmodule
EOF
    local v
    v=$(/usr/bin/iverilog -V 2>&1 | sed -n 's/^Icarus Verilog version \([0-9.]*\).*/Icarus Verilog \1/p' | head -1)
    local -A full=([8]=100 [64]=30) probe=([8]=2 [64]=10) cycles=([8]=4000 [64]=2000)
    local cores
    for cores in 8 64; do
        /usr/bin/iverilog -g2005 -P "tb.CORES=$cores" -P "tb.CYCLES=${cycles[$cores]}" \
            -o "$INPUTS/iverilog-mac-$cores.vvp" "$DRIVERS/iverilog_mac.v"
        record iverilog "digital logic simulation (Verilog)" "$v" "apt:iverilog" \
            "constant (control): every unit simulates the same number of clock cycles of the same design" \
            "cores=$cores" '^block \d+ cycles ' "${probe[$cores]}" "${full[$cores]}" natural -- \
            /usr/bin/vvp -n "$INPUTS/iverilog-mac-$cores.vvp" '+seed={rep}' +blocks=@N@
    done
}
