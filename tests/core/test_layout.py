"""The test tree itself: pytest imports test modules by their base name, so two test files may not share one."""

from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
