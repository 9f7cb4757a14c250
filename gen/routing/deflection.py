"""Bufferless deflection routing on switching planes (issue 41): the router's function.

This module is the specification of the deflection router. The RTL
(:class:`permnet.hdl.deflect.DeflectionRouter`) and the network simulator's
model (``--switching deflection``, :mod:`permnet.sim.netsim`) both compute
:func:`route_step`, cycle for cycle; tests hold each of them against it.

The network
-----------
M nodes and S planes as everywhere in permnet: output y of node n reaches
input y of node ``planes[y][n]``. Every node has S network inputs and S
network outputs, so every flit that arrives can leave in the same cycle: no
buffers, no credits, no virtual channels, no deadlock (Hoplite, Kapre and
Gray, FPL 2015; CHIPPER, Fallin, Craik and Mutlu, HPCA 2011). A flit that
cannot take a productive output is *deflected* to another one and routed
again from where it lands.

A packet is one flit: ``dst``, ``src``, ``age`` and the payload. A hop takes
K cycles (``hop_cycles``: the router's register stages plus the link's): a
flit that leaves node n in cycle t is at the input of the next node in
cycle t + K, and its age has grown by K.

Productive outputs
------------------
``dist`` is the BFS distance on the directed multigraph of the planes. The
productive mask of node n for destination d has bit y set iff
``dist(planes[y][n], d) = dist(n, d) - 1`` (:func:`productive_masks`); it is
0 for d = n. Every plane is a permutation, so every node has exactly one
input per plane and the masks depend on (n, d) only: a deflected flit is
routed again from where it is, by the same table (no hop index).

One router cycle (:func:`route_step`), node n
---------------------------------------------
1. **Ejection.** Input slot y belongs to ejection port ``y mod E``. Port e
   takes, if its ejection queue (``EJECT_DEPTH`` flits, drained by the
   user's ``ready``) had room at the start of the cycle, the highest-priority
   flit with ``dst = n`` among its slots. Nothing here depends on this
   cycle's ``ready``: a queue that is full at the start of the cycle takes
   nothing, and its flits are deflected. The queue is a registered FIFO: a
   flit ejected in cycle t is in it (the port's ``valid``) from cycle t + 1
   on and leaves it in the first cycle from then in which the user's
   ``ready`` is high (the handshake); a flit the user takes in cycle t still
   counts against the room at the start of t. With ``ready`` always high a
   queue holds at most one flit at the start of a cycle, so it always has
   room.
2. **Injection.** The injection port is ready iff a slot is free (empty, or
   its flit ejected in step 1). The new flit (``age`` 0, ``src`` n) goes into
   the lowest free slot.
3. **Allocation** (``allocator="permutation"``, S a power of two, k =
   log2 S stages of S/2 2x2 blocks, as CHIPPER's permutation network). Stage
   s (s = 0 .. k-1) decides bit ``b = k-1-s`` of the output: it pairs the
   lanes p and p + 2^b (bit b of p clear), and the flit that leaves it on
   lane q can still reach the outputs with q's bits above b and bit b. A
   flit *can use* side c (0 or 1) if its productive mask has a bit among
   those outputs. In a block, the upper lane (bit b clear) wins iff it holds
   a flit and the lower one holds none or a flit of priority at most its
   own; else the lower lane wins. If the winner can use only one side it
   takes it; otherwise, if the loser can use only one side, the winner
   takes the other; otherwise nothing moves. The loser takes the side left.
   After stage k-1, lane y is output y.
   ``allocator="ideal"`` (the simulator's yardstick, any S): flits in
   priority order each take the lowest free productive output, else the
   lowest free output.
4. **Outputs.** Output y carries lane y's flit with ``age`` grown by K
   (saturating at ``2**age_bits - 1``).

Options (model only: the RTL, :class:`permnet.hdl.deflect.DeflectionRouter`, implements the default)
------------------------------------------------------------------------------------------------------
Both are off by default, and with them off :func:`route_step` is the router
above, bit for bit. The simulator models them (``permnet netsim --switching
deflection --deflect nearest --side-buffer B``) to measure what they are worth.

**Deflection toward the nearest free port** (``neutral_row``, ``deflect="nearest"``
in the simulator). The *neutral* mask of node n for destination d has bit y
set iff ``dist(planes[y][n], d) = dist(n, d)`` (:func:`neutral_masks`; 0 for
d = n): output y keeps the flit as far from d as it is. Productive and neutral
masks are disjoint; any other output takes the flit farther from d. In the
permutation network a flit whose productive mask has no bit among the outputs
its block can still reach (``base .. base + 2^(b+1) - 1``) uses its neutral
mask in its place for the block's rule (which sides it can use; the winner's
only side, else the side the loser cannot use): a flit that has lost every
productive output prefers the side with a neutral one, by the same rule. A
flit with a productive output in reach uses its productive mask as before, so
the highest-priority flit still takes a productive output at every node. In
the ideal allocator, a flit takes the lowest free productive output, else the
lowest free neutral output, else the lowest free output.

**Side buffer** (``side_buffer = B`` flits per node, MinBD, Fallin et al.,
NOCS 2012; ``side``: the node's buffer, a list in order of entry). Two steps
join the cycle:

* 1b (after ejection, before injection). **Re-injection.** The buffered flit of
  highest priority (the first in the list of equal keys) takes the lowest free
  slot. If no slot is free and its key is larger than every slot's flit's, it
  takes the slot of the lowest-priority flit with ``dst != n`` (the lowest slot
  of equal keys), if there is one, and that flit goes into the side buffer
  (appended: the buffer holds as many flits as before). Injection (step 2)
  then takes the lowest slot still free: a buffered flit goes first.
* 3b (after allocation, before the outputs). **Entry.** If the buffer holds
  fewer than B flits after step 1b, the flit on the lowest-numbered output
  that is not productive for it (a deflected flit) with ``dst != n`` leaves
  the router for the buffer (appended); that output carries nothing this
  cycle. At most one flit enters a cycle.

A buffered flit keeps its age, and its age grows by 1 a cycle in the buffer
(saturating), so age stays the cycles since injection. Nothing is dropped: a
flit leaves the router on an output or into the buffer only where the buffer
has room, and a swap keeps the count. A flit for n is never buffered at n.

Priority is ``(age, src)``, larger first. A flit's age is the cycles since it
was injected (every flit moves every cycle, or ages in a side buffer), so two flits in the network
never share it: a node injects at most one flit a cycle.

Livelock freedom (the bound, :func:`hop_bound`)
-----------------------------------------------
With every ejection queue drained each cycle, every flit reaches its
destination within ``N D`` hops for K = 1 and ``N (D + 1)`` hops for K > 1,
where D is the diameter and ``N = M S K`` the most flits the network can hold
(one per output register and link stage). Proof: flits injected after a flit
F are younger, so the flits of higher priority than F are among the at most
N - 1 in the network when F is injected, and their number only falls. The
highest-priority flit in the network wins every 2x2 block it meets, so it
takes a productive side at every stage (a block's winner with a usable side
takes it), hence a productive output at every node; at its destination it is
the highest in its ejection port's slots and the queue has room, so it is
ejected. When it becomes the highest it is at a router's inputs (K = 1) or
possibly partway along a link (K > 1), at most D hops from its destination
from the next router on, so it leaves within D hops (K = 1) or within
(D + 1) K cycles (K > 1), in which every other flit takes at most D + 1 hops
(all flits move one hop every K cycles); then the next one is highest. So F
leaves within (N - 1) D + D hops, or (N - 1)(D + 1) + (D + 1) for K > 1.
``age_bits`` holds the bound's cycles, so ages do not saturate within it.
When the user holds ``ready`` low, flits to that node are deflected
until it takes them: no bound holds then (nothing is lost or misdelivered).

With ``neutral_row`` the proof is unchanged: a flit with a productive output in
reach uses its productive mask, so the highest-priority flit's moves are the
same, and :func:`hop_bound` holds as stated.

With a side buffer of B > 0 flits a flit can also wait in a buffer, so a
period per older flit is counted in cycles. The network holds at most
``N_B = M (S K + B)`` flits (links and side buffers). Let F' be the oldest flit
in the network at the start of cycle t, every ejection queue drained. If F' is
on a link it reaches a router by t + K - 1; if it is in a side buffer it is the
highest-priority flit there and beats every flit in its node's slots; if no
slot is free after ejection, no slot holds a flit for n (with drained queues
each port ejects one of its slots' flits for n, freeing that slot), so in
cycle t it takes a free slot or swaps with a flit not for n (step 1b). From then on it is the
highest-priority flit of every router it enters: it takes a productive output
(never a buffer: entry takes deflected flits only) and at its destination it
is ejected, within D hops. So F' leaves by cycle t + (D + 1) K - 1 and the
next-oldest flit is the oldest from cycle t + (D + 1) K at the latest. A flit F
injected in cycle t0 has at most N_B - 1 older flits, which only leave, so F
is ejected by t0 + N_B (D + 1) K - 1; it leaves a router at most once every K
cycles, so it takes at most ``N_B (D + 1)`` hops
(``hop_bound(M, S, D, K, side_buffer=B)``), and ``age_bits(..., side_buffer=B)``
holds the ``N_B (D + 1) K`` cycles.

Priority (model only: the RTL implements ``age``)
--------------------------------------------------
Every rule above that ranks flits (ejection, the 2x2 blocks, the ideal
allocator's order, the side buffer) compares one key per flit, larger first,
equal keys as stated there. :func:`route_step` takes it as ``key`` (default
:meth:`Flit.key`); the simulator's ``priority`` (``permnet netsim --switching
deflection --priority P``, one of ``PRIORITIES``) computes it for a flit at a
router in cycle t:

* ``age`` (the default and the RTL's): ``(age, src)``, oldest first; the
  bound above.
* ``random``: :func:`random_key` ``(seed, t, serial)``, a fresh 32-bit key a
  flit and cycle, ``serial`` the packet's creation index: three rounds of the
  "lowbias32" integer hash (C. Wellons, hash-prospector) over the run's seed,
  the cycle and the serial. It draws nothing from the traffic's random stream,
  so the traffic is the same as under ``age`` and a run is a function of its
  seed (a sweep's load points do not depend on each other or on the workers).
  **No livelock bound**: nothing ranks an old flit above a new one, so a flit
  can lose every contention it meets for as long as others contend (the
  probability falls geometrically, but no number of hops is excluded).
* ``golden`` (CHIPPER's golden packet, Fallin, Craik and Mutlu, HPCA 2011): a
  packet's id is ``(src, seq)``, seq its sequence number at its source counted
  at injection modulo ``GOLDEN_IDS``. Cycles fall into epochs of
  ``L = golden_epoch(D, K) = (D + 1) K``; in epoch e the id
  ``golden_id(t, M, L) = (e mod M, (e div M) mod GOLDEN_IDS)`` is golden, every
  id once in ``M GOLDEN_IDS`` epochs. A flit with the golden id has key
  ``GOLDEN_BASE + age M + src`` (oldest first among them), every other flit
  its random key. Bound, every ejection queue drained and no source with two
  flits of one id in the network at once: the golden flit is then the
  highest-priority flit in the network for its whole epoch, so by the
  argument above (side buffers included) it leaves within ``(D + 1) K``
  cycles, inside the epoch. A flit injected in cycle t0 is in the network when
  its id's next epoch starts, at most ``M GOLDEN_IDS L`` cycles later, and
  leaves within it: at most ``(M GOLDEN_IDS + 1)(D + 1)`` hops
  (:func:`golden_hop_bound`). Where ids repeat (a source with ``GOLDEN_IDS``
  flits or more in the network) the oldest of them goes first, each epoch of
  the id delivers one, and the bound grows by ``M GOLDEN_IDS (D + 1)`` hops
  for each older flit with F's id. The model's ages saturate at
  ``2**age_bits - 1`` as for ``age``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import require

__all__ = ["ALLOCATORS", "DEFLECT", "EJECT_DEPTH", "PACKET_FLITS", "PRIORITIES", "GOLDEN_IDS", "GOLDEN_BASE", "Flit",
           "distances", "productive_masks", "neutral_masks", "hop_bound", "age_bits", "random_key", "golden_epoch",
           "golden_id", "golden_hop_bound", "route_step", "permute", "ideal"]

ALLOCATORS = ("permutation", "ideal")
DEFLECT = ("any", "nearest")   # where a flit with no productive output goes (module doc: "Options"); model only
EJECT_DEPTH = 2          # flits per ejection queue: one a cycle at full rate, nothing read from `ready`
PACKET_FLITS = 1         # flits per packet: every packet is one flit (:class:`Flit`), routed and deflected alone
PRIORITIES = ("age", "random", "golden")   # how contending flits are ranked (module doc: "Priority"); RTL: age
GOLDEN_IDS = 16          # golden priority: sequence numbers per source, counted at injection modulo this
GOLDEN_BASE = 1 << 48    # golden priority: added to the golden flits' (age, src) key, above every random key


@dataclass(frozen=True)
class Flit:
    """One single-flit packet: ``dst``, ``src``, ``age`` (cycles since injection), ``payload``."""

    dst: int
    src: int
    age: int
    payload: int = 0

    def key(self) -> tuple[int, int]:
        """Priority: older first, then the larger source number."""
        return (self.age, self.src)


def distances(planes) -> np.ndarray:
    """``dist[n][d]``: hops from n to d on the planes' multigraph (BFS from every node); -1 if unreachable."""
    planes = np.asarray(planes, dtype=np.int64)
    S, M = planes.shape
    dist = np.full((M, M), -1, dtype=np.int64)
    for s in range(M):
        dist[s, s] = 0
        q = deque([s])
        while q:
            u = q.popleft()
            for y in range(S):
                v = planes[y, u]
                if dist[s, v] < 0:
                    dist[s, v] = dist[s, u] + 1
                    q.append(v)
    return dist


