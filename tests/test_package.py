"""Package-level facts: version, typing marker, and the one-way flow of imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import statlearn

PKG = Path(statlearn.__file__).resolve().parent
AREAS = ["conformal", "hte", "calibration", "bandits", "cluster", "unlearning"]
SHARED = ("base", "utils", "datasets", "simulation")


def test_version_and_marker():
    assert isinstance(statlearn.__version__, str) and statlearn.__version__[0].isdigit()
    assert (PKG / "py.typed").exists()


def _imported_modules(path: Path):
    tree = ast.parse(path.read_text())
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(parts[: len(parts) - node.level])
                if path.name == "__init__.py":
                    base = list(parts[: len(parts) - node.level + 1])
                mod = ".".join(base + ([node.module] if node.module else []))
                yield mod
                if not node.module:
                    for a in node.names:
                        yield f"{mod}.{a.name}"
            elif node.module:
                yield node.module


def _area_of(module: str):
    bits = module.split(".")
    return bits[1] if len(bits) > 1 and bits[0] == "statlearn" else None


@pytest.mark.parametrize("area", [a for a in AREAS if (PKG / a).is_dir()])
def test_an_area_never_imports_another_area(area):
    root = PKG / area
    for path in root.rglob("*.py"):
        for mod in _imported_modules(path):
            other = _area_of(mod)
            # shared layers an area may use: the base layer, utils, datasets and the runner
            assert other is None or other == area or other in SHARED, (
                f"{path.relative_to(PKG)} imports {mod}"
            )


def test_nothing_below_imports_studies_or_cli():
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).parts
        if rel[0] in ("studies", "cli.py", "__main__.py"):
            continue
        for mod in _imported_modules(path):
            assert _area_of(mod) not in ("studies", "cli"), f"{path.relative_to(PKG)}: {mod}"


@pytest.mark.parametrize("layer,allowed", [("utils", {"utils"}),
                                           ("simulation", {"utils", "simulation"}),
                                           ("datasets", {"utils", "datasets"})])
def test_shared_layers_import_no_area(layer, allowed):
    for path in (PKG / layer).rglob("*.py"):
        for mod in _imported_modules(path):
            assert _area_of(mod) in allowed | {None}, f"{path.relative_to(PKG)} imports {mod}"


def test_the_testing_layer_sits_above_the_areas():
    """``statlearn.testing`` checks the areas' guarantees: it may import utils, simulation,
    datasets, the base layer and the areas; nothing else in the package imports it."""
    allowed = {"utils", "simulation", "datasets", "base", "testing", *AREAS, None}
    for path in (PKG / "testing").rglob("*.py"):
        for mod in _imported_modules(path):
            assert _area_of(mod) in allowed, f"{path.relative_to(PKG)} imports {mod}"
    for path in PKG.rglob("*.py"):
        if path.relative_to(PKG).parts[0] == "testing":
            continue
        for mod in _imported_modules(path):
            assert _area_of(mod) != "testing", f"{path.relative_to(PKG)} imports {mod}"


def test_the_base_layer_sits_on_utils_only():
    for mod in _imported_modules(PKG / "base.py"):
        assert _area_of(mod) in {"utils", None}, f"base.py imports {mod}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _statlearn_imports(path: Path):
    """Every module ``path`` imports, at module level or inside a function (an import
    deferred into a function hides a circle; it does not break it), resolved to the
    names a statlearn module may have."""
    yield from _imported_modules(path)
    # ``from .x import name``: ``name`` may be a submodule
    tree = ast.parse(path.read_text())
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(parts[: len(parts) - node.level + (path.name == "__init__.py")])
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield from (f"{mod}.{a.name}" for a in node.names)


def test_no_import_circles_inside_the_package():
    files = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        deps = {m for m in _statlearn_imports(path) if m in files and m != name}
        # importing a package's submodule imports the package first: not a circle edge
        graph[name] = {d for d in deps if not name.startswith(d + ".")}
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == "open":
                cycle = stack[stack.index(dep):] + [dep]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)


#: modules allowed above the size guard, with why
LONG_MODULES = {
}
MAX_LINES = 700


def test_modules_stay_small_enough_to_read():
    too_long = {}
    for path in PKG.rglob("*.py"):
        rel = str(path.relative_to(PKG))
        n = len(path.read_text().splitlines())
        if n > MAX_LINES and rel not in LONG_MODULES:
            too_long[rel] = n
    assert not too_long, f"modules over {MAX_LINES} lines (split them by concept): {too_long}"
    for rel in LONG_MODULES:
        assert (PKG / rel).exists(), f"LONG_MODULES lists {rel}, which no longer exists"
