"""``permnet demo``: the main job in one folder."""

from __future__ import annotations

import click


@click.command()
@click.option("-o", "--output", "outdir", default="out/demo", show_default=True, type=click.Path(file_okay=False))
@click.option("--nodes", "-M", "M", type=int, default=4096, show_default=True)
@click.option("--degree", "-S", "S", type=int, default=8, show_default=True)
def demo(outdir, M, S):
    """The main job: LDI(M,S) report, plane configurations and plots in one folder."""
    from permnet.demo import run_demo

    paths = run_demo(outdir, M, S)
    per_dir: dict = {}
    for path in paths:
        per_dir.setdefault(path.parent, []).append(path)
    shown = set()
    for path in paths:
        many = per_dir[path.parent]
        if len(many) <= 8:
            click.echo(f"wrote {path}")
        elif path.parent not in shown:
            shown.add(path.parent)
            click.echo(f"wrote {path.parent}/ ({len(many)} files)")


group = demo
