"""Tests of the vector cost :class:`optmech.costs.norm.Norm` and its cell averages.

References are computed here by other routes than the module's: nested adaptive quadrature
(:func:`scipy.integrate.quad`, with every kink of the integrand passed as a break point), the
corner formula ``∫_0^X∫_0^Y max(x, y) = mM²/2 + m³/6`` (``m``, ``M`` the smaller and larger of
``X``, ``Y``: the square ``[0, m]²`` split along its diagonal plus a strip) with
inclusion–exclusion, closed forms for symmetric boxes, the 1-D :class:`optmech.costs.Power`,
and the survival integral ``E M^p = ∫ p m^(p−1) P(M > m) dm`` of the largest coordinate.
Nothing here is random except seeded box positions, so no test has a false-failure rate.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from optmech.costs import Power
from optmech.costs.norm import Norm

ORDERS = (1.0, 2.0, math.inf)

#: Requested relative tolerance of the nested-quad references; the comparisons allow 100×
#: (quad's estimate is not a guarantee, and the inner integral's error feeds the outer one).
REF_RTOL = 1e-12


def _ref_average_2d(cost: Norm, lo: np.ndarray, hi: np.ndarray) -> float:
    """Average of ``cost`` over a 2-D box by nested quad with the kinks as break points."""

    def inner(x: float) -> float:
        kinks = [k for k in (0.0, x, -x) if lo[1] < k < hi[1]]
        val, _ = integrate.quad(
            lambda y: float(cost(np.array([x, y]))),
            lo[1],
            hi[1],
            points=kinks or None,
            epsabs=0.0,
            epsrel=REF_RTOL,
            limit=200,
        )
        return val

    kinks = [k for k in (0.0, lo[1], hi[1], -lo[1], -hi[1]) if lo[0] < k < hi[0]]
    total, _ = integrate.quad(
        inner, lo[0], hi[0], points=kinks or None, epsabs=0.0, epsrel=REF_RTOL, limit=200
    )
    return total / float(np.prod(hi - lo))


def _boxes(rng: np.random.Generator, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Boxes of every kind: crossing axes and diagonals, away from them, tiny and far."""
    lo = rng.uniform(-3.0, 3.0, (n, d))
    hi = lo + rng.exponential(1.5, (n, d)) + 1e-3
    return lo, hi


# -- values, names, equality -------------------------------------------------------------------
def test_values_over_the_last_axis() -> None:
    x = np.array([[3.0, -4.0], [0.0, 0.0], [-1.0, 1.0]])
    np.testing.assert_array_equal(Norm(1)(x), [7.0, 0.0, 2.0])
    np.testing.assert_allclose(Norm(2)(x), [5.0, 0.0, math.sqrt(2.0)], rtol=1e-15)
    np.testing.assert_array_equal(Norm("linf")(x), [4.0, 0.0, 1.0])
    np.testing.assert_allclose(Norm(2, power=2)(x), [25.0, 0.0, 2.0], rtol=1e-15)
    np.testing.assert_allclose(Norm(1, power=0.5)(x), np.sqrt([7.0, 0.0, 2.0]), rtol=1e-15)
    assert Norm(2)(x.reshape(3, 1, 2)).shape == (3, 1)
    value = Norm(math.inf)([1.0, -2.0, 0.5])
    assert isinstance(value, float) and value == 2.0


def test_name_repr_equality_and_hash() -> None:
    assert Norm(1) == Norm("l1") == Norm(1.0, power=1)
    assert hash(Norm(1)) == hash(Norm("l1"))
    assert Norm("linf") == Norm(math.inf) == Norm("inf")
    assert Norm(2) != Norm(2, power=2) and Norm(1) != Norm(2)
    assert Norm(1) != Power(1)
    assert [Norm(1).name, Norm(2, 2).name, Norm("linf", 0.5).name] == ["l1", "l2^2", "linf^0.5"]
    for cost in (Norm(1), Norm(2, 2.5), Norm("linf", 3)):
        assert eval(repr(cost), {"Norm": Norm, "math": math}) == cost


