"""The routing data a network's routers are built from (issue 14, issue 24).

:class:`NetworkRoutes` holds the S planes (``planes[y][n]``: the node that
output y of node n reaches), the route table (``length[src][dst]`` hops,
``hops[src][dst][k]`` the plane of hop k) and the router kind, and derives
what each node's :class:`permnet.hdl.router.Router` needs:

* ``router="nexthop"`` (LDI(M, S) with M = S^(h-1) G, Melhem's routing): the
  plane of a head comes from the divider-free next-hop unit
  (:class:`permnet.hdl.nexthop.LdiNextHop`) and the node's link-to-plane map
  (:func:`permnet.gen.routing.tables.link_planes`); a head has arrived when
  :meth:`NetworkRoutes.arrives` holds;
* ``router="table"`` (any planes): the node's route table keyed by the fewest
  flit fields that decide the route there (:meth:`NetworkRoutes.route_keys`),
  or, where no small key decides it, the whole route ROM.

With ``loadable=True`` the routing is held in registers that a plane swap
reloads (:mod:`permnet.gen.routing.runtime` computes the words, and states
which swaps each router supports): ``nexthop`` keeps the unit and loads the
link-to-plane map (S entries per node); ``table`` loads a table keyed by
``(hop, dst)`` (``2**hop_bits * M`` entries per node, ``hop_bits`` wide enough
for ``max_hops``). :meth:`NetworkRoutes.route_words` are the reset contents.
"""

from __future__ import annotations

from functools import cached_property

from permnet.gen.errors import require
from permnet.gen.routing import runtime as route_runtime
from permnet.gen.routing.nexthop import NextHopSpec
from permnet.gen.routing.tables import link_planes
from permnet.gen.topologies import ldi

__all__ = ["NetworkRoutes", "ROUTERS"]

ROUTERS = ("nexthop", "table")


