"""What differs between the user LPs: the objective, its extra rows and its dual bound.

The engine (`optmech.lp.user.engine`) solves every user LP the same way; an objective object
supplies the rest (the dp_accounting pattern of thin public functions over one private engine):

* `LinearObjective` — a Bayesian user, ``min Σ_i p_i Σ_r x[i, r] l(i, r)``
  (Ghosh, Roughgarden & Sundararajan (2012), LP (2)–(6)).
* `EpigraphObjective` — ``min max_k F_k · vec(X)``: a minimax user with side
  information S, one form per input of S (Gupte & Sundararajan (2010)); or several Bayesian
  users served by one mechanism, one form per user (Brenner & Nissim (2014)).

Each gives the LP data for a scale, the objective value at a mechanism *rounded up*
(`optmech.lp.bounds.upper_dot`: an upper bound on the exact value for the given floats), the
rigorous lower bound from the solver's multipliers (`optmech.lp.matrix.bounds`) and a few known
ε-DP mechanisms: the best constant answer (0-DP) and, for a count query, the geometric mechanism
with the Bayes remap (GRS Thm. 3.1). Those set the objective's scale (so the LP's optimum is O(1)
whatever the loss's units) and compete with the LP's point when its certified interval is wide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech.lp.bounds import upper_dot
from optmech.lp.matrix.bounds import epigraph_bound, linear_bound
from optmech.lp.matrix.build import Duals, LPData
from optmech.lp.matrix.result import UserObjective
from optmech.lp.matrix.setting import UserSetting
from optmech.mechanisms.geometric import TRUNCATED_GEOMETRIC_MAX_N, truncated_geometric

__all__ = [
    "EpigraphObjective",
    "LinearObjective",
    "Objective",
    "Reference",
    "exact_upper_dot",
    "reference_scale",
    "scale_of",
]


@dataclass(frozen=True)
class Reference:
    """A known ε-DP mechanism (in exact arithmetic) and its name."""

    name: str
    mechanism: FloatArray = field(repr=False)


#: From this many terms on, ``exact_upper_dot`` sums rows with numpy and the row sums
#: exactly (``γ_m`` of slack, ~1e-13 at n = 800) instead of one ``fsum`` over every term
#: (0.05 s per evaluation at n = 800).
BLOCKED_TERMS = 100_000


def _gamma(k: int) -> float:
    return k * _U / (1.0 - k * _U)


def exact_upper_dot(c: npt.ArrayLike, x: npt.ArrayLike) -> float:
    """``Σ c_j x_j`` rounded up, and exactly 0 when no term is non-zero.

    Exactly 0 when ``c_j = 0`` or ``x_j = 0`` for every j (the exact sum is 0; a product that
    merely underflowed is not exactly zero and is rounded up as usual). Small sums go through
    `optmech.lp.bounds.upper_dot`; for a matrix with at least `BLOCKED_TERMS` entries each row
    is summed by numpy (error at most ``γ_m`` of the row's magnitude, any summation order;
    Higham (2002), §3.1), the row sums by ``math.fsum``, and the bound adds ``(γ_m + u)·Σ|c_j
    x_j|`` (sums and products), ``u·|total|`` and one subnormal per product.
    """
    ca = np.asarray(c, dtype=np.float64)
    xa = np.asarray(x, dtype=np.float64)
    if not np.any((ca != 0) & (xa != 0)):
        return 0.0
    if ca.ndim != 2 or ca.size < BLOCKED_TERMS:
        return upper_dot(ca, xa)
    products = ca * xa
    total = math.fsum(products.sum(axis=1).tolist())
    magnitude = float(np.abs(products).sum()) * (1.0 + _gamma(products.size))
    slack = (_gamma(ca.shape[1]) + _U) * magnitude + abs(total) * _U + products.size * 5e-324
    return math.nextafter(total + slack * (1.0 + 4.0 * _U), math.inf)


def _references(
    setting: UserSetting, epsilon: float, best: int, posterior_weights: FloatArray
) -> list[Reference]:
    """The constant answer ``best`` and, for a count query, ``G`` followed by the Bayes remap
    for ``posterior_weights``."""
    n_in, n_out = posterior_weights.shape
    constant = np.zeros((n_in, n_out))
    constant[:, best] = 1.0
    refs = [Reference("best constant answer", constant)]
    if not setting.is_count_query or n_in > TRUNCATED_GEOMETRIC_MAX_N + 1:
        return refs
    g = truncated_geometric(n_in - 1, epsilon)
    choice = np.argmin(g.T @ posterior_weights, axis=1)
    return [*refs, Reference("geometric + Bayes remap", g @ np.eye(n_out)[choice])]


@dataclass(frozen=True)
class LinearObjective:
    """A Bayesian user: ``Σ W ⊙ X`` with ``W = p[:, None] · L ≥ 0`` (GRS LP (2)–(6))."""

    weights: FloatArray = field(repr=False)
    kind: UserObjective = UserObjective.BAYESIAN

    @property
    def shape(self) -> tuple[int, int]:
        """``(N, m)``."""
        return (int(self.weights.shape[0]), int(self.weights.shape[1]))

    @property
    def top(self) -> float:
        """The largest coefficient (the divisor that brings them all to ≤ 1)."""
        return float(np.max(np.abs(self.weights)))

    def data(self, factor: float) -> LPData:
        """The LP's objective divided by ``factor``."""
        return LPData(self.shape, weights=self.weights / factor)

    def value(self, mechanism: FloatArray) -> float:
        """``Σ W ⊙ X`` rounded up (exactly 0 when every term is)."""
        return exact_upper_dot(self.weights, mechanism)

    def estimate(self, mechanism: FloatArray) -> float:
        """``Σ W ⊙ X`` in plain floating point (for scaling)."""
        return float(np.sum(self.weights * mechanism))

    def lower_bound(
        self, duals: Duals, coefficients: tuple[float, float], factor: float, setting: UserSetting
    ) -> float:
        """Rigorous lower bound on the optimum (`linear_bound`)."""
        return linear_bound(self.weights, duals, coefficients, factor, setting.graph)

    def references(self, setting: UserSetting, epsilon: float) -> list[Reference]:
        """The best constant answer and, for a count query, ``G`` + Bayes remap."""
        best = int(np.argmin(self.weights.sum(axis=0)))
        return _references(setting, epsilon, best, self.weights)


