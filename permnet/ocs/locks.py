"""One transaction at a time per device: lock files in the state directory.

``STATE/locks/<address>.lock`` holds the :class:`~permnet.ocs.journal.Holder`
of the transaction driving that device (JSON: pid, host, start time,
command, transaction id).  A lock is taken by writing the holder to a
private temporary file and hard-linking it to the lock's name: ``link``
fails if the name exists, so exactly one of two racing processes gets it,
and a reader never sees a half-written lock.  A transaction takes the locks
of all its devices in sorted address order, or none (on the first one held
by someone else it gives back what it took and fails with one line naming
the holder).

A lock whose holder is dead (same host, no such process, or a different
process under the same id) is *stale*: it is reported, never taken over
silently.  ``permnet ocs recover`` takes over the locks of the transaction it
recovers; ``permnet ocs unlock`` removes a stale lock.

The device's own lock (NETCONF ``<lock>``) is the driver's business: when
a driver offers ``lock()``/``unlock()`` the transaction calls them as well
(:func:`device_lock`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

from permnet.gen.errors import PermnetError
from permnet.ocs.journal import Damaged, Holder, check_folder, state_file_problem

__all__ = ["LockBusy", "lock_path", "read_lock", "acquire", "release", "locks", "device_lock"]


class LockBusy(PermnetError):
    """A device is locked by another (live or dead) transaction."""


def lock_path(root, address: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", address.strip().lower())
    return Path(root) / "locks" / f"{safe}.lock"


def _read(path: Path) -> tuple[Holder, str] | None:
    """The holder and device address of a lock file (None: no such lock); a damaged one
    is refused naming the file and the field."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        holder = Holder.from_dict(doc)
        device = doc.get("device", path.stem)
        if not isinstance(device, str) or not device.isprintable():
            raise Damaged("device", "expected a device address HOST:PORT")
        return holder, device
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        raise PermnetError(f"damaged lock {path}: {state_file_problem(exc)}; remove it once no transaction runs "
                           "on that device") from None


def read_lock(path: Path) -> Holder | None:
    got = _read(path)
    return None if got is None else got[0]


def busy_message(address: str, holder: Holder, path: Path) -> str:
    alive = holder.alive()
    if alive is False:
        return (f"device {address} has a stale lock of transaction {holder.transaction} ({holder.describe()}, "
                f"no longer running): run `permnet ocs recover` (or `permnet ocs unlock {address}`)")
    return f"device {address} is locked by transaction {holder.transaction} ({holder.describe()})"


def acquire(root, addresses, holder: Holder, *, takeover: str | None = None) -> list[Path]:
    """Lock every address (sorted, each once) for ``holder``, or none: raise
    :class:`LockBusy` naming the holder of the first one taken.  A stale lock
    of transaction ``takeover`` (a recovery's own) is taken over."""
    ldir = Path(root) / "locks"
    try:
        ldir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PermnetError(f"cannot create the state directory {ldir}: {exc.strerror or exc}") from None
    tmp = ldir / f".{holder.transaction}.{os.getpid()}.tmp"
    taken: list[Path] = []
    try:
        for address in sorted({a.strip().lower() for a in addresses}):
            path = lock_path(root, address)
            tmp.unlink(missing_ok=True)              # a new file: the last one is linked to a lock
            tmp.write_text(json.dumps(dict(holder.as_dict(), device=address)) + "\n")
            while True:
                try:
                    os.link(tmp, path)
                    taken.append(path)
                    break
                except FileExistsError:
                    other = read_lock(path)
                    if other is None:
                        continue                      # released meanwhile: try again
                    if (takeover is not None and other.transaction == takeover) or other == holder:
                        if other != holder and other.alive():
                            raise LockBusy(f"transaction {takeover} is still running ({other.describe()})")
                        os.replace(tmp, path)         # ours now
                        taken.append(path)
                        break
                    raise LockBusy(busy_message(address, other, path))
    except BaseException:
        release(taken)
        raise
    finally:
        tmp.unlink(missing_ok=True)
    return taken


def release(paths) -> None:
    for p in paths:
        try:
            Path(p).unlink()
        except FileNotFoundError:
            pass


def locks(root) -> list[tuple[str, Holder, Path]]:
    """Every lock in the state directory: (device address, holder, file)."""
    ldir = Path(root) / "locks"
    if not check_folder(Path(root)) or not check_folder(ldir):
        return []
    out = []
    for p in sorted(ldir.glob("*.lock")):
        got = _read(p)
        if got is not None:
            out.append((got[1], got[0], p))
    return out


@contextlib.contextmanager
def device_lock(driver):
    """The device's own configuration lock, when its driver has one
    (``lock()``/``unlock()``, e.g. NETCONF ``<lock>``); else nothing."""
    lock = getattr(driver, "lock", None)
    if callable(lock):
        lock()
        try:
            yield
        finally:
            driver.unlock()
    else:
        yield
