"""The byte protocol between a host and the HIL bridge.

**Plain mode** is LiteX's UARTBone framing, so LiteX's ``litex_server
--uart`` and ``RemoteClient`` talk to the bridge unchanged:

* ``0x01 len addr[4] data[4*len]`` -- write ``len`` words from word address
  ``addr`` upwards (big-endian address and data); no answer;
* ``0x02 len addr[4]`` -- read ``len`` words; the answer is ``data[4*len]``;
* ``0x03`` / ``0x04`` -- the same with a fixed address (every word to or
  from ``addr``: a FIFO register).

A length of 0 moves no word.  A plain frame has no check: a corrupted
byte goes unnoticed, a lost byte shows as a time-out.

**Framed mode** (permnet's extension, command byte | 0x80) adds a sequence
number and a CRC-8 and answers every frame:

* request: ``cmd|0x80 seq len addr[4] data[4*len] crc`` with ``data``
  present for writes only, ``len <= FRAMED_MAX_WORDS``;
* response: ``status seq len data[4*len] crc`` with ``data`` for a
  successful read only (``len`` 0 otherwise);
* ``crc`` = CRC-8 of all the preceding bytes of the frame, polynomial
  x^8 + x^2 + x + 1 (0x07), initial value 0, no reflection, no final XOR
  (the CRC-8/SMBUS parameters: check value 0xF4 over ``b"123456789"``);
* status ``STATUS_OK``; ``STATUS_DUPLICATE`` when a write repeats the
  sequence number of the last write executed, with no read or plain frame
  in between (a retry whose answer was lost: acknowledged, not executed
  twice; a host starts from a random sequence number); ``STATUS_CRC`` when the request's
  CRC is wrong (nothing executed); ``STATUS_LENGTH`` for a framed length
  above ``FRAMED_MAX_WORDS`` (nothing executed).

Writes of a framed request are buffered and executed only after the CRC
has been checked, so a corrupted frame never writes anything.  In both
modes the bridge drops a partial frame after ``idle_timeout`` clock cycles
without a byte, so a lost byte costs one time-out, not the link.  Builds
for a known clock set it to ``IDLE_TIMEOUT_S`` (100 ms, LiteX UARTBone's
value): LiteX's ``CommUART`` writes a frame in two or three pieces, and a
shorter time-out drops the frame when the pieces arrive apart (the rest of
the frame is then parsed as new commands, and the host waits for an answer
that never comes).  A host that retries must stay silent longer than that
before resending.
"""

from __future__ import annotations

__all__ = ["CMD_WRITE", "CMD_READ", "CMD_WRITE_FIXED", "CMD_READ_FIXED", "FRAMED", "FRAMED_MAX_WORDS",
           "IDLE_TIMEOUT_S",
           "STATUS_OK", "STATUS_DUPLICATE", "STATUS_CRC", "STATUS_LENGTH", "crc8", "crc8_table"]

CMD_WRITE = 0x01
CMD_READ = 0x02
CMD_WRITE_FIXED = 0x03
CMD_READ_FIXED = 0x04
FRAMED = 0x80
FRAMED_MAX_WORDS = 32
IDLE_TIMEOUT_S = 0.1

STATUS_OK = 0x00
STATUS_DUPLICATE = 0x01
STATUS_CRC = 0xE1
STATUS_LENGTH = 0xE2

CRC_POLY = 0x07


def _crc_byte(c: int) -> int:
    for _ in range(8):
        c = ((c << 1) ^ CRC_POLY) & 0xFF if c & 0x80 else (c << 1) & 0xFF
    return c


_TABLE = [_crc_byte(c) for c in range(256)]


def crc8_table() -> list[int]:
    """``table[c]``: the CRC register after shifting 8 zero bits through ``c``."""
    return list(_TABLE)


def crc8(data: bytes, crc: int = 0) -> int:
    """CRC-8 (poly 0x07, init 0) of ``data``, continuing from ``crc``.

    >>> hex(crc8(b"123456789"))
    '0xf4'
    """
    for b in data:
        crc = _TABLE[crc ^ b]
    return crc
