"""The examples in the module docstrings run."""

import doctest
import importlib

import pytest

MODULES = ["gen.ldi", "gen.metrics", "gen.coloring", "gen.planes", "gen.faults", "gen.mixed", "gen.benes",
           "gen.pn", "gen.families", "gen.ipgraph", "gen.clusters", "gen.chordal_search", "gen.compare",
           "sim.mesh", "sim.butterfly"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(f"permnet.{name}"))
    assert result.attempted > 0 and result.failed == 0
