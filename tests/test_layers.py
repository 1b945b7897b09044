"""The seam between the layers: imports go downward only, through public modules;
no package imports in a circle; no import hides inside a function; `contexts`
never names the layer above it."""

import ast
import re
from pathlib import Path

import pytest

import contexts

# Where the packages were imported from: the source tree in an editable install,
# site-packages when CI tests the installed wheel.
ROOT = Path(contexts.__file__).resolve().parent.parent
PACKAGES = ("contexts", "tagging", "ad")


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path):
    """(node, imported module names) for every absolute import in a file that runs
    (not those under `if TYPE_CHECKING:`, which only name types for annotations);
    a `from package import module` names the module when it is one."""
    tree = ast.parse(path.read_text())
    typing_only = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and ast.unparse(node.test) == "TYPE_CHECKING" for inner in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            yield node, [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            yield node, [name for name in names if _is_module(name)] or [node.module]


def _is_module(name):
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def files(package):
    return sorted((ROOT / package).rglob("*.py"))


def imported_modules(package):
    for path in files(package):
        for _, names in imports(path):
            yield from ((path.name, name) for name in names)


@pytest.mark.parametrize("package, above", [("contexts", {"tagging", "ad"}),
                                            ("tagging", {"ad"})])
def test_no_layer_names_a_layer_above_it(package, above):
    named = [(f, m) for f, m in imported_modules(package) if m.split(".")[0] in above]
    assert named == []


@pytest.mark.parametrize("package, below", [("tagging", ("contexts",)),
                                            ("ad", ("contexts", "tagging"))])
def test_a_layer_uses_only_the_public_modules_of_the_layers_below(package, below):
    private = [(f, m) for f, m in imported_modules(package)
               if m.split(".")[0] in below
               and any(part.startswith("_") for part in m.split(".")[1:])]
    assert private == []


def test_no_package_imports_in_a_circle():
    graph = {}
    for package in PACKAGES:
        for path in files(package):
            graph[module_name(path)] = {
                name for _, names in imports(path) for name in names
                if name.split(".")[0] in PACKAGES and name != module_name(path)}
    circles = []
    done, active = set(), []

    def visit(module):
        if module in active:
            circles.append(active[active.index(module):] + [module])
            return
        if module in done or module not in graph:
            return
        active.append(module)
        for imported in sorted(graph[module]):
            # `import a.b` runs `a/__init__` first, but a package's `__init__`
            # importing its own modules is the package's shape, not a circle
            if not imported.startswith(module + "."):
                visit(imported)
        active.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
    assert circles == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_hides_inside_a_function(package):
    hidden = []
    for path in files(package):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                hidden += [(path.name, inner.lineno, ast.unparse(inner))
                           for inner in ast.walk(node)
                           if isinstance(inner, (ast.Import, ast.ImportFrom))
                           and _names_a_package(inner)]
    assert hidden == []


def _names_a_package(node):
    """Whether an import names one of ours (a third-party import may be optional)."""
    names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
        [node.module or ""]
    return node.level > 0 if isinstance(node, ast.ImportFrom) and node.level else \
        any(name.split(".")[0] in PACKAGES for name in names)


def test_contexts_names_no_layer_above_outside_its_layer_interface():
    """Tagging (tags, tagged values, `Tag`) is named only in `contexts/layer.py`,
    the interface's documentation; elsewhere `tag` is only the field that holds
    a context's layer."""
    names = re.compile(r"\b(?i:tagging|tagged|tags)\b|\bTag")
    found = []
    for path in files("contexts"):
        if path.name == "layer.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if names.search(line):
                found.append((path.name, number, line.strip()))
    assert found == []
