"""One result protocol: what a user can read, print, save, draw and sample of every result.

Every public result of optmech — a designed noise (1-D, beyond (ε, δ), 2-D), a user's, a local
or a common mechanism, a remap, the query-dependent noise, RR-on-Bins and the extremal
mechanism — satisfies `Result` (a `typing.Protocol`, checked at run time), and a name
means one thing on all of them:

``value``
    The objective of the returned mechanism or noise (for a minimisation, rounded up: an upper
    bound on the optimum; for the extremal mechanism, a maximisation, rounded down).
``lower_bound``, ``upper_bound``
    The optimality interval: the optimum lies in ``[lower_bound, upper_bound]`` whatever the
    solver's tolerances. One end is ``value`` (``upper_bound`` when minimising, ``lower_bound``
    when maximising), the other a rigorous Lagrangian bound.
``gap``
    ``upper_bound − lower_bound``: how far ``value`` can be from the optimum (``value −
    lower_bound`` for a minimisation). ``optimality_gap`` is its deprecated name.
``optimality_interval``
    ``(lower_bound, upper_bound)``. A distribution's ``interval(confidence)`` keeps SciPy's
    meaning (a central interval of the noise).
``within_accuracy``
    Whether the optimality interval is as narrow as asked (``Provenance.accuracy``). It says
    nothing about privacy. ``Provenance.certified`` is its deprecated name.
``certified_epsilon`` (``certified_delta``, ``certified_rho``, ``certified_mu`` where they apply)
    The privacy achieved, certified from the returned numbers alone.
``privacy_certified``
    Whether the certified privacy meets the request (None when nothing was requested, as for
    a remap).
``provenance``
    The `Provenance`: solver, status, attempts, timings, sizes,
    the repair and the interval (solver ``"none"``, status ``"exact"`` without an LP).
``summary()``
    The display as text: one row per number, the rows of the notebook display.
``to_dict()``
    A JSON-safe dict (numbers, strings, lists; non-finite floats as strings): ``result``,
    ``model``, the protocol's numbers (``gap`` under ``"provenance"``), the result's own
    fields, the provenance nested under ``"provenance"``.
``plot(ax=None)``
    A figure of the result drawn into ``ax`` (a new one by default); returns the Axes.
``_repr_html_()``
    The display as a small table for notebooks.

Results that release answers sample them with ``rvs(…, size=None, rng=None)``, as the noise
families do: ``noise.rvs(size, rng=rng)``, ``mechanism.rvs(true_value, size, rng=rng)``;
``sample`` is the deprecated name.

The display is one for all: the same labels, in the same order, numbers at six significant
digits (`optmech._display.DIGITS`), in ``summary()`` and ``_repr_html_()`` alike.

Each concrete result class registers itself on definition (`registered_results`); the test suite
also finds result classes by introspection and checks
every one of them against the protocol.
"""

from __future__ import annotations

import enum
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from optmech._deprecation import warn_deprecated
from optmech._floats import FloatArray
from optmech.provenance import Provenance, ProvenanceFields

__all__ = [
    "PRIVACY_RTOL",
    "BaseResult",
    "LPResult",
    "MechanismResult",
    "RecordViews",
    "Result",
    "json_safe",
    "registered_results",
    "within",
]

_REGISTRY: list[type[BaseResult]] = []

#: Relative allowance of ``privacy_certified``: a certificate rounds outward (pessimistically),
#: so a design whose windows hold at ``e^(ε − slack)`` in exact arithmetic can be certified at
#: ``ε (1 + 1e-14)``; the certified number itself is shown and stored unrounded.
PRIVACY_RTOL = 1e-9


def within(certified: float | None, requested: float, rtol: float = PRIVACY_RTOL) -> bool:
    """Whether ``certified ≤ requested · (1 + rtol)`` (False for None: nothing certified).

    Examples
    --------
    >>> within(1.0000000000000202, 1.0), within(1.0000000000000202, 1.0, 0.0)
    (True, False)
    """
    return certified is not None and bool(certified <= requested * (1.0 + rtol))


@runtime_checkable
class Result(Protocol):
    """The protocol of every public result (module docstring): the names, the display, the
    dict and the figure. ``isinstance(obj, Result)`` checks the names are there."""

    @property
    def value(self) -> float: ...

    @property
    def lower_bound(self) -> float: ...

    @property
    def upper_bound(self) -> float: ...

    @property
    def gap(self) -> float: ...

    @property
    def optimality_interval(self) -> tuple[float, float]: ...

    @property
    def within_accuracy(self) -> bool: ...

    @property
    def certified_epsilon(self) -> float: ...

    @property
    def privacy_certified(self) -> bool | None: ...

    @property
    def provenance(self) -> Provenance: ...

    def summary(self) -> str: ...

    def to_dict(self) -> dict[str, Any]: ...

    def plot(self, ax: Any = None) -> Any: ...

    def _repr_html_(self) -> str: ...


