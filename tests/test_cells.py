"""Hidden cells are declared once, and what a pass writes is what is declared.

Every hidden name the engine's passes and tagging's pass write is declared in
a table (`contexts._cells.ENGINE_CELLS`, `tagging._cells.TAGGING_CELLS`), and
every declared name is written somewhere; a runtime builds a cell when code
naming it is bound, and builds again, for a fresh layer, every `per_layer`
cell it had built, so that two derivatives in a row never share a tag's state.
"""

import ast
import fractions
import functools
import gc
import inspect
import types
from pathlib import Path

import pytest

import contexts
from ad import D
from contexts import Context, _models, overdub
from contexts._cells import ENGINE_CELLS, MAX_ARITY
from contexts._runtime import runtime_of
from tagging import enabletagging
from tagging._cells import TAGGING_CELLS
from tagging.layer import retag
from tests import cells_corpus as corpus

ROOT = Path(contexts.__file__).resolve().parent.parent
HIDDEN_PREFIX = "__ovd"


class Hooked(Context):
    def prehook(self, f, *args, **kwargs):
        pass

    def posthook(self, output, f, *args, **kwargs):
        pass

    def overdub(self, f, *args, **kwargs):
        return super().overdub(f, *args, **kwargs)


def _contexts():
    return {"hooked": Hooked(), "tagging": enabletagging(Context(), corpus.heap),
            "hooked tagging": enabletagging(Hooked(), corpus.heap)}


def _subjects():
    own = [f for f in vars(corpus).values()
           if inspect.isfunction(f) and f.__module__ == corpus.__name__]
    models = [f for f in vars(_models).values()  # quiet bodies: `quiet_iter`
              if inspect.isfunction(f) and f.__module__ == _models.__name__]
    return own + models


def _stem(identifier):
    """`gload` of `__ovd0_gload__`."""
    return identifier[identifier.index("_", 5) + 1:-2]


def _written(ctx):
    """The stems of the runtime cells the transformed corpus names in `ctx`."""
    runtime = runtime_of(ctx)
    stems = set()
    for f in _subjects():
        bound = runtime.transformed(f)
        if bound is None:
            continue
        while bound.__code__.co_name != f.__code__.co_name:  # a generator's wrapper
            bound = next(c.cell_contents for c in bound.__closure__
                         if isinstance(c.cell_contents, types.FunctionType))
        constants = {name for name, cell in zip(bound.__code__.co_freevars,
                                                bound.__closure__ or ())
                     if not _is_runtime_cell(runtime, cell)}
        stems |= {_stem(n) for n in bound.__code__.co_freevars
                  if n.startswith(HIDDEN_PREFIX) and n not in constants}
    return runtime, stems


def _is_runtime_cell(runtime, cell):
    return any(cell is own for own in runtime.cells.values())


@pytest.fixture(scope="module")
def written():
    return {label: _written(ctx) for label, ctx in _contexts().items()}


def test_every_hidden_cell_a_pass_writes_is_declared(written):
    for label, (runtime, stems) in written.items():
        assert stems, label
        for stem in stems:
            assert runtime.declaration(stem) is not None, (label, stem)
            layer = runtime.layer
            table = layer.cells if layer is not None and layer.cells.find(stem) else ENGINE_CELLS
            assert table.find(stem) is not None, (label, stem)


def test_every_declared_cell_is_written_somewhere(written):
    stems = set().union(*(found for _runtime, found in written.values()))
    for table in (ENGINE_CELLS, TAGGING_CELLS):
        for cell in table:
            if cell.family:
                assert any(s.startswith(cell.name) for s in stems), cell.name
            else:
                assert cell.name in stems, cell.name


def test_a_pass_cannot_name_an_undeclared_cell():
    with pytest.raises(KeyError, match="not declared"):
        TAGGING_CELLS.hidden(0, "gloda")
    with pytest.raises(KeyError, match="not declared"):
        ENGINE_CELLS.declared(f"call{MAX_ARITY + 1}")
    assert TAGGING_CELLS.hidden(1, "gload") == "__ovd1_gload__"
    assert ENGINE_CELLS.declared("op_add_vk") == "op_add_vk"


