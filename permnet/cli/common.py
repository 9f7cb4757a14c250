"""What the command modules share: exit codes, output helpers, common options."""

from __future__ import annotations

import json

import click

from permnet.gen.errors import PermnetError
from permnet.gen.planes.methods import PLANE_METHODS
from permnet.gen.topologies.names import NETWORKS

EXIT_MISMATCH = 1       # only a verification that found a difference
EXIT_BAD_INPUT = 2      # a problem the user can fix (one line on stderr)
EXIT_INTERNAL = 3       # a bug in permnet
EXIT_INCONSISTENT = 4   # a device transaction left devices neither all old nor all new (ROLLBACK FAILED)
EXIT_INTERRUPTED = 130  # Ctrl-C


class FinitePositiveFloat(click.ParamType):
    """A real number > 0 that is neither infinite nor NaN (durations, clocks)."""

    name = "number > 0"

    def convert(self, value, param, ctx):
        import math

        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(x) or x <= 0:
            self.fail(f"{value!r} must be a finite number > 0", param, ctx)
        return x


POSITIVE_FLOAT = FinitePositiveFloat()
#: --method of every command that decomposes LDI(M,S) into planes (declared in gen/planes/methods.py)
PLANE_METHOD = click.Choice(list(PLANE_METHODS))
SEED = click.IntRange(min=0)


def given_options() -> dict[str, str]:
    """The options given on the command line of the running command (click's parameter source is
    not the default), in the command's declaration order: parameter name -> its flag (the
    longest spelling, ``--nodes`` of ``--nodes/-M``). Empty outside a click command (a library
    call from a test)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return {}
    return {p.name: max(p.opts, key=len) for p in ctx.command.params
            if ctx.get_parameter_source(p.name) not in (None, click.core.ParameterSource.DEFAULT)}


def switching_option(command: str, help: str):
    """``--switching`` of ``command`` (``router``, ``network``, ``netsim``, ``hil``): the choices are
    the switchings the router kinds' registry builds there (:func:`permnet.routerkinds.switchings`,
    read when the command is declared: the registry is static), the first the default."""
    from permnet.routerkinds import switchings

    names = switchings(command)
    return click.option("--switching", type=click.Choice(names), default=names[0], show_default=True, help=help)


def echo_json(obj) -> None:
    """Indented JSON for small answers, one line for large ones (network descriptions)."""
    text = json.dumps(obj, indent=2, sort_keys=True)
    if len(text) > 20000:
        text = json.dumps(obj, sort_keys=True)
    click.echo(text)


def emit_verdict(rep, as_json: bool) -> None:
    """A report with ``as_dict()``, ``lines()`` and ``ok`` (verify, fabric
    verify, hil run): JSON or its lines, then exit 1 unless it matched."""
    if as_json:
        echo_json(rep.as_dict())
    else:
        for line in rep.lines():
            click.echo(line)
    if not rep.ok:
        raise SystemExit(EXIT_MISMATCH)


def emit(rep: dict, as_json: bool, keys=None, width: int = 14) -> None:
    """Print ``rep`` as JSON, or as aligned ``key value`` lines (only ``keys`` if given)."""
    if as_json:
        echo_json(rep)
        return
    for k in keys or rep:
        click.echo(f"{k:{width}} {rep[k]}")


def ints(text: str, what: str) -> list[int]:
    """Parse ``1,2,4`` into integers; an empty string is an empty list."""
    out = []
    for tok in (t.strip() for t in text.split(",")):
        if tok:
            try:
                out.append(int(tok))
            except ValueError:
                raise PermnetError(f"{what}: {tok!r} is not an integer") from None
    return out


EXACT_OPTION = click.option(
    "--exact/--estimate", "exact", default=None,
    help="all-pairs metrics (exact) or an estimate from 1024 random sources with a 95% interval; "
         "default: exact unless that would take more than about 10 s")


def ldi_options(f):
    f = click.option("--degree", "-S", "S", type=int, required=True, help="node degree S (switching planes)")(f)
    f = click.option("--nodes", "-M", "M", type=int, required=True, help="number of nodes M")(f)
    return f


#: ``--topology`` of netsim and deadlock (a numpy-free module, so the CLI starts fast)
NET_TOPOLOGIES = NETWORKS


def ip_family_options(f):
    """``--levels``, ``--nucleus``, ``--merge``, ``--symmetric``: an IP family
    (hsn, ring-cn, ..., rcc, qcn) as ``permnet topo`` builds it."""
    f = click.option("--symmetric", is_flag=True, help="IP families: the distinct-symbol seed")(f)
    f = click.option("--merge", default=None, help="qcn: the merged subcube Qk (default Q3)")(f)
    f = click.option("--nucleus", default=None,
                     help="IP families: the nucleus, e.g. Q3, K4, star:4 (default hypercube:2; rcc K4; qcn Q7)")(f)
    f = click.option("--levels", "-l", "levels", type=int, default=None,
                     help="IP families: l, the number of super-symbols (--nodes then optional)")(f)
    return f


def schedule_options(f):
    f = click.option("--slot-us", type=POSITIVE_FLOAT, default=None,
                     help="with --switches: duration of each time slot in microseconds")(f)
    f = click.option("--switches", type=int, default=None,
                     help="time-multiplex the planes onto this many physical switches")(f)
    return f



def ocs_output_options(f):
    """``--format`` (choices from the format registry), ``--device-ports`` and
    ``--single-file``: the options of every command writing an OCS configuration."""
    from permnet.formats import names

    f = click.option("--single-file", is_flag=True,
                     help="polatis/tl1/sonic: all planes in one file (default: one file per switch, "
                          "NAME.plane<k>.EXT or DIR/plane<k>.EXT)")(f)
    f = click.option("--device-ports", type=click.IntRange(1), default=None,
                     help="ports of the switch the planes are loaded into (default: the plane size); "
                          "Polatis egress ports are numbered after them")(f)
    f = click.option("--format", "fmt", type=click.Choice(names()), default=None,
                     help="configuration format (default: from the extension, else json)")(f)
    return f


def parallel_options(f):
    """``--workers N`` and ``--scheduler ADDRESS|local``: the options of every command that runs
    independent jobs (:mod:`permnet.gen.parallel`); the results do not depend on them."""
    f = click.option("--scheduler", default=None, metavar="ADDRESS|local",
                     help="run the jobs on this Dask scheduler (tcp://host:8786); 'local' starts a LocalCluster "
                          "of --workers processes here")(f)
    f = click.option("--workers", type=click.IntRange(1), default=1, show_default=True,
                     help="local processes running the jobs (the results are the same for any number)")(f)
    return f


def written(paths) -> str:
    """``wrote a`` or ``wrote a.plane0.scpi .. a.plane7.scpi (8 files, one per switch)``."""
    paths = list(paths)
    if len(paths) == 1:
        return f"wrote {paths[0]}"
    return f"wrote {paths[0]} .. {paths[-1]} ({len(paths)} files, one per switch)"