# -- exact cell averages -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("order", "power"),
    [(1.0, 1.0), (1.0, 2.0), (2.0, 2.0), (math.inf, 1.0), (math.inf, 2.0), (math.inf, 0.5)],
)
def test_exact_2d_averages_match_nested_quadrature(order: float, power: float) -> None:
    """Closed forms vs nested quad over 40 boxes: tolerance 100× the reference's request."""
    cost = Norm(order, power)
    assert cost.has_exact_cell_average(2)
    lo, hi = _boxes(np.random.default_rng(7), 40, 2)
    got = np.asarray(cost.cell_average(lo, hi))
    ref = np.array([_ref_average_2d(cost, a, b) for a, b in zip(lo, hi, strict=True)])
    np.testing.assert_allclose(got, ref, rtol=100 * REF_RTOL)
    _, err = cost.cell_average(lo, hi, return_error=True)
    assert np.all(np.asarray(err) == 0.0)


def _corner(x: Fraction, y: Fraction) -> Fraction:
    """``∫_0^X∫_0^Y max(|s|, |t|) dt ds`` for signed X, Y, exactly (each sign factors out)."""
    m, big = min(abs(x), abs(y)), max(abs(x), abs(y))
    sign = (1 if x > 0 else -1) * (1 if y > 0 else -1)
    return sign * (m * big * big / 2 + m**3 / 6)


def test_linf_average_matches_the_diagonal_split_corner_formula() -> None:
    """Independent derivation (inclusion–exclusion of corner integrals) in exact rational
    arithmetic on the boxes' binary corners: the module must be within a few ulps (1e-14)."""
    lo, hi = _boxes(np.random.default_rng(3), 300, 2)
    ref = []
    for a, b in zip(lo, hi, strict=True):
        x0, y0, x1, y1 = (Fraction(float(v)) for v in (a[0], a[1], b[0], b[1]))
        total = _corner(x1, y1) - _corner(x0, y1) - _corner(x1, y0) + _corner(x0, y0)
        ref.append(float(total / ((x1 - x0) * (y1 - y0))))
    np.testing.assert_allclose(Norm("linf").cell_average(lo, hi), ref, rtol=1e-14)
    # The any-power route (split along the diagonal) agrees at power 1 + 1e-15
    np.testing.assert_allclose(Norm("linf", 1 + 1e-15).cell_average(lo, hi), ref, rtol=1e-13)


def _local_excess(power: float, s0: float, s1: float, t0: float, t1: float) -> float:
    """Average over the local box of ``(C + max(s, t))^p − C^p``, ``C = 1000``, by nested quad
    (kink ``t = s`` as a break point); the excess is small, so its relative error is too."""
    centre = 1000.0

    def excess(s: float, t: float) -> float:
        m = max(s, t)
        return math.expm1(power * math.log1p(m / centre)) * centre**power

    def inner(s: float) -> float:
        val, _ = integrate.quad(
            lambda t: excess(s, t), t0, t1, points=[s] if t0 < s < t1 else None, epsrel=1e-13
        )
        return val

    total, _ = integrate.quad(inner, s0, s1, epsrel=1e-13)
    return total / ((s1 - s0) * (t1 - t0))


@pytest.mark.parametrize("power", [1.0, 2.0, 3.0, 0.7])
def test_small_far_cells_keep_full_relative_precision(power: float) -> None:
    """A 1e-3 cell at distance 1e3 crossing the diagonal. The reference is ``1000^p`` plus the
    local excess computed in local coordinates (so its error is 1e-13 of a 1e-6 correction);
    a cancelling formula would lose ~6 digits here, the module's must stay within 8 ulps."""
    h = 1e-3
    lo = np.array([1000.0 - 0.25 * h, 1000.0 - 0.5 * h])
    hi = lo + np.array([h, 0.75 * h])
    s0, t0, s1, t1 = lo[0] - 1000.0, lo[1] - 1000.0, hi[0] - 1000.0, hi[1] - 1000.0
    ref = 1000.0**power + _local_excess(power, s0, s1, t0, t1)
    got = float(Norm("linf", power).cell_average(lo, hi))
    assert got == pytest.approx(ref, rel=8 * 2.0**-52)
    lo3, hi3 = np.append(lo, -1.0), np.append(hi, 1.0)  # a third axis that never wins the max
    got3, err3 = Norm("linf", power).cell_average(lo3, hi3, return_error=True)
    assert abs(got3 - ref) <= err3 + 8 * 2.0**-52 * ref


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("power", [0.5, 1.0, 2.0, 3.5])
def test_one_dimension_matches_the_scalar_power_cost(order: float, power: float) -> None:
    """d = 1: every norm is |x|, so the average is Power(p).cell_average (its own code). That
    reference differences antiderivatives, losing up to |centre|/half-width ulps, which sets
    the tolerance per cell; a far narrow cell is checked against its Taylor series instead."""
    lo, hi = _boxes(np.random.default_rng(11), 200, 1)
    lo[:2, 0], hi[:2, 0] = [-1e-9, -2.0], [1e-9, 2.0]
    got = np.asarray(Norm(order, power).cell_average(lo, hi))
    ref = np.asarray(Power(power).cell_average(lo[:, 0], hi[:, 0]))
    c, h = 0.5 * (lo[:, 0] + hi[:, 0]), 0.5 * (hi[:, 0] - lo[:, 0])
    tol = 1e-14 * np.maximum(1.0, np.abs(c) / h)
    assert np.all(np.abs(got - ref) <= tol * np.abs(ref))
    # [1000, 1000.001]: avg (c + s)^p = c^p (1 + p(p − 1)/6 (h/c)² + O((h/c)⁴)), (h/c)⁴ ~ 1e-25
    far = float(Norm(order, power).cell_average([1000.0], [1000.0 + 1e-3]))
    c, h = 1000.0 + 5e-4, 5e-4
    assert far == pytest.approx(c**power * (1 + power * (power - 1) / 6 * (h / c) ** 2), rel=4e-16)


