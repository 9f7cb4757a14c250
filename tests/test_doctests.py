"""The examples in the module docstrings run: every module of the library is
discovered (not listed), and each one that has examples must pass them."""

import doctest
import importlib
import pkgutil

import pytest

# gateware (hdl) and click commands (cli) are covered by their own tests
PACKAGES = ("permnet", "permnet.gen", "permnet.sim")


def _modules():
    names = set()
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
            if not info.name.startswith(("permnet.cli", "permnet.hdl")):
                names.add(info.name)
    return sorted(names)


def _with_examples():
    out = []
    for name in _modules():
        mod = importlib.import_module(name)
        if doctest.DocTestFinder().find(mod):
            if any(t.examples for t in doctest.DocTestFinder().find(mod)):
                out.append(name)
    return out


@pytest.mark.parametrize("name", _with_examples())
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_discovery_finds_the_library():
    """Discovery itself works: the core modules with examples are found."""
    found = set(_with_examples())
    assert {"permnet.gen.topologies.ldi", "permnet.gen.routing.benes", "permnet.gen.graph.coloring"} <= found