# The literal stems the passes write, read from their source: a branch the corpus
# does not reach names a declared cell too.
PASSES = {"contexts/_calls.py": ENGINE_CELLS, "contexts/_implicit_rewrite.py": ENGINE_CELLS,
          "contexts/_operator_sites.py": ENGINE_CELLS, "contexts/_lower.py": ENGINE_CELLS,
          "tagging/_passes.py": TAGGING_CELLS}


def _literal_stems(path):
    """The constant stems given to `engine_cell`, `TAGGING_CELLS.hidden` and a pass's
    own `helper(...)`, and the f-string prefixes of computed ones."""
    found = []
    for node in ast.walk(ast.parse((ROOT / path).read_text())):
        if not isinstance(node, ast.Call):
            continue
        callee = ast.unparse(node.func)
        if callee == "engine_cell" or callee.endswith("TAGGING_CELLS.hidden"):
            stem = node.args[1]
        elif callee in ("self.helper", "self.display") and node.args:
            stem = node.args[0]
            if callee == "self.display":
                continue
        else:
            continue
        choices = [stem.body, stem.orelse] if isinstance(stem, ast.IfExp) else [stem]
        if all(isinstance(choice, ast.Constant) for choice in choices):
            found += [(choice.value, False) for choice in choices]
        elif isinstance(stem, ast.JoinedStr) and isinstance(stem.values[0], ast.Constant):
            found.append((stem.values[0].value, True))
        else:  # a pass's own `helper(what)` passing its argument on
            assert isinstance(stem, ast.Name), (path, ast.unparse(node))
    return found


def _declares(table, stem, prefix):
    if not prefix:
        return table.find(stem) is not None
    return any(cell.name.startswith(stem) or stem.startswith(cell.name) for cell in table)


def test_the_passes_sources_name_only_declared_cells():
    written = {path: _literal_stems(path) for path in PASSES}
    assert written["tagging/_passes.py"] and written["contexts/_calls.py"]
    for path, stems in written.items():
        for stem, prefix in stems:
            assert _declares(PASSES[path], stem, prefix), (path, stem)
    # and no pass module writes a hidden name but through its table
    for path in PASSES:
        source = (ROOT / path).read_text()
        assert "hidden(\"" not in source and "hidden(f\"call" not in source, path


# A fresh layer: every `per_layer` cell built is built again, the rest kept -------------


def _parts(tag):
    """The ids of a tag and of the state of its store a cell may hold."""
    store = tag.store
    return {id(tag), id(store), id(store.entries), id(store.members)}


def _reaches(value, targets, depth=4):
    """Whether one of the objects whose ids are `targets` is reachable from `value`
    through closure cells, partials and what `shortcut`/`enclosed` hang on a function."""
    if id(value) in targets:
        return True
    if depth == 0:
        return False
    if isinstance(value, functools.partial):
        inner = [value.func, *value.args, *value.keywords.values()]
    elif isinstance(value, types.FunctionType):
        inner = [c.cell_contents for c in value.__closure__ or () if _filled(c)]
        inner += list(value.__dict__.values())
    elif isinstance(value, types.MethodType):
        inner = [value.__func__, value.__self__]
    else:
        return False
    return any(_reaches(v, targets, depth - 1) for v in inner)


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def test_a_fresh_tag_rebuilds_every_layer_cell_that_was_built_and_only_those():
    ctx = enabletagging(Context(), corpus.heap)
    runtime, stems = _written(ctx)
    before = {name: cell.cell_contents for name, cell in runtime.cells.items()}
    old_tag = ctx.tag
    layered = {s for s in stems if TAGGING_CELLS.find(s) and TAGGING_CELLS.find(s).per_layer}
    assert {"astore", "iload", "istore", "yielded"} <= layered
    retag(ctx)
    assert runtime_of(ctx) is runtime  # reused: relayered, not rebuilt
    for name, cell in runtime.cells.items():
        stem = _stem(name)
        if stem in layered:
            assert cell.cell_contents is not before[name], stem
            assert _reaches(cell.cell_contents, _parts(ctx.tag)), stem
            assert not _reaches(cell.cell_contents, _parts(old_tag)), stem
        else:
            assert cell.cell_contents is before[name], stem


