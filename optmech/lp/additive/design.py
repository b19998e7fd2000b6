"""Design certified additive noise: solve, read, certify, repair, bound, record.

:func:`design_noise` validates an :class:`~optmech.lp.additive.spec.AdditiveSpec`, builds its
LP once (:func:`~optmech.lp.additive.lp.build_additive_lp`) and solves it through optmech's one
solver path (:func:`optmech.lp.solve.solve_robust`: as built, rescaled, then the other solver).
An ε-DP LP is feasible by construction — a grid Laplace density satisfies every row — so an
"infeasible" or failed status there is numerical trouble and is retried; for (ε, δ) an
infeasible LP is genuine (the support is too short) and is reported as such at once.

:func:`finish_design` then reads the noise off the solver's point (clipped at 0, tails attached,
renormalised), certifies its privacy from the numbers alone (:mod:`optmech.certify.noise`, on
densities with the exact cell reach ``m``), repairs it when it falls short
(:mod:`optmech.lp.noise_repair`: raising cells to a hair *inside* ε, or mixing for δ) and
certifies again, so the returned point is exactly feasible for the LP. It returns the noise with
a certified interval ``[lower_bound, value]`` containing the LP's optimum:

* ``value`` — the exact expected cost of the returned noise (the LP objective at its point,
  divided by its normalisation), rounded up (:func:`optmech.lp.bounds.upper_dot`);
* ``lower_bound`` — weak duality with the solver's multipliers, read by name from the LP's row
  record (:func:`optmech.lp.bounds.lagrangian_bound`): the normalisation row's variables form one
  simplex block (``a_j`` = mass per unit, total 1); each auxiliary (window minimum or
  hockey-stick term) a box ``[0, ū]`` with ``ū = max_j 1/a_j`` — valid because at an optimum the
  auxiliaries can take their canonical values (block minima, ``max(0, x_j − e^ε x_{j+s})``),
  which never exceed the largest value variable, itself at most ``1/a_j``; ``coefficient_rtol``
  covers the rounded ``e^ε``, and the objective's scale is undone by scaling the multipliers.

It warns (:class:`~optmech.exceptions.InaccurateSolutionWarning`) only when that interval is
wider than ``accuracy``; and, for pure ε-DP with a cost the staircase theorem covers (symmetric,
non-decreasing in ``|x|``; Geng & Viswanath 2016, Thm. 4), with a :class:`CoarseGridWarning`
when the grid leaves the design more than :data:`STAIRCASE_WARN_RATIO` above the staircase
optimum V*.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from optmech._validation import check_flag, check_int, check_real
from optmech.certify.noise import noise_epsilon
from optmech.exceptions import InaccurateSolutionWarning, PrivacyViolationError, SolverError
from optmech.lp.additive.grid import GridKind
from optmech.lp.additive.lp import AdditiveLP, GridNoise, build_additive_lp
from optmech.lp.additive.spec import AdditiveSpec, _top_step_cells, default_periods
from optmech.lp.bounds import SimplexBlocks, lagrangian_bound, upper_dot
from optmech.lp.designed import DesignedNoise, DesignRecord, designed_class
from optmech.lp.noise_repair import envelope_raise, hockey_delta, mixture_repair
from optmech.lp.solve import ProblemKind, SolveInfo, Strategy, solve_robust
from optmech.mechanisms.graded import GradedNoise
from optmech.mechanisms.piecewise import LatticeNoise
from optmech.privacy import PureDP
from optmech.provenance import DEFAULT_ACCURACY, Provenance, Repair, RepairKind

if TYPE_CHECKING:
    from optmech.lp.additive2d.designed import DesignedNoise2D

__all__ = [
    "COEFFICIENT_RTOL",
    "PRIVACY_RTOL",
    "STAIRCASE_WARN_RATIO",
    "CoarseGridWarning",
    "design_noise",
    "finish_design",
    "lp_interval",
    "lp_value",
    "solve_lp",
]

FloatArray = npt.NDArray[np.float64]

#: Unit roundoff of float64.
_U = 2.0**-53
#: A designed ε-DP noise is certified to ε(1 + PRIVACY_RTOL): its window is strictly inside ε
#: by construction, its tails exactly at ε, and the certificate is pessimistic by a few ulps.
#: (ε, δ) designs are certified to δ itself.
PRIVACY_RTOL = 1e-9
#: Relative uncertainty of an LP coefficient: ``e^ε`` and the tail ratio are rounded (one ulp
#: each) and multiplied together in the tail rows (one more rounding). The bound is computed on
#: the rows in the LP's own units, so the solver's row and column scalings do not enter.
COEFFICIENT_RTOL = 4.0 * _U
#: Warn when a pure ε-DP design costs more than this times the staircase optimum V*.
#: The default grids stay within 1.02 (tests/test_lp_additive_large_eps.py); user-given coarse
#: grids of the experiments and the theorem catalogue reach 1.024 (ε = 10, m = 120).
STAIRCASE_WARN_RATIO = 1.05


class CoarseGridWarning(UserWarning):
    """A design's grid is too coarse to resolve the optimum the staircase theorem predicts."""


