"""The import contract of docs/architecture.md, read from the source (no import runs).

Every import under ``mcplock/`` counts: module level, inside functions (the lazy imports that keep
offline commands light) and under ``TYPE_CHECKING``. A unit is a top-level module or package
(``mcplock.lock``, ``mcplock.errors``); an import between two units is an edge. The contract:

- no cycle between units (the layers are a stack, so a package can be read, tested and moved
  without the ones above it);
- nothing below ``cli`` imports ``cli``;
- ``probe`` never imports ``auth`` (the HTTP client is injected);
- outside ``probe/`` nothing imports a private part of it (``mcplock.probe._stdio``, or a
  ``_name`` from a probe module): the guard and core reach servers through the public transport
  layer (``mcplock.probe.transport.Connection``, ``mcplock.probe.session``);
- the guard reaches the workflow layer through one call: ``core.running`` prepares the locked
  server (docs/architecture.md, "A server spec through `mcplock run`");
- inside the guard, no part writes another's state: a write reaches one attribute off ``self``
  or a local (``self.calls[k] = …``, ``held.rid = …``), never through a collaborator
  (``self.guard.waiting[k] = …``, ``guard.modern.states.pop(s)``); the in-flight ids are the
  ledger's, changed through its methods; and no part holds the Guard itself.
"""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "mcplock"

Edges = dict[str, dict[str, list[str]]]  # unit → imported unit → "module:line" that imports it


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, *([node.module] if node.module else [])])
    else:
        target = node.module or ""
    # `from mcplock import lock` imports the unit `lock`: name each imported name too
    return [target, *(f"{target}.{a.name}" for a in node.names)]


def _unit(dotted: str, root: Path) -> str | None:
    parts = dotted.split(".")
    if parts[0] != "mcplock" or len(parts) < 2:
        return None
    name = parts[1]
    if (root / name).is_dir() or (root / f"{name}.py").is_file():
        return name
    return None  # a name imported from mcplock/__init__.py (`from mcplock import __version__`)


def import_edges(root: Path = ROOT) -> Edges:
    edges: Edges = defaultdict(lambda: defaultdict(list))
    for path in sorted(root.rglob("*.py")):
        module, is_package = _module_name(path, root)
        src = _unit(module, root) if module != "mcplock" else None
        if src is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for target in _imported(node, module, is_package):
                dst = _unit(target, root)
                where = f"{module}:{node.lineno}"
                if dst is not None and dst != src and where not in edges[src][dst]:
                    edges[src][dst].append(where)
    return edges


def find_cycle(edges: Edges) -> list[str] | None:
    """One cycle as [a, b, …, a], or None (depth-first search, three colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(u: str) -> list[str] | None:
        state[u] = 1
        stack.append(u)
        for v in sorted(edges.get(u, {})):
            if state.get(v) == 1:
                return [*stack[stack.index(v) :], v]
            if v not in state and (cycle := visit(v)):
                return cycle
        stack.pop()
        state[u] = 2
        return None

    for u in sorted(edges):
        if u not in state and (cycle := visit(u)):
            return cycle
    return None


def _explain(edges: Edges, cycle: list[str]) -> str:
    return "\n".join(f"  {a} → {b}: {', '.join(edges[a][b][:3])}" for a, b in itertools.pairwise(cycle))


def test_no_cycle_between_packages():
    edges = import_edges()
    assert "lock" in edges and "core" in edges  # the walk read the tree
    cycle = find_cycle(edges)
    assert cycle is None, "import cycle between packages:\n" + _explain(edges, cycle)


def test_nothing_below_the_cli_imports_it():
    edges = import_edges()
    users = {u: edges[u]["cli"] for u in edges if "cli" in edges[u] and u != "__main__"}
    assert not users, users


def test_probe_never_imports_auth():
    assert "auth" not in import_edges()["probe"]


def private_probe_imports(root: Path = ROOT) -> list[str]:
    """``module:line name`` of every import of a private probe part from outside ``probe/``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        module, is_package = _module_name(path, root)
        if module == "mcplock.probe" or module.startswith("mcplock.probe."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for target in _imported(node, module, is_package):
                parts = target.split(".")
                if parts[:2] == ["mcplock", "probe"] and any(p.startswith("_") for p in parts[2:]):
                    found.append(f"{module}:{node.lineno} {target}")
    return found


def test_only_the_public_probe_is_imported_from_outside():
    assert not private_probe_imports()


def imported_by(package: str, root: Path = ROOT) -> set[str]:
    """Every module (or module.name) that a module of ``mcplock.<package>`` imports."""
    found: set[str] = set()
    for path in sorted((root / package).rglob("*.py")):
        module, is_package = _module_name(path, root)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            found.update(_imported(node, module, is_package))
    return found


def test_the_guard_prepares_its_server_in_one_call():
    below = {
        t
        for t in imported_by("guard")
        if t.split(".")[:2] in (["mcplock", "core"], ["mcplock", "packages"]) or t.startswith("mcplock.lock.one")
    }
    assert below and all(t.startswith("mcplock.core.running") for t in below), sorted(below)


def test_the_private_probe_check_sees_lazy_and_from_imports(tmp_path):
    pkg = tmp_path / "mcplock"
    (pkg / "probe").mkdir(parents=True)
    (pkg / "guard").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "probe" / "__init__.py").write_text("from mcplock.probe._x import y\n")  # inside: allowed
    (pkg / "guard" / "__init__.py").write_text("def f():\n    from mcplock.probe import _stdio\n")
    (pkg / "guard" / "up.py").write_text("from mcplock.probe.session import _list_all\nimport mcplock.probe.session\n")
    assert private_probe_imports(pkg) == [
        "mcplock.guard:2 mcplock.probe._stdio",
        "mcplock.guard.up:1 mcplock.probe.session._list_all",
    ]


