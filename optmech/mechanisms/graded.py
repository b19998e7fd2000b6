"""A density constant on the cells of a Δ-periodic graded partition, with geometric tails.

What the LP designer returns for ε-DP at large ε (`optmech.lp.additive`). Every period
``[kΔ, (k+1)Δ)`` is cut at the *same* relative edges ``0 = t_0 < t_1 < … < t_m = 1``; cell
``(k, i)`` is ``[(k + t_i)Δ, (k + t_{i+1})Δ)`` and carries a constant density. The edges may
be graded — a geometric ladder near each period's start and end, where the staircase of Geng &
Viswanath (2016) puts its step at ``γ*Δ ≈ e^(−ε/2)Δ`` — so cells can be far narrower than
``Δ/m``. Beyond the tabulated periods each side repeats its outermost period multiplied by a
ratio per period (``e^−ε`` continues an ε-DP design exactly).

**Privacy on a periodic partition.** Number the cells left to right, ``j = km + i``. A point of
cell ``j`` shifted by ``d`` with ``|d| ≤ Δ`` lands in a cell ``l`` with ``|l − j| ≤ m``: the cell
index is non-decreasing in the position, and ``x ± Δ`` lies in cell ``j ± m`` exactly, because
the partition repeats with period Δ. Conversely every cell ``l`` with ``|l − j| ≤ m`` is reached
from a set of ``x`` of positive measure (cell ``j ± m`` is cell ``j`` translated by ``±Δ``, and
the cells in between lie within Δ of every point of cell ``j``). So the density is ε-DP for
sensitivity Δ iff ``f_j ≤ e^ε f_l`` for all ``|j − l| ≤ m`` — the same window as on a uniform
grid with ``m`` cells per Δ, whatever the widths. Only *densities* enter (masses ``f_j w_j Δ``
do not: on a graded grid their ratios are not the density ratios), and the cell reach is
exactly ``m``, with no rounding of ``Δ/h``.
`GradedNoise.density_description` hands those numbers to
`optmech.certify.noise.noise_epsilon`.

**Exactness.** A cell is stored by its period and its offsets from the nearer period boundary
(prefix sums of the widths from the left end, suffix sums from the right end), so cells of
relative width far below the float spacing near ``kΔ`` keep their exact widths.
``cdf``, ``sf`` and their logarithms sum the geometric tails in closed form (``sf`` and
``logsf`` from the right, ``cdf`` and ``logcdf`` from the left, so each keeps full relative
precision in its own tail); ``expected_cost`` integrates the cost exactly over each cell
(`optmech.costs.Cost.integral`, or 4-point Gauss–Legendre on cells
narrower than 1% of their distance to 0, exact for polynomials of degree ≤ 7 and to
``(width/|x|)^8`` relative otherwise) and over each tail
(`periodic_integral`).

Examples
--------
The staircase with γ = 1/4 (Geng & Viswanath 2016, Thm. 3) on the partition
``{0, 1/4, 3/4, 1}`` (symmetric, so that the steps at ``±Δ/4`` are both edges):

>>> import math
>>> import numpy as np
>>> from optmech.privacy import PureDP
>>> b = math.exp(-1.0)
>>> a = (1 - b) / (2 * (0.25 + 0.75 * b))          # height of the top step, Δ = 1
>>> dens = a * np.array([b, b, 1.0, 1.0, b, b])    # periods −1 and 0
>>> noise = GradedNoise(sensitivity=1.0, widths=[0.25, 0.5, 0.25], first_period=-1,
...                     densities=dens, left_tail=(dens[:3] * b, b),
...                     right_tail=(dens[3:] * b, b), privacy=PureDP(1.0))
>>> round(noise.cdf(0.0), 12), round(noise.sf(0.0), 12)
(0.5, 0.5)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_int, check_real, check_real_array, check_tail, describe
from optmech.costs import Cost
from optmech.mechanisms._exact_moments import Cells, Table, TableStatistics
from optmech.mechanisms.base import ContinuousNoise
from optmech.mechanisms.description import GridDescription, PrivacySource, SourceKind
from optmech.privacy import ApproxDP, PureDP

__all__ = ["GradedNoise", "anchored_integrals"]


#: Largest accepted ``|total mass − 1|`` of a constructed noise (as for the uniform families).
MASS_TOLERANCE = 1e-9
#: A cell narrower than this fraction of its distance to 0 is integrated by Gauss–Legendre
#: around its anchor (an antiderivative difference would cancel catastrophically there).
NARROW = 1e-2
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(4)


def anchored_integrals(
    cost: Cost,
    anchor: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    *,
    period: float = 0.0,
    ratio: float = 0.0,
) -> FloatArray:
    """``∫ c`` over ``[anchor + lo, anchor + hi]``, or its geometric periodic sum, per cell.

    With ``ratio > 0`` each value is ``Σ_{k≥0} ratio^k ∫ c`` over the cell shifted by
    ``k·period`` (the cost of a geometric tail). Cells of relative width at least
    `NARROW` use `integral` / ``periodic_integral`` on the
    absolute edges; narrower ones a 4-point Gauss–Legendre rule at ``anchor + node``, so that a
    cell narrower than the float spacing near ``anchor`` still gets its exact width ``hi − lo``.

    Parameters
    ----------
    cost : Cost
        The cost.
    anchor, lo, hi : ndarray
        Exactly representable anchors (multiples of Δ) and the cells' offsets from them.
    period, ratio : float
        Tail period (signed) and ratio; ``ratio = 0`` gives plain integrals.
    """
    a, b = anchor + lo, anchor + hi
    width = hi - lo
    narrow = (width < NARROW * np.maximum(np.abs(a), np.abs(b))) & (a * b > 0)
    out = np.empty(anchor.shape)
    wide = ~narrow
    if np.any(wide):
        if ratio > 0.0:
            val = cost.periodic_integral(a[wide], b[wide], period=period, ratio=ratio)
        else:
            val = cost.integral(a[wide], b[wide])
        out[wide] = np.asarray(val, dtype=np.float64)
    if np.any(narrow):
        mid = (lo[narrow] + hi[narrow]) / 2.0
        half = width[narrow] / 2.0
        nodes = anchor[narrow, None] + (mid[:, None] + half[:, None] * _GL_NODES[None, :])
        if ratio > 0.0:
            vals = np.asarray(cost.periodic_sum(nodes, period=period, ratio=ratio))
        else:
            vals = np.asarray(cost(nodes), dtype=np.float64)
        out[narrow] = half * (vals @ _GL_WEIGHTS)
    return out


def _powers(ratio: float, k: IntArray) -> FloatArray:
    """``ratio^k`` for integer ``k ≥ 0`` (``0^0 = 1``), without underflow warnings."""
    with np.errstate(under="ignore"):
        return np.power(ratio, k.astype(np.float64))


def _log_powers(ratio: float, k: IntArray) -> FloatArray:
    """``k·log(ratio)`` (``−inf`` for ``ratio = 0``, ``k > 0``; 0 for ``k = 0``)."""
    if ratio == 0.0:
        return np.where(k > 0, -np.inf, 0.0)
    return k.astype(np.float64) * math.log(ratio)


class GradedNoise(TableStatistics, ContinuousNoise):
    """A density constant on the cells of a Δ-periodic partition, with geometric tails.

    Parameters
    ----------
    sensitivity : float
        Δ, the period of the partition and the sensitivity the noise is calibrated for, in
        (0, inf).
    widths : array_like
        Relative widths of the ``m`` cells of one period, positive; they are divided by their
        sum, so the period is exactly Δ.
    first_period : int
        ``k0``: the table starts at ``k0·Δ``.
    densities : array_like
        Density on each cell of the ``K`` tabulated periods ``k0 … k0 + K − 1``, left to right,
        non-negative, length ``K·m``.
    left_tail, right_tail : (array_like, float) or None
        ``(base densities, ratio)``: the period just beyond the table has these ``m``
        densities, each further period ``ratio`` (in [0, 1)) times the previous; ``None``: zero.
    privacy : PureDP or ApproxDP
        The guarantee claimed (certify it from `density_description`).

    Notes
    -----
    The total mass must be 1 to within `MASS_TOLERANCE`.
    """

    def __init__(
        self,
        *,
        sensitivity: float,
        widths: npt.ArrayLike,
        first_period: int,
        densities: npt.ArrayLike,
        left_tail: Any = None,
        right_tail: Any = None,
        privacy: PureDP | ApproxDP,
    ) -> None:
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        w = check_real_array("widths", widths, ndim=1, nonnegative=True)
        if np.any(w <= 0):
            raise ValueError("`widths` must be positive; got a zero width.")
        values = check_real_array("densities", densities, ndim=1, nonnegative=True)
        m = w.size
        if values.size % m:
            raise ValueError(
                f"`densities` must cover whole periods ({m} cells each); got {values.size} cells."
            )
        if not isinstance(privacy, PureDP | ApproxDP):
            raise TypeError(
                f"`privacy` must be optmech.PureDP or optmech.ApproxDP; got {describe(privacy)}."
            )
        self._privacy = privacy
        self._k0 = check_int("first_period", first_period)
        self._w = w / w.sum()
        self._m, self._periods = m, values.size // m
        self._dens = values
        self._left = check_tail("left_tail", left_tail, m)
        self._right = check_tail("right_tail", right_tail, m)
        self._setup()
        if not abs(self._total - 1.0) <= MASS_TOLERANCE:
            raise ValueError(
                f"the masses must sum to 1 (within {MASS_TOLERANCE:g}); got {self._total!r}. "
                "Normalise `densities` and the tails together."
            )

    def _setup(self) -> None:
        w, delta = self._w, self.sensitivity
        self._t = np.concatenate([[0.0], np.cumsum(w)])  # prefix edges, from the left
        self._t[-1] = 1.0
        self._s = np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]])  # suffix sums, from the right
        self._from_right = self._t[:-1] >= 0.5  # anchored at the period's end
        period_w = np.tile(w, self._periods)
        self._g = self._dens * period_w * delta  # grid cell masses
        self._lb = self._left[0] * w * delta
        self._rb = self._right[0] * w * delta
        self._cum_g = np.concatenate([[0.0], np.cumsum(self._g)])
        self._suf_g = np.concatenate([np.cumsum(self._g[::-1])[::-1], [0.0]])
        self._cum_l = np.concatenate([[0.0], np.cumsum(self._lb)])
        self._suf_l = np.concatenate([np.cumsum(self._lb[::-1])[::-1], [0.0]])
        self._cum_r = np.concatenate([[0.0], np.cumsum(self._rb)])
        self._suf_r = np.concatenate([np.cumsum(self._rb[::-1])[::-1], [0.0]])
        rl, rr = self._left[1], self._right[1]
        self._ml, self._mr = float(self._cum_l[-1]), float(self._cum_r[-1])
        self._mass_left = self._ml / (1.0 - rl)
        self._mass_right = self._mr / (1.0 - rr)
        self._mass_grid = float(self._cum_g[-1])
        self._total = self._mass_left + self._mass_grid + self._mass_right

    # -- description ----------------------------------------------------------------------
    @property
    def privacy(self) -> PureDP | ApproxDP:
        """The guarantee claimed at construction."""
        return self._privacy

    @property
    def widths(self) -> FloatArray:
        """Relative widths of the cells of one period (a copy; they sum to 1)."""
        return self._w.copy()

    @property
    def period(self) -> int:
        """Cells per period, ``m``: the cell reach of a shift by Δ."""
        return self._m

    @property
    def first_period(self) -> int:
        """``k0``: the table starts at ``k0·Δ``."""
        return self._k0

    @property
    def num_cells(self) -> int:
        """Cells of the table."""
        return int(self._dens.size)

    @property
    def densities(self) -> FloatArray:
        """Density on each cell of the table (a copy)."""
        return self._dens.copy()

    @property
    def left_tail(self) -> tuple[FloatArray, float]:
        """``(base densities, ratio)`` of the left tail."""
        return self._left[0].copy(), self._left[1]

    @property
    def right_tail(self) -> tuple[FloatArray, float]:
        """``(base densities, ratio)`` of the right tail."""
        return self._right[0].copy(), self._right[1]

    @property
    def edges(self) -> FloatArray:
        """Cell edges of the table in absolute units (rounded to floats: use for plotting)."""
        k = self._k0 + np.arange(self._periods)
        inner = (k[:, None] + self._t[None, :-1]).reshape(-1)
        return np.append(inner, self._k0 + self._periods) * self.sensitivity

    @property
    def atom(self) -> float:
        """No atom: 0 (for code handling any grid noise)."""
        return 0.0

    def density_description(self) -> dict[str, Any]:
        """Densities, cell reach ``m`` and tails: the input of ``noise_epsilon`` (module text).

        Ratios of densities within ``m`` cells are exactly what ε-DP constrains on a periodic
        partition, so ``noise_epsilon(**noise.density_description())`` certifies the noise.
        """
        return {
            "masses": self._dens.copy(),
            "reach": self._m,
            "left_tail": self.left_tail,
            "right_tail": self.right_tail,
        }

    def grid_description(self) -> GridDescription:
        """The densities, their tails and the cell reach ``m`` (exact): the numbers whose ratios
        ε-DP constrains on a periodic partition (module text), as a
        `GridDescription` with
        ``equal_cells=False`` (only the pure ε is read from it)."""
        return GridDescription(
            self._dens.copy(),
            self.left_tail,
            self.right_tail,
            0.0,
            Fraction(self._m),
            self.sensitivity,
            None,
            discrete=False,
            equal_cells=False,
        )

    def privacy_source(self) -> PrivacySource:
        """A table of densities on a graded periodic grid, stored: certify its pure ε from
        `grid_description`."""
        return self._source(SourceKind.GRID, tabulated=True, grid=self.grid_description())

    @property
    def is_symmetric(self) -> bool:
        """Whether the noise is symmetric about 0 (to 1e-12 relative)."""
        mirrored = self._k0 == -(self._k0 + self._periods)
        if not mirrored or not np.allclose(self._w, self._w[::-1], rtol=1e-12, atol=0.0):
            return False
        scale = 1e-12 * max(float(np.max(self._dens)), 1e-300)
        return bool(
            np.all(np.abs(self._dens - self._dens[::-1]) <= scale)
            and np.all(np.abs(self._left[0] - self._right[0][::-1]) <= scale)
            and abs(self._left[1] - self._right[1]) <= 1e-12
        )

    def __repr__(self) -> str:
        return (
            f"GradedNoise(sensitivity={self.sensitivity!r}, cells_per_period={self._m}, "
            f"first_period={self._k0}, periods={self._periods}, privacy={self._privacy!r}, "
            f"narrowest={float(self._w.min()):.3g})"
        )

    # -- locating points ---------------------------------------------------------------------
    def _locate(self, x: FloatArray) -> tuple[IntArray, IntArray, FloatArray]:
        """Period relative to the table (``k − k0``), cell in the period, fraction in the cell.

        Cells are found the way they are placed (``_position``): a cell in the left half of
        its period by its offset from the period's start (prefix sums ``t``), one in the right
        half by its distance to the period's end (suffix sums ``s``), so that the narrow cells
        at both ends of a period (e.g. the staircase's top step at large ε, cells of 1e-23 Δ
        next to 0) are told apart wherever ``x`` itself is (``1 − 1e-11`` has no digits left
        for them, ``1e-11`` has).
        """
        y = np.where(np.isfinite(x), x / self.sensitivity, 0.0)
        k = np.floor(y)
        r = np.clip(y - k, 0.0, 1.0)
        d = np.clip((k + 1.0) - y, 0.0, 1.0)  # distance to the period's end (exact near it)
        m = self._m
        left = np.clip(np.searchsorted(self._t, r, side="right") - 1, 0, m - 1)
        # Right-anchored cell i holds the distances (s[i+1], s[i]].
        right = np.clip(m - np.searchsorted(self._s[::-1], d, side="left"), 0, m - 1)
        first_right = int(np.argmax(self._from_right)) if np.any(self._from_right) else m
        from_right = d <= self._s[first_right] if first_right < m else np.zeros(y.shape, bool)
        i = np.where(from_right, right, left)
        with np.errstate(invalid="ignore"):
            offset = np.where(from_right, self._s[i] - d, r - self._t[i])
        theta = np.clip(offset / self._w[i], 0.0, 1.0)
        return (k - self._k0).astype(np.int64), i.astype(np.int64), theta

    # -- formulas ----------------------------------------------------------------------------
    def _pdf(self, x: FloatArray) -> FloatArray:
        return np.where(np.isfinite(x), np.exp(self._logpdf(x)), 0.0)

    def _logpdf(self, x: FloatArray) -> FloatArray:
        kr, i, _ = self._locate(x)
        kk = self._periods
        with np.errstate(divide="ignore"):
            grid = np.log(self._dens[np.clip(kr, 0, kk - 1) * self._m + i])
            left = np.log(self._left[0][i]) + _log_powers(self._left[1], np.maximum(-kr - 1, 0))
            right = np.log(self._right[0][i]) + _log_powers(self._right[1], np.maximum(kr - kk, 0))
        out = np.where(kr < 0, left, np.where(kr >= kk, right, grid))
        return np.where(np.isfinite(x), out, -np.inf)

    def _below(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(scale, log_factor)`` with ``P(X ≤ x) = scale·e^log_factor`` (left tail exact)."""
        kr, i, th = self._locate(x)
        kk, rl = self._periods, self._left[1]
        j = np.maximum(-kr, 1)  # left tail: 1-based period count outwards
        inner = self._cum_l[i] + th * self._lb[i]
        left = rl * self._ml / (1.0 - rl) + inner  # times rl^(j−1)
        idx = np.clip(kr, 0, kk - 1) * self._m + i
        grid = self._mass_left + self._cum_g[idx] + th * self._g[idx]
        jr = np.maximum(kr - kk, 0)
        rr = self._right[1]
        pr = _powers(rr, jr)
        right = (
            self._mass_left
            + self._mass_grid
            + (1.0 - pr) * self._mass_right
            + pr * (self._cum_r[i] + th * self._rb[i])
        )
        scale = np.where(kr < 0, left, np.where(kr >= kk, right, grid))
        logf = np.where(kr < 0, _log_powers(rl, j - 1), 0.0)
        scale = np.where(x == -np.inf, 0.0, np.where(x == np.inf, self._total, scale))
        return scale, np.where(np.isfinite(x), logf, 0.0)

    def _above(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(scale, log_factor)`` with ``P(X > x) = scale·e^log_factor`` (right tail exact)."""
        kr, i, th = self._locate(x)
        kk, rr = self._periods, self._right[1]
        j = np.maximum(kr - kk, 0)
        right = rr * self._mr / (1.0 - rr) + self._suf_r[i + 1] + (1.0 - th) * self._rb[i]
        idx = np.clip(kr, 0, kk - 1) * self._m + i
        grid = self._mass_right + self._suf_g[idx + 1] + (1.0 - th) * self._g[idx]
        rl = self._left[1]
        jl = np.maximum(-kr - 1, 0)
        pl = _powers(rl, jl)
        left = (
            self._mass_right
            + self._mass_grid
            + (1.0 - pl) * self._mass_left
            + pl * (self._suf_l[i + 1] + (1.0 - th) * self._lb[i])
        )
        scale = np.where(kr >= kk, right, np.where(kr < 0, left, grid))
        logf = np.where(kr >= kk, _log_powers(rr, j), 0.0)
        scale = np.where(x == np.inf, 0.0, np.where(x == -np.inf, self._total, scale))
        return scale, np.where(np.isfinite(x), logf, 0.0)

    def _cdf(self, x: FloatArray) -> FloatArray:
        scale, logf = self._below(x)
        with np.errstate(under="ignore"):
            return np.clip(scale * np.exp(logf), 0.0, 1.0)

    def _sf(self, x: FloatArray) -> FloatArray:
        scale, logf = self._above(x)
        with np.errstate(under="ignore"):
            return np.clip(scale * np.exp(logf), 0.0, 1.0)

    def _logcdf(self, x: FloatArray) -> FloatArray:
        scale, logf = self._below(x)
        with np.errstate(divide="ignore"):
            return np.minimum(np.log(scale) + logf, 0.0)

    def _logsf(self, x: FloatArray) -> FloatArray:
        scale, logf = self._above(x)
        with np.errstate(divide="ignore"):
            return np.minimum(np.log(scale) + logf, 0.0)

    def _position(self, k: FloatArray, i: IntArray, theta: FloatArray) -> FloatArray:
        """``x`` of fraction ``theta`` into cell ``i`` of absolute period ``k`` (exact anchors)."""
        left = (k + self._t[i] + theta * self._w[i]) * self.sensitivity
        right = (k + 1.0 - (self._s[i] - theta * self._w[i])) * self.sensitivity
        return np.where(self._from_right[i], right, left)

    @staticmethod
    def _invert(cum: FloatArray, mass: FloatArray, v: FloatArray) -> tuple[IntArray, FloatArray]:
        """Cell and fraction where the cumulative mass reaches ``v`` (zero cells skipped)."""
        r = np.clip(np.searchsorted(cum[1:], v, side="left"), 0, mass.size - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(mass[r] > 0, (v - cum[r]) / mass[r], 0.0)
        return r.astype(np.int64), np.clip(t, 0.0, 1.0)

    def _ppf(self, q: FloatArray) -> FloatArray:
        out = np.empty(q.shape)
        lm, gm = self._mass_left, self._mass_grid
        rl, rr = self._left[1], self._right[1]
        in_left, in_right = q < lm, q > lm + gm
        in_grid = ~in_left & ~in_right
        r, t = self._invert(self._cum_g, self._g, q[in_grid] - lm)
        out[in_grid] = self._position(self._k0 + (r // self._m).astype(float), r % self._m, t)
        if np.any(in_left):
            ql = q[in_left]
            with np.errstate(divide="ignore"):
                jm1 = np.floor(np.log(ql / lm) / math.log(rl)) if rl > 0 else np.zeros(ql.shape)
            jm1 = np.where(np.isfinite(jm1), np.maximum(jm1, 0.0), np.inf)
            ok = np.isfinite(jm1) & (ql > 0)
            jm1 = np.where(ok, jm1, 0.0)
            with np.errstate(under="ignore"):
                v = (ql - np.power(rl, jm1 + 1.0) * lm) / np.power(rl, jm1)
            i, t = self._invert(self._cum_l, self._lb, np.clip(v, 0.0, self._ml))
            x = self._position(self._k0 - 1.0 - jm1, i, t)
            out[in_left] = np.where(ok, x, -np.inf)
        if np.any(in_right):
            u = q[in_right] - lm - gm
            rest = np.maximum(self._mass_right - u, 0.0)
            with np.errstate(divide="ignore"):
                j = (
                    np.floor(np.log(rest / self._mass_right) / math.log(rr))
                    if rr > 0
                    else np.zeros(u.shape)
                )
            ok = np.isfinite(j) & (rest > 0)
            j = np.where(ok, np.maximum(j, 0.0), 0.0)
            with np.errstate(under="ignore"):
                before = (1.0 - np.power(rr, j)) * self._mass_right
                v = (u - before) / np.power(rr, j)
            i, t = self._invert(self._cum_r, self._rb, np.clip(v, 0.0, self._mr))
            x = self._position(self._k0 + self._periods + j, i, t)
            out[in_right] = np.where(ok, x, np.inf)
        return out

    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        count = 1 if size is None else int(np.prod(size))
        rl, rr, m = self._left[1], self._right[1], self._m
        weights = np.concatenate([self._lb / (1.0 - rl), self._g, self._rb / (1.0 - rr)])
        cum = np.cumsum(weights)
        idx = np.clip(
            np.searchsorted(cum, rng.random(count) * cum[-1], side="right"), 0, weights.size - 1
        )
        left, right = idx < m, idx >= m + self._g.size
        period = np.where(left, self._k0 - 1, self._k0 + (idx - m) // m).astype(np.float64)
        period[right] = self._k0 + self._periods
        period[left] -= rng.geometric(1.0 - rl, size=int(left.sum())) - 1
        period[right] += rng.geometric(1.0 - rr, size=int(right.sum())) - 1
        cell = np.where(left, idx, np.where(right, idx - m - self._g.size, (idx - m) % m))
        x = self._position(period, cell.astype(np.int64), rng.random(count))
        return x.reshape(() if size is None else size)

    def _cell_offsets(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Per cell of one period: anchor shift (0 or 1 period), lo and hi offsets (units of Δ)."""
        right = self._from_right
        shift = np.where(right, 1.0, 0.0)
        lo = np.where(right, -self._s[:-1], self._t[:-1])
        hi = np.where(right, -self._s[1:], self._t[1:])
        return shift, lo, hi

    def _expected_cost(self, cost: Cost) -> float:
        delta, kk = self.sensitivity, self._periods
        shift, lo, hi = self._cell_offsets()
        k = (self._k0 + np.arange(kk))[:, None] + shift[None, :]
        grid = anchored_integrals(
            cost,
            (k * delta).reshape(-1),
            np.tile(lo * delta, kk),
            np.tile(hi * delta, kk),
        )
        total = float(np.dot(self._dens, grid))
        for base, rho, k_first, step in (
            (self._left[0], self._left[1], self._k0 - 1, -delta),
            (self._right[0], self._right[1], self._k0 + kk, delta),
        ):
            if rho > 0 or np.any(base > 0):
                ints = anchored_integrals(
                    cost, (k_first + shift) * delta, lo * delta, hi * delta, period=step, ratio=rho
                )
                total += float(np.dot(base, ints))
        return total

    # -- scipy.stats parity: the cells and tails that the exact moments sum over -------------
    def _table(self) -> Table:
        """Cells at their anchored edges (``_cell_offsets``) with their exact widths ``w_iΔ``."""
        delta, kk = self.sensitivity, self._periods
        shift, lo, hi = self._cell_offsets()
        width = self._w * delta

        def period(k: FloatArray, values: FloatArray) -> Cells:
            anchor = ((k[:, None] + shift[None, :]) * delta).reshape(-1)
            return Cells(
                anchor + np.tile(lo * delta, k.size),
                anchor + np.tile(hi * delta, k.size),
                np.tile(width, k.size),
                values,
            )

        table = np.arange(self._k0, self._k0 + kk, dtype=np.float64)
        left = period(np.array([self._k0 - 1.0]), self._left[0])
        right = period(np.array([float(self._k0 + kk)]), self._right[0])
        return Table(
            period(table, self._dens),
            (left, -delta, self._left[1]),
            (right, delta, self._right[1]),
        )
