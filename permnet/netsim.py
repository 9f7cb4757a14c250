"""``permnet netsim`` as one library call: build the networks, check their
virtual channels against the channel dependency graph, sweep the loads,
write the curves (:mod:`permnet.sim.netsim`, :mod:`permnet.netsim_plot`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from permnet.gen.errors import require

__all__ = ["NetsimRequest", "NetsimReport", "run", "build", "deadlock"]

@dataclass
class NetsimRequest:
    topologies: list
    nodes: int
    degree: int | None
    traffic: str | None = None         # None: uniform (not with trace)
    load: str | None = None            # None: 0.1 (not with trace)
    routing: str = "family"
    chords: str | None = None
    trace: str | None = None
    allow_deadlock: bool = False
    outdir: str | None = None
    links: bool = False
    config: str | None = None
    refine: int = 0
    levels: int | None = None          # IP families (hsn, rcc, qcn, ...): as permnet topo takes them
    nucleus: str | None = None
    merge: str | None = None
    symmetric: bool = False
    traffic_matrix: str | None = None  # a demand file or pattern (permnet.trafficfiles.read_demand)
    given: dict = field(default_factory=dict)  # the options given on the command line, parameter name -> flag
                                       # ({"vcs": "--vcs"}, permnet.cli.common.given_options): checked against
                                       # the router kind of --switching (permnet.routerkinds.check_options)
    workers: int = 1                   # local processes running the load points (issue 44)
    scheduler: str | None = None       # a Dask scheduler address, or "local" (a LocalCluster here)

    def ip(self) -> dict:
        return {"levels": self.levels, "nucleus": self.nucleus, "merge": self.merge, "symmetric": self.symmetric}


@dataclass
class NetsimReport:
    sweeps: list
    single: bool
    files: list

    def as_dict(self) -> dict:
        if self.single and len(self.sweeps) == 1:
            return self.sweeps[0].points[0].as_dict()
        out = [s.as_dict() for s in self.sweeps]
        return out[0] if len(out) == 1 else {"topologies": out}

    def summaries(self) -> list[str]:
        return [p.summary() for s in self.sweeps for p in s.points]


def build(topology: str, nodes: int | None, degree: int | None, routing: str = "family", chords=None,
          config: str | None = None, **ip):
    """A :class:`permnet.gen.routing.tables.Network` from a family or from an OCS
    configuration file (any format :mod:`permnet.ocsconfig` reads; shortest-path routing).
    ``ip``: ``levels``, ``nucleus``, ``merge``, ``symmetric`` of an IP family."""
    from permnet.gen.routing import tables

    ip = {k: v for k, v in ip.items() if v not in (None, False)}

    if config is not None:
        from permnet import ocsconfig

        cfg = ocsconfig.read(config)
        require(nodes is None or nodes == cfg.planes.shape[1],
                f"--nodes {nodes} disagrees with {config} ({cfg.planes.shape[1]} ports)")
        table = tables.from_planes(cfg.planes, routing)
        return tables.Network(f"config {Path(config).name}", table,
                              {"nodes": int(cfg.planes.shape[1]), "degree": int(cfg.planes.shape[0])})
    require(nodes is not None or topology in tables.IP_TOPOLOGIES, "--nodes is required (or --config FILE)")
    return tables.network(topology, nodes, degree, routing, chords=chords, **ip)


def deadlock(topology: str, nodes: int | None, degree: int | None, *, vcs: int | None = None,
             routing: str = "family", chords=None, config: str | None = None, **ip):
    """:func:`permnet.gen.analysis.deadlock.analyse` of a family or a configuration file
    (``ip``: ``levels``, ``nucleus``, ``merge``, ``symmetric`` of an IP family)."""
    from permnet.gen.analysis.deadlock import MAX_VCS, analyse

    require(vcs is None or 1 <= vcs <= MAX_VCS, f"--vcs must be in 1..{MAX_VCS}, got {vcs}")
    net = build(topology, nodes, degree, routing, chords, config, **ip)
    return analyse(net.table, vcs, topology=net.name)


def _check_vcs(net, config, allow: bool, hint: str = " (--allow-deadlock runs it anyway)") -> None:
    """Refuse ``config.vcs`` VCs below the longest route when the channel dependency graph has a cycle."""
    from permnet.gen.analysis.deadlock import analyse

    H = net.table.max_hops
    if config.vcs is None or config.vcs >= H or allow:
        return
    rep = analyse(net.table, config.vcs, topology=net.name)
    require(rep.acyclic, f"{net.name}: {config.vcs} VC(s) is below what the routing needs ({H} hops); "
                         f"channel dependency cycle {rep.cycle_text()}{hint}")


def run(req: NetsimRequest, config) -> NetsimReport:
    """Simulate every topology of ``req`` at every load; write ``outdir`` if asked. The options of
    ``req.given`` are checked against the router kind of ``config.switching``
    (:func:`permnet.routerkinds.check_options`), whose ``netsim_defaults`` replace the fields of
    ``config`` whose option was not given (deflection: single-flit packets)."""
    from dataclasses import replace

    from permnet.fileio import atomic_dir, dumps_json, read_text, atomic_write
    from permnet.routerkinds import check_options
    from permnet.sim import netsim

    require(req.topologies, "no topology given")
    kind = check_options(config.switching, "netsim", req.given)
    config = replace(config, **{k: v for k, v in kind.netsim_defaults.items() if k not in req.given})
    require(req.trace is None or req.traffic_matrix is None, "--trace and --traffic-matrix exclude each other")
    require(req.traffic is None or req.traffic_matrix is None,
            "--traffic and --traffic-matrix exclude each other (the matrix gives every destination)")
    require(0 <= req.refine <= 20, f"--refine must be 0..20 bisection steps, got {req.refine}")
    require(req.trace is None or (req.traffic is None and req.load is None),
            "--trace gives every packet and its cycle; --traffic and --load would be ignored: give one or the other")
    load_list = netsim.loads(req.load or "0.1") if req.trace is None else [1.0]
    from permnet.gen.parallel import Runner
    from permnet.sim.netsim.sweeps import sweep_all

    items = []
    for topo in (req.topologies if req.config is None else ["config"]):
        net = build(topo, req.nodes, req.degree, req.routing, req.chords, req.config, **req.ip())
        cfg = config.check(net.table.max_hops)
        if req.trace is not None:
            traffic = netsim.parse_trace(read_text(req.trace), net.table.M, cfg.packet_limit(), where=req.trace)
        elif req.traffic_matrix is not None:
            from permnet.trafficfiles import read_demand

            traffic = netsim.matrix(read_demand(req.traffic_matrix, net.table.M, cfg.seed, "--traffic-matrix"),
                                    req.traffic_matrix)
        else:
            traffic = netsim.pattern(req.traffic or "uniform", net.table.M, cfg.seed)
        if kind.checks_vcs:
            _check_vcs(net, cfg, req.allow_deadlock)
        items.append((net, traffic, cfg))
    with Runner(req.workers, req.scheduler) as runner:  # the points, on local processes or Dask (issue 44)
        sweeps = sweep_all(items, load_list, refine=req.refine if len(load_list) > 1 else 0, runner=runner)
    for sw, (net, _, cfg) in zip(sweeps, items):
        dead = [p for p in sw.points if p.deadlock]
        if dead:
            p = dead[0]
            raise netsim.NetsimDeadlock(
                f"{net.name}: deadlock detected: no flit moved for {cfg.timeout} cycles after cycle "
                f"{p.deadlock_cycle} with {p.in_flight} packets queued or in flight ({cfg.vcs} VC(s), load {p.load:g})")
    files = []
    if req.outdir:
        from permnet.netsim_plot import latency_throughput

        with atomic_dir(req.outdir) as tmp:
            for sw in sweeps:
                stem = re.sub(r"[^A-Za-z0-9]+", "_", sw.topology).strip("_")
                atomic_write(tmp / f"{stem}.json", dumps_json(
                    {**sw.as_dict(), "points": [p.as_dict(links=req.links) for p in sw.points]}))
                atomic_write(tmp / f"{stem}.txt", "\n".join(p.summary() for p in sw.points) + "\n")
            latency_throughput(sweeps, tmp / "latency")
        out = Path(req.outdir)
        files = sorted(str(out / p.name) for p in out.iterdir())
    return NetsimReport(sweeps, req.trace is not None or len(load_list) == 1, files)
