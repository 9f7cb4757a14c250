"""What the command modules share: exit codes, output helpers, common options."""

from __future__ import annotations

import json

import click

from permnet.gen.errors import PermnetError

EXIT_BAD_INPUT = 2
EXIT_MISMATCH = 1


def echo_json(obj) -> None:
    """Indented JSON for small answers, one line for large ones (network descriptions)."""
    text = json.dumps(obj, indent=2, sort_keys=True)
    if len(text) > 20000:
        text = json.dumps(obj, sort_keys=True)
    click.echo(text)


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


def ldi_options(f):
    f = click.option("--degree", "-S", "S", type=int, required=True, help="node degree S (switching planes)")(f)
    f = click.option("--nodes", "-M", "M", type=int, required=True, help="number of nodes M")(f)
    return f


def schedule_options(f):
    f = click.option("--slot-us", type=float, default=None,
                     help="with --switches: duration of each time slot in microseconds")(f)
    f = click.option("--switches", type=int, default=None,
                     help="time-multiplex the planes onto this many physical switches")(f)
    return f
