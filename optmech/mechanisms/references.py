"""The closed-form noise a design is compared with: the theorem's optimum where one applies,
and the standard baselines otherwise.

* ε-DP, a cost symmetric and non-decreasing in ``|x|``: the staircase on ℝ, the discrete
  staircase on ℤ (Geng & Viswanath 2016, Thm. 3 and, on ℤ, §VI, Thm. 12);
* (0, δ), such a cost, on ℝ: uniform + atom, optimal *within symmetric noise non-increasing in
  |x|* (Geng, Ding, Guo & Kumar 2019, Thm. 3);
* (ε, δ) with ε > 0: no optimum in closed form; the truncated Laplace (Geng et al. 2020) and
  the analytically calibrated Gaussian (Balle & Wang 2018) as baselines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from optmech.costs import Cost, as_cost
from optmech.privacy import ApproxDP, PureDP

__all__ = ["ClosedFormReference", "closed_form_reference"]


@dataclass(frozen=True)
class ClosedFormReference:
    """What a design is compared with.

    Attributes
    ----------
    label : str
        The reference's name and source, or why there is none.
    optimum : NoiseDistribution or None
        The theorem's optimal noise (``None`` where no theorem applies).
    baselines : list of (str, NoiseDistribution)
        Named baseline noises.
    """

    label: str
    optimum: Any = None
    baselines: list[tuple[str, Any]] = field(default_factory=list)


def _pure(privacy: PureDP, sensitivity: float, cost: Cost, integer: bool) -> ClosedFormReference:
    if not cost.is_symmetric_nondecreasing:
        return ClosedFormReference("none (cost outside the staircase theorem)")
    if integer:
        from optmech.mechanisms.discrete_staircase import DiscreteStaircase

        ref = DiscreteStaircase.optimal(
            epsilon=privacy.epsilon, sensitivity=int(sensitivity), cost=cost
        )
        return ClosedFormReference("discrete staircase optimum (Geng & Viswanath 2016)", ref)
    from optmech.mechanisms.staircase import Staircase

    best = Staircase.optimal(epsilon=privacy.epsilon, sensitivity=sensitivity, cost=cost)
    return ClosedFormReference("staircase optimum (Geng & Viswanath 2016)", best)


def closed_form_reference(
    privacy: PureDP | ApproxDP, sensitivity: float, cost: Cost | str, *, integer: bool = False
) -> ClosedFormReference:
    """The closed-form optimum (or baselines) for a design (module docstring).

    Examples
    --------
    >>> closed_form_reference(PureDP(1.0), 1.0, "abs").label
    'staircase optimum (Geng & Viswanath 2016)'
    """
    cost = as_cost(cost)
    if isinstance(privacy, PureDP):
        return _pure(privacy, sensitivity, cost, integer)
    if privacy.epsilon > 0:
        from optmech.mechanisms.gaussian import Gaussian
        from optmech.mechanisms.truncated_laplace import TruncatedLaplace

        eps, delta = privacy.epsilon, privacy.delta
        return ClosedFormReference(
            "none ((ε, δ): baselines only)",
            None,
            [
                (
                    "truncated Laplace",
                    TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sensitivity),
                ),
                (
                    "Gaussian (analytic)",
                    Gaussian(
                        epsilon=eps, delta=delta, sensitivity=sensitivity, calibration="analytic"
                    ),
                ),
            ],
        )
    if cost.is_symmetric_nondecreasing and not integer:
        from optmech.mechanisms.uniform_atom import UniformAtom

        ref = UniformAtom.optimal(delta=privacy.delta, sensitivity=sensitivity, cost=cost)
        return ClosedFormReference(
            "uniform+atom optimum within symmetric non-increasing noise "
            "(Geng, Ding, Guo & Kumar 2019)",
            ref,
        )
    return ClosedFormReference("none")
