"""A whole network in RTL: M routers joined through S switching planes (issue 14).

The same router model as the cycle-level simulator (``permnet.sim.netsim``,
whose docstring states it), built as registers and combinational logic so
that it delivers the same packets at the same cycles:

* per node a trace generator (a ROM of ``(cycle, dst, size, serial)`` rows in
  cycle order, at most one row per node per cycle); a row is a packet
  *created* at its cycle; the rows created but not yet taken are the source
  queue;
* ``lanes`` injection lanes; the front row moves into the lowest free lane
  and may send its head in the same cycle;
* per input port y and VC v a FIFO of B flits (B a power of two); a flit
  carries ``src, dst, hop, size, idx, serial`` and, with ``flit_width`` W > 0,
  a W-bit ``payload`` (:func:`flit_payload` of its serial and index, made
  when the flit leaves its lane and carried through every FIFO and plane);
* routing (VC ``min(hop, V-1)``) by one of two routers:

  - ``router="nexthop"`` (LDI(M, S) with M = S^(h-1) G, Melhem's routing):
    each head's plane comes from the divider-free next-hop unit
    (:class:`permnet.hdl.nexthop.LdiNextHop`, combinational, its node input
    the router's own node) and the node's link-to-plane map
    (:func:`permnet.gen.routing.tables.link_planes`); the head has arrived
    when :meth:`NetworkRTL.arrives` (see there);
  - ``router="table"`` (any planes): the node's route table, keyed by the
    fewest flit fields that decide the route there (:meth:`NetworkRTL.route_keys`),
    or the whole route ROM (``length[src][dst]``, ``hops[src][dst][k]``);
* per output link a round-robin arbiter over the S*V input VCs and the lanes
  (the request after the last granted one wins), output-VC ownership from
  head to tail, credit counters (B at reset) that get a credit back the cycle
  after the downstream FIFO pops;
* virtual cut-through (credits for the whole packet before the head) or
  wormhole (one credit);
* ejection of one flit per input VC per cycle; ``tail_valid[n][k]`` /
  ``tail_serial[n][k]`` pulse in the cycle a tail is ejected;
* ejection checkers: with ``expected`` (the cycle after the tail of each
  packet leaves, by serial, e.g. from the simulator) the sticky ``error``
  output rises on any tail ejected at another cycle; ``done`` rises when
  every packet has been delivered. With W > 0 every ejected flit's payload
  is compared with :func:`flit_payload` of its serial and index, and a
  mismatch sets ``error`` too (``eject_valid/serial/idx/payload[n][k]``
  show each ejected flit).

The planes are wires: output y of node n is input y of node ``planes[y][n]``
(an S-plane optical switch configured with the decomposition, Melhem eq. 3).
"""

from __future__ import annotations

from functools import cached_property

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from permnet.gen.errors import require
from permnet.gen.routing.nexthop import NextHopSpec
from permnet.gen.routing.tables import link_planes
from permnet.gen.topologies import ldi
from permnet.hdl.nexthop import LdiNextHop

__all__ = ["NetworkRTL", "ROUTERS", "trace_roms", "random_trace", "flit_payload"]

ROUTERS = ("nexthop", "table")

# payload bit i is flipped where bit i mod 64 of this constant is set (so no payload is all zeros or a plain count)
_PAYLOAD_MASK = 0x9E3779B97F4A7C15


def _bits(n: int) -> int:
    return max(1, int(n).bit_length())


def _tree_sum(values):
    """Sum as a balanced tree (a long chain of additions recurses too deeply in Amaranth)."""
    values = list(values)
    if not values:
        return Const(0, 1)
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def random_trace(M: int, packets: int, span: int, max_size: int, seed: int = 0) -> list:
    """A seeded uniform trace ``(cycle, src, dst, size)`` with at most one packet per node per cycle
    (the RTL generators' limit) and ``src != dst``."""
    import numpy as np

    require(1 <= packets <= M * span, f"{packets} packets do not fit {M} nodes x {span} cycles (one per node per cycle)")
    require(M >= 2 and max_size >= 1, "need >= 2 nodes and packets of >= 1 flit")
    rng = np.random.default_rng([seed, 0x4e7])
    slots = rng.choice(M * span, size=packets, replace=False)
    rows = []
    for x in sorted(int(v) for v in slots):
        c, s = divmod(x, M)
        d = int(rng.integers(0, M - 1))
        rows.append((c, s, d + (d >= s), int(rng.integers(1, max_size + 1))))
    return rows


