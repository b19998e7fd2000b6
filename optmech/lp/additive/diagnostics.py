"""Diagnostics of a 1-D design: a certified interval wider than asked, a grid too coarse.

`warn_about` issues at most one `InaccurateSolutionWarning` (the certified interval
``[lower_bound, value]`` is wider than ``accuracy``, with the repair's part of it) and, for pure
ε-DP with a cost the staircase theorem covers (symmetric, non-decreasing in ``|x|``; Geng &
Viswanath 2016, Thm. 3), a `CoarseGridWarning` when the grid leaves the design more than
`STAIRCASE_WARN_RATIO` above the staircase optimum V*.
"""

from __future__ import annotations

import warnings

from optmech.exceptions import InaccurateSolutionWarning
from optmech.lp.additive.designed import DesignedNoise
from optmech.lp.additive.grid import GridKind
from optmech.lp.additive.lp import AdditiveLP
from optmech.lp.additive.spec import _top_step_cells
from optmech.privacy import PureDP
from optmech.provenance import RepairKind

__all__ = ["STAIRCASE_WARN_RATIO", "CoarseGridWarning", "warn_about"]

#: Warn when a pure ε-DP design costs more than this times the staircase optimum V*.
#: The default grids stay within 1.02 (tests/test_lp_additive_large_eps.py); user-given coarse
#: grids of the experiments and the theorem catalogue reach 1.024 (ε = 10, m = 120).
STAIRCASE_WARN_RATIO = 1.05


class CoarseGridWarning(UserWarning):
    """A design's grid is too coarse to resolve the optimum the staircase theorem predicts.

    Examples
    --------
    >>> import warnings
    >>> import optmech
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     coarse = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs",
    ...                                   resolution=1, periods=2)
    >>> [w.category.__name__ for w in caught]
    ['CoarseGridWarning']
    """


def warn_about(noise: DesignedNoise, lp: AdditiveLP, *, stacklevel: int = 2) -> None:
    """The warnings a design deserves: a wide certified interval, a grid too coarse."""
    prov = noise.provenance
    _warn_wide(noise, lp, stacklevel + 1)
    # The grid's own optimum is what a coarse grid costs: the value when the interval is
    # narrow, else only what the lower bound proves.
    _warn_coarse(lp, prov.value if prov.within_accuracy else prov.lower_bound, stacklevel + 1)


def _warn_wide(noise: DesignedNoise, lp: AdditiveLP, stacklevel: int) -> None:
    """One `InaccurateSolutionWarning` when the certified interval is too wide."""
    prov = noise.provenance
    if prov.within_accuracy:
        return
    rep = prov.repair
    record = noise.record
    was = (
        f"ε = {record.raw_certified_epsilon:.6g}"
        if lp.spec.pure
        else f"δ = {record.raw_certified_delta:.6g}"
    )
    cause = (
        f"the solver's point was not {lp.privacy} (certified {was}); repaired by {rep.kind} at "
        f"a cost of {rep.cost:.3g} ({rep.cost / max(abs(prov.value), 1e-300):.2%} of the "
        "value), so "
        if rep.kind != RepairKind.NONE
        else ""
    )
    warnings.warn(
        f"{cause}the optimality interval [{prov.lower_bound:.10g}, {prov.value:.10g}] of the "
        f"LP's optimum is wider than the requested accuracy {prov.accuracy:g} (relative gap "
        f"{prov.relative_gap:.3g}; solver {prov.solver}, status {prov.status}). Try another "
        "solver or tighter tolerances for a better optimum, or raise `accuracy`.",
        InaccurateSolutionWarning,
        stacklevel=stacklevel,
    )


def _warn_coarse(lp: AdditiveLP, optimum: float, stacklevel: int) -> None:
    """A `CoarseGridWarning` when the staircase theorem's V* shows the grid too coarse:
    ``optimum`` (the LP's optimum, or a lower bound of it) above `STAIRCASE_WARN_RATIO` times
    V*."""
    spec = lp.spec
    privacy = spec.privacy
    if not isinstance(privacy, PureDP):
        return
    coarse = lp.grid.kind == GridKind.GRADED or (
        lp.grid.kind == GridKind.UNIFORM and lp.grid.period < _top_step_cells(privacy.epsilon)
    )
    if not (coarse and spec.cost.is_symmetric_nondecreasing):
        return
    if lp.declared or lp.custom is not None:  # the caller's constraints: V* is not the optimum
        return
    from optmech.mechanisms.staircase import Staircase

    try:
        best = Staircase.optimal(
            epsilon=privacy.epsilon, sensitivity=spec.sensitivity, cost=spec.cost
        )
        v_star = best.expected_cost(spec.cost)
    except ValueError:  # outside the closed form's range: nothing to compare with
        return
    if optimum > STAIRCASE_WARN_RATIO * v_star:
        warnings.warn(
            f"the design costs {optimum / v_star:.4g}x the staircase optimum V* = {v_star:.6g} "
            f"(Geng & Viswanath 2016, Thm. 3): its grid ({lp.grid.kind}, {lp.grid.period} cells "
            f"per Δ) cannot resolve the optimum's top step γ*Δ = {best.gamma:.3g}Δ. Leave "
            "`resolution` unset (a graded grid) or raise it.",
            CoarseGridWarning,
            stacklevel=stacklevel,
        )