def _check_spec_options(options: dict[str, Any]) -> None:
    valid = AdditiveSpec.options()
    bad = sorted(set(options) - set(valid))
    if bad:
        raise TypeError(
            f"design_noise() got unexpected keyword argument(s) {', '.join(map(repr, bad))}; "
            f"the options of AdditiveSpec are {', '.join(valid)} (besides privacy, sensitivity, "
            "cost, solver, repair, accuracy, solver_options and verbose)."
        )


def design_noise(
    privacy: Any,
    *,
    sensitivity: float,
    cost: Any,
    solver: str | None = None,
    repair: bool = True,
    accuracy: float = DEFAULT_ACCURACY,
    solver_options: dict[str, Any] | None = None,
    verbose: bool = False,
    dimension: int = 1,
    **spec_options: Any,
) -> DesignedNoise | DesignedNoise2D:
    """Design optimal additive noise for ``privacy`` and ``cost`` by LP, certified.

    Parameters
    ----------
    privacy : PureDP or ApproxDP
        The guarantee (:class:`~optmech.lp.additive.spec.AdditiveSpec`).
    sensitivity : float
        Δ, in (0, inf).
    cost : Cost, str or callable
        Any cost of the error.
    solver : str, optional
        cvxpy solver name; default by problem size (:data:`optmech.lp.solve.SOLVER_POLICY`),
        retried rescaled and with the other solver on failure.
    repair : bool
        Repair a solver point that is not exactly private (module docstring) and record what it
        cost; with ``repair=False`` raise :class:`PrivacyViolationError` instead.
    accuracy : float
        Width of the certified interval ``[lower_bound, value]`` (relative to the value, or
        absolute below 1) above which a warning is issued; in [0, inf).
    solver_options : dict, optional
        Options passed to the solver (override optmech's defaults).
    verbose : bool
        Show the solver log.
    dimension : {1, 2}
        ``2`` designs noise in ℝ² for shifts in a norm ball
        (:func:`optmech.lp.additive2d.design.design_noise_2d`: ``sensitivity_norm``,
        ``resolution``, ``periods``, ... and a vector ``cost``).
    **spec_options
        The modelling options of :class:`~optmech.lp.additive.spec.AdditiveSpec`:
        ``resolution``, ``periods``, ``integer``, ``symmetric``, ``monotone``, ``grid``,
        ``window``, ``atom``, ``reduce_symmetric``, ``max_memory_gb``. Anything else raises
        :class:`TypeError`.

    Returns
    -------
    DesignedNoise
        Certified for ``privacy``; ``value`` (exact expected cost, rounded up), ``lower_bound``
        (the LP's optimum is in between), ``certified_epsilon``, ``certified_delta``, ``status``,
        ``solver``, and the full record in ``record`` / ``provenance`` / ``summary()``.

    Raises
    ------
    SolverError
        Every attempt failed (each is named), or an (ε, δ) support is too short.
    PrivacyViolationError
        The solver's point is not private and ``repair=False`` (or the repair failed).
    """
    if check_int("dimension", dimension, low=1, high=2, hint="1-D or 2-D noise") == 2:
        from optmech.lp.additive2d.design import design_noise_2d

        run = {"solver": solver, "solver_options": solver_options, "verbose": verbose}
        return design_noise_2d(
            privacy, sensitivity=sensitivity, cost=cost, repair=repair, accuracy=accuracy,
            **run, **spec_options,
        )  # fmt: skip
    _check_spec_options(spec_options)
    spec = AdditiveSpec(privacy, sensitivity, cost, **spec_options)
    repair = check_flag("repair", repair)
    accuracy = check_real("accuracy", accuracy, low=0.0)
    lp = build_additive_lp(spec)
    try:
        solved, info = solve_lp(
            lp,
            solver=solver,
            kind="additive",
            options=solver_options,
            verbose=verbose,
            feasible=spec.pure,
        )
    except SolverError as exc:
        if exc.status != "infeasible" or spec.pure:
            raise
        need = default_periods(spec.privacy)
        raise SolverError(
            exc.solver,
            exc.status,
            f"no noise on [-{spec.periods}Δ, {spec.periods}Δ] is {spec.privacy}: the support "
            f"is too short for this δ (the truncated Laplace needs about {need} periods); "
            "raise `periods`",
            attempts=exc.attempts,
        ) from exc
    return finish_design(solved, info, repair=repair, accuracy=accuracy, stacklevel=3)


