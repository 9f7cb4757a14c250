"""The data a next-hop unit is built from (Melhem, Section 4): the
closed-form parameters of LDI(M, S) with M = S^(h-1) G (eq. 10), and the
first-link table of the shortest routes for the table-driven unit.  The
RTL (:mod:`permnet.hdl.nexthop`) takes them from here; the reference model
it is tested against is :func:`permnet.sim.reference.next_hop`.

    >>> spec = NextHopSpec(4096, 8)
    >>> spec.h, spec.G, spec.hop_bits
    (4, 8, 2)
    >>> route_table(5, 2)[0].tolist()
    [0, 1, 1, 1, 1]
"""

from __future__ import annotations

import numpy as np

from permnet.gen.errors import require
from permnet.gen.topologies import ldi

__all__ = ["NextHopSpec", "route_table"]


class NextHopSpec:
    """Parameters of a closed-form next-hop unit for LDI(M, S), M = S^(h-1) G."""

    def __init__(self, M: int, S: int, shortcut: bool = True):
        ldi.check_params(M, S)
        form = ldi.melhem_form(M, S)
        require(form is not None,
                f"LDI({M},{S}) has no closed-form route (M != S^(h-1)*G); use the table-driven unit")
        self.M, self.S = M, S
        self.h, self.G = form
        self.shortcut = shortcut and self.h == 2

    @property
    def hop_bits(self) -> int:
        return max(1, (self.h - 1).bit_length())


def route_table(M: int, S: int) -> np.ndarray:
    """``table[n, d]``: first link of the shortest route n -> d (0 when n = d)."""
    ldi.check_params(M, S)
    table = np.zeros((M, M), dtype=np.int64)
    for n in range(M):
        for d in range(M):
            if n != d:
                table[n, d] = ldi.route_shortest(M, S, n, d).links[0][0]
    return table