def test_the_contract_sees_a_cycle_lazy_or_relative(tmp_path):
    """The checker itself: a cycle made by a function-level import and a relative import is found."""
    pkg = tmp_path / "mcplock"
    (pkg / "a").mkdir(parents=True)
    (pkg / "b").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("def f():\n    from mcplock.b import g\n")
    (pkg / "b" / "__init__.py").write_text("")
    (pkg / "b" / "g.py").write_text("from ..a import f\n")
    (pkg / "leaf.py").write_text("import os\n")
    edges = import_edges(pkg)
    assert find_cycle(edges) == ["a", "b", "a"]
    assert "leaf" not in edges


# --- files: no loop between two modules, nothing imports the package root, a small root ------------


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Every module under ``root`` by dotted name: (its file, whether it is a package's ``__init__``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        module, is_package = _module_name(path, root)
        out[module] = (path, is_package)
    return out


def _file_targets(node: ast.AST, module: str, is_package: bool, modules: Mapping[str, object]) -> list[str]:
    """The modules an import statement reads: ``import a.b`` and ``from a import b`` (``b`` a
    module) read ``a.b``; ``from a import name`` (a name defined in ``a/__init__.py``) reads ``a``.
    Importing ``a.b`` also runs ``a/__init__.py``; that is not counted (a package's ``__init__``
    re-exporting its modules would otherwise loop with each of them)."""
    found = _imported(node, module, is_package)
    if isinstance(node, ast.ImportFrom):
        base, names = found[0], found[1:]
        found = [n for n in names if n in modules] + ([base] if any(n not in modules for n in names) else [])
    out = []
    for target in found:
        parts = target.split(".")
        while parts and ".".join(parts) not in modules:
            parts.pop()  # `from mcplock.lock.model import Lock` reads the module mcplock.lock.model
        if parts:
            out.append(".".join(parts))
    return out


def file_edges(root: Path = ROOT) -> Edges:
    """module → imported module → "module:line" of each import, for every module under ``root``:
    module level, lazy (inside a function), under ``TYPE_CHECKING``, relative, ``from pkg import mod``."""
    modules = _modules(root)
    edges: Edges = defaultdict(lambda: defaultdict(list))
    for module, (path, is_package) in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _file_targets(node, module, is_package, modules):
                where = f"{module}:{node.lineno}"
                if target != module and where not in edges[module][target]:
                    edges[module][target].append(where)
    return edges


def file_loops(edges: Edges) -> list[frozenset[str]]:
    """Every set of modules that import one another in a loop (the strongly connected components
    of more than one module, Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                loops.append(frozenset(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return loops


# Loops left to be untied (issue 41): none. An entry here names a loop the suite tolerates for now;
# nothing may be added without a reason, and an entry whose loop is gone must leave.
KNOWN_FILE_LOOPS: set[frozenset[str]] = set()


def test_no_cycle_between_files():
    """Inside a package too: two modules that import each other (even lazily, even for a type)
    are one module in two files, or share a piece that belongs below both."""
    edges = file_edges()
    assert "mcplock.core.refresh" in edges and "mcplock.guard.modern" in edges  # the walk read the tree
    loops = set(file_loops(edges))
    new = [sorted(loop) for loop in loops - KNOWN_FILE_LOOPS]
    assert not new, "import loops between files:\n" + "\n".join(
        _explain(edges, c) for loop in new if (c := find_cycle({m: edges[m] for m in loop})) is not None
    )
    assert loops >= KNOWN_FILE_LOOPS, "untied: remove from KNOWN_FILE_LOOPS"


def test_the_file_check_sees_a_cycle_lazy_relative_or_from_a_package(tmp_path):
    """The checker itself: loops made by a function-level import, a relative import, a
    ``TYPE_CHECKING`` import and ``from pkg import module`` are each found; an import of a
    submodule does not count as one of its package's ``__init__``."""
    pkg = tmp_path / "mcplock"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "__init__.py").write_text("from mcplock.core.a import f\n")  # re-exports: no loop
    (pkg / "core" / "a.py").write_text("def f():\n    from mcplock.core import b\n")  # lazy, `from pkg import mod`
    (pkg / "core" / "b.py").write_text("from .c import g\n")  # relative
    (pkg / "core" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mcplock.core.a import f\n"
    )
    (pkg / "core" / "d.py").write_text("from mcplock.core import f\n")  # a name of core/__init__: reads core
    edges = file_edges(pkg)
    assert sorted(edges["mcplock.core.d"]) == ["mcplock.core"]
    assert "mcplock.core" not in edges["mcplock.core.a"]  # importing a submodule is not its package
    cycle = find_cycle(edges)
    assert cycle is not None and set(cycle) == {"mcplock.core.a", "mcplock.core.b", "mcplock.core.c"}
    assert file_loops(edges) == [frozenset({"mcplock.core.a", "mcplock.core.b", "mcplock.core.c"})]
    (pkg / "core" / "c.py").write_text("g = 1\n")
    assert find_cycle(file_edges(pkg)) is None and file_loops(file_edges(pkg)) == []


