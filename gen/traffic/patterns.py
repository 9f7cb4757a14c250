"""Built-in traffic patterns: seeded M x M demand matrices.

    >>> from permnet.gen.traffic.patterns import pattern
    >>> pattern("tornado", 6).argmax(axis=1).tolist()      # i -> i + ceil(M/2) - 1
    [2, 3, 4, 5, 0, 1]

Every pattern is a function ``f(M, rng) -> D`` registered in
:data:`PATTERNS` under its name; :func:`pattern` validates M, seeds the
generator and zeroes the diagonal (a node's traffic to itself never enters
the network, :mod:`.demand`).  Unless said otherwise a node injects one unit
(its row sums to 1), so the patterns compare on the same scale.

The synthetic permutations (transpose, bit-reversal, shuffle, tornado) are
those of Dally and Towles, *Principles and Practices of Interconnection
Networks* (2004), Section 3.2; the stencils are the halo exchanges of
Melhem's Figure 1 (a mesh embedded in the planes); the skewed workload is
that of Liu et al., "Scheduling techniques for hybrid circuit/packet
networks" (Solstice), CoNEXT 2015.
"""

from __future__ import annotations

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.traffic.demand import MAX_NODES

__all__ = ["PATTERNS", "pattern", "grid_shape", "is_pattern", "SKEW_LARGE", "SKEW_SMALL", "SKEW_LARGE_SHARE",
           "SKEW_NOISE", "HOTSPOT_SHARE"]


def _perm_matrix(dest: np.ndarray, weight: float = 1.0) -> np.ndarray:
    M = len(dest)
    D = np.zeros((M, M))
    np.add.at(D, (np.arange(M), dest), weight)
    return D


def _bits(M: int, name: str) -> int:
    require(M & (M - 1) == 0, f"{name} needs M a power of 2, got M={M}")
    return M.bit_length() - 1


def _largest_divisor_at_most(M: int, bound: float) -> int:
    return max(a for a in range(1, int(bound + 1e-9) + 1) if M % a == 0)


