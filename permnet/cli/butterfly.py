"""``permnet butterfly``: node and link loads of a permutation on the butterfly (Protsenko Fig. 5)."""

from __future__ import annotations

import click

from permnet.cli.common import SEED, emit
from permnet.gen.errors import require


@click.command()
@click.option("--dims", type=int, required=True, help="d of BF(d)")
@click.option("--perm", "perm_spec", default="bit-reversal", show_default=True, help="bit-reversal, random or a file")
@click.option("--seed", type=SEED, default=0, show_default=True)
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
    emit(route_butterfly(dims, perm).as_dict(), as_json, ("dims", "max_node_load", "max_link_load", "hot_spot"))


group = butterfly
