"""Tail accuracy of every noise family: ``sf``, ``logsf``, ``logcdf``, ``logpdf``/``logpmf``.

Independent truths, written here from each family's density (never from optmech's code) and
evaluated in 50-digit decimal arithmetic (:mod:`decimal`; mpmath is not installed here):

* Laplace: ``P(X > x) = ½ exp(−εx/Δ)`` for ``x ≥ 0``;
* staircase: the density ``a b^k`` on ``[kΔ, (k + γ)Δ)`` and ``a b^(k+1)`` on the rest of the
  period, ``a = (1 − b)/(2Δ(γ + (1 − γ)b))``, integrated step by step over the periods beyond
  ``x`` (a truncated series, summed term by term until the terms fall below 1e-52);
* two-sided geometric and discrete staircase: their pmfs summed term by term;
* Gaussian: ``½ erfc(x/(σ√2))`` from the power series of ``erf`` (``x/(σ√2) < 3``) or the
  continued fraction of ``erfc`` (Abramowitz & Stegun 7.1.14), checked against known values;
* truncated Laplace: ``(e^(−x/λ) − e^(−A/λ))/(2(1 − e^(−A/λ)))``, the integral of its density;
* uniform with an atom: ``(L − x)h``;
* tabulated noise: the cell masses of grid and tails, enumerated period by period.

Tolerances: ``sf`` to 1e-12 relative wherever the true tail is at least 1e-300, ``logsf`` and
``logcdf`` to 1e-12 relative (absolute 1e-15 for the tabulated families, whose masses near 1
carry the rounding of their tables) also far beyond the underflow of ``sf``. How the tail
methods agree with each other (mirror images, complements, monotonicity, infinite points,
shapes, bad input) is checked on every family by the conformance battery, ``test_family_battery``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal, localcontext
from decimal import Context as DecimalContext
from typing import Any

import numpy as np
import pytest
from _families import discrete_staircase_table, staircase_table
from _reference import normalised_table
from scipy import special

from optmech.costs import Absolute
from optmech.mechanisms import (
    DiscreteStaircase,
    Gaussian,
    Geometric,
    Laplace,
    LatticeNoise,
    PiecewiseConstantNoise,
    Staircase,
    TruncatedLaplace,
    UniformAtom,
)
from optmech.mechanisms.base import NoiseDistribution
from optmech.privacy import ApproxDP, PureDP

#: Relative accuracy demanded of sf, logsf, logcdf and the log densities.
RTOL = 1e-12
#: Smallest true tail at which sf itself is compared (below, only logsf is).
SMALLEST = 1e-300

_CTX = DecimalContext(prec=50, Emin=-(10**12), Emax=10**12)
_LN10 = math.log(10.0)
#: Depth of the continued fraction of erfc (converged to 1e-50 relative from x = 3 on).
_CF_TERMS = 1500


def _hp(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a reference in the 50-digit decimal context (and cache it: points repeat)."""

    @functools.cache
    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        with localcontext(_CTX):
            return fn(*args)

    return wrapper


def D(v: float) -> Decimal:
    return Decimal(float(v))


def _exp(v: Decimal) -> Decimal:
    return v.exp()


def _pi() -> Decimal:
    """π by Machin's formula, 16·atan(1/5) − 4·atan(1/239), each by its Taylor series."""

    def atan_inv(n: int) -> Decimal:
        x = Decimal(1) / n
        term, total, k, sign = x, x, 1, 1
        while abs(term) > Decimal(10) ** -60:
            term = term * x * x
            k += 2
            sign = -sign
            total += sign * term / k
        return total

    with localcontext(_CTX):
        return 16 * atan_inv(5) - 4 * atan_inv(239)


PI = _pi()


def _log1m(u: Decimal) -> Decimal:
    """``ln(1 − u)`` without losing a tiny ``u`` to the 50-digit rounding of ``1 − u``."""
    if u < Decimal("1e-20"):
        return -(u + u * u / 2 + u * u * u / 3)
    return (1 - u).ln()


