"""The ``--traffic`` argument: a built-in pattern name or a demand file
(:mod:`permnet.gen.traffic.demand` parses it, :mod:`permnet.gen.traffic.patterns`
builds the patterns)."""

from __future__ import annotations

from pathlib import Path

from permnet.gen.errors import PermnetError

__all__ = ["read_demand"]


def read_demand(spec: str, M: int, seed: int = 0, option: str = "--traffic"):
    """The M x M demand of ``spec``: a pattern name (seeded), else a ``.npy`` or CSV file;
    ``option`` is what the errors name (``--traffic``, ``--traffic-matrix``)."""
    from permnet.fileio import read_text
    from permnet.gen.traffic import demand, patterns

    if patterns.is_pattern(spec):
        return patterns.pattern(spec, M, seed)
    p = Path(spec)
    if not p.exists():
        raise PermnetError(f"{option} {spec!r} is neither a pattern ({', '.join(patterns.PATTERNS)}) nor a file")
    if not p.is_file():         # /dev/zero, a FIFO: read until memory runs out
        raise PermnetError(f"{option} {spec}: not a regular file (a demand is read from a CSV or .npy file)")
    if p.suffix.lower() == ".npy":
        try:
            data = p.read_bytes()
        except IsADirectoryError:
            raise PermnetError(f"cannot read {spec}: it is a directory") from None
        except OSError as exc:
            raise PermnetError(f"cannot read {spec}: {exc.strerror}") from None
        return demand.parse_demand_npy(data, M, spec)
    return demand.parse_demand_text(read_text(p), M, spec)


def plan_file(spec: str, M: int, S: int, *, seed: int = 0, evaluations: int = 0, output=None, fmt=None,
              device_ports=None, single_file=False, restarts: int = 1, workers: int = 1, scheduler=None):
    """``permnet plan``: the demand of ``spec``, planes planned for it
    (:func:`permnet.gen.traffic.plan.plan_planes`) and, with ``output``, the
    planes file every other command reads; returns (result, paths written)."""
    from permnet import ocsconfig
    from permnet.gen.traffic.plan import plan_planes

    res = plan_planes(read_demand(spec, M, seed), S, evaluations=evaluations, seed=seed, restarts=restarts,
                      workers=workers, scheduler=scheduler)
    paths = []
    if output:
        meta = {"family": "traffic-plan", "nodes": M, "degree": S, "traffic": spec, "seed": seed,
                "circuits": res.circuits, "free_planes": res.free}
        paths = ocsconfig.write_files(ocsconfig.OcsConfig(res.planes, meta), output, fmt, device_ports, single_file)
    return res, paths


def schedule_config(rep):
    """The OCS configuration playing a schedule: every configuration's S planes
    stacked (configuration c is planes c*S .. c*S+S-1) and one TDM slot per
    configuration lasting ``delay + duration`` microseconds (the TDM path
    counts a slot's guard time, here the reconfiguration delay, inside it)."""
    from permnet import ocsconfig

    ours = rep.ours
    S = rep.degree
    planes = ours.configs.reshape(-1, rep.nodes)
    slots = [{"duration_us": float(rep.delay + t), "planes": list(range(c * S, c * S + S))}
             for c, t in enumerate(ours.durations)]
    meta = {"family": "traffic-schedule", "nodes": rep.nodes, "degree": S, "reconfig_delay_us": rep.delay,
            "horizon_us": rep.horizon, "load": rep.load, "method": ours.method, "served": round(ours.served, 9)}
    return ocsconfig.OcsConfig(planes, meta, schedule=slots)


def schedule_file(spec: str, M: int, S: int, *, delay: float, horizon: float, load: float = 1.0, seed: int = 0,
                  two_hop: bool = False, output=None):
    """``permnet plan --schedule``: ours, Solstice and BvN schedules of the demand
    (:func:`permnet.gen.traffic.schedule.schedule_demand`); with ``output`` ours is
    written as a JSON OCS configuration with a TDM schedule (:func:`schedule_config`).
    Returns (report, paths written)."""
    from permnet import ocsconfig
    from permnet.gen.errors import require
    from permnet.gen.traffic.schedule import schedule_demand

    rep = schedule_demand(read_demand(spec, M, seed), S, delay, horizon, load=load, two_hop=two_hop)
    paths = []
    if output:
        require(rep.ours.count > 0, "the schedule is empty (the horizon holds no configuration): nothing to write")
        paths = ocsconfig.write_files(schedule_config(rep), output, "json")
    return rep, paths
