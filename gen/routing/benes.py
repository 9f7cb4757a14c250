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
from functools import lru_cache
from math import lgamma, log

import numpy as np
from numba import njit, prange

from permnet.gen.errors import require
from permnet.gen.hexfile import word_from_bits

__all__ = ["route", "BenesRoute", "depth", "switch_count", "lower_bound", "complete_partial",
           "network_description", "NETWORKS"]

NETWORKS = ("benes", "waksman")
NO_SWITCH = np.uint8(255)


def depth(n: int) -> int:
    """Number of switch stages for n wires: 2 ceil(log2 n) - 1 (0 for n = 1)."""
    return 0 if n <= 1 else 2 * (n - 1).bit_length() - 1


def switch_count(n: int, network: str = "benes") -> int:
    """Number of 2x2 switches of the n-wire network."""
    return _switch_count(n, network == "waksman")


@lru_cache(maxsize=None)
def _switch_count(m: int, waksman: bool) -> int:
    # the blocks of one level have at most two sizes (floor and ceil), so
    # with the cache this is O(log n) calls, not one per block
    if m < 2:
        return 0
    if m == 2:
        return 1
    h = m // 2
    return 2 * h - (1 if waksman and m % 2 == 0 else 0) + _switch_count(h, waksman) + _switch_count(m - h, waksman)


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


@njit(cache=True, inline="always")
def _set(bits, s, p):
    bits[s, p >> 3] |= np.uint8(1 << (p & 7))


_VIS = 1 << 30          # in the routing buffers: element coloured ...
_COL_SHIFT = 29
_COL = 1 << _COL_SHIFT  # ... with this colour bit (1 = lower sub-network)
_VAL = _COL - 1         # the block output itself
MAX_WIRES = 1 << 29


BIG_BLOCK = 1 << 10      # from this block size the walk follows a precomputed successor array
HUGE_BLOCK = 1 << 19     # ... and from this one it walks each cycle both ways at once


@njit(cache=True, inline="always")
def _split_block(src, dst, inv, nxt, bits, off, n, s0, waksman):
    """One level of the looping algorithm on the block (off, n >= 3, s0):
    ``src[off+i]`` is the block output of the element entering at block
    input i and ``inv[off+o]`` its inverse (written by the parent).  Colour
    the elements, set the bits of the crossed switches of the input and
    output columns (``bits`` starts zeroed) and write the two
    sub-permutations into ``dst`` (upper block first) and their inverses
    into ``inv``.  ``nxt[off..off+n)`` is scratch space for large blocks."""
    if n >= BIG_BLOCK:
        _split_big(src, dst, inv, nxt, bits, off, n, s0, waksman)
    else:
        _split_small(src, dst, inv, bits, off, n, s0, waksman)


@njit(cache=True, inline="always")
def _cycle_start(phase, n, fix_last, inv, off):
    """Where the looping walk of a block starts in ``phase`` and the colour
    it starts with: phase 0 is the forced chain (from the odd block's last
    input, or from the input wired to the last output when Waksman fixes its
    switch), colour 1; phase p > 0 tries input p - 1, colour 0. (-1, 0): no
    forced chain."""
    if phase == 0:
        if n % 2 == 1:
            return n - 1, 1
        if fix_last:
            return inv[off + n - 1], 1
        return -1, 0
    return phase - 1, 0