def test_a_cell_kept_for_a_fresh_tag_holds_no_tag_and_reads_it_when_called():
    """The cells every run calls (`gload`, `aload`, `iter`, `method`) are kept from one
    tag to the next: none may hold a tag or its store, the old one or the new one,
    for the context's next derivative would read the old tag's metadata through it."""
    ctx = enabletagging(Context(), corpus.heap)
    runtime, stems = _written(ctx)
    kept = {s for s in stems if not (TAGGING_CELLS.find(s) and TAGGING_CELLS.find(s).per_layer)}
    assert {"gload", "aload", "method", "iter"} <= kept
    tags = [ctx.tag]
    retag(ctx)
    runtime_of(ctx)
    tags.append(ctx.tag)
    for name, cell in runtime.cells.items():
        if _stem(name) in kept:
            for tag in tags:
                assert not _reaches(cell.cell_contents, _parts(tag), depth=6), name


def test_a_fresh_context_builds_only_the_cells_its_code_names():
    ctx = enabletagging(Context(), corpus.operators)
    assert overdub(ctx, corpus.operators, 1.0, 2.0) == -2.0
    runtime = runtime_of(ctx)
    built = set(runtime.values)
    assert built <= {_stem(n) for n in runtime.cells} | {"aload", "gload"}
    assert "yielded" not in built and "classbody" not in built and "astore" not in built


# Two derivatives in a row of the same function: nothing of the first's tag is
# read by the second (a `per_layer` cell not built again would read the old store).

STATE = {"scale": 0.0}
G = 0.0


def through_global(x):
    global G
    G = x * x
    return G * x


def through_attributes(x):
    box = corpus.Box(x)
    box.extra = box.value * 3
    return box.extra * box.value


def through_items(x):
    STATE["scale"] = x
    items = [x, 2 * x]
    items[0] = items[1] * STATE["scale"]
    return items[0] + sum(v for v in items)


def through_closure(x):
    total = x

    def grow():
        nonlocal total
        total = total * x

    grow()
    return total


def through_generator(x):
    def gen():
        got = yield x * x
        return got * x

    g = gen()
    first = next(g)
    try:
        g.send(first)
    except StopIteration as stop:
        return stop.value


HEAP = {}


def through_stores(x):
    global G
    G = x * x
    box = corpus.Box(x)
    box.extra = x * 2
    items = []
    items.append(x * 3)
    items.append(x)
    items[0] = items[0] * x
    total = x

    def grow():
        nonlocal total
        total = total * x

    grow()
    HEAP["box"], HEAP["items"], HEAP["grow"] = box, items, grow
    return G + box.extra + items[0] + items[1] + total


def _left_in_the_heap():
    """What `through_stores` left in the heap: plain numbers only."""
    return [G, HEAP["box"].extra, *HEAP["items"],
            *[cell.cell_contents for cell in HEAP["grow"].__closure__]]


def test_sequential_derivatives_store_plain_values_with_their_own_tag():
    for x in (fractions.Fraction(3, 2), fractions.Fraction(-5, 7), fractions.Fraction(2)):
        assert D(through_stores, x) == 10 * x + 3
        left = _left_in_the_heap()
        assert [type(value) for value in left] == [fractions.Fraction] * 6
        assert sorted(left) == sorted([x * x, 2 * x, 3 * x * x, x, x * x, x])


@pytest.mark.parametrize("f, exact", [
    (through_global, lambda x: 3 * x ** 2),
    (through_attributes, lambda x: 6 * x),
    (through_items, lambda x: 8 * x + 2),
    (through_closure, lambda x: 2 * x),
    (through_generator, lambda x: 3 * x ** 2),
])
def test_sequential_derivatives_of_one_function_keep_their_tags_apart(f, exact):
    for x in (fractions.Fraction(3, 2), fractions.Fraction(-5, 7), fractions.Fraction(2)):
        assert D(f, x) == exact(x)
    gc.collect()
    assert D(f, fractions.Fraction(1, 3)) == exact(fractions.Fraction(1, 3))
