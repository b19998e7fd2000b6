"""What to design in 2-D: [`AdditiveSpec2D`][AdditiveSpec2D], validated once, and the size it will
take.

Noise ``X ∈ ℝ²`` for ``K(D) = q(D) + X`` under pure ε-DP with shifts in the ball of radius Δ of
the ℓ1, ℓ2 or ℓ∞ norm (``sensitivity_norm``), searched among densities constant on square cells
of side ``h = Δ/m`` (``m`` = ``resolution``) on the box ``[−KΔ, KΔ)²`` (``K`` = ``periods``),
closed outside by tail shapes ([`optmech.mechanisms.tails2d`][optmech.mechanisms.tails2d]). The size
of the LP is estimated from these numbers before anything is built
([`AdditiveSpec2D.size`][AdditiveSpec2D.size]), and a design that would need more than
``max_memory_gb`` is refused ([`ProblemTooLargeError`][optmech.exceptions.ProblemTooLargeError]).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from optmech._validation import check_flag, check_int, check_real, describe
from optmech.certify.noise2d import NORMS, row_half_widths
from optmech.costs.vector import as_vector_cost, symmetry_of
from optmech.exceptions import ProblemTooLargeError
from optmech.lp.additive2d.windows import window_size_2d
from optmech.privacy import PureDP

__all__ = [
    "DEFAULT_RESOLUTION_2D",
    "TAIL_CHOICES",
    "AdditiveSpec2D",
    "default_periods_2d",
]

#: Default cells per Δ of a 2-D design.
DEFAULT_RESOLUTION_2D = 8
#: The tail closures: the gauge staircase alone, or with the product of 1-D staircases at ε/2.
TAIL_CHOICES = ("gauge", "gauge+product")
#: Forms of the window rows ([`optmech.lp.additive2d.windows`][optmech.lp.additive2d.windows]);
#: "auto" is "runs".
WINDOW_CHOICES = ("auto", "runs", "pairs")
#: Memory per nonzero and per row/variable (as measured for the 1-D LP, Clarabel).
_BYTES_PER_NONZERO = 600
_BYTES_PER_ROW = 900


def default_periods_2d(epsilon: float) -> int:
    """``K = ceil(4/ε)`` periods each way, between 2 and 8: the box then holds all but about
    ``e^(−4)`` of a staircase's mass (the tail closure carries the rest exactly)."""
    return int(min(8, max(2, math.ceil(4.0 / epsilon))))


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"`{name}` must be one of {choices}; got {describe(value)}.")
    return value


