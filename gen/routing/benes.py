"""Beneš and Waksman networks of any size N >= 2, routed by the looping algorithm.

    >>> from permnet.gen.routing import benes
    >>> r = benes.route([4, 1, 0, 3, 2, 6, 5, 7])
    >>> r.stages, r.switches, benes.lower_bound(8)
    (5, 20, 16)

Construction (recursive; Beneš for N = 2^k, Chang & Melhem's arbitrary-size
Beneš otherwise).  A block of n >= 3 wires occupying positions
``off .. off+n-1`` has an input column of floor(n/2) 2x2 switches on the
wire pairs (off+2j, off+2j+1), an upper sub-block of floor(n/2) wires and a
lower one of ceil(n/2) wires, and an output column of floor(n/2) switches.
Top output of input switch j goes to upper input j (position off+j), bottom
output to lower input j (position off+floor(n/2)+j); when n is odd the last
wire goes straight to the last lower input and the last output comes
straight from the last lower output.  A block of 2 is one switch.  The depth
is ``2 ceil(log2 n) - 1``; a shallower upper block is placed first and its
wires pass straight through the stages it does not use.

*Waksman* (``network="waksman"``): in every even block the last output
switch is left out (fixed straight), which saves one switch per block:
N log2 N - N + 1 switches for N = 2^k.

Looping (2-colouring): element i of a block (entering at block input i,
leaving at block output p(i)) is coloured 0 (upper) or 1 (lower) so that
the two elements of every input pair and of every output pair differ.  The
constraint graph is a union of even cycles and, for odd n, one path from
the unpaired input to the unpaired output; forced colours (the unpaired
wire is lower; Waksman's fixed switch puts output n-1 on the lower block)
start the walk, every other cycle starts with upper.  Total O(N log N),
compiled with numba.

Switch state: 0 = straight (top input to top output), 1 = crossed.
Positions, stages and ``links`` follow the explicit description of
:func:`network_description`, which :mod:`permnet.sim.network` replays.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lgamma, log

import numpy as np
from numba import njit

from permnet.gen.errors import require

__all__ = ["route", "BenesRoute", "depth", "switch_count", "lower_bound", "complete_partial",
           "network_description", "NETWORKS"]

NETWORKS = ("benes", "waksman")
NO_SWITCH = np.uint8(255)


def depth(n: int) -> int:
    """Number of switch stages for n wires: 2 ceil(log2 n) - 1 (0 for n = 1)."""
    return 0 if n <= 1 else 2 * (n - 1).bit_length() - 1


def switch_count(n: int, network: str = "benes") -> int:
    """Number of 2x2 switches of the n-wire network."""
    total = 0
    stack = [n]
    while stack:
        m = stack.pop()
        if m < 2:
            continue
        if m == 2:
            total += 1
            continue
        h = m // 2
        total += 2 * h - (1 if network == "waksman" and m % 2 == 0 else 0)
        stack += [h, m - h]
    return total


def lower_bound(n: int) -> int:
    """ceil(log2 n!): no network of 2x2 switches with fewer switches realises
    all n! permutations (each switch has 2 states)."""
    if n < 2:
        return 0
    exact = sum(log(k, 2) for k in range(2, n + 1)) if n <= 4096 else lgamma(n + 1) / log(2)
    return int(np.ceil(exact - 1e-9))


@njit(cache=True, inline="always")
def _push(stack, top, off, n, s0):
    """Push block (offset, size, first stage) on the (3, 256) DFS stack."""
    stack[0, top] = off
    stack[1, top] = n
    stack[2, top] = s0
    return top + 1


@njit(cache=True, inline="always")
def _new_stack(n_total):
    stack = np.empty((3, 256), np.int64)  # DFS holds < 2 blocks per level
    return stack, _push(stack, 0, 0, n_total, 0)


@njit(cache=True)
def _route_kernel(perm, n_total, nstages, waksman):
    """Fill state[stage, first_position] for every switch; NO_SWITCH elsewhere."""
    state = np.full((nstages, n_total), 255, np.uint8)
    work = perm.astype(np.int32)   # work[off+i]: block output of the element at block input i
    tmp = np.empty(n_total, np.int32)
    inv = np.empty(n_total, np.int32)
    col = np.empty(n_total, np.int8)
    stack, top = _new_stack(n_total)
    while top > 0:
        top -= 1
        off, n, s0 = stack[0, top], stack[1, top], stack[2, top]
        if n < 2:
            continue
        if n == 2:
            state[s0, off] = 1 if work[off] == 1 else 0
            continue
        h = n // 2
        dep = _depth(n)
        s1 = s0 + dep - 1
        for i in range(n):
            inv[off + work[off + i]] = i
            col[off + i] = -1
        fix_last = waksman and n % 2 == 0
        # forced chain first, then the free cycles
        for phase in range(n + 1):
            if phase == 0:
                if n % 2 == 1:
                    start = n - 1
                elif fix_last:
                    start = inv[off + n - 1]
                else:
                    continue
                c = 1
            else:
                start = phase - 1
                if col[off + start] != -1:
                    continue
                c = 0
            i = start
            while True:
                col[off + i] = c
                o = work[off + i] ^ 1
                if o >= n:
                    break
                j = inv[off + o]
                if col[off + j] != -1:
                    break
                col[off + j] = 1 - c
                p = j ^ 1
                if p >= n or col[off + p] != -1:
                    break
                i = p
        # input column
        for j in range(h):
            state[s0, off + 2 * j] = col[off + 2 * j]
        # output column (Waksman: the last switch of an even block is absent)
        for k in range(h):
            if fix_last and k == h - 1:
                continue
            state[s1, off + 2 * k] = col[off + inv[off + 2 * k]]
        # sub-permutations: upper in off..off+h-1, lower in off+h..off+n-1
        for i in range(n):
            o = work[off + i]
            if col[off + i] == 0:
                tmp[off + i // 2] = o // 2
            else:
                tmp[off + h + i // 2] = o // 2
        for i in range(n):
            work[off + i] = tmp[off + i]
        top = _push(stack, top, off, h, s0 + 1)
        top = _push(stack, top, off + h, n - h, s0 + 1)
    return state


@njit(cache=True, inline="always")
def _depth(n):
    """2 ceil(log2 n) - 1 for n >= 2."""
    b = 0
    x = n - 1
    while x:
        x >>= 1
        b += 1
    return 2 * b - 1


@njit(cache=True)
def _links_kernel(n_total, nstages, only):
    """Links between stages: row s, entry p = the position p moves to after
    stage s.  With ``only >= 0`` just that row (shape (1, N)), so a replay can
    walk the stages without ever holding all of them."""
    rows = 1 if only >= 0 else max(nstages - 1, 0)
    first = only if only >= 0 else 0
    links = np.empty((rows, n_total), np.int32)
    for r in range(rows):
        for p in range(n_total):
            links[r, p] = p
    stack, top = _new_stack(n_total)
    while top > 0:
        top -= 1
        off, n, s0 = stack[0, top], stack[1, top], stack[2, top]
        if n < 3:
            continue
        h = n // 2
        s1 = s0 + _depth(n) - 1
        a = s0 - first          # row of the input shuffle
        b = s1 - 1 - first      # row of the output shuffle
        if 0 <= a < rows:
            for j in range(h):
                links[a, off + 2 * j] = off + j
                links[a, off + 2 * j + 1] = off + h + j
        if 0 <= b < rows:
            for j in range(h):
                links[b, off + j] = off + 2 * j
                links[b, off + h + j] = off + 2 * j + 1
        # (for odd n the last position keeps its place in both shuffles)
        if only >= 0 and s0 >= only:
            continue          # every block below starts later than the wanted row
        top = _push(stack, top, off, h, s0 + 1)
        top = _push(stack, top, off + h, n - h, s0 + 1)
    return links


def check_permutation(perm, allow_unused: bool = False) -> np.ndarray:
    """Validate a (possibly partial) permutation given as a sequence; unused
    inputs are None or -1.  Errors name the first offending entry."""
    n = len(perm)
    require(n >= 1, "empty permutation")
    if isinstance(perm, np.ndarray) and perm.dtype.kind in "iu" and perm.ndim == 1:
        # Fast path for integer arrays; the slow loop below names the culprit.
        arr = perm.astype(np.int64)
        vals = arr[arr >= 0] if allow_unused else arr
        if (allow_unused or arr.min() >= 0) and (arr.max() < n) and (arr.min() >= -1) and \
                np.bincount(vals, minlength=n).max(initial=0) <= 1:
            return arr
        perm = arr.tolist()
    out = np.empty(n, dtype=np.int64)
    seen: dict[int, int] = {}
    for i, v in enumerate(perm):
        if v is None or (allow_unused and isinstance(v, (int, np.integer)) and v == -1):
            require(allow_unused, f"entry {i}: unused inputs are not allowed here")
            out[i] = -1
            continue
        require(isinstance(v, (int, np.integer)) and not isinstance(v, bool),
                f"entry {i}: {v!r} is not an integer")
        require(0 <= v < n, f"entry {i}: {v} out of range 0..{n - 1}")
        require(v not in seen, f"entry {i}: output {v} repeats entry {seen.get(int(v))}")
        seen[int(v)] = i
        out[i] = v
    return out


def complete_partial(perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Connect unused inputs (-1) to unused outputs in increasing order.
    Returns the full permutation and a mask of the inputs that were used."""
    perm = np.asarray(perm, dtype=np.int64)
    used = perm >= 0
    if used.all():
        return perm, used
    taken = np.zeros(len(perm), dtype=bool)
    taken[perm[used]] = True
    full = perm.copy()
    full[~used] = np.nonzero(~taken)[0]
    return full, used


