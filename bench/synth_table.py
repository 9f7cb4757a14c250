"""``make synth``: synthesis estimates for a standard set of sizes.

Writes build/synth/synth.json and build/synth/synth.md (LUTs, FFs, Fmax on
ECP5 and iCE40 for next-hop units, crossbar planes and Beneš networks; on
ECP5 only for the whole LDI(16,4) network of ``permnet rtl network``, which
is far larger than the iCE40 UP5K: about 55,000 LUT4s of the LFE5U-85F's
83,640; 5 minutes of yosys and, with router2, 13 of nextpnr on the 2-core
machine, so the whole ``make synth`` took 25 minutes).
"""

import json
import sys
from pathlib import Path

from permnet.fileio import markdown_table
from permnet.hdl import emit
from permnet.hdl.synth import synthesize

BOTH = ("ecp5", "ice40")


def _network(M, S):
    from permnet.rtlnet import network

    # as `permnet synth network --nodes M --degree S --packets 16 --span 8`
    return network(M, S, packets=16, span=8)


# (name, generator[, targets]): both targets unless listed
CASES = [
    ("nexthop LDI(18,3) p1", lambda: emit.nexthop(18, 3)),
    ("nexthop LDI(4096,8) p1", lambda: emit.nexthop(4096, 8)),
    ("nexthop LDI(3000,10) p1", lambda: emit.nexthop(3000, 10)),
    ("nexthop LDI(3000,10) p4", lambda: emit.nexthop(3000, 10, pipeline=4)),
    ("nexthop LDI(3000,10) p13 (every level registered)", lambda: emit.nexthop(3000, 10, pipeline=13)),
    ("nexthop LDI(3000,10) p1 parallel digits", lambda: emit.nexthop(3000, 10, digits="parallel")),
    ("nexthop table LDI(20,3)", lambda: emit.nexthop(20, 3, variant="table")),
    ("crossbar 8x8", lambda: emit.crossbar(8, 8)),
    ("crossbar 16x8", lambda: emit.crossbar(16, 8)),
    ("crossbar 8x8, 4 slots", lambda: emit.crossbar(8, 8, slots=4)),
    ("benes 8x8", lambda: emit.benes(8, 8)),
    ("benes 16x8 pipelined 0x55", lambda: emit.benes(16, 8, pipeline_mask=0x55)),
    ("waksman 12x8", lambda: emit.benes(12, 8, network="waksman")),
    ("network LDI(16,4), 16 packets", lambda: _network(16, 4), ("ecp5",)),
]


def main(out="build/synth"):
    rows = []
    for name, make, *targets in CASES:
        for target in targets[0] if targets else BOTH:
            r = synthesize(make().component, target)
            rows.append({"case": name, **r})
            print(rows[-1], flush=True)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "synth.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = markdown_table(["case", "target", "LUTs", "FFs", "Fmax (MHz)"],
                           [[r["case"], r["target"], r["luts"], r["ffs"], r["fmax_mhz"]] for r in rows])
    (out / "synth.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:])
