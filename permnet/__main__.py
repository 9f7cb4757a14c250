"""``python -m permnet``: the command line.  FuseSoC runs the package
folder itself as the generator of ``fusesoc/permnet.core``
(``python3 .../permnet FILE_input.yml``): a lone ``*_input.yml`` argument
runs ``permnet fusesoc-gen`` on it (:mod:`permnet.fusesoc`)."""

import sys
from pathlib import Path

if __name__ == "__main__":   # (a module walk that imports it, as the doctest discovery does, runs nothing)
    # run as a folder, Python puts the folder itself first on the path, where its
    # modules (plots, verify, ...) would shadow top-level ones: the package is imported instead
    if sys.path and sys.path[0] and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        del sys.path[0]

    from permnet.cli import main

    args = sys.argv[1:]
    if len(args) == 1 and args[0].endswith("_input.yml"):
        args = ["fusesoc-gen", *args]
    sys.exit(main(args))
