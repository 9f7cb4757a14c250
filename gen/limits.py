"""Size limits: refuse early, naming the size a request would need.

Every builder estimates the memory its result needs before allocating it
and calls :func:`check_memory`; the budget is ``PERMNET_MAX_MEMORY``
(bytes, or with a ``K``/``M``/``G`` suffix), 4 GiB by default, so an absurd
request (``topo hypercube --dims 40``) is a one-line error, not an
out-of-memory kill minutes later.
"""

from __future__ import annotations

import os

from permnet.gen.errors import PermnetError

__all__ = ["memory_budget", "check_memory", "check_arcs", "check_ports", "human_bytes", "BYTES_PER_ARC",
           "BYTES_PER_PORT", "BYTES_PER_DEVICE"]

#: numpy arcs (tail, head int64) plus the CSR copy the metrics engine builds
BYTES_PER_ARC = 40
DEFAULT_BUDGET = 4 << 30
#: one switch port as the device drivers and the fabric hold it (intended and read-back
#: cross-connects, ownership, the plan): the audit of issue 29 measured 4.8 GB for 10^8 ports
BYTES_PER_PORT = 48
#: one inventory device (its record and name)
BYTES_PER_DEVICE = 512
#: RTL elaboration (Amaranth, pure Python) grows with the VC buffers of a network, M*S*vcs
#: (issue 29: LDI(16,4) with 2 VCs, 128 buffers, took 36 s; LDI(64,8) did not finish)
RTL_VC_BUFFERS = 512
#: ports of one run-time plane the RTL builds (rtl/synth planes; as many as a HIL crossbar)
RTL_PLANE_PORTS = 1024
#: bits per port of a plane's forward or backward path, as of a flit's payload
RTL_PORT_WIDTH = 1024


def memory_budget() -> int:
    """The budget in bytes from ``PERMNET_MAX_MEMORY`` (default 4 GiB)."""
    text = os.environ.get("PERMNET_MAX_MEMORY", "").strip().upper()
    if not text:
        return DEFAULT_BUDGET
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1], 1)
    try:
        value = float(text[:-1] if text[-1] in "KMGT" else text) * scale
    except ValueError:
        raise PermnetError(f"PERMNET_MAX_MEMORY={text!r}: expected a size such as 8G") from None
    if not value > 0:
        raise PermnetError(f"PERMNET_MAX_MEMORY={text!r}: must be positive")
    return int(value)


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1024 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PB"


def check_memory(what: str, nbytes: float) -> None:
    """Raise :class:`PermnetError` when ``what`` would need more than the budget."""
    budget = memory_budget()
    if nbytes > budget:
        raise PermnetError(f"{what} would need about {human_bytes(nbytes)}, more than the "
                           f"{human_bytes(budget)} allowed (set PERMNET_MAX_MEMORY to allow more)")


def check_arcs(what: str, arcs: float, per_arc: int = BYTES_PER_ARC) -> None:
    """:func:`check_memory` for a graph of ``arcs`` stored arcs."""
    check_memory(f"{what} ({arcs:,.0f} arcs)", arcs * per_arc)


def check_ports(what: str, ports: float, devices: float = 0) -> None:
    """:func:`check_memory` for ``devices`` switches of ``ports`` ports in all."""
    check_memory(f"{what} ({ports:,.0f} ports)", ports * BYTES_PER_PORT + devices * BYTES_PER_DEVICE)
