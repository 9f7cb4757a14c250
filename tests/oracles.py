"""Independent reference checks used by the tests (no permnet code inside)."""

import json
from collections import Counter, deque


def ldi_edges(M, S):
    """Edge multiset of LDI(M,S) straight from eq. (1)."""
    return Counter((n, (S * n + L) % M) for n in range(M) for L in range(S))


def walk(M, S, src, links):
    nodes = [src]
    for L in links:
        assert 0 <= L < S
        nodes.append((S * nodes[-1] + L) % M)
    return nodes


def bfs(adj, src):
    dist = {src: 0}
    q = deque([src])
    while q:
        u = q.popleft()
        for v in adj[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                q.append(v)
    return dist


def all_pairs(adj):
    """(strongly connected, diameter, average over ordered distinct pairs)."""
    n = len(adj)
    total, diam, ok = 0, 0, True
    for s in range(n):
        d = bfs(adj, s)
        if len(d) < n:
            ok = False
        total += sum(d.values())
        diam = max(diam, max(d.values()))
    return ok, diam, total / (n * (n - 1))


def is_perm(row):
    return sorted(row) == list(range(len(row)))


def planes_match_edges(planes, M, S):
    """Each plane a permutation, together exactly the LDI edge multiset."""
    got = Counter((n, int(row[n])) for row in planes for n in range(M))
    return all(is_perm([int(x) for x in row]) for row in planes) and len(planes) == S \
        and got == ldi_edges(M, S)


def replay(desc):
    """Apply the JSON description exactly as docs/reference/file-formats.md states it."""
    v = list(range(desc["size"]))
    for s, stage in enumerate(desc["stages"]):
        for sw in stage:
            vals = [v[p] for p in sw["inputs"]]
            st_ = sw["state"]
            if isinstance(st_, list):
                new = [vals[k] for k in st_]
            else:
                assert st_ in (0, 1)
                new = vals[::-1] if st_ == 1 else vals
            for p, x in zip(sw["inputs"], new):
                v[p] = x
        if s < len(desc["stages"]) - 1:
            nxt = [None] * len(v)
            for p, x in enumerate(v):
                nxt[desc["links"][s][p]] = x
            v = nxt
    return v


def check(desc, perm):
    """The settings in ``desc`` route input i to output perm[i] for every used input."""
    out = replay(json.loads(json.dumps(desc)))      # survives a JSON round trip
    for i, o in enumerate(perm):
        if o is not None:
            assert out[o] == i, (i, o)
