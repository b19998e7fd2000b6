"""Library errors name the parameter, its valid range and the value received.

Each case is the exact call that gave a message naming no parameter (or a bare numpy one):
a power cost whose tail sums overflow, bad priors, graph builders given bad sizes.
"""

from __future__ import annotations

import math
import re
import sys

import numpy as np
import pytest
from scipy import optimize

from optmech._validation import check_prior
from optmech.costs import as_cost
from optmech.exceptions import ProblemTooLargeError
from optmech.graphs import grid_graph, parse_graph, path_graph, sensitivity_graph
from optmech.mechanisms.staircase import Staircase

LOG_FLOAT_MAX = math.log(sys.float_info.max)


def _largest_gamma_exponent() -> float:
    """The ``p`` with ``Γ(p + 1)`` = the largest float: at ε = 1, Δ = 1 the tail sums of
    ``|e|^p`` are about ``Σ_k e^(−k) k^p ≈ Γ(p + 1)`` (the Laplace law's moments)."""
    return float(optimize.brentq(lambda p: math.lgamma(p + 1.0) - LOG_FLOAT_MAX, 100.0, 200.0))


def test_an_overflowing_power_names_the_exponent_and_its_finite_range() -> None:
    cost = as_cost("power:1000")
    with pytest.raises(ValueError) as caught:
        Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost=cost)
    message = str(caught.value)
    assert "`power`" in message and "got 1000." in message
    found = re.search(r"in \(0, ([0-9.]+)\] \(about\)", message)
    assert found is not None, message
    largest = float(found.group(1))
    assert largest == pytest.approx(_largest_gamma_exponent(), abs=0.5)
    # The range is the one that holds: just inside the tail sum is finite, just outside not.
    tail = {"period": 1.0, "ratio": math.exp(-1.0)}
    assert math.isfinite(as_cost(f"power:{int(largest)}").periodic_integral(0.0, 1.0, **tail))
    with pytest.raises(ValueError, match="`power`"):
        as_cost(f"power:{int(largest) + 2}").periodic_integral(0.0, 1.0, **tail)


def test_the_periodic_integral_of_a_large_power_names_the_exponent() -> None:
    with pytest.raises(ValueError, match=r"exponent `power` must be in \(0, .*; got 1000\."):
        as_cost("power:1000").periodic_integral(0.0, 1.0, period=1.0, ratio=math.exp(-1.0))


@pytest.mark.parametrize(
    ("prior", "normalize", "expected"),
    [
        ([-0.5, 1.5], False, "`prior` must be non-negative; smallest entry is -0.5 at index 0; "
         "each entry must be in [0, inf)."),
        ([0.5, np.nan], True, "`prior` must contain only finite numbers, each in [0, inf); got "
         "nan at index 1."),
        ([0.0, 0.0], True, "`prior` must have a positive sum, in (0, inf), to be normalised; got "
         "sum 0 (every entry is 0)."),
        ([0.0, 0.0], False, "`prior` must sum to 1 (within 1e-09), each entry in [0, 1]; got sum "
         "0. Pass normalize=True to rescale it."),
        ([1e308, 1e308], False, "`prior` must sum to 1 (within 1e-09), each entry in [0, 1]; got "
         "sum inf (its entries, up to 1e+308, add up beyond the largest float). Pass "
         "normalize=True to rescale it."),
    ],
)  # fmt: skip
def test_bad_priors_name_the_prior_the_range_and_the_value(
    prior: list[float], normalize: bool, expected: str
) -> None:
    with pytest.raises(ValueError) as caught:
        check_prior(prior, normalize=normalize)
    assert str(caught.value) == expected


def test_a_prior_whose_sum_overflows_normalises_without_a_warning() -> None:
    # (filterwarnings = error: numpy's overflow warning would fail this test)
    assert check_prior([1e308, 1e308, 5e307], normalize=True).tolist() == [0.4, 0.4, 0.2]


@pytest.mark.parametrize(
    ("call", "error", "expected"),
    [
        (lambda: grid_graph((3, 1)), ValueError,
         "each entry of `shape` must be an integer in [2, inf); got shape[1] = 1."),
        (lambda: grid_graph((3, 2.5)), ValueError,
         "each entry of `shape` must be an integer in [2, inf); got shape[1] = 2.5."),
        (lambda: path_graph(10**6), ProblemTooLargeError,
         "`n` must be in [1, 99999]; got 1000000."),
        (lambda: sensitivity_graph(10**6, 2), ProblemTooLargeError,
         "`n` must be in [1, 99999]; got 1000000."),
        (lambda: grid_graph((1000, 1000)), ProblemTooLargeError,
         "the product of `shape` must be in [2, 100000]; got (1000, 1000)."),
        (lambda: parse_graph("grid:ax3"), ValueError,
         "A, B, ... (`shape`) must be an integer in [2, inf); got 'a'"),
        (lambda: parse_graph("hypercube:x"), ValueError,
         "R (`rows`) must be an integer in [1, 16]; got 'x'"),
        (lambda: parse_graph("sensitivity:y", 5), ValueError,
         "D (`sensitivity`) must be an integer in [1, n]; got 'y'"),
        (lambda: parse_graph("path"), ValueError, "`n` (in [1, 99999]) is needed"),
    ],
)  # fmt: skip
def test_graph_builders_name_the_size_parameter(call: object, error: type, expected: str) -> None:
    with pytest.raises(error) as caught:
        call()  # type: ignore[operator]
    assert expected in str(caught.value)
