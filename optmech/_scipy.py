"""SciPy's subpackages, imported on first use rather than with optmech's modules.

``from scipy import special`` costs more than everything else the closed forms load (SciPy's
array-API layer comes with it), and ``integrate`` and ``optimize`` more again; a closed-form
command such as ``optmech staircase --epsilon 1`` calls few of them or none. Modules write
``from optmech._scipy import special`` and use ``special.gammaln`` as before: the first
attribute read imports the subpackage. Type checkers see the real modules.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

__all__ = ["integrate", "linalg", "optimize", "special", "stats"]


class _OnFirstUse:
    """A stand-in for a module that imports it on the first attribute read."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        module: ModuleType = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<{self._name}, imported on first use>"


if TYPE_CHECKING:
    from scipy import integrate, linalg, optimize, special, stats
else:
    integrate = _OnFirstUse("scipy.integrate")
    linalg = _OnFirstUse("scipy.linalg")
    optimize = _OnFirstUse("scipy.optimize")
    special = _OnFirstUse("scipy.special")
    stats = _OnFirstUse("scipy.stats")
