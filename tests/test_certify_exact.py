"""Exact certification (``exact=True``, optmech.certify.exact_arithmetic) against independent
truths.

Independent truths: the exact rationals of the float inputs (:class:`fractions.Fraction`; every
float is a dyadic rational), tail periods written out explicitly, every pair and every
hockey-stick term enumerated directly, and ``log`` / ``exp`` in 60-digit :mod:`decimal`
arithmetic. Three claims are checked on each case: the exact certificate is never below the
truth and at most one float ulp above it; the float certificate is never below the truth
either (its roundoff bound is rigorous); and the two agree to about 1e-12.
"""

from __future__ import annotations

import math
import subprocess
import sys
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import networkx as nx
import numpy as np
import pytest
from _reference import laplace_like

import optmech
from optmech.certify import (
    certified_epsilon,
    certify_mechanism,
    certify_noise,
    check_dp,
    check_noise,
    noise_delta,
    noise_epsilon,
)
from optmech.certify.exact_arithmetic import exp_lower, fraction_up, log_upper
from optmech.mechanisms.piecewise import LatticeNoise
from optmech.privacy import PureDP


def _ln(q: Fraction) -> Decimal:
    """``log q`` to 60 significant digits."""
    with localcontext() as ctx:
        ctx.prec = 60
        return (Decimal(q.numerator) / Decimal(q.denominator)).ln()


def _exp_bracket(x: float) -> tuple[Fraction, Fraction]:
    """Rationals ``lo ≤ e^x ≤ hi``, 1e-55 apart (60-digit decimal exp)."""
    with localcontext() as ctx:
        ctx.prec = 60
        mid = Fraction(Decimal(x).exp())
    return mid - Fraction(1, 10**55), mid + Fraction(1, 10**55)


def _ulp_above(x: float) -> float:
    return math.nextafter(x, math.inf) - x


def _explicit(masses, left, right, periods: int) -> list[Fraction]:
    """Exact masses of the grid and ``periods`` tail periods each side, left to right."""
    (lb, lr), (rb, rr) = left, right
    lefts = [[Fraction(float(x)) * Fraction(lr) ** k for x in lb] for k in range(periods)][::-1]
    rights = [[Fraction(float(x)) * Fraction(rr) ** k for x in rb] for k in range(periods)]
    return [v for part in [*lefts, [Fraction(float(x)) for x in masses], *rights] for v in part]


def _max_ratio(arr: list[Fraction], cells: int) -> Fraction:
    """Largest ``arr[i] / arr[j]`` over ``|i − j| ≤ cells`` (all entries positive)."""
    return max(
        arr[i] / arr[j]
        for i in range(len(arr))
        for j in range(max(0, i - cells), min(len(arr), i + cells + 1))
    )


def _hockey(arr: list[Fraction], shift: int, e_eps: Fraction) -> Fraction:
    """``Σ_j (p_j − E p_{j+shift})_+`` over the list (partners outside it are zero)."""
    n = len(arr)
    total = Fraction(0)
    for j in range(n):
        partner = arr[j + shift] if 0 <= j + shift < n else Fraction(0)
        total += max(arr[j] - e_eps * partner, Fraction(0))
    return total


def _check_epsilon(exact: float, floating: float, truth: Decimal) -> None:
    assert Decimal(exact) >= truth
    assert Decimal(exact) - truth <= Decimal(_ulp_above(exact))
    assert Decimal(floating) >= truth  # the float path is pessimistic too
    assert abs(floating - exact) <= 1e-12 * max(1.0, exact)


