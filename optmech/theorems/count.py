"""Checks of universal optimality for count queries (Ghosh, Roughgarden & Sundararajan (2012)),
group ``count-lp``.

1. **GRS universal optimality** (Thm. 3.1): for every prior and loss non-decreasing in
   ``|i − r|``, the user's LP optimum equals the value of the range-restricted geometric ``G``
   followed by the Bayes remap — exactly. A row solves the LP (`optmech.
   bayesian_mechanism`, certified interval ``[lower_bound, value]`` in its provenance) and
   passes when the reference lies in that interval; the reference ``Σ_z min_r (Gᵀ diag(p) L)``
   is evaluated in ball arithmetic (`optmech.theorems._enclose`,
   ``e^(−ε)`` enclosed, prior and loss taken exactly as the floats the LP saw) and rounded outward
   to floats. No tolerance: a solver that stops early widens the interval, it cannot move it off the
   optimum.
2. **The worked example** (Fig. 2–3): ``G`` for n = 5, ε = ln 2 with output 1 sent to 2, in
   rational arithmetic, against the published matrix; the user (uniform on {0, 2, 3, 4, 5},
   ``|e|``) whose Bayes remap is exactly 1 → 2, in rationals; the LP optimum by its
   certificate; the constructive remap (Lemmas 5.9–5.11) read off the exact constraint matrix.

Uniqueness and the structure of optimal vertices are in
`optmech.theorems.count_structure`; minimax users and Brenner &
Nissim in `optmech.theorems.minimax`; query-dependent noise in
`optmech.theorems.query_dependent`.
"""

from __future__ import annotations

import math
import time
import warnings
from fractions import Fraction
from typing import Any

import numpy as np

from optmech import (
    InaccurateSolutionWarning,
    bayesian_mechanism,
    constraint_matrix,
    geometric_bayes,
    remap_from_constraint_matrix,
)
from optmech.costs import as_cost
from optmech.lp.solve import MAIN_SOLVERS, available_solvers
from optmech.theorems import _enclose as enc
from optmech.theorems._support import (
    interval_of,
    loss_matrix,
    privacy_terms,
    random_users,
)
from optmech.theorems.catalogue import CheckResult, certificate_row, check, exact_row
from optmech.theorems.minimax import minimax_optimality_check

__all__ = [
    "FIG2",
    "grs_universal_rows",
    "minimax_optimality_check",
    "universal_optimality_check",
    "worked_example_rows",
]

GROUP = "count-lp"


def _resolve_loss(loss: Any, size: int) -> np.ndarray:
    if isinstance(loss, np.ndarray | list | tuple):
        return np.asarray(loss, dtype=np.float64)
    return loss_matrix(as_cost(loss), size - 1)


def universal_optimality_check(
    prior: Any, loss: Any, epsilon: float, *, solver: str | None = None, label: str = ""
) -> CheckResult:
    """One instance of GRS Thm. 3.1: the user LP's certified interval contains ``G`` + remap.

    ``loss`` is a cost of ``r − i`` or a square loss matrix over ``{0..n}``; it must be
    non-decreasing in ``|i − r|`` on each side (`ValueError` otherwise, raised by
    `optmech.geometric_bayes`). Passes when ``lower_bound ≤ ref ≤ value``
    with ``ref`` enclosed in ball arithmetic, the interval is decisive and the mechanism meets the
    privacy contract.

    Examples
    --------
    >>> import numpy as np
    >>> universal_optimality_check(np.full(4, 0.25), "abs", 1.0).passed
    True
    """
    start = time.perf_counter()
    p = np.asarray(prior, dtype=np.float64)
    lm = _resolve_loss(loss, p.size)
    geometric_bayes(p, lm, epsilon)  # validates, and requires a monotone loss
    n = p.size - 1
    with enc.precision():
        ref = enc.bounds(enc.geometric_bayes_value(p, lm, epsilon))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InaccurateSolutionWarning)
        lp = bayesian_mechanism(p, lm, epsilon, solver=solver)
    flagged = " (solver flagged its interval wide)" if caught else ""
    lower, upper = interval_of(lp)
    return certificate_row(
        "GRS universal optimality",
        label or f"n={n}, eps={epsilon:.4g}",
        lower=lower,
        upper=upper,
        reference=ref,
        group=GROUP,
        detail=f"LP ({lp.solver}{flagged}) vs G + Bayes remap (ball arithmetic); GRS Thm. 3.1: "
        "equal, no allowance",
        **privacy_terms(lp.certified_epsilon, lp.epsilon),
        seconds=time.perf_counter() - start,
    )


