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

`spec`
    `AdditiveSpec`: the validated specification and the size estimate.
`grid`
    Uniform, graded and integer grids; masses and exact cell costs.
`rows`
    The constraint rows as named blocks (window, monotone, hockey-stick).
`lp`
    `build_additive_lp` and `AdditiveLP`.
`designer`
    `design_additive` and
    `finish_design`: solve, certify, repair, bound, record.
`repair`
    The least ε-DP envelope above a solver's point, and the (ε, δ) mixture.
`diagnostics`
    A certified interval wider than asked, a grid too coarse for the staircase optimum.
`designed`
    `DesignedNoise` and its record.
`pairs`, `divergences`
    Beyond (ε, δ): the pairs of every shift over the tails; hockey-stick rows, Rényi and
    Kullback–Leibler cones.
`beyond`
    Designs under zCDP, Rényi DP, GDP and privacy profiles: cutting planes over orders / ε,
    certified over the continuum.

The entry point is `optmech.design_noise`, which chooses between
this designer, the one beyond (ε, δ) and the 2-D one; the certified interval, the repair loop and
the cross-check are the engine's (`optmech.lp.engine`). Reading
``optmech.lp.additive.design_noise`` still works, with a `DeprecationWarning`.

Examples
--------
>>> import numpy as np
>>> import optmech
>>> spec = AdditiveSpec(optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=8,
...                     periods=2, symmetric=True)
>>> noise = design_additive(spec, DesignRun())
>>> noise.certified_epsilon <= 1.0 * (1 + 1e-9)
True
>>> v_star = float(np.exp(0.5) / (np.e - 1))     # staircase optimum, Geng & Viswanath (2016)
>>> bool(noise.lower_bound <= noise.value and v_star <= noise.value <= 1.001 * v_star)
True
"""

from typing import Any

from optmech._deprecation import warn_deprecated
from optmech.lp.additive.designer import design_additive, finish_design
from optmech.lp.additive.diagnostics import STAIRCASE_WARN_RATIO, CoarseGridWarning
from optmech.lp.additive.grid import AdditiveGrid, GridKind, graded_widths
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
from optmech.lp.engine.acceptance import PRIVACY_RTOL
from optmech.lp.engine.interval import lp_interval
from optmech.lp.engine.run import DesignRun

__all__ = [
    "DEFAULT_MAX_MEMORY_GB",
    "PRIVACY_RTOL",
    "STAIRCASE_WARN_RATIO",
    "AdditiveGrid",
    "AdditiveLP",
    "AdditiveSpec",
    "CoarseGridWarning",
    "DesignRun",
    "GridKind",
    "RowBlock",
    "RowRecord",
    "WindowForm",
    "build_additive_lp",
    "default_periods",
    "default_resolution",
    "design_additive",
    "estimate_additive_size",
    "finish_design",
    "graded_widths",
    "lp_interval",
]


def __getattr__(name: str) -> Any:
    """``design_noise``, the dispatcher above this package, read from here: it warns (PEP 562)."""
    if name == "design_noise":
        from optmech.lp import design as dispatch

        warn_deprecated("`optmech.lp.additive.design_noise`", "`optmech.design_noise`")
        return dispatch.design_noise
    raise AttributeError(f"module 'optmech.lp.additive' has no attribute {name!r}")
