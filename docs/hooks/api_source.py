"""MkDocs hook: the source tree mkdocstrings reads the Python API from.

The package ``permnet`` is installed from four folders (pyproject's
``package-dir``: ``permnet/``, and ``gen/``, ``hdl/``, ``sim/`` as
``permnet.gen``, ``permnet.hdl``, ``permnet.sim``); griffe finds packages by
their folder, so ``build/api-src/permnet`` joins them with symbolic links.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUBPACKAGES = {"gen": "gen", "hdl": "hdl", "sim": "sim"}


def link_packages() -> None:
    pkg = ROOT / "build" / "api-src" / "permnet"
    pkg.mkdir(parents=True, exist_ok=True)
    wanted = {p.name: p for p in (ROOT / "permnet").iterdir() if p.name != "__pycache__"}
    wanted.update({name: ROOT / folder for name, folder in SUBPACKAGES.items()})
    for name, target in wanted.items():
        link = pkg / name
        if link.is_symlink() and link.resolve() == target.resolve():
            continue
        if link.is_symlink():
            link.unlink()
        link.symlink_to(target)


# At import, when MkDocs loads its hooks: mkdocstrings drops search paths that do not
# exist yet when it reads its configuration, before any on_config event of a hook.
link_packages()