def solve_lp(lp: Any, *, kind: ProblemKind, **solve_options: Any) -> tuple[Any, SolveInfo]:
    """Solve a built additive LP (1-D or 2-D) on optmech's solver path.

    Each attempt of :func:`optmech.lp.solve.solve_robust` gets a fresh problem from
    ``lp.for_strategy`` (the first, as built, reuses the one ``lp`` holds). Returns the LP of
    the successful attempt and its :class:`~optmech.lp.solve.SolveInfo`.
    """
    fresh = [lp]

    def build(strategy: Strategy) -> tuple[Any, Any]:
        variant = fresh.pop() if fresh and not strategy.rescaled else lp.for_strategy(strategy)
        fresh.clear()
        return variant.problem, variant

    return solve_robust(build, num_variables=lp.num_variables, kind=kind, **solve_options)


# -- certification ------------------------------------------------------------------------------
def _described(noise: GridNoise) -> tuple[FloatArray, Any, Any, float]:
    """(values, left tail, right tail, atom) of a grid noise, as certification reads them.

    A uniform grid or ℤ: masses (the numbers :func:`optmech.certify.noise.certify_noise`
    reads); a graded grid: densities — on a partition with unequal widths only densities have
    the ratios ε-DP constrains (:mod:`optmech.mechanisms.graded`).
    """
    if isinstance(noise, GradedNoise):
        return noise.densities, noise.left_tail, noise.right_tail, 0.0
    desc = noise.grid_description()
    return desc["masses"], desc["left_tail"], desc["right_tail"], float(desc["atom"])


def _certify(noise: GridNoise, lp: AdditiveLP) -> tuple[float, float | None, bool]:
    """(pure ε, δ at the requested ε or None, whether ``lp.privacy`` holds exactly).

    The cell reach is the grid's ``m`` cells per Δ, exact: a shift by Δ moves a point at most
    ``m`` cells on a Δ-periodic grid (:mod:`optmech.lp.additive.grid`).
    """
    values, left, right, atom = _described(noise)
    reach = lp.grid.period
    eps = float(noise_epsilon(values, reach=reach, left_tail=left, right_tail=right, atom=atom))
    privacy = lp.privacy
    if isinstance(privacy, PureDP):
        # The tails' pairs one period apart sit at exactly e^ε (their ratio is e^−ε rounded
        # up), so the pessimistic certificate exceeds ε by its own rounding margin only.
        ok = eps <= privacy.epsilon * (1.0 + PRIVACY_RTOL)
        # Every ratio within reach is ≤ e^ε, so every hockey-stick term at ε is ≤ 0: δ = 0.
        return eps, (0.0 if ok else None), bool(ok)
    assert not isinstance(noise, GradedNoise)  # (ε, δ) designs are on uniform grids
    delta = hockey_delta(noise, privacy.epsilon, reach)
    return eps, delta, bool(delta <= privacy.delta)


