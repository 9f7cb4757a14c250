"""Hex text for ``$readmemh`` memory-initialisation files: the one writer and
its one digit rule.

A word of ``width`` bits takes :func:`hex_digits` ``(width)`` = ceil(width/4)
lower-case digits (at least one), most significant first, zero-padded; one
word per line, every line ending in a newline.  ``digits=1`` (the default)
pads nothing: each word takes as many digits as its value needs.

    >>> hex_digits(1), hex_digits(4), hex_digits(5), hex_digits(16)
    (1, 1, 2, 4)
    >>> hex_lines([5, 700, 8], hex_digits(16))
    '0005\\n02bc\\n0008\\n'
    >>> hex_lines([6, 0x24])                      # unpadded: as many digits as the value needs
    '6\\n24\\n'
    >>> import numpy as np
    >>> hex_lines(np.array([0, 1, 1], np.uint8))  # arrays of small words take a vectorised path
    '0\\n1\\n1\\n'
    >>> word_from_bits(np.array([1, 0, 1, 1], np.uint8))
    13
    >>> bits_line(np.array([1, 0, 1, 1, 0, 1], np.uint8), 3)   # the word 0b101101, as hex_lines writes it
    '02d\\n'
"""

from __future__ import annotations

import numpy as np

__all__ = ["bits_line", "hex_digits", "hex_lines", "word_from_bits"]

_DIGITS = np.frombuffer(b"0123456789abcdef", np.uint8)


def hex_digits(width: int) -> int:
    """Hex digits of a word of ``width`` bits: ceil(width / 4), at least 1."""
    return max(1, -(-int(width) // 4))


def hex_lines(words, digits: int = 1) -> str:
    """One word per line, each zero-padded to ``digits`` hex digits (a word
    needing more digits takes them all)."""
    if (isinstance(words, np.ndarray) and words.ndim == 1 and words.size and words.dtype.kind in "ui"
            and digits <= 15 and int(words.min()) >= 0 and int(words.max()) < 16 ** digits):
        if digits == 1:          # two bytes a line, the digit then "\n": one little-endian uint16 each
            return (_DIGITS.take(words).astype("<u2") | (ord("\n") << 8)).tobytes().decode()
        w = words if words.dtype.itemsize == 1 else words.astype(np.int64)
        text = np.empty((len(w), digits + 1), np.uint8)     # every word fits: fixed-width lines
        for k in range(digits):
            text[:, digits - 1 - k] = _DIGITS[(w >> (4 * k)) & 15]
        text[:, digits] = ord("\n")
        return text.tobytes().decode()
    return "".join(f"{int(w):0{digits}x}\n" for w in words)


def word_from_bits(bits01) -> int:
    """The integer whose bit j is ``bits01[j]`` (0/1 values)."""
    packed = np.packbits(np.asarray(bits01, dtype=np.uint8), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def bits_line(bits01, digits: int) -> str:
    """``hex_lines([word_from_bits(bits01)], digits)`` without the big integer:
    nibble i is bits 4i..4i+3, written most significant first, then the
    leading zeros beyond ``digits`` are dropped (the one digit rule)."""
    b = np.asarray(bits01, dtype=np.uint8)
    nibbles = max(int(digits), -(-len(b) // 4), 1)
    padded = np.zeros(4 * nibbles, np.uint8)
    padded[:len(b)] = b
    value = padded.reshape(nibbles, 4) @ np.array([1, 2, 4, 8], np.uint8)
    text = _DIGITS.take(value[::-1])
    nonzero = np.flatnonzero(value[::-1])
    first = min(int(nonzero[0]) if len(nonzero) else nibbles - 1, nibbles - max(int(digits), 1))
    return text[first:].tobytes().decode() + "\n"
