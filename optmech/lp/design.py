"""`design_noise`: one entry point that chooses the designer for a guarantee and a dimension.

The dispatch lives above what it dispatches to: the designers import nothing from each other,
only the shared engine (`optmech.lp.engine`).

* ε-DP and (ε, δ) noise on ℝ or ℤ — the 1-D LP designer
  (`optmech.lp.additive.designer`);
* zCDP, Rényi DP, Gaussian DP and privacy profiles — cutting planes and cones on the same grid LP
  (`optmech.lp.additive.beyond`);
* ``dimension=2`` — noise in ℝ² for a ball of shifts
  (`optmech.lp.additive2d.design`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, Unpack, overload

from optmech._validation import check_flag, check_int, check_real
from optmech.constraints import Constraint, as_constraints
from optmech.lp.additive.approx import design_approx, solvable_privacy, weighs_pure
from optmech.lp.additive.designer import design_additive
from optmech.lp.additive.spec import AdditiveSpec
from optmech.lp.engine.report import reporting, stage
from optmech.lp.engine.run import DesignRun, renamed_flag
from optmech.privacy import Privacy
from optmech.provenance import DEFAULT_ACCURACY

if TYPE_CHECKING:
    from optmech.lp.additive.designed import (
        DesignedGradedNoise,
        DesignedLatticeNoise,
        DesignedNoise,
        DesignedPiecewiseNoise,
    )
    from optmech.lp.additive2d.designed import DesignedNoise2D
    from optmech.lp.additive2d.spec import AdditiveSpec2D

__all__ = ["DesignOptions", "DesignOptions1D", "DesignOptions2D", "design_noise"]

_log = logging.getLogger(__name__)
#: The guarantee asked for: the result is a design for it (``certified_rho`` is a float on a
#: design for ``ZCDP``, ``certified_mu`` on one for ``GaussianDP``).
_P = TypeVar("_P", bound=Privacy)

#: The keywords of `design_noise` itself (besides the spec's options).
_OWN = (
    "privacy, sensitivity, cost, solver, allow_repair, accuracy, solver_options, verbose, "
    "progress, dimension and constraints"
)


def _checked_constraints(
    items: tuple[Constraint, ...], spec: AdditiveSpec | AdditiveSpec2D
) -> tuple[Constraint, ...]:
    """The caller's constraints, refused by name where the designer has no rows for them:
    they are supported on 1-D ε-DP and (ε, δ) designs."""
    if items and (not isinstance(spec, AdditiveSpec) or spec.beyond):
        what = "dimension=2" if not isinstance(spec, AdditiveSpec) else str(spec.privacy)
        raise ValueError(
            "`constraints` are supported on 1-D designs for PureDP and ApproxDP only; got "
            f"{len(items)} constraint(s) with {what}."
        )
    return items


def _validated_spec(
    privacy: Any, sensitivity: float, cost: Any, dimension: int, options: dict[str, Any]
) -> AdditiveSpec | AdditiveSpec2D:
    """The `AdditiveSpec` (or, in 2-D,
    `AdditiveSpec2D`) of a ``design_noise`` call;
    an option the spec does not have is refused by name, with the valid ones."""
    spec_class: Any = AdditiveSpec
    if dimension == 2:
        from optmech.lp.additive2d.spec import AdditiveSpec2D as spec_class
    where = " for dimension=2" if dimension == 2 else ""
    valid = spec_class.options()
    bad = sorted(set(options) - set(valid))
    if bad:
        raise TypeError(
            f"design_noise() got unexpected keyword argument(s) {', '.join(map(repr, bad))}"
            f"{where}; the options of {spec_class.__name__} are {', '.join(valid)} (besides "
            f"{_OWN})."
        )
    if dimension == 2 and options.get("sensitivity_norm") is None:
        raise TypeError(
            "design_noise() with dimension=2 needs `sensitivity_norm` ('l1', 'l2' or 'linf'): "
            "the norm in which the sensitivity Δ is measured."
        )
    return spec_class(privacy, sensitivity, cost, **options)  # type: ignore[no-any-return]


class DesignOptions(TypedDict, total=False):
    """The keywords of `design_noise` besides the guarantee, sensitivity, cost
    and dimension, as type checkers see them (its docstring says what each means)."""

    solver: str | None
    allow_repair: bool
    accuracy: float
    solver_options: dict[str, Any] | None
    verbose: bool
    progress: bool
    repair: bool | None
    constraints: Any
    resolution: int | None
    periods: int | None
    window: str
    reduce_symmetric: bool
    max_memory_gb: float


class _Options1D(DesignOptions, total=False):
    """The options of a 1-D design but ``integer`` (which decides the type of the result)."""

    symmetric: bool
    monotone: bool
    grid: str
    atom: bool | None


class DesignOptions1D(_Options1D, total=False):
    """`DesignOptions` and the options of a 1-D design
    (`AdditiveSpec`)."""

    integer: bool


class DesignOptions2D(DesignOptions, total=False):
    """`DesignOptions` and the options of a design in ℝ²
    (`AdditiveSpec2D`)."""

    sensitivity_norm: str
    tails: str
    gamma: Any


@overload
def design_noise(
    privacy: _P,
    *,
    sensitivity: float,
    cost: Any,
    dimension: Literal[1] = ...,
    integer: Literal[True],
    **options: Unpack[_Options1D],
) -> DesignedLatticeNoise[_P]: ...
@overload
def design_noise(
    privacy: _P,
    *,
    sensitivity: float,
    cost: Any,
    dimension: Literal[1] = ...,
    integer: Literal[False] = ...,
    **options: Unpack[_Options1D],
) -> DesignedPiecewiseNoise[_P] | DesignedGradedNoise[_P]: ...
@overload
def design_noise(
    privacy: _P,
    *,
    sensitivity: float,
    cost: Any,
    dimension: Literal[1] = ...,
    integer: bool,
    **options: Unpack[_Options1D],
) -> DesignedNoise[_P]: ...
@overload
def design_noise(
    privacy: Privacy,
    *,
    sensitivity: float,
    cost: Any,
    dimension: Literal[2],
    **options: Unpack[DesignOptions2D],
) -> DesignedNoise2D: ...
@overload
def design_noise(
    privacy: _P, *, sensitivity: float, cost: Any, dimension: int, **options: Any
) -> DesignedNoise[_P] | DesignedNoise2D: ...
def design_noise(
    privacy: Any,
    *,
    sensitivity: float,
    cost: Any,
    solver: str | None = None,
    allow_repair: bool = True,
    accuracy: float = DEFAULT_ACCURACY,
    solver_options: dict[str, Any] | None = None,
    verbose: bool = False,
    progress: bool = False,
    dimension: int = 1,
    repair: bool | None = None,
    constraints: Any = None,
    **spec_options: Any,
) -> DesignedNoise | DesignedNoise2D:
    """Design optimal additive noise for ``privacy`` and ``cost`` by LP, certified.

    Parameters
    ----------
    privacy : PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile
        The guarantee (`AdditiveSpec`); the last four are designed by cutting planes and cones
        (`optmech.lp.additive.beyond`) and their certificates (``certified_rho``, ``certified_mu``,
        ``certified_profile``, ``certified_renyi``) cover every order / ε. An (ε, δ) request with ε,
        δ > 0 and no constraints also weighs the ε-DP design, which is (ε, δ)-DP for every δ, and
        returns it when it costs less (``record.source == "pure"``): always when δ is below what the
        LP resolves, otherwise when neither ``resolution`` nor ``periods`` names the grid
        (`optmech.lp.additive.approx`).
    sensitivity : float
        Δ, in (0, inf).
    cost : Cost, str or callable
        Any cost of the error.
    solver : str, optional
        cvxpy solver name; default by problem size (`optmech.lp.solve.SOLVER_POLICY`),
        retried rescaled and with the other solver on failure.
    allow_repair : bool, default True
        Repair a solver point that is not exactly private (`optmech.lp.additive.repair`) and record
        what it cost (``provenance.repair``); with ``allow_repair=False`` raise
        `PrivacyViolationError` instead.
    accuracy : float
        Width of the certified interval ``[lower_bound, value]`` (relative to the value, or
        absolute below 1) above which a warning is issued; in [0, inf).
    solver_options : dict, optional
        Options passed to the solver (override optmech's defaults).
    verbose : bool, default False
        Log the stages (build, solve, certify, repair; sizes and seconds) at INFO to stderr
        (`optmech.lp.engine.report`); the solver's own log is on the
        logger ``"optmech.lp.solve"`` at DEBUG.
    progress : bool, default False
        Show a progress bar (tqdm, on stderr) that advances with every stage, solver attempt,
        cutting-plane round and repair step.
    dimension : {1, 2}
        ``2`` designs noise in ℝ² for shifts in a norm ball
        (`optmech.lp.additive2d.design.design_noise_2d`), with a vector ``cost`` and the options of
        `AdditiveSpec2D`: ``sensitivity_norm`` (required), ``resolution``, ``periods``, ``window``,
        ``tails``, ``reduce_symmetric``, ``gamma``, ``max_memory_gb``.
    repair : bool, optional
        Deprecated spelling of ``allow_repair`` (a repair is a `Repair` record everywhere else).
    constraints : Constraint, callable or sequence of them, optional
        Conditions of the caller's own on the noise ``Z`` (`optmech.constraints`): ``Unbiased()``
        (``E Z = 0``), ``MaxRisk(b)`` ($E ℓ(Z) ≤ b$ for ``cost``), ``MaxCost(c, b)`` ($E c(Z) ≤ b$),
        ``TailBound(t, q)`` ($P(|Z| > t) ≤ q$), ``Monotone()`` (always true for additive noise; not
        the ``monotone`` class option) and ``Custom(f)`` (``f`` receives `NoiseVariables` and
        returns cvxpy constraints). 1-D ε-DP and (ε, δ) designs only
        (`optmech.lp.additive.constrained`); every declarative constraint holds for the noise as
        returned, to ``optmech.constraints.RESIDUAL_TOL`` (1e-9), and ``provenance.constraints``
        lists each with its residual.
    **spec_options
        The modelling options of `AdditiveSpec`:
        ``resolution``, ``periods``, ``integer``, ``symmetric``, ``monotone``, ``grid``,
        ``window``, ``atom``, ``reduce_symmetric``, ``max_memory_gb``. Anything else raises
        `TypeError`. Each is described under *Other Parameters*.

    Other Parameters
    ----------------
    resolution : int, optional
        Cells per Δ, $m ≥ 1$. On a uniform grid the default is $20(1 + e^{ε/2})$ for ε-DP
        (about 20 cells on the staircase's top step; Geng & Viswanath (2016), §V-B), capped at
        400; 20 for (ε, δ) and privacy profiles; 8 for zCDP, Rényi DP and Gaussian DP. On a
        graded grid it counts the cells of the coarse part (default 40). Integer noise has Δ
        points per Δ: give None or Δ. In 2-D: ``m`` cells per Δ, in [1, 64] (default 8).
    periods : int, optional
        Periods of Δ on each side of the origin, $K ≥ 1$, beyond which the tails continue
        geometrically. Default for ε-DP 3 on a uniform grid and 1 on a graded one; for (ε, δ) one
        more than the truncated Laplace's support (Geng, Ding, Guo & Kumar (2020)); for (0, δ)
        one more than $1/(2δ)$; for zCDP, Rényi DP and GDP about seven scales of the matching
        Gaussian (`default_periods`).
    integer : bool, default False
        Noise on ℤ for integer queries (then ``sensitivity`` is an integer ≥ 1): the result is a
        `DesignedLatticeNoise`.
    symmetric : bool, default False
        Restrict the search to noise symmetric about 0.
    monotone : bool, default False
        Restrict the search to noise non-increasing in ``|x|``.
    grid : {"auto", "uniform", "graded"}, default "auto"
        How a period is cut into cells (`optmech.lp.additive.grid`).
        "auto" grades it for ε-DP when no ``resolution`` is given and a uniform grid would need
        more than 400 cells per Δ to resolve the staircase's top step (large ε); (ε, δ) designs
        and those beyond take "uniform" only.
    window : {"auto", "pairs", "sparse-table", "blocks"}, default "auto"
        Form of the ε-DP window rows (`optmech.lp.additive.windows`); in 2-D ``{"auto",
        "runs", "pairs"}``. Every form gives the same LP optimum.
    atom : bool, optional
        Allow an atom at the origin (default: for (ε, δ) densities; never for ε-DP or on ℤ).
    reduce_symmetric : bool, default True
        For a symmetric cost, solve on half the variables (in 2-D: one cell per orbit of the
        cost's symmetry group); an optimum averaged with its mirror images is feasible and
        optimal, so nothing is lost. False solves the full LP.
    max_memory_gb : float, default 4.0
        Refuse, with `ProblemTooLargeError` naming
        the estimate, an LP whose estimated solver memory exceeds this many GB; in (0, inf).
    sensitivity_norm : {"l1", "l2", "linf"}
        ``dimension=2`` only, and required there: the norm of the ball of shifts.
    tails : {"gauge+product", "gauge"}, default "gauge+product"
        ``dimension=2`` only: the tail closure (`optmech.mechanisms.tails2d`).
    gamma : float or Fraction, optional
        ``dimension=2`` only: one step position of the gauge tail, in [0, 1); default a gauge
        tail at each of the ``m`` positions the grid resolves, mixed by the LP.

    Returns
    -------
    DesignedNoise or DesignedNoise2D
        Certified for ``privacy``; ``value`` (exact expected cost, rounded up), ``lower_bound``
        (the LP's optimum is in between), ``certified_epsilon``, ``certified_delta``, and the
        full record in ``record`` / ``provenance`` / ``to_dict()``.

    Raises
    ------
    SolverError
        Every attempt failed (each is named), or an (ε, δ) support is too short.
    PrivacyViolationError
        The solver's point is not private and ``allow_repair=False`` (or the repair failed,
        or no repair kept every constraint).
    InfeasibleConstraintsError
        No noise of the guarantee on the grid meets ``constraints`` (the error names them).
    ValueError
        ``constraints`` with ``dimension=2`` or a guarantee beyond (ε, δ).

    Examples
    --------
    >>> import numpy as np
    >>> import optmech
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs",
    ...                              resolution=8, periods=2, symmetric=True)
    >>> v_star = float(np.exp(0.5) / (np.e - 1))  # staircase optimum, Geng & Viswanath (2016)
    >>> bool(noise.lower_bound <= noise.value and v_star <= noise.value <= 1.001 * v_star)
    True
    >>> noise.certified_epsilon <= 1.0 + 1e-9
    True

    Integer queries (``integer=True``): the optimum on ℤ is the discrete staircase's
    (Geng & Viswanath (2016), §VI), which the certified interval contains.

    >>> lattice = optmech.design_noise(optmech.PureDP(1.0), sensitivity=2, cost="abs",
    ...                                integer=True)
    >>> type(lattice).__name__
    'DesignedLatticeNoise'
    >>> best = optmech.DiscreteStaircase.optimal(epsilon=1.0, sensitivity=2, cost="abs")
    >>> ref = best.expected_cost("abs")
    >>> bool(lattice.lower_bound <= ref * (1 + 1e-9) and ref <= lattice.value * (1 + 1e-9))
    True

    A large ε grades the grid (``grid="auto"``); (ε, δ) takes the same call:

    >>> optmech.design_noise(optmech.PureDP(15.0), sensitivity=1.0, cost="abs").record.spec.grid
    <GridKind.GRADED: 'graded'>
    >>> approx = optmech.design_noise(optmech.ApproxDP(1.0, 1e-3), sensitivity=1.0, cost="abs",
    ...                               resolution=6, periods=8)
    >>> approx.certified_delta <= 1e-3
    True

    An LP too large for ``max_memory_gb`` is refused before it is built, with its estimate:

    >>> optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs",
    ...                      resolution=4000, periods=50, max_memory_gb=0.01)
    Traceback (most recent call last):
    ...
    optmech.exceptions.ProblemTooLargeError: the LP ... would need about 3.3 GB ...

    Over-estimates that cost three times as much as under-estimates pull the optimum's mean
    below 0; ``Unbiased()`` asks for zero mean (Badanidiyuru et al. (2023)):

    >>> from optmech.constraints import Unbiased
    >>> skewed = optmech.costs.Asymmetric(over=3, under=1)
    >>> fair = optmech.design_noise(optmech.PureDP(2.0), sensitivity=1.0, cost=skewed,
    ...                             resolution=4, periods=10, constraints=Unbiased())
    >>> abs(fair.mean()) < 1e-12, fair.provenance.constraints[0].residual <= 1e-9
    (True, True)
    """
    dimension = check_int("dimension", dimension, low=1, high=2, hint="1-D or 2-D noise")
    items = as_constraints(constraints)
    weigh = dimension == 1 and weighs_pure(privacy, spec_options, constrained=bool(items))
    solved = solvable_privacy(privacy) if weigh else privacy
    spec = _validated_spec(solved, sensitivity, cost, dimension, spec_options)
    declared = _checked_constraints(items, spec)
    allow_repair = renamed_flag(allow_repair, repair, new_name="allow_repair", old_name="repair")
    run = DesignRun(
        solver,
        allow_repair,
        check_real("accuracy", accuracy, low=0.0),
        solver_options,
        bool(verbose),
        check_flag("progress", progress),
    )
    with reporting(verbose=run.verbose, progress=run.progress, what="design_noise"):
        with stage(
            "design_noise",
            _log,
            privacy=str(privacy if weigh else spec.privacy),
            dimension=dimension,
        ) as found:
            # The 2-D, beyond-(ε, δ) and constrained designers are imported when asked for, so
            # that a plain 1-D design loads none of them.
            noise: DesignedNoise | DesignedNoise2D
            if not isinstance(spec, AdditiveSpec):
                from optmech.lp.additive2d.design import design_noise_2d

                noise = design_noise_2d(spec, run)
            elif spec.beyond:
                from optmech.lp.additive.beyond import design_beyond

                noise = design_beyond(spec, run)
            elif declared:
                from optmech.lp.additive.constrained import design_constrained

                noise = design_constrained(spec, run, declared)
            elif weigh:

                def respec(other: Any) -> AdditiveSpec:
                    return _validated_spec(other, sensitivity, cost, 1, spec_options)  # type: ignore[return-value]

                noise = design_approx(spec, run, privacy, respec)
            else:
                noise = design_additive(spec, run)
            found.update(value=noise.value, lower_bound=noise.lower_bound)
    return noise
