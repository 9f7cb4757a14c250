"""Load sweeps of several networks at once, their points run as independent jobs.

Every load point is one :func:`permnet.sim.netsim.run.simulate` call that
depends on nothing but its network, traffic, load and configuration (its
random stream is seeded by ``config.seed``), so the points of a sweep, and
the sweeps of several topologies, run on any :class:`permnet.gen.parallel.Runner`:
one process, local processes or a Dask cluster.  The answer is the same on
any of them: the points are read back in load order and the rule of a
sequential sweep is applied to them as they come --

1. the loads of each network in turn, stopping ``stop_after`` points past
   the first unstable one (or at a deadlock); the points past the stop that
   were started anyway are cancelled or dropped;
2. ``refine`` bisection steps between the last stable and the first unstable
   load: a step depends on the one before, so the steps of one network are
   sequential, and each round runs one point of every network still refining.

    >>> from permnet.gen.routing import tables
    >>> from permnet.sim.netsim import Config, pattern
    >>> net = tables.network("ldi", 16, 4)
    >>> cfg = Config(warmup=50, cycles=200).check(net.table.max_hops)
    >>> [s.saturation for s in sweep_all([(net, pattern("uniform", 16, 0), cfg)], [0.1, 0.2])]
    [0.2]
"""

from __future__ import annotations

from permnet.gen.errors import require
from permnet.gen.parallel import Runner

__all__ = ["sweep_all"]


def _point(shared, job):
    """One load point (module level: local processes and Dask pickle it by name)."""
    from permnet.sim.netsim.run import simulate

    net, traffic, config = shared
    return simulate(net, traffic, job, config)


class _Scan:
    """The sequential sweep's rule, fed one point at a time in load order."""

    def __init__(self, stop_after: int):
        self.stop_after = stop_after
        self.points, self.saturation, self.unstable, self.first_bad = [], None, 0, None
        self.done = False

    def add(self, x: float, r) -> None:
        self.points.append(r)
        if r.deadlock:
            self.done = True
        elif r.stable and self.unstable == 0:
            self.saturation = x
        elif not r.stable:
            self.unstable += 1
            self.first_bad = x if self.first_bad is None else self.first_bad
            self.done = self.unstable > self.stop_after


def sweep_all(items, load_list, stop_after: int = 2, refine: int = 0, runner: Runner | None = None) -> list:
    """:class:`permnet.sim.netsim.run.Sweep` of every ``(net, traffic, config)`` of ``items`` over
    ``load_list``: the same as :func:`permnet.sim.netsim.run.sweep` of each, with the
    points run on ``runner`` (default: here, one after another)."""
    from permnet.sim.netsim.run import finish_sweep

    require(0 <= refine <= 20, f"refine must be 0..20 bisection steps, got {refine}")
    items = list(items)
    if runner is None:
        with Runner() as r:
            return sweep_all(items, load_list, stop_after, refine, r)
    shares = [runner.share(item) for item in items]
    # every point of every network is submitted at once; each network's are read back in order
    handles = [[runner.submit(_point, x, s) for x in load_list] for s in shares]
    scans = []
    bar = runner.bar(len(items) * len(load_list), "load points")  # none for one point, or off a terminal
    try:
        for hs in handles:
            scan = _Scan(stop_after)
            for i, (x, h) in enumerate(zip(load_list, hs)):
                scan.add(x, runner.result(h))
                if bar is not None:
                    bar.update(1)
                if scan.done:
                    runner.cancel(hs[i + 1:])
                    break
            scans.append(scan)
    except BaseException:
        runner.cancel([h for hs in handles for h in hs])
        raise
    finally:
        if bar is not None:
            bar.close()
    # bisection where the loads found a stable point below an unstable one and no deadlock
    bounds = {k: [sc.saturation, sc.first_bad] for k, sc in enumerate(scans)
              if sc.saturation is not None and sc.first_bad is not None and not any(p.deadlock for p in sc.points)}
    refined, live = set(bounds), set(bounds)
    for _ in range(refine):
        if not live:
            break
        mids = {k: round((bounds[k][0] + bounds[k][1]) / 2, 10) for k in sorted(live)}
        hs = {k: runner.submit(_point, mid, shares[k]) for k, mid in mids.items()}
        for k, mid in mids.items():
            r = runner.result(hs[k])
            scans[k].points.append(r)
            if r.deadlock:
                live.discard(k)
            else:
                bounds[k] = [mid, bounds[k][1]] if r.stable else [bounds[k][0], mid]
    out = []
    for k, (sc, (net, traffic, config)) in enumerate(zip(scans, items)):
        if k in refined:
            sc.saturation = bounds[k][0]
            sc.points.sort(key=lambda p: p.load)
        out.append(finish_sweep(net, traffic, sc.points, sc.saturation, config))
    return out