def test_symmetric_boxes_have_closed_forms_in_three_dimensions() -> None:
    """On [−c, c]^d the |x_k| are i.i.d. uniform on [0, c]: E max^p = c^p d/(d + p) and
    E (Σ|x_k|)² = d c²/3 + d(d − 1) c²/4; E ‖x‖₂² = d c²/3."""
    for d in (3, 4, 6):
        lo, hi = -np.full(d, 1.7), np.full(d, 1.7)
        c = 1.7
        for p in (1.0, 2.0, 5.0):
            got = Norm("linf", p).cell_average(lo, hi)
            assert got == pytest.approx(c**p * d / (d + p), rel=1e-13)
        assert Norm(1, 2).cell_average(lo, hi) == pytest.approx(
            d * c * c / 3 + d * (d - 1) * c * c / 4, rel=1e-14
        )
        assert Norm(2, 2).cell_average(lo, hi) == pytest.approx(d * c * c / 3, rel=1e-14)
        assert Norm(1).cell_average(lo, hi) == pytest.approx(d * c / 2, rel=1e-14)


def _survival_reference(lo: np.ndarray, hi: np.ndarray, p: float) -> float:
    """``E max_k |U_k|^p = ∫ p m^(p−1) (1 − Π_k F_k(m)) dm`` by quad (knots as break points)."""
    w = hi - lo

    def survival(m: float) -> float:
        cdf = np.clip(np.minimum(m, hi) - np.maximum(-m, lo), 0.0, None) / w
        return p * m ** (p - 1.0) * (1.0 - float(np.prod(cdf)))

    top = float(np.max(np.maximum(np.abs(lo), np.abs(hi))))
    knots = sorted({float(k) for k in np.abs(np.concatenate([lo, hi])) if 0.0 < k < top})
    val, _ = integrate.quad(survival, 0.0, top, points=knots or None, epsrel=1e-13, limit=400)
    return val


@pytest.mark.parametrize("d", [3, 4])
@pytest.mark.parametrize("power", [1.0, 2.0, 0.5])
def test_linf_knot_rule_matches_the_survival_integral(d: int, power: float) -> None:
    """ℓ∞ in 3-D and 4-D vs an independent formula (the survival function, integrated by quad);
    integer powers are exact (1e-11: the reference's tolerance), others within their stated
    error estimate plus the reference's tolerance."""
    cost = Norm("linf", power)
    lo, hi = _boxes(np.random.default_rng(5), 30, d)
    avg, err = cost.cell_average(lo, hi, return_error=True)
    ref = np.array([_survival_reference(a, b, power) for a, b in zip(lo, hi, strict=True)])
    assert cost.has_exact_cell_average(d) == power.is_integer()
    assert np.all(np.abs(avg - ref) <= err + 1e-11 * np.abs(ref))
    if power.is_integer():
        np.testing.assert_allclose(avg, ref, rtol=1e-11)


