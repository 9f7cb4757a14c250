"""The RTL modules the CLI knows, declared once: ``permnet rtl X`` and
``permnet synth X`` are both generated from :data:`RTL_MODULES`.

Each entry names its click options and the function that builds the
Amaranth component (through :mod:`permnet.hdl.emit`) from those options.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import click

from permnet.cli.common import given_options, ints, ldi_options, switching_option
from permnet.gen.errors import PermnetError, require
from permnet.gen.hil.regmap import DESIGNS as HIL_DESIGNS
from permnet.routerkinds import KINDS, check_options, kind_options
from permnet.rtlnet import ALLOCATORS, ENDPOINTS, ROUTER_CHOICES


MAX_IDLE_TIMEOUT = (1 << 32) - 1   # the bridge's idle counter: 32 bits (43 s at 100 MHz)
MAX_PIPELINE = 64                  # next-hop unit latency in cycles (its closed form needs a few)


def nexthop_options(f):
    f = click.option("--digits", type=click.Choice(["serial", "parallel"]), default="serial", show_default=True,
                     help="digit extraction: fewer LUTs (serial) or higher Fmax (parallel)")(f)
    f = click.option("--shortcut/--no-shortcut", default=True, show_default=True)(f)
    f = click.option("--variant", type=click.Choice(["auto", "closed", "table", "naive"]), default="auto",
                     show_default=True, help="closed form (Melhem), route table, or the %/'//' baseline")(f)
    f = click.option("--pipeline", type=int, default=1, show_default=True, help="latency in cycles (>= 1)")(f)
    return ldi_options(f)


def crossbar_options(f):
    f = click.option("--durations", default=None, help="slot durations in cycles, e.g. 4,4,8")(f)
    f = click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
                     help="initial planes from an OCS configuration file (plane k -> slot k)")(f)
    f = click.option("--slots", type=int, default=1, show_default=True, help="stored configurations (TDM)")(f)
    f = click.option("--width", type=int, required=True, help="data bits per port")(f)
    f = click.option("--ports", type=int, required=True)(f)
    return f


def benes_options(f):
    f = click.option("--perm", "perm_text", default=None, help="initial permutation (default identity)")(f)
    f = click.option("--network", type=click.Choice(["benes", "waksman"]), default="benes", show_default=True)(f)
    f = click.option("--pipeline-mask", "mask_text", default="0", show_default=True,
                     help="bit s = register after stage s, e.g. 0b10101 or 0x15")(f)
    f = click.option("--width", type=int, required=True, help="data bits per port")(f)
    f = click.option("--size", type=int, required=True, help="N ports")(f)
    return f


def gen_nexthop(M, S, pipeline, variant, shortcut, digits):
    from permnet.hdl import emit
    return emit.nexthop(M, S, pipeline=pipeline, variant=variant, shortcut=shortcut, digits=digits)


def gen_crossbar(ports, width, slots, config_path, durations, target="generic"):
    from permnet import ocsconfig
    from permnet.hdl import emit

    planes = None
    if config_path:
        cfg = ocsconfig.read(config_path)
        require(cfg.ports == ports, f"{config_path} has {cfg.ports} ports, the crossbar {ports}")
        require(len(cfg.planes) >= slots, f"{config_path} has {len(cfg.planes)} planes, fewer than {slots} slots")
        planes = [cfg.planes[k].tolist() for k in range(slots)]
    durs = ints(durations, "--durations") if durations else None
    if durs is not None:
        require(len(durs) == slots, f"--durations needs {slots} values, got {len(durs)}")
        require(all(0 < d < 1 << 16 for d in durs), "durations must be 1..65535 cycles")
    return emit.crossbar(ports, width, slots=slots, planes=planes, durations=durs, target=target)


def gen_benes(size, width, mask_text, network, perm_text, target="generic"):
    from permnet.hdl import emit
    from permnet.switching import parse_perm_text

    try:
        mask = int(mask_text, 0)
    except ValueError:
        raise PermnetError(f"--pipeline-mask: {mask_text!r} is not an integer (e.g. 0b101, 0x5, 5)") from None
    require(mask >= 0, "--pipeline-mask must be >= 0")
    perm = parse_perm_text(perm_text) if perm_text else None
    return emit.benes(size, width, network=network, pipeline_mask=mask, perm=perm, target=target)


def planes_options(f):
    f = click.option("--network", type=click.Choice(["benes", "waksman"]), default="benes", show_default=True,
                     help="--kind benes: Beneš or Waksman network")(f)
    f = click.option("--register", is_flag=True, help="registered outputs (latency 1 instead of 0)")(f)
    f = click.option("--bwd-width", type=int, default=4, show_default=True,
                     help="bits per port going back along each circuit (credits)")(f)
    f = click.option("--fwd-width", type=int, default=32, show_default=True, help="bits per port, forward")(f)
    f = click.option("--planes", "planes_path", required=True, type=click.Path(dir_okay=False),
                     help="planes file (from permnet planes, fabric, mixed or faults): the reset configuration")(f)
    f = click.option("--kind", type=click.Choice(["wires", "crossbar", "benes"]), default="crossbar",
                     show_default=True, help="fixed wires, or planes reloadable at run time")(f)
    return f


def gen_planes(kind, planes_path, fwd_width, bwd_width, register, network, target="generic"):
    from permnet.hdl import emit
    from permnet.planeload import read_planes

    require(kind == "benes" or not _given(["network"]), f"--network is an option of --kind benes, not --kind {kind}")

    return emit.planes(kind, read_planes(planes_path), fwd_width, bwd_width, register=register, network=network,
                       target=target)


def hil_param_options(f):
    """The parameters of the HIL top level except which design it is: the one definition that
    ``permnet rtl hil``, ``permnet hil sim``, ``permnet hil regmap`` (through :func:`hil_options`)
    and ``permnet board --design hil`` (beside its ``--hil-design``) share; :func:`hil_params`
    turns them into ``HilTop`` keywords."""
    f = click.option("--idle-timeout", type=click.IntRange(16, MAX_IDLE_TIMEOUT), default=None,
                     help="cycles without a byte before the bridge drops a partial frame")(f)
    f = click.option("--stages", type=int, default=None,
                     help="network, --switching deflection: register stages per hop inside each router, "
                     "1 or 2 (default 1)")(f)
    f = click.option("--ejection-width", type=int, default=None,
                     help="network, --switching deflection: ejection ports per router (default 2)")(f)
    f = switching_option("hil", help="network: VC routers (virtual cut-through) or bufferless deflection "
                         "routers (single-flit packets; run-time planes swap without a drain)")(f)
    f = click.option("--vcs", type=click.IntRange(1, 15), default=None,
                     help="network: hop-indexed VCs, the longest route a loaded configuration may have "
                     "(default: LDI's longest)")(f)
    f = click.option("--planes", "planes_kind", type=click.Choice(["wires", "crossbar", "benes"]), default="wires",
                     show_default=True, help="network: fixed wires, or planes loadable over the link "
                     "(with the drained swap; Beneš: --network benes|waksman)")(f)
    f = click.option("--plain", is_flag=True, help="UARTBone only, without the CRC-framed mode")(f)
    f = click.option("--nh-pipeline", type=click.IntRange(1, MAX_PIPELINE), default=2, show_default=True,
                     help="next-hop unit latency")(f)
    f = click.option("--degree", "-S", "S", type=int, default=3, show_default=True,
                     help="next hop, network: LDI degree S")(f)
    f = click.option("--nodes", "-M", "M", type=int, default=18, show_default=True,
                     help="next hop, network: LDI nodes M")(f)
    f = click.option("--network", type=click.Choice(["benes", "waksman"]), default="benes", show_default=True)(f)
    f = click.option("--pipeline-mask", "mask_text", default="0", show_default=True,
                     help="Beneš: bit s = register after stage s")(f)
    f = click.option("--size", type=int, default=8, show_default=True, help="Beneš ports")(f)
    f = click.option("--slots", type=int, default=1, show_default=True, help="crossbar TDM slots")(f)
    f = click.option("--width", type=int, default=8, show_default=True,
                     help="data bits per port (>= bits of the port count, for the tag read-back); "
                     "network: flit payload bits")(f)
    f = click.option("--ports", type=int, default=8, show_default=True, help="crossbar ports")(f)
    return f


def hil_options(f):
    """``--design`` and the parameters of the HIL top level (:func:`hil_param_options`)."""
    f = hil_param_options(f)
    return click.option("--design", type=click.Choice(list(HIL_DESIGNS)), default="crossbar",
                        show_default=True)(f)


def hil_params(design, ports, width, slots, size, mask_text, network, M, S, nh_pipeline, plain, idle_timeout,
               planes_kind="wires", vcs=None, switching="vct", ejection_width=None, stages=None) -> dict:
    """The keyword arguments of :class:`permnet.hdl.hil.top.HilTop` from the CLI options."""
    try:
        mask = int(mask_text, 0)
    except ValueError:
        raise PermnetError(f"--pipeline-mask: {mask_text!r} is not an integer (e.g. 0b101, 0x5, 5)") from None
    require(mask >= 0, "--pipeline-mask must be >= 0")
    used = set().union(*(HIL_DESIGN_OPTIONS[d] for d in ((design,) if design != "all" else HIL_DESIGN_OPTIONS)
                         if d != "network" or design == "network"))
    unused = sorted(HIL_DESIGN_OPTIONS_ALL - used)
    given = given_options()
    stray = [n for n in unused if n in given]
    if stray:
        owners = " or ".join(d for d, opts in HIL_DESIGN_OPTIONS.items() if opts & set(stray))
        raise PermnetError(f"{', '.join(given[n] for n in stray)}: not for the {design} design "
                           f"(options of the {owners} design)")
    params = {"design": design, "ports": ports, "width": width, "slots": slots, "size": size, "network": network,
              "pipeline_mask": mask, "M": M, "S": S, "nh_pipeline": nh_pipeline, "framed": not plain}
    if idle_timeout is not None:
        params["idle_timeout"] = idle_timeout
    if planes_kind != "wires":
        params["planes"] = planes_kind
    # the router kind's own options and HilTop keywords (permnet.routerkinds)
    kind = check_options(switching, "hil", given)
    options = {"switching": switching, "vcs": vcs, "ejection_width": ejection_width, "stages": stages}
    return params | kind.hil_params(**kind_options(kind, "hil", options))


# the HIL parameters each design reads (by parameter name); any other one given is refused
HIL_DESIGN_OPTIONS = {"crossbar": {"ports", "width", "slots"}, "benes": {"size", "width", "mask_text", "network"},
                      "nexthop": {"M", "S", "nh_pipeline"},
                      "network": {"M", "S", "width", "planes_kind", "network", "switching",
                                  *(n for k in KINDS for n in k.owns.get("hil", ()))}}
HIL_DESIGN_OPTIONS_ALL = set().union(*HIL_DESIGN_OPTIONS.values())


def hil_rtl_options(f):
    f = click.option("--uart-divisor", type=click.IntRange(min=4), default=None,
                     help="clock cycles per UART bit: UART pins instead of the byte stream")(f)
    return hil_options(f)


def gen_hil(uart_divisor=None, **options):
    from permnet.hdl.hil.top import generated

    return generated(uart_divisor=uart_divisor, **hil_params(**options))


ALLOCATOR_HELP = ("combined: every input VC may move each cycle; input-first: each input port offers one VC "
                  "per cycle, its buffers in one LUT RAM; two-stage: input-first with each port's offer chosen "
                  "a cycle ahead and the ejected flit registered (a shorter allocation loop; a cycle more "
                  "to eject); separate-va: two-stage with a head's output VC allocated the cycle before it "
                  "crosses (a higher Fmax; a cycle more per hop) ({}; permnet netsim --allocator)")


def network_options(f):
    f = click.option("--lanes", type=int, default=None,
                     help="streams: injection lanes per node, 1 (default) or 2 (a second packet asks for its VC "
                          "while the first crosses: more one-flit packets per cycle; permnet netsim --lanes)")(f)
    f = click.option("--allocator", type=click.Choice(ALLOCATORS), default="combined",
                     show_default=True, help=ALLOCATOR_HELP.format("streams only"))(f)
    f = click.option("--credit-stages", type=int, default=0, show_default=True,
                     help="registers on every credit's way back (a credit takes 1 + this many cycles)")(f)
    f = click.option("--plane-stages", type=click.IntRange(0, 1), default=0, show_default=True,
                     help="1: registers after the run-time planes' multiplexers, both ways (streams on crossbar or "
                          "benes planes; a hop and a credit take a cycle more: permnet netsim --link-stages L+1 "
                          "--credit-stages C+1)")(f)
    f = click.option("--planes", type=click.Choice(["wires", "crossbar", "benes"]), default="wires",
                     show_default=True, help="fixed wires, or planes loadable at run time through the cfg__* ports "
                     "(streams: with the drained swap, swap_req/swap_done)")(f)
    f = click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)(f)
    f = click.option("--max-size", type=int, default=4, show_default=True,
                     help="largest packet in flits (streams: longer packets are cut)")(f)
    f = click.option("--span", type=int, default=32, show_default=True, help="cycles over which packets start")(f)
    f = click.option("--packets", type=int, default=64, show_default=True,
                     help="seeded uniform packets for the per-node generators")(f)
    f = click.option("--trace", type=click.Path(dir_okay=False), default=None,
                     help="'cycle src dst size' lines for the generators instead (one per node per cycle)")(f)
    f = click.option("--stages", type=int, default=None,
                     help="--switching deflection: register stages per hop inside each router, 1, 2 or 3 "
                          "(default 1)")(f)
    f = click.option("--ejection-width", type=int, default=None,
                     help="--switching deflection: ejection FIFOs (2 flits each) per node, sharing the node's "
                          "output stream (default 2)")(f)
    f = switching_option("network", help="the VC routers' switching, or bufferless deflection routers "
                         "(--endpoints stream; single-flit packets; run-time planes swap without a drain)")(f)
    f = click.option("--router", type=click.Choice(ROUTER_CHOICES), default="auto", show_default=True,
                     help="route with the divider-free next-hop unit (LDI with M = S^(h-1) G; auto picks it there) "
                          "or with per-node route tables")(f)
    f = click.option("--flit-width", type=int, default=None,
                     help="payload bits per flit (self-test: checked at ejection, default 0 = header-only "
                          "flits; streams: tdata bits, default 32)")(f)
    f = click.option("--link-stages", type=int, default=0, show_default=True,
                     help="registers on every link's forward path (a hop takes 1 + this many cycles)")(f)
    f = click.option("--endpoints", type=click.Choice(ENDPOINTS), default="selftest", show_default=True,
                     help="trace generators and checkers, or per node AXI-Stream ports nD_in_t*/nD_out_t* "
                          "(tvalid tready tdata tlast tdest)")(f)
    f = click.option("--buffer", type=int, default=4, show_default=True, help="flits per VC (a power of two)")(f)
    f = click.option("--vcs", type=int, default=None, help="virtual channels (default: the longest route)")(f)
    f = click.option("--topology", type=click.Choice(["ldi", "debruijn", "kautz", "torus", "hypercube"]),
                     default="ldi", show_default=True)(f)
    f = click.option("--planes-file", type=click.Path(dir_okay=False), default=None,
                     help="wire the planes of this file (permnet planes/plan/mixed/fabric output) instead of "
                          "--topology, shortest-path route tables")(f)
    return ldi_options(f)


def router_options(f):
    f = click.option("--stages", type=int, default=None,
                     help="--switching deflection: register stages per hop inside the router, 1 (output registers), "
                          "2 (one more before the permutation network) or 3 (one after injection, one inside the "
                          "permutation network); a hop takes that many cycles (default 1)")(f)
    f = click.option("--ejection-width", type=int, default=None,
                     help="--switching deflection: ejection streams, each behind a 2-flit FIFO (default 2)")(f)
    f = click.option("--allocator", type=click.Choice(ALLOCATORS), default="combined",
                     show_default=True, help=ALLOCATOR_HELP.format("needs --eject port"))(f)
    f = click.option("--credit-stages", type=int, default=0, show_default=True,
                     help="registers on every input's credit return (a credit takes 1 + this many cycles)")(f)
    f = click.option("--link-stages", type=int, default=0, show_default=True,
                     help="registers on every output's forward path (a hop takes 1 + this many cycles)")(f)
    f = click.option("--max-size", type=int, default=None, help="largest packet in flits (default: --buffer)")(f)
    f = click.option("--eject", type=click.Choice(["port", "vc"]), default="port", show_default=True,
                     help="one ejection stream (the stream IP's), or one flit per input VC")(f)
    f = click.option("--lanes", type=int, default=1, show_default=True, help="injection lanes")(f)
    f = click.option("--router", type=click.Choice(ROUTER_CHOICES), default="auto", show_default=True,
                     help="the divider-free next-hop unit or the node's route table (--switching deflection: "
                          "auto, the planes' productive masks as constants, or table, a loadable mask table rt__*)")(f)
    f = click.option("--flit-width", type=int, default=32, show_default=True, help="payload bits per flit")(f)
    f = switching_option("router", help="the VC router's, or the bufferless deflection router (issue 41)")(f)
    f = click.option("--buffer", type=int, default=4, show_default=True, help="flits per VC (a power of two)")(f)
    f = click.option("--vcs", type=int, default=None,
                     help="virtual channels, at least the longest route (default: the longest route)")(f)
    f = click.option("--node", type=int, default=0, show_default=True, help="which node's router")(f)
    f = click.option("--topology", type=click.Choice(["ldi", "debruijn", "kautz", "torus", "hypercube"]),
                     default="ldi", show_default=True)(f)
    return ldi_options(f)


def _given(names) -> list[str]:
    """The flags of the options among ``names`` given on the command line (:func:`given_options`)."""
    given = given_options()
    return [given[n] for n in names if n in given]


def gen_router(target="generic", **options):
    """One router of the kind ``--switching`` picks (:mod:`permnet.routerkinds`)."""
    kind = check_options(options["switching"], "router", given_options())
    return kind.router_rtl(target, **kind_options(kind, "router", options))


def gen_network(target="generic", **options):
    """The network of the router kind ``--switching`` picks (:mod:`permnet.routerkinds`)."""
    require(options.get("planes_file") is None or not _given(["topology"]),
            "--topology: the network of --planes-file replaces the topology; give one of them")
    kind = check_options(options["switching"], "network", given_options())
    return kind.network_rtl(target, **kind_options(kind, "network", options))


@dataclass(frozen=True)
class RtlModule:
    """One emitted module: its CLI name, one-line help, options and generator."""

    name: str
    help: str
    options: Callable
    generate: Callable
    #: the generator takes ``target`` (``generic`` or ``ecp5``: hand-mapped ECP5 multiplexers)
    targeted: bool = False


RTL_MODULES = (
    RtlModule("nexthop", "LDI next-hop unit (ports clk rst i_valid i_node i_dest i_hop o_valid o_link o_next).",
              nexthop_options, gen_nexthop),
    RtlModule("crossbar", "N x N crossbar plane with stream-loaded shadow configuration.",
              crossbar_options, gen_crossbar, targeted=True),
    RtlModule("benes", "Beneš/Waksman network of 2x2 cells with optional pipeline registers.",
              benes_options, gen_benes, targeted=True),
    RtlModule("planes", "S planes of M ports (wires, or crossbar/Beneš planes reloadable at run time: "
              "shadow configuration, commit, read-back).", planes_options, gen_planes, targeted=True),
    RtlModule("hil", "Hardware-in-the-loop top level: UARTBone bridge, registers, datapaths, PRBS.",
              hil_rtl_options, gen_hil),
    RtlModule("router", "One router (VC buffers, credits, round-robin allocation) of node --node, its ports "
              "as top-level ports (links i__y__*/o__y__*, inj__*, lane__j__*, ej__*); --switching deflection: the "
              "bufferless deflection router (inj__*, ej__e__*).", router_options, gen_router,
              targeted=True),
    RtlModule("network", "Whole network: M routers (VC FIFOs, credits, round-robin) through S planes, "
              "trace generators, ejection checkers (ports clk rst cycle delivered done error); "
              "--endpoints stream: AXI-Stream ports per node instead.", network_options, gen_network, targeted=True),
)
