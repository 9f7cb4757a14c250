"""``permnet hil``: the hardware-in-the-loop model, the check, the register map."""

from __future__ import annotations


import click

from permnet.cli.common import POSITIVE_FLOAT, SEED, emit_verdict, given_options, ints
from permnet.gen.errors import PermnetError, require
from permnet.gen.hil.netgen import PATTERNS as NET_PATTERNS
from permnet.cli.rtl_modules import hil_options, hil_params


@click.group()
def hil():
    """Hardware in the loop: a host link into the RTL (Verilator model or board)."""


@hil.command()
@hil_options
@click.option("--listen", required=True, help="127.0.0.1:PORT (port 0: any free port, printed)")
@click.option("--fault", "faults", multiple=True,
              help="inject corrupt:N, drop:N or stall:N:MS on host byte N (repeatable)")
@click.option("--max-seconds", type=POSITIVE_FLOAT, default=3600.0, show_default=True,
              help="stop the model after this long")
@click.option("--opt", type=click.Choice(["-O0", "-O1", "-O2"]), default="-O1", show_default=True,
              help="C++ optimisation of the model")
@click.option("--build-dir", default="build/hil-sim", show_default=True, type=click.Path(file_okay=False),
              help="cache of built models")
def sim(listen, faults, max_seconds, opt, build_dir, **options):
    """Build the HIL top level with Verilator and serve its byte stream on TCP."""
    from permnet.hdl.hil.verilator import serve

    serve(listen, build_dir, hil_params(**options), faults=faults, max_seconds=max_seconds, opt=opt,
          echo=lambda line: click.echo(line, err=True))


# the options of a unit run (--config) and of a network run (--design network), by parameter name
UNIT_OPTIONS = ("plane", "prbs_words", "polynomial", "samples", "exhaustive")
NETWORK_OPTIONS = ("cycles", "pattern", "load", "packet_size", "hot", "hot_frac", "perm", "planes_path", "swap_to",
                   "swap_at")


def _refuse(given: dict, names, what: str) -> None:
    """A one-line error when options among ``names`` that would be ignored were given (``given``:
    :func:`given_options`)."""
    flags = sorted(given[n] for n in names if n in given)
    if flags:
        raise PermnetError(f"{', '.join(flags)} {'is an option' if len(flags) == 1 else 'are options'} {what}")


@hil.command()
@click.option("--url", required=True, help="socket://127.0.0.1:PORT, /dev/ttyUSB0, loop://")
@click.option("--config", "config_path", default=None, type=click.Path(dir_okay=False),
              help="OCS configuration file (planes) to load (not with --design network)")
@click.option("--design", type=click.Choice(["network"]), default=None,
              help="network: live traffic for --cycles cycles, counters beside netsim's")
@click.option("--cycles", type=click.IntRange(min=1), default=1000, show_default=True,
              help="network: cycles the generators run")
@click.option("--pattern", type=click.Choice(list(NET_PATTERNS)), default="uniform", show_default=True)
@click.option("--load", type=POSITIVE_FLOAT, default=0.1, show_default=True,
              help="network: packets per node per cycle")
@click.option("--packet-size", type=click.IntRange(1, 255), default=None,
              help="network: flits per packet  [default: 4; 1 on deflection routers]")
@click.option("--hot", type=click.IntRange(min=0), default=0, show_default=True, help="network: hot-spot node")
@click.option("--hot-frac", type=POSITIVE_FLOAT, default=0.125, show_default=True,
              help="network: share of packets to the hot spot")
@click.option("--perm", default=None, help="network, pattern permutation: destinations 3,0,7,...")
@click.option("--planes", "planes_path", default=None, type=click.Path(dir_okay=False),
              help="network: planes/fabric/mixed/faults file loaded (and read back) before the run")
@click.option("--swap-to", default=None, type=click.Path(dir_okay=False),
              help="network: planes file swapped to during the run, without loss (vct, wormhole: drained "
                   "first; deflection: committed at once)")
@click.option("--swap-at", type=click.IntRange(min=0), default=None,
              help="network: run cycle at which the swap is requested (default: the middle of the run)")
