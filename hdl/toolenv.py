"""Environment variables set for one tool run and restored after it.

Amaranth reads the tools it runs from the environment (``AMARANTH_USE_YOSYS``,
``YOSYS``, ``NEXTPNR_ECP5`` ...). Left set, such a variable would choose the
tool of every later run in the process too, so permnet sets them only around
the run that needs them.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

__all__ = ["scoped_environ"]


@contextmanager
def scoped_environ(values: dict, *, keep_set: bool = False):
    """``values`` in ``os.environ`` for the ``with`` block, the previous values (or their
    absence) restored after it; with ``keep_set`` a variable the user has set keeps its value."""
    saved = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if keep_set:
            os.environ.setdefault(name, value)
        else:
            os.environ[name] = value
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