@dataclass
class BenesRoute:
    """Settings of an N-wire network: ``state[s, p]`` is the state of the
    switch of stage s whose inputs are positions (p, p+1), 255 where no switch."""

    size: int
    network: str
    perm: np.ndarray          # full permutation routed: input i -> output perm[i]
    used: np.ndarray          # inputs that carry traffic
    state: np.ndarray

    @property
    def stages(self) -> int:
        return self.state.shape[0]

    @property
    def switches(self) -> int:
        return int((self.state != NO_SWITCH).sum())

    def stage_switches(self, s: int) -> np.ndarray:
        """First input positions of the switches of stage s, in increasing order."""
        return np.nonzero(self.state[s] != NO_SWITCH)[0]


def route(perm, network: str = "benes", *, partial: bool = False) -> BenesRoute:
    """Route ``perm`` (input i -> output perm[i]; with ``partial``, -1/None
    marks an unused input) through the N-wire Beneš or Waksman network.

    Unused inputs are first connected to the unused outputs in increasing
    order; afterwards every switch that carries only such filler traffic is
    set straight (0), the documented default for idle switches.
    """
    require(network in NETWORKS, f"unknown network {network!r}; choose from {', '.join(NETWORKS)}")
    p = check_permutation(perm if isinstance(perm, np.ndarray) else list(perm), partial)
    require(len(p) >= 2, f"a network needs at least 2 wires, got {len(p)}")
    full, used = complete_partial(p)
    n = len(full)
    state = _route_kernel(full, n, depth(n), network == "waksman")
    r = BenesRoute(n, network, full, used, state)
    if not used.all():
        _idle_switches_straight(r)
    return r


