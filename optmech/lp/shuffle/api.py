r"""The local randomizer of least loss whose n shuffled reports are central (ε, δ)-DP: the public
entry point `shuffle_mechanism` and its baselines."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._validation import check_flag, check_int, check_real, describe
from optmech.certify.shuffle import ShuffleGuarantee, shuffle_epsilon
from optmech.constraints import Constraint, as_constraints
from optmech.exceptions import (
    InfeasibleConstraintsError,
    ProblemTooLargeError,
    SolverError,
)
from optmech.lp.engine.report import reporting, stage
from optmech.lp.matrix.envelope_setting import (
    DEFAULT_LOCAL_MEMORY_GB,
    OBJECTIVES,
    LocalSetting,
    check_local_objective,
    resolve_local_setting,
    uniform_prior,
)
from optmech.lp.shuffle.baselines import (
    calibrated_baselines,
    default_outputs,
    embedded,
    upper_value,
)
from optmech.lp.shuffle.frontier import (
    Bracket,
    bound_of,
    largest_certified,
)
from optmech.lp.shuffle.result import (
    ShuffleBaseline,
    ShuffleMechanism,
)
from optmech.lp.shuffle.search import Line, Variation, search_line, search_variation
from optmech.lp.solve import available_solvers
from optmech.provenance import DEFAULT_ACCURACY, Provenance

__all__ = ["DEFAULT_THETAS", "MAX_BLANKET_ROWS", "OBJECTIVES", "shuffle_mechanism"]

_log = logging.getLogger(__name__)

#: The frontier's lines searched by default (`optmech.lp.shuffle.frontier`).
DEFAULT_THETAS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Most blanket rows (pairs of inputs x outputs) built.
MAX_BLANKET_ROWS = 2_000_000


def _check_thetas(thetas: Any) -> tuple[float, ...]:
    try:
        values = tuple(float(t) for t in thetas)
    except (TypeError, ValueError):
        raise TypeError(
            f"`thetas` must be a sequence of reals in [0, 1]; got {describe(thetas)}."
        ) from None
    if not 1 <= len(values) <= 21 or not all(0.0 <= t <= 1.0 for t in values):
        raise ValueError(
            f"`thetas` must hold 1 to 21 reals in [0, 1] (fractions of the blanket's room); "
            f"got {describe(thetas)}."
        )
    return tuple(sorted(set(values)))


def _check_variation_lines(lines: Any, num_inputs: int) -> tuple[float, ...]:
    """The ``b`` of the variation lines: default 1 (no row) and the number of inputs."""
    if lines is None:
        return tuple(sorted({1.0, float(num_inputs)}))
    try:
        values = tuple(float(b) for b in lines)
    except (TypeError, ValueError):
        raise TypeError(
            f"`variation_lines` must be a sequence of reals in [1, inf) or None; got "
            f"{describe(lines)}."
        ) from None
    if len(values) > 21 or not all(1.0 <= b < math.inf for b in values):
        raise ValueError(
            f"`variation_lines` must hold 0 to 21 reals in [1, inf) (outputs of the randomized "
            f"response whose total variation caps the line's); got {describe(lines)}."
        )
    return tuple(sorted(set(values)))


def _check_solver(solver: Any) -> None:
    """A solver name that is installed, or None; checked before the search begins."""
    if solver is None:
        return
    if not isinstance(solver, str):
        raise TypeError(f"`solver` must be a solver name (a str); got {describe(solver)}.")
    solvers = available_solvers()
    if solver.upper() not in solvers:
        raise ValueError(
            f"`solver` must be one of {solvers} (installed LP solvers); got {solver!r}."
        )


def _check_blanket_size(setting: LocalSetting) -> None:
    k, m = setting.num_inputs, setting.num_outputs
    rows = k * (k - 1) // 2 * m
    if rows > MAX_BLANKET_ROWS:
        raise ProblemTooLargeError(
            f"the blanket rows of {k} `inputs` x {m} `outputs` number {rows} (one per pair of "
            f"inputs and output), more than {MAX_BLANKET_ROWS}; refused before building anything. "
            "Use fewer outputs or bin the labels."
        )


def shuffle_mechanism(
    prior: npt.ArrayLike | Literal["uniform"] | None,
    cost: Any,
    epsilon: float,
    delta: float,
    *,
    n: int,
    inputs: npt.ArrayLike,
    outputs: npt.ArrayLike | None = None,
    constraints: Any = (),
    objective: Literal["bayesian", "minimax"] = "bayesian",
    thetas: Sequence[float] = DEFAULT_THETAS,
    variation_lines: Sequence[float] | None = None,
    tolerance: float = 1e-3,
    solver: str | None = None,
    normalize: bool = False,
    max_memory_gb: float = DEFAULT_LOCAL_MEMORY_GB,
    accuracy: float = DEFAULT_ACCURACY,
    progress: bool = False,
) -> ShuffleMechanism:
    r"""The local randomizer of least loss whose ``n`` shuffled reports are certified central
    (ε, δ)-DP.

    Each of ``n`` users applies the returned randomizer $Q$ to its input; a shuffler releases
    the histogram of the reports. The returned $Q$ is certified by
    `shuffle_epsilon` of its own matrix: ``result.guarantee.epsilon ≤ epsilon`` at
    ``delta`` (the certified number is reported, never the target).

    **Design.** The certificate's best bound for a matrix with more than two outputs is the
    clone reduction (Feldman, McMillan & Talwar 2021) with the matrix's own clone
    probability $p$, the blanket mass relative to a pair of inputs (Balle, Bell, Gascón &
    Nissim 2019): it depends on $Q$ through its local ε₀ and $p$ alone, and only loses
    privacy as ε₀ grows or $p$ shrinks. Both are linear in the local LP
    (`optmech.lp.matrix.envelope`): the envelope rows $t_y ≤ Q(y|x) ≤ e^{ε_0} t_y$ cap ε₀,
    and the blanket rows $Q(y|x^0) + Q(y|x^1) ≤ (2/p) t_y$ (every pair of inputs, every
    output) floor $p$.
    Every ε₀-LDP matrix has $p ≥ e^{−ε_0}$, and $p ≤ 2/(e^{ε_0}+1)$ once two rows reach the
    column's top; each θ of ``thetas`` is a line $p_θ(ε_0)$ that fraction of the way between
    (`optmech.lp.shuffle.frontier`).
    The certificate's ``"variation-ratio"`` bound (Wang et al., PVLDB 2024), much tighter on
    randomized-response-like matrices, reads ε₀, the largest total variation β between two
    rows and a split of the rows that is not linear in $Q$. β is capped by one linear row,
    $Σ_y t_y ≥ 1 − β$ (the envelope's mass; exact on randomized response and RR-on-Bins);
    each ``b`` of ``variation_lines`` is a line $β_b(ε_0)$, the total variation of randomized
    response on $b$ outputs ($b = 1$: no row, the envelope LP alone).

    **Search.** Along each line the bound increases with ε₀, so the largest ε₀ it certifies is
    found by bisection (to ``tolerance`` relative), on a witness matrix with exactly that
    (ε₀, $p_θ$), certified by `shuffle_epsilon`. The LP is solved there, and its
    matrix is certified by `shuffle_epsilon` in turn; a matrix that misses the target
    (rounding) is re-solved at a slightly smaller ε₀, and only certified matrices are kept.
    The calibrated baselines are candidates as well when their outputs lie on the grid and
    no constraints are given. The returned randomizer is the certified candidate of least
    value. Along a variation line no witness stands for the bound (it depends on more than
    (ε₀, β)): the bisection on ε₀ solves the LP at each point and judges it by the certificate
    of the LP's own matrix, keeping only certified points (from the largest ε₀ a baseline is
    certified at). The search is **sound** because nothing is accepted on the strength of the bound
    or the bisection: every candidate is certified from its own numbers.

    **What ``lower_bound`` means.** At the smallest ε₀ the bisection excluded on each line,
    the LP's rigorous (Lagrangian) lower bound; ``lower_bound`` is the least of them over the
    lines (and at most ``value``). Along a line the LP's feasible set grows with ε₀, so this
    bounds the loss of every randomizer that satisfies the rows of a searched line at an ε₀
    that line's bound certifies. It is a lower bound **over the searched family only**: a
    randomizer off these lines, or certified by a sharper analysis than the bound the search
    uses, may do better. (When such a candidate, a baseline certified exactly say, is
    returned below every line's bound, ``lower_bound`` is its value: the least over what was
    searched.) A variation line adds the LP's bound at the smallest ε₀ its bisection
    excluded: a bound over the line's LP-feasible matrices up to that ε₀ (the certificate
    need not grow with ε₀ along such a line, so not over every matrix it certifies). A line
    whose bound LP failed counts as 0.

    Parameters
    ----------
    prior : array_like, "uniform" or None
        Prior over the inputs (non-negative, summing to 1 within 1e-9, or set ``normalize``)
        or ``"uniform"``, for the Bayesian objective; None for the minimax one.
    cost : Cost, str, callable or array_like
        The cost of the error, as `optmech.local_mechanism` takes it (a cost of
        $output − input$, a callable ``loss(output, input)``, or a loss matrix of shape
        ``(len(inputs), len(outputs))``).
    epsilon : float
        Central ε of the target, in (0, 50].
    delta : float
        Central δ of the target, in (0, 1).
    n : int
        Number of users whose reports are shuffled, in [2, inf).
    inputs : array_like
        The input values (labels): strictly increasing reals, at least 2.
    outputs : array_like, optional
        The output grid (strictly increasing); default the inputs and the outputs of the
        calibrated RR-on-Bins, so that the grid holds every baseline.
    constraints : constraint or sequence of them
        From `optmech.constraints`, as `optmech.local_mechanism` takes them; they hold
        on the returned matrix (baselines are then not candidates).
    objective : {"bayesian", "minimax"}, default "bayesian"
        The prior's expected loss, or the worst input's (``prior=None``).
    thetas : sequence of float, default (0, 0.25, 0.5, 0.75, 1)
        The frontier's blanket lines, fractions in [0, 1] (1 to 21 of them).
    variation_lines : sequence of float, optional
        The ``b`` of the variation lines, reals in [1, inf) (0 to 21 of them); default 1 and
        the number of inputs.
    tolerance : float, default 1e-3
        Relative width of the bisections on ε₀, in (0, 0.1].
    solver : str, optional
        LP solver; default by the count-LP policy.
    normalize : bool, default False
        Rescale a prior that does not sum to 1.
    max_memory_gb : float, default 1.0
        Refuse LPs whose estimated memory exceeds this, before building anything.
    accuracy : float, default 1e-6
        The accuracy each LP is solved to (its cross-check), in (0, 1].
    progress : bool, default False
        Show a progress bar of the stages.

    Returns
    -------
    ShuffleMechanism
        ``mechanism``, ``randomizer``, ``value``, ``lower_bound``, ``local_epsilon``,
        ``guarantee`` (a `ShuffleGuarantee`), ``frontier``, ``variation``, ``baselines``.

    Raises
    ------
    ValueError, TypeError
        A bad argument, named with its range and the value received.
    ProblemTooLargeError
        An LP beyond ``max_memory_gb``, or more than `MAX_BLANKET_ROWS` blanket rows.
    InfeasibleConstraintsError, SolverError
        The constraints admit nothing, or every LP failed on every line.

    Examples
    --------
    >>> import optmech
    >>> res = optmech.shuffle_mechanism("uniform", "squared", 1.0, 1e-6, n=1000,
    ...                                 inputs=[0, 1, 2], thetas=(1.0,))
    >>> bool(res.certified_epsilon <= 1.0), bool(res.local_epsilon > 1.0)
    (True, True)
    >>> bool(res.lower_bound <= res.value <= res.baselines["GRR"].value)
    True
    """
    kind, prior = check_local_objective(prior, objective)
    eps = check_real("epsilon", epsilon, low=0.0, high=50.0, low_open=True)
    dlt = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    users = check_int("n", n, low=2)
    lines = _check_thetas(thetas)
    tol = check_real("tolerance", tolerance, low=0.0, high=0.1, low_open=True)
    normalize = check_flag("normalize", normalize)
    progress = check_flag("progress", progress)
    acc = check_real("accuracy", accuracy, low=0.0, high=1.0, low_open=True)
    _check_solver(solver)
    items = tuple(as_constraints(constraints))
    prior = uniform_prior(prior, inputs)
    first = resolve_local_setting(
        prior,
        cost,
        inputs=inputs,
        outputs=outputs,
        normalize=normalize,
        max_memory_gb=max_memory_gb,
    )
    caps = _check_variation_lines(variation_lines, first.num_inputs)
    _check_blanket_size(first)  # before any certificate (each compares every pair of rows)
    with reporting(progress=progress, what="shuffle_mechanism"):
        brackets: dict[float, Bracket] = {}
        guess: float | None = None
        for theta in lines:  # along θ the bound falls: each line starts from the last
            with stage("frontier bisection", _log, theta=theta) as record:
                found = largest_certified(bound_of(users, dlt, theta), eps, tol, guess)
                if found is not None:
                    brackets[theta] = found
                    guess = found.certified
                    record.update(epsilon0=found.certified)
        ends = [b.certified for b in brackets.values()]
        starts = (max(ends), min(ends)) if ends else (None, None)
        with stage("baselines", _log, n=users, epsilon=eps, delta=dlt):
            baselines = calibrated_baselines(first, cost, eps, dlt, users, tol, starts)
        setting = first
        if outputs is None:
            setting = resolve_local_setting(
                first.prior,
                cost,
                inputs=first.inputs,
                outputs=default_outputs(first.inputs, baselines),
                max_memory_gb=max_memory_gb,
            )
        _check_blanket_size(setting)
        searched: list[Line] = []
        failure: Exception | None = None
        unbounded = False
        for theta, bracket in brackets.items():
            with stage("frontier LP", _log, theta=theta) as record:
                line = Line(theta)
                try:
                    search_line(line, bracket, setting, items, (eps, dlt, users), solver, acc)
                except (SolverError, InfeasibleConstraintsError) as exc:
                    # an infeasible line has no member; a failed solve leaves it unbounded
                    failure, unbounded = exc, unbounded or isinstance(exc, SolverError)
                    continue
                searched.append(line)
                record.update(value=line.point.value if line.point else None)
        varied: list[Variation] = []
        # each variation line starts from the largest ε₀ a baseline is certified at (an LP
        # matrix there is usually certified too), else from the blanket lines' largest
        calibrated = [base.local_epsilon for base in baselines.values()]
        first_guess = max(calibrated) if calibrated else starts[0]
        for b in caps:
            with stage("variation line", _log, outputs_count=b) as record:
                target = (eps, dlt, users)
                found_line = search_variation(
                    b, setting, items, target, (solver, acc, tol), first_guess
                )
                if found_line is not None:
                    varied.append(found_line)
                    record.update(epsilon0=found_line.point.local_epsilon)
    found_all = (searched, varied)
    target = (eps, dlt, users)
    return _assemble(setting, kind, target, found_all, baselines, items, failure, acc, unbounded)


def _assemble(
    setting: LocalSetting,
    kind: str,
    target: tuple[float, float, int],
    found: tuple[list[Line], list[Variation]],
    baselines: dict[str, ShuffleBaseline],
    items: tuple[Constraint, ...],
    failure: Exception | None,
    accuracy: float,
    unbounded: bool,
) -> ShuffleMechanism:
    """The certified candidate of least value, with the bound over the frontier (0 when a
    line's LP failed: nothing is known of that line)."""
    eps, dlt, users = target
    lines, varied = found
    candidates: list[tuple[float, str, FloatArray, ShuffleGuarantee, Provenance | None]] = []
    for line in lines:
        if line.matrix is not None and line.guarantee is not None:
            value = upper_value(setting.prior, setting.loss, line.matrix)
            candidates.append(
                (value, f"LP, θ = {line.theta:g}", line.matrix, line.guarantee, line.provenance)
            )
    for v in varied:
        value = upper_value(setting.prior, setting.loss, v.matrix)
        source = f"LP, variation b = {v.point.outputs_count:g}"
        candidates.append((value, source, v.matrix, v.guarantee, v.provenance))
    if not items:
        for name, base in baselines.items():
            full = embedded(base, setting)
            if full is not None and base.guarantee.epsilon <= eps:
                value = upper_value(setting.prior, setting.loss, full)
                candidates.append((value, f"baseline {name}", full, base.guarantee, None))
    if not candidates:
        if isinstance(failure, InfeasibleConstraintsError):
            raise failure
        raise SolverError(
            "shuffle_mechanism",
            "no_certified_candidate",
            f"no LP on the {len(lines) + len(varied)} frontier lines gave a matrix certified at "
            f"central ε ≤ {eps:g}; try more `thetas`, a smaller `tolerance` or another solver.",
        )
    value, source, matrix, guarantee, prov = min(candidates, key=lambda c: c[0])
    if prov is None:  # a baseline on the grid: its certificate, of the matrix returned
        guarantee = shuffle_epsilon(matrix, users, dlt)
    points = tuple(line.point for line in lines if line.point is not None)
    bounds = [point.lower_bound for point in points] + [v.point.lower_bound for v in varied]
    lower = min(bounds, default=0.0)
    lower = 0.0 if unbounded else min(lower, value)
    if prov is None:
        prov = Provenance(
            solver="none",
            status="exact",
            attempts=(),
            value=value,
            lower_bound=lower,
            accuracy=accuracy,
        )
    prov = replace(prov, value=value, lower_bound=lower)
    return ShuffleMechanism(
        mechanism=matrix,
        inputs=setting.inputs,
        outputs=setting.outputs,
        epsilon=eps,
        delta=dlt,
        n=users,
        guarantee=guarantee,
        frontier=points,
        baselines=baselines,
        objective=kind,
        source=source,
        provenance=prov,
        variation=tuple(v.point for v in varied),
    )
