"""``permnet mesh``: online permutation routing on the (n,1) array and (n,2) mesh (Protsenko Thms 1, 2)."""

from __future__ import annotations

import click

from permnet.cli.common import SEED, emit
from permnet.gen.errors import require


@click.command()
@click.option("--side", type=int, required=True, help="n: nodes per dimension")
@click.option("--dims", type=click.IntRange(1, 2), required=True)
@click.option("--perm-file", type=click.Path(dir_okay=False), default=None)
@click.option("--random", "use_random", is_flag=True, help="a random permutation")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def mesh(side, dims, perm_file, use_random, seed, as_json):
    """Online permutation routing on the (n,1) array or (n,2) mesh (Theorems 1, 2)."""
    import numpy as np

    from permnet.sim.mesh import route_mesh
    from permnet.switching import read_perm_file

    require(use_random != (perm_file is not None), "give exactly one of --perm-file and --random")
    perm = np.random.default_rng(seed).permutation(side ** dims) if use_random else read_perm_file(perm_file)
    require(all(v is not None for v in perm), "mesh routing needs a full permutation")
    emit(route_mesh(side, dims, perm).as_dict(), as_json)


group = mesh
