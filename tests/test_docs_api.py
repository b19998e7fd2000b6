"""The API reference documents exactly the public names, and their docstrings read well in
``help()``: no site-only cross-reference syntax, no reST literal-block markers, an example for
every public function and class."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

import optmech

ROOT = Path(__file__).resolve().parents[1]

#: The subpackages whose ``__all__`` is public API (besides ``optmech.__all__`` itself): the
#: modules ``optmech.__all__`` exports, and the families and sweeps the guides use by path.
PUBLIC_PACKAGES = (
    "optmech.accounting",
    "optmech.certify",
    "optmech.constraints",
    "optmech.costs",
    "optmech.experiments",
    "optmech.graphs",
    "optmech.interop",
    "optmech.mechanisms",
    "optmech.sweep",
    "optmech.utilities",
)


def public_names() -> dict[str, object]:
    """Every public dotted name and the object it names, read from the ``__all__`` lists by
    import (``__version__`` aside)."""
    names: dict[str, object] = {"optmech": optmech}
    for name in optmech.__all__:
        if name != "__version__":
            names[f"optmech.{name}"] = getattr(optmech, name)
    for package in PUBLIC_PACKAGES:
        module = importlib.import_module(package)
        names[package] = module
        for name in module.__all__:
            names[f"{package}.{name}"] = getattr(module, name)
    return names


def api_pages() -> list[Path]:
    return [ROOT / "docs" / "api.md", *sorted((ROOT / "docs" / "api").glob("*.md"))]


def documented_names() -> list[str]:
    """The identifiers of the ``::: name`` directives of the API pages, in page order."""
    found = []
    for page in api_pages():
        found += re.findall(r"^:::\s+(\S+)\s*$", page.read_text(encoding="utf-8"), flags=re.M)
    return found


def test_public_packages_are_those_the_package_exports() -> None:
    """Each module ``optmech.__all__`` names is in PUBLIC_PACKAGES (a new one is noticed)."""
    exported = {name: getattr(optmech, name) for name in optmech.__all__}
    modules = {f"optmech.{n}" for n, obj in exported.items() if isinstance(obj, ModuleType)}
    assert modules <= set(PUBLIC_PACKAGES)


def test_api_pages_document_exactly_the_public_names() -> None:
    """Each directive names a public name; each public object is documented, once (two
    public names of one object, ``optmech.check`` and ``optmech.certify.check``, share it)."""
    public = public_names()
    documented = documented_names()
    assert len(api_pages()) >= 9
    assert [name for name in documented if name not in public] == []
    assert sorted(documented) == sorted(set(documented)), "a name is documented twice"
    objects = [id(public[name]) for name in documented]
    assert len(objects) == len(set(objects)), "an object is documented under two names"
    missing = sorted(name for name, obj in public.items() if id(obj) not in set(objects))
    assert missing == [], "public names without a page (add a `::: name` to docs/api/*.md)"


def _public_objects() -> dict[str, object]:
    """One name per public object, and the public methods and properties of the public
    classes that optmech defines."""
    seen: dict[int, str] = {}
    found: dict[str, object] = {}
    for name, obj in public_names().items():
        if id(obj) in seen:
            continue
        seen[id(obj)] = name
        found[name] = obj
        if inspect.isclass(obj) and obj.__module__.startswith("optmech"):
            for member, value in vars(obj).items():
                if not member.startswith("_") and (callable(value) or isinstance(value, property)):
                    found[f"{name}.{member}"] = getattr(obj, member, value)
    return found


#: The cross-reference syntax of mkdocs-autorefs, ``[`X`][path]``: the site adds the links.
_CROSSREF = re.compile(r"\[`[^`]+`\]\[[\w.]*\]")
#: A reST literal block marker, a line ending in ``::``.
_REST_LITERAL = re.compile(r"::[ \t]*$", flags=re.M)


def test_docstrings_print_without_site_markup() -> None:
    """``help()`` of a public name shows plain backticked names, not the site's link syntax,
    and no reST ``::`` marker (Markdown shows it literally)."""
    bad = []
    for name, obj in _public_objects().items():
        doc = inspect.getdoc(obj) or ""
        if _CROSSREF.search(doc):
            bad.append(f"{name}: cross-reference {_CROSSREF.search(doc)[0]!r}")  # type: ignore[index]
        if _REST_LITERAL.search(doc):
            bad.append(f"{name}: reST literal block")
    assert bad == []


def _lacks_examples(obj: object) -> bool:
    doc = inspect.getdoc(obj) or ""
    return re.search(r"^Examples\n-{8,}$", doc, flags=re.M) is None or ">>> " not in doc


def test_every_public_function_and_class_has_examples() -> None:
    """Each public function and class has a numpydoc ``Examples`` section (the doctests of
    ``optmech/`` run it)."""
    public = public_names()
    functions = {n: o for n, o in public.items() if inspect.isfunction(o)}
    classes = {n: o for n, o in public.items() if inspect.isclass(o)}
    assert len(functions) > 50 and len(classes) > 50
    missing = sorted(n for n, o in {**functions, **classes}.items() if _lacks_examples(o))
    assert missing == []


@pytest.mark.parametrize("name", ["optmech.design_noise", "optmech.certify.check"])
def test_help_text_is_plain(name: str) -> None:
    """The text ``help()`` prints names objects in backticks."""
    obj = public_names()[name]
    text = inspect.getdoc(obj) or ""
    assert "`" in text and "][" not in text


def test_no_rest_literal_blocks_in_the_package() -> None:
    """No docstring of the package opens a reST literal block with ``::`` (Markdown shows the
    marker; an indented block after a colon is already code). The command modules are exempt:
    their ``Examples::`` line is the marker the CLI's help parser reads."""
    found = []
    for path in sorted((ROOT / "optmech").rglob("*.py")):
        if "cli" in path.relative_to(ROOT / "optmech").parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"[^:\s]::\s*$", line):
                found.append(f"{path.relative_to(ROOT)}:{number}")
    assert found == []