def _monotone_raise(lp: AdditiveLP, full: FloatArray) -> FloatArray:
    """The least raise of ``full`` non-increasing in ``|x|``, across the tails too.

    Each cell is raised to the largest cell outwards of it (a running maximum from each end);
    the outermost cells to the tail ratio times the first cells of their period (the virtual
    cell beyond them). Raising a cell to an outer neighbour's value keeps every window ratio
    within the bound the neighbour already met.
    """
    out = full.copy()
    ratio, p = lp.tail_ratio, lp.grid.period
    index = lp.grid.index
    right = index >= 0
    left = index <= (0 if lp.grid.integer else -1)
    out[-1] = max(out[-1], ratio * out[-p])
    out[0] = max(out[0], ratio * out[p - 1])
    out[right] = np.maximum.accumulate(out[right][::-1])[::-1]
    out[left] = np.maximum.accumulate(out[left])
    return out


def slack(epsilon: float, values: FloatArray) -> float:
    """How far inside ε the window of a returned ε-DP design is: ``2^-36·max(1, ε, max|log v|)``.

    Rounding in the log-domain raise and in ``fl(e^ε)`` is a few ulps of the largest
    ``|log v|``; this is far above it, so every window row of the LP holds at the returned
    point in exact arithmetic, and far below any accuracy asked for (it moves the cost by about
    ``slack`` relative, ≤ 1e-8 for |log v| ≤ 700).
    """
    positive = values[values > 0]
    spread = float(np.max(np.abs(np.log(positive)))) if positive.size else 0.0
    return 2.0**-36 * max(1.0, epsilon, spread)


def _envelope(lp: AdditiveLP, full: FloatArray) -> tuple[type, dict[str, Any], bool]:
    """Raise the grid values to window ratios ``e^(ε − slack)`` (:func:`slack`), tails at the
    LP's ratio — and, in the monotone class, non-increasing in ``|x|``; the family and keywords
    of the result, and whether anything was raised."""
    eps, m = lp.privacy.epsilon, lp.grid.period
    bound = eps - slack(eps, full)
    tail_log = min(-math.log(lp.tail_ratio), bound)
    raised = full
    for _ in range(64):  # each round only raises; the monotone class needs a few
        raised = envelope_raise(raised, reach=m, period=m, bound=bound, tail_log_ratio=tail_log)
        if not lp.monotone:
            break
        again = _monotone_raise(lp, raised)
        if np.array_equal(again, raised):
            break
        raised = again
    family, kwargs = lp.noise_parts(raised, 0.0)
    return family, kwargs, not np.array_equal(raised, full)


def _kwargs_of(noise: GridNoise) -> tuple[type, dict[str, Any]]:
    """The family and constructor keywords of a uniform-grid or lattice noise."""
    common = {
        "left_tail": noise.left_tail,
        "right_tail": noise.right_tail,
        "privacy": noise.privacy,
    }
    if isinstance(noise, LatticeNoise):
        return LatticeNoise, {
            **common,
            "start": int(noise.start),
            "pmf": noise.probabilities,
            "period": noise.period,
            "sensitivity": int(noise.sensitivity),
        }
    assert not isinstance(noise, GradedNoise)  # (ε, δ) designs are on uniform grids
    return type(noise), {
        **common,
        "start": noise.start,
        "width": noise.width,
        "densities": noise.densities,
        "period": noise.period,
        "atom": noise.atom,
        "sensitivity": noise.sensitivity,
    }


