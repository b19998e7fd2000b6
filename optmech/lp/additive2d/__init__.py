"""The LP designer of additive noise in ℝ²: optimal ε-DP noise for a ball of shifts.

Mechanism ``K(D) = q(D) + X`` with ``q(D) ∈ ℝ²`` and ``‖q(D₁) − q(D₂)‖ ≤ Δ`` in the ℓ1, ℓ2 or ℓ∞
norm (Geng, Kairouz, Oh & Viswanath 2015; Kulesza, Suresh & Wang 2025). The noise is searched among
densities constant on square cells of side ``Δ/m`` of a box ``[−KΔ, KΔ)²``, closed outside by a
non-negative combination of ε-DP tail shapes; the pairs of cells a real shift in the ball connects
are constrained exactly, so every feasible point is ε-DP on all of ℝ², and its cost (exact cell
averages, exact tail series) is an upper bound for the continuous problem.

The package, one idea per module:

`spec`
    `AdditiveSpec2D`: the validated specification and the size estimate.
`windows`
    The window rows over the box, all pairs or runs of a sparse table.
`lp`
    `build_additive_lp_2d`: orbits of the symmetry group, costs, tails, band rows.
`repair`
    The least ε-DP envelope above a solver's point.
`design`
    `design_noise_2d`: solve, repair, certify, bound, record.
`designed`
    `DesignedNoise2D` and its `DesignRecord2D`.
"""

from optmech.lp.additive2d.design import design_noise_2d, finish_design_2d
from optmech.lp.additive2d.designed import DesignedNoise2D, DesignRecord2D
from optmech.lp.additive2d.lp import AdditiveLP2D, build_additive_lp_2d
from optmech.lp.additive2d.spec import AdditiveSpec2D

__all__ = [
    "AdditiveLP2D",
    "AdditiveSpec2D",
    "DesignRecord2D",
    "DesignedNoise2D",
    "build_additive_lp_2d",
    "design_noise_2d",
    "finish_design_2d",
]
