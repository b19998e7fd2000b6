"""Public names of a package imported on first use (PEP 562).

A package lists, per module, the names it re-exports; [`lazy_exports`][lazy_exports] returns the
package's ``__getattr__`` and ``__dir__``. Importing the package then loads none of
those modules: a user of one family or one certifier does not pay for the others (nor for
networkx, cvxpy or matplotlib behind them). Type checkers and IDEs see the same names through an
``if TYPE_CHECKING:`` block of ordinary imports in the package.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, tuple[str, ...]], public: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` re-exporting ``exports``.

    Parameters
    ----------
    package
        The package's ``__name__``.
    exports
        Module name → the public names taken from it. The key ``""`` lists submodules of the
        package itself, exported under their own names.
    public
        The package's ``__all__``: what ``dir(package)`` lists.

    Examples
    --------
    >>> getattr_, dir_ = lazy_exports("json", {"json.decoder": ("JSONDecodeError",)}, [])
    >>> getattr_("JSONDecodeError").__name__
    'JSONDecodeError'
    """
    origin = {
        name: module or f"{package}.{name}" for module, names in exports.items() for name in names
    }

    def __getattr__(name: str) -> Any:
        """Import a public name on first use and keep it in the package's namespace."""
        module = origin.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(module)
        value = loaded if module == f"{package}.{name}" else getattr(loaded, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        """The public names only (those of ``__all__``), not the package's helpers."""
        return list(public)

    return __getattr__, __dir__
