"""Output files that are written whole or not at all, as a user expects them.

Rules every writer in permnet follows (through :func:`atomic_write` and
:func:`atomic_dir`):

* a regular file is written to a temporary file in the target's folder and
  renamed into place, so a crash, a kill or a validation error never leaves a
  half-written output; the temporary file is removed on every exception,
  ``KeyboardInterrupt`` included (the CLI turns SIGTERM into one);
* ``-`` means standard output;
* a symbolic link is written through (its target is replaced, the link stays);
* a FIFO, a character device or any other non-regular file is written to
  directly, never replaced by a regular file;
* a new file gets the mode ``0666 & ~umask``, like any program's output; an
  overwritten file keeps its mode;
* a set of files (a folder) is written into a temporary folder beside the
  target and swapped in as a unit: no stale file of an earlier, larger run
  survives, and nothing is left when writing fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

STDOUT = "-"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _error(path, exc: OSError):
    """The user-facing error for a failed write of ``path`` (never the temporary name)."""
    from permnet.gen.errors import PermnetError

    return PermnetError(f"cannot write {path}: {exc.strerror or exc}")


def atomic_write(path, data) -> Path:
    """Write ``data`` (str or bytes) to ``path`` by the rules above; return the path."""
    return atomic_write_all({path: data})[0]


def atomic_write_all(files) -> list[Path]:
    """Write several files ``{path: data}`` as one output: each is first written
    to a temporary beside it, and only once all are written are they renamed into
    place, so a file that cannot be written leaves none of them behind (a Verilog
    file and its init files, say).  Returns the paths."""
    items = [(path, data.encode() if isinstance(data, str) else bytes(data)) for path, data in files.items()]
    staged, out = [], []
    try:
        for path, raw in items:
            if str(path) == STDOUT:
                staged.append((path, raw, None, None))
            else:
                staged.append((Path(path), raw) + _stage(Path(path), raw))
        for path, raw, tmp, target in staged:
            if str(path) == STDOUT:
                sys.stdout.flush()
                sys.stdout.buffer.write(raw)
                sys.stdout.buffer.flush()
                out.append(Path(STDOUT))
                continue
            if tmp is not None:
                try:
                    os.replace(tmp, target)
                except OSError as exc:
                    raise _error(path, exc) from None
            out.append(path)
    finally:
        for _, _, tmp, _ in staged:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
    return out


def _stage(path: Path, raw: bytes):
    """``(temporary, target)``: ``raw`` written beside ``path``'s target, with its
    mode; ``(None, target)`` where it was written in place (FIFO, device)."""
    target = Path(os.path.realpath(path))          # through symbolic links
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _error(path, exc) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            from permnet.gen.errors import PermnetError
            raise PermnetError(f"cannot write {path}: it is a directory")
        try:                                       # FIFO, device: write in place
            with open(target, "wb") as fh:
                fh.write(raw)
        except OSError as exc:
            raise _error(path, exc) from None
        return None, target
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.chmod(tmp, mode)
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise _error(path, exc) from None
    return tmp, target


@contextlib.contextmanager
def atomic_dir(path):
    """Yield a temporary folder beside ``path``; on success it replaces ``path``
    as a unit (the old folder, stale files and all, is removed), on any
    exception it is removed and ``path`` is left as it was."""
    path = Path(path)
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_dir():
        from permnet.gen.errors import PermnetError
        raise PermnetError(f"cannot write {path}: it is not a folder")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
        os.chmod(tmp, 0o777 & ~_umask())
    except OSError as exc:
        raise _error(path, exc) from None
    try:
        yield tmp
        old = None
        if target.exists():
            old = target.with_name(f".{target.name}.old.{os.getpid()}")
            os.rename(target, old)
        os.rename(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise _error(path, exc) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def refuse_over_input(output, inputs) -> None:
    """Refuse to write ``output`` over one of the ``inputs`` (paths, None for an input not given):
    the command would replace the file its output was made from."""
    from permnet.gen.errors import PermnetError

    if output is None or str(output) == STDOUT:
        return
    for src in inputs:
        if src is None or str(src) == STDOUT:
            continue
        try:
            same = os.path.samefile(output, src)
        except OSError:          # one of them does not exist (yet)
            same = os.path.realpath(output) == os.path.realpath(src)
        if same:
            raise PermnetError(f"-o {output} is the input {src}: writing it would replace the input; "
                               "write to another file")


def read_text(path) -> str:
    """The text of ``path`` (a UTF-8 byte-order mark is dropped); unreadable or
    binary files become a PermnetError."""
    from permnet.gen.errors import PermnetError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except IsADirectoryError:
        raise PermnetError(f"cannot read {path}: it is a directory") from None
    except OSError as exc:
        raise PermnetError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise PermnetError(f"{path}: not a text file") from None
    return text.removeprefix("\ufeff")


def dumps_json(obj) -> str:
    """Deterministic JSON text: sorted keys, two-space indent, trailing newline.
    Infinities and NaN are refused: they are not JSON."""
    from permnet.gen.errors import PermnetError

    try:
        return json.dumps(obj, indent=2, sort_keys=True, allow_nan=False) + "\n"
    except ValueError:
        raise PermnetError("a value is infinite or not a number, which JSON cannot carry") from None


def write_json(path, obj) -> Path:
    """Atomically write ``obj`` as deterministic JSON."""
    return atomic_write(path, dumps_json(obj))


def markdown_table(header, rows) -> list[str]:
    """Lines of a Markdown table: the header, its rule, then one line per row
    (cells rendered with ``str``; format numbers before passing them)."""
    def line(cells):
        return "| " + " | ".join(str(c) for c in cells) + " |"
    return [line(header), "|" + "---|" * len(header)] + [line(r) for r in rows]