# -- quadrature with a stated error ----------------------------------------------------------
@pytest.mark.parametrize(("order", "power"), [(2.0, 1.0), (2.0, 0.5), (1.0, 0.5), (2.0, 3.0)])
def test_quadrature_error_estimate_bounds_the_error_in_2d(order: float, power: float) -> None:
    """|average − reference| ≤ returned error + the reference's tolerance (100× its request),
    on boxes that cross the axes (kinks), touch the origin (singular corner) or do neither."""
    cost = Norm(order, power)
    assert not cost.has_exact_cell_average(2)
    lo, hi = _boxes(np.random.default_rng(13), 30, 2)
    lo[:5], hi[:5] = -np.abs(lo[:5]) * 1e-2, np.abs(hi[:5])  # the origin inside, off-centre
    avg, err = cost.cell_average(lo, hi, return_error=True)
    ref = np.array([_ref_average_2d(cost, a, b) for a, b in zip(lo, hi, strict=True)])
    assert np.all(np.abs(avg - ref) <= err + 100 * REF_RTOL * np.abs(ref))
    assert np.all(err <= 1e-4 * np.abs(ref))  # and the estimate is useful


@pytest.mark.parametrize(("order", "power"), [(1.0, 1.0), (1.0, 2.0), (2.0, 2.0)])
@pytest.mark.parametrize("d", [2, 3, 4])
def test_quadrature_agrees_with_the_closed_forms(order: float, power: float, d: int) -> None:
    """The tensor rule (private route) on polynomial-in-each-orthant integrands is exact up to
    rounding, and its stated error covers the difference to the closed form."""
    cost = Norm(order, power)
    lo, hi = _boxes(np.random.default_rng(17), 200, d)
    exact = np.asarray(cost.cell_average(lo, hi))
    quad, err = cost._quadrature_average(lo, hi)
    assert np.all(np.abs(quad - exact) <= err)


# -- properties --------------------------------------------------------------------------------
_coord = st.floats(-5.0, 5.0, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_coord, min_size=2, max_size=2),
    st.lists(st.floats(1e-3, 4.0), min_size=2, max_size=2),
    st.floats(0.01, 0.99),
    st.sampled_from([(1.0, 1.0), (1.0, 2.0), (2.0, 2.0), (math.inf, 1.0), (math.inf, 2.5)]),
    st.integers(0, 1),
)
def test_exact_averages_are_additive_over_a_split(
    corner: list[float], widths: list[float], cut: float, law: tuple[float, float], axis: int
) -> None:
    """Cutting a box in two: volume-weighted averages of the parts give the whole's."""
    cost = Norm(*law)
    lo = np.array(corner)
    hi = lo + np.array(widths)
    mid = lo[axis] + cut * (hi[axis] - lo[axis])
    hi_a, lo_b = hi.copy(), lo.copy()
    hi_a[axis], lo_b[axis] = mid, mid
    if not (lo[axis] < mid < hi[axis]):
        return
    fa, fb = (mid - lo[axis]) / (hi[axis] - lo[axis]), (hi[axis] - mid) / (hi[axis] - lo[axis])
    whole = float(cost.cell_average(lo, hi))
    parts = fa * float(cost.cell_average(lo, hi_a)) + fb * float(cost.cell_average(lo_b, hi))
    assert parts == pytest.approx(whole, rel=1e-11, abs=1e-13)


# -- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("order", [3, 0.5, "l3", True, None, -1])
def test_bad_order(order: object) -> None:
    with pytest.raises(ValueError, match=r"`order` must be one of 1, 2, inf .*got"):
        Norm(order)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("power", "exc"),
    [(0.0, ValueError), (-1.0, ValueError), (math.nan, ValueError), ("2", TypeError)],
)
def test_bad_power(power: object, exc: type[Exception]) -> None:
    with pytest.raises(exc, match=r"`power` must be a (finite )?real number in \(0, inf\)"):
        Norm(2, power)  # type: ignore[arg-type]


def test_bad_points_and_boxes() -> None:
    cost = Norm(1)
    with pytest.raises(ValueError, match=r"`points` must have shape \(\.\.\., d\).*got shape \(\)"):
        cost(3.0)
    with pytest.raises(ValueError, match="`points` must not contain NaN"):
        cost([1.0, math.nan])
    with pytest.raises(TypeError, match="`points` must be an array of real vectors"):
        cost(["a", "b"])
    with pytest.raises(ValueError, match="same last axis"):
        cost.cell_average([0.0, 0.0], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"`upper` must exceed `lower`.*got upper − lower = 0.0"):
        cost.cell_average([0.0, 0.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="must be finite"):
        cost.cell_average([0.0, 0.0], [1.0, math.inf])
    with pytest.raises(ValueError, match="must broadcast"):
        cost.cell_average(np.zeros((3, 2)), np.ones((2, 2)))
    with pytest.raises(NotImplementedError, match="offered up to dimension 4"):
        Norm(2).cell_average(np.zeros(5), np.ones(5))
