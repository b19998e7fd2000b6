"""The engine of the tabulated noise families: cells on a uniform grid plus geometric tails.

`GridLaw` holds the masses of the cells ``[start + jh, start + (j+1)h)`` and, on each
side, a geometric tail: one base period of ``P`` cells repeated outwards with the masses
multiplied by ``ratio`` per period. It computes what
`PiecewiseConstantNoise` and
`LatticeNoise` expose: densities, cumulative masses and
tail masses (each a sum of non-negative terms in closed form, so they keep their relative
precision), their logarithms (finite where the masses underflow), the inverse cdf, sampling.

Tail masses. Take a point in period ``k ≥ 0`` of a tail (periods counted outwards from the
grid), in cell ``c`` of that period; let ``S`` be the period mass, ``ρ`` the ratio, ``m_i`` the
cell masses of the base period (base values times ``h``), ``M_c`` the mass of the cells of the
period beyond ``c`` and ``f`` the fraction of cell ``c`` beyond the point:

* the mass beyond the point (outwards) is ``ρ^k (ρS/(1 − ρ) + M_c + f·m_c)``: the rest of
  period ``k`` plus the geometric series ``Σ_{j>k} ρ^j S``; its logarithm
  ``k log ρ + log(ρS/(1 − ρ) + M_c + f·m_c)`` never underflows;
* the mass on the grid side is ``S(1 − ρ^k)/(1 − ρ) + ρ^k((1 − f)·m_c + Σ_{i nearer the grid} m_i)``
  plus the grid and the other tail.

Both are sums of non-negative terms, so neither loses relative precision to cancellation.
"""

from __future__ import annotations

import math

import numpy as np

from optmech._floats import FloatArray, IntArray

__all__ = ["GridLaw"]


def _suffix_sums(masses: FloatArray) -> FloatArray:
    """``out[c] = Σ_{i ≥ c} masses[i]`` (length ``n + 1``, ``out[n] = 0``), from the last entry."""
    return np.concatenate([np.cumsum(masses[::-1])[::-1], [0.0]])


def _log_power(ratio: float, k: FloatArray) -> FloatArray:
    """``log(ratio^k)`` for ``k ≥ 0`` (possibly +inf): ``0`` at ``k = 0`` even for ``ratio = 0``."""
    if ratio == 0.0:
        return np.where(k == 0, 0.0, -np.inf)
    return k * math.log(ratio)


def _tail_period(beyond: FloatArray, ratio: float, period_mass: float) -> FloatArray:
    """The tail period holding a point with tail mass ``beyond`` further out.

    Parameters
    ----------
    beyond : FloatArray
        Mass of the tail further out than the point, ``≥ 0``.
    ratio : float
        The tail's ratio ``ρ`` per period, in ``[0, 1)``.
    period_mass : float
        Mass ``S`` of the tail's base period.

    Returns
    -------
    FloatArray
        ``max(floor(log_ρ(beyond·(1 − ρ)/S)), 0)``: the period ``k`` (counted outwards from
        the grid) with ``ρ^(k+1)·S/(1 − ρ) < beyond ≤ ρ^k·S/(1 − ρ)`` up to rounding and the
        clip at 0; ``+inf`` where ``beyond = 0``, and ``0`` throughout for ``ρ = 0`` (a tail of
        one period).
    """
    if ratio == 0.0:
        return np.zeros(beyond.shape)
    with np.errstate(divide="ignore"):
        k = np.floor(np.log(beyond * (1.0 - ratio) / period_mass) / math.log(ratio))
    return np.where(np.isfinite(k), np.maximum(k, 0.0), np.inf)


