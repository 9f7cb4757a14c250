"""The one hex writer against Python's own integer formatting."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from permnet.gen.hexfile import bits_line, hex_lines

bits = st.lists(st.integers(0, 1), max_size=80)


@given(bits, st.integers(1, 24))
def test_bits_line_is_the_word_formatted_by_python(b, digits):
    word = int("".join(map(str, reversed(b))) or "0", 2)        # bit j of the word is b[j]
    assert bits_line(np.array(b, np.uint8), digits) == f"{word:0{digits}x}\n"


@given(st.lists(st.integers(0, 15), max_size=50))
def test_one_digit_words_take_one_line_each(words):
    expected = "".join(f"{w:x}\n" for w in words)
    assert hex_lines(np.array(words, np.uint8)) == expected
    assert hex_lines(np.array(words, np.int64), 1) == expected