def productive_masks(planes, dist: np.ndarray | None = None) -> np.ndarray:
    """``mask[n][d]``: bit y set iff output y of n takes a flit for d one hop closer (0 for d = n).

    Raises :class:`PermnetError` if some node cannot reach another (a flit could never arrive)."""
    planes = np.asarray(planes, dtype=np.int64)
    S, M = planes.shape
    dist = distances(planes) if dist is None else dist
    require(bool((dist >= 0).all()), "deflection routing needs every node to reach every other through the planes")
    mask = np.zeros((M, M), dtype=np.int64)
    for y in range(S):
        nxt = dist[planes[y]]                       # nxt[n][d] = dist(planes[y][n], d)
        mask |= np.where(nxt == dist - 1, 1 << y, 0)
    np.fill_diagonal(mask, 0)
    return mask


def neutral_masks(planes, dist: np.ndarray | None = None) -> np.ndarray:
    """``mask[n][d]``: bit y set iff output y of n leaves a flit for d as far from d as it is (0 for d = n):
    the outputs of ``deflect="nearest"`` (module doc, "Options")."""
    planes = np.asarray(planes, dtype=np.int64)
    S, M = planes.shape
    dist = distances(planes) if dist is None else dist
    mask = np.zeros((M, M), dtype=np.int64)
    for y in range(S):
        mask |= np.where(dist[planes[y]] == dist, 1 << y, 0)
    np.fill_diagonal(mask, 0)
    return mask


