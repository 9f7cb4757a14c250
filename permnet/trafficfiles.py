"""The ``--traffic`` argument: a built-in pattern name or a demand file
(:mod:`permnet.gen.traffic.demand` parses it, :mod:`permnet.gen.traffic.patterns`
builds the patterns)."""

from __future__ import annotations

from pathlib import Path

from permnet.gen.errors import PermnetError

__all__ = ["read_demand"]


def read_demand(spec: str, M: int, seed: int = 0):
    """The M x M demand of ``spec``: a pattern name (seeded), else a ``.npy`` or CSV file."""
    from permnet.fileio import read_text
    from permnet.gen.traffic import demand, patterns

    if patterns.is_pattern(spec):
        return patterns.pattern(spec, M, seed)
    p = Path(spec)
    if not p.exists():
        raise PermnetError(f"--traffic {spec!r} is neither a pattern ({', '.join(patterns.PATTERNS)}) nor a file")
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
              device_ports=None, single_file=False):
    """``permnet plan``: the demand of ``spec``, planes planned for it
    (:func:`permnet.gen.traffic.plan.plan_planes`) and, with ``output``, the
    planes file every other command reads; returns (result, paths written)."""
    from permnet import ocsconfig
    from permnet.gen.traffic.plan import plan_planes

    res = plan_planes(read_demand(spec, M, seed), S, evaluations=evaluations, seed=seed)
    paths = []
    if output:
        meta = {"family": "traffic-plan", "nodes": M, "degree": S, "traffic": spec, "seed": seed,
                "circuits": res.circuits, "free_planes": res.free}
        paths = ocsconfig.write_files(ocsconfig.OcsConfig(res.planes, meta), output, fmt, device_ports, single_file)
    return res, paths
