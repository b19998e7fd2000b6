"""Design certified additive noise: solve, read, certify, repair, bound, record.

[`design_noise`][design_noise] validates an [`AdditiveSpec`][optmech.lp.additive.spec.AdditiveSpec],
builds its LP once ([`build_additive_lp`][optmech.lp.additive.lp.build_additive_lp]) and solves it
through optmech's one solver path ([`optmech.lp.solve.solve_robust`][optmech.lp.solve.solve_robust]:
as built, rescaled, then the other solver). An ε-DP LP is feasible by construction — a grid Laplace
density satisfies every row — so an "infeasible" or failed status there is numerical trouble and is
retried; for (ε, δ) an infeasible LP is genuine (the support is too short) and is reported as such
at once.

[`finish_design`][finish_design] then reads the noise off the solver's point (clipped at 0, tails
attached, renormalised), certifies its privacy from the numbers alone
([`optmech.certify.noise`][optmech.certify.noise], on densities with the exact cell reach ``m``),
repairs it when it falls short (`optmech.lp.additive.repair`: raising cells to a hair *inside* ε, or
mixing for δ) and certifies again, so the returned point is exactly feasible for the LP. It returns
the noise with a certified interval ``[lower_bound, value]`` containing the LP's optimum:

* ``value`` — the exact expected cost of the returned noise (the LP objective at its point,
  divided by its normalisation), rounded up
  ([`optmech.lp.bounds.upper_dot`][optmech.lp.bounds.upper_dot]);
* ``lower_bound`` — weak duality with the solver's multipliers, read by name from the LP's row
  record ([`optmech.lp.bounds.lagrangian_bound`][optmech.lp.bounds.lagrangian_bound]): the
  normalisation row's variables form one simplex block (``a_j`` = mass per unit, total 1); each
  auxiliary (window minimum or hockey-stick term) a box ``[0, ū]`` with ``ū = max_j 1/a_j`` — valid
  because at an optimum the auxiliaries can take their canonical values (block minima, ``max(0, x_j
  − e^ε x_{j+s})``), which never exceed the largest value variable, itself at most ``1/a_j``;
  ``coefficient_rtol`` covers the rounded ``e^ε``, and the objective's scale is undone by scaling
  the multipliers.

It warns ([`InaccurateSolutionWarning`][optmech.exceptions.InaccurateSolutionWarning]) only when
that interval is wider than ``accuracy``; and, for pure ε-DP with a cost the staircase theorem
covers (symmetric, non-decreasing in ``|x|``; Geng & Viswanath 2016, Thm. 3), with a
[`CoarseGridWarning`][CoarseGridWarning] when the grid leaves the design more than
`STAIRCASE_WARN_RATIO` above the staircase optimum V*.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech._validation import check_flag, check_int, check_real
from optmech.certify.noise import noise_epsilon
from optmech.exceptions import InaccurateSolutionWarning, PrivacyViolationError, SolverError
from optmech.lp.additive.designed import DesignedNoise, DesignRecord, designed_class
from optmech.lp.additive.grid import GridKind
from optmech.lp.additive.interval import interval_value, lp_interval
from optmech.lp.additive.lp import AdditiveLP, GridNoise, build_additive_lp
from optmech.lp.additive.repair import envelope_raise, hockey_delta, mixture_repair
from optmech.lp.additive.solving import DesignRun, cross_check, relatively_wide, solve_additive
from optmech.lp.additive.spec import AdditiveSpec, _top_step_cells, default_periods
from optmech.lp.solve import SolveInfo, provenance_of
from optmech.mechanisms.piecewise import LatticeNoise
from optmech.privacy import PureDP
from optmech.provenance import DEFAULT_ACCURACY, Provenance, Repair, RepairKind

if TYPE_CHECKING:
    from optmech.lp.additive2d.designed import DesignedNoise2D

__all__ = [
    "PRIVACY_ATOL",
    "PRIVACY_RTOL",
    "STAIRCASE_WARN_RATIO",
    "CoarseGridWarning",
    "design_noise",
    "design_provenance",
    "finish_design",
    "warn_about",
    "within_privacy",
]


#: A designed ε-DP noise is certified to ε(1 + PRIVACY_RTOL) + PRIVACY_ATOL: its window is
#: strictly inside ε by construction, its tails exactly at ε, and the certificate is
#: pessimistic by a few ulps. (ε, δ) designs are certified to δ itself.
PRIVACY_RTOL = 1e-9
#: The absolute part: the largest margin `optmech.certify.noise` adds to a ratio of normal
#: masses (ten ulps of the largest ``|log p| ≤ 745``, twenty unit roundoffs), plus one ulp of
#: rounding up, so a ratio at exactly e^ε is certified within it. It matters only at tiny ε
#: (below 1e-3 the relative part alone is smaller than this rounding).
PRIVACY_ATOL = 10.0 * math.ulp(745.0) + 21.0 * _U


def within_privacy(certified: float, epsilon: float) -> bool:
    """Whether a certified ε meets a requested ε up to the certificate's own rounding
    (`PRIVACY_RTOL`, `PRIVACY_ATOL`)."""
    return certified <= epsilon * (1.0 + PRIVACY_RTOL) + PRIVACY_ATOL


#: Warn when a pure ε-DP design costs more than this times the staircase optimum V*.
#: The default grids stay within 1.02 (tests/test_lp_additive_large_eps.py); user-given coarse
#: grids of the experiments and the theorem catalogue reach 1.024 (ε = 10, m = 120).
STAIRCASE_WARN_RATIO = 1.05


class CoarseGridWarning(UserWarning):
    """A design's grid is too coarse to resolve the optimum the staircase theorem predicts."""


