"""Deprecated: this module's parts moved to the homes of their roles.

* ``design_noise`` — [`optmech.design_noise`][optmech.lp.design.design_noise] (the dispatcher
  above the 1-D, beyond-(ε, δ) and 2-D designers);
* ``finish_design`` — [`optmech.lp.additive.designer`][optmech.lp.additive.designer];
* ``PRIVACY_RTOL``, ``PRIVACY_ATOL``, ``within_privacy`` —
  [`optmech.lp.engine.acceptance`][optmech.lp.engine.acceptance];
* ``design_provenance`` — [`optmech.lp.engine.record`][optmech.lp.engine.record];
* ``STAIRCASE_WARN_RATIO``, ``CoarseGridWarning``, ``warn_about`` —
  [`optmech.lp.additive.diagnostics`][optmech.lp.additive.diagnostics];
* ``slack`` — [`optmech.lp.additive.repair`][optmech.lp.additive.repair].

The names still resolve here for one release, each with a `DeprecationWarning` naming its new
home.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from optmech._deprecation import warn_deprecated
from optmech.lp.additive import designer, diagnostics, repair
from optmech.lp.engine import acceptance, record

_HOMES: dict[str, ModuleType] = {
    "finish_design": designer,
    "PRIVACY_RTOL": acceptance,
    "PRIVACY_ATOL": acceptance,
    "within_privacy": acceptance,
    "design_provenance": record,
    "STAIRCASE_WARN_RATIO": diagnostics,
    "CoarseGridWarning": diagnostics,
    "warn_about": diagnostics,
    "slack": repair,
}


def __getattr__(name: str) -> Any:
    """Each old name, from its new home, with a `DeprecationWarning` (PEP 562)."""
    if name == "design_noise":
        from optmech.lp import design as dispatch

        warn_deprecated("`optmech.lp.additive.design.design_noise`", "`optmech.design_noise`")
        return dispatch.design_noise
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'optmech.lp.additive.design' has no attribute {name!r}")
    warn_deprecated(f"`optmech.lp.additive.design.{name}`", f"`{home.__name__}.{name}`")
    return getattr(home, name)
