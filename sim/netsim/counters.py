"""The counters of the live-traffic network design (:mod:`permnet.hdl.hil.netgen`) as the
simulator predicts them: the simulator is fed the generators' trace
(:func:`permnet.gen.hil.netgen.trace`, ``TRACE`` kind) and its per-packet log is summed per
node, counter for counter."""

from __future__ import annotations

from permnet.gen.errors import require
from permnet.sim.netsim.run import Config, simulate
from permnet.sim.netsim.traffic import parse_trace

__all__ = ["COUNTERS", "predict"]

COUNTERS = ("gen_packets", "inj_packets", "inj_flits", "ej_packets", "ej_flits", "lat_sum", "lat_max",
            "misdelivered", "payload_errors", "dropped")


def predict(net, rows, config: Config, at: int | None = None) -> dict:
    """``{counter: [value per node]}`` after the trace ``rows`` ``(cycle, src, dst, size)`` has
    been delivered (``at``: the counters as read in cycle ``at``, which must be after the last
    delivery), plus ``"cycles"``: the cycle after the last delivery. The injection counters
    count every packet (the simulator's source queues hold the whole trace); misdelivered,
    payload errors and drops are 0 in the model."""
    table = net.table if hasattr(net, "table") else net
    M = table.M
    out = {name: [0] * M for name in COUNTERS}
    if not rows:
        return out | {"cycles": 0}
    text = "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows)
    ref = simulate(net, parse_trace(text, M), 1.0, Config(**{**config.__dict__, "log": len(rows) + 1}))
    require(not ref.deadlock and len(ref.log) == len(rows), "the simulator did not deliver the whole trace")
    last = int(max(a[4] for a in ref.log))
    require(at is None or at >= last, f"counters read in cycle {at}, before the last delivery ({last})")
    for c, s, d, z in rows:
        out["gen_packets"][s] += 1
        out["inj_packets"][s] += 1
        out["inj_flits"][s] += z
    for serial, src, dst, t0, t1, hops, size in (map(int, a) for a in ref.log):
        out["ej_packets"][dst] += 1
        out["ej_flits"][dst] += size
        out["lat_sum"][dst] += t1 - t0
        out["lat_max"][dst] = max(out["lat_max"][dst], t1 - t0)
    return out | {"cycles": last}
