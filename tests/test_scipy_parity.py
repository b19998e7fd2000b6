"""The scipy.stats interface of the 1-D noise families: mean, var, std, median, isf, interval,
support, moment, entropy and stats.

Independent truths: scipy's own distributions where scipy has the family (``laplace``,
``dlaplace``, ``norm``); adaptive quadrature of ``xⁿ·pdf`` step by step (each step of a
piecewise-constant density is a polynomial integrand) for the staircase, the uniform + atom and
the truncated Laplace; brute-force sums over a long truncated support for the pmfs and the
tabulated noises, with the neglected tail mass bounded in each test; direct inversion of ``sf``
for ``isf``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _reference import random_tabulated
from scipy import integrate, stats

import optmech
from optmech.mechanisms import LatticeNoise, PiecewiseConstantNoise
from optmech.mechanisms.base import ContinuousNoise, DiscreteNoise
from optmech.mechanisms.graded import GradedNoise
from optmech.privacy import PureDP

ORDERS = (1, 2, 3, 4, 6)


def _same(got: float, want: float, rel: float = 1e-12, abs_: float = 1e-300) -> None:
    assert got == pytest.approx(want, rel=rel, abs=abs_), (got, want)


def _check_against_scipy(noise, ref, *, rel: float = 1e-12) -> None:
    """Every summary of ``noise`` equals scipy's for the same law (up to ``rel``)."""
    mean, var, skew, kurt = (float(v) for v in ref.stats(moments="mvsk"))
    m, v, s, k = noise.stats("mvsk")
    scale = math.sqrt(var)
    _same(m, mean, rel, abs_=1e-14 * scale)
    _same(v, var, rel)
    _same(s, skew, rel, abs_=1e-12)
    _same(k, kurt, rel, abs_=1e-12)
    _same(noise.std(), float(ref.std()), rel)
    _same(noise.entropy(), float(ref.entropy()), rel)
    for n in (1, 2, 3, 4):  # scipy integrates numerically beyond order 4 for some families
        _same(noise.moment(n), float(ref.moment(n)), 1e-11, abs_=1e-13 * scale**n)
    assert noise.moment(0) == 1.0
    _same(noise.median(), float(ref.median()), rel, abs_=1e-15 * scale)
    for c in (0.0, 0.5, 0.9, 0.999):
        lo, hi = noise.interval(c)
        want_lo, want_hi = ref.interval(c)
        _same(lo, float(want_lo), 1e-11, abs_=1e-15 * scale)
        _same(hi, float(want_hi), 1e-11, abs_=1e-15 * scale)
    q = np.array([0.9, 0.5, 0.2, 1e-3, 1e-9])
    np.testing.assert_allclose(noise.isf(q), ref.isf(q), rtol=1e-11, atol=1e-15 * scale)
    assert noise.support() == tuple(float(e) for e in ref.support())


@pytest.mark.parametrize(("eps", "delta"), [(1.0, 1.0), (0.1, 3.0), (7.0, 0.5)])
def test_laplace_matches_scipy_laplace(eps: float, delta: float) -> None:
    noise = optmech.Laplace(epsilon=eps, sensitivity=delta)
    _check_against_scipy(noise, stats.laplace(scale=delta / eps))


@pytest.mark.parametrize(("eps", "delta"), [(1.0, 1), (0.3, 2), (5.0, 3)])
def test_geometric_matches_scipy_dlaplace(eps: float, delta: int) -> None:
    noise = optmech.Geometric(epsilon=eps, sensitivity=delta)
    _check_against_scipy(noise, stats.dlaplace(eps / delta))


@pytest.mark.parametrize("calibration", ["classic", "analytic"])
def test_gaussian_matches_scipy_norm(calibration: str) -> None:
    noise = optmech.Gaussian(epsilon=0.5, delta=1e-5, sensitivity=2.0, calibration=calibration)
    _check_against_scipy(noise, stats.norm(scale=noise.sigma))


