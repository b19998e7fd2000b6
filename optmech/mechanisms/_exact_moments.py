"""Exact moments and entropies of the noise families: the sums behind ``moment``/``entropy``.

**Geometric series of powers.** ``Li₋ₘ(ρ) = Σ_{k≥0} ρ^k k^m`` (``0⁰ = 1``) is ``1/(1 − ρ)`` for
``m = 0`` and ``ρ A_m(ρ)/(1 − ρ)^(m+1)`` for ``m ≥ 1``, with the Eulerian polynomial ``A_m``
(positive coefficients: no cancellation). The Lerch sums ``T_s(γ) = Σ_k b^k (k + γ)^s`` of the
staircases are those of `optmech.mechanisms.staircase_nd`.

**Cells.** ``∫_a^b y^j dy`` is ``(b − a) Σ_{i≤j} a^i b^(j−i)/(j + 1)`` when ``a`` and ``b`` have
the same sign (positive terms, and the exact width ``b − a`` even where the edges round to the
same double) and ``(b^(j+1) − a^(j+1))/(j + 1)`` for a cell around 0.

**Geometric tails.** A tail repeats a base period shifted by ``k·L`` with weight ``ρ^k``; by the
binomial theorem ``Σ_k ρ^k ∫ (y + kL)^n dy = Σ_j C(n, j) L^(n−j) Li₋₍ₙ₋ⱼ₎(ρ) ∫ y^j dy``: for a
tail on the side of its sign (``y`` and ``L`` of one sign) every term has the sign of the result.
Its entropy term is ``−Σ_c m_c (log f_c/(1 − ρ) + log ρ · ρ/(1 − ρ)²)`` (``m_c`` the base
cell masses, ``f_c`` their densities), from ``Σ_k ρ^k = 1/(1 − ρ)`` and ``Σ_k kρ^k = ρ/(1 − ρ)²``.
Central moments shift the edges by the mean before summing.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from optmech._floats import FloatArray

__all__ = [
    "Cells",
    "lerch",
    "numeric_expectation",
    "polylog_negative",
    "table_entropy",
    "table_moment",
    "table_support",
]

#: Relative accuracy required of the default quadrature of a moment or an entropy.
QUAD_RTOL = 1e-10
#: Largest number of integers the default moment/entropy of a pmf sums.
MAX_TERMS = 10_000_000


def polylog_negative(m: int, ratio: float) -> float:
    """``Σ_{k≥0} ratio^k k^m`` (``0⁰ = 1``) for ``0 ≤ ratio < 1``: Eulerian closed form."""
    if ratio == 0.0:
        return 1.0 if m == 0 else 0.0
    omr = 1.0 - ratio
    if m == 0:
        return 1.0 / omr
    from optmech.mechanisms.staircase_nd import _eulerian_row  # the ℝ^d family, loaded on use

    poly = 0.0
    for coefficient in reversed(_eulerian_row(m)):
        poly = poly * ratio + float(coefficient)
    return math.exp(math.log(ratio) + math.log(poly) - (m + 1) * math.log(omr))


def lerch(s: int, eps: float, gamma: Any) -> FloatArray:
    """``T_s(γ) = Σ_{k≥0} e^(−εk) (k + γ)^s`` for integer ``s ≥ 0``, vectorised over ``γ``."""
    from optmech.mechanisms.staircase_nd import _log_series  # the ℝ^d family, loaded on use

    return np.exp(_log_series(s, eps, gamma))


def _cell_powers(lo: FloatArray, hi: FloatArray, width: FloatArray | None, n: int) -> FloatArray:
    """Rows ``j = 0 … n``: ``∫_lo^hi y^j dy`` per cell, or ``lo^j`` for points (``width=None``)."""
    rows = np.empty((n + 1, lo.size))
    if width is None:
        rows[0] = 1.0
        for j in range(1, n + 1):
            rows[j] = rows[j - 1] * lo
        return rows
    same = lo * hi >= 0.0
    total = np.ones(lo.size)  # Σ_{i≤j} lo^i hi^(j−i)
    lo_power = np.ones(lo.size)
    for j in range(n + 1):
        if j:
            lo_power = lo_power * lo
            total = hi * total + lo_power
        direct = (hi ** (j + 1) - lo ** (j + 1)) / (j + 1)
        rows[j] = np.where(same, width * total / (j + 1), direct)
    return rows


@dataclass(frozen=True)
class Cells:
    """Cells ``[lo, hi]`` of exact widths with densities (or points with probabilities).

    Attributes
    ----------
    lo, hi : FloatArray
        Absolute edges (``hi`` unused for points).
    width : FloatArray or None
        Exact widths; ``None`` for points of a lattice (then ``weight`` is a probability).
    weight : FloatArray
        Density on each cell (probability of each point).
    """

    lo: FloatArray
    hi: FloatArray
    width: FloatArray | None
    weight: FloatArray

    @property
    def masses(self) -> FloatArray:
        return self.weight if self.width is None else self.weight * self.width

    def powers(self, n: int, center: float) -> FloatArray:
        return _cell_powers(self.lo - center, self.hi - center, self.width, n)


def table_moment(
    n: int,
    center: float,
    grid: list[Cells],
    tails: list[tuple[Cells, float, float]],
    atom: float = 0.0,
) -> float:
    """``E (X − center)ⁿ`` of cells plus geometric tails ``(base cells, step L, ratio ρ)``."""
    terms = [float(np.dot(cells.weight, cells.powers(n, center)[n])) for cells in grid]
    for base, step, ratio in tails:
        rows = base.powers(n, center)
        for j in range(n + 1):
            factor = math.comb(n, j) * step ** (n - j) * polylog_negative(n - j, ratio)
            if factor != 0.0:
                terms.append(factor * float(np.dot(base.weight, rows[j])))
    if atom:
        terms.append(atom * (-center) ** n)
    return math.fsum(terms)


def _xlogx_free(weight: FloatArray) -> FloatArray:
    """``log`` of the weights, 0 where a weight is 0 (whose term ``0 · log 0`` is 0)."""
    with np.errstate(divide="ignore"):
        return np.where(weight > 0, np.log(np.where(weight > 0, weight, 1.0)), 0.0)


def table_entropy(grid: list[Cells], tails: list[tuple[Cells, float]]) -> float:
    """``−Σ m log f`` over cells and geometric tails ``(base cells, ratio)`` (module docstring)."""
    terms = [-float(np.dot(c.masses, _xlogx_free(c.weight))) for c in grid]
    for base, ratio in tails:
        mass = base.masses
        terms.append(-float(np.dot(mass, _xlogx_free(base.weight))) / (1.0 - ratio))
        if ratio > 0.0:
            terms.append(-float(mass.sum()) * math.log(ratio) * ratio / (1.0 - ratio) ** 2)
    return math.fsum(terms)


def table_support(
    grid: Cells, left: tuple[Cells, float], right: tuple[Cells, float], atom: float = 0.0
) -> tuple[float, float]:
    """Ends of the smallest closed interval holding the mass of cells, tails and an atom at 0."""
    ends: list[tuple[float, float]] = []
    for cells, ratio in (left, (grid, 0.0), right):
        positive = np.flatnonzero(cells.weight > 0)
        if positive.size == 0:
            continue
        if ratio > 0.0:
            ends.append((-math.inf, -math.inf) if cells is left[0] else (math.inf, math.inf))
        top = cells.lo if cells.width is None else cells.hi
        ends.append((float(cells.lo[positive[0]]), float(top[positive[-1]])))
    if atom > 0.0:
        ends.append((0.0, 0.0))
    return min(a for a, _ in ends), max(b for _, b in ends)


# -- defaults for a noise without exact forms (statistics.NoiseStatistics) --------------------
_LEVELS = (1e-1, 1e-2, 1e-4, 1e-8, 1e-16)


def numeric_expectation(noise: Any, fn: Any, what: str) -> float:
    """``E fn(X)`` (``fn=None``: the entropy) by quadrature of the density or a sum of the pmf.

    See `optmech.mechanisms.statistics` for the pieces, the
    accepted error and the truncation of a pmf.
    """
    if noise.discrete:
        low = float(noise.ppf(1e-300))
        high = float(noise.isf(1e-300))
        if not (math.isfinite(low) and math.isfinite(high)) or high - low > MAX_TERMS:
            raise ValueError(
                f"the {what} of {noise!r} needs more than {MAX_TERMS} terms; give the family "
                "an exact form."
            )
        k = np.arange(low, high + 1.0)
        p = np.asarray(noise.pmf(k), dtype=np.float64)
        values = -_xlogx_free(p) if fn is None else fn(k)
        return math.fsum((p * values).tolist())
    cuts = [float(noise.ppf(q)) for q in _LEVELS[::-1]]
    cuts += [float(noise.ppf(0.5))] + [float(noise.isf(q)) for q in _LEVELS]
    edges = sorted({c for c in cuts if math.isfinite(c)})
    pieces = [
        (-math.inf, edges[0]),
        *itertools.pairwise(edges),
        (edges[-1], math.inf),
    ]

    def integrand(x: float) -> float:
        f = float(noise.pdf(x))
        if f <= 0.0:
            return 0.0
        return -f * math.log(f) if fn is None else f * float(fn(x))

    total, error = [], 0.0
    for lo, hi in pieces:
        value, err = _quiet_quad(integrand, lo, hi)
        total.append(value)
        error += err
    result = math.fsum(total)
    scale = math.fsum(abs(v) for v in total)  # the odd moments of symmetric noise vanish
    if not (math.isfinite(result) and error <= QUAD_RTOL * max(scale, 1e-300)):
        raise ValueError(
            f"quadrature of the {what} of {noise!r} did not reach relative accuracy "
            f"{QUAD_RTOL:g} (value {result!r}, error estimate {error:.3g})."
        )
    return result


def _quiet_quad(fn: Any, lo: float, hi: float) -> tuple[float, float]:
    import warnings

    from scipy import integrate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        value, error = integrate.quad(fn, lo, hi, epsabs=0.0, epsrel=1e-12, limit=200)
    return float(value), float(error)


@dataclass(frozen=True)
class Table:
    """A tabulated law: grid cells, two geometric tails ``(base cells, step L, ratio ρ)`` (the
    period ``k`` beyond the grid is the base shifted by ``k·L``) and an atom at 0."""

    grid: Cells
    left: tuple[Cells, float, float]
    right: tuple[Cells, float, float]
    atom: float = 0.0


class TableStatistics:
    """Exact ``moment``/``var``/``entropy``/``support`` hooks of a tabulated noise.

    A mix-in listed before ``ContinuousNoise``/``DiscreteNoise``; the family describes itself
    through ``_table()``.
    """

    def _table(self) -> Table:
        raise NotImplementedError

    def _moment_about(self, n: int, center: float) -> float:
        t = self._table()
        return table_moment(n, center, [t.grid], [t.left, t.right], t.atom)

    def _moment(self, n: int) -> float:
        return self._moment_about(n, 0.0)

    def _mean(self) -> float:
        return self._moment_about(1, 0.0)

    def _central_moment(self, n: int) -> float:
        return self._moment_about(n, self._mean())

    def _entropy(self) -> float:
        t = self._table()
        if t.atom > 0.0:
            raise ValueError(
                f"{self!r} has an atom of mass {t.atom!r} at 0: a law with an atom beside its "
                "density has no differential entropy."
            )
        return table_entropy([t.grid], [(t.left[0], t.left[2]), (t.right[0], t.right[2])])

    def _support(self) -> tuple[float, float]:
        t = self._table()
        return table_support(t.grid, (t.left[0], t.left[2]), (t.right[0], t.right[2]), t.atom)
