"""Griffe extension of the site: a backticked name in a docstring links to its documentation.

Docstrings write plain code spans, `` `Provenance` `` or `` `optmech.certify.check` ``, which
``help()`` prints as they are. When mkdocstrings loads the package, this extension resolves each
span that is a dotted name in the scope of the docstring's object (its members, its module's
names and imports, then the public names of the package) and wraps it in an *optional*
mkdocs-autorefs reference: it becomes a link when the object is documented on the site, and
stays plain code otherwise (an internal helper has no page). Code in examples (``>>>`` lines and
fenced blocks) is left alone.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import griffe

#: A reference in mkdocs-autorefs' syntax, ``[`title`][identifier]`` (empty: the title's text).
_REF = re.compile(r"\[(`[^`]+`)\]\[([^\]`]*)\]")
#: A code span, single or double backticks, whose text is a dotted Python name, optionally called.
_SPAN = re.compile(r"(?<![`\[])(``?)([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(\(\))?\1(?![`\]])")

#: The subpackages whose ``__all__`` is public, besides the package's own.
PUBLIC_MODULES = (
    "optmech",
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


def _canonical(root: griffe.Module, path: str) -> str | None:
    """The canonical path of the object at ``path``, or None if griffe cannot reach it."""
    try:
        return str(root.modules_collection[path].canonical_path)
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


class BacktickCrossrefs(griffe.Extension):
    """Wrap the code spans of every docstring of the package that name an object in an optional
    cross-reference (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name != "optmech":
            return
        public: dict[str, str | None] = {}
        for module_path in PUBLIC_MODULES:
            for name in importlib.import_module(module_path).__all__:
                target = _canonical(pkg, f"{module_path}.{name}")
                # A short name two public objects share (``Custom``, ``check``) stays unlinked
                # unless the docstring's own scope decides.
                public[name] = target if public.get(name, target) == target else None
        self._public = public
        self._root = pkg
        self._walk(pkg)

    def _walk(self, obj: griffe.Object) -> None:
        if obj.docstring is not None:
            obj.docstring.value = self._link(obj, obj.docstring.value)
        for member in obj.members.values():
            if not member.is_alias and member.parent is obj:
                self._walk(member)  # type: ignore[arg-type]

    def _target(self, obj: griffe.Object, name: str) -> str | None:
        if name.startswith("optmech."):
            return _canonical(self._root, name)
        head, _, rest = name.partition(".")
        try:
            scoped = obj.resolve(head)
        except griffe.NameResolutionError:
            scoped = None
        if scoped is not None and scoped.startswith("optmech"):
            target = _canonical(self._root, f"{scoped}.{rest}" if rest else scoped)
            if target is not None:
                return target
        found = self._public.get(head)
        if found is None:
            return None
        return _canonical(self._root, f"{found}.{rest}") if rest else found

    def _link(self, obj: griffe.Object, text: str) -> str:
        out: list[str] = []
        fenced = False
        for paragraph in re.split(r"(\n\s*\n)", text):
            lines = paragraph.splitlines()
            if any(line.lstrip().startswith("```") for line in lines):
                fenced ^= sum(line.lstrip().startswith("```") for line in lines) % 2 == 1
                out.append(paragraph)
                continue
            if fenced or any(line.lstrip().startswith(">>>") for line in lines):
                out.append(paragraph)
                continue
            out.append(self._link_paragraph(obj, paragraph))
        return "".join(out)

    def _link_paragraph(self, obj: griffe.Object, paragraph: str) -> str:
        # A reference written for the site (help() shows it raw: the docstrings use plain
        # spans) is made optional too, so that one to an undocumented helper is no error.
        protected: list[str] = []

        def keep(m: re.Match[str]) -> str:
            name = m[2].strip() or m[1].strip("`")
            target = self._target(obj, name.removesuffix("()"))
            link = f'<autoref identifier="{target}" optional>{m[1]}</autoref>'
            protected.append(m[1] if target is None else link)
            return f"\x00{len(protected) - 1}\x00"

        paragraph = _REF.sub(keep, paragraph)
        paragraph = _SPAN.sub(lambda m: self._wrap(obj, m), paragraph)
        return re.sub("\x00(\\d+)\x00", lambda m: protected[int(m[1])], paragraph)

    def _wrap(self, obj: griffe.Object, match: re.Match[str]) -> str:
        target = self._target(obj, match[2])
        if target is None:
            return match[0]
        return f'<autoref identifier="{target}" optional>{match[0]}</autoref>'
