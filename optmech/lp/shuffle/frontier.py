r"""The (ε₀, p) frontier of a central shuffled target: the blanket rows, the witness of a bound
and the bisections.

The clone form of `shuffle_epsilon`'s ``"blanket"`` bound depends on two numbers of a matrix
(`optmech.certify.shuffle`): its local ε₀ and its clone probability

$$p = \min_{x^0 ≠ x^1} \min_y \frac{2 \min_x Q(y | x)}{Q(y | x^0) + Q(y | x^1)},$$

the blanket mass relative to the pair (Balle, Bell, Gascón & Nissim 2019; Feldman, McMillan
& Talwar 2021). With the envelope variable $t_y ≤ Q(y | x)$ of the local LP
(`optmech.lp.matrix.envelope`), $p$ is at least a given $p$ when the **blanket rows**

$$Q(y | x^0) + Q(y | x^1) ≤ \frac{2}{p} t_y \quad \text{for every pair } x^0 < x^1
\text{ and every output } y$$

hold: linear in $Q$, vectorised as one sparse pair-selection matrix times the mechanism.
Under the envelope $Q ≤ e^{ε_0} t$ every ε₀-LDP matrix has $p ≥ e^{−ε_0}$, and no matrix with
two rows at its local ε₀ in one column exceeds $p = 2/(e^{ε_0} + 1)$ (generalised randomized
response reaches it); a frontier line is a fraction θ ∈ [0, 1] of that room,

$$p_θ(ε_0) = (1 − θ) e^{−ε_0} + θ \frac{2}{e^{ε_0} + 1},$$

which decreases in ε₀. The bound is the clone curve of (ε₀, p) (and FMT's of ε₀ alone), which
only loses privacy as ε₀ grows or p shrinks, so along a line it increases with ε₀: the largest
ε₀ the bound certifies is found by bisection on a **witness**, a 3 x 3 circulant matrix whose
local ε₀ and clone probability are exactly (ε₀, p), certified by `shuffle_epsilon` itself. That
call takes every method, also those that read more of the witness than (ε₀, p) (its exact
blanket divergence, its variation ratio), so a line's point is a candidate and its LP value a
bound over the line only up to there: the LP's own matrix is certified before it is accepted.

**Variation lines.** `shuffle_epsilon`'s ``"variation-ratio"`` bound (Wang et al., PVLDB
2024; `optmech.certify.shuffle_variation`) reads more of the matrix: $e^{ε_0}$, the largest
total variation β between two rows and a split of the rows (r, s) that is not linear in $Q$.
β alone is: with the envelope $t_y ≤ Q(y | x)$, every pair has

$$\tfrac12 Σ_y |Q(y|x^0) − Q(y|x^1)| = Σ_y \bigl(Q(y|x^0) − \min(Q(y|x^0), Q(y|x^1))\bigr)
≤ Σ_y (Q(y|x^0) − t_y) = 1 − Σ_y t_y,$$

so the single **variation row** $Σ_y t_y ≥ 1 − β$ caps β (exactly on randomized response and
RR-on-Bins, whose blanket is $1 − β$), with no variable beyond the LP's own. A variation line
is the cap of randomized response on $b$ outputs,

$$β_b(ε_0) = \frac{e^{ε_0} − 1}{e^{ε_0} + b − 1},$$

which increases with ε₀ (the LP's feasible set grows along the line); $b = 1$ is
$1 − e^{−ε_0}$, which every ε₀-LDP matrix meets (no row). The certificate of a variation line's
LP is not a function of (ε₀, β), so no witness stands for the line: each ε₀ is judged by
`shuffle_epsilon` of the LP's own matrix (`largest_certified` keeps only points at or below
the target, whatever the certificate does along the line).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.certify.shuffle import shuffle_epsilon
from optmech.constraints import Custom

__all__ = [
    "EPSILON0_MAX",
    "Bracket",
    "blanket_rows",
    "bound_of",
    "clone_probability",
    "largest_certified",
    "variation_cap",
    "variation_rows",
    "witness",
]

#: Largest local ε₀ searched (the local LP's own limit).
EPSILON0_MAX = 50.0


def clone_probability(epsilon0: float, theta: float) -> float:
    """``p_θ(ε₀)``: the fraction θ of the way from ``e^(−ε₀)`` (the envelope alone) to
    ``2/(e^ε₀ + 1)`` (at most one row above the column's floor).

    Examples
    --------
    >>> import math
    >>> clone_probability(math.log(3.0), 0.0), clone_probability(math.log(3.0), 1.0)
    (0.3333333333333333, 0.5)
    """
    low = math.exp(-epsilon0)
    high = 2.0 / (math.exp(epsilon0) + 1.0)
    return (1.0 - theta) * low + theta * high


def witness(epsilon0: float, p: float) -> FloatArray:
    """A 3 x 3 row-stochastic matrix with local ε₀ ``epsilon0`` and clone probability ``p``
    (the circulant of ``(e^ε₀, c, 1)`` with ``c = 2/p − e^ε₀`` clipped to ``[1, e^ε₀]``).

    Examples
    --------
    >>> import math
    >>> w = witness(math.log(3.0), 0.4)
    >>> w.sum(axis=1).round(12).tolist(), round(float(2 * w.min() / (w.max() + w[1, 0])), 12)
    ([1.0, 1.0, 1.0], 0.4)
    """
    e = math.exp(epsilon0)
    c = min(max(2.0 / p - e, 1.0), e)
    values = np.array([e, c, 1.0]) / (e + c + 1.0)
    k = np.arange(3)
    return values[(k[:, None] - k[None, :]) % 3]


def blanket_rows(num_inputs: int, num_outputs: int, p: float) -> Custom:
    """The blanket rows ``Q(y|x⁰) + Q(y|x¹) ≤ (2/p) t_y`` for every pair of inputs and every
    output, as a `Custom` constraint on the local LP's variables (one sparse product; no
    loop over pairs or outputs)."""
    i, j = np.triu_indices(num_inputs, k=1)
    rows = np.repeat(np.arange(i.size), 2)
    cols = np.stack([i, j], axis=1).ravel()
    select = sp.csr_matrix((np.ones(cols.size), (rows, cols)), shape=(i.size, num_inputs))
    spread = np.full((i.size, 1), 2.0 / p)

    def rows_of(variables: object) -> list[object]:
        import cvxpy as cp

        mechanism = variables.mechanism  # type: ignore[attr-defined]
        envelope = cp.reshape(variables.envelope, (1, num_outputs), order="C")  # type: ignore[attr-defined]
        return [select @ mechanism <= spread @ envelope]

    return Custom(rows_of, label=f"blanket p ≥ {p:.6g}")


def variation_cap(epsilon0: float, outputs_count: float) -> float:
    """``β_b(ε₀) = (e^ε₀ − 1)/(e^ε₀ + b − 1)``: the total variation of randomized response on
    ``b = outputs_count`` outputs at local ε₀.

    Examples
    --------
    >>> import math
    >>> round(variation_cap(math.log(3.0), 4.0), 12), round(variation_cap(math.log(3.0), 1.0), 12)
    (0.333333333333, 0.666666666667)
    """
    grow = math.expm1(epsilon0)
    return grow / (grow + outputs_count)


def variation_rows(beta: float) -> Custom:
    """The variation row ``Σ_y t_y ≥ 1 − β`` (the envelope's mass), which caps the total
    variation of every pair of rows at ``beta``, as a `Custom` constraint on the local LP's
    variables."""

    def rows_of(variables: object) -> list[object]:
        import cvxpy as cp

        envelope = variables.envelope  # type: ignore[attr-defined]
        return [cp.sum(envelope) >= 1.0 - beta]

    return Custom(rows_of, label=f"variation β ≤ {beta:.6g}")


@dataclass(frozen=True)
class Bracket:
    """The result of a bisection on ε₀: ``certified`` (the largest ε₀ found whose certificate
    meets the target) and ``excluded`` (the smallest found whose certificate does not; None
    when even `EPSILON0_MAX` is certified), with the certificate at ``certified``."""

    certified: float
    excluded: float | None
    central: float


def largest_certified(
    central: Callable[[float], float],
    target: float,
    rtol: float = 1e-3,
    start: float | None = None,
) -> Bracket | None:
    """The largest ε₀ in (0, `EPSILON0_MAX`] with ``central(ε₀) ≤ target``, to ``rtol``
    relative, assuming ``central`` increases with ε₀ (a point kept is always one evaluated at
    or below the target, whatever ``central`` does). None when no ε₀ down to
    ``target · 2^-30`` is certified.

    A bracket is found by steps of a factor 2 from ``target`` (of 1.1 from ``start``, a
    guess such as a neighbouring line's answer); it is then narrowed by false position, each
    estimate probed just below and just above (``rtol/2`` apart), with a bisection step
    whenever that does not halve the bracket.

    Examples
    --------
    >>> b = largest_certified(lambda e: e / 4.0, 1.0, rtol=1e-6)
    >>> bool(b.certified <= 4.0 < b.excluded <= b.certified * (1 + 1e-6))
    True
    """
    step = 2.0 if start is None else 1.1
    x = min(target if start is None else start, EPSILON0_MAX)
    value = central(x)
    for _ in range(64):  # shrink until certified
        if value <= target:
            break
        x /= step
        if x < target * 2.0**-30:
            return None
        value = central(x)
    else:
        return None
    lo, lo_value, hi, hi_value = x, value, None, math.inf
    while hi is None and lo < EPSILON0_MAX:  # grow until excluded
        x = min(step * lo, EPSILON0_MAX)
        value = central(x)
        if value <= target:
            lo, lo_value = x, value
        else:
            hi, hi_value = x, value
    if hi is None:
        return Bracket(lo, None, lo_value)
    for _ in range(200):
        width = hi - lo
        if width <= rtol * hi:
            break
        if math.isfinite(hi_value) and hi_value > lo_value:
            guess = lo + width * (target - lo_value) / (hi_value - lo_value)
        else:
            guess = 0.5 * (lo + hi)
        half = 0.25 * rtol * hi
        probes = [min(max(guess - half, lo), hi), min(max(guess + half, lo), hi)]
        for x in probes:
            if lo < x < hi:
                value = central(x)
                if value <= target:
                    lo, lo_value = x, value
                else:
                    hi, hi_value = x, value
        if hi - lo > 0.5 * width:  # false position stalled: bisect
            x = 0.5 * (lo + hi)
            value = central(x)
            if value <= target:
                lo, lo_value = x, value
            else:
                hi, hi_value = x, value
    return Bracket(lo, hi, lo_value)


def bound_of(n: int, delta: float, theta: float) -> Callable[[float], float]:
    """``ε₀ ↦`` the central ε `shuffle_epsilon` certifies for the witness of
    ``(ε₀, p_θ(ε₀))`` over ``n`` users at ``delta``."""

    def central(epsilon0: float) -> float:
        matrix = witness(epsilon0, clone_probability(epsilon0, theta))
        return shuffle_epsilon(matrix, n, delta).epsilon

    return central
