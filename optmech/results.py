"""One vocabulary for every LP result: what a user can read, print, save and draw.

Every result optmech builds from an LP — a designed noise (1-D, beyond (ε, δ), 2-D), a user's
mechanism, a common mechanism, a remap, the query-dependent noise — is an [`LPResult`][LPResult]:

``value``
    The objective at the returned, exactly feasible point, rounded up: an upper bound on the
    LP's optimum (for a designed noise, its exact expected cost).
``lower_bound``
    A rigorous lower bound on the optimum (Lagrangian, rounded down): the optimum lies in
    ``[lower_bound, value]`` whatever the solver's tolerances.
``provenance``
    The [`Provenance`][optmech.provenance.Provenance]: solver, status, attempts, timings, sizes,
    the [`Repair`][optmech.provenance.Repair] and the interval.
``repair``
    That [`Repair`][optmech.provenance.Repair] record (kind, weight, cost).
``to_dict()``
    A JSON-safe dict (numbers, strings, lists; non-finite floats as strings): the result's own
    fields, ``value``, ``lower_bound``, ``certified``, and the provenance nested under
    ``"provenance"``.
``summary()``
    One or a few lines of text.
``plot(ax=None)``
    A figure of the result drawn into ``ax`` (a new one by default); returns the Axes.
``_repr_html_()``
    A small table for notebooks.

Each concrete result class registers itself on definition ([`registered_results`][
registered_results]), so the test suite checks every one of them against this protocol.
"""

from __future__ import annotations

import enum
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from optmech._deprecation import warn_deprecated
from optmech._floats import FloatArray
from optmech.provenance import Provenance, ProvenanceFields

__all__ = ["LPResult", "MechanismResult", "RecordViews", "json_safe", "registered_results"]

_REGISTRY: list[type[LPResult]] = []


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


def registered_results() -> tuple[type[LPResult], ...]:
    """Every concrete LP result class defined so far (mixins excluded)."""
    return tuple(_REGISTRY)


class LPResult(ProvenanceFields, ABC):
    """The interface of every LP-backed result (module docstring).

    Subclasses provide ``provenance``, `plot` and the names of their own fields for
    [`to_dict`][to_dict] (``_dict_fields``); a mixin that is not a result of its own is
    declared with ``class Mixin(LPResult, abstract=True)`` and not registered.
    """

    provenance: Provenance
    #: Whether the class is a mixin (not a result of its own, not registered).
    _abstract_result: ClassVar[bool] = True
    #: The result's own attributes that [`to_dict`][to_dict] writes, in order.
    _dict_fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, *, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._abstract_result = abstract
        if not abstract:
            _REGISTRY.append(cls)

    @abstractmethod
    def plot(self, ax: Any = None) -> Any:
        """Draw the result into ``ax`` (a new figure's axes by default); returns the Axes."""

    def _fields(self) -> dict[str, Any]:
        """The result's own fields for [`to_dict`][to_dict] (any numbers, arrays, enums)."""
        return {name: getattr(self, name) for name in self._dict_fields}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: ``result`` (the class), ``value``, ``lower_bound``, ``certified``
        (the interval within the requested accuracy), the result's own fields, and the
        provenance nested under ``"provenance"``
        ([`Provenance.to_dict`][optmech.provenance.Provenance.to_dict])."""
        prov = self.provenance
        out = {
            "result": type(self).__name__,
            "value": prov.value,
            "lower_bound": prov.lower_bound,
            "certified": prov.certified,
            **self._fields(),
            "provenance": prov.to_dict(),
        }
        return json_safe(out)  # type: ignore[no-any-return]

    def summary(self) -> str:
        """One line on the result and one on how it was solved."""
        prov = self.provenance
        return (
            f"{type(self).__name__}: value {prov.value:.10g}, optimum in "
            f"[{prov.lower_bound:.10g}, {prov.value:.10g}]\n{prov.summary()}"
        )


class MechanismResult(LPResult, abstract=True):
    """An LP result whose answer is a mechanism matrix ``M[i, r] = P(output r | input i)``
    (a user's mechanism, a remapped one, a common one), drawn as a heat map."""

    mechanism: FloatArray

    def _plot_title(self) -> str:
        return f"{type(self).__name__}, value {self.value:.6g}"

    def plot(self, ax: Any = None) -> Any:
        """Heat map of `mechanism` (rows: inputs); returns the Axes
        ([`plot_mechanism`][optmech.plotting.plot_mechanism])."""
        from optmech.plotting import plot_mechanism

        outputs = getattr(self, "outputs", None)
        return plot_mechanism(self.mechanism, ax, outputs=outputs, title=self._plot_title())


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
        """Deprecated name of [`record`][record]."""
        warn_deprecated(f"`{type(self).__name__}.info`", "`.record` (or `.provenance`)")
        return self._record

    @property
    def spec(self) -> Any:
        """The validated specification."""
        return self._record.spec

    @property
    def provenance(self) -> Provenance:  # type: ignore[override]
        """How the LP was solved and the certified interval of its optimum."""
        return self._record.provenance  # type: ignore[no-any-return]

    @property
    def certified_epsilon(self) -> float:
        """Certified pure ε (``inf`` for finite support or an atom)."""
        return float(self._record.certified_epsilon)

    def _fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = self._record.to_dict()
        fields.pop("provenance", None)
        return fields
