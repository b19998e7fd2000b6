"""The theorem catalogue: named numerical checks, each returning :class:`CheckResult` rows.

A check is a function with no arguments that builds an instance, computes a value (an LP
optimum, a numerical minimum, a quadrature), compares it with an independent reference (a
closed form from the papers) and returns one row per instance. Checks register themselves with
:func:`check`; :func:`run_checks` runs them for ``optmech verify``. Modules of
:mod:`optmech.theorems` are imported by :func:`load_all`, so a new module of checks needs no
edit anywhere else.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "Check",
    "CheckResult",
    "check",
    "compare",
    "load_all",
    "registered_checks",
    "relative_gap",
    "run_checks",
    "select_checks",
]


@dataclass(frozen=True)
class CheckResult:
    """One row of ``optmech verify``.

    Attributes
    ----------
    check : str
        The theorem or property checked, e.g. ``"staircase γ* (|e|)"``.
    instance : str
        Its parameters, e.g. ``"eps=1, D=1"``.
    value : float
        What optmech computed (LP optimum, numerical minimiser, quadrature, ...).
    reference : float
        The independent reference (closed form from the paper, another method).
    gap : float
        ``|value − reference| / max(|reference|, 1e-300)``, or the absolute gap when the
        reference is 0 (then :attr:`gap_kind` is ``"abs"``).
    tolerance : float
        The largest gap accepted, and why is in :attr:`detail`.
    passed : bool
        Whether the check holds.
    certified_epsilon, certified_delta : float or None
        Achieved privacy of the mechanism involved, computed independently, when any.
    seconds : float
        Wall time of the row.
    detail : str
        Free text: tolerance justification, counter-examples, notes.
    group : str
        Catalogue section (``"closed-form"``, ``"additive-lp"``, ``"count-lp"``).
    gap_kind : str
        ``"rel"`` or ``"abs"``.
    rule : str
        The pass rule when it is not ``gap ≤ tolerance``: one-sided bounds (``"value ≥ ref"``),
        negative results that must *exceed* the reference (``"value > ref"``), or several
        conditions (``"see detail"``). Empty for the default rule.
    """

    check: str
    instance: str
    value: float
    reference: float
    gap: float
    tolerance: float
    passed: bool
    certified_epsilon: float | None = None
    certified_delta: float | None = None
    seconds: float = 0.0
    detail: str = ""
    group: str = ""
    gap_kind: str = "rel"
    rule: str = ""

    @property
    def pass_rule(self) -> str:
        """When the row passes: ``gap ≤ tol`` unless the check states another rule."""
        return self.rule or f"gap ≤ {self.tolerance:.3g}"

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON (non-finite floats become strings)."""
        out = asdict(self)
        out["pass_rule"] = self.pass_rule
        for key, val in out.items():
            if isinstance(val, float) and not math.isfinite(val):
                out[key] = str(val)
        return out


def relative_gap(value: float, reference: float) -> float:
    """``|value − reference| / |reference|`` (absolute gap when the reference is 0)."""
    if reference == 0:
        return abs(value)
    return abs(value - reference) / abs(reference)


def compare(
    check: str,
    instance: str,
    value: float,
    reference: float,
    tolerance: float,
    *,
    group: str = "",
    detail: str = "",
    one_sided: bool = False,
    **extra: Any,
) -> CheckResult:
    """Build a :class:`CheckResult` from a value, a reference and a relative tolerance.

    With ``one_sided=True`` the check passes when ``value ≥ reference·(1 − tolerance)``
    (an upper bound that must not undercut the reference), whatever the gap above.
    """
    gap = relative_gap(value, reference)
    ok = math.isfinite(value) and (
        value >= reference - tolerance * abs(reference) if one_sided else gap <= tolerance
    )
    if one_sided:
        extra.setdefault("rule", "value ≥ ref")
    return CheckResult(
        check=check,
        instance=instance,
        value=float(value),
        reference=float(reference),
        gap=gap,
        tolerance=tolerance,
        passed=bool(ok),
        group=group,
        detail=detail,
        gap_kind="abs" if reference == 0 else "rel",
        **extra,
    )


@dataclass(frozen=True)
class Check:
    """A registered check: name, catalogue section, whether ``--quick`` runs it, the function."""

    name: str
    group: str
    quick: bool
    run: Callable[[], list[CheckResult]] = field(repr=False)


_REGISTRY: dict[str, Check] = {}


def check(
    name: str, *, group: str, quick: bool = True
) -> Callable[[Callable[[], list[CheckResult]]], Callable[[], list[CheckResult]]]:
    """Decorator registering a check function under ``name``.

    Examples
    --------
    >>> @check("demo", group="closed-form", quick=False)
    ... def _demo():
    ...     return [compare("demo", "x=1", 1.0, 1.0, 1e-12)]
    >>> registered_checks()["demo"].group
    'closed-form'
    >>> _ = _REGISTRY.pop("demo")
    """

    def wrap(fn: Callable[[], list[CheckResult]]) -> Callable[[], list[CheckResult]]:
        if name in _REGISTRY and _REGISTRY[name].run is not fn:
            raise ValueError(f"a check named {name!r} is already registered")
        _REGISTRY[name] = Check(name=name, group=group, quick=quick, run=fn)
        return fn

    return wrap


def load_all() -> None:
    """Import every module of :mod:`optmech.theorems`, registering their checks."""
    import optmech.theorems as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{pkg.__name__}.{info.name}")


def registered_checks() -> dict[str, Check]:
    """All registered checks by name (after :func:`load_all`)."""
    return dict(_REGISTRY)


def select_checks(
    *,
    quick: bool = True,
    groups: list[str] | None = None,
    names: list[str] | None = None,
) -> list[Check]:
    """The registered checks a run would execute, in registration order."""
    load_all()
    return [
        chk
        for chk in _REGISTRY.values()
        if (not quick or chk.quick)
        and (not groups or chk.group in groups)
        and (not names or chk.name in names)
    ]


def run_checks(
    *,
    quick: bool = True,
    groups: list[str] | None = None,
    names: list[str] | None = None,
) -> Iterator[tuple[Check, list[CheckResult], float]]:
    """Run the catalogue, yielding ``(check, rows, seconds)`` as each check finishes.

    An exception inside a check becomes a failed row naming the exception: a broken check
    must fail loudly, not vanish from the table.
    """
    for chk in select_checks(quick=quick, groups=groups, names=names):
        start = time.perf_counter()
        try:
            rows = chk.run()
        except Exception as exc:  # reported as a failing row, never swallowed
            rows = [
                CheckResult(
                    check=chk.name,
                    instance="-",
                    value=math.nan,
                    reference=math.nan,
                    gap=math.inf,
                    tolerance=0.0,
                    passed=False,
                    group=chk.group,
                    detail=f"raised {type(exc).__name__}: {exc}",
                )
            ]
        yield chk, rows, time.perf_counter() - start
