"""Remaps with provenance: the exact Bayes remap and the certified minimax remap LP.

Independent truth for the minimax instance ``|e|``, n = 30, ε = 3, S = {0, 30}, where the
geometric mechanism's entries reach e^-90 (the remap LP used to fail: HiGHS "solver_error",
Clarabel "unbounded"):

* above: ``G`` (from the formula of Ghosh, Roughgarden & Sundararajan (2012), §2) followed by
  the Bayes remap for the prior uniform on S is a feasible remap; its worst case over S is an
  upper bound on the minimax optimum;
* below: the minimax optimum is at least the Bayesian optimum for that prior (an average is at
  most the maximum), which by GRS Thm. 3.1 is ``G`` + Bayes remap's *average* over S.

The instance is symmetric under ``i → 30 − i``, so both are the same number here: the
optimum is known. Margin 1e-12 relative: sums of ≤ 31² non-negative float products whose
factors ``α^k`` carry ≤ 30 ulps. Gupte & Sundararajan (2010): the minimax user's optimal
mechanism and ``G`` + the best randomized remap have equal optima, so the two certified
intervals must intersect.
"""

from __future__ import annotations

import numpy as np
import pytest
from _reference import geometric_from_theory

from optmech.costs import Absolute
from optmech.exceptions import ProblemTooLargeError
from optmech.lp.geometric_remaps import geometric_minimax
from optmech.lp.remap import RemapKind, bayes_remap, minimax_remap
from optmech.lp.user import minimax_mechanism

MARGIN = 1e-12


def _known_optimum(n: int, eps: float, side: list[int]) -> tuple[float, float]:
    """(average, worst case) over S of G + the Bayes remap for the uniform prior on S."""
    g = geometric_from_theory(n, eps)
    loss = np.abs(np.subtract.outer(np.arange(n + 1), np.arange(n + 1))).astype(float)
    choice = np.argmin(g[side].T @ loss[side], axis=1)  # posterior loss per output z
    losses = [float(np.sum(g[i] * loss[i, choice])) for i in side]
    return float(np.mean(losses)), max(losses)


def test_geometric_minimax_with_entries_down_to_e_minus_90(lp_solver: str) -> None:
    n, eps, side = 30, 3.0, [0, 30]
    avg, worst = _known_optimum(n, eps, side)
    assert worst == pytest.approx(avg, rel=MARGIN)  # the symmetric instance: optimum known
    remap = geometric_minimax(Absolute(), eps, n=n, side_information=side, solver=lp_solver)
    user = minimax_mechanism(Absolute(), eps, n=n, side_information=side, solver=lp_solver)
    for res in (remap, user):
        assert res.lower_bound <= worst * (1 + MARGIN)
        assert res.value >= avg * (1 - MARGIN)
        assert res.provenance.within_accuracy
    # Gupte & Sundararajan: equal optima, so the certified intervals intersect.
    assert max(remap.lower_bound, user.lower_bound) <= min(remap.value, user.value)
    assert remap.kind is RemapKind.MINIMAX and remap.assignment is None
    assert np.allclose(remap.remap.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_bayes_remap_is_exact_with_its_provenance() -> None:
    """No LP: solver "none", status "exact", and the value is its own lower bound."""
    res = bayes_remap(np.full((3, 3), 1 / 3), [0.1, 0.3, 0.6], "abs")
    assert res.provenance.solver == "none" and res.provenance.status == "exact"
    # Uniform rows: every output reports the prior's median 2, at Σ p_i |i − 2| = 0.5 (exact).
    assert res.value == res.lower_bound == 0.5
    assert res.provenance.attempts == ()
    assert repr(res) == (
        "RemapResult(bayes, 3x3, value=0.5, lower_bound=0.5, solver=none, status=exact)"
    )


def test_minimax_remap_provenance_and_repr(lp_solver: str) -> None:
    g = geometric_from_theory(12, 0.7)
    res = minimax_remap(g, "squared", [0, 5, 12], solver=lp_solver)
    assert res.solver in (lp_solver, "none")
    assert res.provenance.attempts and res.provenance.within_accuracy
    text = repr(res)
    assert text.startswith("RemapResult(minimax, 13x13, value=") and "[[" not in text


def test_remap_refusal_quotes_the_memory_estimate() -> None:
    """300 × 300 × 300 dense coefficients at 250 bytes each: 6.8 GB, above the 5 GB default."""
    with pytest.raises(
        ProblemTooLargeError, match=r"about 6\.8 GB of solver memory\), more than max_memory_gb"
    ):
        minimax_remap(np.full((300, 300), 1 / 300), "abs")
    with pytest.raises(ProblemTooLargeError, match="refused before building"):
        minimax_remap(np.full((30, 30), 1 / 30), "abs", max_memory_gb=1e-3)
