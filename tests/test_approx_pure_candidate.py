"""(ε, δ) designs weigh the ε-DP design: a tiny δ is served, and a large ε is not left worse
than the ε-DP optimum by the uniform grid.

Independent truths: the staircase's closed-form cost (Geng & Viswanath 2016), the truncated
Laplace's in closed form (Geng, Ding, Guo & Kumar 2020; ``tests/_reference.py``, whose formula a
quadrature of its density checks), and the returned noise's privacy certified again here in
rational arithmetic."""

from __future__ import annotations

import pytest
from _reference import truncated_laplace_cost

import optmech
from optmech.certify.noise_certificate import certify_noise
from optmech.privacy import ApproxDP


def _staircase(epsilon: float) -> float:
    return optmech.Staircase.optimal(epsilon=epsilon, sensitivity=1.0, cost="abs").expected_cost(
        "abs"
    )


@pytest.mark.slow
@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-12), (1.0, 1e-100), (5.0, 1e-300)])
def test_a_delta_below_what_the_lp_resolves_is_answered_by_the_pure_design(
    epsilon: float, delta: float
) -> None:
    """Below the δ the LP resolves: the ε-DP design, certified again in exact arithmetic with
    δ = 0, within the grid's resolution of the staircase, cheaper than the truncated Laplace."""
    noise = optmech.design_noise(ApproxDP(epsilon, delta), sensitivity=1.0, cost="abs")
    assert noise.record.source == "pure"
    certificate = certify_noise(
        noise, epsilon=epsilon, guarantee=ApproxDP(epsilon, delta), exact=True
    )
    assert certificate.holds and certificate.delta == 0.0
    assert noise.certified_delta == 0.0
    best_pure = _staircase(epsilon)
    # A grid ε-DP noise costs at least the staircase; the default grid is within 1e-6 of it.
    assert best_pure * (1 - 1e-12) <= noise.value <= best_pure * (1 + 1e-6)
    assert noise.value < truncated_laplace_cost(epsilon, delta, "abs")
    # The interval brackets the optimum over both grids' noises: its lower bound is at most
    # the ε-DP LP's own (a design of its own here), and at most the value returned.
    alone = optmech.design_noise(optmech.PureDP(epsilon), sensitivity=1.0, cost="abs")
    assert noise.lower_bound <= alone.lower_bound
    assert noise.lower_bound <= noise.value


def test_at_large_epsilon_the_design_is_not_worse_than_the_pure_optimum() -> None:
    """ε = 5, δ = 1e-11: the uniform-grid (ε, δ) LP costs about 10% more than the staircase;
    the returned design is within the grid's resolution of the staircase or below it."""
    noise = optmech.design_noise(ApproxDP(5.0, 1e-11), sensitivity=1.0, cost="abs")
    assert noise.value <= _staircase(5.0) * (1 + 1e-6)
    assert certify_noise(noise, epsilon=5.0, guarantee=ApproxDP(5.0, 1e-11), exact=True).holds


def test_where_delta_helps_the_lp_design_is_returned() -> None:
    """ε = 1, δ = 1e-3: the (ε, δ) design beats the staircase (δ buys a finite support)."""
    noise = optmech.design_noise(ApproxDP(1.0, 1e-3), sensitivity=1.0, cost="abs")
    assert noise.record.source == "solver"
    assert noise.value < _staircase(1.0) * (1 - 1e-3)
    assert noise.value < truncated_laplace_cost(1.0, 1e-3, "abs")
    assert 0.0 < noise.certified_delta <= 1e-3


def test_a_named_grid_gets_the_lp_of_that_grid_alone() -> None:
    """With ``resolution``/``periods`` given (and δ within reach) no ε-DP design is weighed:
    the result is a point of that LP (its support is the grid's, ``periods`` Δ each side)."""
    noise = optmech.design_noise(
        ApproxDP(5.0, 1e-3), sensitivity=1.0, cost="abs", resolution=4, periods=4
    )
    assert noise.record.source != "pure"
    assert noise.record.periods == 4 and noise.record.resolution == 4


@pytest.mark.parametrize("delta", [1e-300, 1e-13])
def test_a_tiny_delta_with_constraints_is_refused_by_name(delta: float) -> None:
    """With constraints no ε-DP design stands in: the designer and the command line's check
    refuse the δ, naming `delta` and the value received."""
    from optmech.cli._limits import check_design_1d
    from optmech.constraints import Unbiased

    with pytest.raises(ValueError, match=rf"`delta` must be .*got {delta:g}"):
        optmech.design_noise(
            ApproxDP(1.0, delta), sensitivity=1.0, cost="abs", constraints=Unbiased()
        )
    with pytest.raises(ValueError, match=r"`delta`"):
        check_design_1d(ApproxDP(1.0, delta), 1.0, "abs", constrained=True)


def test_a_failing_pure_candidate_leaves_the_lp_design(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ε-DP candidate is an improvement, never a new way to fail: if it fails, the (ε, δ)
    design is returned as it would be alone; for a tiny δ (no other answer) the failure shows."""
    from optmech.exceptions import SolverError
    from optmech.lp.additive import approx

    real = approx._designed

    def failing_pure(spec, run):  # type: ignore[no-untyped-def]
        if spec.pure:
            raise SolverError("HIGHS", "numerical trouble", "made to fail here")
        return real(spec, run)

    monkeypatch.setattr(approx, "_designed", failing_pure)
    noise = optmech.design_noise(ApproxDP(5.0, 1e-6), sensitivity=1.0, cost="abs")
    assert noise.record.source != "pure" and noise.certified_delta <= 1e-6
    with pytest.raises(SolverError, match="made to fail here"):
        optmech.design_noise(ApproxDP(1.0, 1e-13), sensitivity=1.0, cost="abs")
