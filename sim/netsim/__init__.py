"""Cycle-level simulator of a network built from switching planes (issue 14).

The system of Melhem (seed 000): M nodes, each a router whose S output links
go through the S switching planes (link ``(n, y)`` reaches ``planes[y][n]``),
packets source-routed by a :class:`permnet.gen.routing.tables.RouteTable`
(the family's routing or BFS shortest paths).

Router model (stated, one cycle per hop)
---------------------------------------
* Input VC buffers: each network input port has V virtual channels of B
  flits.  Hop k of a packet uses VC ``min(k, V-1)`` (hop-indexed, Melhem
  Section 6); with V at least the longest route the channel dependency graph
  is acyclic (:mod:`permnet.gen.analysis.deadlock`).
* Credit-based flow control: an output VC starts with B credits, spends one
  per flit sent; the credit comes back the cycle after the flit leaves the
  downstream buffer (visible one cycle later).
* Switching: virtual cut-through (default; a head may take an output VC only
  when no other packet owns it and it has credits for the whole packet) or
  wormhole (credits for one flit).  An output VC is owned from the head to
  the tail of a packet; flits of different VCs share the link flit by flit.
* Allocation: each output link sends at most one flit per cycle, chosen
  round-robin among the input VCs and injection lanes requesting it
  (combined VC and switch allocation). With ``allocator="combined"`` (the
  default) there is no input-port limit: the V VCs of one input port may
  all move in one cycle. With ``allocator="input-first"`` each input port
  first offers one of its VCs (a lane is a port of its own): round robin,
  after the last of its VCs that moved, among those that can move this
  cycle (the output VC it asks for is free with the credits it needs, or it
  has arrived and the ejection port may take it); the output and ejection
  arbiters then go round the ports (the S input ports, then the lanes): the
  first port after the last one granted whose offered VC asks. A port moves
  at most one flit per cycle, so its buffers need one read port (the RTL
  keeps them in one LUT RAM per port, :class:`permnet.hdl.router.Router`).
  ``allocator="two-stage"`` is input-first with the choice a cycle ahead:
  the VC a port offers in cycle t + 1 is its round-robin choice (after the
  last of its VCs that moved, as of the start of t) among those that could
  move in cycle t and those that had no head to show in t and receive one
  in t; it moves in t + 1 only if it still can. A lane is offered as soon
  as it holds a packet. Its ejection port is a register: a flit ejected in
  cycle t reaches the user in t + 1. Alone in the network a packet loses
  only that cycle (zero-load latency ``hops (1 + L) + size + 1``, L the
  link stages below); under load an offer can be stale (its VC moved its
  last flit, or another port took its output VC, in t) and the port sends
  nothing that cycle. The RTL's allocation loop loses the port's arbiter.
  ``allocator="separate-va"`` is two-stage with VC allocation a cycle
  before switch allocation: a head without an output VC asks for one (the
  VC its hop uses on its next plane); per output VC a round-robin arbiter
  (after the last candidate granted) grants it among the heads that ask
  and can have it (free, with the credits they need), which makes it owned
  and allocated to the head. Only allocated flits ask the output arbiters,
  from the next cycle on; a head that asks for its VC counts as able to
  move for its port's offer. Alone in the network a packet takes one cycle
  more per hop than two-stage (``hops (2 + L) + size + 1``).
* A flit that arrives in cycle t may leave in cycle t + 1 at the earliest
  (route, allocate and traverse the link in one cycle); with ``link_stages``
  L registers on each link (the RTL routers' output stages) a flit sent in
  cycle t can leave the next node in t + 1 + L, while its credit was spent
  at t and the buffer slot is counted from then.  With ``credit_stages`` C
  registers on each credit's way back, a credit for a pop in cycle t is
  usable upstream from t + 1 + C (the RTL routers' credit stages).
* Injection: an unbounded-rate NIC moves the front packet of its source
  queue (``queue`` packets) into one of ``lanes`` (default S) injection lanes
  per cycle; a lane sends its packet like an input VC.  Ejection takes one
  flit per cycle from every input VC whose packet has arrived
  (``ejection="vc"``), or with ``ejection="port"`` (one ejection port per
  node, as the RTL's stream endpoints, :mod:`permnet.hdl.netstream`) one flit
  per node per cycle: a round-robin arbiter over the candidates (input VCs,
  then lanes; the one after the last granted wins) picks an arrived packet
  and holds it from head to tail.
* Zero-load latency is therefore ``hops + size`` cycles (created at t, head
  on hop 1 in cycle t, ..., head at the destination at t + hops, tail ejected
  in cycle t + hops + size - 1, latency counted to the end of that cycle).
* Deadlock: if packets are in flight and no flit moves for ``timeout`` cycles
  the run stops with ``deadlock`` set (it never hangs; every run is bounded by
  warm-up + window + drain cycles).

Deflection router model (``switching="deflection"``, issue 41)
-------------------------------------------------------------
Every node is the bufferless router of
:mod:`permnet.gen.routing.deflection`, which is the spec: each cycle each
node computes exactly :func:`~permnet.gen.routing.deflection.route_step`
(ejection into E ports of ``EJECT_DEPTH``-flit queues, injection into the
lowest free slot, the ``permutation`` or ``ideal`` allocator, every flit
leaves every cycle). Around it (:mod:`permnet.sim.netsim.deflect_kernel`):

* Links: a flit on output y of node n in cycle t is at input y of
  ``planes[y][n]`` in cycle t + K, K = 1 + ``link_stages``; its age has grown
  by K, saturating at ``2**age_bits - 1``.
* Packets are single flits. A packet created in cycle t joins its source
  queue (``queue`` packets) in t; the injection port offers the queue's head,
  taken when the router has a free slot.
* The user drains each ejection queue: always ready (synthetic traffic), or
  the ``ej_ready`` of :func:`deflection_trace`. A flit ejected in cycle t is
  taken by the user in t + 1 at the earliest (the queue is registered); its
  latency is counted to the end of that cycle, so alone in the network a
  packet takes ``dist K + 2`` cycles (``dist``: BFS distance; no flit is
  deflected alone).
* Measurement as above. Besides latency and throughput: the deflection rate
  (hops that left on a non-productive output / hops), hops taken over the
  shortest distance, and the most hops of a delivered flit (``hops_max``;
  below :func:`~permnet.gen.routing.deflection.hop_bound` while the users are
  always ready). No deadlock is possible; nothing times out.
* :func:`deflection_trace`: the per-packet delivery log of a trace, the
  reference for cycle-exact tests of the RTL network.
* The spec's options, model only (the RTL implements the default):
  ``Config.deflect = "nearest"`` (neutral outputs before others) and
  ``Config.side_buffer = B`` (a MinBD-style side buffer per node); with a
  buffer, ``hops_max`` stays below ``hop_bound(..., side_buffer=B)``. The
  result also gives ``inject_stall`` (the fraction of node-cycles with a
  packet at the injection port that found no free slot), ``eject_missed``
  (flits at their destination not ejected, per node per cycle) and
  ``side_entered`` (side-buffer entries per node per cycle).
* ``Config.priority``: how contending flits rank (the spec's "Priority"):
  ``age`` (oldest first, the RTL's and the default), model only ``random``
  (a fresh key a flit and cycle, a hash of the seed, the cycle and the
  packet's serial; no hop bound) or ``golden`` (CHIPPER's golden packet,
  within ``golden_hop_bound`` while a source's ids are unique).

Random numbers come from one seeded MT19937 stream (the deflection model's
random priority keys from a hash of the seed, which draws nothing from it); a
run is a function of its inputs and the seed.
"""

from permnet.sim.netsim.run import ALLOCATORS, Config, NetsimDeadlock, Result, Sweep, loads, simulate, sweep, zero_load_latency
from permnet.sim.netsim.traffic import PATTERNS, Traffic, matrix, parse_trace, pattern
from permnet.sim.netsim.deflect import Delivery, deflection_trace

__all__ = ["ALLOCATORS", "Config", "NetsimDeadlock", "Result", "Sweep", "loads", "simulate", "sweep", "zero_load_latency",
           "PATTERNS", "Traffic", "matrix", "parse_trace", "pattern", "Delivery", "deflection_trace"]
