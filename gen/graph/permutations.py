"""Permutations and partial permutations: the one home of checking,
inverting and completing them.

A *partial permutation* of n ports is an array ``p`` with ``p[i]`` the
image of ``i`` or ``-1`` (unused), no image used twice.  A switching plane
is one (ingress -> egress); its inverse (egress -> ingress) is what a
crossbar's egress multiplexers select.

    >>> inverse_partial([2, -1, 0]).tolist()
    [2, -1, 0]
    >>> complete_partial([-1, 0, -1]).tolist()     # unused inputs take unused outputs in increasing order
    [1, 0, 2]
"""

from __future__ import annotations

import numpy as np

from permnet.gen.errors import PermnetError

__all__ = ["is_permutation", "check_partial_permutation", "inverse_partial", "complete_partial"]


def is_permutation(row) -> bool:
    """True if ``row`` is a permutation of 0..len(row)-1."""
    row = np.asarray(row)
    return bool(np.array_equal(np.sort(row), np.arange(len(row))))


def check_partial_permutation(row, what: str) -> None:
    """Raise :class:`PermnetError` naming ``what`` unless the entries are -1
    or distinct values in 0..len(row)-1."""
    row = np.asarray(row)
    n = len(row)
    bad = np.flatnonzero((row < -1) | (row >= n))
    if len(bad):
        i = int(bad[0])
        raise PermnetError(f"{what}: ingress {i} -> egress {int(row[i])} out of range 0..{n - 1}")
    used = row[row >= 0]
    if len(np.unique(used)) != len(used):
        vals, counts = np.unique(used, return_counts=True)
        raise PermnetError(f"{what} is not a permutation: egress {int(vals[counts > 1][0])} is used twice")


def inverse_partial(p) -> np.ndarray:
    """``q`` with ``q[p[i]] = i`` for every used ``i``, -1 elsewhere."""
    p = np.asarray(p, dtype=np.int64)
    inv = np.full(len(p), -1, dtype=np.int64)
    m = p >= 0
    inv[p[m]] = np.nonzero(m)[0]
    return inv


def complete_partial(p) -> np.ndarray:
    """A full permutation extending ``p``: the unused inputs, in increasing
    order, take the unused outputs in increasing order."""
    p = np.asarray(p, dtype=np.int64).copy()
    free_out = np.setdiff1d(np.arange(len(p)), p[p >= 0])
    p[p < 0] = free_out
    return p
