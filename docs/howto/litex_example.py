"""The RemoteClient example of docs/howto/litex.md: python docs/howto/litex_example.py [PORT]."""

import sys

from litex import RemoteClient

port = int(sys.argv[1]) if len(sys.argv) > 1 else 1234      # litex_server --bind-port

bus = RemoteClient(host="127.0.0.1", port=port, csr_csv="out/csr.csv")
bus.open()
print(f"sys_id      {bus.regs.sys_id.read():#010x}")
bus.regs.sys_scratch.write(0xC0FFEE42)
print(f"sys_scratch {bus.regs.sys_scratch.read():#010x}")

# load the crossbar: egress e takes ingress perm[e] (bit 31: connected)
perm = [3, 0, 1, 2, 7, 4, 5, 6]
bus.write(bus.regs.xbar_cfg.addr, [i | 1 << 31 for i in perm])   # every address of the window pushes
bus.regs.xbar_ctrl.write(1)                                       # commit
bus.regs.xbar_rb_ctrl.write(1)                                    # tag mode: ingress k carries k + 1
while not bus.regs.xbar_rb_ctrl.read() & 2:                       # wait for the capture
    pass
print("tags", [getattr(bus.regs, f"xbar_rb{e}").read() for e in range(8)])
bus.regs.xbar_rb_ctrl.write(0)
bus.close()