def _payload_mask(width: int) -> int:
    return sum(((_PAYLOAD_MASK >> (i % 64)) & 1) << i for i in range(width))


def flit_payload(serial: int, idx: int, width: int, idx_bits: int, serial_bits: int) -> int:
    """The payload of flit ``idx`` of packet ``serial``: the ``serial_bits + idx_bits`` bits
    ``serial << idx_bits | idx`` repeated (or truncated) to ``width`` bits, XOR a fixed mask.
    Every payload bit depends on the header, so the checker detects any corrupted bit."""
    n = serial_bits + idx_bits
    x = (serial << idx_bits) | idx
    return sum(((x >> (i % n)) & 1) << i for i in range(width)) ^ _payload_mask(width)


def trace_roms(rows, M: int):
    """Per-node rows ``(cycle, dst, size, serial)`` from trace rows ``(cycle, src, dst, size)``
    (serial = index in the stably cycle-sorted trace, as in the simulator)."""
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])
    per = [[] for _ in range(M)]
    for serial, i in enumerate(order):
        c, s, d, z = rows[i]
        per[s].append((c, d, z, serial))
    for n, r in enumerate(per):
        cycles = [c for c, *_ in r]
        require(len(set(cycles)) == len(cycles), f"node {n}: at most one trace packet per node per cycle in RTL")
    return per


