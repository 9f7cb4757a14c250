"""Independent checks shared by the search engineer's tests (networkx breadth-first search)."""

import networkx as nx


def host_switch_stats(g):
    """(h-ASPL, host diameter) by BFS on the full host + switch graph, or (None, None) if cut."""
    G = nx.MultiGraph()
    G.add_edges_from((("h", h), ("s", s)) for h, s in enumerate(g.host_switch.tolist()))
    G.add_edges_from((("s", a), ("s", b)) for a, b in g.edges.tolist())
    total, diam = 0, 0
    for h in range(g.n):
        dist = nx.single_source_shortest_path_length(G, ("h", h))
        for k in range(h + 1, g.n):
            d = dist.get(("h", k))
            if d is None:
                return None, None
            total += d
            diam = max(diam, d)
    return total / (g.n * (g.n - 1) / 2), diam


def ring_diameter_bfs(n, chords):
    """Diameter and node count of the chordal ring on n nodes with ring links i~i+1 and the chord
    i~i+c for each c in ``chords`` (undirected), by networkx BFS from every node."""
    G = nx.Graph()
    for i in range(n):
        G.add_edge(i, (i + 1) % n)
        for c in chords:
            G.add_edge(i, (i + c) % n)
    return nx.diameter(G), G.number_of_nodes()
