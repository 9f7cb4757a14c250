"""Traffic patterns and trace files for the network simulator.

Synthetic patterns (Dally & Towles, *Principles and Practices of
Interconnection Networks*, Section 3.2), node numbers as b-bit strings
``s = s_{b-1} .. s_0`` where the pattern needs M = 2^b:

=================  ============================================  ==============
pattern            destination of source s                       needs
=================  ============================================  ==============
``uniform``        uniformly random among the other M-1 nodes    --
``transpose``      ``s_{b/2-1}..s_0 s_{b-1}..s_{b/2}`` (halves)   M = 2^b, b even
``bitrev``         ``s_0 s_1 .. s_{b-1}``                        M = 2^b
``bitcomp``        ``~s``                                        M = 2^b
``shuffle``        ``s_{b-2}..s_0 s_{b-1}`` (rotate left)        M = 2^b
``tornado``        ``(s + ceil(M/2) - 1) mod M``                 --
``hotspot[:H[:F]]`` node H (default 0) with probability F          --
                   (default 0.1), else uniform
``randperm``       a random permutation drawn from the seed      --
=================  ============================================  ==============

A node that a permutation maps to itself does not inject.  A demand matrix
D (:func:`matrix`, ``permnet netsim --traffic-matrix``) makes node s inject
at ``load * rowsum(s) / max_row`` and send to d with probability
``D[s, d] / rowsum(s)``: the busiest source at the offered load, the others
in proportion, every destination in proportion to its share of the row.  A trace file
has one packet a line, ``cycle src dst size`` (``#`` comments and blank
lines ignored); cycles need not be sorted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import PermnetError, require

__all__ = ["PATTERNS", "Traffic", "pattern", "permutation", "parse_trace", "matrix"]

PATTERNS = ("uniform", "transpose", "bitrev", "bitcomp", "shuffle", "tornado", "hotspot", "randperm")


@dataclass(frozen=True)
class Traffic:
    """What the kernel needs: kind (0 uniform, 1 permutation, 2 hot-spot, 3 trace, 4 demand matrix) and its data."""

    name: str
    kind: int
    dest: np.ndarray
    hot: int = 0
    hot_frac: float = 0.0
    trace: tuple | None = None     # (cycle, src, dst, size) int64 arrays, sorted by cycle
    cdf: np.ndarray | None = None  # demand matrix: row s's cumulative shares, ending at rowsum(s) / max row


def _bits(M: int, name: str) -> int:
    b = M.bit_length() - 1
    require(M >= 2 and M == 1 << b, f"traffic {name} needs a power-of-two number of nodes, got {M}")
    return b


def permutation(name: str, M: int, seed: int = 0) -> np.ndarray:
    """Destination of every source under a permutation pattern."""
    s = np.arange(M, dtype=np.int64)
    if name == "tornado":
        return (s + (M + 1) // 2 - 1) % M
    if name == "randperm":
        return np.random.default_rng([seed, 0x7e4]).permutation(M).astype(np.int64)
    b = _bits(M, name)
    mask = M - 1
    if name == "bitcomp":
        return ~s & mask
    if name == "shuffle":
        return ((s << 1) | (s >> (b - 1))) & mask
    if name == "transpose":
        require(b % 2 == 0, f"traffic transpose needs M = 4^k nodes, got {M}")
        h = b // 2
        return ((s << h) | (s >> h)) & mask
    if name == "bitrev":
        out = np.zeros(M, dtype=np.int64)
        for i in range(b):
            out |= ((s >> i) & 1) << (b - 1 - i)
        return out
    raise PermnetError(f"unknown traffic pattern {name!r}; choose from {', '.join(PATTERNS)} or a trace file")


def pattern(spec: str, M: int, seed: int = 0) -> Traffic:
    """Parse ``uniform``, ``hotspot:3:0.2``, ``transpose`` ... into a :class:`Traffic`."""
    name, _, rest = spec.partition(":")
    none = np.zeros(1, dtype=np.int64)
    if name == "uniform" and not rest:
        return Traffic("uniform", 0, none)
    if name == "hotspot":
        parts = rest.split(":") if rest else []
        require(len(parts) <= 2, f"traffic {spec!r}: use hotspot, hotspot:NODE or hotspot:NODE:FRACTION")
        try:
            hot = int(parts[0]) if parts else 0
            frac = float(parts[1]) if len(parts) > 1 else 0.1
        except ValueError:
            raise PermnetError(f"traffic {spec!r}: NODE must be an integer and FRACTION a number") from None
        require(0 <= hot < M, f"traffic {spec!r}: hot node out of range 0..{M - 1}")
        require(0.0 <= frac <= 1.0, f"traffic {spec!r}: fraction must be in [0, 1]")
        return Traffic(spec, 2, none, hot, frac)
    require(name in PATTERNS and not rest,
            f"unknown traffic pattern {spec!r}; choose from {', '.join(PATTERNS)} or a trace file")
    return Traffic(name, 1, permutation(name, M, seed))


#: the last cycle a trace may start a packet in (the simulated cycles are bounded as --cycles is)
MAX_TRACE_CYCLE = 10**7


def parse_trace(text: str, M: int, max_size: int | None = None, where: str = "trace") -> Traffic:
    """Parse ``cycle src dst size`` lines; every problem names its line."""
    rows = []
    for i, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        tok = line.split()
        require(len(tok) == 4, f"{where}:{i}: expected 'cycle src dst size', got {line!r}")
        try:
            c, s, d, z = (int(t) for t in tok)
        except ValueError:
            raise PermnetError(f"{where}:{i}: 'cycle src dst size' must be integers, got {line!r}") from None
        require(0 <= c <= MAX_TRACE_CYCLE, f"{where}:{i}: cycle must be 0..10^7 (as --cycles), got {c}")
        require(0 <= s < M and 0 <= d < M, f"{where}:{i}: nodes must be in 0..{M - 1}, got {s} -> {d}")
        require(z >= 1, f"{where}:{i}: size must be >= 1 flit, got {z}")
        require(max_size is None or z <= max_size,
                f"{where}:{i}: a {z}-flit packet does not fit a {max_size}-flit VC buffer (virtual cut-through)")
        rows.append((c, s, d, z))
    require(rows, f"{where}: no packets")
    arr = np.asarray(rows, dtype=np.int64)
    arr = arr[np.argsort(arr[:, 0], kind="stable")]
    return Traffic("trace", 3, np.zeros(1, dtype=np.int64),
                   trace=tuple(np.ascontiguousarray(arr[:, j]) for j in range(4)))


def matrix(D, name: str = "matrix") -> Traffic:
    """A demand matrix as traffic (module docstring): ``cdf[s]`` is the running sum
    of row s divided by the largest row sum."""
    from permnet.gen.traffic.demand import check_demand

    D = check_demand(D)
    cdf = np.cumsum(D, axis=1) / D.sum(axis=1).max()
    cdf[:, -1] = D.sum(axis=1) / D.sum(axis=1).max()      # the exact share, not the rounded running sum
    return Traffic(name, 4, np.zeros(1, dtype=np.int64), cdf=np.ascontiguousarray(cdf))
