"""Independent oracles for the deadlock analysis and the network simulator
(issue 14): routes come from :func:`permnet.gen.topologies.ldi.route`
walked link by link, never from the routing tables under test."""

from __future__ import annotations

import numpy as np

from permnet.gen.topologies import ldi


def plane_of_link(planes: np.ndarray, u: int, v: int) -> int:
    """Lowest plane carrying u -> v (by scanning the planes)."""
    for y in range(planes.shape[0]):
        if planes[y][u] == v:
            return y
    raise AssertionError(f"no plane carries {u} -> {v}")


def ldi_routes(M: int, S: int):
    """{(src, dst): node path} from ldi.route (auto method, shortcuts on)."""
    return {(s, d): ldi.route(M, S, s, d).paths[0] for s in range(M) for d in range(M)}


def channels_of_path(path, planes, vcs: int):
    """[((node, plane), vc), ...] of a node path under hop-indexed VCs."""
    return [((u, plane_of_link(planes, u, v)), min(k, vcs - 1)) for k, (u, v) in enumerate(zip(path, path[1:]))]


def dependency_set(routes, planes, vcs: int) -> set:
    """Every (channel, next channel) pair some route uses."""
    deps = set()
    for path in routes.values():
        ch = channels_of_path(path, planes, vcs)
        deps.update(zip(ch, ch[1:]))
    return deps


class Ran:
    def __init__(self, code, out, err):
        self.exit_code, self.output, self.stderr = code, out, err


def run_main(argv, capsys) -> Ran:
    """Run the CLI in-process (no interpreter start-up): exit code, stdout, stderr."""
    from permnet.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:          # sys.exit(1) for a mismatch, as the console script sees it
        code = exc.code
    out = capsys.readouterr()
    return Ran(code, out.out, out.err)


def compiled_equals_cpython(table, *, lanes: int, kind: int = 0, cdf=None, eject_port: bool = False,
                            input_first: bool = False, two_stage: bool = False, separate_va: bool = False):
    """Run the kernel (:func:`permnet.sim.netsim.kernel.simulate`) and the same loop in CPython
    (``simulate.py_func``) on ``table`` (2 VCs, 4-flit buffers, load 0.5, 2-flit packets, 20 warm-up
    and 60 measured cycles, seed 3) and assert every output array is equal; returns the stats.
    Every argument is passed with the types :func:`permnet.sim.netsim.simulate` passes, so the
    kernel compiled here is the one the library uses (one numba compilation, not one per caller)."""
    from permnet.sim.netsim import kernel

    S, M = table.planes.shape
    up = np.empty_like(table.planes)
    for y in range(S):
        up[y, table.planes[y]] = np.arange(M)
    e = np.zeros(0, dtype=np.int64)
    args = (table.planes, up, table.length, table.hops, 2, 4, False, lanes, 16, kind,
            np.zeros(1, np.int64), 0.5, 2, 0, 0.0, np.zeros((1, 1)) if cdf is None else cdf, e, e, e, e,
            20, 60, 200, 100, 3, 1000, bool(eject_port), 0, 0, bool(input_first), bool(two_stage),
            bool(separate_va), np.zeros(1, np.int64))
    fast, slow = kernel.simulate(*args), kernel.simulate.py_func(*args)
    for x, y in zip(fast, slow):
        assert np.array_equal(x, y)
    return fast[0]
