"""Packets of one pair put back in order at the receiver (docs/guide/network-ip.md, "Order").

The sender numbers its packets to each destination with a K-bit counter in the top bits of
tdata; the receiver keeps, per source (tdest of its output stream), the number it expects next
and parks the beats that come early. The beats here are those the simulator delivers on
LDI(16,4) with deflection routers (uniform traffic at load 0.5, one ejection port, tready high).
"""

import random

from permnet.gen.routing import tables
from permnet.sim.netsim.deflect import deflection_trace

W, K = 32, 4          # tdata bits; number bits: no packet overtakes one sent 2**K or more packets before it


# --8<-- [start:reorder]
def reorder(beats, k, width):
    """(source, tdata) beats in arrival order, the sender's number of the pair in tdata's top k of
    width bits -> the same beats, each source's in sending order."""
    expect, parked = {}, {}
    for src, data in beats:
        parked[src, data >> (width - k)] = data
        n = expect.get(src, 0)
        while (src, n) in parked:
            yield src, parked.pop((src, n))
            n = (n + 1) % (1 << k)
        expect[src] = n
# --8<-- [end:reorder]


M, S, CYCLES, PAYLOAD = 16, 4, 400, (1 << (W - K)) - 1
rng = random.Random(1)
rows, tdata, sent = [], [], {}
for c in range(CYCLES):
    for s in range(M):
        d = (s + 1 + rng.randrange(M - 1)) % M
        if rng.random() < 0.5:
            pair = sent.setdefault((s, d), [])
            tdata.append(len(pair) % (1 << K) << (W - K) | len(rows))    # the pair's number, the payload
            pair.append(len(rows))
            rows.append((c, s, d))
got = deflection_trace(tables.network("ldi", M, S).planes, rows, cycles=CYCLES + 100, E=1)
assert len(got) == len(rows)
late = 0
for d in range(M):
    beats = [(x.src, tdata[x.serial]) for x in sorted(got, key=lambda x: x.handshake) if x.dst == d]
    newest = {}
    for s, data in beats:
        late += data & PAYLOAD < newest.get(s, -1)
        newest[s] = max(newest.get(s, -1), data & PAYLOAD)
    payloads = {}
    for s, data in reorder(beats, K, W):
        payloads.setdefault(s, []).append(data & PAYLOAD)
    assert all(payloads.get(s, []) == sent.get((s, d), []) for s in range(M))
print(f"{len(rows)} packets, up to {max(map(len, sent.values()))} a pair ({K}-bit numbers): {late} arrived "
      f"after a later packet of the same pair; reordered, every pair's are in sending order")
