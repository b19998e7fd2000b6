"""The lattice form of the privacy blanket (`optmech.certify.shuffle_blanket_fft`).

- Against brute force: δ of the shuffled histogram, worst over pairs and every dataset of the
  others (``_shuffle_reference.brute_delta``); the lattice curve must lie above it.
- Against the blanket divergence itself, every sequence of blanket draws enumerated
  (``tests.test_shuffle_blanket.direct_blanket``): never below, and close.
- Against the grouped exact form where it applies (k-ary randomized response): never below,
  and close.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

import optmech
from optmech.certify.shuffle_blanket_fft import LatticeCurve, lattice_pairs
from tests.test_shuffle import brute_delta, random_matrix, rr
from tests.test_shuffle_blanket import curve_of, direct_blanket

EPS = (0.05, 0.3, 0.8)


def lattice_curve(matrix: npt.NDArray[np.float64], n: int) -> LatticeCurve:
    pairs = lattice_pairs(matrix)
    assert pairs is not None
    eps0 = optmech.shuffle_epsilon(matrix, 2, 0.5).local_epsilon
    return LatticeCurve(n, pairs, eps0)


MATRICES = [
    ("random3x4", random_matrix(11, 3, 4, 2.0)),
    ("random4x5", random_matrix(12, 4, 5, 1.5)),
    ("dirichlet3x4", np.random.default_rng(5).dirichlet(np.ones(4), size=3)),
]


@pytest.mark.parametrize(("name", "matrix"), MATRICES)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_lattice_is_above_the_brute_force_histogram(
    name: str, matrix: npt.NDArray[np.float64], n: int
) -> None:
    curve = lattice_curve(matrix, n)
    for eps in EPS:
        assert curve(eps) >= brute_delta(matrix, n, eps), (name, n, eps)


@pytest.mark.parametrize(("name", "matrix"), MATRICES)
@pytest.mark.parametrize("n", [2, 4, 5])
def test_lattice_is_above_and_near_the_enumerated_divergence(
    name: str, matrix: npt.NDArray[np.float64], n: int
) -> None:
    curve = lattice_curve(matrix, n)
    for eps in EPS:
        truth = direct_blanket(matrix, n, eps)
        value = curve(eps)
        assert value >= truth, (name, n, eps)
        assert value <= truth * 1.02 + 1e-6, (name, n, eps, value, truth)


@pytest.mark.parametrize(("k", "eps0"), [(3, 1.0), (4, 2.0), (8, 1.0)])
@pytest.mark.parametrize("n", [10, 1000, 100_000])
def test_lattice_is_above_and_near_the_grouped_form(k: int, eps0: float, n: int) -> None:
    matrix = rr(eps0, k)
    exact, lattice = curve_of(matrix, n), lattice_curve(matrix, n)
    for eps in (0.05 * eps0, 0.2 * eps0, 0.5 * eps0):
        truth, value = exact(eps), lattice(eps)
        # the grouped form is itself an upper bound charged ~1e-12 relative and its tails
        assert value >= truth * (1.0 - 1e-6) - 1e-12, (k, n, eps)
        assert value <= truth * 1.05 + 1e-9, (k, n, eps, value, truth)


@pytest.mark.slow
def test_blanket_method_uses_the_lattice_for_general_matrices() -> None:
    matrix = np.random.default_rng(3).dirichlet(np.ones(6), size=5)
    g = optmech.shuffle_epsilon(matrix, n=10_000, delta=1e-6, method="blanket")
    clone = optmech.shuffle_epsilon(matrix, n=10_000, delta=1e-6, method="clones")
    assert g.lower_bound <= g.epsilon < clone.epsilon