# -- references: tail(m) = P(X > m) (continuous, m ≥ 0) or P(X ≥ m) (discrete, m ≥ 0) -----------
@dataclass(frozen=True)
class Reference:
    """A symmetric law given by its upper tail on ``[0, ∞)`` and its log density."""

    tail: Callable[[float], Decimal]
    log_density: Callable[[float], Decimal | None]  # None: density 0
    discrete: bool = False

    def sf(self, x: float) -> tuple[Decimal, bool]:
        """``(u, complement)``: ``P(X > x)`` is ``1 − u`` if ``complement`` else ``u``."""
        if self.discrete:  # P(X ≥ x + 1), x integral
            return (self.tail(x + 1.0), False) if x >= 0 else (self.tail(-x), True)
        return (self.tail(x), False) if x >= 0 else (self.tail(-x), True)

    def cdf(self, x: float) -> tuple[Decimal, bool]:
        if self.discrete:  # P(X ≤ x) = P(X ≥ −x)
            return (self.tail(-x), False) if x < 0 else (self.tail(x + 1.0), True)
        return (self.tail(-x), False) if x < 0 else (self.tail(x), True)


@_hp
def laplace_tail(eps: float, delta: float, x: float) -> Decimal:
    return _exp(-D(eps) * D(x) / D(delta)) / 2


@_hp
def laplace_log_density(eps: float, delta: float, x: float) -> Decimal:
    return (D(eps) / (2 * D(delta))).ln() - D(eps) * abs(D(x)) / D(delta)


def _series_terms(eps: Decimal) -> int:
    """Periods after which ``b^n`` is below 1e-52 of the first term."""
    return int(52 * _LN10 / float(eps)) + 2


@_hp
def staircase_tail(eps: float, delta: float, gamma: float, x: float) -> Decimal:
    e, d, g = D(eps), D(delta), D(gamma)
    b = _exp(-e)
    a = (1 - b) / (2 * d * (g + (1 - g) * b))
    z = D(x) / d
    k = int(z)
    total = Decimal(0)
    for j in range(k, k + _series_terms(e)):
        for lo, hi, power in ((j, j + g, j), (j + g, j + 1, j + 1)):  # the two steps (units of Δ)
            lo, hi = max(Decimal(lo), z), Decimal(hi)
            if hi > lo:
                total += a * _exp(-e * power) * (hi - lo) * d
    return total


@_hp
def staircase_log_density(eps: float, delta: float, gamma: float, x: float) -> Decimal:
    e, d, g = D(eps), D(delta), D(gamma)
    b = _exp(-e)
    a = (1 - b) / (2 * d * (g + (1 - g) * b))
    z = abs(D(x)) / d
    k = int(z)
    return a.ln() - e * (k + (1 if z - k >= g else 0))


@_hp
def geometric_tail(eps: float, delta: int, m: float) -> Decimal:
    rate = D(eps) / delta
    beta = _exp(-rate)
    p0 = (1 - beta) / (1 + beta)
    start = int(m)
    return sum(
        (p0 * _exp(-rate * i) for i in range(start, start + delta * _series_terms(D(eps)))),
        Decimal(0),
    )


@_hp
def geometric_log_pmf(eps: float, delta: int, k: float) -> Decimal:
    rate = D(eps) / delta
    beta = _exp(-rate)
    return ((1 - beta) / (1 + beta)).ln() - rate * abs(D(k))


def _dstair_pmf(e: Decimal, delta: int, r: int, i: int) -> Decimal:
    b = _exp(-e)
    a = (1 - b) / (2 * r + 2 * b * (delta - r) - (1 - b))
    k, j = divmod(abs(i), delta)
    return a * _exp(-e * (k + (0 if j < r else 1)))


@_hp
def dstair_tail(eps: float, delta: int, r: int, m: float) -> Decimal:
    e, start = D(eps), int(m)
    stop = start + delta * _series_terms(e)
    return sum((_dstair_pmf(e, delta, r, i) for i in range(start, stop)), Decimal(0))


@_hp
def dstair_log_pmf(eps: float, delta: int, r: int, k: float) -> Decimal:
    return _dstair_pmf(D(eps), delta, r, int(k)).ln()


def _erfc(x: Decimal) -> Decimal:
    """``erfc(x)``, ``x ≥ 0``: positive power series of erf below 3, continued fraction above."""
    if x < 3:
        # erf(x) = 2/√π e^(−x²) Σ 2^n x^(2n+1)/(1·3···(2n+1)): positive terms.
        term = x
        total, n = x, 0
        while term > Decimal(10) ** -55 * total:
            n += 1
            term = term * 2 * x * x / (2 * n + 1)
            total += term
        return 1 - 2 / PI.sqrt() * _exp(-x * x) * total
    # A&S 7.1.14: erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))).
    t = x
    for n in range(_CF_TERMS, 0, -1):
        t = x + (Decimal(n) / 2) / t
    return _exp(-x * x) / PI.sqrt() / t


