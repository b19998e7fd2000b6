"""Tests of optmech.costs: values, shape flags, exact integrals, geometric tail sums, parsing.

References: scipy.integrate.quad, antiderivatives typed here, and brute-force truncated sums
whose neglected tail is bounded explicitly.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate

from optmech.costs import (
    Absolute,
    Asymmetric,
    Cost,
    Custom,
    Power,
    Squared,
    ZeroOne,
    as_cost,
    parse_cost,
)

SMOOTH_CUSTOM = Custom(lambda e: np.log1p(e * e), name="log1p-sq")
KINKED_CUSTOM = Custom(lambda e: np.sqrt(np.abs(e)), name="sqrt-abs")
STEP_CUSTOM = Custom(lambda e: np.where(np.abs(e) > 1.0, 2.0, 0.5), name="step")
ALL_COSTS = [
    Absolute(),
    Squared(),
    Power(3),
    Power(2.5),
    Power(0.5),
    Asymmetric(over=3.0, under=1.0),
    Asymmetric(over=0.5, under=2.0, p=2.0),
    ZeroOne(0.0),
    ZeroOne(0.3),
    SMOOTH_CUSTOM,
    KINKED_CUSTOM,
    STEP_CUSTOM,
]


def reference_values(cost: Cost, e: np.ndarray) -> np.ndarray:
    """Each cost's values from its definition, typed independently of the implementation."""
    e = np.asarray(e, dtype=float)
    if isinstance(cost, Asymmetric):
        over, under, p = (float(v) for v in cost.name.split(":")[1].split(","))
        return np.where(e >= 0, over, under) * np.abs(e) ** p
    if isinstance(cost, ZeroOne):
        return (np.abs(e) > cost.tolerance).astype(float)
    if isinstance(cost, Power):
        return np.abs(e) ** cost.p
    return {
        "log1p-sq": lambda: np.log1p(e * e),
        "sqrt-abs": lambda: np.sqrt(np.abs(e)),
        "step": lambda: np.where(np.abs(e) > 1, 2.0, 0.5),
    }[cost.name]()


def reference_value(cost: Cost, e: float) -> float:
    return float(reference_values(cost, np.asarray(e)))


def jumps(cost: Cost) -> list[float]:
    if isinstance(cost, ZeroOne):
        return [-cost.tolerance, cost.tolerance]
    if cost is STEP_CUSTOM:
        return [-1.0, 1.0]
    return [0.0]


def quad_integral(cost: Cost, a: float, b: float) -> float:
    """∫_a^b c by scipy quad, split at 0 and at the cost's jumps."""
    sign = 1.0
    if b < a:
        a, b, sign = b, a, -1.0
    cuts = sorted({a, b, *(j for j in [0.0, *jumps(cost)] if a < j < b)})
    return sign * sum(
        integrate.quad(lambda x: reference_value(cost, x), lo, hi, epsabs=0, epsrel=1e-13)[0]
        for lo, hi in itertools.pairwise(cuts)
    )


@pytest.mark.parametrize("cost", ALL_COSTS, ids=repr)
def test_values_match_definitions(cost: Cost) -> None:
    e = np.array([-7.5, -1.0, -0.3, 0.0, 0.2, 1.0, 4.0])
    expected = [reference_value(cost, float(v)) for v in e]
    np.testing.assert_allclose(cost(e), expected, rtol=1e-14)
    assert isinstance(cost(0.2), float)
    assert cost(e.reshape(7, 1)).shape == (7, 1)


@pytest.mark.parametrize(
    ("cost", "symmetric", "nondecreasing"),
    [
        (Absolute(), True, True),
        (Squared(), True, True),
        (Power(0.3), True, True),
        (Asymmetric(over=3.0, under=1.0), False, True),
        (Asymmetric(over=2.0, under=2.0), True, True),
        (ZeroOne(0.5), True, True),
        (SMOOTH_CUSTOM, True, True),
        (STEP_CUSTOM, True, True),
        (Custom(lambda e: np.where(e > 0, 3 * e, -e)), False, True),
        (Custom(lambda e: np.cos(e) ** 2), True, False),
        (Custom(lambda e: np.where(e > 0, np.sin(e) ** 2, 0.0)), False, False),
    ],
    ids=repr,
)
def test_shape_flags(cost: Cost, symmetric: bool, nondecreasing: bool) -> None:
    assert cost.symmetric is symmetric
    assert cost.nondecreasing is nondecreasing
    assert cost.is_symmetric_nondecreasing is (symmetric and nondecreasing)


