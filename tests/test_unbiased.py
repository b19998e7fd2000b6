"""Unbiased randomizers (Badanidiyuru et al. (2023)) and the declarative constraints' values.

Independent truth:

* two labels ``x₀ < x₁``: randomized response onto ``a = x₀ − Δ/(e^ε − 1)`` and
  ``b = x₁ + Δ/(e^ε − 1)`` (``Δ = x₁ − x₀``) is unbiased — ``E[Y | x₀] = (b + e^ε a)/(1 + e^ε) =
  x₀`` — and its variance is ``e^ε Δ²/(e^ε − 1)²`` for both labels, whatever the prior (written
  out here); the LP on a grid containing ``a`` and ``b`` must contain that value in its
  certified interval, and on any grid it can never be below the LP over a finer grid's optimum
  by more than the interval's width;
* a vertex of the unbiased LP has at most ``2n`` used outputs (``n`` simplex rows and ``n`` mean
  rows: every used column needs one of them to be basic) — the structural claim of
  Badanidiyuru et al. (2023) that some optimal unbiased randomizer has at most ``2|Y|`` outputs;
* the price of unbiasedness is never negative: RR-on-Bins (optimal among all randomizers, its
  programme checked by brute force in `tests/test_rr_on_bins.py`) is below the unbiased optimum.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import optmech
from optmech.constraints import (
    Custom,
    MaxCost,
    MaxRisk,
    Monotone,
    TailBound,
    Unbiased,
    as_constraints,
)
from optmech.costs import Absolute


@pytest.mark.parametrize("eps", [0.4, 1.0, 2.5])
@pytest.mark.parametrize("prior", [[0.5, 0.5], [0.15, 0.85]])
def test_two_labels_debiased_randomized_response(eps: float, prior: list[float]) -> None:
    x0, x1 = 1.0, 3.0
    delta = x1 - x0
    e = math.exp(eps)
    a, b = x0 - delta / (e - 1), x1 + delta / (e - 1)
    assert (b + e * a) / (1 + e) == pytest.approx(x0) and (e * b + a) / (1 + e) == pytest.approx(x1)
    closed = e * delta**2 / (e - 1) ** 2
    grid = np.union1d(np.linspace(a - 3, b + 3, 41), [a, b])
    res = optmech.local_mechanism(
        prior, "squared", eps, inputs=[x0, x1], outputs=grid, constraints=Unbiased()
    )
    slack = 1e-12 * closed
    assert res.lower_bound - slack <= closed <= res.value + slack


@pytest.mark.parametrize("seed", range(5))
def test_a_vertex_of_the_unbiased_lp_uses_at_most_two_outputs_per_label(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    x = np.sort(rng.choice(np.arange(40), n, replace=False)).astype(float)
    p = rng.dirichlet(np.ones(n))
    span = x[-1] - x[0]
    y = np.linspace(x[0] - 3 * span, x[-1] + 3 * span, 73)
    eps = float(rng.uniform(0.5, 3.0))
    res = optmech.local_mechanism(
        p, "squared", eps, inputs=x, outputs=y, constraints=Unbiased(), vertex=True
    )
    assert 2 <= res.support.size <= 2 * n
    rr = optmech.rr_on_bins(p, "squared", eps, inputs=x)
    assert res.lower_bound >= rr.value  # the price of unbiasedness is never negative
    assert np.max(np.abs(res.mechanism @ y - x)) <= 1e-9 * np.max(np.abs(y))


def test_without_constraints_a_vertex_uses_at_most_one_output_per_label() -> None:
    """``n`` simplex rows: at most ``n`` used outputs, as RR-on-Bins has at most ``n`` bins."""
    rng = np.random.default_rng(9)
    x = np.sort(rng.choice(np.arange(40), 6, replace=False)).astype(float)
    p = rng.dirichlet(np.ones(6))
    res = optmech.local_mechanism(
        p, "absolute", 1.5, inputs=x, outputs=np.linspace(x[0], x[-1], 50), vertex=True
    )
    assert res.support.size <= 6


# -- the constraint values themselves --------------------------------------------------------
def test_constraints_are_frozen_and_validated() -> None:
    risk = MaxRisk(2)
    assert risk.bound == 2.0 and isinstance(risk.bound, float)
    with pytest.raises(AttributeError):
        risk.bound = 3.0  # type: ignore[misc]
    with pytest.raises(ValueError, match="`bound` must be"):
        MaxRisk(0)
    with pytest.raises(ValueError, match="`probability` must be"):
        TailBound(1.0, 1.5)
    with pytest.raises(ValueError, match="`t` must be"):
        TailBound(-1.0, 0.1)
    with pytest.raises(ValueError, match="`bound` must be"):
        MaxCost("abs", -2)
    assert MaxCost("abs", 1).cost == Absolute()
    with pytest.raises(TypeError, match="`function` must be callable"):
        Custom(3)  # type: ignore[arg-type]
    assert Unbiased() == Unbiased() and Unbiased().kind == "equality"
    assert Monotone().name == "Monotone()"


def test_as_constraints() -> None:
    def cap(v: object) -> list:
        return []

    out = as_constraints([Unbiased(), cap])
    assert out[0] == Unbiased() and isinstance(out[1], Custom) and out[1].name == "Custom('cap')"
    assert as_constraints(None) == () and as_constraints(Monotone()) == (Monotone(),)
    with pytest.raises(TypeError, match="`constraints` must hold"):
        as_constraints([Unbiased, "x"])
