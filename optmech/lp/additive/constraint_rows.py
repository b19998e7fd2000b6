"""The caller's constraints on 1-D additive noise: rows on the LP's variables, and residuals.

`optmech.constraints` says *what* must hold; here each declarative constraint becomes one or two
sparse rows on the variables of an `AdditiveLP` (grid values ``x_j = Δ·f_j``, the atom, the
auxiliaries). Every row is linear in the cell masses *and* in the mass of the geometric tails
the outermost periods carry, because it is built from the same exact per-variable integrals as
the LP's objective: ``∫_cell c`` of the cost (`Cost.integral`) and the tails' closed-form series
(`periodic_integral`). With ``g_j`` the integral of a function ``g`` against a unit of variable
``j`` and ``a_j`` its mass, the expectation of ``g`` under the normalised noise is
``g·z / a·z``, so each condition is a *homogeneous* row — it holds for the noise whatever the
normalisation the read-out applies:

* `Unbiased`: ``E Z = 0`` as ``±(m·z)/Δ ≤ 0``, ``m_j`` the
  first moment of variable ``j`` (the positive part minus the negative part of ``e``, each a
  power cost with a closed-form tail, so no cell mixes signs in a subtraction). The badness of
  a biased label release is the setting of Badanidiyuru et al. (2023);
* `MaxRisk(b)`: ``E ℓ(Z) ≤ b`` for the design's cost ``ℓ``,
  as ``(w/b − a)·z ≤ 0`` with ``w`` the LP's objective weights;
* `MaxCost(c, b)`: the same with ``c`` in place of ``ℓ``;
* `TailBound(t, q)`: ``P(|Z| > t) ≤ q`` as the expectation
  of the cost ``1[|e| > t]`` (`ZeroOne(t)`): a cell partly beyond
  ``t`` counts the part beyond, exactly, because the density is constant on it;
* `Monotone`: always true for additive noise (``y = x + Z``
  is stochastically increasing in ``x``); no row, residual 0;
* `Custom`: the callable receives `NoiseVariables`
  and returns cvxpy constraints, added to each solver attempt
  (`CustomRows`).

A *margin* ``η`` tightens every inequality's bound to ``(1 − η)·b`` (the designer re-solves
with a margin when the privacy repair moved the point across a bound). The residuals reported
(`constraint_records`) are recomputed from the returned noise itself — its
``mean``, and ``expected_cost`` of the cost or of ``1[|e| > t]`` — not from the LP's point:
``|E Z|/Δ`` for ``Unbiased``, the excess over ``b`` relative to ``b`` for a cost, the excess
probability for a tail bound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.constraints import (
    RESIDUAL_TOL,
    Constraint,
    Custom,
    MaxCost,
    MaxRisk,
    Monotone,
    TailBound,
    Unbiased,
)
from optmech.costs import Cost, ZeroOne
from optmech.costs.builtin import _PowerLike
from optmech.lp.engine.rows import RowBlock, RowRecord
from optmech.privacy import PureDP
from optmech.provenance import ConstraintRecord

if TYPE_CHECKING:
    from optmech.lp.additive.lp import AdditiveLP, GridNoise

__all__ = [
    "SUPPORTED",
    "CustomRows",
    "NoiseVariables",
    "centred",
    "constraint_blocks",
    "constraint_records",
    "custom_blocks",
    "mirror_invariant",
    "moment_columns",
    "unmet",
]

#: The constraints the 1-D additive designer translates.
SUPPORTED = (Unbiased, MaxRisk, Monotone, TailBound, MaxCost, Custom)
#: ``e ↦ max(e, 0)`` and ``e ↦ max(−e, 0)``: the first moment's two halves, with closed forms.
_POSITIVE = _PowerLike(1.0, over=1.0, under=0.0)
_NEGATIVE = _PowerLike(1.0, over=0.0, under=1.0)


def _columns(lp: AdditiveLP, cost: Cost, what: str) -> FloatArray:
    """The integral of ``cost`` against a unit of each LP variable (0 for the auxiliaries)."""
    out = np.zeros(lp.num_variables)
    out[: lp.num_values] = lp.expand.T @ lp.grid.costs_with_tails(cost, lp.tail_ratio)
    if lp.atom_index is not None:
        out[lp.atom_index] = float(np.asarray(cost(0.0)))
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"the cost of {what} gives a non-finite expectation (NaN or inf) on the grid or its "
            "tails; its tail series must converge under the design's tail ratio."
        )
    return out


def moment_columns(lp: AdditiveLP) -> FloatArray:
    """``∫_cell e de / Δ`` per unit of each LP variable (the atom at 0 adds nothing)."""
    return _columns(lp, _POSITIVE, "Unbiased()") - _columns(lp, _NEGATIVE, "Unbiased()")


def _row(coefficients: FloatArray) -> sp.csr_matrix:
    return sp.csr_matrix(coefficients.reshape(1, -1))


def _bounded(lp: AdditiveLP, cost: Cost, bound: float, margin: float, what: str) -> sp.csr_matrix:
    """``(w/b − (1 − η) a)·z ≤ 0`` (``w/q − … `` with 1 for a zero probability)."""
    w = lp.weights if cost is lp.spec.cost else _columns(lp, cost, what)
    if bound > 0:
        return _row(w / bound - (1.0 - margin) * lp.mass)
    return _row(w)


def constraint_blocks(
    lp: AdditiveLP, constraints: Sequence[Constraint], margin: float = 0.0
) -> tuple[RowBlock, ...]:
    """The row blocks of the declarative ``constraints`` on ``lp`` (module docstring), named
    ``"constraint i: <name>"``; inequalities tightened by the relative ``margin``."""
    blocks = []
    for i, item in enumerate(constraints):
        name = f"constraint {i}: {item.name}"
        if isinstance(item, Unbiased):
            if lp.reduced:  # mirrored pairs: the mean is 0 identically
                continue
            m = moment_columns(lp) / lp.grid.sensitivity
            a = sp.vstack([_row(m), _row(-m)], format="csr")
        elif isinstance(item, MaxRisk):
            a = _bounded(lp, lp.spec.cost, item.bound, margin, item.name)
        elif isinstance(item, MaxCost):
            a = _bounded(lp, item.cost, item.bound, margin, item.name)
        elif isinstance(item, TailBound):
            a = _bounded(lp, ZeroOne(item.t), item.probability, margin, item.name)
        else:  # Monotone (always true) and Custom (CustomRows)
            continue
        blocks.append(RowBlock(name, a, np.zeros(a.shape[0])))
    return tuple(blocks)


def with_blocks(rows: RowRecord, blocks: Sequence[RowBlock]) -> RowRecord:
    """``rows`` and ``blocks`` (replacing blocks of the same names)."""
    names = {b.name for b in blocks}
    return RowRecord((*(b for b in rows if b.name not in names), *blocks))


def mirror_invariant(constraint: Constraint) -> bool:
    """Whether the constraint holds for the mirror image of a noise that meets it (the mirror
    reduction of the LP then stays exact)."""
    if isinstance(constraint, MaxCost):
        return bool(constraint.cost.symmetric)
    return not isinstance(constraint, Custom)


# -- an exact zero mean ---------------------------------------------------------------------------
def _one_sided(lp: AdditiveLP) -> FloatArray:
    """Grid values ``e^(−ε x/(4Δ))`` right of 0 and ``e^(−ε|x|/(2Δ))`` left of it: a feasible
    point of the ε-DP LP (window ratios at most ``e^(ε/2)``, non-increasing in ``|x|``, tails
    at the LP's ratio) whose mean is positive."""
    x = lp.grid.centres() / lp.grid.sensitivity
    privacy = lp.privacy
    assert isinstance(privacy, PureDP)  # `centred` mixes ε-DP designs only
    eps = privacy.epsilon
    return np.where(x >= 0, np.exp(-eps * x / 4.0), np.exp(eps * x / 2.0))


def centred(lp: AdditiveLP, kwargs: Mapping[str, Any]) -> tuple[type, dict[str, Any]] | None:
    """The family and keywords of the returned ε-DP noise mixed with a private noise of the
    opposite mean so that its mean is 0 to rounding; None when there is nothing to do.

    After the privacy repair a design asked to be `Unbiased`
    has a mean of the order of the solver's tolerance. With ``μ`` that mean and ``μ_g`` the
    mean of ``_one_sided`` (mirrored to the other sign), the mixture with weight
    ``λ = μ/(μ − μ_g)`` on it has mean 0; both are feasible points of the LP, so the mixture
    is too, and ``λ`` — hence the change of every expectation — is of the order of ``μ``.
    Pure ε-DP designs on the full grid only (the mirror reduction is unbiased already; an
    (ε, δ) repair mixes with a symmetric reference, which only shrinks the mean).
    """
    wanted = any(isinstance(c, Unbiased) for c in lp.declared)
    if not wanted or lp.reduced or not lp.spec.pure:
        return None
    moment = moment_columns(lp)

    def moments(full: FloatArray) -> tuple[float, float]:
        z = lp.variables_of(full, 0.0)
        return float(moment[: z.size] @ z), float(lp.mass[: z.size] @ z)

    own = lp.values_of(kwargs)
    first, total = moments(own)
    mean = first / total
    if mean == 0.0 or not np.isfinite(mean):
        return None
    other = _one_sided(lp)
    if mean > 0:
        other = other[lp.grid.mirror()]
    first_g, total_g = moments(other)
    weight = mean / (mean - first_g / total_g)
    full = (1.0 - weight) * own / total + weight * other / total_g
    return lp.noise_parts(full, 0.0)


# -- the callables ------------------------------------------------------------------------------
@dataclass(frozen=True)
class NoiseVariables:
    """What a `Custom` constraint of an additive design receives.

    Attributes
    ----------
    variable : cvxpy.Expression
        The LP's variable ``z`` in its own units (values, atom, auxiliaries).
    values : cvxpy.Expression
        ``Δ·f`` on every cell of the full grid (probabilities times Δ on ℤ).
    masses : cvxpy.Expression
        The mass of each cell per unit of total mass, the geometric tail beyond the grid folded
        into the outermost period's cells (so ``sum(masses) + atom`` is the normalisation, 1).
    atom : cvxpy.Expression or float
        The mass at 0 (0 without an atom).
    centres : numpy.ndarray
        The cells' centres (the integers on ℤ).
    """

    variable: Any
    values: Any
    masses: Any
    atom: Any
    centres: FloatArray


def _cell_mass(lp: AdditiveLP) -> FloatArray:
    """Mass of a unit of each full-grid value, its share of the tails included."""
    cells = lp.grid.mass_per_unit()
    ratio, p = lp.tail_ratio, lp.grid.period
    if ratio > 0:
        cells[:p] *= 1.0 / (1.0 - ratio)
        cells[-p:] *= 1.0 / (1.0 - ratio)
    return cells


def _variables(lp: AdditiveLP, z: Any) -> NoiseVariables:
    values = lp.expand @ z[: lp.num_values]
    atom = z[lp.atom_index] if lp.atom_index is not None else 0.0
    return NoiseVariables(z, values, cp.multiply(_cell_mass(lp), values), atom, lp.grid.centres())


@dataclass(frozen=True)
class CustomRows:
    """The callables' cvxpy constraints, rebuilt on each attempt's solver variable."""

    lp: Any
    items: tuple[Custom, ...]

    def constraints(self, y: Any, col_scale: FloatArray) -> Mapping[str, Any]:
        """Each callable's constraints on ``z = col_scale ⊙ y``, by its name."""
        z = cp.multiply(col_scale, y)
        out = {}
        for i, item in enumerate(self.items):
            for k, found in enumerate(item.function(_variables(self.lp, z))):
                out[f"custom {i}.{k}: {item.name}"] = found
        return out


def _affine_rows(constraint: Any, z: Any) -> tuple[sp.csr_matrix, FloatArray] | None:
    """``(A, b)`` with ``A z ≤ b`` equivalent to an affine cvxpy (in)equality in ``z`` (whose
    value is 0), or None for any other constraint."""
    is_equality = isinstance(constraint, cp.constraints.Equality)
    if not (is_equality or isinstance(constraint, cp.constraints.Inequality)):
        return None
    expr = constraint.expr  # ``lhs − rhs``, ``≤ 0`` or ``= 0``
    if not expr.is_affine():
        return None
    const = np.asarray(expr.value, dtype=np.float64).ravel(order="F")
    grad = expr.grad.get(z)
    a = sp.csr_matrix((const.size, z.size)) if grad is None else sp.csr_matrix(grad.T)
    if is_equality:
        return sp.vstack([a, -a], format="csr"), np.concatenate([-const, const])
    return a, -const


def custom_blocks(
    lp: AdditiveLP, items: Sequence[Custom]
) -> tuple[tuple[RowBlock, ...], tuple[Custom, ...]]:
    """The callables whose constraints are all affine (in)equalities, as row blocks (their
    multipliers then enter the certified lower bound like any row's), and the others, left to
    `CustomRows`."""
    z = cp.Variable(lp.num_variables)
    z.value = np.zeros(lp.num_variables)
    blocks, rest = [], []
    for i, item in enumerate(items):
        rows = [_affine_rows(c, z) for c in item.function(_variables(lp, z))]
        if not rows or any(r is None for r in rows):
            rest.append(item)
            continue
        a = sp.vstack([r[0] for r in rows if r is not None], format="csr")
        b = np.concatenate([r[1] for r in rows if r is not None])
        blocks.append(RowBlock(f"custom {i}: {item.name}", a, b))
    return tuple(blocks), tuple(rest)


def _custom_residual(lp: AdditiveLP, item: Custom, point: FloatArray) -> float:
    """The largest violation of a callable's constraints at the returned noise's point."""
    z = cp.Variable(lp.num_variables)
    z.value = lp.complete(point)
    found = item.function(_variables(lp, z))
    return max((float(np.max(c.violation())) for c in found), default=0.0)


# -- the residuals of the returned noise ----------------------------------------------------------
def _residual(item: Constraint, noise: GridNoise, lp: AdditiveLP) -> tuple[float, float]:
    """(violation relative to the scale, the scale), from the noise's own methods."""
    if isinstance(item, Unbiased):
        scale = float(lp.grid.sensitivity)
        return abs(float(noise.mean())) / scale, scale
    if isinstance(item, MaxRisk | MaxCost):
        cost = lp.spec.cost if isinstance(item, MaxRisk) else item.cost
        value = float(noise.expected_cost(cost))
        return max(0.0, value - item.bound) / item.bound, float(item.bound)
    if isinstance(item, TailBound):
        tail = float(noise.expected_cost(ZeroOne(item.t)))
        return max(0.0, tail - item.probability), 1.0
    return 0.0, 1.0  # Monotone


def constraint_records(
    lp: AdditiveLP, constraints: Sequence[Constraint], noise: GridNoise, point: FloatArray
) -> tuple[ConstraintRecord, ...]:
    """Each constraint and its residual at the returned ``noise`` (its LP ``point`` for the
    callables)."""
    out = []
    for item in constraints:
        if isinstance(item, Custom):
            out.append(ConstraintRecord(item.name, "custom", _custom_residual(lp, item, point)))
            continue
        value, scale = _residual(item, noise, lp)
        out.append(ConstraintRecord(item.name, item.kind, value, scale))
    return tuple(out)


def unmet(records: Sequence[ConstraintRecord]) -> list[ConstraintRecord]:
    """The declarative constraints whose residual exceeds
    ``optmech.constraints.RESIDUAL_TOL`` (1e-9)."""
    return [r for r in records if r.kind != "custom" and not r.residual <= RESIDUAL_TOL]
