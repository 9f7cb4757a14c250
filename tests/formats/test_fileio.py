"""Output files: written whole or not at all, through links, into FIFOs, with
the umask's mode, and folders swapped in as a unit."""

import os
import stat
import threading

import pytest

from permnet.fileio import atomic_dir, atomic_write, dumps_json, read_text
from permnet.gen.errors import PermnetError


def leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


def test_new_file_honours_umask_and_overwrite_keeps_mode(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o640
    (tmp_path / "b.txt").write_text("old")
    os.chmod(tmp_path / "b.txt", 0o664)
    atomic_write(tmp_path / "b.txt", "new")
    assert stat.S_IMODE((tmp_path / "b.txt").stat().st_mode) == 0o664
    assert (tmp_path / "b.txt").read_text() == "new"


def test_symlink_is_written_through(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    atomic_write(fifo, "through the pipe\n")
    reader.join(timeout=10)
    assert got == ["through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_failed_write_leaves_nothing_and_names_the_target(tmp_path):
    class Boom(bytes):
        pass

    target = tmp_path / "out.txt"
    with pytest.raises(PermnetError, match="it is a directory"):
        atomic_write(tmp_path, "x")
    (tmp_path / "file").write_text("")
    with pytest.raises(PermnetError) as err:
        atomic_write(tmp_path / "file" / "below.txt", "x")
    assert "file/below.txt" in str(err.value) and ".tmp" not in str(err.value) and "None" not in str(err.value)
    assert not target.exists() and leftovers(tmp_path) == []


def test_folder_is_swapped_in_as_a_unit(tmp_path):
    out = tmp_path / "set"
    with atomic_dir(out) as tmp:
        for k in range(5):
            (tmp / f"stage_{k}.hex").write_text(str(k))
    with atomic_dir(out) as tmp:           # a smaller second run: no stale stage files
        (tmp / "stage_0.hex").write_text("again")
    assert sorted(p.name for p in out.iterdir()) == ["stage_0.hex"]
    with pytest.raises(KeyboardInterrupt):
        with atomic_dir(out) as tmp:       # interrupted: the old set stays, nothing else
            (tmp / "half.hex").write_text("")
            raise KeyboardInterrupt
    assert sorted(p.name for p in out.iterdir()) == ["stage_0.hex"]
    assert leftovers(tmp_path) == []


def test_stdout_and_json_and_bom(tmp_path, capsys):
    atomic_write("-", "to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"
    with pytest.raises(PermnetError, match="infinite"):
        dumps_json({"slot": float("inf")})
    f = tmp_path / "bom.txt"
    f.write_bytes("\ufeff1,2,3\n".encode())
    assert read_text(f) == "1,2,3\n"
