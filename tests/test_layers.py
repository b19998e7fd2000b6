"""The import graph runs one way, from the code's own imports (module level and inside functions).

Each top-level package of optmech may import only from its own layer or below; no module takes
part in an import circle. ``optmech/__init__.py`` is exempt (it re-exports the public names
lazily). Imports are read from the syntax tree, so an import inside a function counts as much as
one at the top: deferring an import hides a dependency, it does not remove it. (A module's
import of a package it lives in is not an edge: that package is initialised already.)
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

import optmech

PACKAGE = Path(optmech.__file__).parent

#: Bottom to top. A top-level package (or module) of layer k may import from layers 1..k.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "_floats",
        "_scipy",
        "_deprecation",
        "_bridges",
        "exceptions",
        "_validation",
        "privacy",
        "costs",
        "graphs",
        "_display",
        "provenance",
        "results",  # the LP results' interface, on provenance
        "constraints",
        "utilities",
        "plotting",  # imports numpy and matplotlib only
    ),
    ("mechanisms",),
    ("certify",),
    ("accounting", "interop"),
    ("lp",),
    ("theorems", "experiments", "sweep"),
    ("cli", "__main__"),
)
LAYER_OF = {name: k for k, names in enumerate(LAYERS) for name in names}

#: Top-level packages whose modules are checked for import circles: all of them.
CIRCLE_FREE = tuple(name for names in LAYERS for name in names)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The optmech modules ``path`` imports anywhere in its code (the most specific one that
    exists for each ``from a.b import c``: ``a.b.c`` when it is a module, else ``a.b``)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            subs = {f"{base}.{alias.name}" for alias in node.names} & modules
            found.update(subs or {base})
    # A module importing a package it lives in (``import optmech.theorems`` inside
    # optmech.theorems.catalogue) finds it initialised already: not an edge of the graph.
    return {
        m
        for m in found
        if m.split(".")[0] == "optmech" and m != name and not name.startswith(m + ".")
    }


@functools.cache
def _graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(f) for f in files}
    return {_module_name(f): _imports(f, modules) for f in files}


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_top_level_package_has_a_layer() -> None:
    tops = {_top(m) for m in _graph()} - {""}
    assert tops <= set(LAYER_OF), sorted(tops - set(LAYER_OF))


def test_each_package_imports_only_from_its_layer_or_below() -> None:
    upward = [
        f"{source} -> {target}"
        for source, targets in _graph().items()
        if source != "optmech"
        for target in targets
        if _top(target) and LAYER_OF[_top(target)] > LAYER_OF[_top(source)]
    ]
    assert upward == []


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("package", CIRCLE_FREE)
def test_no_module_is_in_an_import_circle(package: str) -> None:
    graph = {m: t - {"optmech"} for m, t in _graph().items() if m != "optmech"}
    mine = [c for c in _circles(graph) if any(_top(m) == package for m in c)]
    assert mine == []


def test_the_circle_finder_finds_a_circle() -> None:
    """The check above can fail: two modules importing each other form one circle."""
    assert _circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]


# -- inside lp/ ----------------------------------------------------------------------------------
#: The parts of ``optmech.lp`` (a module's first name below ``lp``), bottom to top: a part may
#: import from its own tier or below. The solver door and the engine's steps at the bottom, the
#: matrix pieces the user and local designers share above them, then the designers, then the
#: dispatcher and the models built on a designer's LP.
LP_TIERS: tuple[tuple[str, ...], ...] = (
    ("solve", "limits", "solver_output", "engine", "bounds", "incremental"),
    ("matrix",),
    ("additive", "additive2d", "user", "local", "shuffle"),
    ("remap", "geometric_remaps", "remap_of_geometric", "dependent", "dependent_result", "design"),
)
LP_TIER_OF = {name: k for k, names in enumerate(LP_TIERS) for name in names}
#: The designers: none imports another.
LP_DESIGNERS = LP_TIERS[2]
#: Deprecated aliases that read a name from above on purpose (``optmech.lp.additive.design_noise``
#: reads the dispatcher, with a DeprecationWarning).
LP_ALIASES = frozenset({("optmech.lp.additive", "optmech.lp.design")})


def _lp_part(module: str) -> str:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "lp" else ""


def _lp_arrows_up(graph: dict[str, set[str]]) -> list[str]:
    """Imports inside ``optmech.lp`` from a higher tier, or between two designers."""
    bad = []
    for source, targets in graph.items():
        a = _lp_part(source)
        for target in targets:
            b = _lp_part(target)
            if not a or not b or a == b or (source, target) in LP_ALIASES:
                continue
            if LP_TIER_OF[b] > LP_TIER_OF[a]:
                bad.append(f"{source} -> {target} (up)")
            elif a in LP_DESIGNERS and b in LP_DESIGNERS:
                bad.append(f"{source} -> {target} (designer to designer)")
    return sorted(bad)


def test_every_part_of_lp_has_a_tier() -> None:
    parts = {_lp_part(m) for m in _graph()} - {""}
    assert parts <= set(LP_TIER_OF), sorted(parts - set(LP_TIER_OF))


def test_inside_lp_imports_run_down_and_designers_import_no_other_designer() -> None:
    assert _lp_arrows_up(_graph()) == []


def test_the_lp_check_can_fail() -> None:
    """An engine step importing a designer, a designer importing another, the matrix pieces
    importing the local designer: each is caught."""
    graph = {
        "optmech.lp.engine.run": {"optmech.lp.user.api"},
        "optmech.lp.user.constrained": {"optmech.lp.local.engine", "optmech.lp.matrix.rows"},
        "optmech.lp.matrix.result": {"optmech.lp.local.result", "optmech.lp.solve"},
    }
    assert _lp_arrows_up(graph) == [
        "optmech.lp.engine.run -> optmech.lp.user.api (up)",
        "optmech.lp.matrix.result -> optmech.lp.local.result (up)",
        "optmech.lp.user.constrained -> optmech.lp.local.engine (designer to designer)",
    ]


ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"


def _page_layers(text: str) -> tuple[tuple[str, ...], ...]:
    """The layer table of the architecture page, bottom to top: rows ``| k | `a`, `b` |``."""
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", text, flags=re.M)
    by_number = {int(k): tuple(re.findall(r"`([\w.]+)`", names)) for k, names in rows}
    return tuple(by_number[k] for k in sorted(by_number))


def test_the_architecture_page_states_the_layers_enforced_here() -> None:
    assert _page_layers(ARCHITECTURE.read_text(encoding="utf-8")) == LAYERS


def _parts_of_the_package() -> list[str]:
    """Every top-level module and every (sub)package of optmech, as the page names them:
    ``privacy.py``, ``lp/``, ``lp/engine/`` (``__init__.py`` is the package itself)."""
    modules = [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    packages = [
        f"{p.parent.relative_to(PACKAGE).as_posix()}/"
        for p in PACKAGE.rglob("__init__.py")
        if p.parent != PACKAGE
    ]
    return sorted(modules + packages)


def _unnamed(text: str) -> list[str]:
    """The parts of the package that have no entry (``**`part`**``) on the page ``text``."""
    return [part for part in _parts_of_the_package() if f"**`{part}`**" not in text]


def _page_lp_tiers(text: str) -> tuple[tuple[str, ...], ...]:
    """The table of the parts of ``lp/``, bottom to top: rows ``| lp k | `a`, `b` |``."""
    rows = re.findall(r"^\| lp (\d+) \| (.+) \|$", text, flags=re.M)
    by_number = {int(k): tuple(re.findall(r"`([\w.]+)`", names)) for k, names in rows}
    return tuple(by_number[k] for k in sorted(by_number))


def test_the_architecture_page_states_the_lp_tiers_enforced_here() -> None:
    assert _page_lp_tiers(ARCHITECTURE.read_text(encoding="utf-8")) == LP_TIERS


def test_the_architecture_page_has_a_sentence_on_every_package() -> None:
    """A module or package added to optmech without an entry on the page fails here."""
    assert _unnamed(ARCHITECTURE.read_text(encoding="utf-8")) == []


def test_the_page_checks_can_fail() -> None:
    """A page that omits a package, or swaps two layers, is caught."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert _unnamed(text.replace("**`lp/engine/`**", "`lp/engine/`")) == ["lp/engine/"]
    swapped = text.replace("| 3 | `certify` |", "| 3 | `mechanisms` |").replace(
        "| 2 | `mechanisms` |", "| 2 | `certify` |"
    )
    assert _page_layers(swapped) != LAYERS


