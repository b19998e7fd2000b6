"""Bridges to other libraries, reached from the families without importing them.

A noise family offers convenience methods (``noise.to_opendp()``) whose work is done by a bridge
module above it (`optmech.interop`), which imports the families and the certifiers. The family
may not import the bridge (the import graph runs one way), so the dependency is inverted: the
bridge module registers its function here when it is imported, and the family's method asks
``bridge`` for it. The one table ``PROVIDERS`` names the module that provides
each bridge; ``bridge`` imports it on first use (by name, through ``importlib``) if no
one has yet.

Examples
--------
>>> bridge("to_opendp").__module__  # imported from its provider on first use
'optmech.interop.opendp'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["PROVIDERS", "bridge", "register"]

#: The module that provides each bridge (and registers it on import).
PROVIDERS: dict[str, str] = {
    "to_opendp": "optmech.interop.opendp",
}

_REGISTRY: dict[str, Callable[..., Any]] = {}


def register(name: str, function: Callable[..., Any]) -> None:
    """Make ``function`` the bridge ``name`` (called by the providing module on import)."""
    _REGISTRY[name] = function


def bridge(name: str) -> Callable[..., Any]:
    """The bridge ``name``, importing its provider (``PROVIDERS``) on first use.

    Raises
    ------
    LookupError
        No provider is known for ``name``, or it registered nothing.
    """
    if name not in _REGISTRY and name in PROVIDERS:
        importlib.import_module(PROVIDERS[name])
    try:
        return _REGISTRY[name]
    except KeyError:
        raise LookupError(
            f"no bridge {name!r} is registered; known providers: {sorted(PROVIDERS)}."
        ) from None
