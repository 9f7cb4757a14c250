"""Cycle-free reference models the RTL is compared with.

* :func:`next_hop` -- one decision of the LDI next-hop unit, defined from
  Melhem's algorithm (:func:`permnet.gen.topologies.ldi.route_melhem`); iterating it
  from the source reproduces the reference router's path
  (``tests/test_reference.py``).
* :func:`route_table` -- the table of the table-driven unit (first link of
  the shortest route, :func:`permnet.gen.topologies.ldi.route_shortest`).
* :func:`crossbar` / :func:`benes_outputs` -- what a crossbar plane and a
  configured Beneš network do to one vector of data.
"""

from __future__ import annotations


from permnet.gen.routing import benes
from permnet.gen.graph.permutations import inverse_partial as crossbar_select
from permnet.gen.routing.nexthop import NextHopSpec, route_table

__all__ = ["NextHopSpec", "next_hop", "route_table", "crossbar_select", "crossbar", "benes_outputs"]


def next_hop(spec: NextHopSpec, node: int, dest: int, hop: int) -> tuple[int, int]:
    """(link, next node) for the packet at ``node`` bound for ``dest`` about
    to take hop ``hop`` (0 at the source).

    * hop 0: with the two-hop shortcut, the direct link when ``dest`` is a
      successor; otherwise the least L with ``(S n + L) mod G = d div S^(h-1)``
      (eq. 10.a);
    * hop i >= 1: ``(d div S^(h-1-i)) mod S`` (eq. 10.b); hops beyond h-1
      are treated as h-1.
    """
    M, S, G, h = spec.M, spec.S, spec.G, spec.h
    x0 = (S * node) % M
    if hop == 0:
        if spec.shortcut and (dest - x0) % M < S:
            link = (dest - x0) % M
        else:
            link = (dest // S ** (h - 1) - x0 % G) % G
    else:
        i = min(hop, h - 1)
        link = (dest // S ** (h - 1 - i)) % S
    return link, (x0 + link) % M


def crossbar(select, data) -> list[int]:
    """Egress e carries ``data[select[e]]`` (0 where unconnected)."""
    return [int(data[s]) if s >= 0 else 0 for s in select]


def benes_outputs(route: benes.BenesRoute, data) -> list[int]:
    """Output p of the configured network carries ``data[v[p]]`` where v is
    the replayed vector (position p holds the input routed to output p)."""
    from permnet.sim.network import replay_2x2

    v = replay_2x2(route.state, lambda s: benes.stage_links(route, s))
    return [int(data[i]) for i in v]