@_hp
def erfc(v: float) -> Decimal:
    return _erfc(D(v))


@_hp
def gaussian_tail(sigma: float, x: float) -> Decimal:
    return _erfc(D(x) / (D(sigma) * Decimal(2).sqrt())) / 2


@_hp
def gaussian_log_density(sigma: float, x: float) -> Decimal:
    s = D(sigma)
    return -(D(x) ** 2) / (2 * s * s) - (s * (2 * PI).sqrt()).ln()


@_hp
def trunc_laplace_tail(eps: float, delta: float, half_width: float, x: float) -> Decimal:
    lam = D(delta) / D(eps)
    xx, a = D(x), D(half_width)
    if xx >= a:
        return Decimal(0)
    return (_exp(-xx / lam) - _exp(-a / lam)) / (2 * (1 - _exp(-a / lam)))


@_hp
def trunc_laplace_log_density(
    eps: float, delta: float, half_width: float, x: float
) -> Decimal | None:
    lam, a = D(delta) / D(eps), D(half_width)
    if D(x).copy_abs() > a:  # copy_abs: no rounding to the context's 50 digits
        return None
    return -(2 * lam * (1 - _exp(-a / lam))).ln() - abs(D(x)) / lam


@_hp
def uniform_atom_tail(half_width: float, density: float, x: float) -> Decimal:
    return max(D(half_width) - D(x), Decimal(0)) * D(density)


# -- tabulated noise: the cell masses, enumerated ------------------------------------------------
Cell = tuple[Decimal, Decimal, Decimal]  # (lo, hi, mass) of a cell [lo, hi)


class TabulatedReference:
    """Cell masses ``[lo, hi)`` of a grid law with geometric tails, in decimals."""

    def __init__(
        self,
        start: float,
        h: float,
        values: Any,
        period: int,
        left: tuple[Any, float],
        right: tuple[Any, float],
        atom: float = 0.0,
        lattice: bool = False,
    ) -> None:
        with localcontext(_CTX):
            self.start, self.h, self.p = D(start), D(h), period
            self.values = [D(v) for v in values]
            self.end = self.start + len(values) * self.h
            self.left = ([D(v) for v in left[0]], D(left[1]))
            self.right = ([D(v) for v in right[0]], D(right[1]))
            self.atom, self.lattice = D(atom), lattice
            self.total = self._sum(self._all_cells(), Decimal("-Infinity"), above=True)

    @staticmethod
    def _periods(ratio: Decimal) -> int:
        return 1 if ratio == 0 else int(52 * _LN10 / -float(ratio.ln())) + 2

    def _tail_cells(self, side: str, first: int) -> Iterator[Cell]:
        base, ratio = self.left if side == "left" else self.right
        span = self.p * self.h
        for j in range(first, first + self._periods(ratio)):
            factor = Decimal(1) if j == 0 else ratio**j
            for c in range(self.p):
                if side == "left":
                    lo = self.start - (j + 1) * span + c * self.h
                else:
                    lo = self.end + j * span + c * self.h
                yield lo, lo + self.h, base[c] * factor * self.h

    def _grid_cells(self) -> Iterator[Cell]:
        for i, v in enumerate(self.values):
            lo = self.start + i * self.h
            yield lo, lo + self.h, v * self.h

    def _all_cells(self) -> Iterator[Cell]:
        yield from self._tail_cells("left", 0)
        yield from self._grid_cells()
        yield from self._tail_cells("right", 0)

    @staticmethod
    def _sum(cells: Iterable[Cell], x: Decimal, *, above: bool) -> Decimal:
        total = Decimal(0)
        for lo, hi, mass in cells:
            if above:
                share = 1 if lo >= x else (0 if hi <= x else (hi - x) / (hi - lo))
            else:
                share = 1 if hi <= x else (0 if lo >= x else (x - lo) / (hi - lo))
            total += mass * share
        return total

    def _first(self, distance: Decimal) -> int:
        return max(int(distance / (self.p * self.h)) - 1, 0)

    def upper(self, x: Decimal) -> Decimal:
        """Continuous mass on ``(x, ∞)``."""
        if x < self.start:
            return self.total - self.lower(x)
        if x >= self.end:
            return self._sum(self._tail_cells("right", self._first(x - self.end)), x, above=True)
        cells = (*self._grid_cells(), *self._tail_cells("right", 0))
        return self._sum(cells, x, above=True)

    def lower(self, x: Decimal) -> Decimal:
        """Continuous mass on ``(−∞, x]``."""
        if x >= self.end:
            return self.total - self.upper(x)
        if x < self.start:
            return self._sum(self._tail_cells("left", self._first(self.start - x)), x, above=False)
        cells = (*self._tail_cells("left", 0), *self._grid_cells())
        return self._sum(cells, x, above=False)

    def density(self, x: Decimal) -> Decimal:
        g = int(((x - self.start) / self.h).to_integral_value(rounding=ROUND_FLOOR))
        if 0 <= g < len(self.values):
            return self.values[g]
        if g >= len(self.values):
            (base, ratio), (k, c) = self.right, divmod(g - len(self.values), self.p)
        else:  # cell −1 is the last cell of the first left period
            (base, ratio), (k, c) = self.left, divmod(-g - 1, self.p)
            c = self.p - 1 - c
        return base[c] * (Decimal(1) if k == 0 else ratio**k)

    # The family-level quantities (pairs as in Reference: never complements here).
    def sf(self, x: float) -> tuple[Decimal, bool]:
        with localcontext(_CTX):
            if self.lattice:
                return self.upper(D(x) + 1), False
            return self.upper(D(x)) + (self.atom if x < 0 else 0), False

    def cdf(self, x: float) -> tuple[Decimal, bool]:
        with localcontext(_CTX):
            if self.lattice:
                return self.lower(D(x) + 1), False
            return self.lower(D(x)) + (self.atom if x >= 0 else 0), False

    def log_density(self, x: float) -> Decimal | None:
        with localcontext(_CTX):
            value = self.density(D(x) + Decimal("0.5") if self.lattice else D(x))
            return value.ln() if value > 0 else None