def test_isf_keeps_the_far_tail_where_ppf_of_one_minus_q_cannot() -> None:
    """scipy's Laplace isf is exact (−λ log 2q); ``ppf(1 − 1e-200)`` would be inf."""
    noise = optmech.Laplace(epsilon=1.0)
    q = np.array([1e-20, 1e-200, 1e-300])
    np.testing.assert_allclose(noise.isf(q), stats.laplace.isf(q), rtol=1e-14)
    staircase = optmech.Staircase(epsilon=2.0, gamma=0.3)
    x = staircase.isf(q)
    np.testing.assert_allclose(staircase.sf(x), q, rtol=1e-12)
    assert np.all(np.isfinite(x))


# -- the staircase and the other closed-form families against quadrature ------------------------
def _step_quadrature(noise, breaks: np.ndarray, fn) -> float:
    """``∫ fn(x) pdf(x) dx`` by QUADPACK on each piece between consecutive ``breaks``."""
    pieces = [
        integrate.quad(lambda x: fn(x) * float(noise.pdf(x)), lo, hi, epsabs=0, epsrel=1e-13)[0]
        for lo, hi in itertools.pairwise(breaks)
    ]
    return math.fsum(pieces)


def _staircase_breaks(noise: optmech.Staircase, periods: int) -> np.ndarray:
    k = np.arange(periods, dtype=np.float64)
    half = np.sort(np.concatenate([k, k + noise.gamma, [float(periods)]])) * noise.sensitivity
    return np.unique(np.concatenate([-half[::-1], half]))


@pytest.mark.parametrize(
    ("eps", "gamma", "delta"), [(1.0, 0.3, 1.0), (0.5, 0.8, 2.0), (4.0, 0.05, 0.7)]
)
def test_staircase_moments_and_entropy_against_step_quadrature(
    eps: float, gamma: float, delta: float
) -> None:
    """Steps out to K periods with ``εK ≥ 90``: the mass beyond is ``b^K < e^-90`` and its share
    of ``E|X|^6`` below ``((K + 1)Δ)^6 e^-90 / (1 − b)^7``, far under the 1e-11 asked."""
    noise = optmech.Staircase(epsilon=eps, gamma=gamma, sensitivity=delta)
    periods = math.ceil(90.0 / eps)
    breaks = _staircase_breaks(noise, periods)
    for n in ORDERS:
        want = _step_quadrature(noise, breaks, lambda x, n=n: x**n)
        scale = noise.std() ** n
        _same(noise.moment(n), want, 1e-11, abs_=1e-13 * scale)
    # the variance in Geng & Viswanath (2016)'s closed form (u = b + (1 − b)γ)
    b = math.exp(-eps)
    u = b + (1 - b) * gamma
    closed = delta**2 * (u**3 + 3 * b * u + b + b * b) / (3 * u * (1 - b) ** 2)
    _same(noise.var(), closed, 1e-13)
    entropy = _step_quadrature(noise, breaks, lambda x: -math.log(float(noise.pdf(x))))
    _same(noise.entropy(), entropy, 1e-11)
    assert noise.stats("sk") == (0.0, pytest.approx(noise.moment(4) / noise.var() ** 2 - 3.0))


def test_staircase_entropy_tends_to_laplace_as_epsilon_shrinks() -> None:
    """As ε → 0 the staircase spreads like Lap(Δ/ε): entropy 1 + log(2Δ/ε) + O(ε)."""
    eps = 1e-4
    noise = optmech.Staircase(epsilon=eps, gamma=0.5)
    assert noise.entropy() == pytest.approx(1.0 + math.log(2.0 / eps), abs=1e-3)


