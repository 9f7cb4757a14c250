"""Atomic file output: a file is either written whole or not at all.

Every writer in permnet goes through :func:`atomic_write`, which writes to a
temporary file in the target folder and renames it into place, so a crash or
a validation error never leaves a half-written output behind.
"""

import json
import os
import tempfile
from pathlib import Path


def atomic_write(path, data) -> Path:
    """Write ``data`` (str or bytes) to ``path`` atomically; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else bytes(data)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def read_text(path) -> str:
    """The text of ``path``; unreadable or binary files become a PermnetError."""
    from permnet.gen.errors import PermnetError

    try:
        return Path(path).read_text()
    except OSError as exc:
        raise PermnetError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise PermnetError(f"{path}: not a text file") from None


def dumps_json(obj) -> str:
    """Deterministic JSON text: sorted keys, two-space indent, trailing newline."""
    return json.dumps(obj, indent=2, sort_keys=True) + "\n"


def write_json(path, obj) -> Path:
    """Atomically write ``obj`` as deterministic JSON."""
    return atomic_write(path, dumps_json(obj))


def markdown_table(header, rows) -> list[str]:
    """Lines of a Markdown table: the header, its rule, then one line per row
    (cells rendered with ``str``; format numbers before passing them)."""
    def line(cells):
        return "| " + " | ".join(str(c) for c in cells) + " |"
    return [line(header), "|" + "---|" * len(header)] + [line(r) for r in rows]
