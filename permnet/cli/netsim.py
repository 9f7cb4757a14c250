"""``permnet netsim``: cycle-level simulation of a whole network (issue 14).

Library: :func:`permnet.netsim.run` (models in :mod:`permnet.sim.netsim`).
"""

from __future__ import annotations

import click

from permnet.cli.common import (NET_TOPOLOGIES, SEED, echo_json, given_options, ip_family_options, parallel_options,
                                switching_option)
from permnet.gen.routing.deflection import ALLOCATORS as DEFLECTION_ALLOCATORS
from permnet.gen.routing.deflection import DEFLECT, PRIORITIES
from permnet.rtlnet import ALLOCATORS

TOPOLOGIES = NET_TOPOLOGIES


@click.command("netsim")
@click.option("--topology", default="ldi", show_default=True,
              help=f"one or more (comma-separated) of {', '.join(TOPOLOGIES)}")
@click.option("--nodes", "-M", "M", type=int, default=None, help="number of nodes (required unless --config)")
@click.option("--config", "--planes", "config", type=click.Path(dir_okay=False), default=None,
              help="simulate the planes of an OCS configuration file instead (shortest-path routing)")
@click.option("--degree", "-S", "S", type=int, default=None, help="degree = switching planes (not for chordal)")
@click.option("--chords", default=None, help="chordal rings: chords per residue class")
@ip_family_options
@click.option("--routing", type=click.Choice(["family", "shortest"]), default="family", show_default=True)
@click.option("--traffic", default=None,
              help="uniform, transpose, bitrev, bitcomp, shuffle, tornado, hotspot[:NODE[:FRAC]], randperm  "
                   "[default: uniform]")
@click.option("--traffic-matrix", default=None, metavar="FILE|PATTERN",
              help="a demand matrix (file or permnet plan pattern): sources inject in proportion to their row "
                   "sums (the busiest at --load) and draw destinations in proportion to their row")
@click.option("--trace", type=click.Path(dir_okay=False), default=None,
              help="trace file of 'cycle src dst size' lines (replaces --traffic and --load)")
@click.option("--load", default=None,
              help="packets per node per cycle in (0,1]: one value or start:stop:step  [default: 0.1]")
@click.option("--vcs", type=int, default=None, help="virtual channels per link (default: the longest route)")
@click.option("--buffer", type=int, default=8, show_default=True, help="flits per VC buffer")
@click.option("--packet-size", type=int, default=4, show_default=True,
              help="flits per packet (1 with --switching deflection unless given)")
@switching_option("netsim", help="deflection: bufferless deflection routers (gen/routing/deflection.py), "
                                 "single-flit packets")
@click.option("--ejection-width", type=int, default=2, show_default=True,
              help="--switching deflection: ejection ports per node, 1..S")
@click.option("--deflection-allocator", type=click.Choice(DEFLECTION_ALLOCATORS), default="permutation",
              show_default=True, help="--switching deflection: the 2x2-block permutation network (S = 2^k) or the "
                                      "ideal allocator (in priority order, any S)")
@click.option("--deflect", type=click.Choice(DEFLECT), default="any", show_default=True,
              help="--switching deflection, model only (the RTL implements any): nearest sends a flit with no "
                   "productive output to one that keeps its distance first")
@click.option("--side-buffer", type=int, default=0, show_default=True,
              help="--switching deflection, model only: flits per node in a MinBD-style side buffer (0: none)")
@click.option("--priority", type=click.Choice(PRIORITIES), default="age", show_default=True,
              help="--switching deflection: how contending flits rank; age: oldest first (the RTL's); model only: "
                   "random (a fresh seeded key each cycle, no hop bound), golden (CHIPPER's golden packet)")
@click.option("--lanes", type=int, default=None, help="injection lanes per node (default: S)")
@click.option("--ejection", type=click.Choice(["vc", "port"]), default="vc", show_default=True,
              help="one flit per input VC per cycle, or one ejection port per node (the RTL's stream endpoints)")
@click.option("--link-stages", type=int, default=0, show_default=True,
              help="registers on every link: a hop takes 1 + this many cycles (the RTL's --link-stages)")
@click.option("--credit-stages", type=int, default=0, show_default=True,
              help="registers on every credit's way back: a credit takes 1 + this many cycles (the RTL's "
                   "--credit-stages)")
@click.option("--allocator", type=click.Choice(ALLOCATORS), default="combined", show_default=True,
              help="combined: every input VC may move each cycle; input-first: one VC per input port per cycle "
                   "(the RTL's --allocator input-first, one LUT RAM per input port); two-stage: input-first with "
                   "each port's offer chosen a cycle ahead and the ejection registered (a cycle more to eject); "
                   "separate-va: two-stage with a head's output VC allocated the cycle before it crosses (a "
                   "cycle more per hop; the RTL's shortest allocation loop)")
@click.option("--cycles", type=int, default=2000, show_default=True, help="measurement window (cycles)")
@click.option("--warmup", type=int, default=500, show_default=True, help="warm-up cycles")
@click.option("--timeout", type=int, default=1000, show_default=True, help="no-progress cycles meaning deadlock")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--refine", type=int, default=0, show_default=True,
              help="bisection steps between the last stable and the first unstable load of a sweep")
@click.option("--allow-deadlock", is_flag=True, help="simulate even if the VCs leave a dependency cycle")
@click.option("-o", "--output", type=click.Path(file_okay=False), default=None,
              help="folder for the curves: per-topology JSON and summaries, latency.png/svg")
@click.option("--links", is_flag=True, help="per-link utilisation in the -o JSON files")
@parallel_options
@click.option("--json", "as_json", is_flag=True)
def group(topology, M, config, S, chords, levels, nucleus, merge, symmetric, routing, traffic, trace, load, vcs, buffer,
          packet_size, switching, lanes, ejection, link_stages, credit_stages, allocator, cycles, warmup, timeout, seed, refine, allow_deadlock,
          output, links, as_json, traffic_matrix, ejection_width, deflection_allocator, workers, scheduler, deflect,
          side_buffer, priority):
    """Cycle-level simulation: latency, throughput, hops, saturation (BookSim-style summary)."""
    from permnet.netsim import NetsimRequest, run
    from permnet.sim.netsim import Config

    req = NetsimRequest([t.strip() for t in topology.split(",") if t.strip()], M, S, traffic, load, routing, chords,
                        trace, allow_deadlock, output, links, config, refine, levels, nucleus, merge, symmetric,
                        traffic_matrix, given_options(), workers, scheduler)
    cfg = Config(vcs=vcs, buffer=buffer, packet_size=packet_size, switching=switching, lanes=lanes, ejection=ejection,
                 link_stages=link_stages, credit_stages=credit_stages, allocator=allocator, warmup=warmup, cycles=cycles, timeout=timeout, seed=seed,
                 ejection_width=ejection_width, deflection_allocator=deflection_allocator, deflect=deflect,
                 side_buffer=side_buffer, priority=priority)
    rep = run(req, cfg)
    if as_json:
        echo_json(rep.as_dict())
        return
    for line in rep.summaries():
        click.echo(line)
    for sw in rep.sweeps:
        if len(sw.points) > 1:
            click.echo(f"{sw.topology}: saturation = {sw.saturation} packets/node/cycle "
                       f"(zero-load latency {sw.zero_load_latency:.4g} cycles)")
    for f in rep.files:
        click.echo(f"wrote {f}", err=True)