def grs_universal_rows(
    *, seed: int, count: int, n_range: tuple[int, int], alternate: bool = False
) -> list[CheckResult]:
    """`universal_optimality_check` for ``count`` random users (GRS
    Thm. 3.1).

    ``alternate`` solves them with optmech's main solvers in turn (else the default policy).
    """
    rng = np.random.default_rng(seed)
    solvers: list[str | None] = [None]
    if alternate:
        solvers = [s for s in MAIN_SOLVERS if s in available_solvers()] or [None]
    return [
        universal_optimality_check(
            p,
            loss_matrix(loss, n),
            eps,
            solver=solvers[k % len(solvers)],
            label=f"n={n}, eps={eps:.4g}, {label}, seed={seed}#{k}",
        )
        for k, n, eps, p, label, loss in random_users(rng, count, n_range)
    ]


@check("GRS universal optimality", group=GROUP, quick=True)
def _grs_universal_quick() -> list[CheckResult]:
    return grs_universal_rows(seed=20, count=14, n_range=(3, 20))


@check("GRS universal optimality (sweep n ≤ 50)", group=GROUP, quick=False)
def _grs_universal_sweep() -> list[CheckResult]:
    return grs_universal_rows(seed=21, count=28, n_range=(13, 50), alternate=True)


# --------------------------------------------------------------------------------------------
# The worked example of GRS, Fig. 2
# --------------------------------------------------------------------------------------------
#: GRS (2012), Fig. 2 (rows: inputs 0..5).
FIG2 = [
    ["2/3", "0", "1/4", "1/24", "1/48", "1/48"],
    ["1/3", "0", "1/2", "1/12", "1/24", "1/24"],
    ["1/6", "0", "1/2", "1/6", "1/12", "1/12"],
    ["1/12", "0", "1/4", "1/3", "1/6", "1/6"],
    ["1/24", "0", "1/8", "1/6", "1/3", "1/3"],
    ["1/48", "0", "1/16", "1/12", "1/6", "2/3"],
]
#: The remap of Fig. 2: output 1 answered as 2, every other output as itself.
FIG2_REMAP = [0, 2, 2, 3, 4, 5]
#: The user for whom Fig. 2 is optimal: uniform on {0, 2, 3, 4, 5}, loss |r − i|.
FIG2_PRIOR = [Fraction(1, 5) if i != 1 else Fraction(0) for i in range(6)]


def exact_geometric(n: int, alpha: Fraction) -> list[list[Fraction]]:
    """``G`` (GRS §2) in rationals, for a rational ``α = e^(−ε)``."""
    out = []
    for i in range(n + 1):
        row = []
        for j in range(n + 1):
            if j == 0:
                row.append(alpha**i / (1 + alpha))
            elif j == n:
                row.append(alpha ** (n - i) / (1 + alpha))
            else:
                row.append(alpha ** abs(i - j) * (1 - alpha) / (1 + alpha))
        out.append(row)
    return out


def exact_bayes_assignment(
    mechanism: list[list[Fraction]], prior: list[Fraction]
) -> tuple[list[int], Fraction]:
    """The Bayes remap for ``|r − i|`` in rationals (ties to the smallest r) and its value."""
    size = len(prior)
    assignment, value = [], Fraction(0)
    for z in range(len(mechanism[0])):
        posterior = [
            sum((prior[i] * mechanism[i][z] * abs(r - i) for i in range(size)), Fraction(0))
            for r in range(size)
        ]
        best = min(posterior)
        assignment.append(posterior.index(best))
        value += best
    return assignment, value


def exact_constraint_matrix(mechanism: list[list[Fraction]], e: Fraction) -> list[str]:
    """GRS §5 constraint matrix in rationals (``e = e^ε`` rational): Z, L, H or S per pair."""
    rows = []
    for i in range(len(mechanism) - 1):
        cells = []
        for r in range(len(mechanism[0])):
            a, b = mechanism[i][r], mechanism[i + 1][r]
            if all(row[r] == 0 for row in mechanism):
                cells.append("Z")
            else:
                cells.append("L" if a == e * b else "H" if b == e * a else "S")
        rows.append("".join(cells))
    return rows


def _fig2_matrix() -> list[list[Fraction]]:
    return [[Fraction(v) for v in row] for row in FIG2]


