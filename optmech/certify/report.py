"""What every certificate has in common, and the one tolerance convention of the checks.

Every certificate or report of `optmech.certify` derives from `PrivacyReport`:
it names the guarantee in question, the certified value, whether it was computed in exact
rational arithmetic or in (pessimistic) floating point, and the reason in one line; it turns
into a JSON-safe dict (`to_dict`) and shows itself in a notebook
(``_repr_html_``). Each class keeps its own fields besides.

**Checks** (``check_*``) return a bool, as OpenDP's ``check(d_in, d_out, debug)`` does; with
``debug=True`` they return True when the guarantee holds and raise
`PrivacyViolationError` otherwise, its message
the explanation and its ``report`` attribute the certificate (`verdict`).

**Tolerance.** A check passes when ``certified ≤ claim·(1 + rtol)``. The certified number is
already rounded towards more privacy loss, so ``rtol`` does not cover the certifier's own
rounding: it covers the distance between the certified number and the exact one that the
certifier may leave, which depends on how the number is found.

* *Computed directly* from the stored floats — a pure ε, a δ at a given ε, a profile's δ(ε_j),
  a Rényi divergence at given orders, the μ-GDP curve test at a given μ. The number is the
  exact one plus a rounding margin of a few ulps of the largest ``|log|`` of a mass (below
  ``1e-12`` absolute for masses above ``1e-300``); and a mechanism that is exactly private in
  exact arithmetic is stored with ratios ``e^ε`` within a few ulps. Both are below ``1e-12``
  relative for ε ≥ 1e-3: ``FLOAT_RTOL`` ``= 1e-9`` covers them with room, and is far
  below any accuracy a user asks for.
* *Found by a search* over a continuum — ρ over every order α > 1, μ by bisection. The search
  stops when its certified upper bound is within its own ``rtol`` of the best value it reached,
  so an exactly ρ-zCDP noise certifies up to ``ρ(1 + rtol_search)``: a check must allow at least
  that, or a noise could fail its own guarantee. ``SEARCH_RTOL`` ``= 1e-6`` is
  the searches' default accuracy, and the checks run them to half of the check's ``rtol``.

So the default ``rtol`` of every check is the class of the number it compares
(`default_rtol`): ``1e-9`` for pure ε, δ, profiles and Rényi divergences,
``1e-6`` for ρ (zCDP) and μ (GDP). An explicit ``rtol`` overrides it.

Examples
--------
>>> from optmech.privacy import PureDP, ZCDP
>>> default_rtol(PureDP(1.0)), default_rtol(ZCDP(0.5))
(1e-09, 1e-06)
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from optmech._deprecation import warn_deprecated
from optmech._display import html_summary
from optmech._validation import check_flag
from optmech.exceptions import PrivacyViolationError
from optmech.privacy import ZCDP, ApproxDP, GaussianDP, PureDP

__all__ = [
    "FLOAT_RTOL",
    "SEARCH_RTOL",
    "DeltaAtEpsilonReport",
    "PrivacyReport",
    "PureEpsilonReport",
    "TheoremReport",
    "approx_or_none",
    "default_rtol",
    "number_or_report",
    "pure_or_none",
    "verdict",
]

#: Default relative slack of a check on a number computed directly from the floats.
FLOAT_RTOL = 1e-9
#: Default relative slack of a check on a number found by a search over a continuum (ρ, μ),
#: and the searches' default accuracy.
SEARCH_RTOL = 1e-6


def default_rtol(guarantee: Any) -> float:
    """The default ``rtol`` of a check of ``guarantee`` (module docstring):
    ``SEARCH_RTOL`` for ZCDP and GaussianDP, ``FLOAT_RTOL`` for the
    others.

    Examples
    --------
    >>> from optmech import PureDP, ZCDP
    >>> from optmech.certify import default_rtol
    >>> default_rtol(PureDP(1.0)), default_rtol(ZCDP(0.5))  # FLOAT_RTOL, SEARCH_RTOL
    (1e-09, 1e-06)
    """
    return SEARCH_RTOL if isinstance(guarantee, ZCDP | GaussianDP) else FLOAT_RTOL


def pure_or_none(epsilon: float) -> PureDP | None:
    """``PureDP(epsilon)`` for a finite positive ε, else None (no pure guarantee to name)."""
    return PureDP(epsilon) if 0.0 < epsilon < math.inf else None


def approx_or_none(epsilon: float, delta: float) -> PureDP | ApproxDP | None:
    """The (ε, δ) guarantee a certified δ at ε establishes (``PureDP`` when δ = 0), or None."""
    if delta == 0.0:
        return pure_or_none(epsilon)
    return ApproxDP(epsilon, delta) if 0.0 < delta < 1.0 and math.isfinite(epsilon) else None


def _jsonable(value: Any) -> Any:
    """``value`` with numbers as JSON numbers (non-finite ones as strings), arrays and tuples as
    lists, guarantees and other objects as their text, reports as their dicts."""
    if isinstance(value, PrivacyReport):
        return value.to_dict()
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.ndarray | list | tuple):
        return [_jsonable(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    if isinstance(value, int):
        return value
    if isinstance(value, float | Fraction):
        number = float(value)
        return number if math.isfinite(number) else str(number)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


class PrivacyReport:
    """Base of every certificate and report of `optmech.certify`.

    Attributes
    ----------
    guarantee : object or None
        The guarantee in question: the claim, for a report that checks one; otherwise the
        guarantee the certified value establishes (``PureDP(ε)`` for a certified ε, ...), None
        when it establishes none (an infinite ε).
    value : float or tuple of float
        The certified number (pessimistic: never below the exact one for the given floats).
    exact : bool
        Computed in exact rational arithmetic with interval enclosures (``exact=True``), rather
        than in floating point with its rounding bounded and added.
    reason : str
        One line: where the value is attained, or why.

    Examples
    --------
    >>> from optmech import Laplace, PureDP
    >>> from optmech.certify import PrivacyReport, certify
    >>> report = certify(Laplace(epsilon=1.0), PureDP(1.0))
    >>> isinstance(report, PrivacyReport), report.holds, report.exact
    (True, True, False)
    >>> sorted(report.to_dict())[:3]
    ['delta', 'delta_epsilon', 'delta_report']
    """

    if TYPE_CHECKING:  # provided by each class, as a field or a property

        @property
        def guarantee(self) -> Any: ...

        @property
        def value(self) -> Any: ...

        @property
        def exact(self) -> bool: ...

        @property
        def reason(self) -> str: ...

    @property
    def mode(self) -> str:
        """``"exact"`` or ``"float"``."""
        return "exact" if self.exact else "float"

    def explain(self) -> str:
        """One line: the certified value and the reason."""
        return f"certified {_short(self.value)} ({self.mode}): {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON: ``report``, ``guarantee``, ``value``, ``exact``, ``reason``, then
        the class's own fields (arrays as lists, non-finite numbers as strings)."""
        out: dict[str, Any] = {
            "report": type(self).__name__,
            "guarantee": None if self.guarantee is None else str(self.guarantee),
            "value": _jsonable(self.value),
            "exact": bool(self.exact),
            "reason": self.reason,
        }
        if dataclasses.is_dataclass(self):
            for item in dataclasses.fields(self):
                if item.name not in out:
                    out[item.name] = _jsonable(getattr(self, item.name))
        return out

    def _repr_html_(self) -> str:
        return html_summary(
            type(self).__name__,
            [
                ("guarantee", "none" if self.guarantee is None else self.guarantee),
                ("certified value", _short(self.value)),
                (
                    "arithmetic",
                    "exact (rational, interval enclosures)" if self.exact else "float, rounded up",
                ),
                ("reason", self.reason),
            ],
        )


