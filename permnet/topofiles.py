"""Files a topology command writes or reads: the graph itself (edge list,
GraphML, JSON), its switching planes as an OCS configuration, a module
file (one module id per node) and the permutation files of ``mixed``."""

from __future__ import annotations

from pathlib import Path

from permnet.fileio import atomic_write, dumps_json, read_text

__all__ = ["write_graph", "write_planes", "write_ldi_planes", "read_modules", "read_plane_specs"]


def write_graph(topo, path) -> None:
    """Edge list (.txt/.edges, one ``u v`` per arc or edge), GraphML (.graphml) or JSON."""
    import networkx as nx

    ext = Path(path).suffix.lower()
    pairs = list(zip(topo.tails.tolist(), topo.heads.tolist()))
    if not topo.directed:
        pairs = [(a, b) for a, b in pairs if a <= b]
    if ext == ".graphml":
        g = topo.networkx()
        edges = g.edges(keys=True) if g.is_multigraph() else g.edges()
        for i, e in enumerate(edges):
            g.edges[e]["eid"] = f"e{i}"     # every edge its own id (multigraph keys repeat 0)
        text = "\n".join(nx.generate_graphml(g, edge_id_from_attribute="eid")) + "\n"
    elif ext == ".json":
        text = dumps_json({"family": topo.name, "params": topo.params, "nodes": topo.n,
                           "directed": topo.directed, "edges": [list(p) for p in pairs]})
    else:
        text = "".join(f"{a} {b}\n" for a, b in pairs)
    atomic_write(path, text)


def write_planes(built, path, fmt=None, planes=None, *, device_ports=None, single_file=False):
    """Write the switching planes of a built family as an OCS configuration
    (:func:`permnet.gen.planes.decompose.topology_planes` unless ``planes``
    is given; one file per switch for per-device formats unless
    ``single_file``); returns (paths written, planes)."""
    from permnet import ocsconfig
    from permnet.gen.planes.decompose import topology_planes

    p = planes if planes is not None else topology_planes(built)
    topo = getattr(built, "topology", built)
    meta = {"family": topo.name, **{k: v for k, v in topo.params.items() if k != "symbols"}, "nodes": topo.n,
            "degree": int(p.planes.shape[0]), "plane_method": p.method}
    paths = ocsconfig.write_files(ocsconfig.OcsConfig(p.planes, meta), path, fmt, device_ports, single_file)
    return paths, p


def read_modules(spec: str | None):
    """``--modules`` as the library takes it: ``file:PATH`` becomes the file's
    text (:class:`permnet.gen.analysis.clusters.ModuleFile`), other specs pass through."""
    from permnet.gen.analysis.clusters import ModuleFile

    if spec is not None and spec.startswith("file:"):
        path = spec[5:]
        return ModuleFile(read_text(path), path)
    return spec


def write_ldi_planes(M: int, S: int, path, fmt=None, method: str = "auto", *, device_ports=None,
                     single_file=False):
    """The S planes of LDI(M, S) (:func:`permnet.gen.planes.decompose.ldi_planes`),
    written exactly as ``permnet planes ldi`` writes them; returns (paths, planes)."""
    from permnet import ocsconfig
    from permnet.gen.planes.decompose import ldi_planes

    p = ldi_planes(M, S, method)
    cfg = ocsconfig.OcsConfig(p.planes, {"family": "ldi", "nodes": M, "degree": S, "plane_method": p.method})
    return ocsconfig.write_files(cfg, path, fmt, device_ports, single_file), p


def read_plane_specs(specs) -> list:
    """``--plane`` specs as :func:`permnet.gen.planes.mixed.user_permutations`
    takes them: a spec that is no plane keyword and names a file becomes the
    file's text (:class:`~permnet.gen.planes.mixed.PermutationFile`), others
    pass through."""
    from permnet.gen.planes.mixed import PermutationFile, is_plane_keyword

    return [PermutationFile(read_text(s), s) if not is_plane_keyword(s) and Path(s).is_file() else s
            for s in specs]
