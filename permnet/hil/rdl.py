"""The HIL register map handed to software through SystemRDL: the RDL text
(:func:`permnet.gen.hil.rdl.to_rdl`) compiled by ``systemrdl-compiler`` and
exported by PeakRDL as IP-XACT (``peakrdl-ipxact``, IEEE 1685-2014) or a C
header (``peakrdl-cheader``), so the three views are one map.

``export(params, "cheader")`` returns the header of the HIL top level
``HilTop(**params)`` (the parameters of ``permnet hil regmap``).  The PeakRDL
packages come with the ``dev`` extra; without them the formats ``ipxact``
and ``cheader`` fail with one line saying what to install.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from permnet.gen.errors import PermnetError, require

__all__ = ["FORMATS", "SUFFIXES", "compile_rdl", "export"]

FORMATS = ("md", "csv", "rdl", "ipxact", "cheader")
SUFFIXES = {".csv": "csv", ".rdl": "rdl", ".xml": "ipxact", ".h": "cheader", ".md": "md"}


def compile_rdl(text: str, folder):
    """Compile and elaborate SystemRDL ``text`` (written into ``folder``,
    which must outlive the node: its messages quote the source); return the
    top ``AddrmapNode``."""
    try:
        from systemrdl import RDLCompileError, RDLCompiler
    except ImportError:
        raise PermnetError("SystemRDL needs systemrdl-compiler (pip install -e '.[dev]')") from None
    path = Path(folder) / "regmap.rdl"
    path.write_text(text)
    rdlc = RDLCompiler()
    try:
        rdlc.compile_file(str(path))
        return rdlc.elaborate().top
    except RDLCompileError as e:
        raise PermnetError(f"systemrdl-compiler rejected the register map: {e}") from None


def export(params: dict, fmt: str) -> str:
    """The register map of ``HilTop(**params)`` in format ``fmt``
    (:data:`FORMATS`): ``md``, ``csv`` and ``rdl`` as written by permnet,
    ``ipxact`` and ``cheader`` by PeakRDL from the compiled RDL."""
    from permnet.hdl.hil.top import register_map_text

    require(fmt in FORMATS, f"unknown register map format {fmt!r}; choose from {', '.join(FORMATS)}")
    if fmt in ("md", "csv", "rdl"):
        return register_map_text(params, fmt)
    try:
        if fmt == "ipxact":
            from peakrdl_ipxact import IPXACTExporter as Exporter
        else:
            from peakrdl_cheader.exporter import CHeaderExporter as Exporter
    except ImportError:
        raise PermnetError(f"--format {fmt} needs peakrdl-{fmt} (pip install -e '.[dev]')") from None
    with tempfile.TemporaryDirectory() as tmp:
        top = compile_rdl(register_map_text(params, "rdl"), tmp)
        out = Path(tmp) / ("regmap.xml" if fmt == "ipxact" else f"{top.inst_name}.h")
        if fmt == "ipxact":
            Exporter(vendor="permnet", library="permnet", version="1.0").export(top, str(out))
        else:
            Exporter().export(top, str(out))
        return out.read_text()