class PureEpsilonReport(PrivacyReport):
    """A report whose certified value is a pure ε (the class's field ``epsilon``): its
    guarantee is ``PureDP(epsilon)``, None when ε is 0 or infinite."""

    epsilon: float

    @property
    def guarantee(self) -> PureDP | None:
        """``PureDP(epsilon)``, or None when ε is 0 or infinite."""
        return pure_or_none(self.epsilon)

    @property
    def value(self) -> float:
        """The certified ε."""
        return self.epsilon


class DeltaAtEpsilonReport(PrivacyReport):
    """A report whose certified value is a δ at a given ε (the class's fields ``delta`` and
    ``epsilon``): its guarantee is ``ApproxDP(epsilon, delta)``, ``PureDP`` for δ = 0, None for
    δ ≥ 1."""

    delta: float
    epsilon: float

    @property
    def guarantee(self) -> PureDP | ApproxDP | None:
        """``ApproxDP(epsilon, delta)`` (``PureDP`` for δ = 0), or None for δ ≥ 1."""
        return approx_or_none(self.epsilon, self.delta)

    @property
    def value(self) -> float:
        """The certified δ."""
        return self.delta


@dataclass(frozen=True)
class TheoremReport(PrivacyReport):
    """A guarantee proved for a closed-form family by its theorem, with no number computed
    (a family whose privacy no certifier reads, e.g. the staircase in ℝ^d).

    Attributes
    ----------
    guarantee : object
        The guarantee proved.
    value : float
        Its ε.
    reason : str
        The theorem and the argument, in one line.
    exact : bool
        True: the proof involves no rounding.

    Examples
    --------
    >>> import optmech
    >>> from optmech.certify import certify
    >>> report = certify(optmech.StaircaseND(epsilon=1.0, gamma=0.5))
    >>> type(report).__name__, report.guarantee
    ('TheoremReport', PureDP(epsilon=1.0))
    """

    guarantee: Any
    value: float
    reason: str
    exact: bool = True


def _short(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "(" + ", ".join(f"{float(v):.10g}" for v in value) + ")"
    if isinstance(value, float | int | np.floating):
        return f"{float(value):.10g}"
    return str(value)


def number_or_report(report: PrivacyReport, debug: Any, old: str, new: str) -> Any:
    """What a number-returning certifier returns: ``report.value``, or (``debug=True``,
    deprecated in favour of ``new``) the report itself."""
    if check_flag("debug", debug):
        warn_deprecated(old, new, stacklevel=4)
        return report
    return report.value


def verdict(
    holds: bool, report: PrivacyReport, claim: Any, debug: bool, why: PrivacyReport | None = None
) -> bool:
    """The result of a check: ``holds``; with ``debug`` True when it holds, else raise
    `PrivacyViolationError` carrying ``report``
    (its message from ``why``, default ``report``: the part of it that fails).

    Examples
    --------
    >>> from optmech.certify.matrix import certify_mechanism
    >>> rep = certify_mechanism([[1.0, 0.0], [0.5, 0.5]])
    >>> verdict(False, rep, PureDP(5.0), False)
    False
    >>> verdict(False, rep, PureDP(5.0), True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    optmech.exceptions.PrivacyViolationError: not 5-DP: certified epsilon = inf at edge (0, 1), ...
    """
    if holds or not debug:
        return bool(holds)
    raise PrivacyViolationError(f"not {claim}: {(why or report).explain()}", report=report)