class NetworkRTL(wiring.Component):
    """``planes`` (S x M lists), route ``length`` (M x M) and ``hops`` (M x M x H), the trace rows;
    ``flit_width`` payload bits per flit (0: header-only flits); ``router``: ``"nexthop"`` (the
    divider-free unit, for Melhem's routing of LDI(M, S) only: checked against every route) or
    ``"table"`` (see the module doc).

    After elaboration ``buffers[n, y, v]`` holds the signals of the input VC buffer at node n,
    port y, VC v (``ent``: the entries as dicts of field signals, ``head``, ``count``), for fault
    injection in tests."""

    # :func:`permnet.hdl.synth.synthesize` maps it without ABC9's sequential mode (``-dff``), whose
    # run time on one flat network grows far faster than the design (LDI(4,2): 75 s against 8 s)
    synth_dff = False
    # and has nextpnr route it with router2 (LDI(16,4): 534 s; the default router had not finished in 40 min)
    synth_router = "router2"

    def __init__(self, planes, length, hops, rows, *, vcs: int, buffer: int = 8, lanes: int | None = None,
                 wormhole: bool = False, cycle_bits: int = 16, expected=None, flit_width: int = 0,
                 router: str = "table"):
        self.S, self.M = len(planes), len(planes[0])
        S, M = self.S, self.M
        require(router in ROUTERS, f"unknown router {router!r} (one of {', '.join(ROUTERS)})")
        self.router = router
        require(buffer >= 2 and buffer & (buffer - 1) == 0, f"RTL buffers must be a power of two >= 2, got {buffer}")
        require(vcs >= 1, "vcs must be >= 1")
        require(flit_width >= 0, f"flit width must be >= 0, got {flit_width}")
        self.W = int(flit_width)
        self.planes = [[int(x) for x in row] for row in planes]
        self.up = [[0] * M for _ in range(S)]
        for y in range(S):
            for u in range(M):
                self.up[y][self.planes[y][u]] = u
        self.length = [[int(x) for x in row] for row in length]
        self.hops = [[[int(x) for x in col] for col in row] for row in hops]
        self.H = max(1, max(max(r) for r in self.length))
        if router == "nexthop":
            self._check_unit_routes()
        self.V, self.B, self.L = vcs, buffer, lanes or S
        self.wormhole = wormhole
        self.roms = trace_roms(rows, M)
        self.npk = len(rows)
        self.cb = cycle_bits
        self.K = S * self.V + self.L
        self.nb = _bits(M - 1)
        self.hb = _bits(self.H)
        self.zb = _bits(max([z for _, _, _, z in rows] + [buffer]))
        self.sb = _bits(max(self.npk - 1, 1))
        self.expected = None if expected is None else [int(x) for x in expected]
        require(self.expected is None or len(self.expected) == self.npk, "one expected cycle per packet")
        super().__init__({"cycle": Out(cycle_bits), "delivered": Out(_bits(self.npk)), "done": Out(1),
                          "error": Out(1)})
        K = self.K
        self.tail_valid = [[Signal(name=f"tail_v_{n}_{k}") for k in range(K)] for n in range(M)]
        self.tail_serial = [[Signal(self.sb, name=f"tail_s_{n}_{k}") for k in range(K)] for n in range(M)]
        self.buffers = {}
        if self.W:
            self.eject_valid = [[Signal(name=f"ej_v_{n}_{k}") for k in range(K)] for n in range(M)]
            self.eject_serial = [[Signal(self.sb, name=f"ej_s_{n}_{k}") for k in range(K)] for n in range(M)]
            self.eject_idx = [[Signal(self.zb, name=f"ej_i_{n}_{k}") for k in range(K)] for n in range(M)]
            self.eject_payload = [[Signal(self.W, name=f"ej_p_{n}_{k}") for k in range(K)] for n in range(M)]

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

    @property
    def fields(self):
        return ("src", "dst", "hop", "size", "idx", "serial") + (("payload",) if self.W else ())

    def payload_of(self, serial, idx):
        """:func:`flit_payload` in hardware: wires and inverters."""
        x = Cat(idx, serial)
        return Cat(*[x[i % len(x)] for i in range(self.W)]) ^ Const(_payload_mask(self.W), self.W)

    def _flit(self, name):
        f = {"src": Signal(self.nb, name=f"{name}_src"), "dst": Signal(self.nb, name=f"{name}_dst"),
             "hop": Signal(self.hb, name=f"{name}_hop"), "size": Signal(self.zb, name=f"{name}_size"),
             "idx": Signal(self.zb, name=f"{name}_idx"), "serial": Signal(self.sb, name=f"{name}_ser")}
        if self.W:
            f["payload"] = Signal(self.W, name=f"{name}_pay")
        return f

    def elaborate(self, platform):
        m = Module()
        S, M, V, B, L, K, H = self.S, self.M, self.V, self.B, self.L, self.K, self.H
        FIELDS = self.fields
        cycle = Signal(self.cb)
        m.d.sync += cycle.eq(cycle + 1)
        m.d.comb += self.cycle.eq(cycle)
        rlen = Array(Const(self.length[s][d], self.hb) for s in range(M) for d in range(M))
        rhop = Array(Const(max(self.hops[s][d][k], 0) if k < len(self.hops[s][d]) else 0, _bits(S - 1))
                     for s in range(M) for d in range(M) for k in range(H))
        # storage: FIFO (n, y, v) is the input VC buffer at node n, port y
        fifo = {}
        for n in range(M):
            for y in range(S):
                for v in range(V):
                    fifo[n, y, v] = {
                        "ent": [self._flit(f"f{n}_{y}_{v}_{i}") for i in range(B)],
                        "head": Signal(_bits(B - 1), name=f"fh{n}_{y}_{v}"),
                        "count": Signal(_bits(B), name=f"fc{n}_{y}_{v}"),
                        "al": Signal(name=f"al{n}_{y}_{v}"), "out": Signal(_bits(S), name=f"ao{n}_{y}_{v}"),
                        "ovc": Signal(_bits(V - 1), name=f"av{n}_{y}_{v}"),
                        "pop": Signal(name=f"pop{n}_{y}_{v}"), "push": Signal(name=f"push{n}_{y}_{v}"),
                        "pdata": self._flit(f"pd{n}_{y}_{v}")}
        owner = {(n, y, v): Signal(name=f"own{n}_{y}_{v}") for n in range(M) for y in range(S) for v in range(V)}
        credit = {(n, y, v): Signal(_bits(B), init=B, name=f"cr{n}_{y}_{v}")
                  for n in range(M) for y in range(S) for v in range(V)}
        delivered = Signal.like(self.delivered)
        m.d.comb += [self.delivered.eq(delivered), self.done.eq(delivered == self.npk)]
        tails_this_cycle = []
        for n in range(M):
            keyed = self.route_keys(n) if self.router == "table" else None
            route = None
            if keyed is not None:
                # the node's route table, indexed by the concatenated key fields (first field most significant)
                route_fields, tab = keyed
                widths = [{"hop": self.hb, "dst": self.nb}[f] for f in route_fields]
                keys = [()]
                for w in widths:
                    keys = [key + (x,) for key in keys for x in range(1 << w)]
                route = Array(Const(a | (p << 1), 1 + _bits(S - 1))
                              for a, p in (tab.get(key, (0, 0)) for key in keys))
            rom = self.roms[n]
            nr = len(rom)
            tp = Signal(_bits(nr), name=f"tp{n}")
            rcyc = Array(Const(c, self.cb) for c, *_ in rom) if rom else Array([Const(0, self.cb)])
            rdst = Array(Const(d, self.nb) for _, d, _, _ in rom) if rom else Array([Const(0, self.nb)])
            rsz = Array(Const(z, self.zb) for _, _, z, _ in rom) if rom else Array([Const(1, self.zb)])
            rser = Array(Const(s, self.sb) for *_, s in rom) if rom else Array([Const(0, self.sb)])
            front = Signal(name=f"front{n}")
            m.d.comb += front.eq((tp < nr) & (rcyc[tp] <= cycle))
            # lanes (registered) and their effective state after the NIC move of this cycle
            lane = [{"v": Signal(name=f"lv{n}_{j}"), "dst": Signal(self.nb, name=f"ld{n}_{j}"),
                     "size": Signal(self.zb, name=f"lz{n}_{j}"), "serial": Signal(self.sb, name=f"ls{n}_{j}"),
                     "idx": Signal(self.zb, name=f"li{n}_{j}"), "al": Signal(name=f"la{n}_{j}"),
                     "out": Signal(_bits(S), name=f"lo{n}_{j}"), "ovc": Signal(_bits(V - 1), name=f"lc{n}_{j}")}
                    for j in range(L)]
            movej = [Signal(name=f"mv{n}_{j}") for j in range(L)]
            taken = Const(0, 1)
            for j in range(L):
                m.d.comb += movej[j].eq(front & ~lane[j]["v"] & ~taken)
                taken = taken | ~lane[j]["v"]
            anymove = Signal(name=f"anymove{n}")
            m.d.comb += anymove.eq(Cat(*movej).any())
            with m.If(anymove):
                m.d.sync += tp.eq(tp + 1)
            eff = []
            for j in range(L):
                e = {"v": Signal(name=f"ev{n}_{j}"), "dst": Signal(self.nb, name=f"ed{n}_{j}"),
                     "size": Signal(self.zb, name=f"ez{n}_{j}"), "serial": Signal(self.sb, name=f"es{n}_{j}"),
                     "idx": Signal(self.zb, name=f"ei{n}_{j}"), "al": Signal(name=f"ea{n}_{j}"),
                     "out": Signal(_bits(S), name=f"eo{n}_{j}"), "ovc": Signal(_bits(V - 1), name=f"ec{n}_{j}")}
                with m.If(movej[j]):
                    m.d.comb += [e["v"].eq(1), e["dst"].eq(rdst[tp]), e["size"].eq(rsz[tp]),
                                 e["serial"].eq(rser[tp]), e["idx"].eq(0), e["al"].eq(0), e["out"].eq(0),
                                 e["ovc"].eq(0)]
                with m.Else():
                    m.d.comb += [e[f].eq(lane[j][f]) for f in e]
                eff.append(e)
            # candidates: network VCs (y-major, v-minor), then lanes
            cand = []
            for k in range(K):
                c = {f: Signal.like(self._flit("x")[f], name=f"c{n}_{k}_{f}") for f in FIELDS}
                c.update(has=Signal(name=f"has{n}_{k}"), al=Signal(name=f"cal{n}_{k}"),
                         out=Signal(_bits(S), name=f"cout{n}_{k}"), ovc=Signal(_bits(V - 1), name=f"covc{n}_{k}"))
                if k < S * V:
                    y, v = divmod(k, V)
                    q = fifo[n, y, v]
                    m.d.comb += [c["has"].eq(q["count"] != 0), c["al"].eq(q["al"]), c["out"].eq(q["out"]),
                                 c["ovc"].eq(q["ovc"])]
                    for f in FIELDS:
                        m.d.comb += c[f].eq(Array(ent[f] for ent in q["ent"])[q["head"]])
                else:
                    e = eff[k - S * V]
                    m.d.comb += [c["has"].eq(e["v"]), c["al"].eq(e["al"]), c["out"].eq(e["out"]),
                                 c["ovc"].eq(e["ovc"]), c["src"].eq(n), c["dst"].eq(e["dst"]), c["hop"].eq(0),
                                 c["size"].eq(e["size"]), c["idx"].eq(e["idx"]), c["serial"].eq(e["serial"])]
                    if self.W:
                        m.d.comb += c["payload"].eq(self.payload_of(e["serial"], e["idx"]))
                arrived = Signal(name=f"arr{n}_{k}")
                nexthop = Signal(_bits(S - 1), name=f"nh{n}_{k}")
                if self.router == "nexthop":
                    unit = m.submodules[f"nh{n}_{k}"] = LdiNextHop(M, S, pipeline=0, shortcut=True)
                    lp = self.link_plane[n]
                    m.d.comb += [unit.i_valid.eq(c["has"]), unit.i_node.eq(n), unit.i_dest.eq(c["dst"]),
                                 unit.i_hop.eq(c["hop"]), arrived.eq(self.arrives(n, c["dst"], c["hop"])),
                                 nexthop.eq(unit.o_link if lp == list(range(S))
                                            else Array(Const(y, _bits(S - 1)) for y in lp)[unit.o_link])]
                elif route is None:
                    pair = c["src"] * M + c["dst"]
                    m.d.comb += [arrived.eq(rlen[pair] == c["hop"]), nexthop.eq(rhop[pair * H + c["hop"]])]
                else:
                    m.d.comb += Cat(arrived, nexthop).eq(route[Cat(*(c[f] for f in reversed(route_fields)))])
                c["eject"] = Signal(name=f"ej{n}_{k}")
                c["new"] = Signal(name=f"new{n}_{k}")
                c["req"] = Signal(name=f"req{n}_{k}")
                c["wout"] = Signal(_bits(S), name=f"wo{n}_{k}")
                c["wovc"] = Signal(_bits(V - 1), name=f"wv{n}_{k}")
                c["tail"] = Signal(name=f"tl{n}_{k}")
                m.d.comb += [
                    c["tail"].eq(c["idx"] == c["size"] - 1),
                    c["eject"].eq(c["has"] & ((~c["al"] & arrived) | (c["al"] & (c["out"] == S)))),
                    c["new"].eq(c["has"] & ~c["al"] & ~arrived),
                    c["req"].eq(c["new"] | (c["has"] & c["al"] & (c["out"] != S))),
                    c["wout"].eq(Mux(c["al"], c["out"], nexthop)),
                    c["wovc"].eq(Mux(c["al"], c["ovc"], Mux(c["hop"] >= V - 1, V - 1, c["hop"]))),
                    self.tail_valid[n][k].eq(c["eject"] & c["tail"]),
                    self.tail_serial[n][k].eq(c["serial"]),
                ]
                if self.W:
                    m.d.comb += [self.eject_valid[n][k].eq(c["eject"]), self.eject_serial[n][k].eq(c["serial"]),
                                 self.eject_idx[n][k].eq(c["idx"]), self.eject_payload[n][k].eq(c["payload"])]
                tails_this_cycle.append(self.tail_valid[n][k])
                cand.append(c)
            # output arbitration, one round-robin arbiter per plane
            sent = [Signal(name=f"sent{n}_{k}") for k in range(K)]
            sent_terms = [[] for _ in range(K)]
            for y in range(S):
                rr = Signal(_bits(K - 1), init=K - 1, name=f"rr{n}_{y}")
                elig = []
                for k, c in enumerate(cand):
                    own = Array(owner[n, y, v] for v in range(V))[c["wovc"]]
                    cr = Array(credit[n, y, v] for v in range(V))[c["wovc"]]
                    need = 1 if self.wormhole else c["size"]
                    ok = Signal(name=f"el{n}_{y}_{k}")
                    m.d.comb += ok.eq(c["req"] & (c["wout"] == y)
                                      & Mux(c["new"], ~own & (cr >= need), cr >= 1))
                    elig.append(ok)
                lo, hi = Signal(_bits(K - 1), name=f"lo{n}_{y}"), Signal(_bits(K - 1), name=f"hi{n}_{y}")
                anyhi = Signal(name=f"anyhi{n}_{y}")
                gv, gk = Signal(name=f"gv{n}_{y}"), Signal(_bits(K - 1), name=f"gk{n}_{y}")
                lo_e, hi_e = Const(0, _bits(K - 1)), Const(0, _bits(K - 1))
                for k in reversed(range(K)):
                    lo_e = Mux(elig[k], k, lo_e)
                    hi_e = Mux(elig[k] & (k > rr), k, hi_e)
                m.d.comb += [lo.eq(lo_e), hi.eq(hi_e),
                             anyhi.eq(Cat(*[elig[k] & (k > rr) for k in range(K)]).any()),
                             gv.eq(Cat(*elig).any()),
                             gk.eq(Mux(anyhi, hi, lo))]
                gsel = [Signal(name=f"g{n}_{y}_{k}") for k in range(K)]
                for k in range(K):
                    m.d.comb += gsel[k].eq(gv & (gk == k))
                    sent_terms[k].append(gsel[k])
                # the flit that crosses plane y
                fl = {f: Signal.like(cand[0][f], name=f"x{n}_{y}_{f}") for f in FIELDS}
                xovc = Signal(_bits(V - 1), name=f"xv{n}_{y}")
                for k in range(K):
                    with m.If(gsel[k]):
                        m.d.comb += [fl[f].eq(cand[k][f]) for f in FIELDS]
                        m.d.comb += [fl["hop"].eq(Mux(cand[k]["idx"] == 0, cand[k]["hop"] + 1, cand[k]["hop"])),
                                     xovc.eq(cand[k]["wovc"])]
                nd = self.planes[y][n]
                for v in range(V):
                    q = fifo[nd, y, v]
                    m.d.comb += q["push"].eq(gv & (xovc == v))
                    m.d.comb += [q["pdata"][f].eq(fl[f]) for f in FIELDS]
                    # credits: spent on a send, returned the cycle after the downstream pop
                    m.d.sync += credit[n, y, v].eq(credit[n, y, v] - (gv & (xovc == v)) + q["pop"])
                    with m.If(gv & (xovc == v)):
                        with m.If(fl["idx"] == fl["size"] - 1):
                            m.d.sync += owner[n, y, v].eq(0)
                        with m.Elif(fl["idx"] == 0):
                            m.d.sync += owner[n, y, v].eq(1)
                with m.If(gv):
                    m.d.sync += rr.eq(gk)
            for k in range(K):
                m.d.comb += sent[k].eq(Cat(*sent_terms[k]).any())
            # state updates of the candidates
            for k, c in enumerate(cand):
                pop = c["eject"] | sent[k]
                if k < S * V:
                    y, v = divmod(k, V)
                    q = fifo[n, y, v]
                    m.d.comb += q["pop"].eq(pop)
                    with m.If(c["eject"]):
                        m.d.sync += [q["al"].eq(~c["tail"]), q["out"].eq(S)]
                    with m.Elif(sent[k]):
                        m.d.sync += [q["al"].eq(~c["tail"]), q["out"].eq(c["wout"]), q["ovc"].eq(c["wovc"])]
                else:
                    j = k - S * V
                    e, r = eff[j], lane[j]
                    m.d.sync += [r[f].eq(e[f]) for f in ("dst", "size", "serial", "al", "out", "ovc")]
                    m.d.sync += [r["v"].eq(e["v"] & ~(pop & c["tail"])), r["idx"].eq(e["idx"] + pop)]
                    with m.If(c["eject"]):
                        m.d.sync += [r["al"].eq(1), r["out"].eq(S)]
                    with m.Elif(sent[k]):
                        m.d.sync += [r["al"].eq(1), r["out"].eq(c["wout"]), r["ovc"].eq(c["wovc"])]
        self.buffers = fifo
        # FIFO pointer and entry updates (pushes come from the upstream arbiters)
        for (n, y, v), q in fifo.items():
            m.d.sync += [q["head"].eq(q["head"] + q["pop"]), q["count"].eq(q["count"] + q["push"] - q["pop"])]
            tail_at = (q["head"] + q["count"])[: _bits(B - 1)] if B > 1 else Const(0, 1)
            for i, ent in enumerate(q["ent"]):
                with m.If(q["push"] & (tail_at == i)):
                    m.d.sync += [ent[f].eq(q["pdata"][f]) for f in FIELDS]
        m.d.sync += delivered.eq(delivered + _tree_sum(tails_this_cycle))
        # ejection checkers: a tail ejected in a cycle other than the expected one sets the sticky error
        error = Signal()
        m.d.comb += self.error.eq(error)
        bad = []
        if self.expected is not None:
            # due[serial]: packet serial is expected in this cycle (one comparator per packet, shared by all ports)
            due = Array(Signal(name=f"due{i}") for i in range(len(self.expected)))
            m.d.comb += [due[i].eq(Const(x, self.cb) == cycle + 1) for i, x in enumerate(self.expected)]
            bad += [self.tail_valid[n][k] & ~due[self.tail_serial[n][k]] for n in range(M) for k in range(K)]
        if self.W:
            # payload checkers: every ejected flit carries the payload of its serial and index
            bad += [self.eject_valid[n][k]
                    & (self.eject_payload[n][k] != self.payload_of(self.eject_serial[n][k], self.eject_idx[n][k]))
                    for n in range(M) for k in range(K)]
        if bad:
            with m.If(Cat(*bad).any()):
                m.d.sync += error.eq(1)
        return m
