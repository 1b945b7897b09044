"""The layers import downwards only, and ad uses only public modules of the layers below."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(package):
    """(file, module) for every absolute import in a package's files."""
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                yield from ((path.name, alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                yield path.name, node.module


@pytest.mark.parametrize("package, above", [("contexts", {"tagging", "ad"}),
                                            ("tagging", {"ad"})])
def test_no_layer_names_a_layer_above_it(package, above):
    named = [(f, m) for f, m in imported_modules(package) if m.split(".")[0] in above]
    assert named == []


def test_ad_uses_only_the_public_modules_of_contexts_and_tagging():
    private = [(f, m) for f, m in imported_modules("ad")
               if m.split(".")[0] in ("contexts", "tagging")
               and any(part.startswith("_") for part in m.split(".")[1:])]
    assert private == []
