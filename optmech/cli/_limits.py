"""What the designers serve today, checked before any work: the one place the command line reads
the library's limits.

``optmech design`` builds the design's `AdditiveSpec`
(or `AdditiveSpec2D`) first — its validation
names each bad parameter — then refuses, before any grid is built, a design

* whose LP is larger than ``--max-memory-gb`` allows, by the library's own size estimate
  (`estimate_additive_size`, through
  ``AdditiveSpec.size``);
* whose geometric tails have a pure ε above the designer's largest ε
  (`EPSILON_MAX`): its rows would span more than
  ``e^50`` (about 5e21), which no solver resolves;
* whose smallest mass that matters is below the fraction of the largest that a solver
  resolves (``RELIABLE`` of `optmech.lp.additive.cone_bound`,
  1e-9): a privacy profile's δ (an (ε, δ) design's down to the spec's own
  `DELTA_MIN`, its hockey-stick sums being weighed
  relative to δ; a smaller δ > 0 at ε > 0 is answered by the ε-DP design,
  `optmech.lp.additive.approx`), or, for zCDP, Rényi DP and GDP, the
  matching Gaussian's mass one sensitivity from its centre relative to its centre,
  ``exp(−1/(2s²))`` with ``s`` its scale in units of Δ
  (`gaussian_scale`). Below it the designed
  noise is the solver's tolerance rather than a shape: the solve may never finish, or its
  certified interval says nothing.

The limits are read from the library at each call, so a designer that serves more needs no
change here. The user LPs are sized the same way: `check_user_size` takes
the inputs and outputs counted from the ``--graph`` and ``--n`` options
(`user_lp_shape`) to the library's
`check_lp_size` before any graph is built.
"""

from __future__ import annotations

import math
import re
from typing import Any

from optmech.exceptions import ProblemTooLargeError

__all__ = ["check_design_1d", "check_design_2d", "check_user_size", "user_lp_shape"]


#: A spec's message about a parameter of the guarantee (given by ``--privacy``).
_PRIVACY_PARAMETER = re.compile(r"`(epsilon|delta|rho|mu|alpha|privacy)`")


def _smallest_resolved() -> float:
    """The smallest fraction of the largest mass that a solver resolves (the library's)."""
    from optmech.lp.additive.cone_bound import RELIABLE

    return float(RELIABLE)


def _check_served(spec: Any) -> None:
    """Refuse a guarantee whose LP the designer cannot resolve (module docstring)."""
    from optmech.lp.additive.spec import DELTA_MIN, EPSILON_MAX, gaussian_scale
    from optmech.privacy import ApproxDP, PrivacyProfile

    privacy = spec.privacy
    floor = _smallest_resolved()
    tail = spec.tail_epsilon
    if tail is not None and tail > EPSILON_MAX:
        raise ValueError(
            f"`--privacy` {privacy} needs geometric tails of pure ε = {tail:.4g}, above the "
            f"designer's largest ε {EPSILON_MAX:g}: its rows would span more than "
            f"e^{EPSILON_MAX:g}, which no solver resolves. Ask for a weaker guarantee."
        )
    deltas: list[float] = []
    delta_floor = floor
    if isinstance(privacy, ApproxDP):
        # An (ε, δ) design weighs its densities relative to δ (its hockey-stick sums are
        # written relative to δ): its own floor, which the spec has checked already.
        deltas, delta_floor = [privacy.delta], DELTA_MIN
    elif isinstance(privacy, PrivacyProfile):
        deltas = [d for d in privacy.deltas if d > 0.0]
    small = [d for d in deltas if d < delta_floor]
    if small:
        raise ValueError(
            f"`--privacy` {privacy}: `delta` must be at least {delta_floor:g} for a designed "
            f"noise today (the solvers resolve masses only to about {delta_floor:g} of the "
            f"largest; a smaller δ is below their tolerance); got δ = {small[0]:g}."
        )
    scale = gaussian_scale(privacy)
    if scale is not None:
        loss = 1.0 / (2.0 * scale * scale)  # the Gaussian's log mass ratio over one Δ
        if loss > -math.log(floor):
            raise ValueError(
                f"`--privacy` {privacy} is too strong for a designed noise today: the Gaussian "
                f"that meets it (scale {scale:.3g} Δ) has, one sensitivity from its centre, "
                f"e^(−{loss:.4g}) of its central mass, below the {floor:g} the solvers resolve. "
                f"Ask for a weaker guarantee (its log mass ratio 1/(2s²) must be at most "
                f"{-math.log(floor):.4g})."
            )


def _check_cost(spec: Any) -> None:
    """Refuse a cost whose expected value overflows float64 on the design's support: its
    integral over ``[−(K + 1)Δ, (K + 1)Δ]`` and, with geometric tails, its tail sum from the
    last period on (what the LP's cells weigh), each finite and a number, else a ValueError
    naming ``--cost``."""
    cost, step = spec.cost, float(spec.sensitivity)
    reach = (spec.periods + 1) * step
    try:
        total = float(cost.integral(-reach, reach))
        if spec.tail_ratio > 0.0:
            total += float(
                cost.periodic_integral(reach - step, reach, period=step, ratio=spec.tail_ratio)
            )
    except (ValueError, ArithmeticError) as exc:
        reason = " ".join(str(exc).split())
        raise ValueError(
            f"`--cost` {cost.name}: its expected value on the design's support "
            f"[−{reach:g}, {reach:g}] cannot be computed in float64 ({reason})"
        ) from None
    if not math.isfinite(total):
        raise ValueError(
            f"`--cost` {cost.name}: its integral over the design's support [−{reach:g}, "
            f"{reach:g}] overflows float64; choose a smaller power or sensitivity."
        )