def root_imports(root: Path = ROOT) -> list[str]:
    """``module:line`` of each import of the package root itself (``import mcplock``, ``from mcplock
    import __version__``), but from ``__main__``; ``from mcplock import errors`` reads a module."""
    modules = _modules(root)
    found = []
    for module, (path, is_package) in modules.items():
        if module in ("mcplock", "mcplock.__main__"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            imports = isinstance(node, ast.Import | ast.ImportFrom)
            if imports and "mcplock" in _file_targets(node, module, is_package, modules):
                found.append(f"{module}:{node.lineno}")
    return found


def test_nothing_imports_the_package_root():
    """The root is the library's facade (``mcplock.load`` …): a module inside reads the version
    from ``mcplock._version`` and each name from its own module, so importing one never runs the
    facade and the facade can change without touching them."""
    assert root_imports() == []


def test_the_root_import_check_finds_one(tmp_path):
    pkg = tmp_path / "mcplock"
    (pkg / "lock").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from mcplock._version import __version__\n")
    (pkg / "__main__.py").write_text("import mcplock\n")  # the entry point may
    (pkg / "_version.py").write_text("__version__ = '1'\n")
    (pkg / "errors.py").write_text("")
    (pkg / "lock" / "__init__.py").write_text("")
    (pkg / "lock" / "one.py").write_text(
        "from mcplock import errors\nfrom mcplock._version import __version__\n"  # modules: fine
        "def f():\n    from mcplock import __version__\n"  # the root, lazily
    )
    (pkg / "lock" / "two.py").write_text("import mcplock\nfrom .. import errors\nfrom .. import __version__\n")
    assert root_imports(pkg) == ["mcplock.lock.one:4", "mcplock.lock.two:1", "mcplock.lock.two:3"]


# the package root holds the public facade and the entry point, nothing else (issue 41)
ROOT_MODULES = {"__init__", "__main__", "_version", "api", "errors"}


def loose_root_modules(root: Path = ROOT) -> list[str]:
    """The modules at the package root beyond :data:`ROOT_MODULES`."""
    return sorted(p.stem for p in root.glob("*.py") if p.stem not in ROOT_MODULES)


def test_only_the_facade_lives_at_the_root():
    """Every other module lives in a package named for what it is about (docs/architecture.md)."""
    assert (ROOT / "api.py").is_file()  # the walk looked at the real root
    assert loose_root_modules() == []


def test_the_root_check_finds_a_loose_module(tmp_path):
    pkg = tmp_path / "mcplock"
    (pkg / "lock").mkdir(parents=True)
    for name in (*ROOT_MODULES, "policy", "lock/spec"):
        (pkg / f"{name}.py").write_text("")
    assert loose_root_modules(pkg) == ["policy"]


def shadowed_names(root: Path = ROOT) -> list[str]:
    """``package.name`` of each function, class or variable a package's ``__init__`` defines under
    the name of one of its modules: the first import of that module rebinds the package's name to
    the module (``mcplock.packages.prepare`` the function would become the module)."""
    found = []
    for init in sorted(root.rglob("__init__.py")):
        pkg = init.parent
        modules = {p.stem for p in pkg.glob("*.py")} | {p.name for p in pkg.iterdir() if (p / "__init__.py").is_file()}
        for node in ast.parse(init.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            else:
                continue
            package = _module_name(init, root)[0]
            found += [f"{package}.{n}" for n in names if n in modules]
    return found


def test_no_package_name_is_a_module_of_it():
    assert shadowed_names() == []


def test_the_shadow_check_finds_one(tmp_path):
    pkg = tmp_path / "mcplock"
    (pkg / "packages").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "packages" / "__init__.py").write_text("def prepare():\n    pass\n\n\ndef pin():\n    pass\n")
    (pkg / "packages" / "prepare.py").write_text("")
    assert shadowed_names(pkg) == ["mcplock.packages.prepare"]


# --- module size ---------------------------------------------------------------------------------

MAX_LINES = 400
# Modules allowed over MAX_LINES: none since issue 41. An entry needs a reason a reviewer accepts;
# one that drops under the limit must leave.
OVER_MAX_LINES: set[str] = set()


def long_modules(root: Path = ROOT, limit: int = MAX_LINES) -> dict[str, int]:
    """``mcplock/…`` path → line count of every module over ``limit`` lines."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        with path.open(encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > limit:
            out[path.relative_to(root.parent).as_posix()] = n
    return out


def test_no_module_is_over_400_lines():
    """A module a reader can hold: split by what each part decides (docs/architecture.md). The
    allowlist only shrinks: a module on it that is now short enough must leave it too."""
    over = long_modules()
    assert set(over) - OVER_MAX_LINES == set(), {k: v for k, v in over.items() if k not in OVER_MAX_LINES}
    assert OVER_MAX_LINES - set(over) == set(), "split: remove from OVER_MAX_LINES"


def test_the_size_check_finds_a_long_module(tmp_path):
    pkg = tmp_path / "mcplock"
    (pkg / "core").mkdir(parents=True)
    (pkg / "core" / "short.py").write_text("x = 1\n" * 400)
    (pkg / "core" / "long.py").write_text("x = 1\n" * 401)
    assert long_modules(pkg) == {"mcplock/core/long.py": 401}


# --- one server model ---------------------------------------------------------------------------


def shared_fields(*classes: type) -> set[str]:
    """The dataclass fields more than one of ``classes`` declares."""
    import dataclasses

    seen: dict[str, int] = defaultdict(int)
    for cls in classes:
        for f in dataclasses.fields(cls):
            seen[f.name] += 1
    return {name for name, n in seen.items() if n > 1}


def test_a_server_field_is_declared_once():
    """A lock entry's server is its spec (issue 41): name, client and client capabilities live in
    ``ServerSpec`` alone, and ``ServerEntry`` reads them there (so the two can never disagree)."""
    from mcplock.lock.model import ServerEntry
    from mcplock.lock.spec import ServerSpec

    assert shared_fields(ServerSpec, ServerEntry) == set()
    entry = ServerEntry("a", ServerSpec("b", transport="stdio", command="x"), client_capabilities=("roots",))
    assert (entry.name, entry.spec.name, entry.spec.client_capabilities) == ("a", "a", ("roots",))


def test_the_shared_field_check_finds_one():
    from dataclasses import dataclass

    @dataclass
    class A:
        name: str
        client: str | None = None

    @dataclass
    class B:
        name: str
        policy: str = "all"

    assert shared_fields(A, B) == {"name"}


# --- the guard's parts own their state ------------------------------------------------------

MUTATORS = {
    "append",
    "extend",
    "insert",
    "pop",
    "popitem",
    "clear",
    "update",
    "setdefault",
    "add",
    "discard",
    "remove",
    "sort",
    "reverse",
    "__setitem__",
    "__delitem__",
}
# (module, the object written): why that write through a second attribute is the writer's own business
OWN_WRITES = {
    ("mcplock.guard.guard", "self.host"): "the HostState the Guard holds and alone writes (its parts read it)",
    ("mcplock.guard.upstream", "conn.state"): "the Connection protocol's fields its holder sets (`state.step`)",
    ("mcplock.guard.upstream", "self.conn"): "the Connection protocol's fields its holder sets (`tools`)",
    ("mcplock.guard.hostio", "self._transport"): "asyncio's read transport, created here (its max_size)",
}


def _chain(node: ast.AST) -> tuple[str | None, list[str]]:
    hops: list[str] = []
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Attribute):
            hops.append(node.attr)
        node = node.value
    return (node.id if isinstance(node, ast.Name) else None), hops[::-1]


def foreign_writes(root: Path = ROOT) -> list[str]:
    """``module:line target`` of each write in ``mcplock/guard/`` that goes through a
    collaborator into another object's state (see the module docstring)."""
    found: list[tuple[str, int, str]] = []
    for path in sorted((root / "guard").rglob("*.py")):
        module, _ = _module_name(path, root)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Assign | ast.Delete):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                targets = [ast.Subscript(node.func.value, ast.Constant(None))]  # mutating the object the call is on
            else:
                continue
            for target in [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]:
                name, hops = _chain(target)
                if name is None or not hops or (len(hops) < 2 and name != "guard"):
                    continue  # a local, `self.x = …`, `self.x[k] = …`, `held.rid = …`
                # the object written: a field's holder, a container itself
                owner = ".".join([name, *(hops[:-1] if isinstance(target, ast.Attribute) else hops)])
                if any(m == module and (owner == o or owner.startswith(o + ".")) for m, o in OWN_WRITES):
                    continue
                found.append((module, node.lineno, ast.unparse(target)))
    return [f"{m}:{line} {what}" for m, line, what in sorted(found)]