def hop_bound(M: int, S: int, diameter: int, hop_cycles: int = 1, side_buffer: int = 0) -> int:
    """Hops within which every flit is delivered while every ejection queue is drained (module doc):
    ``M S D`` for K = 1, ``M S K (D + 1)`` for K > 1 (a flit may become the oldest partway along
    a link); with a side buffer of B > 0 flits, ``M (S K + B) (D + 1)``."""
    if side_buffer:
        return M * (S * hop_cycles + side_buffer) * (diameter + 1)
    return M * S * hop_cycles * (diameter + (1 if hop_cycles > 1 else 0))


def age_bits(M: int, S: int, diameter: int, hop_cycles: int = 1, side_buffer: int = 0) -> int:
    """Bits of a flit's age: enough for the cycles of :func:`hop_bound` hops."""
    return max(1, (hop_bound(M, S, diameter, hop_cycles, side_buffer) * hop_cycles).bit_length())


_H32 = 0xFFFFFFFF


def _lowbias32(x: int) -> int:
    """C. Wellons's "lowbias32" integer hash (hash-prospector), on 32 bits."""
    x ^= x >> 16
    x = (x * 0x7FEB352D) & _H32
    x ^= x >> 15
    x = (x * 0x846CA68B) & _H32
    return x ^ (x >> 16)


