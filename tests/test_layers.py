"""The import rules between layers (docs/reference/layout.md, "Where things go"), read from the
source with ``ast``: ``gen`` imports nothing above it, ``hdl`` never imports
the ``sim`` models it is tested against, CLI modules reach no private name
of another module and form no import cycle."""

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
# package prefix -> folder
FOLDERS = {"permnet.gen": ROOT / "gen", "permnet.hdl": ROOT / "hdl", "permnet.sim": ROOT / "sim",
           "permnet": ROOT / "permnet"}

# Known violations, to be removed as they are fixed; the list may only shrink.
ALLOWED: set[tuple[str, str]] = set()


def modules():
    for prefix, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([prefix] + parts)
            if prefix == "permnet" and parts and parts[0] in ("gen", "hdl", "sim"):
                continue
            yield name, path


def imports(name, path):
    """(module imported, names imported from it) for every import in ``path``."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            yield base, [a.name for a in node.names]


ALL = dict(modules())
EDGES = [(m, imp, names) for m, p in ALL.items() for imp, names in imports(m, p)]


def found(pred):
    return sorted({(m, imp) for m, imp, _ in EDGES if pred(m, imp)} - ALLOWED)


def test_modules_are_found():
    assert "permnet.gen.topologies.ldi" in ALL and "permnet.cli" in ALL and "permnet.hdl.crossbar" in ALL


def test_gen_imports_nothing_above_it():
    def above(m, imp):
        return m.startswith("permnet.gen") and imp.startswith("permnet") and not imp.startswith("permnet.gen")
    assert found(above) == []


def test_hdl_does_not_import_the_models_it_is_tested_against():
    assert found(lambda m, imp: m.startswith("permnet.hdl") and imp.startswith("permnet.sim")) == []


def test_allowed_violations_still_exist():
    """An allow-list entry whose violation was fixed must be removed."""
    present = {(m, imp) for m, imp, _ in EDGES}
    assert ALLOWED <= present, ALLOWED - present


def test_cli_reaches_no_private_names_and_has_no_cycle():
    private = [(m, imp, n) for m, imp, names in EDGES for n in names
               if m.startswith("permnet.cli") and imp.startswith("permnet") and n.startswith("_")
               and n != "__version__"]
    assert private == []
    g = nx.DiGraph((m, imp) for m, imp, _ in EDGES
                   if m.startswith("permnet.cli.") and imp.startswith("permnet.cli."))
    assert list(nx.simple_cycles(g)) == []
