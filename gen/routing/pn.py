"""Offline routing on the (n, d) permutation network with n x n switches.

    >>> from permnet.gen.routing import pn
    >>> r = pn.route([4, 1, 0, 3, 2, 6, 5, 7], radix=2)     # Protsenko's example on the (2,3)-PN
    >>> len(r.stages), r.switches
    (5, 20)

Protsenko, Definition 8 and Lemma 1.  Wires carry the labels
``a = (a_{d-1} .. a_0)`` in base n; position p at every stage boundary is the
node label p.  Stage t < d-1 (input side) and stage 2d-2-t (output side)
consist of n x n switches that each vary digit q = d-1-t of the label
while keeping all others, the middle stage d-1 varies digit 0: 2d-1 stages
of n^(d-1) switches, no wiring between stages (``links`` are identities).

Routing (Lemma 1): at depth t every path must choose the sub-network
B^c (c = new digit q) so that paths sharing an input switch, and paths
sharing an output switch, choose different c.  That is an n-colouring of the
vertices of the routing hypergraph H_pi, i.e. an n-edge-colouring of the
n-regular bipartite multigraph G_pi (left: input switches, right: output
switches, one edge per path), done for all sub-networks of a depth at once
by :func:`permnet.gen.graph.coloring.edge_colour_regular_bipartite`.

A switch state lists, for each output k, which input (0..n-1, in the order
of ``inputs``) appears there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from permnet.gen.errors import require
from permnet.gen.routing.benes import check_permutation, complete_partial
from permnet.gen.graph.coloring import edge_colour_regular_bipartite

__all__ = ["PnRoute", "route", "digits_for"]


def digits_for(size: int, radix: int) -> int:
    """d with radix^d = size; an error if size is not a power of radix."""
    require(radix >= 2, f"radix must be >= 2, got {radix}")
    d, x = 0, 1
    while x < size:
        d, x = d + 1, x * radix
    require(x == size and d >= 1, f"size {size} is not a power of radix {radix} (n^d with d >= 1)")
    return d


@dataclass
class PnRoute:
    """``stages[s]`` is a list of (inputs, state) arrays, one per switch."""

    size: int
    radix: int
    digits: int
    perm: np.ndarray
    used: np.ndarray
    stages: list

    @property
    def switches(self) -> int:
        return sum(len(st) for st in self.stages)

    def description(self) -> dict:
        return {
            "size": self.size, "network": "pn", "radix": self.radix, "digits": self.digits,
            "switches": self.switches,
            "stages": [[{"inputs": ins.tolist(), "state": st.tolist()} for ins, st in stage]
                       for stage in self.stages],
            "links": [list(range(self.size)) for _ in range(len(self.stages) - 1)],
            "perm": [int(x) if u else -1 for x, u in zip(self.perm, self.used)],
        }


def _switch_inputs(key: np.ndarray, q: int, n: int) -> np.ndarray:
    """Positions of the switches with digit q free: key is the label with
    digit q removed; row j of the result is the position with digit q = j."""
    low = key % n ** q
    high = key // n ** q
    return (high * n ** (q + 1) + low)[:, None] + np.arange(n)[None, :] * n ** q


def route(perm, radix: int, *, partial: bool = False) -> PnRoute:
    """Route ``perm`` (input i -> output perm[i]) on the (radix, d)-PN."""
    p = check_permutation(perm if isinstance(perm, np.ndarray) else list(perm), partial)
    N = len(p)
    d = digits_for(N, radix)
    n = radix
    full, used = complete_partial(p)
    src = np.arange(N, dtype=np.int64)
    pos = src.copy()                      # current position of each path
    nst = 2 * d - 1
    stages: list = [None] * nst
    for t in range(d - 1):
        q = d - 1 - t
        span = n ** q
        group = pos // (span * n)          # sub-network: the digits above q
        left = group * span + pos % span   # input switch (digit q removed)
        right = group * span + full % span  # output switch of this depth
        colour = edge_colour_regular_bipartite(left, right, N // n)
        # input stage t: input j (= current digit q) goes to output colour
        ins = _switch_inputs(np.arange(N // n), q, n)
        state_in = np.empty((N // n, n), dtype=np.int64)
        state_in[left, colour] = (pos // span) % n
        # output stage 2d-2-t: input colour goes to output (digit q of the destination)
        state_out = np.empty((N // n, n), dtype=np.int64)
        state_out[right, (full // span) % n] = colour
        stages[t] = list(zip(ins, state_in))
        stages[nst - 1 - t] = list(zip(ins, state_out))
        pos = pos - ((pos // span) % n) * span + colour * span
    # middle stage: digit 0, each switch realises its own permutation
    key = pos // n
    ins = _switch_inputs(np.arange(N // n), 0, n)
    state_mid = np.empty((N // n, n), dtype=np.int64)
    state_mid[key, full % n] = pos % n
    stages[d - 1] = list(zip(ins, state_mid))
    return PnRoute(N, n, d, full, used, stages)
