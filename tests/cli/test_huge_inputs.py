"""Absurd sizes, in files or options, are refused early in one line (exit 2), never built."""

import pytest

from cli_runner import run


@pytest.mark.parametrize("args", [
    ["topo", "ldi", "-M", 100_000_000, "-S", 8],
    ["topo", "hypercube", "--dims", 40],
    ["topo", "kautz", "-d", 3, "-D", 30],
    ["topo", "torus", "-k", 100000, "-n", 3],
    ["planes", "ldi", "-M", 10 ** 10, "-S", 4, "-o", "never.json"],
])
def test_huge_options(tmp_path, args):
    p = run(*args, check=False, cwd=tmp_path, timeout=60)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name,text,args", [
    ("h.edges", "1000000000000 1 3\n", ["orp", "eval"]),
    ("m.edges", "3 100000000000 3\n0 3\n1 3\n2 3\n", ["orp", "eval"]),
    ("c.csv", "0,0,30000000\n", ["convert", "-o", "out.json"]),
])
def test_huge_headers_and_ports_in_files(tmp_path, name, text, args):
    (tmp_path / name).write_text(text)
    cmd = args[:2] + [name] + args[2:] if args[0] == "orp" else [args[0], name] + args[1:]
    p = run(*cmd, check=False, cwd=tmp_path, timeout=60)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == [name]