INTERVALS = [(-1.0, 2.0), (0.3, 2.7), (-3.0, -0.5), (2.0, -1.5), (-0.2, 0.2), (0.5, 0.5)]


@pytest.mark.parametrize("cost", ALL_COSTS, ids=repr)
def test_integral_matches_quad(cost: Cost) -> None:
    a = np.array([i[0] for i in INTERVALS])
    b = np.array([i[1] for i in INTERVALS])
    expected = [quad_integral(cost, lo, hi) for lo, hi in INTERVALS]
    np.testing.assert_allclose(cost.integral(a, b), expected, rtol=1e-10, atol=1e-14)
    # Scalars in, float out (also on the quadrature path, which once failed on 0-d arrays).
    for lo, hi in INTERVALS:
        value = cost.integral(lo, hi)
        assert isinstance(value, float)
        assert value == pytest.approx(quad_integral(cost, lo, hi), rel=1e-10, abs=1e-14)
    # Broadcasting: a column of lower limits against a row of upper limits.
    grid = cost.integral(np.array([[-1.0], [0.5]]), np.array([1.0, 2.0, 3.0]))
    assert grid.shape == (2, 3)
    assert grid[1, 2] == pytest.approx(quad_integral(cost, 0.5, 3.0), rel=1e-10)


def test_has_exact_integral() -> None:
    assert Absolute().has_exact_integral and ZeroOne(1).has_exact_integral
    assert Asymmetric(over=1, under=2).has_exact_integral
    assert not SMOOTH_CUSTOM.has_exact_integral
    exact = Custom(np.abs, antiderivative=lambda x: np.sign(x) * x * x / 2 + 7.0)
    assert exact.has_exact_integral
    # The constant of the antiderivative does not matter (F is shifted to F(0) = 0).
    assert exact.integral(-1.0, 2.0) == pytest.approx(2.5, rel=1e-15)


def test_integral_rejects_infinite_or_non_numeric_limits() -> None:
    with pytest.raises(ValueError, match="must be finite"):
        Absolute().integral(0.0, np.inf)
    with pytest.raises(ValueError, match="`a` must not contain NaN"):
        Absolute().integral(np.nan, 1.0)
    with pytest.raises(TypeError, match="`b` must be real numbers"):
        Absolute().integral(0.0, "1")
    with pytest.raises(ValueError, match="overflow"):
        Absolute().integral(1e308, 1.7e308)  # inf − inf


@pytest.mark.parametrize("cost", ALL_COSTS, ids=repr)
def test_cell_average(cost: Cost) -> None:
    a = np.array([-1.0, 0.25, -3.0])
    b = np.array([0.5, 0.75, 3.0])
    expected = [quad_integral(cost, lo, hi) / (hi - lo) for lo, hi in zip(a, b, strict=True)]
    np.testing.assert_allclose(cost.cell_average(a, b), expected, rtol=1e-10)
    with pytest.raises(ValueError, match="b > a"):
        cost.cell_average(1.0, 1.0)


# -- geometric tails -------------------------------------------------------------------------
def brute_terms(ratio: float, growth: float, period: float, extent: float) -> int:
    """Number of terms K with ratio^K (extent + K|period|)^(growth+1) < 1e-18 of the first."""
    if ratio == 0:
        return 1
    k = 1
    while (
        ratio**k * (extent + k * abs(period)) ** (growth + 1)
        > 1e-18 * max(extent, 1) ** (growth + 1)
        or k < 10
    ):
        k += 1
    return k


def brute_integral_terms(cost: Cost, a: float, b: float, shifts: np.ndarray) -> np.ndarray:
    """∫_{a+s}^{b+s} c for every shift s, from antiderivatives typed here (vectorised)."""
    lo, hi = a + shifts, b + shifts
    if isinstance(cost, Asymmetric):
        over, under, p = (float(v) for v in cost.name.split(":")[1].split(","))
        anti = lambda x: np.where(x >= 0, over, -under) * np.abs(x) ** (p + 1) / (p + 1)  # noqa: E731
    elif isinstance(cost, ZeroOne):
        t = cost.tolerance
        anti = lambda x: np.sign(x) * np.maximum(np.abs(x) - t, 0.0)  # noqa: E731
    elif isinstance(cost, Power):
        p = cost.p
        anti = lambda x: np.sign(x) * np.abs(x) ** (p + 1) / (p + 1)  # noqa: E731
    else:  # log1p(x²): x log1p(x²) − 2x + 2 atan(x)
        anti = lambda x: x * np.log1p(x * x) - 2 * x + 2 * np.arctan(x)  # noqa: E731
    return anti(hi) - anti(lo)


