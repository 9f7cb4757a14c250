"""The one exception type for problems a user can fix.

The CLI turns a :class:`PermnetError` into a single line on stderr and a
non-zero exit status; library callers catch it like any ``ValueError``.
"""


class PermnetError(ValueError):
    """Bad input: a parameter out of range, a malformed file, a non-permutation."""


def require(condition: bool, message: str) -> None:
    """Raise :class:`PermnetError` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise PermnetError(message)