# -- the cases ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    name: str
    noise: NoiseDistribution
    ref: Any  # Reference or TabulatedReference
    far: float  # a point where the tail is about 1e-300
    symmetric: bool = True
    unbounded: bool = True  # mass on the right however far out
    log_atol: float = 0.0
    density_points: str = "any"  # "centres": away from the cell edges of a tabulated law


def _pure_dp_case(
    name: str,
    noise: NoiseDistribution,
    tail: Callable[..., Decimal],
    log_density: Callable[..., Decimal | None],
    *params: float,
) -> Case:
    """A case of an ε-DP family whose references take ``params`` = (ε, Δ, shape...) first.

    Its tail falls to about 1e-300 at ``690 Δ/ε`` (rounded down to the lattice when discrete).
    """
    eps, delta = params[:2]
    far = 690.0 * delta / eps
    return Case(
        name,
        noise,
        Reference(
            functools.partial(tail, *params),
            functools.partial(log_density, *params),
            discrete=noise.discrete,
        ),
        far=float(math.floor(far)) if noise.discrete else far,
    )


def _laplace(eps: float, delta: float) -> Case:
    noise = Laplace(epsilon=eps, sensitivity=delta)
    name = f"Laplace({eps},{delta})"
    return _pure_dp_case(name, noise, laplace_tail, laplace_log_density, eps, delta)


def _staircase(noise: Staircase) -> Case:
    eps, delta, gamma = noise.epsilon, noise.sensitivity, noise.gamma
    name = f"Staircase({eps},{delta},{gamma:.3f})"
    return _pure_dp_case(name, noise, staircase_tail, staircase_log_density, eps, delta, gamma)


def _geometric(eps: float, delta: int) -> Case:
    noise = Geometric(epsilon=eps, sensitivity=delta)
    name = f"Geometric({eps},{delta})"
    return _pure_dp_case(name, noise, geometric_tail, geometric_log_pmf, eps, delta)


def _dstair(eps: float, delta: int, r: int) -> Case:
    noise = DiscreteStaircase(epsilon=eps, sensitivity=delta, r=r)
    name = f"DiscreteStaircase({eps},{delta},{r})"
    return _pure_dp_case(name, noise, dstair_tail, dstair_log_pmf, eps, delta, r)


