"""The composed fabric, simulated end to end: device cross-connects + cables.

A circuit of plane y starts at node k's transmitter, ``inputs[y, k]`` =
(device, ingress port).  At a device the signal leaves by the egress port
its cross-connect names; an egress port is either cabled to the ingress
port of the next device or is the receiver ``outputs[y', j]`` of node j.
The fabric realises plane y exactly when every circuit of plane y ends at
the receiver of plane y's node ``planes[y, k]`` (and unconnected nodes
reach nothing).  All circuits advance together (numpy), one device per step.

    >>> import numpy as np
    >>> from permnet.gen.fabric.inventory import Device
    >>> from permnet.gen.fabric.compile import compile_fabric
    >>> fab = compile_fabric(np.array([[1, 2, 3, 0, 5, 4]]), [Device(f"s{i}", 4) for i in range(9)])
    >>> c = compose(fab)
    >>> c.realised.tolist(), int(c.passes.max())
    ([[1, 2, 3, 0, 5, 4]], 3)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import require

__all__ = ["Composition", "Break", "compose", "check_fabric", "breaks"]


@dataclass
class Composition:
    """``realised[y, k]``: node reached from node k in plane y (-1: nothing,
    -2: a receiver of another plane); ``passes`` and ``loss_db`` per circuit."""

    realised: np.ndarray
    passes: np.ndarray
    loss_db: np.ndarray


@dataclass
class Break:
    """Where a logical circuit breaks: the first device on its intended path
    whose cross-connect differs."""

    plane: int
    node: int
    device: int
    ingress: int
    expected: int
    found: int

    def as_dict(self) -> dict:
        return dict(plane=self.plane, node=self.node, device=self.device, ingress=self.ingress,
                    expected=self.expected, found=self.found)


def _global(fab, xc):
    off = np.zeros(len(fab.devices) + 1, dtype=np.int64)
    off[1:] = np.cumsum([d.ports for d in fab.devices])
    g = np.full(off[-1], -1, dtype=np.int64)
    for d, row in enumerate(xc):
        require(len(row) == fab.devices[d].ports, f"device {fab.devices[d].name}: {len(row)} ports, "
                f"expected {fab.devices[d].ports}")
        m = row >= 0
        g[off[d] + np.nonzero(m)[0]] = off[d] + row[m]
    nxt = np.full(off[-1], -1, dtype=np.int64)
    c = fab.cables
    if len(c):
        nxt[off[c[:, 0]] + c[:, 1]] = off[c[:, 2]] + c[:, 3]
    return off, g, nxt


def _walk_limit(fab) -> int:
    return 2 * max((u.net.stages for u in fab.units), default=1) + 2


def compose(fab, xc=None) -> Composition:
    """Simulate the fabric with cross-connects ``xc`` (default: its own)."""
    xc = fab.xc if xc is None else xc
    P, n = fab.planes.shape
    off, g, nxt = _global(fab, xc)
    term = np.full(off[-1], -1, dtype=np.int64)
    term[off[fab.outputs[..., 0]] + fab.outputs[..., 1]] = np.arange(P * n).reshape(P, n)
    loss = np.repeat(np.array([d.loss_db for d in fab.devices], dtype=float), [d.ports for d in fab.devices])
    cur = (off[fab.inputs[..., 0]] + fab.inputs[..., 1]).reshape(-1)
    result = np.full(P * n, -1, dtype=np.int64)
    passes = np.zeros(P * n, dtype=np.int64)
    lossdb = np.zeros(P * n, dtype=float)
    live = np.arange(P * n)
    for _ in range(_walk_limit(fab)):
        if not len(live):
            break
        out = g[cur[live]]
        ok = out >= 0
        live, out = live[ok], out[ok]
        passes[live] += 1
        lossdb[live] += loss[out]
        t = term[out]
        done = t >= 0
        result[live[done]] = t[done]
        go = ~done & (nxt[out] >= 0)
        live = live[go]
        cur[live] = nxt[out[go]]
    plane_of = np.repeat(np.arange(P), n)
    realised = np.where(result >= 0, result % n, -1)
    realised = np.where((result >= 0) & (result // n != plane_of), -2, realised)
    connected = realised >= 0
    return Composition(realised.reshape(P, n), np.where(connected, passes, 0).reshape(P, n),
                       np.where(connected, lossdb, 0.0).reshape(P, n))


def check_fabric(fab) -> Composition:
    """Assert the composed fabric realises every logical plane exactly
    (an internal error otherwise: the compiler is wrong, not the input)."""
    c = compose(fab)
    bad = np.argwhere(c.realised != fab.planes)
    if len(bad):
        y, k = bad[0]
        raise AssertionError(f"compiled fabric is wrong: plane {y} node {k} reaches "
                             f"{c.realised[y, k]}, expected {fab.planes[y, k]}")
    for d, row in enumerate(fab.xc):
        if fab.devices[d].bidirectional:
            m = row >= 0
            assert np.all(row[row[m]] == np.nonzero(m)[0]), "bidirectional cross-connects must pair ports"
    return c


def breaks(fab, xc) -> list[Break]:
    """Every circuit that ``xc`` (e.g. read back from the devices) breaks:
    the composition differs from the logical plane; located at the first
    device on the intended path whose cross-connect differs."""
    c = compose(fab, xc)
    P, n = fab.planes.shape
    bad = np.argwhere(c.realised != fab.planes)
    if not len(bad):
        return []
    off, g_int, nxt = _global(fab, fab.xc)
    _, g_rb, _ = _global(fab, xc)
    dev_of = np.repeat(np.arange(len(fab.devices)), [d.ports for d in fab.devices])
    ys, ks = bad[:, 0], bad[:, 1]
    cur = off[fab.inputs[ys, ks, 0]] + fab.inputs[ys, ks, 1]
    out: list[Break] = []
    live = np.arange(len(bad))
    for _ in range(_walk_limit(fab)):
        if not len(live):
            break
        want, got = g_int[cur[live]], g_rb[cur[live]]
        diff = want != got
        for q in live[diff]:
            p = cur[q]
            d = int(dev_of[p])
            e_w, e_g = int(g_int[p]), int(g_rb[p])
            out.append(Break(int(ys[q]), int(ks[q]), d, int(p - off[d]),
                             int(e_w - off[d]) if e_w >= 0 else -1, int(e_g - off[d]) if e_g >= 0 else -1))
        live = live[~diff]
        want = want[~diff]
        ok = (want >= 0) & (nxt[np.maximum(want, 0)] >= 0)
        live, want = live[ok], want[ok]
        cur[live] = nxt[want]
    for q in live:   # pragma: no cover - same cross-connects everywhere yet a broken circuit
        out.append(Break(int(ys[q]), int(ks[q]), -1, -1, -1, -1))
    out.sort(key=lambda b: (b.plane, b.node))
    return out
