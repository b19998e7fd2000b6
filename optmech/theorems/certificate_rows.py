"""The catalogue rows of ``optmech verify --certificates``: dual certificates at sizes no LP
solver reaches (GRS universal optimality, Thm. 3.1, and the minimax optimality of Gupte &
Sundararajan (2010)).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from optmech._floats import FloatArray
from optmech._validation import check_int
from optmech.theorems.catalogue import CheckResult, _result
from optmech.theorems.certificates import (
    CERTIFICATE_ACCURACY,
    MINIMAX_MAX_N,
    grs_certificate,
    minimax_certificate,
)
from optmech.theorems.dual_certificate import DualCertificate
from optmech.theorems.staircase_dual import staircase_certificate

__all__ = ["CERTIFICATE_ROWS_N", "certificate_rows", "dual_certificate_row"]

GROUP = "certificates"
#: Default largest query result of the rows (each row takes about a second at n = 1000).
CERTIFICATE_ROWS_N = 1000
#: n of the minimax rows when no n is given (their candidate solves the remap LP by column
#: generation: about 30 s at n = 1000), and the largest n of their rows with S = {0, n}, whose
#: optimum, about e^(−εn/2), leaves the range where a relative accuracy means anything.
MINIMAX_ROWS_N = 40
#: The instances: prior kind × loss × ε.
_PRIORS = ("uniform", "Dirichlet(1)", "Dirichlet(0.2)")
_LOSSES = ("abs", "squared")
_EPSILONS = (0.5, 1.0)
_STAIRCASE_EPSILONS = (0.5, 1.0, 2.0)


def _prior(kind: str, n: int, seed: int = 0) -> FloatArray:
    if kind == "uniform":
        return np.full(n + 1, 1.0 / (n + 1))
    concentration = 1.0 if kind == "Dirichlet(1)" else 0.2
    return np.asarray(np.random.default_rng(seed).dirichlet(np.full(n + 1, concentration)))


def dual_certificate_row(
    certificate: DualCertificate, check_name: str, instance: str
) -> CheckResult:
    """A catalogue row decided by a dual certificate: it passes when the certified relative gap
    is within the certificate's accuracy; its detail states the gap and the worst dual row (the
    reason when it fails)."""
    c = certificate
    i, r = c.worst_row
    detail = (
        f"certified optimum in [{c.lower_bound:.12g}, {c.value:.12g}], gap {c.gap:.3g} "
        f"(relative {c.relative_gap:.3g}); worst dual row: reduced cost of x[{i}, {r}] "
        f"{abs(c.worst_violation):.3g} {'below' if c.worst_violation > 0 else 'above'} its row "
        f"multiplier"
    )
    if not c.certified:
        detail = "NOT certified: " + detail
    return _result(
        check_name,
        instance,
        c.value,
        c.lower_bound,
        c.certified,
        group=GROUP,
        detail=detail,
        rule=f"(value − dual bound) ≤ {c.accuracy:.0e}·value",
        interval=(c.lower_bound, c.value),
        kind="certificate",
        seconds=c.seconds,
    )


def certificate_rows(
    n: int | None = None, *, accuracy: float = CERTIFICATE_ACCURACY
) -> list[CheckResult]:
    """The rows of ``optmech verify --certificates``: GRS universal optimality (Thm. 3.1)
    proved by `grs_certificate` for uniform
    and Dirichlet priors (seed 0), ``|e|`` and ``e²``, ε ∈ {0.5, 1}, on ``{0..n}``; the
    minimax optimality of Gupte & Sundararajan by
    `minimax_certificate` for S = all inputs on ``{0..n}`` (``{0..40}`` when ``n`` is not
    given: `MINIMAX_ROWS_N`) and S = {0, n} on ``{0..min(n, 40)}``, ε = 0.5; and the
    optimality of the staircase (Geng & Viswanath 2016, Thm. 3) on the additive designer's grid
    with ``n`` cells per Δ and 3 periods each side by `staircase_certificate`, ``|e|`` and
    ``e²``, ε ∈ {0.5, 1, 2}.

    Examples
    --------
    >>> rows = certificate_rows(30)
    >>> len(rows), all(r.passed for r in rows)
    (22, True)
    """
    given = n is not None
    size = check_int("n", CERTIFICATE_ROWS_N if n is None else n, low=1, high=10**6)
    rows = []
    for kind in _PRIORS:
        for loss in _LOSSES:
            for eps in _EPSILONS:
                instance = f"n={size}, {kind}, {loss}, eps={eps:g}"
                cert = grs_certificate(_prior(kind, size), loss, eps, accuracy=accuracy)
                rows.append(
                    dual_certificate_row(cert, "GRS optimality (dual certificate)", instance)
                )
    small = min(size, MINIMAX_ROWS_N)
    large = min(size, MINIMAX_MAX_N) if given else small
    for loss in _LOSSES:
        for name, side, m in (("S=all", None, large), ("S={0,n}", [0, small], small)):
            instance = f"n={m}, {name}, {loss}, eps=0.5"
            cert = minimax_certificate(loss, 0.5, n=m, side_information=side, accuracy=accuracy)
            rows.append(
                dual_certificate_row(cert, "minimax optimality (dual certificate)", instance)
            )
    for loss in _LOSSES:
        for eps in _STAIRCASE_EPSILONS:
            instance = f"{size} cells per Δ, 3 periods, {loss}, eps={eps:g}"
            cert = staircase_certificate(eps, loss, resolution=max(size, 2), accuracy=accuracy)
            rows.append(_staircase_row(cert, instance))
    return rows


def _staircase_row(certificate: DualCertificate, instance: str) -> CheckResult:
    """`dual_certificate_row` of a staircase certificate (its worst dual row is a cell)."""
    row = dual_certificate_row(certificate, "staircase optimality (dual certificate)", instance)
    j, k = certificate.worst_row
    detail = row.detail.split("; worst dual row")[0] + (
        f"; worst dual row: cell {j} (period {k}), reduced cost per unit of mass "
        f"{abs(certificate.worst_violation):.3g} "
        f"{'below' if certificate.worst_violation > 0 else 'above'} the value"
    )
    return dataclasses.replace(row, detail=detail)