def _gaussian(**kwargs: Any) -> Case:
    noise = Gaussian(**kwargs)
    return Case(
        f"Gaussian({kwargs})",
        noise,
        Reference(
            functools.partial(gaussian_tail, noise.sigma),
            functools.partial(gaussian_log_density, noise.sigma),
        ),
        far=37.0 * noise.sigma,
    )


def _trunc_laplace(eps: float, delta: float, sens: float) -> Case:
    noise = TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sens)
    a = noise.half_width
    return Case(
        f"TruncatedLaplace({eps},{delta},{sens})",
        noise,
        Reference(
            functools.partial(trunc_laplace_tail, eps, sens, a),
            functools.partial(trunc_laplace_log_density, eps, sens, a),
        ),
        far=a,
        unbounded=False,
    )


def _uniform_atom(delta: float, alpha: float, sens: float) -> Case:
    noise = UniformAtom(delta=delta, alpha=alpha, sensitivity=sens)
    big_l, h = noise.half_width, noise.density

    def log_density(x: float) -> Decimal | None:
        with localcontext(_CTX):
            return D(h).ln() if abs(x) <= big_l else None

    return Case(
        f"UniformAtom({delta},{alpha},{sens})",
        noise,
        Reference(functools.partial(uniform_atom_tail, big_l, h), log_density),
        far=big_l,
        unbounded=False,
    )


def _tabulated_case(
    name: str, spec: dict[str, Any], *, sensitivity: float, atom: float = 0.0, **case: Any
) -> Case:
    """A tabulated law and its decimal reference, both built from the one table ``spec``.

    ``spec`` holds the keyword arguments of :class:`LatticeNoise` (``pmf``, unit cells) or of
    :class:`PiecewiseConstantNoise` (``width``, ``densities``) but the privacy and sensitivity;
    ``case`` holds the further fields of :class:`Case`.
    """
    lattice = "pmf" in spec
    if lattice:
        noise: NoiseDistribution = LatticeNoise(
            **spec, sensitivity=sensitivity, privacy=PureDP(1.0)
        )
    else:
        noise = PiecewiseConstantNoise(
            **spec, atom=atom, sensitivity=sensitivity, privacy=ApproxDP(1.0, 0.5)
        )
    ref = TabulatedReference(
        spec["start"],
        spec.get("width", 1.0),
        spec["pmf"] if lattice else spec["densities"],
        spec["period"],
        spec["left_tail"],
        spec["right_tail"],
        atom=atom,
        lattice=lattice,
    )
    return Case(name, noise, ref, log_atol=1e-15, **case)


def _tabulated_symmetric(atom: float) -> Case:
    spec = staircase_table(atom)
    name = f"PiecewiseConstant(staircase, atom={atom})"
    return _tabulated_case(name, spec, sensitivity=1.0, atom=atom, far=690.0)


def _tabulated_asymmetric() -> Case:
    rng = np.random.default_rng(7)
    h, period = 0.4, 3
    dens = rng.uniform(0.1, 1.0, 9)
    left = (rng.uniform(0.1, 1.0, period), 0.3)
    right = (rng.uniform(0.1, 1.0, period), 0.05)
    dens, left, right = normalised_table(dens, left, right, width=h)
    spec = {
        "start": -1.3,
        "width": h,
        "densities": dens,
        "period": period,
        "left_tail": left,
        "right_tail": right,
    }
    return _tabulated_case(
        "PiecewiseConstant(asymmetric)",
        spec,
        sensitivity=0.4,
        far=280.0,
        symmetric=False,
        density_points="centres",
    )


def _lattice_symmetric() -> Case:
    spec = discrete_staircase_table()
    return _tabulated_case("Lattice(discrete staircase)", spec, sensitivity=3, far=2070.0)


def _lattice_asymmetric() -> Case:
    rng = np.random.default_rng(11)
    values = rng.uniform(0.1, 1.0, 7)
    left_base, lr = rng.uniform(0.1, 1.0, 2), 0.5
    right = (np.array([0.0, 0.3]), 0.0)  # finite support on the right
    total = values.sum() + left_base.sum() / (1 - lr) + right[0].sum()
    left = (left_base / total, lr)
    right = (right[0] / total, 0.0)
    spec = {"start": 2, "pmf": values / total, "period": 2, "left_tail": left, "right_tail": right}
    return _tabulated_case(
        "Lattice(asymmetric)", spec, sensitivity=1, far=1990.0, symmetric=False, unbounded=False
    )


