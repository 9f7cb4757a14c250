"""verify: missing/extra/conflicting cross-connects; mixed planes."""

import networkx as nx
import numpy as np
import pytest

from oracles import all_pairs, is_perm
from permnet.gen.errors import PermnetError
from permnet.gen.planes.mixed import mixed_network, user_permutations
from permnet.gen.planes.decompose import ldi_planes
from permnet.verify import compare


def conns(planes):
    return [(y, i, int(e)) for y, row in enumerate(planes) for i, e in enumerate(row) if e >= 0]


def test_exact_match_and_each_kind_of_difference():
    want = ldi_planes(9, 3).planes
    c = conns(want)
    assert compare(want, c).ok
    rep = compare(want, [t for t in c if t != (0, 4, int(want[0, 4]))])
    assert rep.missing == [(0, 4, int(want[0, 4]))] and not rep.extra and not rep.conflicting
    moved = [(p, i, (e + 1) % 9 if (p, i) == (1, 2) else e) for p, i, e in c]
    rep = compare(want, moved)
    assert not rep.ok and any(x.get("ingress") == 2 and x["plane"] == 1 for x in rep.conflicting)
    rep = compare(want, c + [(3, 0, 0)])
    assert rep.extra == [(3, 0, 0)]
    partial = want.copy()
    partial[0, 0] = -1
    rep = compare(partial, c)
    assert rep.extra == [(0, 0, int(want[0, 0]))]


def test_mixed_torus_plus_ldi_counts_hops_on_the_union():
    M, S = 64, 6
    rep = mixed_network(M, S, user_permutations(["torus:8x8"], M))
    planes = np.array(rep.planes)
    assert planes.shape == (S, M) and all(is_perm(r.tolist()) for r in planes)
    n = np.arange(M)
    assert planes[0].tolist() == ((n // 8) * 8 + (n % 8 + 1) % 8).tolist()   # +x of the torus
    ok, diam, avg = all_pairs(planes.T.tolist())
    assert rep.union.diameter == diam and rep.union.avg_hops == pytest.approx(avg)
    g = nx.DiGraph((int(a), int(b)) for a, b in zip(np.tile(n, 4), planes[:4].reshape(-1)))
    assert rep.user.diameter == nx.diameter(g) == 8
    assert rep.union.avg_hops < min(rep.user.avg_hops, rep.ldi.avg_hops)


def test_mixed_errors():
    with pytest.raises(PermnetError, match="torus"):
        user_permutations(["torus:3x5"], 16)
    with pytest.raises(PermnetError, match="one plane left"):
        mixed_network(16, 5, user_permutations(["torus:4x4"], 16))
    with pytest.raises(PermnetError, match="unknown plane spec"):
        user_permutations(["mesh"], 16)


def test_mixed_permutation_files_are_read_by_the_package(tmp_path, monkeypatch):
    from permnet.topofiles import read_plane_specs

    (tmp_path / "p.txt").write_text("\n".join(str((5 * i) % 16) for i in range(16)) + "\n")
    (tmp_path / "p.json").write_text(str([(i + 3) % 16 for i in range(16)]))
    (tmp_path / "bad.json").write_text("[3, 0, 1]")
    (tmp_path / "ring").write_text("not read: ring is a keyword")
    monkeypatch.chdir(tmp_path)
    user = user_permutations(read_plane_specs(["p.txt", "p.json", "ring"]), 16)
    assert [name for name, _ in user] == ["p.txt", "p.json", "ring"]
    assert user[0][1].tolist() == [(5 * i) % 16 for i in range(16)]
    assert user[1][1].tolist() == [(i + 3) % 16 for i in range(16)]
    with pytest.raises(PermnetError, match=r"^bad.json: not a permutation of 0..15$"):
        user_permutations(read_plane_specs(["bad.json"]), 16)
    with pytest.raises(PermnetError, match="unknown plane spec 'missing.txt'"):
        user_permutations(read_plane_specs(["missing.txt"]), 16)
