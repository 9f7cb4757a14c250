"""Host side of the hardware-in-the-loop link: :class:`~permnet.hil.link.Link`
(one driver for a board on a serial port, the Verilator model on a TCP
socket and ``loop://`` for framing tests) and :func:`~permnet.hil.run.run`,
the load / commit / read back / verify / PRBS / next-hop loop."""

from permnet.hil.link import HilError, HilFramingError, HilTimeout, Link

__all__ = ["Link", "HilError", "HilTimeout", "HilFramingError"]