CASES = [
    _laplace(1.0, 1.0),
    _laplace(0.1, 1.0),
    _laplace(10.0, 3.0),
    _staircase(Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost=Absolute())),
    _staircase(Staircase(epsilon=0.3, sensitivity=2.0, gamma=0.2)),
    _staircase(Staircase(epsilon=3.0, sensitivity=0.5, gamma=0.9)),
    _staircase(Staircase(epsilon=1.0, sensitivity=1.0, gamma=0.0)),
    _staircase(Staircase(epsilon=1.0, sensitivity=1.0, gamma=1.0)),
    _geometric(1.0, 1),
    _geometric(0.5, 3),
    _geometric(5.0, 2),
    _dstair(1.0, 3, 2),
    _dstair(0.5, 5, 1),
    _dstair(2.0, 4, 4),
    _dstair(1.0, 1, 1),
    _gaussian(epsilon=0.5, delta=1e-5),
    _gaussian(epsilon=2.0, delta=1e-6, sensitivity=3.0, calibration="analytic"),
    _gaussian(epsilon=0.9, delta=1e-12, sensitivity=1e-3),
    _trunc_laplace(1.0, 1e-300, 1.0),
    _trunc_laplace(5.0, 1e-200, 2.0),
    _trunc_laplace(1.0, 1e-6, 2.0),
    _trunc_laplace(0.3, 0.7, 1.0),
    _uniform_atom(0.25, 0.0, 1.0),
    _uniform_atom(0.8, 0.4, 2.0),
    _tabulated_symmetric(0.0),
    _tabulated_symmetric(0.2),
    _tabulated_asymmetric(),
    _lattice_symmetric(),
    _lattice_asymmetric(),
]
IDS = [c.name for c in CASES]


def _points(case: Case) -> np.ndarray:
    """Points from −far to far (the true tails run from 1 down to about 1e-300).

    Dense towards ±far, where the support of the bounded laws ends and ``1 − cdf`` would lose
    all relative precision.
    """
    s = np.concatenate([np.linspace(-1.0, 1.0, 81), 1.0 - 2.0 ** -np.arange(1.0, 48.0, 3.0)])
    s = np.concatenate([s, -s[81:]])
    x = case.far * s
    if case.noise.discrete:
        return np.unique(np.floor(x))
    if isinstance(case.noise, PiecewiseConstantNoise):
        return np.unique(np.round(x * 64) / 64)  # dyadic: grid positions are exact
    return np.unique(x)


def _beyond(case: Case) -> np.ndarray:
    """Points beyond the underflow of sf (where the law has mass there)."""
    if isinstance(case.noise, TruncatedLaplace | UniformAtom):
        return np.array([])
    x = case.far * np.array([1.5, 3.0, 10.0, 100.0])
    return np.floor(x) if case.noise.discrete else np.round(x * 64) / 64


def _value(pair: tuple[Decimal, bool]) -> Decimal:
    with localcontext(_CTX):
        u, complement = pair
        return 1 - u if complement else u


def _log_value(pair: tuple[Decimal, bool]) -> Decimal | None:
    with localcontext(_CTX):
        u, complement = pair
        if complement:
            return _log1m(u)
        return u.ln() if u > 0 else None


def relative_errors(got: np.ndarray, refs: list[tuple[Decimal, bool]]) -> np.ndarray:
    """``|got − ref|/ref`` where ``ref ≥ 1e-300`` (NaN elsewhere)."""
    out = np.full(len(refs), np.nan)
    with localcontext(_CTX):
        for i, (g, pair) in enumerate(zip(got, refs, strict=True)):
            r = _value(pair)
            if r >= Decimal(SMALLEST):
                out[i] = float(abs(D(g) - r) / r)
    return out