def test_uniform_atom_moments_and_entropy_against_quadrature() -> None:
    noise = optmech.UniformAtom(delta=0.3, alpha=0.1, sensitivity=2.0)
    big_l = noise.half_width
    breaks = np.array([-big_l, 0.0, big_l])
    for n in ORDERS:
        _same(noise.moment(n), _step_quadrature(noise, breaks, lambda x, n=n: x**n), 1e-12)
    assert noise.mean() == 0.0 and noise.median() == 0.0
    assert noise.support() == (-big_l, big_l)
    with pytest.raises(ValueError, match="atom"):
        noise.entropy()
    plain = optmech.UniformAtom(delta=0.3, alpha=0.0)
    entropy = _step_quadrature(plain, np.array([-plain.half_width, plain.half_width]), lambda x: 1)
    _same(plain.entropy(), -math.log(plain.density) * entropy)


def test_truncated_laplace_against_quadrature() -> None:
    noise = optmech.TruncatedLaplace(epsilon=1.0, delta=1e-3, sensitivity=1.5)
    a = noise.half_width
    breaks = np.array([-a, 0.0, a])
    for n in ORDERS:
        _same(noise.moment(n), _step_quadrature(noise, breaks, lambda x, n=n: x**n), 1e-11)
    entropy = _step_quadrature(noise, breaks, lambda x: -math.log(float(noise.pdf(x))))
    _same(noise.entropy(), entropy, 1e-11)
    assert noise.support() == (-a, a)
    assert noise.isf(0.0) == a and noise.isf(1.0) == -a


def _pmf_sums(noise, half: int) -> tuple[np.ndarray, np.ndarray]:
    k = np.arange(-half, half + 1, dtype=np.float64)
    return k, np.asarray(noise.pmf(k))


@pytest.mark.parametrize(("eps", "delta", "r"), [(1.0, 5, 2), (0.4, 3, 3), (3.0, 4, 1)])
def test_discrete_staircase_against_brute_force_sums(eps: float, delta: int, r: int) -> None:
    """Sum over |k| ≤ K with εK/Δ ≥ 90: the mass beyond is below e^-90."""
    noise = optmech.DiscreteStaircase(epsilon=eps, sensitivity=delta, r=r)
    k, p = _pmf_sums(noise, math.ceil(90.0 * delta / eps))
    assert math.fsum(p.tolist()) == pytest.approx(1.0, abs=1e-14)
    for n in ORDERS:
        _same(noise.moment(n), math.fsum((p * k**n).tolist()), 1e-11, abs_=1e-12)
    _same(noise.entropy(), -math.fsum((p * np.log(p)).tolist()), 1e-12)
    q = np.array([0.4, 0.1, 1e-3, 1e-8])
    sf = np.asarray(noise.sf(k))
    want = [k[np.argmax(sf <= qi)] for qi in q]  # smallest k with sf(k) ≤ q
    np.testing.assert_array_equal(noise.isf(q), want)