def _worked_lp_row(eps: float) -> CheckResult:
    start = time.perf_counter()
    prior = np.array([1, 0, 1, 1, 1, 1], dtype=np.float64) / 5.0
    lm = loss_matrix(as_cost("abs"), 5)
    _, exact_value = exact_bayes_assignment(_fig2_matrix(), FIG2_PRIOR)
    with enc.precision():
        ref = enc.bounds(enc.geometric_bayes_value(prior, lm, eps))
    lp = bayesian_mechanism(prior, "abs", eps, vertex=True)
    lower, upper = interval_of(lp)
    return certificate_row(
        "GRS worked example: LP optimum",
        "prior uniform on {0,2,3,4,5}, |e|",
        lower=lower,
        upper=upper,
        reference=ref,
        group=GROUP,
        detail=f"LP ({lp.solver}) vs G + Bayes remap at the float ε (ball arithmetic); at ε = "
        f"ln 2 exactly the value of Fig. 2 is {exact_value}",
        **privacy_terms(lp.certified_epsilon, lp.epsilon),
        seconds=time.perf_counter() - start,
    )


def _fig2_remap_row(
    check: str,
    instance: str,
    remap: list[int],
    ok: bool,
    *,
    rule: str,
    detail: str,
    start: float,
) -> CheckResult:
    """An exact row of a remap against Fig. 2's (GRS 2012): the outputs sent elsewhere, 0 wanted."""
    return exact_row(
        check,
        instance,
        sum(a != b for a, b in zip(remap, FIG2_REMAP, strict=True)),
        0,
        ok,
        rule=rule,
        group=GROUP,
        detail=detail,
        seconds=time.perf_counter() - start,
    )


def worked_example_rows() -> list[CheckResult]:
    """GRS Fig. 2–3: n = 5, ε = ln 2, ``G`` remapped by 1 → 2, reproduced exactly."""
    n, eps = 5, math.log(2.0)
    fig = _fig2_matrix()
    rows = []

    start = time.perf_counter()
    g = exact_geometric(n, Fraction(1, 2))
    induced = [
        [sum((g[i][z] for z in range(n + 1) if FIG2_REMAP[z] == r), Fraction(0)) for r in range(6)]
        for i in range(n + 1)
    ]
    mismatches = sum(induced[i][r] != fig[i][r] for i in range(n + 1) for r in range(n + 1))
    rows.append(
        exact_row(
            "GRS worked example: Fig. 2 exact",
            "n=5, eps=ln 2, remap 1→2",
            mismatches,
            0,
            mismatches == 0,
            rule="G·T = Fig. 2 entry by entry (rationals, α = 1/2)",
            group=GROUP,
            detail="entries of G·T differing from the published matrix",
            seconds=time.perf_counter() - start,
        )
    )

    start = time.perf_counter()
    exact_assignment, _ = exact_bayes_assignment(g, FIG2_PRIOR)
    prior = np.array([1, 0, 1, 1, 1, 1], dtype=np.float64) / 5.0
    assignment = geometric_bayes(prior, "abs", eps).assignment  # a Bayes remap always has one
    library = [] if assignment is None else assignment.tolist()
    ok = exact_assignment == FIG2_REMAP and library == FIG2_REMAP
    rows.append(
        _fig2_remap_row(
            "GRS worked example: user's Bayes remap",
            "prior uniform on {0,2,3,4,5}, |e|",
            library,
            ok,
            rule="Bayes remap of G in rationals = optmech's = Fig. 2's remap",
            detail=f"rationals: {exact_assignment}; optmech: {library}; Fig. 2: {FIG2_REMAP}",
            start=start,
        )
    )

    rows.append(_worked_lp_row(eps))

    start = time.perf_counter()
    exact_pattern = exact_constraint_matrix(fig, Fraction(2))
    library_pattern = ["".join(r) for r in constraint_matrix(np.array(fig, dtype=float), eps)]
    read = [
        int(np.argmax(row))
        for row in remap_from_constraint_matrix(constraint_matrix(np.array(fig, dtype=float), eps))
    ]
    ok = library_pattern == exact_pattern and read == FIG2_REMAP
    rows.append(
        _fig2_remap_row(
            "GRS worked example: constraint matrix → remap",
            "Fig. 3, Lemmas 5.9–5.11",
            read,
            ok,
            rule="optmech's constraint matrix = the exact one (rationals, e^ε = 2); remap read "
            "off it = Fig. 2's",
            detail=f"exact {exact_pattern}; optmech {library_pattern}; remap read off: {read}",
            start=start,
        )
    )
    return rows


@check("GRS worked example (Fig. 2)", group=GROUP, quick=True)
def _worked_example() -> list[CheckResult]:
    return worked_example_rows()