def log_errors(got: np.ndarray, logs: list[Decimal | None], atol: float) -> np.ndarray:
    """``|got − ref| / (|ref| + (atol + 1e-300)/RTOL)``: at most RTOL passes; −inf must match.

    The absolute 1e-300 admits logs that underflow themselves (``log(1 − 1e-310) → −0.0``).
    """
    out = np.zeros(len(logs))
    with localcontext(_CTX):
        for i, (g, ref) in enumerate(zip(got, logs, strict=True)):
            if ref is None:
                out[i] = 0.0 if g == -np.inf else np.inf
            elif not np.isfinite(g):
                out[i] = np.inf
            else:
                out[i] = float(abs(D(g) - ref) / (abs(ref) + D((atol + 1e-300) / RTOL)))
    return out


def _check(errors: np.ndarray, x: np.ndarray, what: str) -> None:
    bad = np.nan_to_num(errors, nan=0.0) > RTOL
    assert not np.any(bad), f"{what}: relative errors {errors[bad][:5]} at x = {x[bad][:5]}"


# -- the reference itself --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("v", "expected"),
    [
        (0.0, 1.0),
        (0.5, float(special.erfc(0.5))),
        (1.0, 0.15729920705028513),
        (2.9, float(special.erfc(2.9))),
        (3.0, float(special.erfc(3.0))),
        (5.0, 1.5374597944280349e-12),
        (10.0, 2.0884875837625447e-45),
        (26.0, float(special.erfc(26.0))),
    ],
)
def test_decimal_erfc_reference(v: float, expected: float) -> None:
    assert float(erfc(v)) == pytest.approx(expected, rel=1e-14)


def test_decimal_references_are_normalised() -> None:
    """Each reference law has total mass 1 (its tails at 0 are 1/2 minus half the atom)."""
    with localcontext(_CTX):
        assert abs(laplace_tail(0.7, 1.3, 0.0) - Decimal("0.5")) < Decimal("1e-45")
        assert abs(staircase_tail(0.3, 2.0, 0.2, 0.0) - Decimal("0.5")) < Decimal("1e-40")
        p0 = _exp(geometric_log_pmf(0.5, 3, 0.0))
        assert abs(2 * geometric_tail(0.5, 3, 0.0) - p0 - 1) < Decimal("1e-40")
        p0 = _exp(dstair_log_pmf(0.5, 5, 1, 0.0))
        assert abs(2 * dstair_tail(0.5, 5, 1, 0.0) - p0 - 1) < Decimal("1e-40")
        assert abs(trunc_laplace_tail(1.0, 1.0, 5.0, 0.0) - Decimal("0.5")) < Decimal("1e-45")
    for case in CASES:
        if isinstance(case.ref, TabulatedReference):
            total = case.ref.total + case.ref.atom
            assert abs(float(total) - 1.0) < 1e-14, case.name


# -- sf, logsf, logcdf, log density against the references ---------------------------------------
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sf_matches_reference(case: Case) -> None:
    x = _points(case)
    got = np.asarray(case.noise.sf(x))
    _check(relative_errors(got, [case.ref.sf(float(v)) for v in x]), x, "sf")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cdf_lower_tail_matches_reference(case: Case) -> None:
    x = _points(case)
    got = np.asarray(case.noise.cdf(x))
    _check(relative_errors(got, [case.ref.cdf(float(v)) for v in x]), x, "cdf")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_logsf_matches_reference_beyond_underflow(case: Case) -> None:
    x = np.concatenate([_points(case), _beyond(case)])
    got = np.asarray(case.noise.logsf(x))
    logs = [_log_value(case.ref.sf(float(v))) for v in x]
    _check(log_errors(got, logs, case.log_atol), x, "logsf")
    if case.unbounded:
        assert np.all(np.isfinite(got[x >= case.far]))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_logcdf_matches_reference_beyond_underflow(case: Case) -> None:
    x = np.concatenate([_points(case), -_beyond(case) - (1.0 if case.noise.discrete else 0.0)])
    got = np.asarray(case.noise.logcdf(x))
    logs = [_log_value(case.ref.cdf(float(v))) for v in x]
    _check(log_errors(got, logs, case.log_atol), x, "logcdf")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_log_density_matches_reference(case: Case) -> None:
    if case.density_points == "centres":
        law_start, h = case.noise.start, case.noise.width
        x = law_start + h * (np.arange(-300, 320) + 0.5)
    else:
        x = np.concatenate([_points(case), _beyond(case), -_beyond(case)])
    noise = case.noise
    got = np.asarray(noise.logpmf(x) if noise.discrete else noise.logpdf(x))
    logs = [case.ref.log_density(float(v)) for v in x]
    _check(log_errors(got, logs, 0.0), x, "log density")
    plain = np.asarray(noise.pmf(x) if noise.discrete else noise.pdf(x))
    with np.errstate(divide="ignore"):
        shown = plain > 1e-300
        np.testing.assert_allclose(got[shown], np.log(plain[shown]), rtol=1e-13)