def json_safe(value: Any) -> Any:
    """``value`` with arrays as lists, numpy scalars as Python numbers, enums as strings and
    non-finite floats as strings (``"inf"``, ``"nan"``), recursively: what `json.dumps`
    writes with ``allow_nan=False``.

    Examples
    --------
    >>> json_safe({"a": np.arange(2), "b": float("inf"), "c": (np.float64(0.5), None)})
    {'a': [0, 1], 'b': 'inf', 'c': [0.5, None]}
    """
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        return json_safe(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def registered_results() -> tuple[type[BaseResult], ...]:
    """Every concrete result class defined so far (mixins excluded)."""
    return tuple(_REGISTRY)


class BaseResult(ABC):
    """What every result shares: the derived names of the protocol, the display, the dict.

    A subclass provides ``value``, ``lower_bound``, ``upper_bound``, ``certified_epsilon``,
    ``provenance`` and `plot` (as fields or properties), and may name its model
    (``_model``), the privacy it was asked for (``_privacy_requested``) and its own rows;
    a mixin that is not a result of its own is declared with ``abstract=True`` and not
    registered.
    """

    if TYPE_CHECKING:  # provided by each result, as fields or properties

        @property
        def value(self) -> float: ...

        @property
        def lower_bound(self) -> float: ...

        @property
        def upper_bound(self) -> float: ...

        @property
        def certified_epsilon(self) -> float: ...

        @property
        def provenance(self) -> Provenance: ...

    #: Whether the class is a mixin (not a result of its own, not registered).
    _abstract_result: ClassVar[bool] = True
    #: The result's own attributes that `to_dict` writes, in order.
    _dict_fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, *, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._abstract_result = abstract
        if not abstract:
            _REGISTRY.append(cls)

    @abstractmethod
    def plot(self, ax: Any = None) -> Any:
        """Draw the result into ``ax`` (a new figure's axes by default); returns the Axes."""

    # -- the derived names ---------------------------------------------------------------------
    @property
    def gap(self) -> float:
        """``upper_bound − lower_bound``: how far, at most, `value` is from the optimum."""
        return float(self.upper_bound - self.lower_bound)

    @property
    def optimality_gap(self) -> float:
        """Deprecated name of `gap`."""
        warn_deprecated(f"`{type(self).__name__}.optimality_gap`", "`.gap`")
        return self.gap

    @property
    def optimality_interval(self) -> tuple[float, float]:
        """``(lower_bound, upper_bound)``: the optimum lies in it (not to be confused with a
        distribution's ``interval(confidence)``, SciPy's central interval)."""
        return (float(self.lower_bound), float(self.upper_bound))

    @property
    def within_accuracy(self) -> bool:
        """Whether the optimality interval is at most ``provenance.accuracy`` wide (relative);
        says nothing about privacy."""
        return self.provenance.within_accuracy

    @property
    def privacy_certified(self) -> bool | None:
        """Whether the certified privacy meets the request: ``certified_epsilon ≤ epsilon``
        (each result states its own) up to ``PRIVACY_RTOL``; None when nothing
        was requested."""
        return self._privacy_met(PRIVACY_RTOL)

    def _privacy_met(self, rtol: float) -> bool | None:
        """Whether the certified privacy is at most the requested times ``1 + rtol`` (None when
        nothing was requested)."""
        requested = getattr(self, "epsilon", None)
        return None if requested is None else within(self.certified_epsilon, requested, rtol)

    # -- the display ----------------------------------------------------------------------------
    #: What the display calls the model (a class may compute it in `model`).
    _model: ClassVar[str] = ""

    @property
    def model(self) -> str:
        """The model the result belongs to, in words (``"Bayesian user"``, ``"local"``,
        ``"RR-on-Bins (label DP)"``, ...): the first row of the display and the plot's title."""
        return self._model or type(self).__name__

    def _privacy_requested(self) -> str | None:
        """The privacy asked for, in words (None when nothing was asked)."""
        eps = getattr(self, "epsilon", None)
        return None if eps is None else f"ε = {eps:g}"

    def _privacy_rows(self) -> list[tuple[str, Any]]:
        """The certified privacy, headline first (``certified ε`` by default)."""
        return [("certified ε", float(self.certified_epsilon))]

    def _own_rows(self) -> list[tuple[str, Any]]:
        """Rows of the result's own, after the common ones."""
        return []

    def display_rows(self) -> list[tuple[str, Any]]:
        """The rows of the display, in the one order every result uses: model, value,
        optimality interval, gap, within accuracy; privacy requested, certified, privacy
        certified; solver and status, repair; then the result's own."""
        from optmech._display import interval, short, yes_no

        prov = self.provenance
        requested = self._privacy_requested()
        return [
            ("model", self.model),
            ("value", float(self.value)),
            ("optimality interval", interval(self.lower_bound, self.upper_bound)),
            ("gap", self.gap),
            (
                "interval within accuracy",
                f"{yes_no(self.within_accuracy)} (asked {short(prov.accuracy)})",
            ),
            ("privacy requested", "none" if requested is None else requested),
            *self._privacy_rows(),
            ("privacy certified", self._privacy_certified_text()),
            ("solver, status", f"{prov.solver}, {prov.status}"),
            ("repair", f"{prov.repair.kind} (cost {short(prov.repair.cost)})"),
            *self._own_rows(),
        ]

    def _privacy_certified_text(self) -> str:
        """``yes`` / ``no`` / ``n/a``, saying so when the certificate meets the request only
        within ``PRIVACY_RTOL`` (its outward rounding)."""
        from optmech._display import yes_no

        met = self.privacy_certified
        if met and not self._privacy_met(0.0):
            return f"yes (to {PRIVACY_RTOL:g} relative)"
        return yes_no(met)

    def summary(self) -> str:
        """The display as text: the class, then one ``name  value`` row each (the rows of the
        notebook display, numbers at six significant digits)."""
        from optmech._display import text_summary

        return text_summary(type(self).__name__, self.display_rows())

    def _repr_html_(self) -> str:
        from optmech._display import html_summary

        return html_summary(type(self).__name__, self.display_rows())

    # -- the dict --------------------------------------------------------------------------------
    def _fields(self) -> dict[str, Any]:
        """The result's own fields for `to_dict` (any numbers, arrays, enums)."""
        return {name: getattr(self, name) for name in self._dict_fields}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: ``result`` (the class), ``model``, ``value``, ``lower_bound``,
        ``upper_bound`` (``gap`` is their difference, also in the provenance),
        ``within_accuracy``, ``certified_epsilon``,
        ``privacy_certified``, the result's own fields, and the provenance nested under
        ``"provenance"`` (`Provenance.to_dict`, which
        also keeps the deprecated key ``certified``)."""
        out = {
            "result": type(self).__name__,
            "model": self.model,
            "value": self.value,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "within_accuracy": self.within_accuracy,
            "certified_epsilon": self.certified_epsilon,
            "privacy_certified": self.privacy_certified,
            **self._fields(),
            "provenance": self.provenance.to_dict(),
        }
        return json_safe(out)  # type: ignore[no-any-return]


class LPResult(BaseResult, ProvenanceFields, abstract=True):
    """A result whose interval is its provenance's (a minimisation): ``value`` and
    ``lower_bound`` read the provenance, ``upper_bound`` is ``value``."""

    provenance: Provenance

    @property
    def upper_bound(self) -> float:
        """``value``: for a minimisation, the upper end of the optimality interval."""
        return self.provenance.value


class MechanismResult(LPResult, abstract=True):
    """An LP result whose answer is a mechanism matrix ``M[i, r] = P(output r | input i)``
    (a user's mechanism, a remapped one, a common one), drawn as a heat map."""

    mechanism: FloatArray

    def _plot_title(self) -> str:
        return f"{self.model}, value {self.value:.6g}"

    def plot(self, ax: Any = None) -> Any:
        """Heat map of `mechanism` (rows: inputs, columns: outputs, both labelled with their
        values); the title names the model; returns the Axes
        (`plot_mechanism`)."""
        from optmech.plotting import plot_mechanism

        return plot_mechanism(
            self.mechanism,
            ax,
            inputs=getattr(self, "inputs", None),
            outputs=getattr(self, "outputs", None),
            title=self._plot_title(),
        )


class RecordViews(LPResult, abstract=True):
    """A result whose provenance lives in a design record (the 1-D and 2-D designed noise): the
    record's parts as read-only attributes."""

    _record: Any

    @property
    def record(self) -> Any:
        """The design record: spec, provenance, certified privacy."""
        return self._record

    @property
    def info(self) -> Any:
        """Deprecated name of `record`."""
        warn_deprecated(f"`{type(self).__name__}.info`", "`.record` (or `.provenance`)")
        return self._record

    @property
    def spec(self) -> Any:
        """The validated specification."""
        return self._record.spec

    @property
    def provenance(self) -> Provenance:  # type: ignore[override]
        """How the LP was solved and the optimality interval of its optimum."""
        return self._record.provenance  # type: ignore[no-any-return]

    @property
    def certified_epsilon(self) -> float:
        """Certified pure ε (``inf`` for finite support or an atom)."""
        return float(self._record.certified_epsilon)

    def _fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = self._record.to_dict()
        fields.pop("provenance", None)
        return fields