def random_key(seed: int, cycle: int, serial: int) -> int:
    """The ``random`` priority's key of packet ``serial`` (its creation index) in ``cycle`` (module doc,
    "Priority"): ``h(h(h(seed) ^ cycle) ^ serial)``, h :func:`_lowbias32`, each input taken modulo 2^32;
    a 32-bit key, fresh every cycle, a function of the run's seed only."""
    return _lowbias32(_lowbias32(_lowbias32(seed & _H32) ^ (cycle & _H32)) ^ (serial & _H32))


def golden_epoch(diameter: int, hop_cycles: int = 1) -> int:
    """Cycles of a golden epoch, ``(D + 1) K``: the highest-priority flit leaves within them (module doc)."""
    return (diameter + 1) * hop_cycles


def golden_id(cycle: int, M: int, epoch: int) -> tuple[int, int]:
    """The golden packet id ``(src, seq)`` in ``cycle``: epoch ``e = cycle // epoch`` makes
    ``(e mod M, (e div M) mod GOLDEN_IDS)`` golden, each id once every ``M GOLDEN_IDS`` epochs."""
    e = cycle // epoch
    return e % M, (e // M) % GOLDEN_IDS


def golden_hop_bound(M: int, diameter: int) -> int:
    """Hops within which the ``golden`` priority delivers every flit while every ejection queue is drained
    and no source has two flits of one id in the network (module doc, "Priority"):
    ``(M GOLDEN_IDS + 1)(D + 1)``."""
    return (M * GOLDEN_IDS + 1) * (diameter + 1)


def _beats(a: Flit | None, b: Flit | None, key=Flit.key) -> bool:
    """The upper lane's flit ``a`` wins against the lower lane's ``b`` (``key``: the priority)."""
    return a is not None and (b is None or key(a) >= key(b))


def _sides(mask: int, q: int, b: int) -> tuple[bool, bool]:
    """Whether a flit with productive ``mask`` on lane q can use side 0 / side 1 at the stage of bit b."""
    base = (q >> (b + 1)) << (b + 1)              # the lowest output the pair can still reach
    lo_bits = ((1 << (1 << b)) - 1) << base       # side 0: outputs base .. base + 2^b - 1
    hi_bits = lo_bits << (1 << b)                 # side 1: the next 2^b outputs
    return bool(mask & lo_bits), bool(mask & hi_bits)


def _only(use0: bool, use1: bool) -> int | None:
    """The one side a flit can use, or None (both or neither)."""
    if use0 != use1:
        return 0 if use0 else 1
    return None


def _use(mask: int, neutral: int | None, q: int, b: int) -> int:
    """The mask a flit uses in the block of lane q at the stage of bit b: its productive mask, or with
    ``deflect="nearest"`` its neutral mask when no productive output is in the block's reach."""
    if neutral is None:
        return mask
    reach = ((1 << (1 << (b + 1))) - 1) << ((q >> (b + 1)) << (b + 1))
    return mask if mask & reach else neutral


def permute(lanes: list, masks: list[int], S: int, neutral: list[int] | None = None, key=Flit.key) -> list:
    """CHIPPER-style permutation network (module doc, step 3): ``lanes[p]`` a flit or None, ``masks[p]``
    its productive mask, ``neutral[p]`` its neutral mask (``deflect="nearest"``; None: the default),
    ``key`` a flit's priority (module doc, "Priority"); returns the flit on each output."""
    k = S.bit_length() - 1
    require(S == 1 << k, f"the permutation allocator needs S a power of two, got S = {S}")
    lanes, masks = list(lanes), list(masks)
    neut = list(neutral) if neutral is not None else [None] * S
    for s in range(k):
        b = k - 1 - s
        for p in range(S):
            if p >> b & 1:
                continue
            q = p | 1 << b
            up, lo = (lanes[p], masks[p], neut[p]), (lanes[q], masks[q], neut[q])
            if _beats(lanes[p], lanes[q], key):
                win, lose, win_side = up, lo, 0
            else:
                win, lose, win_side = lo, up, 1
            w_only = _only(*_sides(_use(win[1], win[2], p, b), p, b)) if win[0] is not None else None
            l_only = _only(*_sides(_use(lose[1], lose[2], p, b), p, b)) if lose[0] is not None else None
            if w_only is not None:
                win_side = w_only
            elif l_only is not None:
                win_side = 1 - l_only
            upper, lower = (win, lose) if win_side == 0 else (lose, win)
            lanes[p], masks[p], neut[p] = upper
            lanes[q], masks[q], neut[q] = lower
    return lanes


def ideal(lanes: list, masks: list[int], S: int, neutral: list[int] | None = None, key=Flit.key) -> list:
    """The ideal allocator (module doc, step 3): by priority (``key``), the lowest free productive output, else
    (with ``neutral`` masks, ``deflect="nearest"``) the lowest free neutral output, else the lowest free output."""
    out: list = [None] * S
    order = sorted((p for p in range(S) if lanes[p] is not None), key=lambda p: key(lanes[p]), reverse=True)
    for p in order:
        free = [y for y in range(S) if out[y] is None]
        good = [y for y in free if masks[p] >> y & 1]
        near = [y for y in free if neutral is not None and neutral[p] >> y & 1]
        out[(good or near or free)[0]] = lanes[p]
    return out


def route_step(n: int, slots: list, mask_row, inject: Flit | None, room: list[bool], E: int,
               hop_cycles: int = 1, age_max: int | None = None, allocator: str = "permutation",
               neutral_row=None, side_buffer: int = 0, side: list | None = None, key=Flit.key):
    """One cycle of node n (module doc).

    ``slots[y]``: the flit at input y or None; ``mask_row[d]``: n's productive mask for d;
    ``inject``: the flit the user offers (its ``age`` ignored) or None; ``room[e]``: ejection queue e
    had room at the start of the cycle. Returns ``(outputs, ejected, injected)``: the flit on each
    output (age grown by ``hop_cycles``, saturating at ``age_max``), the flit each ejection port
    takes (or None), and whether the offered flit was taken.

    Options (module doc, "Options"; model only): ``neutral_row[d]``, n's neutral mask for d
    (``deflect="nearest"``); ``side_buffer`` B > 0 with ``side``, n's side buffer at the start of
    the cycle (a list of at most B flits, in order of entry), which is updated in place to its
    content at the start of the next cycle (ages grown by 1, saturating at ``age_max``); ``key``, a
    flit's priority in this cycle (module doc, "Priority"; default :meth:`Flit.key`, ``age``), called on
    the flits as they are at the start of the cycle (the offered flit with ``src`` n and ``age`` 0)."""
    S = len(slots)
    require(1 <= E <= S, f"ejection ports must be 1..S, got {E}")
    require(side_buffer == 0 or (side is not None and len(side) <= side_buffer),
            "a side buffer needs its content, at most side_buffer flits")
    lanes = list(slots)
    ejected: list = [None] * E
    for e in range(E):
        if not room[e]:
            continue
        cand = [y for y in range(e, S, E) if lanes[y] is not None and lanes[y].dst == n]
        if cand:
            y = max(cand, key=lambda y: key(lanes[y]))
            ejected[e] = lanes[y]
            lanes[y] = None
    if side_buffer and side:
        i = max(range(len(side)), key=lambda i: key(side[i]))
        f = side[i]
        free = [y for y in range(S) if lanes[y] is None]
        if free:
            lanes[free[0]] = f
            del side[i]
        elif all(key(f) > key(g) for g in lanes):
            cand = [y for y in range(S) if lanes[y].dst != n]
            if cand:
                y = min(cand, key=lambda y: key(lanes[y]))
                del side[i]
                side.append(lanes[y])
                lanes[y] = f
    injected = False
    if inject is not None:
        free = [y for y in range(S) if lanes[y] is None]
        if free:
            lanes[free[0]] = Flit(inject.dst, n, 0, inject.payload)
            injected = True
    masks = [int(mask_row[f.dst]) if f is not None else 0 for f in lanes]
    neutral = None if neutral_row is None else [int(neutral_row[f.dst]) if f is not None else 0 for f in lanes]
    out = (permute if allocator == "permutation" else ideal)(lanes, masks, S, neutral, key)
    if side_buffer and len(side) < side_buffer:
        for y, f in enumerate(out):
            if f is not None and f.dst != n and not int(mask_row[f.dst]) >> y & 1:
                side.append(f)
                out[y] = None
                break
    if side_buffer:
        side[:] = [Flit(f.dst, f.src, f.age + 1 if age_max is None else min(f.age + 1, age_max), f.payload)
                   for f in side]
    grow = []
    for f in out:
        if f is not None:
            age = f.age + hop_cycles
            f = Flit(f.dst, f.src, age if age_max is None else min(age, age_max), f.payload)
        grow.append(f)
    return grow, ejected, injected