# -- the examples that motivated tail-accurate distributions ---------------------------------------
def test_laplace_far_tail_examples() -> None:
    lap = Laplace(epsilon=1.0)
    assert lap.sf(40.0) == pytest.approx(0.5 * math.exp(-40.0), rel=1e-15)
    assert lap.sf(40.0) == pytest.approx(2.1241771276457944e-18, rel=1e-14)
    assert lap.logsf(1e4) == pytest.approx(-1e4 - math.log(2.0), rel=1e-15)
    assert lap.logcdf(-1e4) == pytest.approx(-1e4 - math.log(2.0), rel=1e-15)
    assert lap.logpdf(1e4) == pytest.approx(-1e4 - math.log(2.0), rel=1e-15)


def test_staircase_far_tail_example() -> None:
    s = Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost=Absolute())
    assert s.sf(60.0) > 0.0
    assert s.sf(60.0) == pytest.approx(s.cdf(-60.0), rel=1e-15)
    assert s.sf(60.0) == pytest.approx(4.4e-27, rel=0.01)
    assert math.isfinite(s.logsf(1e5)) and s.logsf(1e5) < -1e5


def test_gaussian_log_tails_are_finite_far_out() -> None:
    g = Gaussian(epsilon=0.5, delta=1e-5)
    z = 1e4
    with localcontext(_CTX):
        expected = float(gaussian_tail(g.sigma, z * g.sigma).ln())
    assert g.logsf(z * g.sigma) == pytest.approx(expected, rel=1e-12)
    assert g.logcdf(-z * g.sigma) == pytest.approx(expected, rel=1e-12)


# -- edges: atoms and supports -------------------------------------------------------------------
def test_atoms_sit_on_the_cdf_side_at_zero() -> None:
    ua = UniformAtom(delta=0.8, alpha=0.4)
    assert ua.sf(0.0) == pytest.approx(0.3, rel=1e-14)  # (1 − α)/2: the atom is not above 0
    assert ua.sf(-1e-300) == pytest.approx(0.7, rel=1e-14)
    assert ua.logsf(0.0) == pytest.approx(math.log(0.3), rel=1e-14)
    assert ua.logcdf(-1e-300) == pytest.approx(math.log(0.3), rel=1e-14)
    assert ua.sf(ua.half_width) == 0.0 and ua.logsf(ua.half_width) == -np.inf
    assert ua.logcdf(-ua.half_width) == -np.inf
    assert ua.logpdf(2 * ua.half_width) == -np.inf
    tab = _tabulated_symmetric(0.2).noise
    assert tab.sf(-0.0) == pytest.approx(0.4, rel=1e-14)
    assert tab.sf(-1e-300) == pytest.approx(0.6, rel=1e-14)
    assert tab.logsf(-1e-300) == pytest.approx(math.log(0.6), rel=1e-14)
    assert tab.logcdf(0.0) == pytest.approx(math.log(0.6), rel=1e-14)


def test_truncated_laplace_support_end() -> None:
    noise = TruncatedLaplace(epsilon=1.0, delta=1e-300)
    a = noise.half_width
    inside = np.nextafter(a, 0.0)
    assert 0.0 < noise.sf(inside) < 1e-300
    assert np.isfinite(noise.logsf(inside))
    assert noise.sf(a) == 0.0 and noise.logsf(a) == -np.inf
    assert noise.logcdf(-a) == -np.inf and noise.logpdf(a * 1.5) == -np.inf


def test_tabulated_far_points_do_not_warn() -> None:
    """Grid positions beyond the int64 range of period counts (a warning before)."""
    for case in (_lattice_symmetric(), _tabulated_symmetric(0.0), _tabulated_asymmetric()):
        noise = case.noise
        assert noise.cdf(-1e300) == 0.0 and noise.sf(1e300) == 0.0
        assert -np.inf < noise.logsf(1e300) < -1e299
        assert noise.logcdf(-1.7e308) < -1e300
