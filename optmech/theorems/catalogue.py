"""The theorem catalogue: named numerical checks, each returning `CheckResult` rows.

A check is a function with no arguments that builds an instance, computes a value (an LP
optimum, a numerical minimum, a quadrature), compares it with an independent reference (a
closed form from the papers) and returns one row per instance. Checks register themselves with
`check`; `run_checks` runs them for ``optmech verify``. Modules of
`optmech.theorems` are imported by `load_all`, so a new module of
checks needs no edit anywhere else.

**Certificates decide, not tolerances.** A row built on an LP passes when the theorem's value
lies in the LP's certified interval ``[lower_bound, upper_bound]`` (a Lagrangian bound rounded
down, the objective at an exactly private point rounded up: `optmech.provenance.
Provenance`), widened only by a discretisation ``allowance`` derived in the row
(`certificate_row`); two LP optima that a theorem equates must have intersecting
intervals (`agreement_row`); a strict inequality is decided between certified ends
(`bound_row`). References are enclosed by outward rounding (ball arithmetic), so no
tolerance enters these rules. Rows without an LP behind them (a closed form against a
quadrature or a 1-D minimiser) keep a tolerance only where it is derived, and say how
(`compare`); integer and rational facts are compared exactly (`exact_row`).

The only number a certificate row requires beyond containment is that its interval be
*decisive*: at most ``accuracy`` wide (relative to ``max(|upper|, 1)``; the library's requested
accuracy `optmech.provenance.DEFAULT_ACCURACY`), so that an
uninformative interval (a missing multiplier gives ``-inf``) cannot pass a row vacuously.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import math
import pkgutil
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from optmech.provenance import DEFAULT_ACCURACY

__all__ = [
    "Check",
    "CheckResult",
    "agreement_row",
    "bound_row",
    "certificate_row",
    "check",
    "check_cases",
    "compare",
    "exact_row",
    "guarded",
    "load_all",
    "registered_checks",
    "relative_gap",
    "run_checks",
    "select_checks",
]

#: The kinds of pass rule a row can have (``CheckResult.kind``).
KINDS = ("certificate", "agreement", "bound", "tolerance", "exact")


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
        What optmech computed (the certified upper end of an LP, a minimiser, a quadrature).
    reference : float
        The independent reference (closed form from the paper, another method), rounded to
        nearest; its enclosure is `reference_low`,
        `reference_high`.
    gap : float
        ``|value − reference| / |reference|``, or the absolute gap when the reference is 0
        (then `gap_kind` is ``"abs"``). Informative only for certificate rows.
    tolerance : float
        The largest relative gap accepted by a ``tolerance`` row (derived, see `detail`);
        0 for the other kinds, whose rule does not use it.
    passed : bool
        Whether the check holds.
    certified_epsilon, certified_delta : float or None
        Achieved privacy of the mechanism involved, computed independently, when any.
    seconds : float
        Wall time of the row.
    detail : str
        Free text: derivations, intervals, counter-examples.
    group : str
        Catalogue section (``"closed-form"``, ``"additive-lp"``, ``"count-lp"``).
    gap_kind : str
        ``"rel"`` or ``"abs"``.
    rule : str
        Exactly what was tested, e.g. ``"lower ≤ ref ≤ upper; width ≤ 1e-06·max(|upper|, 1)"``.
    lower_bound, upper_bound : float or None
        The certified interval of an LP-backed value (``None`` for rows without one).
    allowance : float
        The discretisation bound the rule widens the reference by (derived in the row;
        0 where none).
    reference_low, reference_high : float or None
        Outward-rounded enclosure of the reference (``None``: the reference is a float).
    kind : str
        One of `KINDS`: how the row decides.
    exact : bool
        Whether the row was reproduced in exact (rational or ball) arithmetic.
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
    lower_bound: float | None = None
    upper_bound: float | None = None
    allowance: float = 0.0
    reference_low: float | None = None
    reference_high: float | None = None
    kind: str = "tolerance"
    exact: bool = False

    @property
    def pass_rule(self) -> str:
        """When the row passes (`rule`, or ``gap ≤ tol`` for a bare tolerance row)."""
        return self.rule or f"gap ≤ {self.tolerance:.3g}"

    @property
    def interval(self) -> str:
        """The certified interval as text (``-`` for rows without one)."""
        if self.lower_bound is None or self.upper_bound is None:
            return "-"
        return f"[{self.lower_bound:.10g}, {self.upper_bound:.10g}]"

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


def _result(
    check: str,
    instance: str,
    value: float,
    reference: float,
    passed: bool,
    *,
    interval: tuple[float, float] | None = None,
    reference_interval: tuple[float, float] | None = None,
    **fields: Any,
) -> CheckResult:
    """A row comparing ``value`` with ``reference``: the gap and its kind follow from them
    (relative, absolute at a zero reference); ``tolerance`` is 0 unless given. ``interval``
    and ``reference_interval`` fill ``lower_bound, upper_bound`` and ``reference_low,
    reference_high``."""
    fields.setdefault("tolerance", 0.0)
    if interval is not None:
        fields["lower_bound"], fields["upper_bound"] = (float(v) for v in interval)
    if reference_interval is not None:
        fields["reference_low"], fields["reference_high"] = (float(v) for v in reference_interval)
    return CheckResult(
        check=check,
        instance=instance,
        value=float(value),
        reference=float(reference),
        gap=relative_gap(float(value), float(reference)),
        passed=bool(passed),
        gap_kind="abs" if reference == 0 else "rel",
        **fields,
    )


def _enclosure(reference: float | tuple[float, float]) -> tuple[float, float, float]:
    """``(nearest, low, high)`` of a reference given as a float or an enclosure."""
    if isinstance(reference, tuple):
        low, high = (float(v) for v in reference)
        mid = 0.5 * (low + high) if math.isfinite(low + high) else low
        return mid, low, high
    ref = float(reference)
    return ref, ref, ref


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _decisive(lower: float, upper: float, accuracy: float) -> bool:
    return upper - lower <= accuracy * max(abs(upper), 1.0)


def certificate_row(
    check: str,
    instance: str,
    *,
    lower: float,
    upper: float,
    reference: float | tuple[float, float],
    allowance: float = 0.0,
    accuracy: float = DEFAULT_ACCURACY,
    group: str = "",
    detail: str = "",
    extra_ok: bool = True,
    extra_rule: str = "",
    **extra: Any,
) -> CheckResult:
    """A row deciding a theorem by an LP's certified interval.

    The theorem says the LP's optimum lies in ``[ref, ref + allowance]`` (``allowance`` = 0:
    it *is* ``ref``; an additive grid: between the continuous optimum and the cost of a
    staircase the grid can represent). The optimum also lies in ``[lower, upper]``, so the
    two are consistent iff ``lower ≤ ref_high + allowance`` and ``ref_low ≤ upper`` (the LP
    cannot beat the theorem). The interval must be decisive (module docstring).
    ``extra_ok``/``extra_rule`` add a further condition (e.g. a certified ε).
    """
    ref, ref_low, ref_high = _enclosure(reference)
    finite = all(math.isfinite(v) for v in (lower, upper, ref_low, ref_high, allowance))
    top = _up(ref_high + allowance) if allowance else ref_high
    contains = finite and lower <= top and ref_low <= upper
    decisive = finite and _decisive(lower, upper, accuracy)
    widen = " + allowance" if allowance else ""
    rule = f"lower ≤ ref{widen}, ref ≤ upper; width ≤ {accuracy:.0e}·max(|upper|, 1)"
    if extra_rule:
        rule += f"; {extra_rule}"
    why = []
    if not finite:
        why.append("no finite certificate")
    elif not contains:
        why.append("the reference lies outside the certified interval")
    elif not decisive:
        why.append("the interval is too wide to decide")
    if not extra_ok:
        why.append(f"failed: {extra_rule}")
    text = f"certified [{lower:.12g}, {upper:.12g}]; reference in [{ref_low:.12g}, {ref_high:.12g}]"
    if allowance:
        text += f"; allowance {allowance:.3g}"
    return _result(
        check,
        instance,
        upper,
        ref,
        contains and decisive and extra_ok,
        group=group,
        detail="; ".join(filter(None, [detail, text, *why])),
        rule=rule,
        interval=(lower, upper),
        reference_interval=(ref_low, ref_high),
        allowance=float(allowance),
        kind="certificate",
        **extra,
    )


def agreement_row(
    check: str,
    instance: str,
    *,
    first: tuple[float, float],
    second: tuple[float, float],
    accuracy: float = DEFAULT_ACCURACY,
    group: str = "",
    detail: str = "",
    **extra: Any,
) -> CheckResult:
    """Two LP optima that a theorem says are equal: their certified intervals must intersect.

    ``first`` is the row's own interval (``[lower_bound, upper_bound]``), ``second`` the
    reference's (``[reference_low, reference_high]``); both must be decisive.
    """
    (lo1, hi1), (lo2, hi2) = first, second
    finite = all(math.isfinite(v) for v in (lo1, hi1, lo2, hi2))
    meet = finite and lo1 <= hi2 and lo2 <= hi1
    decisive = finite and _decisive(lo1, hi1, accuracy) and _decisive(lo2, hi2, accuracy)
    why = (
        "no finite certificate"
        if not finite
        else ("the intervals are disjoint" if not meet else "" if decisive else "too wide")
    )
    text = f"certified [{lo1:.12g}, {hi1:.12g}] and [{lo2:.12g}, {hi2:.12g}]"
    return _result(
        check,
        instance,
        hi1,
        hi2,
        meet and decisive,
        group=group,
        detail="; ".join(filter(None, [detail, text, why])),
        rule=f"intervals intersect; each width ≤ {accuracy:.0e}·max(|upper|, 1)",
        interval=first,
        reference_interval=second,
        kind="agreement",
        **extra,
    )


def bound_row(
    check: str,
    instance: str,
    *,
    value: tuple[float, float],
    reference: tuple[float, float],
    relation: str,
    group: str = "",
    detail: str = "",
    extra_ok: bool = True,
    extra_rule: str = "",
    **extra: Any,
) -> CheckResult:
    """A strict inequality between certified quantities, decided between their ends.

    ``relation="<"``: the value's upper end lies below the reference's lower end (e.g. an LP
    without a theorem's class beats the class optimum); ``">"``: the value's lower end lies
    above the reference's upper end (e.g. a rigorous dual bound exceeds 1). ``extra_ok`` and
    ``extra_rule`` add a further condition.
    """
    (lo, hi), (ref_lo, ref_hi) = value, reference
    if relation == "<":
        ok, rule, shown = hi < ref_lo, "upper < ref_low", hi
    elif relation == ">":
        ok, rule, shown = lo > ref_hi, "lower > ref_high", lo
    else:
        raise ValueError(f"`relation` must be '<' or '>'; got {relation!r}.")
    ref = ref_lo if relation == "<" else ref_hi
    if extra_rule:
        rule += f"; {extra_rule}"
    if not extra_ok:
        detail = "; ".join(filter(None, [detail, f"failed: {extra_rule}"]))
    return _result(
        check,
        instance,
        shown,
        ref,
        ok and math.isfinite(shown) and extra_ok,
        group=group,
        detail=detail,
        rule=rule,
        interval=value,
        reference_interval=reference,
        kind="bound",
        **extra,
    )


def guarded(
    check: str, instance: str, make: Callable[[], CheckResult], *, group: str = ""
) -> CheckResult:
    """``make()``, or a failed row naming the exception it raised (one instance of a check
    failing must not hide the others)."""
    start = time.perf_counter()
    try:
        return make()
    except Exception as exc:  # reported as a failing row, never swallowed
        return CheckResult(
            check=check,
            instance=instance,
            value=math.nan,
            reference=math.nan,
            gap=math.inf,
            tolerance=0.0,
            passed=False,
            group=group,
            detail=f"raised {type(exc).__name__}: {exc}",
            rule="the check runs to completion",
            kind="exact",
            seconds=time.perf_counter() - start,
        )


def exact_row(
    check: str,
    instance: str,
    value: float,
    reference: float,
    ok: bool,
    *,
    rule: str,
    group: str = "",
    detail: str = "",
    **extra: Any,
) -> CheckResult:
    """A fact decided exactly (integers, rationals, a ball comparison): ``ok`` is the verdict."""
    return _result(
        check,
        instance,
        value,
        reference,
        ok,
        group=group,
        detail=detail,
        rule=rule,
        kind="exact",
        **extra,
    )


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
    """A ``tolerance`` row: ``|value − reference| ≤ tolerance·|reference|`` (absolute at 0).

    The tolerance must be *derived* (a quadrature's error estimate, a minimiser's ``xatol``
    through the curvature, the rounding of a printed reference) and the derivation stated in
    ``detail``. With ``one_sided=True`` the row passes when ``value ≥ reference·(1 −
    tolerance)``.
    """
    gap = relative_gap(value, reference)
    ok = math.isfinite(value) and (
        value >= reference - tolerance * abs(reference) if one_sided else gap <= tolerance
    )
    if one_sided:
        extra.setdefault("rule", f"value ≥ ref·(1 − {tolerance:.3g})")
    else:
        extra.setdefault(
            "rule", f"|value − ref| ≤ {tolerance:.3g}" + ("" if reference == 0 else "·|ref|")
        )
    return _result(
        check,
        instance,
        value,
        reference,
        ok,
        tolerance=tolerance,
        group=group,
        detail=detail,
        **extra,
    )


@dataclass(frozen=True)
class Check:
    """A registered check: name, section, whether ``--quick`` runs it, exact mode, function."""

    name: str
    group: str
    quick: bool
    run: Callable[[], list[CheckResult]] = field(repr=False)
    exact: bool = False


_REGISTRY: dict[str, Check] = {}


def check(
    name: str, *, group: str, quick: bool = True, exact: bool = False
) -> Callable[[Callable[[], list[CheckResult]]], Callable[[], list[CheckResult]]]:
    """Decorator registering a check function under ``name``.

    ``exact=True`` registers a check of the exact mode (``optmech verify --exact``), which
    reproduces rows in rational and ball arithmetic; the default run leaves those out.

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
        _REGISTRY[name] = Check(name=name, group=group, quick=quick, run=fn, exact=exact)
        return fn

    return wrap


def check_cases(
    name: str,
    sweep_name: str,
    *,
    group: str,
    rows: Callable[..., list[CheckResult]],
    quick: Sequence[Any] | Mapping[str, Any],
    sweep: Sequence[Any] | Mapping[str, Any],
    named: bool = False,
) -> None:
    """Register one row builder twice: ``name`` on a few instances, ``sweep_name`` on a grid.

    ``name`` is a quick check running ``rows(quick)``; ``sweep_name`` runs ``rows(sweep)``
    and only in the full catalogue (``quick=False``). Both are registered with `check`
    under ``group``, the quick one first.

    Parameters
    ----------
    name, sweep_name : str
        Names of the quick check and of the sweep.
    group : str
        Catalogue section of both.
    rows : callable
        The row builder, returning a list of `CheckResult`.
    quick, sweep : sequence or mapping
        The instances of each check: a sequence of cases is passed to ``rows`` as its one
        argument, a mapping as keyword arguments.
    named : bool
        Pass the registered name to ``rows`` first (for builders whose rows are titled by
        their check).

    Examples
    --------
    >>> def _demo_rows(xs):
    ...     return [compare("demo", f"x={x:g}", x, x, 1e-12) for x in xs]
    >>> check_cases(
    ...     "demo", "demo (sweep)", group="closed-form", rows=_demo_rows, quick=[1.0],
    ...     sweep=[1.0, 2.0, 3.0],
    ... )
    >>> [(c.name, c.quick, len(c.run())) for c in registered_checks().values() if "demo" in c.name]
    [('demo', True, 1), ('demo (sweep)', False, 3)]
    >>> for demo in ("demo", "demo (sweep)"):
    ...     _ = _REGISTRY.pop(demo)
    """
    for title, cases, is_quick in ((name, quick, True), (sweep_name, sweep, False)):
        first = (title,) if named else ()
        if isinstance(cases, Mapping):
            run = functools.partial(rows, *first, **cases)
        else:
            run = functools.partial(rows, *first, cases)
        check(title, group=group, quick=is_quick)(run)


def load_all() -> None:
    """Import every module of `optmech.theorems`, registering their checks."""
    import optmech.theorems as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{pkg.__name__}.{info.name}")


def registered_checks() -> dict[str, Check]:
    """All registered checks by name (after `load_all`)."""
    return dict(_REGISTRY)


def select_checks(
    *,
    quick: bool = True,
    groups: list[str] | None = None,
    names: list[str] | None = None,
    exact: bool = False,
) -> list[Check]:
    """The registered checks a run would execute, in registration order.

    ``exact`` selects the exact mode's checks instead of the floating-point catalogue.
    """
    load_all()
    return [
        chk
        for chk in _REGISTRY.values()
        if (not quick or chk.quick)
        and chk.exact == exact
        and (not groups or chk.group in groups)
        and (not names or chk.name in names)
    ]


def _failed_row(chk: Check, exc: Exception) -> CheckResult:
    return CheckResult(
        check=chk.name,
        instance="-",
        value=math.nan,
        reference=math.nan,
        gap=math.inf,
        tolerance=0.0,
        passed=False,
        group=chk.group,
        detail=f"raised {type(exc).__name__}: {exc}",
        rule="the check runs to completion",
        kind="exact",
        exact=chk.exact,
    )


def run_checks(
    *,
    quick: bool = True,
    groups: list[str] | None = None,
    names: list[str] | None = None,
    exact: bool = False,
    progress: bool = False,
) -> Iterator[tuple[Check, list[CheckResult], float]]:
    """Run the catalogue, yielding ``(check, rows, seconds)`` as each check finishes.

    An exception inside a check becomes a failed row naming the exception: a broken check
    must fail loudly, not vanish from the table. ``progress=True`` shows a progress bar with
    the running check's name and an ETA on standard error (tqdm); off by default.
    """
    selected = select_checks(quick=quick, groups=groups, names=names, exact=exact)
    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        from optmech.lp.engine.report import ticking

        bar = tqdm(total=len(selected), unit="check", file=sys.stderr, desc="verify")
    try:
        for chk in selected:
            if bar is not None:
                bar.set_postfix_str(chk.name)
            start = time.perf_counter()
            # The bar is redrawn while a check runs: its elapsed time moves during a long solve.
            with ticking(bar) if bar is not None else contextlib.nullcontext():
                try:
                    rows = chk.run()
                except Exception as exc:  # reported as a failing row, never swallowed
                    rows = [_failed_row(chk, exc)]
            if bar is not None:
                bar.update(1)
            yield chk, rows, time.perf_counter() - start
    finally:
        if bar is not None:
            bar.close()
