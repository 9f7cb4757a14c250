"""permnet as a FuseSoC generator: a user's core asks for a network, a
crossbar, a Beneš network or a next-hop unit with the options of
``permnet rtl``, and gets the Verilog in a generated core.

FuseSoC runs a generator with one argument, the YAML file it writes
(``gapi: '1.0'``, ``vlnv``, ``files_root``, ``parameters``), in an empty
folder where the generator leaves its files and a ``.core`` file describing
them.  :func:`generate` is that generator: ``parameters`` holds ``design``
(one of :data:`DESIGNS`, the subcommands of ``permnet rtl``) and the
command's long options without their dashes (``nodes``, ``degree``,
``flit-width``, ``switching``, ``planes``, ``endpoints``, ...): a value is
passed as ``--name value``, ``true`` as the flag ``--name``, ``false`` as
``--no-name``, a list as ``a,b,c``.  So this core

.. code-block:: yaml

    generate:
      ldi:
        generator: permnet
        parameters: {design: network, nodes: 16, degree: 4, flit-width: 32, endpoints: stream}

builds what ``permnet rtl network --nodes 16 --degree 4 --flit-width 32
--endpoints stream`` builds.  The generator is declared by the core
``fusesoc/permnet.core`` of this repository (``permnet:ip:generators``); its
command is the ``permnet`` package folder, which Python runs
(``permnet/__main__.py``) as ``permnet fusesoc-gen FILE``.
"""

from __future__ import annotations

import os
from pathlib import Path

from permnet.gen.errors import PermnetError, require

__all__ = ["DESIGNS", "cli_args", "generate", "core_text"]

DESIGNS = ("network", "router", "planes", "crossbar", "benes", "nexthop")   # permnet rtl subcommands
# files the rtl commands write beside the Verilog: $readmemh tables, found by the simulator in its folder
DATA_SUFFIXES = (".hex", ".mem")


def cli_args(parameters: dict) -> list[str]:
    """``permnet rtl DESIGN --option value ...`` for a generator's
    ``parameters`` (``design`` and the long options, without ``output``)."""
    params = dict(parameters or {})
    design = params.pop("design", None)
    require(design in DESIGNS, f"FuseSoC parameter design: {design!r} is not one of {', '.join(DESIGNS)}")
    require("output" not in params, "FuseSoC parameter output: the generator names its own files")
    args = ["rtl", design]
    for name, value in params.items():
        require(isinstance(name, str) and name and not name.startswith("-"),
                f"FuseSoC parameter {name!r}: give the long option without its dashes (flit-width, not --flit-width)")
        if value is True:
            args.append(f"--{name}")
        elif value is False:
            args.append(f"--no-{name}")
        elif isinstance(value, (list, tuple)):
            args += [f"--{name}", ",".join(str(v) for v in value)]
        else:
            args += [f"--{name}", str(value)]
    return args


def core_text(vlnv: str, verilog: list[str], data: list[str], description: str) -> str:
    """A CAPI2 core holding the generated files (data files are copied
    beside the simulation, where ``$readmemh`` looks for them)."""
    lines = ["CAPI=2:", f"name: {vlnv}", f"description: {description!r}", "filesets:", "  rtl:", "    files:"]
    lines += [f"      - {name}: {{file_type: verilogSource}}" for name in verilog]
    lines += [f"      - {name}: {{file_type: user, copyto: {name}}}" for name in data]
    lines += ["targets:", "  default:", "    filesets: [rtl]"]
    return "\n".join(lines) + "\n"


def generate(config: str | os.PathLike, folder: str | os.PathLike = ".") -> Path:
    """Run the generator on FuseSoC's input file ``config``: write the
    Verilog (and its data files) and ``<name>.core`` into ``folder``;
    return the core file."""
    import yaml

    from permnet.cli import main

    try:
        cfg = yaml.safe_load(Path(config).read_text())
    except (OSError, yaml.YAMLError) as e:
        raise PermnetError(f"FuseSoC generator input {config}: {e}") from None
    require(isinstance(cfg, dict) and "vlnv" in cfg,
            f"FuseSoC generator input {config}: not a generator file (no vlnv)")
    args = cli_args(cfg.get("parameters") or {})
    design = args[1]
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"permnet_{design}.v"
    before = set(folder.iterdir())
    cwd = os.getcwd()
    os.chdir(folder)             # the data files land beside the Verilog
    try:
        rc = main(args + ["--output", out.name])
    finally:
        os.chdir(cwd)
    require(rc == 0, f"FuseSoC generator: permnet {' '.join(args)} failed (exit {rc})")
    new = sorted(p.name for p in set(folder.iterdir()) - before)
    verilog = [n for n in new if n.endswith(".v")]
    data = [n for n in new if n.endswith(DATA_SUFFIXES)]
    vlnv = cfg["vlnv"]
    core = folder / (vlnv.split(":")[2] + ".core")
    core.write_text(core_text(vlnv, verilog, data, "permnet " + " ".join(args)))
    return core