# -- the certified interval -----------------------------------------------------------------------
def _grid_point(lp: AdditiveLP, kwargs: dict[str, Any]) -> tuple[FloatArray, float, float]:
    """The LP's value and atom variables of a noise (``x = Δ·f``, or ``Δ·pmf`` on ℤ), and the
    mass it puts beyond the grid where the LP allows none ((ε, δ): a finite support)."""
    if "pmf" in kwargs:
        full, atom = np.asarray(kwargs["pmf"]) * lp.grid.period, 0.0
        scale = 1.0
    else:
        full = np.asarray(kwargs["densities"]) * lp.grid.sensitivity
        atom = float(kwargs.get("atom", 0.0))
        scale = lp.grid.width if lp.grid.kind == GridKind.UNIFORM else 1.0
    outside = 0.0
    if lp.tail_ratio == 0.0:
        for base, ratio in (kwargs["left_tail"], kwargs["right_tail"]):
            outside += float(np.sum(base)) * scale / (1.0 - ratio)
    return lp.variables_of(full, atom), atom, outside


def _value(lp: AdditiveLP, z: FloatArray) -> float:
    """``c·z / a·z`` in cost units, rounded up: the LP objective at the normalised point."""
    k = z.size
    num = upper_dot(lp.weights[:k], z)
    products = lp.mass[:k] * z
    den = math.fsum(products.tolist())
    err = float(np.sum(np.abs(products))) * 2.0 * _U + abs(den) * _U
    ratio = num / (den - err) if num >= 0 else num / (den + err)
    return ratio + abs(ratio) * 2.0 * _U


def _bound(lp: AdditiveLP, y: FloatArray, value: float, boxed: npt.NDArray[np.bool_]) -> float:
    """The Lagrangian bound with the values and atom in one simplex block, except ``boxed``.

    Boxed value variables lie in ``[0, u_j]`` (:meth:`AdditiveLP.value_upper`); they hold at
    most ``M = Σ a_j u_j`` of the mass, so the block's total lies in ``[1 − M, 1]`` — and the
    bound, linear in that total, is the smaller of its values at the two ends.
    """
    n = lp.num_variables
    k = n - lp.num_aux
    a_ub, b_ub = lp.rows.stacked(n)
    in_block = np.zeros(n, dtype=bool)
    in_block[:k] = ~boxed
    block = np.where(in_block, 0, -1).astype(np.int64)
    weight = np.where(in_block, lp.mass, 1.0)
    v_upper = lp.value_upper(value)
    upper = np.concatenate([np.where(boxed, v_upper, 0.0), lp.aux_upper(value)])
    totals = [1.0]
    if np.any(boxed):
        held = upper_dot(lp.mass[:k][boxed], v_upper[boxed])
        if not held < 1.0:
            return -math.inf
        totals.append((1.0 - held) * (1.0 - 2.0 * _U))
    return min(
        lagrangian_bound(
            lp.weights,
            a_ub=a_ub,
            b_ub=b_ub,
            y_ub=y,
            blocks=SimplexBlocks(block, weight, np.array([total])),
            lower=np.zeros(n),
            upper=upper,
            coefficient_rtol=COEFFICIENT_RTOL,
        )
        for total in totals
    )


def _push_aux_deficits(lp: AdditiveLP, y: FloatArray) -> FloatArray:
    """Multipliers with the auxiliaries' negative reduced costs moved into value variables.

    In the bound an auxiliary with reduced cost ``r_a < 0`` costs ``r_a·ū_a`` — summed over all
    of them — whereas a value variable's costs only through the block's *minimum* of
    ``r_j/a_j``. Raising the multiplier of a row where the auxiliary has a positive coefficient
    (its defining row, e.g. ``P_k − x_k ≤ 0``; preferably one whose other entries are value
    variables) by ``−r_a/c`` sets ``r_a`` to 0 and lowers ``r_j`` of that value variable by as
    much; chains (a minimum of minima) are followed level by level. Any multipliers ``≥ 0``
    give a valid bound, so this only changes how tight it is.
    """
    n, k = lp.num_variables, lp.num_variables - lp.num_aux
    a_ub = lp.rows.stacked(n)[0].tocsr()
    coo = a_ub[:, k:].tocoo()
    neg_aux = np.bincount(coo.row[coo.data < 0], minlength=a_ub.shape[0])
    pos = coo.data > 0
    rows, cols, coef = coo.row[pos], coo.col[pos], coo.data[pos]
    order = np.lexsort((neg_aux[rows], cols))  # per column: rows without a chain first
    cols_sorted = cols[order]
    first = np.unique(cols_sorted, return_index=True)[1]
    has = np.zeros(lp.num_aux, dtype=bool)
    has[cols_sorted[first]] = True
    def_row = np.zeros(lp.num_aux, dtype=np.int64)
    def_coef = np.ones(lp.num_aux)
    def_row[cols_sorted[first]] = rows[order][first]
    def_coef[cols_sorted[first]] = coef[order][first]
    out = np.clip(y, 0.0, None)
    for _ in range(32):  # chains are at most log2(2m + 1) levels deep
        r = lp.weights + a_ub.T @ out
        short = has & (r[k:] < 0)
        if not np.any(short):
            break
        step = np.zeros(out.size)
        np.add.at(step, def_row[short], -r[k:][short] / def_coef[short])
        out = out + step
    return out