@dataclass(frozen=True)
class EpigraphObjective:
    """``max_k F_k · vec(X)`` with non-negative forms (minimax users, common mechanisms).

    Attributes
    ----------
    forms : scipy.sparse.csr_matrix, shape (K, N·m)
        One form per row (``vec`` row-major).
    shape : (int, int)
        ``(N, m)``.
    kind : UserObjective
        Which user LP this is.
    """

    forms: sp.csr_matrix = field(repr=False)
    shape: tuple[int, int]
    kind: UserObjective = UserObjective.MINIMAX

    @property
    def top(self) -> float:
        """The largest coefficient."""
        return float(np.max(np.abs(self.forms.data))) if self.forms.nnz else 0.0

    def data(self, factor: float) -> LPData:
        """The forms divided by ``factor``."""
        return LPData(self.shape, forms=(self.forms / factor).tocsr())

    def values(self, mechanism: FloatArray) -> FloatArray:
        """Each form at ``X``, each rounded up."""
        x = np.asarray(mechanism, dtype=np.float64).ravel()
        f = self.forms
        out = np.empty(f.shape[0])
        for k in range(f.shape[0]):  # K forms: |S| ≤ N for a minimax user, a few users
            span = slice(f.indptr[k], f.indptr[k + 1])
            out[k] = exact_upper_dot(f.data[span], x[f.indices[span]])
        return out

    def value(self, mechanism: FloatArray) -> float:
        """``max_k F_k · vec(X)`` rounded up."""
        return float(np.max(self.values(mechanism)))

    def estimate(self, mechanism: FloatArray) -> float:
        """The same in plain floating point (for scaling)."""
        return float(np.max(self.forms @ np.asarray(mechanism, dtype=np.float64).ravel()))

    def lower_bound(
        self, duals: Duals, coefficients: tuple[float, float], factor: float, setting: UserSetting
    ) -> float:
        """Rigorous lower bound (`epigraph_bound`)."""
        return epigraph_bound(self.forms, self.shape, duals, coefficients, factor, setting.graph)

    def references(self, setting: UserSetting, epsilon: float) -> list[Reference]:
        """The best constant answer and, for a count query, ``G`` + the Bayes remap for the
        forms summed (a uniform "prior" over them)."""
        n_in, n_out = self.shape
        fold = sp.kron(np.ones((n_in, 1)), sp.identity(n_out), format="csr")
        columns = np.asarray((self.forms @ fold).todense())  # form k at the constant answer r
        best = int(np.argmin(columns.max(axis=0)))
        summed = np.asarray(self.forms.sum(axis=0)).reshape(n_in, n_out)
        return _references(setting, epsilon, best, summed)


#: Either objective.
Objective = LinearObjective | EpigraphObjective


def reference_scale(objective: Objective, references: list[Reference]) -> float:
    """The objective at the best known private mechanism, never below 1e-6 of the largest
    coefficient: the LP's objective is divided by it, so its optimum is O(1) (solvers stop at
    absolute tolerances near 1e-7 while these optima can be 1e-4 or smaller) and no
    coefficient exceeds 1e6 (a prior with mass 1e-30 somewhere must not blow them up)."""
    return scale_of([objective.estimate(r.mechanism) for r in references], objective.top)


def scale_of(values: list[float], top: float) -> float:
    """The least positive finite value, never below 1e-6 of ``top`` (the largest coefficient),
    or ``top`` (else 1) when none is positive: an LP objective's divisor (`reference_scale`).

    Examples
    --------
    >>> scale_of([0.0, 3.0, 2.0], 10.0), scale_of([1e-9], 1.0), scale_of([0.0], 0.0)
    (2.0, 1e-06, 1.0)
    """
    positive = [v for v in values if v > 0 and math.isfinite(v)]
    if not positive:
        return top if top > 0 else 1.0
    return max(min(positive), top * 1e-6)