def grid_shape(M: int, dims: int) -> tuple[int, ...]:
    """The grid of M nodes a stencil runs on: the most nearly cubic factorisation,
    side by side ``a <= b (<= c)`` with a the largest divisor of M at most
    M^(1/dims), then recursively for M / a.  Node = row-major index
    (``(x * b + y) * c + z``).  A prime M gives a 1 x M (x 1) grid."""
    if dims == 1:
        return (M,)
    a = _largest_divisor_at_most(M, M ** (1.0 / dims))
    return (a,) + grid_shape(M // a, dims - 1)


def uniform(M, rng):
    """Uniform random traffic: ``D[s, d] = 1 / (M - 1)`` for every s != d."""
    return np.full((M, M), 1.0 / (M - 1))


def all_to_all(M, rng):
    """MPI all-to-all (personalised exchange): every node sends one unit to every
    other, ``D[s, d] = 1`` for s != d.  The shape of :func:`uniform`, M - 1 times
    its scale (a row sums to M - 1)."""
    return np.ones((M, M))


def permutation(M, rng):
    """A random permutation without fixed points (seeded): ``D[s, pi(s)] = 1``."""
    while True:
        p = rng.permutation(M)
        if not np.any(p == np.arange(M)):
            return _perm_matrix(p)


def transpose(M, rng):
    """Matrix transpose on an a x a grid (M = a^2 nodes, node = r a + c):
    ``(r, c) -> (c, r)``; the a diagonal nodes send nothing."""
    a = int(round(M ** 0.5))
    require(a * a == M, f"transpose needs M a perfect square, got M={M}")
    n = np.arange(M)
    return _perm_matrix((n % a) * a + n // a)


def bit_reversal(M, rng):
    """Bit reversal, M = 2^b: the destination's bits are the source's reversed,
    ``d_i = s_{b-1-i}`` (palindromes send nothing)."""
    b = _bits(M, "bit-reversal")
    n = np.arange(M)
    rev = np.zeros(M, np.int64)
    for i in range(b):
        rev |= ((n >> i) & 1) << (b - 1 - i)
    return _perm_matrix(rev)


def shuffle(M, rng):
    """Perfect shuffle, M = 2^b: rotate the b bits left by one,
    ``d = (2 s + s div 2^(b-1)) mod M`` (nodes 0 and M - 1 send nothing).
    It is one of the links of LDI(M, 2) (Melhem eq. (1) with L = s div 2^(b-1))."""
    b = _bits(M, "shuffle")
    n = np.arange(M)
    return _perm_matrix(((n << 1) | (n >> (b - 1))) & (M - 1))


def tornado(M, rng):
    """Tornado on a ring of M: ``d = (s + ceil(M/2) - 1) mod M``, the farthest a
    minimal ring route goes in one direction."""
    return _perm_matrix((np.arange(M) + (M + 1) // 2 - 1) % M)


def _stencil(M, dims):
    shape = grid_shape(M, dims)
    idx = np.arange(M).reshape(shape)
    D = np.zeros((M, M))
    for axis in range(dims):
        for step in (1, -1):
            np.add.at(D, (idx.ravel(), np.roll(idx, -step, axis=axis).ravel()), 1.0 / (2 * dims))
    return D


def stencil2d(M, rng):
    """2-D halo exchange (5-point stencil) on the a x b grid of :func:`grid_shape`
    with periodic boundaries: node (x, y) sends 1/4 to each of (x +- 1 mod a, y)
    and (x, y +- 1 mod b).  Four permutations (fewer where a side is 1 or 2)."""
    return _stencil(M, 2)


def stencil3d(M, rng):
    """3-D halo exchange (7-point stencil) on the a x b x c grid of :func:`grid_shape`,
    periodic: 1/6 to each of the six neighbours +-1 along each axis."""
    return _stencil(M, 3)


def ring_allreduce(M, rng):
    """Ring all-reduce of a buffer of one unit (reduce-scatter then all-gather,
    Patarasuk and Yuan, JPDC 2009): node s sends ``2 (M - 1) / M`` units to
    s + 1 mod M."""
    n = np.arange(M)
    return _perm_matrix((n + 1) % M, 2.0 * (M - 1) / M)


#: share of every source's traffic sent to the hotspot
HOTSPOT_SHARE = 0.2


def hotspot(M, rng):
    """Uniform traffic with a hotspot h (chosen by the seed): every s != h sends
    ``HOTSPOT_SHARE`` = 0.2 of its unit to h and the rest uniformly,
    ``D[s, d] = 0.8 / (M - 1) + 0.2 [d = h]``; h itself sends uniformly."""
    h = int(rng.integers(M))
    D = np.full((M, M), (1 - HOTSPOT_SHARE) / (M - 1))
    D[:, h] += HOTSPOT_SHARE
    D[h] = 1.0 / (M - 1)
    return D


#: Solstice's skewed workload: per port, large and small flows, and the large ones' share of the bytes
SKEW_LARGE, SKEW_SMALL, SKEW_LARGE_SHARE = 4, 12, 0.7
#: noise added to every entry, as a share of a port's bytes spread over the row
SKEW_NOISE = 0.003


def skewed(M, rng):
    """Solstice's skewed workload (Liu et al., CoNEXT 2015, Section 5): per port
    ``SKEW_LARGE`` = 4 large flows carrying ``SKEW_LARGE_SHARE`` = 70 % of its
    bytes and ``SKEW_SMALL`` = 12 small flows carrying the other 30 %, each flow
    set a random permutation so that every row and column carries the same
    bytes, plus a little noise (0.3 % of a port's bytes spread evenly):

        D = 0.7/4 sum_{k<4} P_k + 0.3/12 sum_{k<12} Q_k + 0.003/(M-1) (J - I)

    with P_k, Q_k independent random fixed-point-free permutation matrices
    (flows of one port may coincide for small M and then add up).  A row sums
    to about 1.003."""
    D = np.zeros((M, M))
    for count, share in ((SKEW_LARGE, SKEW_LARGE_SHARE), (SKEW_SMALL, 1 - SKEW_LARGE_SHARE)):
        for _ in range(count):
            D += permutation(M, rng) * (share / count)
    return D + SKEW_NOISE / (M - 1)


#: name -> builder; the CLI's ``--traffic NAME`` and the tests read this table
PATTERNS = {
    "uniform": uniform,
    "permutation": permutation,
    "transpose": transpose,
    "bit-reversal": bit_reversal,
    "shuffle": shuffle,
    "tornado": tornado,
    "stencil2d": stencil2d,
    "stencil3d": stencil3d,
    "all-to-all": all_to_all,
    "ring-allreduce": ring_allreduce,
    "hotspot": hotspot,
    "skewed": skewed,
}


def is_pattern(name: str) -> bool:
    return name in PATTERNS


def pattern(name: str, M: int, seed: int = 0) -> np.ndarray:
    """The M x M demand matrix of pattern ``name`` (see :data:`PATTERNS`), seeded."""
    if name not in PATTERNS:
        raise PermnetError(f"unknown traffic pattern {name!r}; choose from {', '.join(PATTERNS)} or give a file")
    require(isinstance(M, (int, np.integer)) and 2 <= M <= MAX_NODES,
            f"nodes M must be between 2 and {MAX_NODES}, got {M}")
    D = PATTERNS[name](int(M), np.random.default_rng(seed)).astype(np.float64)
    np.fill_diagonal(D, 0.0)
    require(D.any(), f"pattern {name} has no traffic between distinct nodes for M={M}")
    return D
