"""The designed 2-D noise: a grid density in ℝ² plus the record of the LP behind it.

`optmech.design_noise` with ``dimension=2`` returns a `DesignedNoise2D`: a
`PiecewiseConstantNoise2D` (``pdf``, ``rvs``, ``expected_cost``, ``plot``) holding a frozen
`DesignRecord2D` — the validated `AdditiveSpec2D`, the `Provenance` of the solve with the certified
interval ``[lower_bound, value]`` of the LP's optimum, and the ε certified by
`optmech.certify.noise2d.noise2d_epsilon` from the numbers alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from optmech._deprecation import warn_deprecated
from optmech.lp.additive2d.spec import AdditiveSpec2D
from optmech.mechanisms.piecewise2d import PiecewiseConstantNoise2D
from optmech.provenance import Provenance, ProvenanceFields
from optmech.results import RecordViews, within

__all__ = ["DesignRecord2D", "DesignedNoise2D"]


@dataclass(frozen=True)
class DesignRecord2D(ProvenanceFields):
    """What was designed in 2-D, how it was solved, and what is certified about it.

    Attributes
    ----------
    spec : AdditiveSpec2D
        The validated specification.
    provenance : Provenance
        Solver, status, attempts, timings, violations, repair and the certified interval.
    certified_epsilon : float
        Certified ε of the returned noise (shifts in the ball of ``spec.sensitivity_norm``).
    raw_certified_epsilon : float
        Certified ε of the solver's point, before the repair.
    window : str
        Form of the window rows (``"runs"`` or ``"pairs"``).
    lp_objective : float
        The solver's reported optimum, in cost units (not trusted: see ``value``).
    source : str
        ``"solver"``, or ``"reference"`` when the cheapest gauge staircase (a point of the same
        LP) cost less than the repaired solver point.
    reduced : str
        The symmetry group the LP was solved on (``"dihedral"``, ``"reflections"``, ``"none"``).
    cost_error : float
        How much of ``value`` is the stated error of quadrature cell averages and the tails'
        series (0 for ℓ1 and ℓ∞ costs up to rounding).
    staircase_value : float
        Cost of the cheapest gauge staircase on the grid (the density ``b^ceil(G − γ)`` of a
        tail shape, continued into the box): a point of the same LP, so ``value`` is at most
        this up to the certified gap.
    """

    spec: AdditiveSpec2D
    provenance: Provenance
    certified_epsilon: float
    raw_certified_epsilon: float
    window: str
    lp_objective: float
    source: str
    reduced: str
    cost_error: float
    staircase_value: float

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON: the specification and the certificate, and the provenance
        nested under ``"provenance"``."""
        spec = self.spec
        out: dict[str, Any] = {
            "dimension": 2,
            "sensitivity_norm": spec.sensitivity_norm,
            "sensitivity": spec.sensitivity,
            "privacy": str(spec.privacy),
            "cost": repr(spec.cost),
            "resolution": spec.resolution,
            "periods": spec.periods,
            "tails": spec.tails,
            "window": self.window,
            "reduced": self.reduced,
            "source": self.source,
            "lp_objective": self.lp_objective,
            "certified_epsilon": self.certified_epsilon,
            "raw_certified_epsilon": self.raw_certified_epsilon,
            "cost_error": self.cost_error,
            "staircase_value": self.staircase_value,
        }
        out = {
            k: (str(v) if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in out.items()
        }
        out["provenance"] = self.provenance.to_dict()
        return out


class DesignedNoise2D(PiecewiseConstantNoise2D, RecordViews):
    """A certified 2-D noise designed by LP (`optmech.design_noise`, ``dimension=2``).

    ``value`` is its exact expected cost (rounded up; an upper bound where cell averages carry a
    quadrature error), ``lower_bound`` a rigorous lower bound of the LP's optimum,
    ``certified_epsilon`` the ε certified independently of the solver; ``record``, ``spec`` and
    ``provenance`` as for the 1-D designs (`RecordViews`).

    Examples
    --------
    >>> import optmech
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="l1",
    ...                              dimension=2, sensitivity_norm="l1", resolution=2, periods=1)
    >>> type(noise).__name__, noise.rvs(4, rng=0).shape
    ('DesignedNoise2D', (4, 2))
    >>> bool(noise.lower_bound <= noise.value), bool(noise.certified_epsilon <= 1.0 + 1e-9)
    (True, True)
    """

    _record: DesignRecord2D

    def __init__(self, *, record: DesignRecord2D, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._record = record

    def expected_cost(self, cost: Any = None) -> float:
        """``E cost(X)``, as for every noise (`VectorNoise.expected_cost`).

        Calling it without a cost (the design's cost) is deprecated: read ``value``, or pass
        ``noise.spec.cost``.
        """
        if cost is None:
            warn_deprecated("DesignedNoise2D.expected_cost() without a cost", "expected_cost(cost)")
            cost = self.spec.cost
        return super().expected_cost(cost)

    _model = "designed additive noise (2-D)"

    def _privacy_met(self, rtol: float) -> bool:
        """``certified_epsilon ≤ ε`` up to ``1 + rtol``."""
        return within(self.certified_epsilon, self.spec.privacy.epsilon, rtol)

    def _privacy_requested(self) -> str | None:
        spec = self.spec
        return f"{spec.privacy}, Δ = {spec.sensitivity:g} ({spec.sensitivity_norm} ball)"

    def _own_rows(self) -> list[tuple[str, Any]]:
        spec = self.spec
        grid = (
            f"{spec.resolution} cells per Δ, {spec.periods} periods each way "
            f"({2 * spec.cells}² cells, solved on the {self._record.reduced} orbits)"
        )
        return [("cost", repr(spec.cost)), ("grid", grid)]

    def _repr_html_(self) -> str:
        """The result's display (value, interval, certificate), not the bare family's."""
        return RecordViews._repr_html_(self)

    def summary(self) -> str:
        """The result's display as text (the rows of its notebook display)."""
        return RecordViews.summary(self)
