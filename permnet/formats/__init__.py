"""OCS configuration file formats: one class per format, one registry.

>>> from permnet import formats
>>> formats.names()
['json', 'csv', 'pairs', 'polatis', 'tl1', 'netconf', 'sonic']
>>> formats.get("polatis").numbering
PortNumbering(base=1, egress_after_ingress=True)
>>> formats.for_path("plane.scpi").name
'polatis'

A format (:class:`permnet.formats.base.Format`) has a ``name``, its file
``extensions``, its port ``numbering`` (index base, egress offset),
``per_device`` (a file is pasted into one switch), ``render(cfg,
device_ports=None)``, ``parse(text, index_base=, ports=, device_ports=,
name=) -> Dump`` and ``detect(text) -> score``.  Adding a vendor format is one
class decorated with :func:`register` in a new module of this package (found
and imported at start-up; the CLI's ``--format`` choices follow).
"""

from __future__ import annotations

from pathlib import Path

from permnet.formats.base import REGISTRY, Format, LineFormat, PortNumbering, detect_base, register
from permnet.formats.model import Dump, OcsConfig, checksum, tdm_schedule
from permnet.formats import jsonfmt, tabular, polatis, sonic  # noqa: F401  (each registers its formats)
from permnet.gen.errors import require


def _discover() -> None:
    """Import every other module of this package: a vendor format dropped in
    as ``permnet/formats/<vendor>.py`` registers itself with nothing else to edit."""
    import importlib
    import pkgutil

    for m in pkgutil.iter_modules(__path__):
        if m.name not in ("base", "model"):
            importlib.import_module(f"{__name__}.{m.name}")


_discover()

__all__ = ["Dump", "Format", "LineFormat", "OcsConfig", "PortNumbering", "REGISTRY", "checksum", "detect",
           "detect_base", "for_path", "get", "names", "register", "tdm_schedule"]


def names() -> list[str]:
    """Registered format names, in registration order (the CLI's ``--format`` choices)."""
    return list(REGISTRY)


def get(name: str) -> Format:
    require(name in REGISTRY, f"unknown format {name!r}; choose from {', '.join(REGISTRY)}")
    return REGISTRY[name]


def for_path(path, default: str = "json") -> Format:
    """The format owning the file's extension (``default`` when none does)."""
    ext = Path(path).suffix.lower().lstrip(".")
    for f in REGISTRY.values():
        if ext in f.extensions:
            return f
    return REGISTRY[default]


def detect(text: str) -> Format:
    """The format whose ``detect`` scores ``text`` highest (``pairs`` when none claims it)."""
    text = text.lstrip("\ufeff")
    best = max(REGISTRY.values(), key=lambda f: f.detect(text))
    return best if best.detect(text) > 0 else REGISTRY["pairs"]
