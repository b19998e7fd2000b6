"""RR-on-Bins: the optimal ε-label-DP randomizer for regression (Ghazi et al. (2023)).

Labels ``x_1 < … < x_n`` with prior ``p``. **RR-on-Bins** partitions the labels into bins
``B_1, …, B_k``, gives each bin an output ``ŷ_j``, and answers randomized response over the bins
(Ghazi et al. (2023)):

    Q(ŷ_j | x) = e^ε / (e^ε + k − 1)   if x ∈ B_j,      1 / (e^ε + k − 1)   otherwise.

Its expected loss is ``(1 / (e^ε + k − 1)) Σ_j Σ_x p(x) c_j(x) ℓ(ŷ_j, x)`` with ``c_j(x) = e^ε``
on the bin and 1 off it: given the bins, each output minimises its own weighted sum — the
weighted mean of the labels for the squared loss, a weighted median for the absolute loss — and
the cost of a bin depends on the bin alone. Ghazi et al. (2023) prove that for every
prior and loss some RR-on-Bins is optimal among *all* ε-DP randomizers with real outputs. For a
loss non-decreasing in ``|ŷ − x|`` each label prefers the nearest output, so the bins of an
optimum can be taken contiguous, and the best ``k`` contiguous bins follow from the dynamic
programme they give:

    A_1(b) = C(1, b),   A_j(b) = min_{a ≤ b} A_{j−1}(a − 1) + C(a, b),
    value = min_k A_k(n) / (e^ε + k − 1),

where ``C(a, b)`` is the least weighted loss of the bin ``{x_a, …, x_b}``. Every ``C(a, b)`` comes
from prefix sums (the weighted median by a vectorised bisection on the cumulative weights), so
the costs take ``O(n² log n)`` and the programme ``O(n³)``.

Examples
--------
Two equally likely labels at ε = ln 3: two bins, outputs pulled towards the middle.

>>> import math
>>> sol = optimal_bins([0.0, 1.0], [0.5, 0.5], math.log(3.0), "squared")
>>> sol.bins, [round(float(v), 12) for v in sol.outputs]
(((0, 0), (1, 1)), [0.25, 0.75])
>>> round(sol.value, 12)   # (0.5·(3·0.25² + 0.75²) · 2) / 4
0.1875
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_prior, check_real, check_real_array
from optmech.costs import Cost, as_cost

__all__ = [
    "MAX_BIN_INPUTS",
    "BinSolution",
    "bin_loss",
    "bin_output",
    "check_labels",
    "optimal_bins",
    "rr_on_bins_loss",
    "rr_on_bins_matrix",
    "supported_loss",
]

#: Largest number of labels the dynamic programme takes (``O(n³)``: about 5 s at 1000).
MAX_BIN_INPUTS = 1000

LossName = Literal["squared", "absolute"]


def supported_loss(loss: Any) -> LossName:
    """``"squared"`` or ``"absolute"`` for the losses the programme is exact for, else
    ValueError naming ``loss``."""
    if isinstance(loss, str) and loss.strip().lower() in ("squared", "absolute"):
        return loss.strip().lower()  # type: ignore[return-value]
    cost = loss if isinstance(loss, Cost) else as_cost(loss)
    law = cost.power_law
    if law is not None and law[1] == law[2] == 1.0 and law[0] in (1.0, 2.0):
        return "absolute" if law[0] == 1.0 else "squared"
    raise ValueError(
        "`loss` must be the squared or the absolute error for RR-on-Bins' dynamic programme "
        f"(Ghazi et al. (2023)); got {cost!r}. Use optmech.local_mechanism for other "
        "losses."
    )


def check_labels(inputs: Any, name: str = "inputs") -> FloatArray:
    """``inputs`` as a strictly increasing float array of at least 2 labels, else ValueError."""
    x = check_real_array(name, inputs, ndim=1)
    if x.size < 2:
        raise ValueError(f"`{name}` must hold at least 2 values; got {x.size}.")
    steps = np.diff(x)
    if np.any(steps <= 0):
        k = int(np.argmax(steps <= 0))
        what = "duplicate" if steps[k] == 0 else "unsorted"
        raise ValueError(
            f"`{name}` must be strictly increasing (sorted, no duplicates); got {what} values "
            f"{float(x[k])!r} and {float(x[k + 1])!r} at positions {k} and {k + 1}."
        )
    return x


@dataclass(frozen=True)
class BinSolution:
    """An optimal RR-on-Bins: its contiguous bins, their outputs and its expected loss.

    Attributes
    ----------
    bins : tuple of (int, int)
        ``(first, last)`` label index of each bin (inclusive), in increasing order.
    outputs : ndarray, shape (k,)
        ``ŷ_j``, the output of bin j.
    value : float
        The expected loss ``min_k A_k(n) / (e^ε + k − 1)``, recomputed from the bins.
    values_by_bins : ndarray, shape (n,)
        The best expected loss with exactly k bins, for k = 1, …, n (``inf`` for the k the
        programme proved cannot win and skipped).
    """

    bins: tuple[tuple[int, int], ...]
    outputs: FloatArray = field(repr=False)
    value: float
    values_by_bins: FloatArray = field(repr=False)

    @property
    def assignment(self) -> IntArray:
        """The bin of each label."""
        n = self.bins[-1][1] + 1
        out = np.empty(n, dtype=np.int64)
        for j, (a, b) in enumerate(self.bins):
            out[a : b + 1] = j
        return out


def _weights(prior: FloatArray, members: npt.ArrayLike, ratio: float) -> FloatArray:
    w = prior.copy()
    w[np.asarray(members)] *= ratio
    return w


def bin_output(
    inputs: FloatArray, prior: FloatArray, members: npt.ArrayLike, epsilon: float, loss: LossName
) -> float:
    """The best output of a bin: minimiser of ``Σ_x p(x) c(x) ℓ(ŷ, x)``, ``c = e^ε`` on the bin.

    The weighted mean (squared loss) or the lower weighted median (absolute loss).
    """
    w = _weights(prior, members, math.exp(epsilon))
    if loss == "squared":
        return float(np.sum(w * inputs) / np.sum(w))
    cum = np.cumsum(w)
    return float(inputs[int(np.searchsorted(cum, 0.5 * cum[-1]))])


def bin_loss(
    inputs: FloatArray,
    prior: FloatArray,
    members: npt.ArrayLike,
    output: float,
    epsilon: float,
    loss: LossName,
) -> float:
    """``Σ_x p(x) c(x) ℓ(output, x)`` with ``c = e^ε`` on the bin and 1 off it."""
    w = _weights(prior, members, math.exp(epsilon))
    err = output - inputs
    return float(np.sum(w * (err * err if loss == "squared" else np.abs(err))))


def rr_on_bins_loss(
    inputs: FloatArray,
    prior: FloatArray,
    assignment: IntArray,
    outputs: FloatArray,
    epsilon: float,
    loss: LossName,
) -> float:
    """Expected loss of RR-on-Bins with bin ``assignment[i]`` for label i and outputs ``outputs``
    (Ghazi et al. (2023)), computed from its matrix."""
    matrix = rr_on_bins_matrix(assignment, outputs.size, epsilon)
    err = outputs[None, :] - inputs[:, None]
    table = err * err if loss == "squared" else np.abs(err)
    return float(np.sum(prior[:, None] * matrix * table))


def rr_on_bins_matrix(assignment: npt.ArrayLike, num_bins: int, epsilon: float) -> FloatArray:
    """``Q[i, j] = e^ε/(e^ε + k − 1)`` if label i is in bin j, else ``1/(e^ε + k − 1)``."""
    a = np.asarray(assignment, dtype=np.int64)
    ratio = math.exp(epsilon)
    q = np.full((a.size, num_bins), 1.0 / (ratio + num_bins - 1))
    q[np.arange(a.size), a] = ratio / (ratio + num_bins - 1)
    return q


def _prefix(values: FloatArray) -> FloatArray:
    return np.concatenate([[0.0], np.cumsum(values)])


def _squared_costs(x: FloatArray, p: FloatArray, ratio: float) -> FloatArray:
    """``C[a, b]``, the least weighted squared loss of every bin ``{x_a..x_b}``."""
    centre = float(np.sum(p * x))
    xc = x - centre  # centred labels: less cancellation in W2 − W1²/W0
    c0, c1, c2 = _prefix(p), _prefix(p * xc), _prefix(p * xc * xc)
    s0 = c0[None, 1:] - c0[:-1, None]
    s1 = c1[None, 1:] - c1[:-1, None]
    s2 = c2[None, 1:] - c2[:-1, None]
    w0 = c0[-1] + (ratio - 1.0) * s0
    w1 = c1[-1] + (ratio - 1.0) * s1
    w2 = c2[-1] + (ratio - 1.0) * s2
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(w0 > 0, w1 / np.where(w0 > 0, w0, 1.0), 0.0)
    return np.maximum(w2 - w1 * mean, 0.0)


def _absolute_costs(x: FloatArray, p: FloatArray, ratio: float) -> FloatArray:
    """``C[a, b]`` of every bin (absolute loss) at its lower weighted median, found by
    bisection on the cumulative weights, vectorised over all bins."""
    n = x.size
    c0, c1 = _prefix(p), _prefix(p * x)
    a = np.arange(n)[:, None] * np.ones((1, n), dtype=np.int64)
    b = np.ones((n, 1), dtype=np.int64) * np.arange(n)[None, :]
    extra = ratio - 1.0

    def cum(i: IntArray, prefix: FloatArray) -> FloatArray:
        """Σ_{x ≤ i} w(x)·(prefix's quantity), w = p·(1 + (e^ε − 1)·[a ≤ x ≤ b])."""
        inside = prefix[np.clip(np.minimum(i, b) + 1, a, None)] - prefix[a]
        return prefix[i + 1] + extra * np.where(i >= a, inside, 0.0)

    total = cum(np.full((n, n), n - 1), c0)
    lo, hi = np.zeros((n, n), dtype=np.int64), np.full((n, n), n - 1)
    for _ in range(math.ceil(math.log2(max(n, 2))) + 1):  # smallest i: cum(i) ≥ total/2
        mid = (lo + hi) // 2
        right = cum(mid, c0) >= 0.5 * total
        hi = np.where(right, mid, hi)
        lo = np.where(right, lo, mid + 1)
    med = hi
    left_w, left_wx = cum(med, c0), cum(med, c1)
    all_wx = cum(np.full((n, n), n - 1), c1)
    y = x[med]
    cost = y * left_w - left_wx + (all_wx - left_wx) - y * (total - left_w)
    return np.maximum(cost, 0.0)


def _programme(cost: FloatArray, ratio: float) -> tuple[FloatArray, IntArray]:
    """``A[k − 1, b]`` (best total of k bins over labels ≤ b) and the argmin starts, for
    k = 1, … while more bins can still help.

    Every bin costs at least ``a₀ = C(1, n)/e^ε``, the least loss of one output under the prior
    alone, so k bins cost at least ``k a₀/(e^ε + k − 1)``, which increases with k: once that
    exceeds the best value found, no larger k can win and the programme stops.
    """
    n = cost.shape[0]
    upper = np.triu(np.ones((n, n), dtype=bool))
    table = np.full((n, n), np.inf)
    start = np.zeros((n, n), dtype=np.int64)
    table[0] = cost[0]
    floor = cost[0, n - 1] / ratio
    best = table[0, n - 1] / ratio
    for k in range(1, n):  # k + 1 bins; the last starts at a ≥ k
        if (k + 1) * floor / (ratio + k) > best:
            break
        prev = np.concatenate([[np.inf], table[k - 1][:-1]])  # A_k(a − 1)
        cand = np.where(upper, prev[:, None] + cost, np.inf)
        start[k] = np.argmin(cand, axis=0)
        table[k] = cand[start[k], np.arange(n)]
        best = min(best, table[k, n - 1] / (ratio + k))
    return table, start


def optimal_bins(
    inputs: npt.ArrayLike, prior: npt.ArrayLike, epsilon: float, loss: Any
) -> BinSolution:
    """The optimal RR-on-Bins by the dynamic programme of Ghazi et al. (2023).

    Parameters
    ----------
    inputs : array_like, shape (n,)
        The labels, strictly increasing; at most `MAX_BIN_INPUTS` (1000).
    prior : array_like, shape (n,)
        Their probabilities (non-negative, summing to 1 within 1e-9).
    epsilon : float
        Privacy level, in (0, 50].
    loss : {"squared", "absolute"} or Cost
        The squared or absolute error (``Squared()``, ``Absolute()``, ``Power(1 or 2)``).

    Returns
    -------
    BinSolution
    """
    x = check_labels(inputs)
    if x.size > MAX_BIN_INPUTS:
        raise ValueError(
            f"`inputs` must hold at most {MAX_BIN_INPUTS} labels for the O(n³) programme; got "
            f"{x.size}. Bin the labels first."
        )
    p = check_prior(prior, x.size)
    eps = check_real("epsilon", epsilon, low=0.0, high=50.0, low_open=True)
    name = supported_loss(loss)
    ratio = math.exp(eps)
    costs = _squared_costs if name == "squared" else _absolute_costs
    table, start = _programme(costs(x, p, ratio), ratio)
    n = x.size
    by_bins = table[:, n - 1] / (ratio + np.arange(n))
    k = int(np.argmin(by_bins))
    bins: list[tuple[int, int]] = []
    b = n - 1
    for j in range(k, -1, -1):
        a = int(start[j, b]) if j > 0 else 0
        bins.append((a, b))
        b = a - 1
    bins.reverse()
    members = [np.arange(a, b + 1) for a, b in bins]
    outputs = np.asarray([bin_output(x, p, m, eps, name) for m in members])
    total = math.fsum(
        bin_loss(x, p, m, y, eps, name) for m, y in zip(members, outputs, strict=True)
    )
    return BinSolution(
        bins=tuple(bins),
        outputs=outputs,
        value=total / (ratio + len(bins) - 1),
        values_by_bins=by_bins,
    )