def _log(values: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore"):
        return np.log(values)


class GridLaw:
    """Masses of cells ``[start + jh, start + (j+1)h)`` plus two geometric tails (no atom).

    The private engine of both families: cumulative masses, the inverse cdf, sampling, and
    the exact cost. ``values`` are densities (mass / h).
    """

    def __init__(
        self,
        start: float,
        width: float,
        values: FloatArray,
        period: int,
        left: tuple[FloatArray, float],
        right: tuple[FloatArray, float],
    ) -> None:
        self.start = start
        self.h = width
        self.values = values
        self.n = values.size
        self.period = period
        self.left_base, self.left_ratio = left
        self.right_base, self.right_ratio = right
        self.end = start + self.n * width
        h = width
        self.cum_grid = np.concatenate([[0.0], np.cumsum(values * h)])
        self.cum_left = np.concatenate([[0.0], np.cumsum(self.left_base * h)])
        self.cum_right = np.concatenate([[0.0], np.cumsum(self.right_base * h)])
        self.left_period_mass = float(self.cum_left[-1])
        self.right_period_mass = float(self.cum_right[-1])
        self.left_mass = self.left_period_mass / (1.0 - self.left_ratio)
        self.right_mass = self.right_period_mass / (1.0 - self.right_ratio)
        self.grid_mass = float(self.cum_grid[-1])
        self.total = self.left_mass + self.grid_mass + self.right_mass
        self.rev_grid = _suffix_sums(values * h)
        self.rev_left = _suffix_sums(self.left_base * h)
        self.rev_right = _suffix_sums(self.right_base * h)

    # -- location of points ------------------------------------------------------------------
    def _locate(self, x: FloatArray) -> tuple[IntArray, FloatArray, IntArray, FloatArray]:
        """Region (−1 left tail, 0 grid, 1 right tail), period k ≥ 0, cell r, fraction t in cell.

        ``k`` is a float: +inf for ±inf (and for points whose grid position overflows).
        """
        with np.errstate(over="ignore"):
            pos = (x - self.start) / self.h
        region = np.where(pos < 0, -1, np.where(pos >= self.n, 1, 0))
        safe = np.where(np.isfinite(pos), pos, 0.0)
        # Left: periods counted outwards from the grid; cell r counted left to right.
        q_left = np.floor(safe / self.period)
        rel_left = safe - q_left * self.period
        # Right: positions past the end of the grid.
        past = safe - self.n
        q_right = np.floor(past / self.period)
        rel_right = past - q_right * self.period
        rel = np.where(region < 0, rel_left, np.where(region > 0, rel_right, safe))
        cell = np.clip(np.floor(rel), 0, np.where(region == 0, self.n - 1, self.period - 1))
        k = np.where(region < 0, -q_left - 1.0, np.where(region > 0, q_right, 0.0))
        k = np.where(np.isfinite(pos), k, np.inf)
        t = np.clip(rel - cell, 0.0, 1.0)
        return region.astype(np.int64), k, cell.astype(np.int64), t

    def density(self, x: FloatArray) -> FloatArray:
        region, k, cell, _ = self._locate(x)
        out = np.zeros(x.shape)
        g = region == 0
        out[g] = self.values[cell[g]]
        for side, base, ratio in (
            (-1, self.left_base, self.left_ratio),
            (1, self.right_base, self.right_ratio),
        ):
            sel = (region == side) & np.isfinite(x)
            with np.errstate(under="ignore"):
                out[sel] = base[cell[sel]] * np.power(ratio, k[sel])
        return out

    def log_density(self, x: FloatArray) -> FloatArray:
        """``log`` of `density`: ``log(base_c) + k log ρ`` in the tails (no
        underflow)."""
        region, k, cell, _ = self._locate(x)
        out = _log(self.values[cell.clip(0, self.n - 1)])
        for side, base, ratio in (
            (-1, self.left_base, self.left_ratio),
            (1, self.right_base, self.right_ratio),
        ):
            tail = _log(base[cell.clip(0, self.period - 1)]) + _log_power(ratio, k)
            out = np.where(region == side, tail, out)
        return np.where(np.isfinite(x), out, -np.inf)

    def cumulative(self, x: FloatArray) -> FloatArray:
        """Mass of the law on ``(−∞, x]`` (no atom), exact geometric sums."""
        region, kf, cell, t = self._locate(x)
        with np.errstate(under="ignore"):
            rl, rr = self.left_ratio, self.right_ratio
            pl = np.power(rl, kf)
            left = rl * pl * self.left_period_mass / (1.0 - rl) + pl * (
                self.cum_left[cell.clip(0, self.period)]
                + t * self.left_base[cell.clip(0, self.period - 1)] * self.h
            )
            grid = (
                self.left_mass
                + self.cum_grid[cell.clip(0, self.n)]
                + t * self.values[cell.clip(0, self.n - 1)] * self.h
            )
            pr = np.power(rr, kf)
            right = (
                self.left_mass
                + self.grid_mass
                + (1.0 - pr) * self.right_period_mass / (1.0 - rr)
                + pr
                * (
                    self.cum_right[cell.clip(0, self.period)]
                    + t * self.right_base[cell.clip(0, self.period - 1)] * self.h
                )
            )
        out = np.where(region < 0, left, np.where(region > 0, right, grid))
        out = np.where(x == -np.inf, 0.0, np.where(x == np.inf, self.total, out))
        return np.clip(out, 0.0, self.total)

    def _far_side(self, x: FloatArray) -> tuple[FloatArray, FloatArray, IntArray]:
        """``(log_left, log_right, region)``: the logs of the masses beyond ``x`` in the tails.

        ``log_left`` is the log of the mass below ``x`` where ``x`` is in the left tail,
        ``log_right`` that of the mass above ``x`` where it is in the right tail, both
        ``k log ρ + log(…)`` (see the module docstring); other entries are placeholders.
        """
        region, k, cell, t = self._locate(x)
        h, p = self.h, self.period
        c = cell.clip(0, p - 1)
        rl, rr = self.left_ratio, self.right_ratio
        beyond_left = rl * self.left_period_mass / (1.0 - rl)
        beyond_right = rr * self.right_period_mass / (1.0 - rr)
        inner_left = beyond_left + self.cum_left[c] + t * self.left_base[c] * h
        inner_right = beyond_right + self.rev_right[c + 1] + (1.0 - t) * self.right_base[c] * h
        log_left = _log_power(rl, k) + _log(inner_left)
        log_right = _log_power(rr, k) + _log(inner_right)
        return log_left, log_right, region

    def upper(self, x: FloatArray) -> FloatArray:
        """Mass of the law on ``(x, ∞)`` (no atom): non-negative terms only, exact tails."""
        region, kf, cell, t = self._locate(x)
        h, p = self.h, self.period
        c = cell.clip(0, p - 1)
        rl, rr = self.left_ratio, self.right_ratio
        with np.errstate(under="ignore"):
            pl, pr = np.power(rl, kf), np.power(rr, kf)
            rest_left = self.rev_left[c + 1] + (1.0 - t) * self.left_base[c] * h
            left = (
                (1.0 - pl) * self.left_period_mass / (1.0 - rl)
                + pl * rest_left
                + self.grid_mass
                + self.right_mass
            )
            g = cell.clip(0, self.n - 1)
            grid = self.rev_grid[g + 1] + (1.0 - t) * self.values[g] * h + self.right_mass
            rest_right = self.rev_right[c + 1] + (1.0 - t) * self.right_base[c] * h
            right = pr * (rr * self.right_period_mass / (1.0 - rr) + rest_right)
        out = np.where(region < 0, left, np.where(region > 0, right, grid))
        out = np.where(x == -np.inf, self.total, np.where(x == np.inf, 0.0, out))
        return np.clip(out, 0.0, self.total)

    def log_lower(self, x: FloatArray) -> FloatArray:
        """``log`` of `cumulative`, finite far into the left tail."""
        log_left, _, region = self._far_side(x)
        out = np.where(region < 0, log_left, _log(self.cumulative(x)))
        return np.where(x == -np.inf, -np.inf, np.minimum(out, math.log(self.total)))

    def log_upper(self, x: FloatArray) -> FloatArray:
        """``log`` of `upper`, finite far into the right tail."""
        _, log_right, region = self._far_side(x)
        out = np.where(region > 0, log_right, _log(self.upper(x)))
        return np.where(x == np.inf, -np.inf, np.minimum(out, math.log(self.total)))

    def _invert_block(self, v: FloatArray, cum: FloatArray, base: FloatArray) -> FloatArray:
        """Position (in cells) of mass ``v`` inside a block with cumulative masses ``cum``."""
        r = np.clip(np.searchsorted(cum, v, side="left") - 1, 0, base.size - 1)
        cell_mass = base[r] * self.h
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(cell_mass > 0, (v - cum[r]) / cell_mass, 0.0)
        return r + np.clip(t, 0.0, 1.0)

    def quantile(self, q: FloatArray) -> FloatArray:
        """Smallest ``x`` with ``cumulative(x) ≥ q`` for ``0 ≤ q ≤ total`` (±inf at the ends)."""
        out = np.empty(q.shape)
        in_left = q < self.left_mass
        in_right = q > self.left_mass + self.grid_mass
        in_grid = ~in_left & ~in_right
        # Grid.
        v = q[in_grid] - self.left_mass
        out[in_grid] = self.start + self.h * self._grid_position(v)
        # Left tail: mass beyond (further left than) period k is ρ^(k+1)·S/(1−ρ).
        if np.any(in_left):
            out[in_left] = self._left_quantile(q[in_left])
        if np.any(in_right):
            out[in_right] = self._right_quantile(q[in_right] - self.left_mass - self.grid_mass)
        return out

    def _grid_position(self, v: FloatArray) -> FloatArray:
        # Skip zero-mass cells: the smallest x reaching v lies in the first cell whose end does.
        r = np.clip(np.searchsorted(self.cum_grid[1:], v, side="left"), 0, self.n - 1)
        cell_mass = self.values[r] * self.h
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(cell_mass > 0, (v - self.cum_grid[r]) / cell_mass, 0.0)
        return r + np.clip(t, 0.0, 1.0)

    def _left_quantile(self, q: FloatArray) -> FloatArray:
        rho, s = self.left_ratio, self.left_period_mass
        k = _tail_period(q, rho, s)
        with np.errstate(under="ignore", invalid="ignore", divide="ignore"):
            beyond = np.power(rho, k + 1.0) * s / (1.0 - rho)
            v = (q - beyond) / np.power(rho, k)
        finite = np.isfinite(k) & ((q > 0) | (rho == 0.0))
        v = np.where(finite, np.clip(v, 0.0, s), 0.0)
        sub = np.zeros(q.shape)
        sub[finite] = self._invert_block(v[finite], self.cum_left, self.left_base)
        x = self.start - (k + 1.0) * self.period * self.h + sub * self.h
        return np.where(finite, x, -np.inf)

    def _right_quantile(self, u: FloatArray) -> FloatArray:
        rho, s = self.right_ratio, self.right_period_mass
        # Mass before period k is (1 − ρ^k)·S/(1−ρ); the remaining mass is ρ^k·S/(1−ρ).
        rest = np.maximum(self.right_mass - u, 0.0)
        k = _tail_period(rest, rho, s)
        with np.errstate(under="ignore", invalid="ignore", divide="ignore"):
            before = (1.0 - np.power(rho, k)) * s / (1.0 - rho)
            v = (u - before) / np.power(rho, k)
        finite = np.isfinite(k) & ((rest > 0) | (rho == 0.0))
        v = np.where(finite, np.clip(v, 0.0, s), s)
        sub = np.full(u.shape, float(self.period))
        sub[finite] = self._invert_block(v[finite], self.cum_right, self.right_base)
        x = self.end + k * self.period * self.h + sub * self.h
        return np.where(finite, x, np.inf)

    # -- sampling ------------------------------------------------------------------------------
    def sample_cells(self, count: int, rng: np.random.Generator) -> IntArray:
        """Cell positions ``floor((X − start)/h)`` of ``count`` draws, by composition.

        A cell is drawn by its mass (a tail cell by the mass of all its periods), then for a
        tail cell the number of further periods, geometric with ``P(k) = (1 − ρ) ρ^k``.
        """
        lw = self.left_base * self.h / (1.0 - self.left_ratio)
        rw = self.right_base * self.h / (1.0 - self.right_ratio)
        weights = np.concatenate([lw, self.values * self.h, rw])
        cum = np.cumsum(weights)
        u = rng.random(count) * cum[-1]
        idx = np.clip(np.searchsorted(cum, u, side="right"), 0, weights.size - 1)
        p = self.period
        left = idx < p
        right = idx >= p + self.n
        kl = rng.geometric(1.0 - self.left_ratio, size=int(left.sum())) - 1
        kr = rng.geometric(1.0 - self.right_ratio, size=int(right.sum())) - 1
        pos = idx.astype(np.int64) - p  # grid cells: 0..n-1; first left period: -p..-1
        pos[left] -= kl * p
        pos[right] += kr * p
        return pos

    def sample(self, count: int, rng: np.random.Generator) -> FloatArray:
        """``count`` draws: a cell (`sample_cells`), then a uniform position inside
        it."""
        pos = self.sample_cells(count, rng)
        return self.start + (pos + rng.random(count)) * self.h

    # -- grid description ----------------------------------------------------------------------
    def masses(self) -> tuple[FloatArray, tuple[FloatArray, float], tuple[FloatArray, float]]:
        h = self.h
        return (
            self.values * h,
            (self.left_base * h, self.left_ratio),
            (self.right_base * h, self.right_ratio),
        )
