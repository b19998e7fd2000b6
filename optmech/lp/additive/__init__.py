"""The LP designer of additive noise: optimal ε-DP, (0, δ), (ε, δ) noise — and noise under
zCDP, Rényi DP, Gaussian DP and privacy profiles — for any cost.

Mechanism ``K(D) = q(D) + X`` (Geng & Viswanath 2016 for ε-DP; Geng, Ding, Guo & Kumar 2019
for (0, δ)). The noise ``X`` is searched among densities constant on the cells of a Δ-periodic
grid of ``[−KΔ, KΔ)`` (``m`` cells per Δ, uniform or graded, ``K`` periods each side), or among
pmfs on the integers ``−KΔ..KΔ`` when queries and Δ are integers. Everything is exact: the
objective is the cell-averaged cost (an upper bound for the continuous problem that converges
to it), the ε-DP tail beyond ``±KΔ`` continues the outermost period geometrically with ratio
``e^−ε`` per period, and the window rows on a Δ-periodic grid are exactly ε-DP on ℝ.

The package, one idea per module:

[`spec`][optmech.lp.additive.spec]
    [`AdditiveSpec`][AdditiveSpec]: the validated specification and the size estimate.
[`grid`][optmech.lp.additive.grid]
    Uniform, graded and integer grids; masses and exact cell costs.
[`rows`][optmech.lp.additive.rows]
    The constraint rows as named blocks (window, monotone, hockey-stick).
[`lp`][optmech.lp.additive.lp]
    [`build_additive_lp`][build_additive_lp] and [`AdditiveLP`][AdditiveLP].
[`design`][optmech.lp.additive.design]
    [`design_noise`][design_noise] and [`finish_design`][finish_design]: solve, certify, repair,
    bound, record.
[`interval`][optmech.lp.additive.interval]
    The certified interval ``[lower_bound, value]`` of a solved LP: the value at the point,
    rounded up, and weak duality with the solver's multipliers.
[`pairs`][optmech.lp.additive.pairs], [`divergences`][optmech.lp.additive.divergences]
    Beyond (ε, δ): the pairs of every shift over the tails; hockey-stick rows, Rényi and
    Kullback–Leibler cones.
[`beyond`][optmech.lp.additive.beyond]
    Designs under zCDP, Rényi DP, GDP and privacy profiles: cutting planes over orders / ε,
    certified over the continuum.

Examples
--------
>>> import numpy as np
>>> import optmech
>>> noise = design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=8,
...                      periods=2, symmetric=True)
>>> noise.certified_epsilon <= 1.0 * (1 + 1e-9)
True
>>> v_star = float(np.exp(0.5) / (np.e - 1))     # staircase optimum, Geng & Viswanath (2016)
>>> bool(noise.lower_bound <= noise.value and v_star <= noise.value <= 1.001 * v_star)
True
"""

from optmech.lp.additive.design import (
    PRIVACY_RTOL,
    STAIRCASE_WARN_RATIO,
    CoarseGridWarning,
    design_noise,
    finish_design,
)
from optmech.lp.additive.grid import AdditiveGrid, GridKind, graded_widths
from optmech.lp.additive.interval import lp_interval
from optmech.lp.additive.lp import AdditiveLP, build_additive_lp
from optmech.lp.additive.rows import RowBlock, RowRecord
from optmech.lp.additive.spec import (
    DEFAULT_MAX_MEMORY_GB,
    AdditiveSpec,
    WindowForm,
    default_periods,
    default_resolution,
    estimate_additive_size,
)

__all__ = [
    "DEFAULT_MAX_MEMORY_GB",
    "PRIVACY_RTOL",
    "STAIRCASE_WARN_RATIO",
    "AdditiveGrid",
    "AdditiveLP",
    "AdditiveSpec",
    "CoarseGridWarning",
    "GridKind",
    "RowBlock",
    "RowRecord",
    "WindowForm",
    "build_additive_lp",
    "default_periods",
    "default_resolution",
    "design_noise",
    "estimate_additive_size",
    "finish_design",
    "graded_widths",
    "lp_interval",
]