def _validated_spec(
    privacy: Any, sensitivity: float, cost: Any, dimension: int, options: dict[str, Any]
) -> Any:
    """The [`AdditiveSpec`][optmech.lp.additive.spec.AdditiveSpec] (or, in 2-D,
    [`AdditiveSpec2D`][optmech.lp.additive2d.spec.AdditiveSpec2D]) of a ``design_noise`` call;
    an option the spec does not have is refused by name, with the valid ones."""
    spec_class: Any = AdditiveSpec
    where = ""
    if dimension == 2:
        from optmech.lp.additive2d.spec import AdditiveSpec2D

        spec_class, where = AdditiveSpec2D, " for dimension=2"
    valid = spec_class.options()
    bad = sorted(set(options) - set(valid))
    if bad:
        raise TypeError(
            f"design_noise() got unexpected keyword argument(s) {', '.join(map(repr, bad))}"
            f"{where}; the options of {spec_class.__name__} are {', '.join(valid)} (besides "
            "privacy, sensitivity, cost, solver, repair, accuracy, solver_options, verbose and "
            "dimension)."
        )
    if dimension == 2 and options.get("sensitivity_norm") is None:
        raise TypeError(
            "design_noise() with dimension=2 needs `sensitivity_norm` ('l1', 'l2' or 'linf'): "
            "the norm in which the sensitivity Δ is measured."
        )
    return spec_class(privacy, sensitivity, cost, **options)


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
    privacy : PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile
        The guarantee ([`AdditiveSpec`][optmech.lp.additive.spec.AdditiveSpec]); the last four are
        designed by cutting planes and cones
        ([`optmech.lp.additive.beyond`][optmech.lp.additive.beyond]) and their certificates
        (``certified_rho``, ``certified_mu``, ``certified_profile``,
        ``certified_renyi``) cover every order / ε.
    sensitivity : float
        Δ, in (0, inf).
    cost : Cost, str or callable
        Any cost of the error.
    solver : str, optional
        cvxpy solver name; default by problem size (`optmech.lp.solve.SOLVER_POLICY`),
        retried rescaled and with the other solver on failure.
    repair : bool
        Repair a solver point that is not exactly private (module docstring) and record what it
        cost; with ``repair=False`` raise [`PrivacyViolationError`][PrivacyViolationError] instead.
    accuracy : float
        Width of the certified interval ``[lower_bound, value]`` (relative to the value, or
        absolute below 1) above which a warning is issued; in [0, inf).
    solver_options : dict, optional
        Options passed to the solver (override optmech's defaults).
    verbose : bool
        Show the solver log.
    dimension : {1, 2}
        ``2`` designs noise in ℝ² for shifts in a norm ball
        ([`optmech.lp.additive2d.design.design_noise_2d`][optmech.lp.additive2d.design.design_noise_2d]),
        with a vector ``cost`` and the options of
        [`AdditiveSpec2D`][optmech.lp.additive2d.spec.AdditiveSpec2D]: ``sensitivity_norm``
        (required), ``resolution``, ``periods``, ``window``, ``tails``, ``reduce_symmetric``,
        ``gamma``, ``max_memory_gb``.
    **spec_options
        The modelling options of [`AdditiveSpec`][optmech.lp.additive.spec.AdditiveSpec]:
        ``resolution``, ``periods``, ``integer``, ``symmetric``, ``monotone``, ``grid``,
        ``window``, ``atom``, ``reduce_symmetric``, ``max_memory_gb``. Anything else raises
        `TypeError`.

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
    dimension = check_int("dimension", dimension, low=1, high=2, hint="1-D or 2-D noise")
    spec = _validated_spec(privacy, sensitivity, cost, dimension, spec_options)
    repair = check_flag("repair", repair)
    accuracy = check_real("accuracy", accuracy, low=0.0)
    run = DesignRun(solver, repair, accuracy, solver_options, verbose)
    if dimension == 2:
        from optmech.lp.additive2d.design import design_noise_2d

        return design_noise_2d(spec, run)
    if spec.beyond:
        from optmech.lp.additive.beyond import design_beyond

        return design_beyond(spec, run)
    lp = build_additive_lp(spec)
    try:
        solved, info = solve_additive(lp, run, fresh=True)
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
    noise = finish_design(solved, info, repair=repair, accuracy=accuracy, warn=False)
    if relatively_wide(noise):
        noise = cross_check(noise, lp, finish_design, run)
    warn_about(noise, lp, stacklevel=3)
    return noise


# -- certification ------------------------------------------------------------------------------
def _certify(noise: GridNoise, lp: AdditiveLP) -> tuple[float, float | None, bool]:
    """(pure ε, δ at the requested ε or None, whether ``lp.privacy`` holds exactly).

    The cell reach is the grid's ``m`` cells per Δ, exact: a shift by Δ moves a point at most
    ``m`` cells on a Δ-periodic grid ([`optmech.lp.additive.grid`][optmech.lp.additive.grid]).
    """
    # The noise's own description: masses on a uniform grid or ℤ, densities on a graded grid (on
    # unequal cells only densities have the ratios ε-DP constrains, optmech.mechanisms.graded).
    reach = lp.grid.period
    eps = noise_epsilon(noise.grid_description().with_reach(reach))
    privacy = lp.privacy
    if isinstance(privacy, PureDP):
        # The tails' pairs one period apart sit at exactly e^ε (their ratio is e^−ε rounded
        # up), so the pessimistic certificate exceeds ε by its own rounding margin only.
        ok = within_privacy(eps, privacy.epsilon)
        # Every ratio within reach is ≤ e^ε, so every hockey-stick term at ε is ≤ 0: δ = 0.
        return eps, (0.0 if ok else None), bool(ok)
    assert noise.grid_description().equal_cells  # (ε, δ) designs are on uniform grids
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
    """Raise the grid values to window ratios ``e^(ε − slack)`` ([`slack`][slack]), tails at the
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
    if noise.discrete:
        lattice = cast(LatticeNoise, noise)  # the tabulated family on ℤ
        return LatticeNoise, {
            **common,
            "start": int(lattice.start),
            "pmf": lattice.probabilities,
            "period": lattice.period,
            "sensitivity": int(lattice.sensitivity),
        }
    assert noise.grid_description().equal_cells  # (ε, δ) designs are on uniform grids
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
    return family, kwargs, interval_value(lp, point), point


def _repaired(lp: AdditiveLP, raw: GridNoise, full: FloatArray) -> tuple[type, dict, Repair]:
    privacy = lp.privacy
    if isinstance(privacy, PureDP):
        family, kwargs, changed = _envelope(lp, full)
        return family, kwargs, Repair(RepairKind.ENVELOPE if changed else RepairKind.NONE)
    assert raw.grid_description().equal_cells  # (ε, δ) designs are on uniform grids
    noise, lam = mixture_repair(raw, privacy.epsilon, privacy.delta, reach=lp.grid.period)
    family, kwargs = _kwargs_of(noise)
    return family, kwargs, Repair(RepairKind.MIXTURE, weight=lam)


def design_provenance(
    lp: AdditiveLP,
    info: SolveInfo,
    interval: tuple[float, float],
    accuracy: float,
    violations: tuple[float, float],
    fix: Repair,
) -> Provenance:
    """The solve's record: attempts, timings, violations, the repair and the interval."""
    lower, value = interval
    return provenance_of(
        info,
        value=value,
        lower_bound=lower,
        build_time=lp.build_time,
        accuracy=accuracy,
        violation_before=violations[0],
        violation_after=violations[1],
        repair=fix,
    )


def finish_design(
    lp: AdditiveLP,
    info: SolveInfo,
    *,
    repair: bool = True,
    accuracy: float = DEFAULT_ACCURACY,
    warn: bool = True,
    stacklevel: int = 2,
) -> DesignedNoise:
    """Read, certify, repair if needed, bound and wrap the solution of a solved LP.

    Parameters
    ----------
    lp : AdditiveLP
        The LP whose ``problem`` was solved (its variable and constraints hold the solution).
    info : SolveInfo
        The solve's provenance ([`optmech.lp.solve.solve`][optmech.lp.solve.solve] or
        ``solve_robust``).
    repair, accuracy
        As in [`design_noise`][design_noise].
    warn : bool
        Issue the warnings of [`warn_about`][warn_about] ([`design_noise`][design_noise] issues them
        itself, after its cross-check).
    stacklevel : int
        Of the warnings issued.
    """
    z = lp.point()
    full, atom = lp.full_values(z)
    family, kwargs = lp.noise_parts(full, atom)
    raw = family(**kwargs)
    raw_eps, raw_delta, ok = _certify(raw, lp)
    raw_value = interval_value(lp, _grid_point(lp, kwargs)[0])
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
    if reference is not None and reference[2] < interval_value(lp, point):
        family, kwargs, _, point = reference
        cert_eps, cert_delta, _ = _certify(family(**kwargs), lp)
        source = "reference"
    lower, value = lp_interval(lp, point, accuracy=accuracy)
    if outside > 0 and source == "solver":  # a mixture that left the support (continuous bound)
        value = family(**kwargs).expected_cost(lp.cost) * (1.0 + 1e-12)
    cost = value - raw_value if fix.kind != RepairKind.NONE else 0.0
    prov = design_provenance(
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
    if warn:
        warn_about(noise, lp, stacklevel=stacklevel + 1)
    return noise


def warn_about(noise: DesignedNoise, lp: AdditiveLP, *, stacklevel: int = 2) -> None:
    """The warnings a design deserves: a wide certified interval, a grid too coarse."""
    prov = noise.provenance
    _warn_wide(noise, lp, stacklevel + 1)
    # The grid's own optimum is what a coarse grid costs: the value when the interval is
    # narrow, else only what the lower bound proves.
    _warn_coarse(lp, prov.value if prov.certified else prov.lower_bound, stacklevel + 1)


def _warn_wide(noise: DesignedNoise, lp: AdditiveLP, stacklevel: int) -> None:
    """One [`InaccurateSolutionWarning`][InaccurateSolutionWarning] when the certified interval is
    too wide."""
    prov = noise.provenance
    if prov.certified:
        return
    rep = prov.repair
    record = noise.record
    was = (
        f"ε = {record.raw_certified_epsilon:.6g}"
        if lp.spec.pure
        else f"δ = {record.raw_certified_delta:.6g}"
    )
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
    """A [`CoarseGridWarning`][CoarseGridWarning] when the staircase theorem's V* shows the grid too
    coarse:
    ``optimum`` (the LP's optimum, or a lower bound of it) above `STAIRCASE_WARN_RATIO`
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
            f"(Geng & Viswanath 2016, Thm. 3): its grid ({lp.grid.kind}, {lp.grid.period} cells "
            f"per Δ) cannot resolve the optimum's top step γ*Δ = {best.gamma:.3g}Δ. Leave "
            "`resolution` unset (a graded grid) or raise it.",
            CoarseGridWarning,
            stacklevel=stacklevel,
        )