def test_no_guard_part_writes_another_parts_state():
    assert not foreign_writes()


def test_no_guard_part_holds_the_guard():
    holders = sorted(
        t
        for path in (ROOT / "guard").glob("*.py")
        if path.stem not in ("guard", "__init__")
        for t in imported_by_file(path)
        if t.startswith("mcplock.guard.guard")
    )
    assert not holders, holders


def imported_by_file(path: Path, root: Path = ROOT) -> set[str]:
    module, is_package = _module_name(path, root)
    return {
        t
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        for t in _imported(node, module, is_package)
    }


def test_the_foreign_write_check_sees_writes_through_a_collaborator(tmp_path):
    pkg = tmp_path / "mcplock"
    (pkg / "guard").mkdir(parents=True)
    (pkg / "guard" / "part.py").write_text(
        "class P:\n"
        "    def f(self, guard, held):\n"
        "        self.calls[1] = 2\n"  # its own
        "        self.n += 1\n"
        "        held.rid = 3\n"  # a local's field
        "        self.guard.waiting[1] = 2\n"
        "        self.guard.view = None\n"
        "        guard.modern.states.pop(1)\n"
        "        guard.said = 1\n"
        "        del self.up.forwarded[1]\n"
    )
    assert foreign_writes(pkg) == [
        "mcplock.guard.part:6 self.guard.waiting[1]",
        "mcplock.guard.part:7 self.guard.view",
        "mcplock.guard.part:8 guard.modern.states[None]",
        "mcplock.guard.part:9 guard.said",
        "mcplock.guard.part:10 self.up.forwarded[1]",
    ]