# -- tabulated noise against brute force over a long truncated support ---------------------------
def _expand(noise, periods: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells ``[lo, hi)`` of the table and of ``periods`` tail periods each side, with the
    density read by ``pdf`` at their midpoints (the masses beyond shrink by ``ratio^periods``)."""
    if isinstance(noise, GradedNoise):
        inner = np.concatenate([[0.0], np.cumsum(noise.widths)]) * noise.sensitivity
        first = noise.first_period - periods
        last = noise.first_period + noise.num_cells // noise.period + periods
        k = np.arange(first, last, dtype=np.float64)[:, None] * noise.sensitivity
        lo, hi = (k + inner[None, :-1]).ravel(), (k + inner[None, 1:]).ravel()
    else:
        h, p = noise.width, noise.period
        n = np.arange(-periods * p, noise.num_cells + periods * p, dtype=np.float64)
        lo = noise.start + h * n
        hi = lo + h
    return lo, hi, np.asarray(noise.pdf(0.5 * (lo + hi)))


def _brute_moment(lo, hi, dens, n: int, center: float = 0.0) -> float:
    a, b = lo - center, hi - center
    return math.fsum((dens * (b ** (n + 1) - a ** (n + 1)) / (n + 1)).tolist())


def _asymmetric_piecewise(atom: float = 0.0) -> PiecewiseConstantNoise:
    return random_tabulated(
        np.random.default_rng(5),
        12,
        4,
        ratios=(0.6, 0.3),
        width=0.25,
        atom=atom,
        start=-1.25,
        sensitivity=1.0,
        privacy=PureDP(1.0),
    )


@pytest.mark.parametrize("atom", [0.0, 0.2])
def test_piecewise_moments_against_brute_force(atom: float) -> None:
    """200 tail periods each side: the neglected mass is below 0.6^200 < 1e-44."""
    noise = _asymmetric_piecewise(atom)
    lo, hi, dens = _expand(noise, 200)
    assert math.fsum((dens * (hi - lo)).tolist()) + atom == pytest.approx(1.0, abs=1e-14)
    for n in ORDERS:
        _same(noise.moment(n), _brute_moment(lo, hi, dens, n), 1e-11)
    mean = noise.mean()
    _same(noise.var(), _brute_moment(lo, hi, dens, 2, mean) + atom * mean**2, 1e-11)
    for n, code in ((3, "s"), (4, "k")):
        central = _brute_moment(lo, hi, dens, n, mean) + atom * (-mean) ** n
        want = central / noise.var() ** (n / 2) - (3.0 if n == 4 else 0.0)
        _same(noise.stats(code), want, 1e-10)
    assert noise.support() == (-math.inf, math.inf)
    if atom:
        with pytest.raises(ValueError, match="atom"):
            noise.entropy()
    else:
        want = -math.fsum((dens * (hi - lo) * np.log(dens)).tolist())
        _same(noise.entropy(), want, 1e-12)


def test_piecewise_isf_inverts_sf_and_median_is_ppf() -> None:
    noise = _asymmetric_piecewise()
    q = np.array([0.99, 0.7, 0.5, 0.1, 1e-6, 1e-40, 1e-250])
    x = noise.isf(q)
    np.testing.assert_allclose(noise.sf(x), q, rtol=1e-9)
    below = np.nextafter(x, -np.inf)
    assert np.all(np.asarray(noise.sf(below)) > q)  # the smallest such x
    assert noise.median() == noise.ppf(0.5)
    assert noise.interval(0.8) == (noise.ppf((1 - 0.8) / 2), noise.ppf((1 + 0.8) / 2))


def test_finite_piecewise_support_is_the_cells_with_mass() -> None:
    dens = np.array([0.0, 1.0, 1.0, 0.0])
    noise = PiecewiseConstantNoise(
        start=-1.0, width=0.5, densities=dens, period=1, sensitivity=1.0, privacy=PureDP(1.0)
    )
    assert noise.support() == (-0.5, 0.5)
    assert noise.isf(0.0) == 0.5 and noise.isf(1.0) == -0.5
    assert noise.entropy() == pytest.approx(0.0, abs=1e-15)  # uniform on an interval of length 1
    assert noise.var() == pytest.approx(1.0 / 12.0, rel=1e-14)


def _asymmetric_lattice() -> LatticeNoise:
    return random_tabulated(
        np.random.default_rng(11),
        9,
        3,
        ratios=(0.5, 0.7),
        start=-3,
        sensitivity=2,
        privacy=PureDP(1.0),
    )


def test_lattice_against_brute_force_sums() -> None:
    """400 tail periods each side: the mass beyond is below 0.7^400 < 1e-61."""
    noise = _asymmetric_lattice()
    k, p = _pmf_sums(noise, 3 * 400 + 10)
    assert math.fsum(p.tolist()) == pytest.approx(1.0, abs=1e-14)
    for n in ORDERS:
        _same(noise.moment(n), math.fsum((p * k**n).tolist()), 1e-11)
    mean = noise.mean()
    _same(noise.var(), math.fsum((p * (k - mean) ** 2).tolist()), 1e-11)
    positive = p > 0
    _same(noise.entropy(), -math.fsum((p[positive] * np.log(p[positive])).tolist()), 1e-12)
    sf = np.asarray(noise.sf(k))
    for q in (0.9, 0.5, 0.05, 1e-6, 1e-30):
        assert noise.isf(q) == k[np.argmax(sf <= q)]
    assert noise.support() == (-math.inf, math.inf)
    assert noise.median() == noise.ppf(0.5)


def test_lattice_support_is_callable_and_reading_it_as_an_array_warns() -> None:
    noise = optmech.Geometric(epsilon=1.0)  # not tabulated: support() only
    assert noise.support() == (-math.inf, math.inf)
    finite = LatticeNoise(
        start=-2, pmf=[0.0, 0.25, 0.5, 0.25, 0.0], period=1, sensitivity=1, privacy=PureDP(1.0)
    )
    assert finite.support() == (-1.0, 1.0)
    assert finite.isf(1.0) == -2.0  # one below the support, as scipy
    np.testing.assert_array_equal(finite.points, [-2, -1, 0, 1, 2])
    with pytest.deprecated_call(match="points"):
        first = finite.support[0]
    assert first == -2.0
    with pytest.deprecated_call(match="points"):
        assert list(finite.support) == [-2, -1, 0, 1, 2]


def test_graded_noise_against_brute_force() -> None:
    """A palindromic graded partition with random densities and tails of ratio e^-1.3; 60 tail
    periods each side leave a mass below e^-78."""
    rng = np.random.default_rng(3)
    eps, m = 1.3, 6
    half = rng.uniform(0.05, 1.0, m // 2) ** 3
    widths = np.concatenate([half, half[::-1]])
    widths = widths / widths.sum()
    values = rng.uniform(0.5, 1.0, 3 * m)
    b = math.exp(-eps)
    left, right = b * values[:m], b * values[-m:]
    total = float(np.dot(values, np.tile(widths, 3)))
    total += float(np.dot(left + right, widths)) / (1 - b)
    noise = GradedNoise(
        sensitivity=1.5,
        widths=widths,
        first_period=-1,
        densities=values / (1.5 * total),
        left_tail=(left / (1.5 * total), b),
        right_tail=(right / (1.5 * total), b),
        privacy=PureDP(eps),
    )
    lo, hi, dens = _expand(noise, 60)
    assert math.fsum((dens * (hi - lo)).tolist()) == pytest.approx(1.0, abs=1e-13)
    for n in ORDERS:
        _same(noise.moment(n), _brute_moment(lo, hi, dens, n), 1e-10, abs_=1e-13)
    _same(noise.var(), _brute_moment(lo, hi, dens, 2, noise.mean()), 1e-11)
    _same(noise.entropy(), -math.fsum((dens * (hi - lo) * np.log(dens)).tolist()), 1e-11)
    x = noise.isf(np.array([0.3, 1e-5, 1e-60]))
    np.testing.assert_allclose(noise.sf(x), [0.3, 1e-5, 1e-60], rtol=1e-9)


# -- the generic defaults, on families that bring no exact forms ---------------------------------
class _BareLaplace(ContinuousNoise):
    """Laplace(1) with only the required formulas: every summary comes from the defaults."""

    sensitivity = 1.0

    @property
    def privacy(self) -> PureDP:
        return PureDP(1.0)

    def _pdf(self, x):
        return 0.5 * np.exp(-np.abs(x))

    def _cdf(self, x):
        return np.where(x < 0, 0.5 * np.exp(-np.abs(x)), 1.0 - 0.5 * np.exp(-np.abs(x)))

    def _sf(self, x):
        return np.where(x > 0, 0.5 * np.exp(-np.abs(x)), 1.0 - 0.5 * np.exp(-np.abs(x)))

    def _ppf(self, q):
        with np.errstate(divide="ignore"):
            return np.where(q < 0.5, np.log(2 * q), -np.log(2 * (1 - q)))

    def _rvs(self, size, rng):
        return rng.laplace(size=size)

    def _expected_cost(self, cost):
        raise NotImplementedError

    def __repr__(self) -> str:
        return "_BareLaplace()"


class _BareGeometric(DiscreteNoise):
    """Two-sided geometric with β = e^-1 and only the required formulas."""

    sensitivity = 1.0
    beta = math.exp(-1.0)

    @property
    def privacy(self) -> PureDP:
        return PureDP(1.0)

    def _pmf(self, k):
        return (1 - self.beta) / (1 + self.beta) * self.beta ** np.abs(k)

    def _cdf(self, x):
        tail = self.beta ** np.abs(np.where(x < 0, x, x + 1)) / (1 + self.beta)
        return np.where(x < 0, tail, 1.0 - tail)

    def _ppf(self, q):
        return stats.dlaplace(1.0).ppf(q)

    def _rvs(self, size, rng):
        raise NotImplementedError

    def _expected_cost(self, cost):
        raise NotImplementedError

    def __repr__(self) -> str:
        return "_BareGeometric()"


def test_default_quadrature_and_sums_match_scipy() -> None:
    """The defaults' stated accuracy (1e-10 relative quadrature; sums to mass 1e-300)."""
    bare, ref = _BareLaplace(), stats.laplace()
    for n in (1, 2, 3, 4):
        _same(bare.moment(n), float(ref.moment(n)), 1e-9, abs_=1e-10)
    _same(bare.entropy(), float(ref.entropy()), 1e-9)
    np.testing.assert_allclose(bare.isf([0.3, 1e-12, 1e-250]), ref.isf([0.3, 1e-12, 1e-250]))
    assert bare.support() == (-math.inf, math.inf)
    geo, dref = _BareGeometric(), stats.dlaplace(1.0)
    _same(geo.var(), float(dref.var()), 1e-12)
    _same(geo.entropy(), float(dref.entropy()), 1e-12)
    np.testing.assert_array_equal(geo.isf([0.3, 0.01]), dref.isf([0.3, 0.01]))


# -- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda n: n.moment(1.5), ValueError, "`order` must be an integer in \\[0, 100\\]"),
        (lambda n: n.moment(-1), ValueError, "`order`"),
        (lambda n: n.moment("2"), TypeError, "`order`"),
        (lambda n: n.interval(1.5), ValueError, "`confidence` must be in \\[0, 1\\]; got 1.5"),
        (lambda n: n.isf([0.5, -0.1]), ValueError, "`q` must be in \\[0, 1\\]; got -0.1"),
        (lambda n: n.isf(float("nan")), ValueError, "NaN"),
        (lambda n: n.stats("mx"), ValueError, "`moments`"),
        (lambda n: n.stats(""), ValueError, "`moments`"),
    ],
)
def test_bad_arguments_raise_naming_the_parameter(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call(optmech.Staircase(epsilon=1.0, gamma=0.5))


def test_a_moment_beyond_the_double_range_raises() -> None:
    with pytest.raises(ValueError, match="not finite"):
        optmech.Laplace(epsilon=1e-3).moment(100)


def test_scalar_and_array_returns() -> None:
    noise = optmech.Staircase(epsilon=1.0, gamma=0.5)
    assert isinstance(noise.isf(0.2), float)
    assert noise.isf([0.2]).shape == (1,)
    lo, hi = noise.interval(np.array([0.5, 0.9]))
    assert lo.shape == hi.shape == (2,)
    assert isinstance(noise.stats("m"), float)
    assert isinstance(noise.stats(), tuple) and len(noise.stats()) == 2


def test_designed_lattice_noise_summaries_against_brute_force() -> None:
    """An LP design (a subclass of LatticeNoise): its summaries come from its table."""
    noise = optmech.design_noise(PureDP(1.0), sensitivity=2, cost="abs", integer=True)
    k, p = _pmf_sums(noise, 400)
    assert math.fsum(p.tolist()) == pytest.approx(1.0, abs=1e-12)
    _same(noise.var(), math.fsum((p * k**2).tolist()) - noise.mean() ** 2, 1e-10)
    positive = p > 0
    _same(noise.entropy(), -math.fsum((p[positive] * np.log(p[positive])).tolist()), 1e-10)
    assert noise.mean() == pytest.approx(0.0, abs=1e-12)
