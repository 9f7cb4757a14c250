"""Rearrangeable Clos networks of switches, routed by bipartite edge colouring.

A plane (a permutation of n ports) larger than every device becomes a
three-stage Clos network C(k, k, r) (Melhem, Section 1: multistage networks
in place of crossbar planes): r = ceil(n / D) *ingress* switches of k
inputs and k outputs (k = ceil(n / r) <= D), k *middle* networks of r x r,
r *egress* switches.  Ingress switch a's output c is cabled to middle c's
input a, middle c's output b to egress switch b's input c.  Input x enters
ingress switch ``x // k`` at port ``x % k``; output y leaves egress switch
``y // k`` at port ``y % k``.

Routing (Protsenko, Lemma 1 and Def. 8, the looping argument for the
Benes/(n,d) networks, here with k colours instead of two): padding the
permutation to r k ports with dummy pairs, the connections form a
k-regular bipartite multigraph between ingress switches and egress switches
(edge x joins ``x // k`` and ``pi(x) // k``).  A proper k-edge colouring
(König) gives every connection a middle network c = colour(x) such that no
two connections of one ingress or egress switch share a middle network;
middle c then has to realise the partial permutation ``a -> b`` of its
colour class, recursively.  A middle network larger than every device is
itself a Clos network: five stages, and so on.

For reconfiguration the colouring starts from the old one (every connection
keeps its old middle network, which keeps the ingress cross-connect) and
conflicts are repaired with alternating-path (Kempe chain) recolouring; the
colouring from scratch, its middle networks relabelled by a linear
assignment that maximises overlap with the old ones, is the alternative.
The better of the two (most cross-connects kept) is used.

    >>> import numpy as np
    >>> net = design(12, 4)
    >>> net.k, net.r, net.stages
    (4, 3, 3)
    >>> xc = route(net, np.array([3, 7, 1, 0, 11, 10, 9, 2, 4, 5, 8, 6]))
    >>> len(xc), sorted(int(c) for c in net.colour[:4])    # 10 switches; inputs 0-3 on distinct middles
    (10, [0, 1, 2, 3])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from permnet.gen.errors import require
from permnet.gen.graph.coloring import edge_colour_regular_bipartite

__all__ = ["Leaf", "Clos", "design", "design_choices", "route", "complete_permutation"]


@dataclass
class Leaf:
    """One switch (a port range of one device) of ``size`` ports; ``slot`` is
    filled in by the placement."""

    size: int
    role: str = "plane"
    slot: int = -1

    @property
    def stages(self) -> int:
        return 1

    def leaves(self):
        yield self

    def as_dict(self) -> dict:
        return {"kind": "switch", "size": self.size, "role": self.role, "slot": self.slot}


@dataclass
class Clos:
    """A three-stage Clos network C(k, k, r) of ``size <= k r`` ports."""

    size: int
    k: int
    r: int
    ingress: list
    middle: list
    egress: list
    colour: np.ndarray | None = field(default=None, repr=False)   # middle of each padded input
    perm: np.ndarray | None = field(default=None, repr=False)     # padded permutation routed (dummies -1-dest)

    @property
    def stages(self) -> int:
        return 2 + max(m.stages for m in self.middle)

    def leaves(self):
        for s in self.ingress:
            yield s
        for m in self.middle:
            yield from m.leaves()
        for s in self.egress:
            yield s

    def as_dict(self) -> dict:
        return {"kind": "clos", "size": self.size, "k": self.k, "r": self.r,
                "ingress": [s.as_dict() for s in self.ingress],
                "middle": [m.as_dict() for m in self.middle],
                "egress": [s.as_dict() for s in self.egress],
                "colour": None if self.colour is None else self.colour.tolist(),
                "perm": None if self.perm is None else self.perm.tolist()}


def net_from_dict(d: dict):
    """Inverse of ``as_dict`` (for a fabric read back from its JSON)."""
    if d["kind"] == "switch":
        return Leaf(d["size"], d["role"], d["slot"])
    net = Clos(d["size"], d["k"], d["r"], [net_from_dict(s) for s in d["ingress"]],
               [net_from_dict(m) for m in d["middle"]], [net_from_dict(s) for s in d["egress"]])
    if d.get("colour") is not None:
        net.colour = np.asarray(d["colour"], dtype=np.int64)
        net.perm = np.asarray(d["perm"], dtype=np.int64)
    return net


def design(n: int, largest: int, r: int | None = None):
    """The network of devices for an n-port plane when the largest device has
    ``largest`` ports: one switch if it fits, else C(k, k, r) with
    r = ceil(n / largest) ingress switches (or the ``r`` given),
    k = ceil(n / r) and middle networks of r ports designed the same way
    (five stages when r > largest)."""
    require(largest >= 2, "devices need at least 2 ports")
    if n <= largest:
        return Leaf(n, "plane")
    r = max(r or 0, math.ceil(n / largest))
    k = math.ceil(n / r)
    if r == 1:  # pragma: no cover - n <= largest handled above
        return Leaf(n, "plane")
    mid = [design(r, largest) for _ in range(k)]
    for m in mid:
        for lf in m.leaves():
            if lf.role == "plane":
                lf.role = "middle"
    return Clos(n, k, r, [Leaf(k, "ingress") for _ in range(r)], mid, [Leaf(k, "egress") for _ in range(r)])


def design_choices(n: int, largest: int, limit: int = 12) -> list[int]:
    """Candidate numbers r of ingress switches for an n-port Clos network:
    the fewest, a few more, and those making k = n / r a divisor of the
    device size (so ingress switches and middle networks share devices
    without waste).  The placement keeps the one using fewest devices."""
    r0 = math.ceil(n / largest)
    if r0 <= 1:
        return [1]
    cands = {r0, r0 + 1, r0 + 2}
    for q in range(2, 9):                       # k = largest / q
        k = largest // q
        if k >= 2:
            cands.add(math.ceil(n / k))
    top = largest if r0 <= largest else n // 2     # stay with three stages where they suffice
    return sorted(c for c in cands if r0 <= c <= min(top, n // 2))[:limit]


def complete_permutation(perm: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Extend a partial permutation (``-1`` unconnected) of ``len(perm)``
    ports to a full permutation of ``size >= len(perm)`` ports; returns it
    and the mask of real (originally connected) inputs."""
    perm = np.asarray(perm, dtype=np.int64)
    full = np.full(size, -1, dtype=np.int64)
    full[:len(perm)] = perm
    real = full >= 0
    used = np.zeros(size, dtype=bool)
    used[full[real]] = True
    full[~real] = np.nonzero(~used)[0]
    return full, real


