"""The RTL modules the CLI knows, declared once: ``permnet rtl X`` and
``permnet synth X`` are both generated from :data:`RTL_MODULES`.

Each entry names its click options and the function that builds the
Amaranth component (through :mod:`permnet.hdl.emit`) from those options.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import click

from permnet.cli.common import ints, ldi_options
from permnet.gen.errors import PermnetError, require


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


def gen_crossbar(ports, width, slots, config_path, durations):
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
    return emit.crossbar(ports, width, slots=slots, planes=planes, durations=durs)


def gen_benes(size, width, mask_text, network, perm_text):
    from permnet.hdl import emit
    from permnet.switching import parse_perm_text

    try:
        mask = int(mask_text, 0)
    except ValueError:
        raise PermnetError(f"--pipeline-mask: {mask_text!r} is not an integer (e.g. 0b101, 0x5, 5)") from None
    require(mask >= 0, "--pipeline-mask must be >= 0")
    perm = parse_perm_text(perm_text) if perm_text else None
    return emit.benes(size, width, network=network, pipeline_mask=mask, perm=perm)


@dataclass(frozen=True)
class RtlModule:
    """One emitted module: its CLI name, one-line help, options and generator."""

    name: str
    help: str
    options: Callable
    generate: Callable


RTL_MODULES = (
    RtlModule("nexthop", "LDI next-hop unit (ports clk rst i_valid i_node i_dest i_hop o_valid o_link o_next).",
              nexthop_options, gen_nexthop),
    RtlModule("crossbar", "N x N crossbar plane with stream-loaded shadow configuration.",
              crossbar_options, gen_crossbar),
    RtlModule("benes", "Beneš/Waksman network of 2x2 cells with optional pipeline registers.",
              benes_options, gen_benes),
)