@click.option("--plane", type=click.IntRange(min=0), default=None, help="plane to load (default 0, or one per slot)")
@click.option("--prbs", "prbs_words", type=click.IntRange(min=0), default=0, help="PRBS words per port (0: none)")
@click.option("--polynomial", type=click.Choice(["7", "31"]), default="7", show_default=True)
@click.option("--samples", type=click.IntRange(min=1), default=1000, show_default=True,
              help="next-hop decisions sampled when there are more than --exhaustive")
@click.option("--exhaustive", type=click.IntRange(min=0), default=4096, show_default=True,
              help="probe every (node, dest, hop) up to this many")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--timeout", type=POSITIVE_FLOAT, default=1.0, show_default=True, help="seconds per answer")
@click.option("--json", "as_json", is_flag=True)
def run(url, config_path, design, cycles, pattern, load, packet_size, hot, hot_frac, perm, planes_path, swap_to,
        swap_at, plane, prbs_words, polynomial, samples, exhaustive, seed, timeout, as_json):
    """Load, commit, read back and verify a configuration, run PRBS, probe the next hop; or with
    --design network run live traffic and compare every counter with netsim's (--planes: on
    loaded planes; --swap-to: with a live swap, then the timing-free counters with the trace).

    Exit 0 when everything matches, 1 on a mismatch (as permnet verify), 2 on
    unusable input or a link that does not answer."""
    from permnet.hil.run import run as run_hil

    given = given_options()
    if design == "network":
        from permnet.gen.hil.netgen import GenParams, rate_of
        from permnet.hil.netrun import run_network

        require(config_path is None, "--config: the network design takes no configuration (give --planes FILE)")
        _refuse(given, UNIT_OPTIONS, "of a unit run (--config), not of --design network")
        _refuse(given, ("hot", "hot_frac") if pattern != "hotspot" else (), "of --pattern hotspot")
        _refuse(given, ("perm",) if pattern != "permutation" else (), "of --pattern permutation")
        require(hot_frac <= 1.0, f"--hot-frac must be a share in (0, 1], got {hot_frac:g}")
        table = tuple(ints(perm, "--perm")) if perm is not None else None
        require(table is None or sorted(table) == list(range(len(table))),
                f"--perm must be a permutation of 0..{len(table or ()) - 1} (each node the destination of "
                f"exactly one), got {perm}")
        params = GenParams(pattern, rate=rate_of(load), size=packet_size or 4, seed=seed, hot=hot,
                           hot_frac=rate_of(hot_frac), perm=table)
        emit_verdict(run_network(url, cycles=cycles, params=params, timeout=timeout, planes=planes_path,
                                 swap_to=swap_to, swap_at=swap_at, size_default=packet_size is None), as_json)
        return
    _refuse(given, NETWORK_OPTIONS, "of --design network")
    require(config_path is not None, "missing option --config (an OCS configuration file)")
    rep = run_hil(url, config_path, plane=plane, prbs_words=prbs_words, polynomial=int(polynomial),
                  exhaustive=exhaustive, samples=samples, seed=seed, timeout=timeout)
    emit_verdict(rep, as_json)


@hil.command()
@hil_options
@click.option("--format", "fmt", type=click.Choice(["md", "csv", "rdl", "ipxact", "cheader"]), default=None,
              help="rdl: SystemRDL; ipxact, cheader: made from it by PeakRDL (default: from the -o suffix "
                   ".csv .rdl .xml .h, else md)")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False), help="write here instead of stdout")
def regmap(fmt, output, **options):
    """The register map of a HIL top level as Markdown, LiteX csr.csv, SystemRDL, IP-XACT or a C header."""
    from pathlib import PurePath

    from permnet.hil.rdl import SUFFIXES, export

    fmt = fmt or (SUFFIXES.get(PurePath(output).suffix, "md") if output else "md")
    text = export(hil_params(**options), fmt)
    if output:
        from permnet.fileio import atomic_write

        click.echo(f"wrote {atomic_write(output, text)}", err=True)
    else:
        click.echo(text, nl=False)


group = hil