# ------------------------------------------------------------ Kempe repair

@njit(cache=True)
def _kempe_complete(left, right, colour, r, k):
    """Complete a proper partial edge colouring (colour -1 = uncoloured) of a
    k-regular bipartite multigraph on r + r nodes with k colours."""
    m = left.shape[0]
    A = np.full((r, k), -1, np.int64)
    B = np.full((r, k), -1, np.int64)
    for e in range(m):
        c = colour[e]
        if c >= 0:
            A[left[e], c] = e
            B[right[e], c] = e
    for e in range(m):
        if colour[e] >= 0:
            continue
        a = left[e]
        b = right[e]
        alpha = -1
        for c in range(k):
            if A[a, c] < 0:
                alpha = c
                break
        beta = -1
        for c in range(k):
            if B[b, c] < 0:
                beta = c
                break
        if B[b, alpha] >= 0:
            # Alternating alpha/beta path from b; swap its colours.  It
            # cannot reach a (bipartite parity), so alpha becomes free at b.
            path = []
            x = b
            on_right = True
            want = alpha
            while True:
                f = B[x, want] if on_right else A[x, want]
                if f < 0:
                    break
                path.append(f)
                x = left[f] if on_right else right[f]
                on_right = not on_right
                want = beta if want == alpha else alpha
            for f in path:
                A[left[f], colour[f]] = -1
                B[right[f], colour[f]] = -1
            for f in path:
                colour[f] = beta if colour[f] == alpha else alpha
                A[left[f], colour[f]] = f
                B[right[f], colour[f]] = f
        colour[e] = alpha
        A[a, alpha] = e
        B[b, alpha] = e
    return colour