class NetworkRoutes:
    """``planes`` (S x M lists), route ``length`` (M x M) and ``hops`` (M x M x H) as ints;
    ``router``: ``"nexthop"`` (checked against every route of the table) or ``"table"``;
    ``loadable``: routing in registers reloaded with the planes (module doc), with routes
    of up to ``max_hops`` hops (default: the longest route of ``length``)."""

    def __init__(self, planes, length, hops, router: str = "table", *, loadable: bool = False,
                 max_hops: int | None = None):
        self._init_routes(planes, length, hops, router, loadable, max_hops)

    def _init_routes(self, planes, length, hops, router, loadable=False, max_hops=None):
        require(router in ROUTERS, f"unknown router {router!r} (one of {', '.join(ROUTERS)})")
        self.router = router
        self.S, self.M = len(planes), len(planes[0])
        self.planes = [[int(x) for x in row] for row in planes]
        self.up = [[0] * self.M for _ in range(self.S)]
        for y in range(self.S):
            for u in range(self.M):
                self.up[y][self.planes[y][u]] = u
        self.length = [[int(x) for x in row] for row in length]
        self.hops = [[[int(x) for x in col] for col in row] for row in hops]
        self.H = max(1, max(max(r) for r in self.length), max_hops or 0)
        self.loadable = bool(loadable)
        if router == "nexthop":
            self._check_unit_routes()
        if self.loadable:
            self.route_words()          # refuses routes that the loadable tables cannot hold

    @property
    def hop_bits(self) -> int:
        """Bits of a flit's hop count (up to ``H``)."""
        return max(1, self.H.bit_length())

    @property
    def route_addr_bits(self) -> int:
        """Width of a loadable route table's address: the LDI link, or ``(hop, dst)``."""
        return max(1, (self.S - 1).bit_length()) if self.router == "nexthop" \
            else self.hop_bits + max(1, (self.M - 1).bit_length())

    @property
    def route_data_bits(self) -> int:
        """Width of a loadable route entry: the plane, or ``arrived | plane << 1``."""
        pb = max(1, (self.S - 1).bit_length())
        return pb if self.router == "nexthop" else 1 + pb

    def route_words(self, planes=None, length=None, hops=None) -> list[tuple[int, int, int]]:
        """The ``(node, addr, data)`` words of the loadable routing for ``planes`` and their
        routes (default: this network's); see :mod:`permnet.gen.routing.runtime`."""
        if planes is None and length is None and hops is None:
            if getattr(self, "_reset_words", None) is None:
                self._reset_words = self.route_words(self.planes, self.length, self.hops)
            return self._reset_words
        planes = self.planes if planes is None else planes
        if self.router == "nexthop":
            return route_runtime.nexthop_words(self.M, self.S, planes)
        length = self.length if length is None else length
        hops = self.hops if hops is None else hops
        return route_runtime.table_words(planes, length, hops, self.hop_bits)

    @cached_property
    def unit_spec(self) -> NextHopSpec:
        """The next-hop unit's parameters (LDI(M, S), with the two-hop shortcut where h = 2)."""
        return NextHopSpec(self.M, self.S, shortcut=True)

    @cached_property
    def link_plane(self) -> list:
        """``link_plane[n][L]``: the plane that carries LDI link L of node n."""
        return link_planes(self.M, self.S, self.planes).tolist()

    def arrives(self, n: int, dst, hop):
        """Whether a head bound for ``dst`` that has taken ``hop`` hops has arrived at node ``n``
        on Melhem's routes (ints, or Amaranth values in the RTL).

        A route is zero hops when src = dst; with the two-hop shortcut (h = 2) one hop to a
        successor, else two, and the node after the first hop is never dst (it would be a
        successor); with h >= 3, h hops, which may pass through dst on the way. So:
        ``dst == n`` when the shortcut applies, else ``dst == n and hop in (0, h)``."""
        sp = self.unit_spec
        if sp.shortcut:
            return dst == n
        return (dst == n) & ((hop == 0) | (hop == sp.h))

    def _check_unit_routes(self):
        """The unit's routes are the route table's: for every pair, Melhem's route
        (:func:`permnet.gen.topologies.ldi.route_melhem`, which iterating the unit reproduces)
        takes the table's planes, and :meth:`arrives` holds exactly at its end."""
        sp, lp = self.unit_spec, self.link_plane
        for s in range(self.M):
            for d in range(self.M):
                path = ldi.route_melhem(self.M, self.S, s, d, shortcut=True).paths[0]
                k = len(path) - 1
                want = [lp[u][(v - self.S * u) % self.M] for u, v in zip(path, path[1:])]
                require(self.length[s][d] == k and self.hops[s][d][:k] == want,
                        f"the route table is not Melhem's routing of LDI({self.M},{self.S}) at {s} -> {d}; "
                        "use router='table'")
                require(all(bool(self.arrives(u, d, i)) == (i == k) for i, u in enumerate(path)),
                        f"arrival rule fails on the route {s} -> {d} (h = {sp.h})")

    def route_keys(self, n):
        """The fewest flit fields that decide a head's route at node ``n``, and that decision.

        A head at node n has taken ``hop`` hops of the path from ``src`` to ``dst``: it has
        arrived if ``hop == length[src][dst]``, else it leaves on plane ``hops[src][dst][hop]``.
        Over the heads that can be at node n (every path, walked through the planes), the
        decision often depends on ``dst`` alone (or ``hop`` and ``dst``), as in LDI networks;
        then the node looks it up in a table of M (or M * 2**hop_bits) entries instead of the
        M*M*H route ROM. Returns ``(fields, {key: (arrived, plane)})`` with the key a tuple of
        those fields' values, or ``None`` when even ``(hop, dst)`` does not decide it. States
        that no path reaches are absent (the table gives them 0); they never occur."""
        tables = self._route_tables[n]
        for fields in (("dst",), ("hop", "dst")):
            if fields in tables:
                return fields, tables[fields]
        return None

    @cached_property
    def _route_tables(self):
        """Per node, the candidate tables of :meth:`route_keys` that no head contradicts,
        from one walk of every path (a table is dropped at its first conflicting head)."""
        per_node = [{("dst",): {}, ("hop", "dst"): {}} for _ in range(self.M)]
        for s in range(self.M):
            for d in range(self.M):
                u, length = s, self.length[s][d]
                for k in range(length + 1):
                    val = (1, 0) if k == length else (0, self.hops[s][d][k])
                    tables = per_node[u]
                    for fields, tab in list(tables.items()):
                        key = tuple({"hop": k, "dst": d}[f] for f in fields)
                        if tab.setdefault(key, val) != val:
                            del tables[fields]
                    if k < length:
                        u = self.planes[self.hops[s][d][k]][u]
        return per_node
