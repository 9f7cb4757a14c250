"""``permnet hil run --design network``: live traffic through the network
design (:mod:`permnet.hdl.hil.netgen` behind the ``netgen`` register block)
and its counters beside the simulator's prediction.

The host reads the network's shape (LDI(M, S), VCs, buffers, lanes) from
``netgen_info``, computes the generators' packets
(:func:`permnet.gen.hil.netgen.trace`) and the simulator's counters for them
(:func:`permnet.sim.netsim.counters.predict`), writes the generator
registers, clears the run (cycle 0), waits until the run's cycle counter has
passed the simulator's last delivery and reads every counter.  The counters
must be equal, counter for counter; a source queue that overflowed
(``dropped``) makes them differ, as it should: the simulator's queues hold
the whole trace.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from permnet.gen.errors import require
from permnet.gen.hil import regmap as R
from permnet.gen.hil.netgen import PATTERNS, GenParams, trace
from permnet.hil.link import HilError, HilTimeout, Link

__all__ = ["NetworkRunReport", "run_network"]


@dataclass
class NetworkRunReport:
    """The run: ``network`` (shape read from the device), ``params``, ``start``/``stop``, the
    packets generated, the counters ``got`` (device) and ``want`` (simulator), per counter a list
    per node, and ``diffs``: ``[counter, node, got, want]`` for each difference."""

    url: str
    network: dict
    params: dict
    start: int
    stop: int
    packets: int
    last_delivery: int
    got: dict = field(default_factory=dict)
    want: dict = field(default_factory=dict)
    diffs: list = field(default_factory=list)
    timing: dict = field(default_factory=dict)
    link: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.diffs

    def as_dict(self) -> dict:
        return {"url": self.url, "network": self.network, "params": self.params, "start": self.start,
                "stop": self.stop, "packets": self.packets, "last_delivery": self.last_delivery, "got": self.got,
                "want": self.want, "diffs": self.diffs, "ok": self.ok, "link": self.link,
                "timing": {k: round(v, 3) for k, v in self.timing.items()}}

    def lines(self) -> list[str]:
        n = self.network
        p = self.params
        out = [f"network LDI({n['M']},{n['S']}): {n['vcs']} VCs x {n['buffer']} flits, {n['lanes']} lanes, "
               f"{n['queue']}-packet source queues",
               f"traffic {p['pattern']}, rate {p['rate']}/65536, {p['size']} flits, seed {p['seed']}: "
               f"cycles {self.start}..{self.stop - 1}, {self.packets} packets, last delivered by cycle "
               f"{self.last_delivery}",
               "counter         device, per node  |  netsim, per node"]
        for name in R.NET_COUNTERS:
            g, w = self.got[name], self.want[name]
            mark = "equal" if g == w else "DIFFERENT"
            out.append(f"{name:15} {' '.join(map(str, g))}  |  {' '.join(map(str, w))}  {mark}")
        out.append("RESULT: " + ("counters equal the simulator's" if self.ok
                                 else f"{len(self.diffs)} counters differ from the simulator's"))
        return out


def _network_info(link: Link) -> dict:
    design = link.reg("sys", "design")
    if not design >> R.DESIGN_BITS["network"] & 1:
        raise HilError(f"{link.url}: the device has no network design (sys_design {design:#x}); "
                       "build it with --design network")
    a, b = link.reg("netgen", "info"), link.reg("netgen", "info2")
    return {"M": a & 0xFFFF, "S": a >> 16 & 0xFF, "vcs": a >> 24 & 0xF, "buffer": 1 << (a >> 28),
            "flit_width": b & 0xFF, "queue": b >> 8 & 0xFFFF, "lanes": b >> 24}


def run_network(url: str, *, cycles: int, params: GenParams, start: int = 16, timeout: float = 1.0,
                max_seconds: float = 120.0) -> NetworkRunReport:
    """Run the generators for ``cycles`` cycles from cycle ``start`` of a cleared run, wait for
    the last packet the simulator delivers, read and compare every counter."""
    from permnet.gen.routing import tables
    from permnet.sim.netsim import Config
    from permnet.sim.netsim.counters import predict

    require(1 <= cycles <= 1 << 30 and 0 <= start <= 1 << 30, "--cycles must be 1..2^30 (and start 0..2^30)")
    t0 = time.perf_counter()
    with Link(url, timeout=timeout) as link:
        net = _network_info(link)
        M, S = net["M"], net["S"]
        params.check(M)
        stop = start + cycles
        rows = trace(M, params, start, stop)
        t = time.perf_counter()
        want = predict(tables.network("ldi", M, S),
                       rows, Config(vcs=net["vcs"], buffer=net["buffer"], lanes=net["lanes"],
                                    drain=max(4 * cycles, 10_000)))
        timing = {"model_s": time.perf_counter() - t}
        last = want.pop("cycles")
        rep = NetworkRunReport(url, net, {"pattern": params.pattern, "rate": params.rate, "size": params.size,
                                          "seed": params.seed, "hot": params.hot, "hot_frac": params.hot_frac},
                               start, stop, len(rows), last, want=want, timing=timing)
        seed = params.seed
        regs = {"pattern": PATTERNS.index(params.pattern), "rate": params.rate, "size": params.size,
                "seed_lo": seed & 0xFFFFFFFF, "seed_hi": seed >> 32, "hot": params.hot,
                "hot_frac": params.hot_frac, "start": start, "stop": stop}
        t = time.perf_counter()
        for name, v in regs.items():
            link.set_reg("netgen", name, v)
        if params.perm is not None:
            link.write(R.addr("netgen", "perm"), [int(d) for d in params.perm])
        link.set_reg("netgen", "ctrl", 1)
        deadline = time.monotonic() + max_seconds
        while link.reg("netgen", "cycle") <= max(last, stop):
            if time.monotonic() > deadline:
                raise HilTimeout(f"{url}: the run did not reach cycle {max(last, stop)} in {max_seconds:g} s")
            time.sleep(0.01)
        rep.timing["run_s"] = time.perf_counter() - t
        for name in R.NET_COUNTERS:
            rep.got[name] = link.read(R.addr("netgen", name), M)
        rep.link = link.counters().as_dict()
    for name in R.NET_COUNTERS:
        rep.diffs += [[name, n, g, w] for n, (g, w) in enumerate(zip(rep.got[name], rep.want[name])) if g != w]
    rep.timing["total_s"] = time.perf_counter() - t0
    return rep
