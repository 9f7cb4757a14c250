"""Switch configuration files for optical circuit switches (OCS): the façade
over the format registry :mod:`permnet.formats`.

One canonical document, :class:`OcsConfig` (``planes[y][i]`` = 0-based egress
of ingress i on plane y, -1 unconnected; Melhem eq. (3): one switching plane
per link index), and one class per file format.  Every format reads back to
the same configuration, TDM schedule and device size included
(``tests/formats/``).

Canonical JSON, schema ``permnet-ocs-config`` version 1::

    {
      "format": "permnet-ocs-config", "version": 1,
      "topology": {"family": "ldi", "nodes": 9, "degree": 3, "plane_method": "residue"},
      "ports": 9,                 # ports per switching plane (N)
      "index_base": 0,            # port numbering of the csv/pairs renderings
      "device_ports": 192,        # optional: size of the switch (>= ports)
      "planes": [[0, 3, 6, ...], ...],
      "schedule": [{"duration_us": 100.0, "planes": [0, 1]}, ...],   # optional TDM slots
      "checksum": "sha256:..."    # over the canonical JSON of all other keys
    }

Text renderings start with a ``permnet-ocs-config v1 ports=... checksum=...``
header comment holding everything but the planes (schedule and device size
too), and separate planes by ``plane k`` comments.  The vendor formats
(``polatis``, ``tl1``, ``netconf``, ``sonic``) are pasted into one switch:
:func:`write_files` writes one file per plane, each saying in its header
which plane (switch) it is for.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from permnet import formats
from permnet.fileio import atomic_write, read_text
from permnet.formats.jsonfmt import config_from_document, parse_json
from permnet.formats.model import (FORMAT, MAX_CELLS, VERSION, Dump, OcsConfig, check_partial_permutation, checksum,
                                   header_schedule, tdm_schedule, typed_topology)
from permnet.gen.errors import PermnetError, require

__all__ = ["FORMAT", "FORMATS", "VERSION", "Dump", "OcsConfig", "check_partial_permutation", "checksum",
           "config_from_document", "config_from_dump", "convert_file", "detect_format", "format_from_path", "parse_text", "read",
           "merge_planes", "read_dump", "render", "split_paths", "tdm_schedule", "write", "write_files"]

FORMATS = tuple(formats.names())


def render(cfg: OcsConfig, fmt: str, device_ports: int | None = None) -> str:
    """Render ``cfg`` in format ``fmt`` (one of :data:`FORMATS`), ports numbered for a
    ``device_ports``-port switch (default: the configuration's ``device_ports``, else its plane size)."""
    return formats.get(fmt).render(cfg, device_ports)


def format_from_path(path) -> str:
    """The format owning the file's extension (``json`` if none does)."""
    return formats.for_path(path).name


def detect_format(text: str) -> str:
    """The format a text looks like (see each format's ``detect``)."""
    return formats.detect(text).name


def write(cfg: OcsConfig, path, fmt: str | None = None, device_ports: int | None = None) -> Path:
    """Atomically write ``cfg`` as ONE file; the format defaults from the file extension."""
    return atomic_write(path, render(cfg, fmt or format_from_path(path), device_ports))


def _is_dir(path) -> bool:
    return Path(path).is_dir() or str(path).endswith(("/", "\\"))


def split_paths(path, fmt: str, nplanes: int) -> list[Path]:
    """Where :func:`write_files` puts one file per plane: ``DIR/plane<k>.<ext>``
    for a folder (an existing one, or a path ending in ``/``), else
    ``NAME.plane<k>.<ext>`` beside ``NAME.<ext>``."""
    ext = formats.get(fmt).extensions[0]
    is_dir, path = _is_dir(path), Path(path)
    if is_dir:
        return [path / f"plane{k}.{ext}" for k in range(nplanes)]
    stem, suffix = (path.stem, path.suffix) if path.suffix else (path.name, f".{ext}")
    return [path.with_name(f"{stem}.plane{k}{suffix}") for k in range(nplanes)]


def write_files(cfg: OcsConfig, path, fmt: str | None = None, device_ports: int | None = None,
                single_file: bool = False) -> list[Path]:
    """Write ``cfg``; a format pasted into one switch (``per_device``) gets one
    file per plane (:func:`split_paths`, each the rendering of
    :meth:`OcsConfig.plane_config`) unless ``single_file``.  ``path`` may be a
    folder (``-o DIR``).  Returns the files written."""
    p, is_dir = Path(path), _is_dir(path)
    f = formats.get(fmt) if fmt else formats.for_path(p)
    require(not (is_dir and fmt is None), f"{path} is a folder: give --format")
    if f.per_device and len(cfg.planes) > 1 and not single_file:
        texts = [f.render(cfg.plane_config(k), device_ports) for k in range(len(cfg.planes))]
        out = [atomic_write(q, t) for q, t in zip(split_paths(path, f.name, len(texts)), texts)]
        _remove_stale(path, f.name, len(texts))
        return out
    if is_dir:
        p = p / f"config.{f.extensions[0]}"
    return [atomic_write(p, f.render(cfg, device_ports))]


def _remove_stale(path, fmt: str, nplanes: int) -> None:
    """Per-switch files of an earlier run with more planes (``NAME.plane<k>.EXT``,
    k >= nplanes) would be pasted into a switch by mistake: remove them, but
    only files this function's writer made (a per-switch header on line 1 or 2)."""
    k = nplanes
    while k < 1 << 16:
        q = split_paths(path, fmt, k + 1)[k]
        if not q.is_file() or q.is_symlink():
            return
        try:
            with open(q, encoding="utf-8", errors="replace") as fh:
                head = fh.read(4096)
        except OSError:
            return
        if not re.search(r"permnet-ocs-config v1 .*\bof_planes=\d+.*\bplane=\d+", head.split("\n<config", 1)[0]):
            return
        q.unlink()
        k += 1


# ------------------------------------------------------------------- parsing

def parse_text(text: str, fmt: str | None = None, index_base: int | None = None,
               name: str = "config", ports: int | None = None, device_ports: int | None = None) -> Dump:
    """Parse a rendering or a switch read-back into raw cross-connects.

    Without a header, ``ports`` (the plane size) and ``device_ports`` (the
    switch size, default ``ports``) come from the caller (``verify`` passes the
    intended configuration's), never from the largest port seen."""
    text = text.lstrip("\ufeff")
    f = formats.get(fmt) if fmt else formats.detect(text)
    return f.parse(text, index_base=index_base, ports=ports, device_ports=device_ports, name=str(name))


def read_dump(path, fmt: str | None = None, index_base: int | None = None,
              ports: int | None = None, device_ports: int | None = None) -> Dump:
    """Read any supported file leniently (for comparing a switch read-back)."""
    text = read_text(path)
    if fmt is None and Path(path).suffix.lower() == ".json":
        fmt = "json"
    return parse_text(text, fmt, index_base, str(path), ports, device_ports)


def config_from_dump(dump: Dump, name: str = "config") -> OcsConfig:
    """Strictly turn raw cross-connects into planes (errors on conflicts)."""
    require(dump.connections or dump.ports, f"{name}: no cross-connects found (empty or truncated?)")
    if dump.not_established:
        p, i, o, st = dump.not_established[0]
        raise PermnetError(f"{name}: cross-connect {i} -> {o} on plane {p} is not established ({st})")
    n = dump.ports or 0
    nplanes = dump.nplanes or (max(p for p, _, _ in dump.connections) + 1)
    require(min(p for p, _, _ in dump.connections) >= 0 if dump.connections else True,
            f"{name}: negative plane number")
    require(nplanes * n <= MAX_CELLS, f"{name}: {nplanes} planes x {n} ports would need "
            f"{nplanes * n * 8 / 2**20:.0f} MiB (at most {MAX_CELLS} cells); wrong file?")
    planes = np.full((nplanes, n), -1, dtype=np.int64)
    if dump.connections:
        c = np.asarray(dump.connections, dtype=np.int64)
        bad = np.flatnonzero((c[:, 0] < 0) | (c[:, 0] >= nplanes))
        if len(bad):
            raise PermnetError(f"{name}: plane {c[bad[0], 0]} out of range 0..{nplanes - 1}")
        bad = np.flatnonzero((c[:, 1] < 0) | (c[:, 1] >= n) | (c[:, 2] < 0) | (c[:, 2] >= n))
        if len(bad):
            p, i, o = c[bad[0]]
            raise PermnetError(f"{name}: plane {p}: connection {i}->{o} outside the plane's ports 0..{n - 1}")
        key = c[:, 0] * n + c[:, 1]
        u, first, counts = np.unique(key, return_index=True, return_counts=True)
        for j in np.flatnonzero(counts > 1):     # the same ingress listed twice must agree
            same = c[key == u[j], 2]
            require(np.all(same == same[0]),
                    f"{name}: plane {u[j] // n}: ingress {u[j] % n} connected twice")
        planes[c[first, 0], c[first, 1]] = c[first, 2]
    meta = dump.meta
    base = int(meta.get("index_base", 0))
    try:
        return OcsConfig(planes, typed_topology(meta), base, header_schedule(meta, name), dump.device_ports)
    except PermnetError as exc:
        raise PermnetError(f"{name}: {exc}") from None


def read(path, fmt: str | None = None, index_base: int | None = None,
         device_ports: int | None = None) -> OcsConfig:
    """Read a configuration file in any format, strictly (a header's checksum must match)."""
    text = read_text(path).lstrip("\ufeff")
    if fmt is None and (text.lstrip().startswith("{") or Path(path).suffix.lower() == ".json"):
        fmt = "json"
    if fmt == "json":
        return config_from_document(parse_json(text, path), str(path))
    dump = parse_text(text, fmt, index_base, str(path), device_ports=device_ports)
    cfg = config_from_dump(dump, str(path))
    if "checksum" in dump.meta and cfg.document()["checksum"] != dump.meta["checksum"]:
        # The header records the checksum of the whole configuration: a
        # mismatch means lines were lost or edited.
        raise PermnetError(f"{path}: content does not match the header checksum (file truncated or edited)")
    return cfg


def merge_planes(cfgs: list[OcsConfig], name: str = "the files") -> OcsConfig:
    """The whole configuration back from its per-switch files (the inverse of
    :meth:`OcsConfig.plane_config`): every plane ``0..of_planes-1`` exactly
    once, with the same plane size, device, numbering, metadata and slots."""
    if len(cfgs) == 1:
        return cfgs[0]
    per = sorted(cfgs, key=lambda c: c.topology.get("plane", -1) if isinstance(c.topology.get("plane"), int) else -1)
    for c in per:
        require(len(c.planes) == 1 and isinstance(c.topology.get("plane"), int),
                f"{name}: several files given, but one is not a per-switch file (no plane= in its header)")
    n = per[0].topology.get("of_planes")
    ks = [c.topology["plane"] for c in per]
    require(isinstance(n, int) and ks == list(range(n)),
            f"{name}: planes {ks} given, expected each of 0..{(n if isinstance(n, int) else len(per)) - 1} once")

    def common(c):
        return {k: v for k, v in c.topology.items() if k not in ("plane", "of_planes", "switch")}
    first = per[0]
    for c in per[1:]:
        require(c.ports == first.ports and c.index_base == first.index_base and
                c.device_ports == first.device_ports and common(c) == common(first) and
                (c.schedule is None) == (first.schedule is None) and
                (c.schedule is None or [s["duration_us"] for s in c.schedule] ==
                 [s["duration_us"] for s in first.schedule]),
                f"{name}: plane {c.topology['plane']} is not from the same configuration as plane 0")
    schedule = None
    if first.schedule is not None:
        order = sorted(per, key=lambda c: (c.topology.get("switch", 0), c.topology["plane"]))
        schedule = [{"duration_us": s["duration_us"],
                     "planes": [c.topology["plane"] for c in order if c.schedule[t]["planes"]]}
                    for t, s in enumerate(first.schedule)]
    return OcsConfig(np.concatenate([c.planes for c in per]), common(first), first.index_base, schedule,
                     first.device_ports)


def convert_file(source, output, src_fmt: str | None = None, fmt: str | None = None,
                 index_base: int | None = None, device_ports: int | None = None,
                 single_file: bool = False) -> list[Path]:
    """``permnet convert``: read strictly (several per-switch files are merged
    back into one configuration), write (one file per switch for the vendor formats)."""
    sources = [source] if isinstance(source, (str, Path)) else list(source)
    require(sources, "give the configuration file(s) to convert")
    cfg = merge_planes([read(s, src_fmt, index_base, device_ports) for s in sources],
                       ", ".join(map(str, sources)) if len(sources) <= 3 else f"{sources[0]} .. {sources[-1]}")
    return write_files(cfg, output, fmt, device_ports, single_file)