@njit(cache=True, inline="always")
def _split_small(src, dst, inv, bits, off, n, s0, waksman):
    """:func:`_split_block` for a block that fits in the cache: the colour
    is kept in bits 29-30 of ``src`` itself (a step of the walk touches
    inv[o] and the src pair j, j^1), and the output column's bits are set
    during the walk, which sees both elements of every output pair."""
    h = n // 2
    s1 = s0 + _depth(n) - 1
    fix_last = waksman and n % 2 == 0
    # forced chain first, then the free cycles
    for phase in range(n + 1):
        start, c = _cycle_start(phase, n, fix_last, inv, off)
        if start < 0 or (phase and src[off + start] & _VIS):
            continue
        i = start
        while True:
            v = src[off + i]
            src[off + i] = v | _VIS | (c * _COL)
            o = (v & _VAL) ^ 1
            if o >= n:
                break
            # outputs o^1 (this element, colour c) and o (the next, 1 - c)
            # share an output switch, crossed when its even output is lower
            q = off + (o & ~1)
            bits[s1, q >> 3] |= np.uint8((1 - (c ^ (o & 1))) * (not (fix_last and (o >> 1) == h - 1)) << (q & 7))
            j = inv[off + o]
            w = src[off + j]
            if w & _VIS:
                break
            src[off + j] = w | _VIS | ((1 - c) * _COL)
            p = j ^ 1
            if p >= n or src[off + p] & _VIS:
                break
            i = p
    # the colours are random: bits and halves are chosen by arithmetic, not branches
    for j in range(h):                       # input column
        q = off + 2 * j
        bits[s0, q >> 3] |= np.uint8(((src[q] >> _COL_SHIFT) & 1) << (q & 7))
    for i in range(n):                       # upper sub-permutation first, then lower,
        v = src[off + i]                     # and their inverses (this block's inv is done)
        base = off + h * ((v >> _COL_SHIFT) & 1)
        o = (v & _VAL) >> 1
        dst[base + i // 2] = o
        inv[base + o] = i // 2


@njit(cache=True, inline="always")
def _step(nxt, off, n, i, c):
    """One step of the walk of :func:`_split_big` from element i (colour c):
    colour the element leaving beside it (1 - c) and that one's input
    partner (c); return the partner, or -1 where the walk ends (an element
    already coloured, or none)."""
    j = nxt[off + i] & _VAL
    if j == _VAL:
        return -1
    y = nxt[off + j]
    if y & _VIS:
        return -1
    nxt[off + j] = y | _VIS | ((1 - c) * _COL)
    p = j ^ 1
    if p >= n:
        return -1
    z = nxt[off + p]
    if z & _VIS:
        return -1
    nxt[off + p] = z | _VIS | (c * _COL)
    return p


@njit(cache=True, inline="always")
def _split_big(src, dst, inv, nxt, bits, off, n, s0, waksman):
    """:func:`_split_block` for a block larger than the cache, where the walk
    is a chain of dependent cache misses.  First ``nxt[i] = inv[src[i] ^ 1]``,
    the input whose element leaves beside input i's (``_VAL`` for none): n
    independent loads the processor overlaps.  The walk then reads only nxt
    (colour in its bits 29-30): one dependent miss per two elements instead
    of two (inv[o], then src[j])."""
    h = n // 2
    s1 = s0 + _depth(n) - 1
    fix_last = waksman and n % 2 == 0
    for i in range(n):
        o = src[off + i] ^ 1
        nxt[off + i] = inv[off + o] if o < n else _VAL     # (o >= n only for odd n < 2^29)
    both = n >= HUGE_BLOCK
    for phase in range(n + 1):
        start, c = _cycle_start(phase, n, fix_last, inv, off)
        if start < 0 or (phase and nxt[off + start] & _VIS):
            continue
        nxt[off + start] |= _VIS | (c * _COL)
        a = start
        b = start ^ 1
        # far beyond the cache, walk the cycle both ways at once (two
        # independent chains of misses in flight); the walks stop where they meet
        if both and b < n and not (nxt[off + b] & _VIS):
            nxt[off + b] |= _VIS | ((1 - c) * _COL)
        else:
            b = -1
        while a >= 0 or b >= 0:
            if a >= 0:
                a = _step(nxt, off, n, a, c)
            if b >= 0:
                b = _step(nxt, off, n, b, 1 - c)
    # the colours are random: bits and halves are chosen by arithmetic, not branches
    for j in range(h):                       # input column
        q = off + 2 * j
        bits[s0, q >> 3] |= np.uint8(((nxt[q] >> _COL_SHIFT) & 1) << (q & 7))
    for k in range(h - 1 if fix_last else h):    # output column (Waksman: last switch absent)
        q = off + 2 * k
        bits[s1, q >> 3] |= np.uint8(((nxt[off + inv[q]] >> _COL_SHIFT) & 1) << (q & 7))
    for i in range(n):                       # the sub-permutations and their inverses
        o = src[off + i] >> 1
        base = off + h * ((nxt[off + i] >> _COL_SHIFT) & 1)
        dst[base + i // 2] = o
        inv[base + o] = i // 2


@njit(cache=True)
def _route_subtree(work, inv, nxt, bits, off0, n0, s00, waksman, small):
    """Route the block (off0, n0, s00) and everything below it (depth first).
    ``work[s & 1]`` holds the permutations of the blocks starting at stage s."""
    stack = np.empty((3, 256), np.int64)     # DFS holds < 2 blocks per level
    top = _push(stack, 0, off0, n0, s00)
    while top > 0:
        top -= 1
        off, n, s0 = stack[0, top], stack[1, top], stack[2, top]
        if n < 2:
            continue
        src = work[s0 & 1]
        if n == 2:                           # (bits set by arithmetic: the states are random)
            bits[s0, off >> 3] |= np.uint8((src[off] & 1) << (off & 7))
            continue
        if n <= 4 and small.shape[1] > 0:    # 3- and 4-wire blocks: table lookup
            code = 0
            for i in range(n):
                code = code * 4 + src[off + i]
            t = small[n - 3, code]
            for k in range(3):
                for q in range(n - 1):
                    p = off + q
                    bits[s0 + k, p >> 3] |= np.uint8(((t >> (4 * k + q)) & 1) << (p & 7))
            continue
        _split_block(src, work[(s0 + 1) & 1], inv, nxt, bits, off, n, s0, waksman)
        h = n // 2
        top = _push(stack, top, off, h, s0 + 1)
        top = _push(stack, top, off + h, n - h, s0 + 1)


@njit(cache=True)
def _children(offs, sizes):
    """The sub-blocks of the blocks (offs, sizes) that still have levels to split."""
    k = 0
    for b in range(len(sizes)):
        k += 2 if sizes[b] >= 3 else 0
    co = np.empty(k, np.int64)
    cs = np.empty(k, np.int64)
    k = 0
    for b in range(len(sizes)):
        if sizes[b] >= 3:
            h = sizes[b] // 2
            co[k], cs[k] = offs[b], h
            co[k + 1], cs[k + 1] = offs[b] + h, sizes[b] - h
            k += 2
    return co, cs


@njit(cache=True)
def _new_work(perm, n_total, nstages):
    work = np.empty((2, n_total), np.int32)
    work[0, :] = perm
    inv = np.empty(n_total, np.int32)
    for i in range(n_total):
        inv[perm[i]] = i
    nxt = np.empty(n_total if n_total >= BIG_BLOCK else 0, np.int32)
    return work, inv, nxt, np.zeros((nstages, (n_total + 7) >> 3), np.uint8)


@njit(cache=True)
def _route_kernel(perm, n_total, nstages, waksman, small):
    """Sequential router: the packed bits of the crossed switches."""
    work, inv, nxt, bits = _new_work(perm, n_total, nstages)
    _route_subtree(work, inv, nxt, bits, 0, n_total, 0, waksman, small)
    return bits


@njit(cache=True, parallel=True)
def _level_parallel(work, inv, nxt, bits, offs, sizes, lev, waksman, whole, small):
    """The blocks (offs, sizes) of level ``lev`` side by side: one level each,
    or (``whole``) each block's entire subtree.  Blocks of one level occupy
    disjoint position ranges starting at multiples of 8, so the tasks touch
    disjoint slices (and disjoint bytes of ``bits``) only."""
    for b in prange(len(sizes)):
        if whole:
            _route_subtree(work, inv, nxt, bits, offs[b], sizes[b], lev, waksman, small)
        elif sizes[b] >= 3:
            _split_block(work[lev & 1], work[(lev + 1) & 1], inv, nxt, bits, offs[b], sizes[b], lev, waksman)
        elif sizes[b] == 2 and work[lev & 1, offs[b]] == 1:
            _set(bits, lev, offs[b])


@njit(cache=True)
def _aligned_levels(n_total, levels):
    """True when every block of levels 0..levels starts at a multiple of 8."""
    offs = np.zeros(1, np.int64)
    sizes = np.full(1, n_total, np.int64)
    for _ in range(levels):
        offs, sizes = _children(offs, sizes)
        for o in offs:
            if o % 8:
                return False
    return True


@njit(cache=True)
def _route_kernel_parallel(perm, n_total, nstages, waksman, levels, small):
    """Parallel router: level 0 alone, levels 1..levels-1 with the blocks of
    a level side by side, then every remaining subtree as one task."""
    work, inv, nxt, bits = _new_work(perm, n_total, nstages)
    offs = np.zeros(1, np.int64)
    sizes = np.full(1, n_total, np.int64)
    for lev in range(levels):
        _level_parallel(work, inv, nxt, bits, offs, sizes, lev, waksman, False, small)
        offs, sizes = _children(offs, sizes)
    _level_parallel(work, inv, nxt, bits, offs, sizes, levels, waksman, True, small)
    return bits


@njit(cache=True, inline="always")
def _bit(bits, s, p):
    return (bits[s, p >> 3] >> (p & 7)) & 1


@njit(cache=True, inline="always")
def _idle(used, a, b):
    return len(used) > 0 and not used[a] and not used[b]


@njit(cache=True, inline="always")
def _clear(bits, s, p):
    bits[s, p >> 3] &= np.uint8(255 - (1 << (p & 7)))


@njit(cache=True)
def _walk_subtree(bits, buf, used, off0, n0, s00, waksman):
    """Replay the packed settings on the block (off0, n0, s00) and below,
    moving values exactly as the stages and links of
    :func:`network_description` move them.  The values of a block starting
    at stage s are in ``buf[s & 1]`` on entry and on exit.  With ``used``
    (length > 0) a switch whose two values are both unused inputs is first
    set straight (its bit cleared)."""
    stack = np.empty((4, 256), np.int64)     # (off, n, s0, phase): phase 1 = output side
    stack[0, 0], stack[1, 0], stack[2, 0], stack[3, 0] = off0, n0, s00, 0
    top = 1
    check = len(used) > 0
    while top > 0:
        top -= 1
        off, n, s0, phase = stack[0, top], stack[1, top], stack[2, top], stack[3, top]
        if n < 2:
            continue
        v = buf[s0 & 1]
        w = buf[(s0 + 1) & 1]
        h = n // 2
        if n == 2:
            if check and _idle(used, v[off], v[off + 1]):
                _clear(bits, s0, off)
            if _bit(bits, s0, off):
                v[off], v[off + 1] = v[off + 1], v[off]
            continue
        # the switches swap by masks, not branches: their states are random
        if phase == 0:                        # input column, then the input shuffle
            if check:
                for j in range(h):
                    if _idle(used, v[off + 2 * j], v[off + 2 * j + 1]):
                        _clear(bits, s0, off + 2 * j)
            for j in range(h):
                p = off + 2 * j
                a, b = v[p], v[p + 1]
                x = (a ^ b) & -np.int32(_bit(bits, s0, p))
                w[off + j] = a ^ x
                w[off + h + j] = b ^ x
            if n & 1:
                w[off + n - 1] = v[off + n - 1]
            stack[0, top], stack[1, top], stack[2, top], stack[3, top] = off, n, s0, 1
            top += 1
            stack[0, top], stack[1, top], stack[2, top], stack[3, top] = off + h, n - h, s0 + 1, 0
            top += 1
            stack[0, top], stack[1, top], stack[2, top], stack[3, top] = off, h, s0 + 1, 0
            top += 1
            continue
        s1 = s0 + _depth(n) - 1                # output shuffle, then the output column
        last = h - 1 if (waksman and n % 2 == 0) else h
        if check:
            for k in range(last):
                if _idle(used, w[off + k], w[off + h + k]):
                    _clear(bits, s1, off + 2 * k)
        for k in range(h):
            p = off + 2 * k
            a, b = w[off + k], w[off + h + k]
            x = (a ^ b) & -np.int32(_bit(bits, s1, p) if k < last else 0)
            v[p] = a ^ x
            v[p + 1] = b ^ x
        if n & 1:
            v[off + n - 1] = w[off + n - 1]


@njit(cache=True, parallel=True)
def _walk_parallel(bits, buf, offs, sizes, s0, waksman):
    none = np.zeros(0, np.bool_)
    for b in prange(len(sizes)):
        _walk_subtree(bits, buf, none, offs[b], sizes[b], s0, waksman)


@njit(cache=True, nogil=True)
def _replay_kernel(bits, n_total, waksman, split):
    """Values [0..N) through the packed settings; with ``split`` the first
    level is done here and its two sub-blocks replay on two threads."""
    buf = np.empty((2, n_total), np.int32)
    for i in range(n_total):
        buf[0, i] = i
    none = np.zeros(0, np.bool_)
    if not split or n_total < 3:
        _walk_subtree(bits, buf, none, 0, n_total, 0, waksman)
        return buf[0].copy()
    n, h = n_total, n_total // 2
    v, w = buf[0], buf[1]
    for j in range(h):
        a, b = v[2 * j], v[2 * j + 1]
        x = (a ^ b) & -np.int32(_bit(bits, 0, 2 * j))
        w[j] = a ^ x
        w[h + j] = b ^ x
    if n & 1:
        w[n - 1] = v[n - 1]
    offs = np.array([0, h], np.int64)
    sizes = np.array([h, n - h], np.int64)
    _walk_parallel(bits, buf, offs, sizes, 1, waksman)
    s1 = _depth(n) - 1
    last = h - 1 if (waksman and n % 2 == 0) else h
    for k in range(h):
        a, b = w[k], w[h + k]
        x = (a ^ b) & -np.int32(_bit(bits, s1, 2 * k) if k < last else 0)
        v[2 * k] = a ^ x
        v[2 * k + 1] = b ^ x
    if n & 1:
        v[n - 1] = w[n - 1]
    return v.copy()


@njit(cache=True)
def _clear_idle(bits, used, n_total, waksman):
    buf = np.empty((2, n_total), np.int32)
    for i in range(n_total):
        buf[0, i] = i
    _walk_subtree(bits, buf, used, 0, n_total, 0, waksman)


@njit(cache=True)
def _presence_row(n_total, nstages, only, waksman):
    """Mask of the first positions of the switches of stage ``only``."""
    row = np.zeros(n_total, np.bool_)
    stack, top = _new_stack(n_total)
    while top > 0:
        top -= 1
        off, n, s0 = stack[0, top], stack[1, top], stack[2, top]
        if n < 2 or s0 > only:
            continue
        if n == 2:
            if s0 == only:
                row[off] = True
            continue
        h = n // 2
        s1 = s0 + _depth(n) - 1
        if s0 == only:
            for j in range(h):
                row[off + 2 * j] = True
            continue
        if s1 == only:
            last = h - 1 if (waksman and n % 2 == 0) else h
            for k in range(last):
                row[off + 2 * k] = True
            continue
        if s1 < only:
            continue
        top = _push(stack, top, off, h, s0 + 1)
        top = _push(stack, top, off + h, n - h, s0 + 1)
    return row


@njit(cache=True)
def _stage_bits(bits, n_total, only, waksman):
    """The bits of the switches of stage ``only`` in position order."""
    if not waksman and n_total & (n_total - 1) == 0:
        # N = 2^k Beneš: every stage has a switch at every even position
        out = np.empty(n_total // 2, np.uint8)
        for q in range(n_total // 2):
            out[q] = _bit(bits, only, 2 * q)
        return out
    mask = _presence_row(n_total, bits.shape[0], only, waksman)
    k = 0
    for p in range(n_total):
        k += mask[p]
    out = np.empty(k, np.uint8)
    k = 0
    for p in range(n_total):
        if mask[p]:
            out[k] = _bit(bits, only, p)
            k += 1
    return out


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


PARALLEL_MIN = 1 << 15     # below this size the sequential router is faster
SPLIT_LEVELS = 3           # levels done level by level before whole subtrees go to threads


@dataclass
class BenesRoute:
    """Settings of an N-wire network, packed: bit p of ``bits[s]`` (little
    bit order, byte p >> 3, bit p & 7) is the state of the stage-s switch
    whose inputs are positions (p, p+1); bits where there is no switch are 0.
    N ceil(...) bits per stage: about 2.5 MB for N = 2^20."""

    size: int
    network: str
    perm: np.ndarray          # full permutation routed: input i -> output perm[i]
    used: np.ndarray          # inputs that carry traffic
    bits: np.ndarray          # (stages, ceil(N/8)) uint8

    @property
    def stages(self) -> int:
        return self.bits.shape[0]

    @property
    def switches(self) -> int:
        return switch_count(self.size, self.network)

    def presence(self, s: int) -> np.ndarray:
        """Boolean mask over positions: a switch of stage s starts there."""
        return _presence_row(self.size, self.stages, s, self.network == "waksman")

    def stage_switches(self, s: int) -> np.ndarray:
        """First input positions of the switches of stage s, in increasing order."""
        return np.nonzero(self.presence(s))[0]

    def stage_row(self, s: int) -> np.ndarray:
        """State of every position of stage s (0/1, one byte per position)."""
        return np.unpackbits(self.bits[s], count=self.size, bitorder="little")

    def stage_bits(self, s: int) -> np.ndarray:
        """States of the switches of stage s in switch order (0/1 bytes)."""
        return _stage_bits(self.bits, self.size, s, self.network == "waksman")

    @property
    def state(self) -> np.ndarray:
        """Unpacked view for small networks: ``state[s, p]`` = 0/1 for the
        switch reading positions (p, p+1), 255 where no switch (N bytes a stage)."""
        out = np.full((self.stages, self.size), NO_SWITCH, np.uint8)
        for s in range(self.stages):
            m = self.presence(s)
            out[s, m] = self.stage_row(s)[m]
        return out


_SMALL: dict = {}


def _idle_cores() -> float:
    """Cores not busy over the last minute (cpu count less the load average):
    on a machine whose cores are taken the threads only add wake-ups and
    waits, and the one-core router is faster."""
    import os

    try:
        return len(os.sched_getaffinity(0)) - os.getloadavg()[0]
    except (AttributeError, OSError):
        return float(os.cpu_count() or 1)


def _small_table(waksman: bool) -> np.ndarray:
    """Settings of every 3- and 4-wire block, computed once by the general
    looping level: row n-3, index = the block permutation in base 4, value =
    bit 4k+q set when the switch of the block's stage k at offset q is crossed."""
    if waksman not in _SMALL:
        import itertools
        table = np.zeros((2, 256), np.int64)
        none = np.zeros((2, 0), np.int64)
        for n in (3, 4):
            for p in itertools.permutations(range(n)):
                bits = _route_kernel(np.array(p), n, 3, waksman, none)
                code = 0
                for v in p:
                    code = code * 4 + v
                word = 0
                for k in range(3):
                    for q in range(n - 1):
                        word |= int((bits[k, 0] >> q) & 1) << (4 * k + q)
                table[n - 3, code] = word
        _SMALL[waksman] = table
    return _SMALL[waksman]


def route(perm, network: str = "benes", *, partial: bool = True, threads: bool | None = None) -> BenesRoute:
    """Route ``perm`` (input i -> output perm[i]; -1/None marks an unused
    input unless ``partial`` is False) through the N-wire Beneš or Waksman network.

    Unused inputs are first connected to the unused outputs in increasing
    order and the full permutation is routed; then every switch whose two
    inputs both carry unused inputs is set straight (0), in stage order, so
    the unused inputs end on the unused outputs in an order the network
    chooses.  From N = 2^15 the levels below the first run on all cores
    when at least 1.5 cores are idle (``threads`` forces either way).
    """
    require(network in NETWORKS, f"unknown network {network!r}; choose from {', '.join(NETWORKS)}")
    p = check_permutation(perm if isinstance(perm, np.ndarray) else list(perm), partial)
    require(len(p) >= 2, f"a network needs at least 2 wires, got {len(p)}")
    require(len(p) <= MAX_WIRES, f"at most {MAX_WIRES} wires, got {len(p)}")
    full, used = complete_partial(p)
    n = len(full)
    waksman = network == "waksman"
    if threads is None:
        threads = n >= PARALLEL_MIN and _idle_cores() >= 1.5
    if threads and _aligned_levels(n, SPLIT_LEVELS):
        bits = _route_kernel_parallel(full, n, depth(n), waksman, SPLIT_LEVELS, _small_table(waksman))
    else:
        bits = _route_kernel(full, n, depth(n), waksman, _small_table(waksman))
    if not used.all():
        _clear_idle(bits, used, n, waksman)
    return BenesRoute(n, network, full, used, bits)


def replay(r: BenesRoute, threads: bool | None = None) -> np.ndarray:
    """Apply the packed settings of ``r`` to [0..N): position p of the result
    holds the input routed to output p.  Reads only the settings and the
    network's construction, never the routing's working data."""
    split = (r.size >= PARALLEL_MIN and _idle_cores() >= 1.5) if threads is None else threads
    return _replay_kernel(r.bits, r.size, r.network == "waksman", split)


def network_description(r: BenesRoute) -> dict:
    """The explicit, convention-free JSON description (docs/reference/file-formats.md):
    ``stages`` of switches with ``inputs`` and ``state``, and ``links``."""
    links = _links_kernel(r.size, r.stages, -1)
    stages = []
    for s in range(r.stages):
        firsts = r.stage_switches(s)
        row = r.stage_row(s)
        stages.append([{"inputs": [int(p), int(p) + 1], "state": int(row[p])} for p in firsts])
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
    return [word_from_bits(r.stage_bits(s)) for s in range(r.stages)]