def _lower_bound(lp: AdditiveLP, value: float, accuracy: float) -> float:
    """Weak-duality bound on the LP's optimum from the solver's multipliers (module text).

    ``value`` (at least the optimum) tightens the auxiliaries' boxes. When the plain bound is
    further than ``accuracy`` below ``value``, the auxiliaries' deficits are moved into value
    variables (:func:`_push_aux_deficits`); when the culprits are a few value variables whose
    reduced costs the solver left slightly infeasible (cells of tiny mass, whose dual
    feasibility it sees only to its absolute tolerance), those are moved into boxes
    (:func:`_bound`); the best bound found is returned.
    """
    trivial = 0.0 if np.all(lp.weights >= 0) else -math.inf  # a cost ≥ 0 costs ≥ 0
    duals = lp.duals()
    if duals is None:
        return trivial
    names = [b.name for b in lp.rows if b.rows]
    y = np.concatenate([duals[name] for name in names]) if names else np.zeros(0)
    k = lp.num_variables - lp.num_aux
    none = np.zeros(k, dtype=bool)
    best = max(_bound(lp, y, value, none), trivial)
    if best >= value - accuracy * abs(value) or not math.isfinite(value):
        return best
    if lp.num_aux:
        y = _push_aux_deficits(lp, y)
        best = max(best, _bound(lp, y, value, none))
        if best >= value - accuracy * abs(value):
            return best
    a_ub = lp.rows.stacked(lp.num_variables)[0]
    reduced = (lp.weights + a_ub.T @ np.clip(y, 0.0, None))[:k] / lp.mass[:k]
    for cut in (1e-9, 1e-7, 1e-5, 1e-3):
        boxed = reduced < value * (1.0 - cut)
        if np.any(boxed) and boxed.sum() <= max(k // 4, 1):
            best = max(best, _bound(lp, y, value, boxed))
    return best


def lp_value(lp: Any, z: npt.ArrayLike) -> float:
    """``c·z / a·z`` in cost units, rounded up, for the value (and atom) variables ``z`` of an
    LP with ``weights`` and ``mass`` (the auxiliaries are ignored)."""
    k = lp.num_variables - lp.num_aux
    return _value(lp, np.asarray(z, dtype=np.float64)[:k])


def lp_interval(
    lp: AdditiveLP, z: npt.ArrayLike, *, accuracy: float = DEFAULT_ACCURACY
) -> tuple[float, float]:
    """``(lower_bound, value)`` for a point ``z`` of ``lp`` (values and atom; the auxiliaries
    are implied) and the multipliers the solver left in ``lp.constraints`` (module docstring).

    The LP's optimum lies in the interval whenever ``z`` is feasible (after normalisation).
    """
    za = np.asarray(z, dtype=np.float64)[: lp.num_variables - lp.num_aux]
    value = _value(lp, za)
    return _lower_bound(lp, value, accuracy), value


# -- finishing a solve --------------------------------------------------------------------------
def _reference_point(lp: AdditiveLP) -> tuple[type, dict[str, Any], float, FloatArray] | None:
    """The reference staircase of a graded grid as a certified noise: (family, keywords,
    value, LP point), or None. It is an exactly feasible point of the LP (its step ratio and
    tails are ``e^(ε − 2·slack)``), so it may stand in for a solver point that costs more."""
    if lp.profile is None:
        return None
    full = np.asarray(lp.expand @ lp.profile, dtype=np.float64)
    family, kwargs = lp.noise_parts(full, 0.0)
    if not _certify(family(**kwargs), lp)[2]:
        return None
    point = _grid_point(lp, kwargs)[0]
    return family, kwargs, _value(lp, point), point


def _repaired(lp: AdditiveLP, raw: GridNoise, full: FloatArray) -> tuple[type, dict, Repair]:
    privacy = lp.privacy
    if isinstance(privacy, PureDP):
        family, kwargs, changed = _envelope(lp, full)
        return family, kwargs, Repair(RepairKind.ENVELOPE if changed else RepairKind.NONE)
    assert not isinstance(raw, GradedNoise)
    noise, lam = mixture_repair(raw, privacy.epsilon, privacy.delta, reach=lp.grid.period)
    family, kwargs = _kwargs_of(noise)
    return family, kwargs, Repair(RepairKind.MIXTURE, weight=lam)


def _provenance(
    lp: AdditiveLP,
    info: SolveInfo,
    interval: tuple[float, float],
    accuracy: float,
    violations: tuple[float, float],
    fix: Repair,
) -> Provenance:
    """The solve's record: attempts, timings, violations, the repair and the interval."""
    lower, value = interval
    return Provenance(
        solver=info.solver,
        status=info.status,
        attempts=info.attempts,
        value=value,
        lower_bound=lower,
        accuracy=accuracy,
        violation_before=violations[0],
        violation_after=violations[1],
        repair=fix,
        build_time=lp.build_time,
        compile_time=info.compile_time,
        solve_time=info.solve_time,
        total_time=sum(a.seconds for a in info.attempts) or info.total_time,
        iterations=info.iterations,
        num_variables=info.num_variables,
        num_constraints=info.num_constraints,
        options=info.options,
    )


def finish_design(
    lp: AdditiveLP,
    info: SolveInfo,
    *,
    repair: bool = True,
    accuracy: float = DEFAULT_ACCURACY,
    stacklevel: int = 2,
) -> DesignedNoise:
    """Read, certify, repair if needed, bound and wrap the solution of a solved LP.

    Parameters
    ----------
    lp : AdditiveLP
        The LP whose ``problem`` was solved (its variable and constraints hold the solution).
    info : SolveInfo
        The solve's provenance (:func:`optmech.lp.solve.solve` or ``solve_robust``).
    repair, accuracy
        As in :func:`design_noise`.
    stacklevel : int
        Of the warnings issued.
    """
    z = lp.point()
    full, atom = lp.full_values(z)
    family, kwargs = lp.noise_parts(full, atom)
    raw = family(**kwargs)
    raw_eps, raw_delta, ok = _certify(raw, lp)
    raw_value = _value(lp, _grid_point(lp, kwargs)[0])
    fix = Repair()
    if lp.spec.pure and repair:  # always: the window strictly inside ε, so exactly feasible
        family, kwargs, fix = _repaired(lp, raw, full)
    elif not ok:
        if not repair:
            what = (
                f"ε = {raw_eps:.12g}"
                if lp.spec.pure
                else f"δ = {raw_delta:.6g} at ε = {lp.privacy.epsilon:g}"
            )
            raise PrivacyViolationError(
                f"the solver's point is not {lp.privacy}: certified {what}; pass repair=True, "
                "tighten the solver tolerances or try another solver."
            )
        family, kwargs, fix = _repaired(lp, raw, full)
    cert_eps, cert_delta, ok = _certify(family(**kwargs), lp)
    if not ok or cert_delta is None:
        raise PrivacyViolationError(
            f"the designed noise is not {lp.privacy} even after repair ({fix.kind}): certified "
            f"ε = {cert_eps:.12g}, δ = {cert_delta}."
        )
    point, _, outside = _grid_point(lp, kwargs)
    source = "solver"
    reference = _reference_point(lp)
    if reference is not None and reference[2] < _value(lp, point):
        family, kwargs, _, point = reference
        cert_eps, cert_delta, _ = _certify(family(**kwargs), lp)
        source = "reference"
    lower, value = lp_interval(lp, point, accuracy=accuracy)
    if outside > 0 and source == "solver":  # a mixture that left the support (continuous bound)
        value = family(**kwargs).expected_cost(lp.cost) * (1.0 + 1e-12)
    cost = value - raw_value if fix.kind != RepairKind.NONE else 0.0
    prov = _provenance(
        lp,
        info,
        (lower, value),
        accuracy,
        (lp.violation(z), outside),
        Repair(fix.kind, fix.weight, cost),
    )
    record = DesignRecord(
        spec=lp.spec,
        provenance=prov,
        certified_epsilon=cert_eps,
        certified_delta=float(cert_delta),
        raw_certified_epsilon=raw_eps,
        raw_certified_delta=None if lp.spec.pure else raw_delta,
        cells_per_period=lp.grid.period,
        window=lp.window,
        lp_objective=float(info.objective) * lp.objective_factor,
        source=source,
    )
    noise = designed_class(family)(record=record, **kwargs)
    _warn_wide(prov, lp, raw_eps, raw_delta, stacklevel + 1)
    # The grid's own optimum is what a coarse grid costs: the value when the interval is
    # narrow, else only what the lower bound proves.
    _warn_coarse(lp, value if prov.certified else lower, stacklevel + 1)
    return noise


def _warn_wide(
    prov: Provenance, lp: AdditiveLP, raw_eps: float, raw_delta: float | None, stacklevel: int
) -> None:
    """One :class:`InaccurateSolutionWarning` when the certified interval is too wide."""
    if prov.certified:
        return
    rep = prov.repair
    was = f"ε = {raw_eps:.6g}" if lp.spec.pure else f"δ = {raw_delta:.6g}"
    cause = (
        f"the solver's point was not {lp.privacy} (certified {was}); repaired by {rep.kind} at "
        f"a cost of {rep.cost:.3g} ({rep.cost / max(abs(prov.value), 1e-300):.2%} of the "
        "value), so "
        if rep.kind != RepairKind.NONE
        else ""
    )
    warnings.warn(
        f"{cause}the certified interval [{prov.lower_bound:.10g}, {prov.value:.10g}] of the "
        f"LP's optimum is wider than the requested accuracy {prov.accuracy:g} (relative gap "
        f"{prov.relative_gap:.3g}; solver {prov.solver}, status {prov.status}). Try another "
        "solver or tighter tolerances for a better optimum, or raise `accuracy`.",
        InaccurateSolutionWarning,
        stacklevel=stacklevel,
    )


def _warn_coarse(lp: AdditiveLP, optimum: float, stacklevel: int) -> None:
    """A :class:`CoarseGridWarning` when the staircase theorem's V* shows the grid too coarse:
    ``optimum`` (the LP's optimum, or a lower bound of it) above :data:`STAIRCASE_WARN_RATIO`
    times V*."""
    spec = lp.spec
    coarse = lp.grid.kind == GridKind.GRADED or (
        lp.grid.kind == GridKind.UNIFORM and lp.grid.period < _top_step_cells(spec.privacy.epsilon)
    )
    if not (spec.pure and coarse and spec.cost.is_symmetric_nondecreasing):
        return
    from optmech.mechanisms.staircase import Staircase

    try:
        best = Staircase.optimal(
            epsilon=spec.privacy.epsilon, sensitivity=spec.sensitivity, cost=spec.cost
        )
        v_star = best.expected_cost(spec.cost)
    except ValueError:  # outside the closed form's range: nothing to compare with
        return
    if optimum > STAIRCASE_WARN_RATIO * v_star:
        warnings.warn(
            f"the design costs {optimum / v_star:.4g}x the staircase optimum V* = {v_star:.6g} "
            f"(Geng & Viswanath 2016, Thm. 4): its grid ({lp.grid.kind}, {lp.grid.period} cells "
            f"per Δ) cannot resolve the optimum's top step γ*Δ = {best.gamma:.3g}Δ. Leave "
            "`resolution` unset (a graded grid) or raise it.",
            CoarseGridWarning,
            stacklevel=stacklevel,
        )