# -- the solver door -----------------------------------------------------------------------------
#: The functions of ``optmech.lp.solve`` that run a solver: only ``optmech.lp.engine`` calls them
#: (its certified loop, `optmech.lp.engine.certified`); types and the policy (``SolveInfo``,
#: ``Strategy``, ``ProblemKind``, ``MAIN_SOLVERS``, ...) may be imported anywhere below the rule
#: of the layers.
SOLVER_DOOR = frozenset({"solve", "solve_robust", "_run_solver"})
#: Modules still calling the solver door themselves, pending their conversion to the certified
#: loop; the set only shrinks.
_PENDING: frozenset[str] = frozenset()


def _door_calls(path: Path) -> list[str]:
    """The solver-door names ``path`` imports from ``optmech.lp.solve`` (or the module itself)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "optmech.lp.solve":
            found += [a.name for a in node.names if a.name in SOLVER_DOOR or a.name == "*"]
        elif isinstance(node, ast.ImportFrom) and node.module == "optmech.lp":
            found += [f"optmech.lp.{a.name}" for a in node.names if a.name == "solve"]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name == "optmech.lp.solve"]
    return found


def _door_users(files: list[Path]) -> dict[str, list[str]]:
    """Modules outside ``optmech.lp.engine`` (and the door itself) that call the solver door."""
    users = {}
    for path in files:
        name = _module_name(path)
        if name == "optmech.lp.solve" or name.startswith("optmech.lp.engine"):
            continue
        if found := _door_calls(path):
            users[name] = found
    return users


def test_only_the_engine_calls_the_solver_door() -> None:
    users = _door_users(sorted(PACKAGE.rglob("*.py")))
    assert sorted(set(users) - _PENDING) == [], users
    assert sorted(_PENDING - set(users)) == [], "converted: remove from _PENDING"


def test_the_door_names_exist() -> None:
    """Every name the door check looks for is a function of ``optmech.lp.solve``, so a renamed
    or folded function cannot leave the check looking for nothing."""
    import inspect

    import optmech.lp.solve as door

    assert all(inspect.isfunction(getattr(door, name, None)) for name in SOLVER_DOOR)


def test_the_door_check_can_fail(tmp_path: Path) -> None:
    """A designer importing ``solve_robust`` is caught; one importing only types is not."""
    bad = tmp_path / "bad.py"
    bad.write_text("from optmech.lp.solve import SolveInfo, solve_robust\n", encoding="utf-8")
    good = tmp_path / "good.py"
    good.write_text("from optmech.lp.solve import SolveInfo, Strategy\n", encoding="utf-8")
    assert _door_calls(bad) == ["solve_robust"] and _door_calls(good) == []
