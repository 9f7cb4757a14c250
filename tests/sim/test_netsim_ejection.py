"""The simulator's one-port ejection (``Config(ejection="port")``, issue 24), the
model of the RTL's stream endpoints: at most one flit per node per cycle,
packets ejected whole one after the other; the compiled loop equals the same
loop in CPython in that mode too."""

import json

import numpy as np
import pytest

from netsim_helpers import compiled_equals_cpython, run_main
from permnet.gen.routing import tables
from permnet.sim import netsim
from permnet.sim.netsim import kernel


def hot_trace(M, sizes, seed):
    """Every other node sends to node 0 in the same few cycles: packets meet at node 0."""
    rng = np.random.default_rng(seed)
    rows = [(int(rng.integers(0, 4)), s, 0, int(rng.choice(sizes))) for s in range(1, M) for _ in range(2)]
    rows = sorted(set((c + 4 * i, s, d, z) for i, (c, s, d, z) in enumerate(rows)))
    return "".join(f"{c} {s} {d} {z}\n" for c, s, d, z in rows), len(rows)


@pytest.mark.parametrize("switching,buffer", [("vct", 4), ("wormhole", 2)])
def test_one_port_ejects_packets_one_after_the_other(switching, buffer):
    """At node 0 the tails of packets of sizes z_i leave at d_i - 1 with d_i - z_i >= d_(i-1):
    the ejection intervals never overlap (one flit per cycle, a packet held head to tail);
    with per-VC ejection they do."""
    net = tables.network("ldi", 9, 3)
    text, n = hot_trace(9, [2, 3, 4], seed=1)
    runs = {}
    for ej in ("port", "vc"):
        r = netsim.simulate(net, netsim.parse_trace(text, 9), 1.0,
                            netsim.Config(buffer=buffer, switching=switching, lanes=1, ejection=ej, log=n + 1))
        assert not r.deadlock and len(r.log) == n
        done = sorted((int(a[4]), int(a[6])) for a in r.log)
        runs[ej] = all(d - z >= prev for (prev, _), (d, z) in zip(done, done[1:]))
    assert runs == {"port": True, "vc": False}


def test_compiled_loop_equals_cpython_with_one_ejection_port():
    stats = compiled_equals_cpython(tables.network("ldi", 9, 3).table, lanes=1, eject_port=True)
    assert stats[kernel.STAT_FIELDS.index("delivered")] > 20


def test_cli_ejection_port(capsys):
    base = ["netsim", "-M", "8", "-S", "2", "--load", "0.1", "--cycles", "300", "--warmup", "50", "--lanes", "1",
            "--json"]
    r = run_main(base + ["--ejection", "port"], capsys)
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.output)["delivered"] > 0
    r = run_main(base + ["--ejection", "both"], capsys)
    assert r.exit_code == 2 and "ejection" in r.stderr