TAIL_COSTS = [
    Absolute(),
    Squared(),
    Power(3),
    Power(2.5),
    Asymmetric(over=2.0, under=0.5, p=2.0),
    ZeroOne(0.3),
    SMOOTH_CUSTOM,
]


# Ratio 0.99 needs about 6000 terms, which the series path (costs without a closed form, or
# cells straddling 0) sums one call at a time (about 1 s a case), so it runs on fewer cases.
PERIOD_RATIO = [(t, r) for t in (1.5, -1.5, 0.25, -4.0) for r in (0.0, 0.3, 0.9)]
SLOW_CASES = [(Power(3), -1.5, 0.99), (ZeroOne(0.3), 1.5, 0.99), (SMOOTH_CUSTOM, 1.5, 0.99)]


@pytest.mark.parametrize(
    ("cost", "period", "ratio"),
    [(c, t, r) for c in TAIL_COSTS for t, r in PERIOD_RATIO] + SLOW_CASES,
    ids=repr,
)
def test_periodic_integral_matches_truncated_sum(cost: Cost, period: float, ratio: float) -> None:
    a = np.array([0.2, -0.7, -0.3, 1.1])
    b = np.array([0.7, -0.2, 0.4, 2.0])
    k = np.arange(brute_terms(ratio, 3.0, period, 3.0))
    weights = ratio**k
    expected = [
        float(np.sum(weights * brute_integral_terms(cost, lo, hi, k * period)))
        for lo, hi in zip(a, b, strict=True)
    ]
    got = cost.periodic_integral(a, b, period=period, ratio=ratio)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-13)
    assert cost.periodic_integral(0.2, 0.7, period=period, ratio=ratio) == pytest.approx(
        expected[0], rel=1e-10
    )


@pytest.mark.parametrize(
    ("cost", "period", "ratio"),
    [(c, t, r) for c in [*TAIL_COSTS, STEP_CUSTOM] for t, r in PERIOD_RATIO]
    + [(STEP_CUSTOM, 1.5, 0.99), (Power(2.5), -1.5, 0.99), (Squared(), 1.5, 0.99)],
    ids=repr,
)
def test_periodic_sum_matches_truncated_sum(cost: Cost, period: float, ratio: float) -> None:
    x = np.array([0.0, 0.4, -0.6, 2.5, -3.0])
    k = np.arange(brute_terms(ratio, 3.0, period, 3.0))
    expected = [float(np.sum(ratio**k * reference_values(cost, xi + k * period))) for xi in x]
    np.testing.assert_allclose(
        cost.periodic_sum(x, period=period, ratio=ratio), expected, rtol=1e-10, atol=1e-13
    )


def test_periodic_sum_over_a_huge_dynamic_range() -> None:
    """Terms (e/2)^k grow to 1e93 before the cap at e^700 lets 0.5^k win: the sum is still exact."""
    fast = Custom(lambda e: np.exp(np.minimum(np.abs(e), 700.0)))
    k = np.arange(700 + 200)
    expected = float(np.sum(0.5**k * np.exp(np.minimum(k, 700.0))))
    assert fast.periodic_sum(0.0, period=1.0, ratio=0.5) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("p", [1.0, 2.0, 7.0, 1000.0])
def test_periodic_sums_at_ratio_zero_are_their_first_term(p: float) -> None:
    """At ratio 0 only ``k = 0`` counts: the cost itself, and its integral over the cell
    (``∫_0^1 e^p de = 1/(p + 1)``, ``|1.5|^p`` at ``x = −1.5``), even for an exponent whose
    closed form's binomial expansion overflows."""
    cost = Power(p)
    assert cost.periodic_sum(-1.5, period=1.0, ratio=0.0) == pytest.approx(1.5**p, rel=1e-13)
    assert cost.periodic_integral(0.0, 1.0, period=1.0, ratio=0.0) == pytest.approx(
        1.0 / (p + 1.0), rel=1e-13
    )


def test_periodic_bad_arguments() -> None:
    with pytest.raises(
        ValueError, match=r"`ratio` must be a finite real number in \[0, 1\); got 1.0"
    ):
        Absolute().periodic_integral(0.0, 1.0, period=1.0, ratio=1.0)
    with pytest.raises(ValueError, match="`period` must be non-zero"):
        Absolute().periodic_sum(0.0, period=0.0, ratio=0.5)
    with pytest.raises(TypeError, match="`period`"):
        Absolute().periodic_sum(0.0, period="1", ratio=0.5)
    with pytest.raises(ValueError, match="overflows"):
        Absolute().periodic_integral(0.0, 1.0, period=1e308, ratio=0.5)