def _cells(spec: Any) -> int:
    """Cells of one period of the grid ``make_grid`` would build for ``spec``, computed without
    building it (a lower bound, the coarse cells, when that already exceeds the budget)."""
    from optmech.lp.additive.grid import GridKind, graded_widths

    if spec.grid != GridKind.GRADED:
        return int(spec.resolution)
    size = spec.size(spec.resolution)  # the ladder only adds cells: a lower bound
    if size["bytes"] > spec.max_memory_gb * 1e9:
        return int(spec.resolution)
    return int(graded_widths(spec.privacy.epsilon, coarse=spec.resolution).size)


def check_design_1d(
    privacy: Any, sensitivity: Any, cost: Any, *, constrained: bool = False, **options: Any
) -> Any:
    """The validated `AdditiveSpec` of a 1-D design,
    or the error a design of it would end in, raised before anything is built (``constrained``:
    the design has constraints of the caller's, so a tiny δ is refused rather than answered by
    the ε-DP design).

    Raises
    ------
    ValueError, TypeError
        A bad parameter (the spec's validation), or a guarantee outside what the designer
        serves (module docstring).
    ProblemTooLargeError
        The LP's estimated memory exceeds ``max_memory_gb``.
    """
    from optmech.lp.additive.approx import solvable_privacy, weighs_pure
    from optmech.lp.additive.spec import AdditiveSpec

    if weighs_pure(privacy, options, constrained=constrained):  # a tiny δ: the LP of δ' is solved
        privacy = solvable_privacy(privacy)
    try:
        spec = AdditiveSpec(privacy, sensitivity, cost, **options)
    except ValueError as exc:  # the guarantee's own range: name the option that gave it
        if _PRIVACY_PARAMETER.match(str(exc)):
            raise ValueError(f"`--privacy` {privacy}: {exc}") from None
        raise
    _check_served(spec)
    _check_cost(spec)
    try:
        spec.check_size(_cells(spec))
    except ProblemTooLargeError as exc:
        defaults = [
            flag
            for flag, name in (("--resolution", "resolution"), ("--periods", "periods"))
            if options.get(name) is None
        ]
        if not defaults:
            raise
        raise ProblemTooLargeError(
            f"{exc} ({' and '.join(defaults)} {'are' if len(defaults) > 1 else 'is'} the "
            f"default for --privacy {privacy}: the support that guarantee needs.)"
        ) from None
    return spec


def check_design_2d(
    privacy: Any, sensitivity: Any, cost: Any, *, constrained: bool = False, **options: Any
) -> Any:
    """The validated `AdditiveSpec2D` of a 2-D
    design, its size checked against ``max_memory_gb`` before anything is built
    (``constrained`` is refused by the designer itself: 2-D designs take no constraints)."""
    from optmech.lp.additive2d.spec import AdditiveSpec2D

    spec = AdditiveSpec2D(privacy, sensitivity, cost, **options)
    spec.check_size()
    return spec


def user_lp_shape(graph: str, n: int | None) -> tuple[int, int] | None:
    """(inputs, outputs) of the default user LP on the ``--graph`` spec, counted without
    building the graph: ``n + 1`` of each on the path and sensitivity graphs, one of each per
    node of a grid (every node its own output). None for the hypercube (the library caps it
    at 2^16 nodes before building anything) and for a malformed spec (the library's parser
    then says why)."""
    name, _, arg = graph.strip().lower().partition(":")
    try:
        if name in ("path", "sensitivity"):
            return None if n is None else (n + 1, n + 1)
        if name in ("grid", "king") and arg:
            sides = [int(s) for s in arg.split("x")]
            nodes = math.prod(sides)
            return (nodes, nodes) if min(sides) >= 2 else None
    except ValueError:
        return None
    return None


def check_user_size(
    shape: tuple[int, int], max_memory_gb: float, where: str, *, columns: str | None = None
) -> None:
    """Refuse, before any graph is built, a user LP of ``shape`` (inputs, outputs) whose
    estimated memory exceeds ``max_memory_gb`` (the library's estimate and message); ``where``
    names the options that set the shape. ``columns`` (``"bayesian"`` or ``"minimax"``) says
    that the library will solve it by column generation (a path, no constraints, the master's
    solver), whose estimate is then the one checked; else the whole LP's."""
    from optmech.lp.matrix.setting import check_budget, check_lp_size, size_remedy
    from optmech.lp.matrix.size_model import (
        COLUMN_GENERATION_BAYESIAN,
        COLUMN_GENERATION_MINIMAX,
        FULL_LP,
    )

    budget, _ = check_budget(max_memory_gb)
    inputs, outputs = shape
    model = {"bayesian": COLUMN_GENERATION_BAYESIAN, "minimax": COLUMN_GENERATION_MINIMAX}.get(
        columns or "", FULL_LP
    )
    check_lp_size(
        f"the user LP of {where} would have {inputs} x {outputs} = {inputs * outputs} variables,"
        f" solved by {model.method}",
        inputs * outputs,
        max_memory_gb=budget,
        bytes_per_variable=model.bytes_per_variable(inputs, outputs),
        hint=model.note(inputs, outputs),
        remedy=size_remedy(model, shape),
    )
