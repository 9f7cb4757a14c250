"""``permnet benes``: switch settings of a Beneš, Waksman or (n,d) network for a permutation."""

from __future__ import annotations

import click

from permnet.cli.common import echo_json, emit
from permnet.gen.errors import require


@click.command()
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
    from permnet.switching import configure, perm_array, read_perm_array

    require((perm_text is None) != (perm_file is None), "give exactly one of --perm and --perm-file")
    perm = perm_array(perm_text) if perm_text is not None else read_perm_array(perm_file)
    s, desc = configure(perm, radix, network, outdir or None, describe=as_json)
    if as_json:
        echo_json(desc)
    else:
        emit(s.summary().as_dict(), False, width=12)


group = benes
