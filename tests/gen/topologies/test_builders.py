"""The numpy family builders against the families' definitions written out
word by word (labels, then numbers), and the early size refusal."""

import itertools
import time

import numpy as np
import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.topologies import families as f


def arcs(t):
    return sorted(zip(t.tails.tolist(), t.heads.tolist()))


@pytest.mark.parametrize("d,D", [(2, 1), (2, 2), (2, 5), (3, 3), (4, 2), (3, 4)])
def test_kautz_is_the_shift_graph_of_words_in_lexicographic_order(d, D):
    words = [w for w in itertools.product(range(d + 1), repeat=D) if all(a != b for a, b in zip(w, w[1:]))]
    index = {w: i for i, w in enumerate(words)}
    want = sorted((index[w], index[w[1:] + (a,)]) for w in words for a in range(d + 1) if a != w[-1])
    assert arcs(f.kautz(d, D)) == want


@pytest.mark.parametrize("d,D", [(2, 4), (3, 3), (5, 2)])
def test_de_bruijn_shifts_base_d_strings(d, D):
    n = d ** D
    want = sorted((v, (v * d) % n + a) for v in range(n) for a in range(d))
    assert arcs(f.de_bruijn(d, D)) == want


@pytest.mark.parametrize("dims", [1, 3, 6])
def test_hypercube_neighbours_differ_in_one_bit(dims):
    got = arcs(f.hypercube(dims))
    assert got == sorted((u, v) for u in range(2 ** dims) for v in range(2 ** dims) if bin(u ^ v).count("1") == 1)


@pytest.mark.parametrize("k,dims", [(3, 2), (4, 3), (5, 1)])
def test_torus_and_mesh_by_digits(k, dims):
    def digits(v):
        return [(v // k ** i) % k for i in range(dims)]

    n = k ** dims
    torus = sorted((u, v) for u in range(n) for v in range(n)
                   if sorted((a - b) % k for a, b in zip(digits(u), digits(v))) in
                   ([0] * (dims - 1) + [1], [0] * (dims - 1) + [k - 1]))
    mesh = sorted((u, v) for u in range(n) for v in range(n)
                  if sorted(abs(a - b) for a, b in zip(digits(u), digits(v))) == [0] * (dims - 1) + [1])
    assert arcs(f.torus(k, dims)) == torus
    assert arcs(f.mesh(k, dims)) == mesh


@pytest.mark.parametrize("dims", [3, 4])
def test_ccc_cycle_and_cube_edges(dims):
    n = dims * 2 ** dims
    want = set()
    for x in range(2 ** dims):
        for i in range(dims):
            for a, b in ((x * dims + i, x * dims + (i + 1) % dims), (x * dims + i, (x ^ 1 << i) * dims + i)):
                want |= {(a, b), (b, a)}
    t = f.cube_connected_cycles(dims)
    assert t.n == n and set(arcs(t)) == want and len(t.tails) == len(want)


@pytest.mark.parametrize("build", [lambda: f.hypercube(40), lambda: f.kautz(2, 40), lambda: f.de_bruijn(2, 45),
                                   lambda: f.torus(1000, 4), lambda: f.cube_connected_cycles(36)])
def test_absurd_sizes_are_refused_at_once_with_the_memory_needed(build):
    t = time.perf_counter()
    with pytest.raises(PermnetError, match=r"would need about [\d.]+ [KMGTP]?B.*PERMNET_MAX_MEMORY"):
        build()
    assert time.perf_counter() - t < 2


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("PERMNET_MAX_MEMORY", "1M")
    with pytest.raises(PermnetError, match="1.0 MB allowed"):
        f.hypercube(16)
    monkeypatch.setenv("PERMNET_MAX_MEMORY", "lots")
    with pytest.raises(PermnetError, match="PERMNET_MAX_MEMORY"):
        f.hypercube(3)
    monkeypatch.setenv("PERMNET_MAX_MEMORY", "64M")
    assert f.hypercube(16).n == 1 << 16
    assert np.all(np.bincount(f.hypercube(16).tails) == 16)
