"""Built-in patterns: each checked against its formula written out here."""

import numpy as np
import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.traffic.patterns import PATTERNS, grid_shape, pattern


def _dest(D):
    """The destination of every source of a permutation pattern (-1: none)."""
    out = np.where(D.sum(axis=1) > 0, D.argmax(axis=1), -1)
    assert ((D > 0).sum(axis=1) <= 1).all()
    return out


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_pattern_is_a_valid_demand(name):
    D = pattern(name, 64, seed=3)
    assert D.shape == (64, 64) and (D >= 0).all() and np.isfinite(D).all()
    assert (np.diag(D) == 0).all() and D.sum() > 0
    assert np.array_equal(D, pattern(name, 64, seed=3))


def test_permutation_patterns_follow_their_formulas():
    M = 64
    n = np.arange(M)
    assert _dest(pattern("transpose", M)).tolist() == [-1 if r == c else c * 8 + r for r, c in zip(n // 8, n % 8)]
    rev = [int(format(i, "06b")[::-1], 2) for i in n]
    assert _dest(pattern("bit-reversal", M)).tolist() == [-1 if r == i else r for i, r in zip(n, rev)]
    rot = [int(format(i, "06b")[1:] + format(i, "06b")[0], 2) for i in n]
    assert _dest(pattern("shuffle", M)).tolist() == [-1 if r == i else r for i, r in zip(n, rot)]
    assert _dest(pattern("tornado", M)).tolist() == [(i + 31) % M for i in n]
    p = _dest(pattern("permutation", M, seed=5))
    assert sorted(p) == list(n) and not (p == n).any()
    R = pattern("ring-allreduce", M)
    assert _dest(R).tolist() == [(i + 1) % M for i in n] and np.allclose(R.sum(axis=1), 2 * 63 / 64)


def test_stencils_are_halo_exchanges_on_the_grid():
    assert grid_shape(256, 2) == (16, 16) and grid_shape(64, 3) == (4, 4, 4) and grid_shape(7, 2) == (1, 7)
    D = pattern("stencil2d", 256)
    for s in (0, 17, 255):
        r, c = divmod(s, 16)
        nb = {((r + 1) % 16) * 16 + c, ((r - 1) % 16) * 16 + c, r * 16 + (c + 1) % 16, r * 16 + (c - 1) % 16}
        assert set(np.nonzero(D[s])[0]) == nb and np.allclose(D[s, list(nb)], 0.25)
    E = pattern("stencil3d", 64)
    assert ((E > 0).sum(axis=1) == 6).all() and np.allclose(E.sum(axis=1), 1)
    x, y, z = 1, 2, 3
    s = (x * 4 + y) * 4 + z
    assert E[s, (x * 4 + y) * 4 + 0] > 0 and E[s, ((x + 1) * 4 + y) * 4 + z] > 0


def test_uniform_hotspot_skewed():
    U = pattern("uniform", 16)
    assert np.allclose(U[~np.eye(16, dtype=bool)], 1 / 15)
    A = pattern("all-to-all", 16)
    assert np.allclose(A[~np.eye(16, dtype=bool)], 1)
    H = pattern("hotspot", 32, seed=2)
    h = int(H.sum(axis=0).argmax())
    assert np.isclose(H[(h + 1) % 32, h], 0.8 / 31 + 0.2) and np.allclose(H.sum(axis=1), 1)
    K = pattern("skewed", 128, seed=1)
    # every port: its 4 largest flows carry about 70 % of its bytes, and rows and columns carry the same
    top4 = np.sort(K, axis=1)[:, -4:].sum(axis=1) / K.sum(axis=1)
    assert (top4 > 0.68).all() and (top4 < 0.75).all()
    assert np.allclose(K.sum(axis=1), 1.003) and np.allclose(K.sum(axis=0), 1.003)


@pytest.mark.parametrize("name,M,msg", [("transpose", 60, "perfect square"), ("bit-reversal", 48, "power of 2"),
                                        ("shuffle", 12, "power of 2"), ("nosuch", 16, "unknown traffic pattern"),
                                        ("uniform", 1, "between 2")])
def test_bad_pattern_parameters(name, M, msg):
    with pytest.raises(PermnetError, match=msg):
        pattern(name, M)
