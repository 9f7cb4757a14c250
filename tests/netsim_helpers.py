"""Independent oracles for the deadlock analysis and the network simulator
(issue 14): routes come from :func:`permnet.gen.topologies.ldi.route`
walked link by link, never from the routing tables under test."""

from __future__ import annotations

import numpy as np

from permnet.gen.topologies import ldi


def plane_of_link(planes: np.ndarray, u: int, v: int) -> int:
    """Lowest plane carrying u -> v (by scanning the planes)."""
    for y in range(planes.shape[0]):
        if planes[y][u] == v:
            return y
    raise AssertionError(f"no plane carries {u} -> {v}")


def ldi_routes(M: int, S: int):
    """{(src, dst): node path} from ldi.route (auto method, shortcuts on)."""
    return {(s, d): ldi.route(M, S, s, d).paths[0] for s in range(M) for d in range(M)}


def channels_of_path(path, planes, vcs: int):
    """[((node, plane), vc), ...] of a node path under hop-indexed VCs."""
    return [((u, plane_of_link(planes, u, v)), min(k, vcs - 1)) for k, (u, v) in enumerate(zip(path, path[1:]))]


def dependency_set(routes, planes, vcs: int) -> set:
    """Every (channel, next channel) pair some route uses."""
    deps = set()
    for path in routes.values():
        ch = channels_of_path(path, planes, vcs)
        deps.update(zip(ch, ch[1:]))
    return deps


class Ran:
    def __init__(self, code, out, err):
        self.exit_code, self.output, self.stderr = code, out, err


def run_main(argv, capsys) -> Ran:
    """Run the CLI in-process (no interpreter start-up): exit code, stdout, stderr."""
    from permnet.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:          # sys.exit(1) for a mismatch, as the console script sees it
        code = exc.code
    out = capsys.readouterr()
    return Ran(code, out.out, out.err)
