"""The per-node traffic generators of the network design (issue 25), as a
pure-Python model that hardware implements with shifts, XORs, one constant
multiplier and comparators (no divider).

Typical use::

    rows = trace(16, GenParams("uniform", rate=rate_of(0.3), size=4, seed=7), start=0, stop=1000)

returns the packets ``(cycle, src, dst, size)`` the generators create, in
cycle order (nodes in increasing order within a cycle): the same rows the RTL
generators (:mod:`permnet.hdl.hil.netgen`) create, and a trace that
``permnet.sim.netsim`` replays (its ``TRACE`` kind).

The generator of node n
-----------------------
* State: a 64-bit xorshift register (Marsaglia, "Xorshift RNGs", J. Stat.
  Soft. 8(14), 2003, triple (13, 7, 17)): ``x ^= x << 13; x ^= x >> 7;
  x ^= x << 17`` -- a linear feedback shift register over GF(2) of period
  2^64 - 1, three XOR layers in hardware.  It starts at
  ``seed ^ C_n`` with ``C_n = (n + 1) * 0x9E3779B97F4A7C15 mod 2^64`` (1 in
  place of a zero state) and steps once in every cycle c with
  ``start <= c < stop``; the cycle's draws are fields of the new state:
  ``r = x[0:16]`` (rate), ``u = x[16:32]`` (destination), ``h = x[32:48]``
  (hot spot).
* A packet of ``size`` flits is created in cycle c when ``r < rate``
  (``rate`` in units of 2^-16 packets per node per cycle; 65536 = every
  cycle, :func:`rate_of`) and the pattern gives a destination other than n
  for the fixed patterns (a node that a permutation maps to itself never
  injects, as in :mod:`permnet.sim.netsim.traffic`).
* Destination:

  ==============  =====================================================
  ``uniform``     ``d = (u (M - 1)) >> 16``, then ``d + (d >= n)``: the
                  other M - 1 nodes
  ``hotspot``     ``hot`` when ``h < hot_frac`` (units of 2^-16), else
                  uniform (node ``hot`` may then send to itself)
  ``permutation`` ``perm[n]`` (a table the host loads)
  ``bitcomp``     ``~n`` on log2 M bits (M a power of two)
  ``transpose``   ``j k + i`` for ``n = i k + j``, M = k^2 (for M = 2^b,
                  b even, the swap of the two halves of n's bits)
  ==============  =====================================================

  ``u (M - 1) >> 16`` is a multiplication by a constant and a shift, not a
  division: for M - 1 a power of two it is exactly uniform (the top bits of
  u); otherwise each destination has ``floor`` or ``ceil`` of
  ``2^16 / (M - 1)`` of the 2^16 values of u, a relative bias below
  ``(M - 1) / 2^16`` (0.02 % at M = 16), stated rather than removed by
  rejection (which would change the cycle in which a packet is made).
"""

from __future__ import annotations

from dataclasses import dataclass

from permnet.gen.errors import require

__all__ = ["PATTERNS", "RATE_BITS", "GenParams", "rate_of", "seed_state", "step", "destinations", "trace"]

PATTERNS = ("uniform", "hotspot", "permutation", "bitcomp", "transpose")
RATE_BITS = 16
MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def rate_of(load: float) -> int:
    """The rate threshold for ``load`` packets per node per cycle (0 < load <= 1)."""
    require(0 < load <= 1, f"load {load:g} is outside (0, 1] packets per node per cycle")
    return max(1, round(load * (1 << RATE_BITS)))


def seed_state(seed: int, node: int) -> int:
    """The start state of node ``node``'s register: ``seed ^ C_node``, 1 if that is 0."""
    x = (int(seed) ^ ((node + 1) * GOLDEN)) & MASK64
    return x or 1


def step(x: int) -> int:
    """One xorshift64 (13, 7, 17) step."""
    x ^= (x << 13) & MASK64
    x ^= x >> 7
    x ^= (x << 17) & MASK64
    return x


@dataclass(frozen=True)
class GenParams:
    """What the host sets: ``pattern`` (:data:`PATTERNS`), ``rate`` (threshold, 2^-16 units),
    ``size`` (flits per packet), ``seed`` (64 bits), ``hot`` and ``hot_frac`` (2^-16 units) for
    ``hotspot``, ``perm`` (destination of each node) for ``permutation``."""

    pattern: str = "uniform"
    rate: int = 1 << 14
    size: int = 4
    seed: int = 1
    hot: int = 0
    hot_frac: int = 1 << 13
    perm: tuple | None = None

    def check(self, M: int) -> "GenParams":
        require(self.pattern in PATTERNS, f"unknown generator pattern {self.pattern!r} (one of {', '.join(PATTERNS)})")
        require(M >= 2, f"need >= 2 nodes, got {M}")
        require(0 <= self.rate <= 1 << RATE_BITS, f"rate must be 0..{1 << RATE_BITS} (units of 2^-16), got {self.rate}")
        require(1 <= self.size <= 255, f"packet size must be 1..255 flits, got {self.size}")
        require(0 <= self.seed <= MASK64, f"seed must be a 64-bit unsigned number, got {self.seed}")
        require(0 <= self.hot < M, f"hot spot must be a node 0..{M - 1}, got {self.hot}")
        require(0 <= self.hot_frac <= 1 << RATE_BITS, f"hot_frac must be 0..{1 << RATE_BITS}, got {self.hot_frac}")
        if self.pattern == "permutation":
            require(self.perm is not None and len(self.perm) == M and all(0 <= int(d) < M for d in self.perm),
                    f"pattern permutation needs a table of {M} destinations in 0..{M - 1}")
            twice = sorted({int(d) for d in self.perm if list(self.perm).count(d) > 1})
            require(not twice, f"pattern permutation needs a permutation of 0..{M - 1}: destination "
                    f"{twice[0] if twice else 0} appears more than once")
        destinations(M, self.pattern, self.perm)
        return self


def destinations(M: int, pattern: str, perm=None) -> list | None:
    """The fixed destination of every node for the table patterns (None for uniform and hotspot)."""
    if pattern in ("uniform", "hotspot"):
        return None
    if pattern == "permutation":
        return [int(d) for d in perm]
    if pattern == "bitcomp":
        require(M & (M - 1) == 0, f"pattern bitcomp needs a power-of-two number of nodes, got {M}")
        return [(M - 1) ^ n for n in range(M)]
    k = round(M ** 0.5)
    require(k * k == M, f"pattern transpose needs a square number of nodes (k x k), got {M}")
    return [(n % k) * k + n // k for n in range(M)]


def _uniform(u: int, M: int, n: int) -> int:
    d = (u * (M - 1)) >> RATE_BITS
    return d + (d >= n)


def trace(M: int, params: GenParams, start: int, stop: int) -> list:
    """The packets ``(cycle, src, dst, size)`` created in cycles ``start <= c < stop``."""
    p = params.check(M)
    require(0 <= start <= stop, f"need 0 <= start <= stop, got {start}, {stop}")
    fixed = destinations(M, p.pattern, p.perm)
    mask = (1 << RATE_BITS) - 1
    state = [seed_state(p.seed, n) for n in range(M)]
    rows = []
    for c in range(start, stop):
        for n in range(M):
            x = state[n] = step(state[n])
            r, u, h = x & mask, (x >> 16) & mask, (x >> 32) & mask
            if fixed is not None:
                d = fixed[n]
                if d == n:
                    continue
            elif p.pattern == "hotspot" and h < p.hot_frac:
                d = p.hot
            else:
                d = _uniform(u, M, n)
            if r < p.rate:
                rows.append((c, n, d, p.size))
    return rows