# -- Custom ------------------------------------------------------------------------------------
def test_custom_declared_flags() -> None:
    ok = Custom(np.abs, symmetric=True, nondecreasing=True)
    assert ok.is_symmetric_nondecreasing
    # Declaring False is always allowed (a weaker claim).
    assert Custom(np.abs, symmetric=False).symmetric is False
    with pytest.raises(ValueError, match="`symmetric=True` was declared"):
        Custom(lambda e: np.where(e > 0, 2 * e, -e), symmetric=True)
    with pytest.raises(ValueError, match="`nondecreasing=True` was declared"):
        Custom(lambda e: np.cos(e) ** 2, nondecreasing=True)
    with pytest.raises(TypeError, match="`symmetric` must be True, False or None"):
        Custom(np.abs, symmetric=1)


def test_custom_rejects_bad_functions() -> None:
    with pytest.raises(ValueError, match="returned NaN or inf"):
        Custom(lambda e: e * np.nan)
    with pytest.raises(ValueError, match="returned NaN or inf"):
        Custom(lambda e: np.log(np.abs(e)))  # −inf at 0, and no RuntimeWarning escapes
    with pytest.raises(ValueError, match="must be vectorised"):
        Custom(lambda e: np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="must accept a float array"):
        Custom(lambda e: float(e))  # not vectorised: float() of an array
    with pytest.raises(TypeError, match="must accept a float array"):
        Custom(lambda e: e.astype(complex))
    with pytest.raises(TypeError, match="`fn` must be callable"):
        Custom(3)
    with pytest.raises(TypeError, match="`antiderivative` must be callable"):
        Custom(np.abs, antiderivative="x")
    with pytest.raises(ValueError, match="`growth`"):
        Custom(np.abs, growth=-1)
    # A cost that is finite on the probe but not where it is evaluated later.
    late = Custom(lambda e: np.where(np.abs(e) > 1e7, np.nan, np.abs(e)))
    with pytest.raises(ValueError, match="returned NaN or inf"):
        late(2e7)


def test_custom_constant_broadcasts_and_name() -> None:
    c = Custom(lambda e: 1.0, name="const")
    np.testing.assert_array_equal(c(np.zeros(3)), np.ones(3))
    assert c.name == "const"
    assert "const" in repr(c)


# -- parsing -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("abs", Absolute()),
        ("  ABS ", Absolute()),
        ("l1", Absolute()),
        ("squared", Squared()),
        ("l2", Squared()),
        ("power:3", Power(3)),
        ("pow:0.5", Power(0.5)),
        ("zero-one", ZeroOne(0.0)),
        ("0-1:0.25", ZeroOne(0.25)),
        ("asym:3,1", Asymmetric(over=3, under=1)),
        ("asym:3,1,2", Asymmetric(over=3, under=1, p=2)),
    ],
)
def test_parse_cost(spec: str, expected: Cost) -> None:
    assert parse_cost(spec) == expected
    assert as_cost(spec) == expected