def _warm_colouring(perm, real, k, r, old_colour, old_perm, old_real):
    """Every connection keeps its old middle network where no two share one
    at an egress switch (ties go to the connection whose egress
    cross-connect is unchanged); the rest are recoloured by Kempe chains."""
    x = np.arange(len(perm))
    left, right = x // k, perm // k
    col = old_colour.copy()
    # Egress cross-connect of old middle c at egress b went to old_perm % k.
    old_out = np.full((r, k), -1, dtype=np.int64)
    old_out[old_perm[old_real] // k, old_colour[old_real]] = old_perm[old_real] % k
    prefer = old_out[right, col] == perm % k
    order = np.lexsort((~prefer, ~real))    # real, then preferred connections claim first
    claimed = np.zeros((r, k), dtype=bool)
    keep = np.zeros(len(perm), dtype=bool)
    for e in order:
        b, c = right[e], col[e]
        if not claimed[b, c]:
            claimed[b, c] = True
            keep[e] = True
    col[~keep] = -1
    return _kempe_complete(left.astype(np.int64), right.astype(np.int64), col.astype(np.int64), r, k)


def _route_preserving(perm, real, k, r, old_colour, old_perm, old_real):
    """Connections from ingress switch a to egress switch b take the middle
    networks that already joined a to b (keeping those middle cross-connects;
    first the connection's own old middle, then one whose egress
    cross-connect already goes to its output).  This partial colouring is
    proper: middle c joins input a to one output b only.  The rest is
    completed by Kempe chains."""
    n = len(perm)
    x = np.arange(n)
    left, right = x // k, perm // k
    old_right = old_perm // k
    routes: dict = {}
    for a_, b_, c_ in zip((x[old_real] // k).tolist(), old_right[old_real].tolist(), old_colour[old_real].tolist()):
        routes.setdefault((a_, b_), set()).add(c_)
    old_out = np.full((r, k), -1, dtype=np.int64)
    old_out[old_perm[old_real] // k, old_colour[old_real]] = old_perm[old_real] % k
    col = np.full(n, -1, dtype=np.int64)
    reals = x[real]
    for phase in range(3):
        for e in reals.tolist():
            if col[e] >= 0:
                continue
            free = routes.get((int(left[e]), int(right[e])))
            if not free:
                continue
            c = -1
            if phase == 0 and old_real[e] and int(old_colour[e]) in free:
                c = int(old_colour[e])
            elif phase == 1:
                t = int(perm[e] % k)
                c = next((c_ for c_ in free if old_out[right[e], c_] == t), -1)
            elif phase == 2:
                c = min(free)
            if c >= 0:
                col[e] = c
                free.discard(c)
    return _kempe_complete(left.astype(np.int64), right.astype(np.int64), col, r, k)


def _relabelled_scratch(perm, k, r, old_colour, real):
    """Colouring from scratch, middle networks renamed to overlap the old one most."""
    from scipy.optimize import linear_sum_assignment

    x = np.arange(len(perm))
    col = edge_colour_regular_bipartite(x // k, perm // k, r)
    if old_colour is None:
        return col
    overlap = np.zeros((k, k), dtype=np.int64)
    np.add.at(overlap, (col[real], old_colour[real]), 1)
    rows, cols = linear_sum_assignment(-overlap)
    rename = np.empty(k, dtype=np.int64)
    rename[rows] = cols
    return rename[col]


def _score(perm, real, col, k, r, old_perm, old_real, old_colour) -> int:
    """Cross-connects of the ingress and egress stages and of middle leaves
    that a colouring keeps (middle Clos networks are scored by their size)."""
    x = np.arange(len(perm))
    ingress = int(np.sum(real & old_real & (col == old_colour)))
    old_out = np.full((r, k), -1, dtype=np.int64)
    old_out[old_perm[old_real] // k, old_colour[old_real]] = old_perm[old_real] % k
    egress = int(np.sum(real & (old_out[perm // k, col] == perm % k)))
    old_mid = np.full((k, r), -1, dtype=np.int64)
    old_mid[old_colour[old_real], x[old_real] // k] = old_perm[old_real] // k
    middle = int(np.sum(real & (old_mid[col, x // k] == perm // k)))
    return ingress + egress + middle


def route(net, perm: np.ndarray, old=None) -> dict:
    """Route the partial permutation ``perm`` (length ``net.size``, -1 =
    unconnected) through ``net``; returns ``{leaf id: local cross-connect
    array}`` keyed by ``id(leaf)``.  With ``old`` (the same network as
    routed before, with its colourings) the routes keep as many existing
    cross-connects as possible.  Stores the colourings in ``net``."""
    out: dict = {}
    _route(net, np.asarray(perm, dtype=np.int64), old, out)
    return out


def _route(net, perm, old, out):
    if isinstance(net, Leaf):
        xc = np.full(net.size, -1, dtype=np.int64)
        xc[:len(perm)] = perm
        out[id(net)] = xc
        return
    k, r = net.k, net.r
    full, real = complete_permutation(perm, k * r)
    if old is not None and old.colour is not None:
        old_full, old_real = decode_perm(old.perm)
        candidates = [_warm_colouring(full, real, k, r, old.colour, old_full, old_real),
                      _route_preserving(full, real, k, r, old.colour, old_full, old_real),
                      _relabelled_scratch(full, k, r, old.colour, real & old_real)]
        scores = [_score(full, real, c, k, r, old_full, old_real, old.colour) for c in candidates]
        col = candidates[int(np.argmax(scores))]
    else:
        col = edge_colour_regular_bipartite(np.arange(k * r) // k, full // k, r)
    net.colour = col
    net.perm = np.where(real, full, -1 - full)   # dummies kept (negated) for the next warm start
    x = np.arange(k * r)
    for a in range(r):
        xc = np.full(k, -1, dtype=np.int64)
        sel = x[a * k:(a + 1) * k]
        m = real[sel]
        xc[sel[m] % k] = col[sel[m]]
        out[id(net.ingress[a])] = xc
    egress = [np.full(k, -1, dtype=np.int64) for _ in range(r)]
    rb = full[real] // k
    rc = col[real]
    rt = full[real] % k
    for b, c, t in zip(rb.tolist(), rc.tolist(), rt.tolist()):
        egress[b][c] = t
    for b in range(r):
        out[id(net.egress[b])] = egress[b]
    for c in range(k):
        sub = np.full(r, -1, dtype=np.int64)
        m = real & (col == c)
        sub[x[m] // k] = full[m] // k
        _route(net.middle[c], sub, None if old is None else old.middle[c], out)


def decode_perm(stored: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The padded permutation and its real-connection mask from ``net.perm``
    (dummy pairs are stored as ``-1 - destination``)."""
    stored = np.asarray(stored, dtype=np.int64)
    real = stored >= 0
    return np.where(real, stored, -1 - stored), real
