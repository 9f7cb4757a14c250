"""Issue 43: a user who cannot write to the installed source tree (a system install, a container
running as another user) got ``internal error: RuntimeError: cannot cache function
'expand_frontier': no locator available`` from every numba-backed command.  The command line
now points numba at a writable per-user cache folder before any kernel compiles."""

import subprocess
import sys
import textwrap

import pytest

import permnet.cli as cli


def test_a_writable_cache_folder_is_chosen_for_a_read_only_tree(tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "_writable", lambda folder: folder == tmp_path / "cache" / "permnet-numba")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert cli.use_writable_numba_cache(env) == str(tmp_path / "cache" / "permnet-numba")
    assert env["NUMBA_CACHE_DIR"] == str(tmp_path / "cache" / "permnet-numba")
    assert cli.use_writable_numba_cache({"NUMBA_CACHE_DIR": "/x"}) is None     # the user's choice stands
    monkeypatch.setattr(cli, "_writable", lambda folder: True)
    assert cli.use_writable_numba_cache({}) is None                          # the tree itself is writable


@pytest.mark.slow        # every kernel of the command compiles afresh into the new folder: about 20 s
def test_no_locator_available_no_more(tmp_path):
    """numba's own failure, simulated: neither the source tree nor the user's cache folder can
    hold a cache (both locators decline), and the tree reads as not writable."""
    script = textwrap.dedent(f"""
        import sys
        from numba.core import caching
        for name in ("InTreeCacheLocator", "UserWideCacheLocator"):
            setattr(getattr(caching, name), "from_function", classmethod(lambda cls, f, p: None))
        import permnet.cli as cli
        cli._writable = lambda folder: str(folder).startswith({str(tmp_path)!r})
        sys.exit(cli.main(["topo", "ldi", "-M", "16", "-S", "4"]))
    """)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "no locator" not in p.stderr and "LDI(16,4)" in p.stdout
    assert any((tmp_path / "cache" / "permnet-numba").rglob("*.nbi"))          # the kernels cached there
