"""The layout of the code itself: test modules with unique names, and the rules of construction.

No import cycle in addon/ or core/, no add-on module over 500 lines, relative imports in the add-on; in core,
over every module of every sub-package: public functions take at most three positional parameters (options
are keyword-only), no two public functions share a name, no module imports another's ``_private`` names, and
each sub-package re-exports its modules' public names.
"""

import ast
import importlib
import inspect
import pkgutil
from collections import Counter
from pathlib import Path

import core

ROOT = Path(__file__).resolve().parents[2]
POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def test_test_files_have_unique_names():
    names = Counter(p.name for p in (ROOT / "tests").rglob("test_*.py") if "fixtures" not in p.parts)
    assert [name for name, n in names.items() if n > 1] == []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``path`` imports, anywhere in it (imports inside functions count)."""
    import ast

    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            candidates = [target] + [f"{target}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        for candidate in candidates:
            # Importing a.b.c runs a, a.b and a.b.c.
            pieces = candidate.split(".")
            for i in range(1, len(pieces) + 1):
                module = ".".join(pieces[:i])
                if module in modules and module != name:
                    found.add(module)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _tree_files() -> list[Path]:
    return sorted(p for top in ("addon", "core") for p in (ROOT / top).rglob("*.py"))


def test_no_import_cycle_in_the_addon_and_core_trees():
    """No module pair or ring of modules imports each other, sub-packages included; a package's ``__init__``
    only imports downwards (the add-on's registers its modules), so it is left out of the rings it would close
    with the modules below it."""
    files = _tree_files()
    modules = {_module_name(p) for p in files}
    graph = {_module_name(p): _imports(p, modules) for p in files}
    for name in graph:  # a sub-module importing a sibling runs the package's __init__, which imports downwards
        graph[name] = {m for m in graph[name] if not name.startswith(m + ".")}
    assert len(graph) > 60 and any("." in m.removeprefix("addon.") for m in graph)
    assert _cycles(graph) == []


def test_import_cycle_detection_finds_a_ring():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_addon_module_is_over_500_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "addon").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert long == {}


def test_the_addon_imports_its_own_modules_relatively():
    """Blender extensions import within themselves relatively (no absolute ``addon``/``core`` import)."""
    import ast

    absolute = []
    for path in (ROOT / "addon").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            absolute += [
                f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in ("addon", "core", "orogen")
            ]
    assert absolute == []


def core_modules():
    """Every module of core, sub-packages included, imported."""
    found = [core]
    for info in pkgutil.walk_packages(core.__path__, "core."):
        found.append(importlib.import_module(info.name))
    return found


def public_functions():
    """``(module name, function name, function)`` of every public function defined in a core module."""
    for module in core_modules():
        for name, obj in vars(module).items():
            if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__:
                yield module.__name__, name, obj


def test_the_walk_reaches_every_sub_package():
    names = {m.__name__ for m in core_modules()}
    assert {"core.generators", "core.noise", "core.erosion", "core.lighting", "core.io"} <= names
    assert len(names) == len(list((ROOT / "core").rglob("*.py")))


def test_public_functions_take_options_keyword_only():
    crowded = []
    for module, name, function in public_functions():
        positional = [p.name for p in inspect.signature(function).parameters.values() if p.kind in POSITIONAL]
        if len(positional) > 3:
            crowded.append(f"{module}.{name}({', '.join(positional)})")
    assert crowded == []


def test_no_two_public_functions_share_a_name():
    where: dict[str, list[str]] = {}
    for module, name, _ in public_functions():
        where.setdefault(name, []).append(module)
    assert {name: modules for name, modules in where.items() if len(modules) > 1} == {}


def test_no_core_module_imports_private_names_of_another():
    offenders = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                offenders += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert offenders == []


def test_each_sub_package_re_exports_its_modules_public_names():
    missing = []
    for module in core_modules():
        if not hasattr(module, "__path__") or module is core:
            continue
        assert module.__doc__, f"{module.__name__} has no docstring"
        for info in pkgutil.iter_modules(module.__path__, module.__name__ + "."):
            sub = importlib.import_module(info.name)
            missing += [f"{info.name}.{n}" for n in sub.__all__ if getattr(module, n, None) is not getattr(sub, n)]
    assert missing == []
