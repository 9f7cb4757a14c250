"""A network of deflection routers on wire planes (issue 41): M
:class:`permnet.hdl.deflect.DeflectionRouter` joined by the S planes, with an
AXI-Stream injection port and E ejection ports per node.

Output y of node n drives input y of node ``planes[y][n]`` through wires, so a
hop takes the routers' P register stages (the spec's ``hop_cycles`` K = P).
The network's function, cycle for cycle, is every node's
:func:`permnet.gen.routing.deflection.route_step` on the flits its inputs
carry, the outputs reaching the next nodes' inputs P cycles later
(``tests/hdl/test_deflect_net.py`` holds it against that loop).
"""

from __future__ import annotations

import numpy as np
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from permnet.gen.errors import require
from permnet.hdl.deflect import DeflectionRouter

__all__ = ["DeflectionNetwork", "MAX_NODES"]

MAX_NODES = 64


class DeflectionNetwork(wiring.Component):
    """M deflection routers on the S wire ``planes`` (``planes[y][n]``: the node output y of n
    reaches).

    Ports
    -----
    ``inj[n]`` (in, ``lib.stream`` of ``dst, payload``): node n's injection port, router n's
    (``ready`` = a slot of router n is free this cycle; a flit taken in cycle t is on an output
    register from t + P). ``ej[n][e]`` (out, ``lib.stream`` of ``src, payload``): node n's
    ejection port e, router n's (a flit ejected in cycle t is valid from t + 1, held until
    taken). ``ejection``, ``width``, ``stages`` and ``cells`` are the routers'
    (:class:`permnet.hdl.deflect.DeflectionRouter`, whose docstring gives each stage's latency
    and the livelock bound); every router has the same age width.

    Timing: a flit injected at node s in cycle t and delivered along h hops is ejected at its
    destination in cycle t + P h at the earliest (no deflection) and valid on ``ej`` from the
    next cycle.
    """

    def __init__(self, planes, *, ejection: int = 2, width: int = 32, stages: int = 1, cells: str = "generic"):
        arr = np.asarray(planes, dtype=np.int64)
        require(arr.ndim == 2, "planes must be S lists of M nodes")
        S, M = arr.shape
        require(M <= MAX_NODES, f"the RTL network is for small networks (M <= {MAX_NODES}), got {M}")
        require(all(sorted(row) == list(range(M)) for row in arr.tolist()),
                "every plane must be a permutation of the nodes (wire planes join each output to one input)")
        self.planes, self.S, self.M = arr.tolist(), S, M
        self.routers = [DeflectionRouter(self.planes, n, ejection=ejection, width=width, stages=stages, cells=cells)
                        for n in range(M)]
        r0 = self.routers[0]
        self.E, self.P, self.K, self.age_bits = r0.E, r0.P, r0.K, r0.age_bits
        super().__init__({"inj": In(r0.inj.signature.flip()).array(M),
                          "ej": Out(r0.ej[0].signature).array(M, ejection)})

    def elaborate(self, platform):
        m = Module()
        for n, r in enumerate(self.routers):
            m.submodules[f"router{n}"] = r
            wiring.connect(m, wiring.flipped(self.inj[n]), r.inj)
            for e in range(self.E):
                wiring.connect(m, r.ej[e], wiring.flipped(self.ej[n][e]))
        for y in range(self.S):
            for n in range(self.M):
                wiring.connect(m, self.routers[n].o[y], self.routers[self.planes[y][n]].i[y])
        return m