# -- the module is optional at import time -------------------------------------------------------
def test_flint_is_imported_only_on_demand() -> None:
    code = (
        "import sys, optmech, optmech.certify; "
        "print('flint' in sys.modules, 'optmech.certify.exact_arithmetic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_enclosure_helpers() -> None:
    assert fraction_up(Fraction(1, 10)) == 0.1  # the float 0.1 is above 1/10
    third = fraction_up(Fraction(1, 3))  # the float 1/3 is below 1/3
    assert Fraction(third) > Fraction(1, 3) and third == math.nextafter(1 / 3, math.inf)
    assert fraction_up(Fraction(3, 4)) == 0.75
    assert fraction_up(Fraction(10**400)) == math.inf
    up = log_upper(Fraction(2))
    assert Decimal(up) >= _ln(Fraction(2)) and up == math.nextafter(math.log(2.0), math.inf)
    n, f = exp_lower(1.0)
    lo, hi = _exp_bracket(1.0)
    assert Fraction(n, 2**f) <= hi and hi - Fraction(n, 2**f) < Fraction(1, 10**35)
    assert lo - Fraction(1, 10**35) < Fraction(n, 2**f)


# -- grid noise -------------------------------------------------------------------------------
def _geometric_pmf(eps: float, half: int = 4):
    b = math.exp(-eps)
    k = np.arange(-half, half + 1)
    pmf = (1 - b) / (1 + b) * b ** np.abs(k)
    return pmf, (pmf[:1] * b, b), (pmf[-1:] * b, b)


@pytest.mark.parametrize("eps", [0.05, 0.7, 3.0])
def test_geometric_pmf_epsilon(eps: float) -> None:
    pmf, left, right = _geometric_pmf(eps)
    kwargs = {"reach": 1, "left_tail": left, "right_tail": right}
    truth = _ln(_max_ratio(_explicit(pmf, left, right, 4), 1))
    exact = noise_epsilon(pmf, exact=True, **kwargs)
    _check_epsilon(exact, noise_epsilon(pmf, **kwargs), truth)
    assert exact == pytest.approx(eps, rel=1e-12)


def test_geometric_pmf_delta_with_infinite_tails() -> None:
    """δ at ε' < ε: the explicit sum over 220 periods plus a bound of the rest brackets it."""
    eps, eps2 = 0.7, 0.3
    pmf, left, right = _geometric_pmf(eps)
    noise = LatticeNoise(
        start=-4,
        pmf=pmf,
        period=1,
        left_tail=left,
        right_tail=right,
        sensitivity=1,
        privacy=PureDP(eps),
    )
    periods = 220  # ratio e^-0.7 ≈ 0.5: the mass beyond is below 1e-66
    arr = _explicit(pmf, left, right, periods)
    rest = 2 * Fraction(float(left[0][0])) * Fraction(left[1]) ** periods / (1 - Fraction(left[1]))
    lo_e, hi_e = _exp_bracket(eps2)
    low = max(_hockey(arr, 1, hi_e), _hockey(arr, -1, hi_e))  # ≤ the truth
    high = max(_hockey(arr, 1, lo_e), _hockey(arr, -1, lo_e)) + rest  # ≥ the truth
    exact = certify_noise(noise, epsilon=eps2, exact=True)
    floating = certify_noise(noise, epsilon=eps2)
    assert Fraction(exact.delta) >= high
    assert exact.delta <= math.nextafter(float(high), math.inf)
    assert Fraction(floating.delta) >= high
    assert floating.delta == pytest.approx(exact.delta, rel=1e-12)
    assert low <= high
    # The closed form for exact arithmetic, (1 − e^(ε'−ε))/(1 + b), up to the float rounding.
    assert exact.delta == pytest.approx(
        (1 - math.exp(eps2 - eps)) / (1 + math.exp(-eps)), rel=1e-12
    )
    assert check_noise(noise, eps, exact=True) is True


def _laplace_like(width: float, sensitivity: float, eps: float) -> Any:
    """Density ∝ e^(−ε|x|/Δ) averaged per cell, geometric tails continuing it."""
    reach = round(sensitivity / width)
    return laplace_like(width, sensitivity, eps / reach, cells=8, claimed_epsilon=eps)


@pytest.mark.parametrize(("width", "sensitivity"), [(0.25, 1.0), (0.1, 0.3), (0.3, 0.6000000001)])
def test_laplace_like_grids(width: float, sensitivity: float) -> None:
    noise = _laplace_like(width, sensitivity, 1.0)
    d = noise.grid_description()
    cells = math.ceil(Fraction(sensitivity) / Fraction(width))
    arr = _explicit(d.masses, d.left_tail, d.right_tail, cells + 3)
    truth = _ln(_max_ratio(arr, cells))
    exact = certify_noise(noise, exact=True)
    floating = certify_noise(noise)
    _check_epsilon(exact.epsilon, floating.epsilon, truth)
    assert floating.delta == pytest.approx(exact.delta, rel=1e-9, abs=1e-13)
    assert floating.delta >= exact.delta - _ulp_above(exact.delta)  # float ≥ exact − tiny


@pytest.mark.parametrize("seed", range(8))
def test_finite_support_delta_at_fractional_reach(seed: int) -> None:
    """Exact δ against every hockey-stick term, with the exact interpolation at R = Δ/h."""
    rng = np.random.default_rng(seed)
    masses = rng.uniform(0.0, 1.0, int(rng.integers(3, 30)))
    masses[rng.random(masses.size) < 0.2] = 0.0
    masses /= masses.sum()
    h = float(rng.uniform(0.05, 1.0))
    delta = float(rng.uniform(0.1, 5.0)) * h
    eps = float(rng.uniform(0.0, 1.5))
    reach = Fraction(delta) / Fraction(h)
    whole = math.floor(reach)
    t = reach - whole
    _, e_high = _exp_bracket(eps)  # E ≥ e^ε: every term at most the exact one
    e_low, _ = _exp_bracket(eps)
    bounds = []
    for e_eps in (e_high, e_low):
        values = []
        for sign in (1, -1):
            curve = [
                _hockey([Fraction(x) for x in masses], sign * s, e_eps) for s in range(whole + 2)
            ]
            values += [*curve[1 : whole + 1], (1 - t) * curve[whole] + t * curve[whole + 1]]
        bounds.append(max(values))
    low, high = bounds  # low ≤ truth ≤ high, 1e-54 apart
    kwargs = {"epsilon": eps, "sensitivity": delta, "width": h}
    exact = noise_delta(masses, exact=True, **kwargs)
    floating = noise_delta(masses, **kwargs)
    assert Fraction(exact) >= high  # fails only if a float lies in a window 1e-54 wide
    assert exact <= math.nextafter(float(low), math.inf)
    assert Fraction(floating) >= high
    assert floating == pytest.approx(exact, rel=1e-12, abs=1e-15)


def test_designed_noise_agrees() -> None:
    """An LP design (ratios at e^ε up to solver tolerance): exact and float agree."""
    noise = optmech.design_noise(
        optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=4, periods=2
    )
    exact = certify_noise(noise, exact=True)
    floating = certify_noise(noise)
    assert exact.epsilon <= floating.epsilon <= exact.epsilon + 1e-12
    assert exact.epsilon <= 1.0 * (1 + 1e-9)
    assert floating.delta == pytest.approx(exact.delta, abs=1e-13)


# -- the vertex: a ratio exactly at e^ε --------------------------------------------------------
def _halving(half: int = 5):
    """``p_k = c·2^−|k|`` on ℤ: every neighbouring ratio is exactly 2 in the floats."""
    c = 1.0 / 3.0  # Σ 2^−|k| = 3
    k = np.arange(-half, half + 1)
    pmf = c * 2.0 ** -np.abs(k)
    tail = ([c * 2.0 ** -(half + 1)], 0.5)
    return c, pmf, tail


def test_noise_vertex_ratio_exactly_two() -> None:
    """ε = ln 2 exactly; δ at the float ln 2 (below ln 2) is (2 − e^ε)·c, positive."""
    c, pmf, tail = _halving()
    kwargs = {"reach": 1, "left_tail": tail, "right_tail": tail}
    ln2 = _ln(Fraction(2))
    _check_epsilon(noise_epsilon(pmf, exact=True, **kwargs), noise_epsilon(pmf, **kwargs), ln2)
    eps = math.log(2.0)  # 0.69314718055994528... < ln 2
    assert Decimal(eps) < ln2
    # Shift right: for k ≥ 0, p_k − e^ε p_{k+1} = p_k (1 − e^ε/2) > 0; for k < 0 it is negative.
    # So H(1) = (1 − e^ε/2)·Σ_{k≥0} c 2^−k = (2 − e^ε)·c, both directions alike.
    e_low, e_high = _exp_bracket(eps)
    truth_high = (2 - e_low) * Fraction(c)
    exact = noise_delta(pmf, epsilon=eps, exact=True, **kwargs)
    floating = noise_delta(pmf, epsilon=eps, **kwargs)
    assert 0 < (2 - e_high) * Fraction(c) <= truth_high <= Fraction(exact)
    assert exact <= math.nextafter(float(truth_high), math.inf)
    assert Fraction(floating) >= truth_high
    # Just above ln 2 every term is ≤ 0: exact δ is exactly zero, the float one tiny.
    above = math.nextafter(eps, math.inf)
    assert noise_delta(pmf, epsilon=above, exact=True, **kwargs) == 0.0
    assert 0.0 <= noise_delta(pmf, epsilon=above, **kwargs) < 1e-13


def test_matrix_vertex_ratio_exactly_two() -> None:
    m = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
    ln2 = _ln(Fraction(2))
    _check_epsilon(certified_epsilon(m, exact=True), certified_epsilon(m), ln2)
    below, above = math.log(2.0), math.nextafter(math.log(2.0), math.inf)
    assert Decimal(below) < ln2 < Decimal(above)
    # Exact mode decides at one-ulp resolution: not ε-DP at the float below ln 2, ε-DP above.
    assert check_dp(m, below, rtol=0.0, exact=True) is False
    assert check_dp(m, above, rtol=0.0, exact=True) is True
    assert certified_epsilon(m, exact=True) == above
    assert check_dp(m, below, rtol=0.0) is False  # the float path is pessimistic as well


# -- matrices ---------------------------------------------------------------------------------
def _matrix_truth(m: np.ndarray, pairs: list[tuple[int, int]]) -> Decimal:
    best = max(
        max(Fraction(float(a)), Fraction(float(b))) / min(Fraction(float(a)), Fraction(float(b)))
        for i, j in pairs
        for a, b in zip(m[i], m[j], strict=True)
    )
    return _ln(best)


@pytest.mark.parametrize("seed", range(10))
def test_random_mechanisms(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(2, 15)), int(rng.integers(2, 15))
    m = np.exp(rng.uniform(-30.0, 0.0, size=(n, k)))
    m /= m.sum(axis=1, keepdims=True)
    graph = nx.complete_graph(n) if seed % 2 else None
    pairs = list(graph.edges) if graph is not None else [(i, i + 1) for i in range(n - 1)]
    truth = _matrix_truth(m, pairs)
    exact = certify_mechanism(m, graph, exact=True)
    floating = certify_mechanism(m, graph)
    _check_epsilon(exact.epsilon, floating.epsilon, truth)
    i, j = exact.edge
    a, b = exact.values
    assert (m[i, exact.output], m[j, exact.output]) == (a, b)
    assert _ln(Fraction(a) / Fraction(b)).copy_abs() == truth


def test_matrix_subnormal_entries_and_conventions() -> None:
    tiny = 5e-324
    m = np.array([[0.5, 0.5 - tiny, tiny], [0.5, 0.25, 0.25]])
    truth = _ln(Fraction(0.25) / Fraction(tiny))  # about 743.7: the float ratio overflows
    _check_epsilon(certified_epsilon(m, exact=True), certified_epsilon(m), truth)
    zero = np.array([[0.5, 0.5, 0.0], [0.5, 0.25, 0.25]])
    cert = certify_mechanism(zero, exact=True)
    assert math.isinf(cert.epsilon) and cert.edge == (0, 1) and cert.output == 2
    assert cert.zero_facing_positive == 1
    same = certify_mechanism(np.array([[0.5, 0.5], [0.5, 0.5]]), exact=True)
    assert same.epsilon == 0.0 and same.edge is None


def test_exact_flag_is_validated() -> None:
    m = np.array([[0.5, 0.5], [0.25, 0.75]])
    with pytest.raises(TypeError, match="`exact` must be True or False"):
        certify_mechanism(m, exact=1)
    with pytest.raises(TypeError, match="`exact` must be True or False"):
        noise_delta([0.5, 0.5], epsilon=1.0, reach=1, exact="yes")
    with pytest.raises(TypeError, match="`exact` must be True or False"):
        certify_noise(_laplace_like(0.25, 1.0, 1.0), exact=None)