# --- transports by name ---------------------------------------------------------------------------

_TRANSPORT_NAMES = {"stdio", "http", "sse"}


def _names_a_transport(node: ast.expr) -> bool:
    """``x.transport``, a variable called ``transport``, or ``getattr(x, "transport", …)``."""
    if isinstance(node, ast.Attribute):
        return node.attr == "transport"
    if isinstance(node, ast.Name):
        return node.id == "transport"
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and node.args[1].value == "transport"
    )


def transport_literals(root: Path = ROOT) -> list[str]:
    """Every comparison of a transport with a string literal (``spec.transport == "stdio"``)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "transports.py" and path.parent == root / "model":
            continue  # where the names are defined
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            literal = any(isinstance(s, ast.Constant) and s.value in _TRANSPORT_NAMES for s in sides)
            if literal and any(_names_a_transport(s) for s in sides):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


def test_a_transport_is_compared_as_the_type_never_as_a_string():
    """A transport is `mcplock.model.transports.Transport` everywhere (spec, probe, packages): adding one
    is a member there and its Connection, not a hunt for string literals."""
    assert transport_literals() == []


def test_the_transport_check_finds_a_string_comparison(tmp_path):
    pkg = tmp_path / "mcplock"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        'def f(spec, launch):\n    return spec.transport == "stdio" or getattr(launch, "transport", None) != "sse"\n',
        encoding="utf-8",
    )
    assert transport_literals(pkg) == ["mcplock/m.py:2", "mcplock/m.py:2"]  # both comparisons