def _idle_switches_straight(r: BenesRoute) -> None:
    """Set to 0 every switch whose two inputs both carry filler traffic."""
    carries = r.used.copy()          # carries[p]: position p holds a used signal
    for s in range(r.stages):
        firsts = r.stage_switches(s)
        idle = ~carries[firsts] & ~carries[firsts + 1]
        r.state[s, firsts[idle]] = 0
        crossed = firsts[r.state[s, firsts] == 1]
        a, b = carries[crossed].copy(), carries[crossed + 1].copy()
        carries[crossed], carries[crossed + 1] = b, a
        if s < r.stages - 1:
            nxt = np.empty_like(carries)
            nxt[stage_links(r, s)] = carries
            carries = nxt


def network_description(r: BenesRoute) -> dict:
    """The explicit, convention-free JSON description (see README):
    ``stages`` of switches with ``inputs`` and ``state``, and ``links``."""
    links = _links_kernel(r.size, r.stages, -1)
    stages = []
    for s in range(r.stages):
        firsts = r.stage_switches(s)
        stages.append([{"inputs": [int(p), int(p) + 1], "state": int(r.state[s, p])} for p in firsts])
    return {"size": r.size, "network": r.network, "radix": 2, "switches": r.switches,
            "lower_bound": lower_bound(r.size), "stages": stages, "links": links.tolist(),
            "perm": [int(x) if u else -1 for x, u in zip(r.perm, r.used)]}


def links(r: BenesRoute) -> np.ndarray:
    """The (stages-1, N) link array of ``r``'s network (int32)."""
    return _links_kernel(r.size, r.stages, -1)


def stage_links(r: BenesRoute, s: int) -> np.ndarray:
    """Row s of :func:`links` alone (O(N) memory)."""
    return _links_kernel(r.size, r.stages, s)[0]


def stage_words(r: BenesRoute) -> list[int]:
    """One integer per stage, bit j = state of the stage's j-th switch
    (switches ordered by first input position).  The RTL loads these."""
    words = []
    for s in range(r.stages):
        bits = r.state[s, r.stage_switches(s)]
        words.append(int("".join(str(int(b)) for b in bits[::-1]) or "0", 2))
    return words

