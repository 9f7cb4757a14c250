"""OCS fabrics: LDI(4096,8) compiled onto 64-port devices (a three-stage Clos
network per plane, 1,536 devices) with the end-to-end simulation, and the
minimal-change reconfiguration after four node failures.

Baseline for the compile: the same placement and simulation, but each Clos
network routed the textbook way, peeling k perfect matchings one after the
other (Hall's theorem; scipy's maximum_bipartite_matching) instead of the
Euler-split/Alon edge colouring.  Baseline for the reconfiguration:
compiling afresh (what it is compared with in changed cross-connects).
"""

from __future__ import annotations

import time

import numpy as np

from registry import best_time, case

M, S, PORTS, FAILED = 4096, 8, 64, [1, 2, 3, 4]


def _inventory(ports=PORTS, count=1536):
    from permnet.gen.fabric.inventory import Device
    return [Device(f"ocs-{i + 1}", ports, protocol="sonic", model="sonic-64", egress_offset=0)
            for i in range(count)]


def _compile():
    from permnet.gen.fabric.compile import compile_fabric   # includes check_fabric (the simulation)
    from permnet.gen.planes.decompose import ldi_planes
    return compile_fabric(ldi_planes(M, S).planes, _inventory(), {"family": "ldi"})


def _peel_colouring(left, right, n):
    """k-edge colouring of a k-regular bipartite multigraph by k successive perfect matchings."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    m = len(left)
    k = m // n
    colour = np.full(m, -1, dtype=np.int64)
    for c in range(k):
        free = np.nonzero(colour < 0)[0]
        g = csr_matrix((np.ones(len(free)), (left[free], right[free])), shape=(n, n))
        match = maximum_bipartite_matching(g, perm_type="column")
        # one free parallel edge per matched pair
        key = left[free] * n + right[free]
        want = np.arange(n) * n + match
        order = np.argsort(key, kind="stable")
        pos = np.searchsorted(key[order], want)
        colour[free[order[pos]]] = c
    return colour


def _compile_peel():
    import permnet.gen.fabric.clos as clos
    saved = clos.edge_colour_regular_bipartite
    clos.edge_colour_regular_bipartite = _peel_colouring
    try:
        return _compile()
    finally:
        clos.edge_colour_regular_bipartite = saved


@case(f"fabric: compile LDI({M},{S}) onto {PORTS}-port OCS (Clos, + simulation)", "<= 10 s")
def bench_compile():
    ours, fab = best_time(_compile, repeat=2)
    base, fab2 = best_time(_compile_peel, repeat=1)
    assert len(fab.used) == 1536 and len(fab2.used) == 1536
    return ours, base, "matching-peel routing"


def _reconfigure_case():
    from permnet.gen.fabric.compile import compile_fabric
    from permnet.gen.fabric.reconfig import reconfigure
    from permnet.gen.planes.faults import reembed_planes

    fab = _compile()
    target = reembed_planes(M, S, FAILED)
    t = time.perf_counter()
    rec = reconfigure(fab, target)
    ours = time.perf_counter() - t
    t = time.perf_counter()
    compile_fabric(target, fab.devices)
    base = time.perf_counter() - t
    return ours, base, rec


@case(f"fabric: reconfigure LDI({M},{S}) after 4 failures (minimal change)", "report")
def bench_reconfigure():
    ours, base, _ = _reconfigure_case()
    return ours, base, "compile afresh"


def table(args):
    from permnet.gen.fabric.simulate import compose

    _compile()                      # warm-up (numba compiles on first use)
    t = time.perf_counter()
    fab = _compile()
    t_compile = time.perf_counter() - t
    c = compose(fab)
    import tempfile
    from permnet.fabric import write_fabric
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        write_fabric(fab, f"{tmp}/fab")
        t_write = time.perf_counter() - t
    ours, _, rec = _reconfigure_case()
    rows = [[f"compile LDI({M},{S}) on {PORTS}-port devices", len(fab.used), len(fab.cables), int(c.passes.max()),
             fab.crossconnects(), "", "", "", f"{t_compile:.2f}"],
            ["write the folder (fabric.json, 1,536 device files, cabling, BOM)", "", "", "", "", "", "", "",
             f"{t_write:.2f}"],
            [f"reconfigure after failures {FAILED}", len(fab.used), len(fab.cables), int(c.passes.max()),
             rec.fabric.crossconnects(), rec.changed, rec.kept, rec.from_scratch_changed, f"{ours:.2f}"]]
    return ("OCS fabric: LDI(4096,8) on 64-port switches",
            ["case", "devices", "cables", "max passes", "cross-connects", "changed", "kept",
             "from-scratch changed", "time (s)"], rows)