@dataclass(frozen=True)
class AdditiveSpec2D:
    """A 2-D additive-noise design, validated (module docstring).

    Parameters
    ----------
    privacy : PureDP
        The guarantee (pure ε-DP; ε in (0, 50]).
    sensitivity : float
        Δ, the radius of the ball of shifts, in (0, inf).
    cost : Norm, VectorCustom, str or callable
        The cost of the error vector
        ([`optmech.costs.vector.as_vector_cost`][optmech.costs.vector.as_vector_cost]).
    sensitivity_norm : {'l1', 'l2', 'linf'}
        The norm of the ball of shifts.
    resolution : int
        ``m`` cells per Δ, in [1, 64] (default 8).
    periods : int, optional
        ``K`` periods each way, in [1, 64] (default [`default_periods_2d`][default_periods_2d]).
    window : {'auto', 'runs', 'pairs'}
        Form of the window rows.
    tails : {'gauge+product', 'gauge'}
        The tail closure ([`optmech.mechanisms.tails2d`][optmech.mechanisms.tails2d]).
    reduce_symmetric : bool
        Solve on one cell per orbit of the cost's symmetry group: the grid, the ball, the tails
        and the rows are invariant under it (the dihedral group for a norm), so the average of
        an optimum over the group is feasible and optimal — nothing is lost.
    gamma : float or Fraction, optional
        One step position for the gauge tail, in [0, 1); default: a gauge tail at each of
        the ``m`` positions the grid resolves (the LP mixes them).
    max_memory_gb : float
        Refuse LPs whose estimated memory exceeds this, in (0, inf).
    """

    privacy: PureDP
    sensitivity: float
    cost: Any
    sensitivity_norm: str
    resolution: int = DEFAULT_RESOLUTION_2D
    periods: int | None = None
    window: str = "auto"
    tails: str = "gauge+product"
    reduce_symmetric: bool = True
    gamma: Any = None
    max_memory_gb: float = 4.0

    def __post_init__(self) -> None:
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        if not isinstance(self.privacy, PureDP):
            raise ValueError(
                "`privacy` must be optmech.PureDP(epsilon) for a 2-D design (pure ε-DP only); "
                f"got {describe(self.privacy)}."
            )
        check_real("epsilon", self.privacy.epsilon, high=50.0, hint="2-D designs need ε ≤ 50")
        put("sensitivity", check_real("sensitivity", self.sensitivity, low=0.0, low_open=True))
        put("cost", as_vector_cost(self.cost))
        put("sensitivity_norm", _check_choice("sensitivity_norm", self.sensitivity_norm, NORMS))
        put("resolution", check_int("resolution", self.resolution, low=1, high=64))
        eps = self.privacy.epsilon
        periods = default_periods_2d(eps) if self.periods is None else self.periods
        put("periods", check_int("periods", periods, low=1, high=64))
        put("window", _check_choice("window", self.window, WINDOW_CHOICES))
        put("tails", _check_choice("tails", self.tails, TAIL_CHOICES))
        put("reduce_symmetric", check_flag("reduce_symmetric", self.reduce_symmetric))
        put(
            "max_memory_gb", check_real("max_memory_gb", self.max_memory_gb, low=0.0, low_open=True)
        )
        if self.gamma is not None:
            g = check_real("gamma", self.gamma, low=0.0, high=1.0, high_open=True)
            put("gamma", Fraction(g).limit_denominator(1 << 20))

    # -- derived --------------------------------------------------------------------------
    @property
    def epsilon(self) -> float:
        """ε."""
        return self.privacy.epsilon

    @property
    def cells(self) -> int:
        """``n₀ = K·m``: cells from the centre to the box's edge."""
        assert self.periods is not None
        return self.periods * self.resolution

    @property
    def group(self) -> str:
        """The symmetry group the LP is reduced by (``'none'`` when not reducing)."""
        return symmetry_of(self.cost) if self.reduce_symmetric else "none"

    @property
    def method(self) -> str:
        """The window form ``"auto"`` resolves to."""
        return "runs" if self.window == "auto" else self.window

    def size(self) -> dict[str, int | float]:
        """Variables, rows, nonzeros and estimated bytes of the LP, before building it."""
        n = 2 * self.cells
        widths = row_half_widths(self.sensitivity_norm, self.resolution)
        order = {"dihedral": 8, "reflections": 4, "none": 1}[self.group]
        reps = n * n // order + n
        w_rows, w_aux, w_nnz = window_size_2d(n, widths, self.method, rows_at=reps)
        w = (widths.size - 1) // 2
        band = 4 * n * w // order + w * w
        balls = {"l1": 3, "l2": 2, "linf": 1}[self.sensitivity_norm]
        steps = self.resolution if self.gamma is None else 1
        tails = balls * steps + (self.tails == "gauge+product")
        rows = 1 + w_rows + 2 * band * 3
        variables = reps + tails + w_aux
        nonzeros = reps + tails + w_nnz + 2 * band * 3 * (1 + tails)
        memory = nonzeros * _BYTES_PER_NONZERO + (rows + variables) * _BYTES_PER_ROW
        # The certificate, the repair and the cell costs hold a few arrays of the grown box.
        memory += 64 * (n + 2 * w) ** 2
        return {"variables": variables, "rows": rows, "nonzeros": nonzeros, "bytes": memory}

    def check_size(self) -> None:
        """Refuse an LP whose estimated memory exceeds `max_memory_gb` (before building)."""
        size = self.size()
        if size["bytes"] > self.max_memory_gb * 1e9:
            raise ProblemTooLargeError(
                f"the 2-D LP would need about {size['bytes'] / 1e9:.3g} GB "
                f"({size['variables']:,} variables, {size['rows']:,} rows, "
                f"{size['nonzeros']:,} nonzeros; resolution={self.resolution}, "
                f"periods={self.periods}, sensitivity_norm={self.sensitivity_norm!r}), above "
                f"max_memory_gb={self.max_memory_gb:g}. Lower the resolution or the periods, or "
                "raise max_memory_gb."
            )

    def replace(self, **changes: Any) -> AdditiveSpec2D:
        """A copy with some fields changed, validated again."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        fields.update(changes)
        return AdditiveSpec2D(**fields)

    @classmethod
    def options(cls) -> tuple[str, ...]:
        """The keyword options besides ``privacy``, ``sensitivity`` and ``cost``."""
        skip = {"privacy", "sensitivity", "cost"}
        return tuple(f.name for f in dataclasses.fields(cls) if f.name not in skip)