@pytest.mark.parametrize(
    ("spec", "exc", "match"),
    [
        ("", ValueError, "must be one of"),
        ("power", ValueError, "must be one of"),
        ("power:", ValueError, "must be one of"),
        ("abs:3", ValueError, "must be one of"),
        ("cubic", ValueError, r"got 'cubic'"),
        ("power:abc", ValueError, "malformed"),
        ("power:-1", ValueError, r"malformed \(`p` must be"),
        ("power:nan", ValueError, "malformed"),
        ("zero-one:-1", ValueError, "`tolerance`"),
        ("asym:1", ValueError, "asym takes OVER,UNDER"),
        ("asym:1,2,3,4", ValueError, "asym takes OVER,UNDER"),
        ("asym:1,0", ValueError, "`under`"),
        (3, TypeError, "spec must be a string"),
        (None, TypeError, "spec must be a string"),
    ],
)
def test_parse_cost_rejects_malformed_specs(spec, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        parse_cost(spec)


def test_name_round_trips_through_parse_cost() -> None:
    for cost in [
        Absolute(),
        Squared(),
        Power(3),
        Power(0.5),
        ZeroOne(0.25),
        Asymmetric(over=3, under=1, p=2),
    ]:
        assert parse_cost(cost.name) == cost


def test_as_cost() -> None:
    c = Squared()
    assert as_cost(c) is c
    custom = as_cost(lambda e: np.abs(e) ** 3)
    assert isinstance(custom, Custom) and custom(2.0) == 8.0
    with pytest.raises(TypeError, match=r"`cost` must be an optmech\.costs\.Cost"):
        as_cost(None)
    with pytest.raises(TypeError, match="`cost` must be"):
        as_cost(3.0)


# -- matrices, hypotheses, mirroring -------------------------------------------------------------
@pytest.mark.parametrize("cost", ALL_COSTS, ids=repr)
def test_loss_matrix(cost: Cost) -> None:
    inputs = np.array([0.0, 1.0, 2.5])
    outputs = np.array([-1.0, 0.0, 1.0, 3.0])
    matrix = cost.loss_matrix(inputs, outputs)
    assert matrix.shape == (3, 4)
    for i, x in enumerate(inputs):
        for r, y in enumerate(outputs):
            assert matrix[i, r] == pytest.approx(reference_value(cost, y - x), rel=1e-14)
    with pytest.raises(TypeError, match="`inputs` must be real numbers"):
        cost.loss_matrix([None], [1.0])


def test_require_symmetric_nondecreasing() -> None:
    Absolute().require_symmetric_nondecreasing("the staircase")
    STEP_CUSTOM.require_symmetric_nondecreasing("the staircase")
    with pytest.raises(ValueError, match=r"for the staircase; .* which is not symmetric"):
        Asymmetric(over=2, under=1).require_symmetric_nondecreasing("the staircase")
    with pytest.raises(ValueError, match=r"which is not non-decreasing in \|e\|"):
        Custom(lambda e: np.cos(e) ** 2).require_symmetric_nondecreasing("x")
    with pytest.raises(ValueError, match=r"not symmetric and not non-decreasing"):
        Custom(lambda e: np.where(e > 0, np.sin(e) ** 2, 0.0)).require_symmetric_nondecreasing("x")


@pytest.mark.parametrize(
    "cost",
    [
        Asymmetric(over=3, under=1),
        Asymmetric(over=1, under=4, p=2),
        Custom(lambda e: np.where(e > 0, e, 0.25 * e * e)),
    ],
    ids=repr,
)
def test_mirrored(cost: Cost) -> None:
    mirror = cost.mirrored()
    e = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(mirror(e), cost(-e), rtol=1e-15)
    assert mirror.symmetric is cost.symmetric and mirror.nondecreasing is cost.nondecreasing
    for lo, hi in [(-1.0, 2.0), (0.5, 1.5), (-2.0, -0.1)]:
        # ∫_a^b c(−x) dx = ∫_{−b}^{−a} c.
        assert mirror.integral(lo, hi) == pytest.approx(cost.integral(-hi, -lo), rel=1e-12)
    assert mirror.mirrored()(1.5) == cost(1.5)


def test_mirrored_symmetric_cost_is_itself() -> None:
    c = Squared()
    assert c.mirrored() is c


def test_equality_and_hash() -> None:
    assert Power(2) == Power(2.0) and hash(Power(2)) == hash(Power(2.0))
    assert Power(2) != Power(3)
    assert Absolute() != Squared()
    assert len({Absolute(), Absolute(), ZeroOne(0.5), ZeroOne(0.5)}) == 2


def test_call_rejects_non_numeric_input() -> None:
    with pytest.raises(TypeError, match="`e` must be real numbers"):
        Absolute()(None)
    with pytest.raises(TypeError, match="`e` must be real numbers"):
        Absolute()("2")
    with pytest.raises(TypeError, match="`e` must be real numbers"):
        Absolute()(10**400)
    with pytest.raises(ValueError, match="must not contain NaN"):
        Squared()(np.nan)
    assert Squared()(1e200) == np.inf  # overflow is inf, without a warning


@pytest.mark.parametrize(
    ("factory", "exc", "match"),
    [
        (lambda: Power(0), ValueError, r"`p` must be a finite real number in \(0, inf\); got 0.0"),
        (lambda: Power(-1), ValueError, "`p`"),
        (lambda: Power("2"), TypeError, "`p`"),
        (lambda: Power(True), TypeError, "`p`"),
        (lambda: ZeroOne(-0.1), ValueError, r"`tolerance` .*\[0, inf\); got -0.1"),
        (lambda: Asymmetric(over=0, under=1), ValueError, "`over`"),
        (lambda: Asymmetric(over=1, under=math.inf), ValueError, "`under`"),
        (lambda: Asymmetric(over=1, under=1, p=None), TypeError, "`p`"),
    ],
)
def test_constructors_reject_bad_parameters(factory, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        factory()


@pytest.mark.parametrize(
    "cost",
    [Power(1 / 3), Power(2.5), Asymmetric(over=3, under=0.1, p=1.7), ZeroOne(0.1 + 0.2)],
)
def test_non_round_parameters_round_trip_through_parse_cost(cost) -> None:
    assert parse_cost(cost.name) == cost
