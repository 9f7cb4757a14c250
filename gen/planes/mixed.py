"""Mixed use of switching planes (Melhem, Section 5).

K planes carry user-given permutations (a ring, a 2D torus, any list) and
the other S-K planes carry LDI(M, S-K) for random traffic; random traffic
may use every plane.  ``mixed_network`` builds the S planes and measures
hops for uniform random traffic (exact, over all ordered pairs) on the
union, next to the user planes alone and the LDI planes alone.

    >>> from permnet.gen.planes.mixed import mixed_network, user_permutations
    >>> r = mixed_network(16, 4, user_permutations(["ring"], 16))
    >>> r.union.diameter <= r.ldi.diameter
    True
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.topologies import ldi
from permnet.gen.graph.metrics import Digraph, DistanceStats, distance_stats
from permnet.gen.planes.decompose import is_permutation, ldi_planes

__all__ = ["PermutationFile", "MixedNetwork", "is_plane_keyword", "user_permutations", "parse_permutation",
           "mixed_network"]


def _torus(M: int, a: int, b: int) -> list[tuple[str, np.ndarray]]:
    require(a * b == M, f"torus {a}x{b} has {a * b} nodes, not M={M}")
    require(a >= 2 and b >= 2, f"torus sides must be >= 2, got {a}x{b}")
    n = np.arange(M)
    r, c = n // b, n % b
    return [("torus+x", r * b + (c + 1) % b), ("torus-x", r * b + (c - 1) % b),
            ("torus+y", ((r + 1) % a) * b + c), ("torus-y", ((r - 1) % a) * b + c)]


class PermutationFile(NamedTuple):
    """The text of a permutation file (a JSON list or one integer per line)
    and its name for messages; :func:`permnet.topofiles.read_plane_specs`
    reads it."""

    text: str
    name: str


_KEYWORD = re.compile(r"ring-?|shift:-?\d+|torus:\d+x\d+")


def is_plane_keyword(spec: str) -> bool:
    """True if ``spec`` names planes (ring, ring-, shift:K, torus:AxB) rather than a file."""
    return _KEYWORD.fullmatch(spec) is not None


def user_permutations(specs, M: int) -> list[tuple[str, np.ndarray]]:
    """Parse plane specs: ``ring`` (i -> i+1), ``ring-`` (i -> i-1),
    ``shift:k`` (i -> i+k), ``torus:AxB`` (four planes, +-x and +-y of an
    A x B torus, node = row*B + column), or a :class:`PermutationFile`
    (a JSON list or one integer per line)."""
    out = []
    n = np.arange(M)
    for spec in specs:
        if isinstance(spec, PermutationFile):
            out.append((spec.name, parse_permutation(spec.text, M, spec.name)))
        elif spec == "ring":
            out.append(("ring", (n + 1) % M))
        elif spec == "ring-":
            out.append(("ring-", (n - 1) % M))
        elif m := re.fullmatch(r"shift:(-?\d+)", spec):
            out.append((spec, (n + int(m.group(1))) % M))
        elif m := re.fullmatch(r"torus:(\d+)x(\d+)", spec):
            out += _torus(M, int(m.group(1)), int(m.group(2)))
        else:
            raise PermnetError(f"unknown plane spec {spec!r} (ring, ring-, shift:K, torus:AxB or a file)")
    for name, p in out:
        # a plane that maps every node to itself links nothing: only self-loops
        require(not np.array_equal(p, n), f"plane {name} is the identity on {M} nodes (every port to itself); "
                                          "it links no two nodes")
    return out


def parse_permutation(text: str, M: int, name: str = "permutation") -> np.ndarray:
    """A permutation of 0..M-1 from a JSON list or one integer per line
    (``name`` is the source named in errors)."""
    try:
        vals = json.loads(text) if text.lstrip().startswith("[") else [int(t) for t in text.split()]
    except ValueError:
        raise PermnetError(f"{name}: expected a JSON list or one integer per line") from None
    require(len(vals) == M and is_permutation(vals), f"{name}: not a permutation of 0..{M - 1}")
    return np.asarray(vals, dtype=np.int64)


def _stats(planes: np.ndarray) -> DistanceStats:
    return distance_stats(Digraph.from_successors(np.asarray(planes).T))


@dataclass(frozen=True)
class MixedNetwork:
    """S planes of M ports: the K named user planes first, then LDI(M, S-K);
    the hop statistics of the LDI planes alone (``ldi``, None when K = S),
    of the user planes alone (``user``, None when K = 0) and of their union."""

    nodes: int
    degree: int
    user_planes: list[str]
    ldi: DistanceStats | None
    user: DistanceStats | None
    union: DistanceStats
    planes: np.ndarray

    @property
    def ldi_topology(self) -> str | None:
        return None if self.ldi is None else f"LDI({self.nodes},{self.degree - len(self.user_planes)})"

    def as_dict(self) -> dict:
        out: dict = {"nodes": self.nodes, "degree": self.degree, "user_planes": self.user_planes}
        if self.ldi is not None:
            out["ldi"] = {"topology": self.ldi_topology, **self.ldi.as_dict()}
        if self.user is not None:
            out["user"] = self.user.as_dict()
        out["union"] = self.union.as_dict()
        out["planes"] = self.planes.tolist()
        return out


def mixed_network(M: int, S: int, user: list[tuple[str, np.ndarray]]) -> MixedNetwork:
    """S planes: the K user permutations, then LDI(M, S-K); hop statistics."""
    K = len(user)
    require(K <= S, f"{K} user planes do not fit in S={S} planes")
    require(S - K != 1, "exactly one plane left for LDI; LDI needs at least 2 (use K <= S-2 or K = S)")
    user_planes = np.array([p for _, p in user], dtype=np.int64).reshape(K, M)
    parts = [user_planes]
    ldi_stats = None
    if S - K >= 2:
        ldi.check_params(M, S - K)
        lp = ldi_planes(M, S - K).planes
        parts.append(lp)
        ldi_stats = _stats(lp)
    user_stats = _stats(user_planes) if K else None
    planes = np.concatenate(parts)
    return MixedNetwork(M, S, [name for name, _ in user], ldi_stats, user_stats, _stats(planes), planes)
