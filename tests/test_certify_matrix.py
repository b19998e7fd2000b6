"""Certification of mechanism matrices (optmech.certify.matrix).

Independent truth: the range-restricted geometric mechanism written from Ghosh, Roughgarden &
Sundararajan 2012, §2 (its neighbouring ratios are exactly e^ε), randomized response (ratio e^ε on
the diagonal), and exact logarithms of the float entries in 50-digit decimal arithmetic for the
pessimism check.
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import networkx as nx
import numpy as np
import pytest
from _reference import geometric_from_theory

from optmech.certify.matrix import (
    certified_epsilon,
    certify_mechanism,
    check_dp,
    log_ratio_bound,
)
from optmech.exceptions import PrivacyViolationError
from optmech.graphs import grid_graph


@pytest.mark.parametrize(("n", "eps"), [(1, 0.05), (5, math.log(2)), (30, 5.0)])
def test_geometric_mechanism_achieves_exactly_epsilon(n: int, eps: float) -> None:
    g = geometric_from_theory(n, eps)
    cert = certify_mechanism(g)
    # Every neighbouring ratio is e^ε in exact arithmetic; rounding of the entries is ~1e-15.
    assert cert.epsilon == pytest.approx(eps, rel=1e-12)
    assert cert.zero_facing_positive == 0
    assert check_dp(g, eps)
    assert not check_dp(g, eps * (1 - 1e-6))


def test_randomized_response_over_a_complete_graph() -> None:
    eps, k = 1.3, 4
    rr = np.full((k, k), 1.0) + math.expm1(eps) * np.eye(k)
    rr /= rr.sum(axis=1, keepdims=True)
    complete = nx.complete_graph(k)
    assert certified_epsilon(rr, complete) == pytest.approx(eps, rel=1e-12)


def test_zero_facing_positive_is_infinite_and_explained() -> None:
    m = np.array([[0.5, 0.5, 0.0], [0.5, 0.25, 0.25], [0.5, 0.25, 0.25]])
    cert = certify_mechanism(m)
    assert math.isinf(cert.epsilon)
    assert cert.zero_facing_positive == 1
    assert cert.edge == (0, 1) and cert.output == 2
    assert check_dp(m, 10.0) is False
    with pytest.raises(PrivacyViolationError) as err:
        check_dp(m, 10.0, debug=True)
    why = str(err.value)
    assert why.startswith("not 10-DP:") and err.value.report == cert
    assert "edge (0, 1), output 2" in why and "zero facing a positive" in why


def test_two_zeros_are_private_and_constant_rows_give_zero() -> None:
    m = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    cert = certify_mechanism(m)
    assert cert.epsilon == 0.0 and cert.edge is None
    assert check_dp(m, 1e-9)


def test_debug_names_worst_pair_and_ratio() -> None:
    m = np.array([[0.6, 0.4], [0.3, 0.7], [0.25, 0.75]])
    with pytest.raises(PrivacyViolationError) as err:  # log(0.6/0.3) = ln 2 > 0.5
        check_dp(m, 0.5, debug=True)
    why = str(err.value)
    assert "edge (0, 1), output 0" in why and "ratio 2" in why
    assert check_dp(m, 0.7) is True and check_dp(m, 0.7, debug=True) is True


def test_certificate_is_pessimistic_and_tight() -> None:
    """Against exact logs of the float entries (50 digits): never below, at most 1e-12 above."""
    getcontext().prec = 50
    rng = np.random.default_rng(7)
    for _ in range(30):
        logs = rng.uniform(-700, 0, size=(2, 5))
        m = np.exp(logs)
        m[0] = m[0] / m[0].sum()
        m[1] = m[1] / m[1].sum()
        exact = max(
            abs(Decimal(float(a)).ln() - Decimal(float(b)).ln())
            for a, b in zip(m[0], m[1], strict=True)
        )
        cert = Decimal(certified_epsilon(m))
        assert cert >= exact
        assert cert - exact <= Decimal("1e-12") * max(exact, Decimal(1))


def test_log_ratio_bound_conventions() -> None:
    out = log_ratio_bound([0.0, 0.0, 1.0, 0.5], [0.0, 0.3, 0.0, 0.25])
    assert out[0] == 0.0 and math.isinf(out[1]) and math.isinf(out[2])
    assert out[3] >= math.log(2.0) and out[3] - math.log(2.0) < 1e-14


def test_graph_given_as_networkx_or_pairs() -> None:
    g = grid_graph((2, 2))
    m = np.array([[0.5, 0.5], [0.4, 0.6], [0.6, 0.4], [0.5, 0.5]])
    pairs = np.array([[0, 1], [0, 2], [1, 3], [2, 3]])
    assert certified_epsilon(m, g) == pytest.approx(certified_epsilon(m, pairs), rel=0, abs=0)
    # Rows 1 and 2 are not neighbours on the grid: their ratio 1.5 must not count.
    expected = max(math.log(0.5 / 0.4), math.log(0.6 / 0.5))
    assert certified_epsilon(m, g) == pytest.approx(expected, rel=1e-12)


def test_bad_input_is_rejected() -> None:
    good = np.array([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="non-negative"):
        certified_epsilon(np.array([[1.5, -0.5], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="finite"):
        certified_epsilon(np.array([[np.nan, 1.0], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="rows must sum to 1"):
        certified_epsilon(np.array([[0.5, 0.4], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="2-dimensional"):
        certified_epsilon(np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="one node per row"):
        certified_epsilon(good, nx.path_graph(3))
    with pytest.raises(ValueError, match="index rows"):
        certified_epsilon(good, np.array([[0, 2]]))
    with pytest.raises(TypeError, match=r"networkx\.Graph"):
        certified_epsilon(good, "path")
    with pytest.raises(ValueError, match="`epsilon`"):
        check_dp(good, 0.0)
    with pytest.raises(ValueError, match="`rtol`"):
        check_dp(good, 1.0, rtol=0.5)
