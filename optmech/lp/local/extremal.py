"""The ε-LDP randomizer that maximises an information-theoretic utility (Kairouz, Oh &
Viswanath (2016)), and the binary and randomized-response mechanisms it is compared with.

For a sublinear utility ``U(Q) = Σ_y μ(Q[:, y])`` (`optmech.utilities`) the best ε-LDP
randomizer over k inputs is a *staircase* mechanism (their staircase theorem): every column is
``θ_j S_j`` with a pattern ``S_j ∈ {1, e^ε}^k``. Since ``μ`` is positively homogeneous the
utility is linear in the weights, and the optimum is the LP over the ``2^k`` patterns (their
linear-programming theorem):

    maximise  Σ_j μ(S_j) θ_j   subject to   Σ_j θ_j S_j = 1   (one row per input),   θ ≥ 0.

A vertex (simplex) uses at most k patterns. For any multipliers ``λ`` of the k rows, weak duality
gives ``optimum ≤ Σ_x λ_x + max(0, max_j (μ(S_j) − λ · S_j))`` — every feasible θ has
``Σ_j θ_j ≤ 1`` because ``S_j ≥ 1``. `pattern_bound` evaluates it with outward rounding at the
ratio ``e^ε`` rounded *up* (the optimum grows with the ratio), so it is an upper bound on the
optimum over ε-LDP mechanisms whatever the solver's accuracy.

`extremal_mechanism` solves this LP exactly for up to 14 inputs, builds the staircase mechanism
of its vertex, certifies it ε-LDP from its matrix over every pair of inputs, and encloses the
optimum in ``[value, upper_bound]``: ``value`` is the utility of the returned matrix rounded
down, ``upper_bound`` the LP's weak-duality bound rounded up.

Kairouz, Oh & Viswanath (2016) also show that two simple staircase mechanisms suffice at the
extremes: the **binary** mechanism is optimal for every small enough ε (with
``T = {x : p₀(x) ≥ p₁(x)}`` for hypothesis testing) and **randomized response** for every
large enough ε. `binary_value` and `randomized_response_value` give those mechanisms'
utilities, enclosed.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np

from optmech._floats import FloatArray
from optmech._validation import check_flag, describe
from optmech.exceptions import ProblemTooLargeError
from optmech.lp.engine.certified import CertifiedLP, Policy, certified_solve
from optmech.lp.engine.report import reporting, stage
from optmech.lp.matrix.repair import certify_local, shrunk_until_certified
from optmech.lp.matrix.result import input_index, release
from optmech.lp.matrix.setting import check_epsilon
from optmech.lp.solve import Strategy
from optmech.mechanisms.local_randomizer import LocalRandomizer
from optmech.mechanisms.randomized_response import binary_mechanism, randomized_response
from optmech.provenance import DEFAULT_ACCURACY, Provenance, warn_if_uncertified
from optmech.results import BaseResult
from optmech.utilities import KLDivergence, Utility

__all__ = [
    "ExtremalMechanism",
    "binary_value",
    "extremal_mechanism",
    "paper_binary_set",
    "randomized_response_value",
]

_log = logging.getLogger(__name__)

#: Largest number of inputs of the exact pattern LP: ``2^14 = 16,384`` patterns. Measured with
#: simplex on 2 shared cores (mutual information, random priors, ε ∈ {0.1, 1, 5}): k = 12 in
#: 0.3–0.4 s, k = 13 in 0.7–0.8 s, k = 14 in 1.7–3.5 s, k = 16 in 19–60 s.
MAX_PATTERN_INPUTS = 14


def patterns(k: int) -> FloatArray:
    """The ``(k, 2^k)`` 0/1 matrix whose column j is the binary expansion of j (input x high
    when bit x is set)."""
    j = np.arange(2**k, dtype=np.int64)
    return ((j[None, :] >> np.arange(k)[:, None]) & 1).astype(np.float64)


def pattern_columns(bits: FloatArray, ratio: float) -> FloatArray:
    """``S_j = 1 + (ratio − 1)·bits_j``."""
    return 1.0 + (ratio - 1.0) * bits


def pattern_bound(utility: Utility, epsilon: float, multipliers: FloatArray) -> float:
    """``Σ λ + max(0, max_j μ(S_j) − λ·S_j)`` at ratio ``e^ε`` rounded up, rounded up (module
    docstring); ``inf`` for non-finite multipliers."""
    lam = np.asarray(multipliers, dtype=np.float64)
    if not np.all(np.isfinite(lam)):
        return math.inf
    ratio = math.nextafter(math.exp(epsilon), math.inf)
    columns = pattern_columns(patterns(lam.size), ratio)
    _, mu_hi = utility.column_interval(columns, columns)
    slack = 1.01 * (lam.size + 1) * 2.0**-53 * (np.abs(lam) @ columns) + 5e-324  # γ_k · |λ|·S_j
    dot_lo = np.nextafter(lam @ columns - slack, -np.inf)  # λ · S_j rounded down
    reduced = float(np.max(np.nextafter(mu_hi - dot_lo, np.inf)))
    total = math.fsum(lam.tolist())
    total_hi = math.nextafter(total + abs(total) * 2.0**-52, math.inf)
    return math.nextafter(total_hi + max(0.0, reduced) * (1.0 + 2.0**-52), math.inf)


#: The returned mechanism's ratio is ``e^ε (1 − 2^-36)``: room for the rows' normalisation, so
#: that the certificate is at most ε.
_SHRINK = 2.0**-36


@dataclass(frozen=True, repr=False)
class ExtremalMechanism(BaseResult):
    """The optimal ε-LDP randomizer for a utility, with its certified interval.

    A *maximisation*: the optimum lies in ``[value, upper_bound]`` (the other LP results of
    optmech minimise, and their interval is ``[lower_bound, value]``); so ``lower_bound`` is
    ``value`` and ``gap`` is ``upper_bound − value``, as the result protocol
    (`optmech.results.Result`) defines them.

    Attributes
    ----------
    utility : Utility
        What is maximised.
    epsilon : float
        Requested ε.
    mechanism : ndarray, shape (k, N)
        A staircase mechanism (rows: inputs; one column per pattern used).
    patterns : ndarray of bool, shape (k, N)
        Which entries of each column are the high ones ($e^ε$ times the low).
    value : float
        Utility of `mechanism` in nats, rounded down: the optimum is at least this.
    upper_bound : float
        The optimum is at most this (weak duality, rounded up).
    certified_epsilon : float
        ε of `mechanism` certified over every pair of inputs (≤ `epsilon`).
    provenance : Provenance
        The LP's solve, stated as the minimisation of $−U$: its ``value`` is $−value$ and
        its ``lower_bound`` is ``−upper_bound``.

    Examples
    --------
    >>> import numpy as np
    >>> import optmech
    >>> from optmech.utilities import MutualInformation
    >>> best = optmech.extremal_mechanism(MutualInformation(np.full(2, 0.5)), 1.0)
    >>> best.mechanism.shape, bool(best.value <= best.upper_bound)
    ((2, 2), True)
    """

    utility: Utility
    epsilon: float
    mechanism: FloatArray = field(repr=False)
    patterns: np.ndarray = field(repr=False)
    value: float
    upper_bound: float
    certified_epsilon: float
    provenance: Provenance

    _model = "extremal (ε-LDP)"

    @property
    def lower_bound(self) -> float:
        """`value`: the optimum (a maximum) is at least the utility of `mechanism`."""
        return self.value

    @property
    def randomizer(self) -> LocalRandomizer:
        """`mechanism` as a `LocalRandomizer`: inputs ``0..k − 1``, outputs the column indices
        ``0..N − 1`` (the patterns used, in the order of `patterns`)."""
        return LocalRandomizer(self.mechanism)

    def rvs(self, true_value: Any, size: Any = None, rng: Any = None) -> Any:
        """Release outputs (column indices of `mechanism`, the patterns used) for the input of
        index ``true_value`` (``0..k − 1``): draws from its row as stored, by the exact sampler
        (`RationalTable`)."""
        row = input_index(true_value, self.mechanism.shape[0])
        return release(self.mechanism, row, np.arange(self.mechanism.shape[1]), size, rng)

    def plot(self, ax: Any = None) -> Any:
        """Heat map of `mechanism` (rows: inputs; columns: the patterns used); the title names
        the model; returns the Axes."""
        from optmech.plotting import plot_mechanism

        return plot_mechanism(
            self.mechanism,
            ax,
            output_label="output (pattern)",
            title=f"{self.model}, ε = {self.epsilon:g}, {self.value:.6g} nats",
        )

    _dict_fields = ("utility", "epsilon", "mechanism", "patterns")

    def _fields(self) -> dict[str, Any]:
        fields = super()._fields()
        fields["utility"] = repr(self.utility)
        return fields

    def _own_rows(self) -> list[tuple[str, Any]]:
        return [
            ("utility", f"{self.utility!r} (nats, maximised)"),
            ("outputs", self.mechanism.shape[1]),
        ]

    def __repr__(self) -> str:
        return (
            f"ExtremalMechanism({self.utility!r}, epsilon={self.epsilon:g}, value="
            f"{self.value:.10g}, upper_bound={self.upper_bound:.10g}, outputs="
            f"{self.mechanism.shape[1]}, certified_epsilon={self.certified_epsilon:.10g})"
        )


@dataclass(frozen=True)
class _Read:
    weights: FloatArray
    multipliers: FloatArray


@dataclass(frozen=True)
class _Staircase:
    mechanism: FloatArray
    patterns: np.ndarray


class _PatternLP(CertifiedLP[tuple[cp.Variable, cp.Constraint, float], _Read, _Staircase]):
    """The pattern LP at ratio ``e^ε`` as a minimisation of ``−U`` (`optmech.lp.engine.certified`):
    the staircase mechanism of the used patterns is certified ε-LDP and worth its utility rounded
    down; the bound is weak duality with either sign convention of the multipliers."""

    def __init__(self, utility: Utility, epsilon: float) -> None:
        self.utility, self.epsilon = utility, epsilon
        self.bits = patterns(utility.num_inputs)
        self.columns = pattern_columns(self.bits, math.exp(epsilon))
        self.mu = utility.column_values(self.columns)
        self.top = float(np.max(np.abs(self.mu))) or 1.0
        self.num_variables = self.bits.shape[1]

    def build(
        self, strategy: Strategy
    ) -> tuple[cp.Problem, tuple[cp.Variable, cp.Constraint, float]]:
        theta = cp.Variable(self.bits.shape[1], nonneg=True)
        scale = self.top if strategy.rescaled else 1.0
        rows = self.columns @ theta == 1
        problem = cp.Problem(cp.Maximize((self.mu / scale) @ theta), [rows])
        return problem, (theta, rows, scale)

    def read(self, built: tuple[cp.Variable, cp.Constraint, float]) -> _Read:
        theta, rows, scale = built
        duals = rows.dual_value
        lam = (
            np.full(self.bits.shape[0], np.nan) if duals is None else np.asarray(duals, dtype=float)
        )
        weights = np.clip(np.asarray(theta.value, dtype=np.float64), 0.0, None)
        return _Read(weights, lam.reshape(-1) * scale)

    def repair(self, point: _Read) -> _Staircase:
        """The mechanism of the used patterns at a ratio just below ``e^ε``, rows normalised
        (`shrunk_until_certified`)."""
        w = point.weights
        used = w > 1e-14 * w.max()
        bits, weights = self.bits[:, used], w[used]

        def build(ratio: float) -> FloatArray:
            q = pattern_columns(bits, ratio) * weights[None, :]
            return q / q.sum(axis=1, keepdims=True)

        return _Staircase(shrunk_until_certified(build, self.epsilon, _SHRINK)[0], bits)

    def certify(self, candidate: _Staircase) -> float | None:
        if certify_local(candidate.mechanism) > self.epsilon:
            return None
        return -self.utility.value_interval(candidate.mechanism)[0]

    def bound(self, built: object, point: _Read) -> float:
        lam, util, eps = point.multipliers, self.utility, self.epsilon
        # Either sign convention of the multipliers gives a valid bound: keep the smaller.
        return -min(pattern_bound(util, eps, lam), pattern_bound(util, eps, -lam))


def extremal_mechanism(
    utility: Utility,
    epsilon: float,
    *,
    solver: str | None = None,
    accuracy: float = DEFAULT_ACCURACY,
    progress: bool = False,
) -> ExtremalMechanism:
    """The ε-LDP randomizer maximising ``utility`` (Kairouz, Oh & Viswanath (2016)).

    Parameters
    ----------
    utility : MutualInformation or KLDivergence
        From `optmech.utilities`; at most 14 inputs ($2^{14}$ patterns).
    epsilon : float
        Privacy level, in (0, 50].
    solver : str, optional
        A simplex LP solver (a vertex is needed); default by the policy.
    accuracy : float, default 1e-6
        Warn when ``upper_bound − value`` exceeds this (relative to ``max(value, 1)``).
    progress : bool, default False
        Show a progress bar (tqdm, on stderr) of the stages (the pattern LP, its solver
        attempts, the certificate) with the elapsed time; the stages are logged at INFO on the
        ``"optmech"`` logger either way.

    Returns
    -------
    ExtremalMechanism

    Raises
    ------
    ProblemTooLargeError
        More than 14 inputs.

    Examples
    --------
    >>> import math
    >>> from optmech.utilities import MutualInformation
    >>> res = extremal_mechanism(MutualInformation([0.5, 0.5]), math.log(3.0))
    >>> round(res.value, 9)   # binary = randomized response: log 2 − h(3/4) nats
    0.130812036
    >>> res.certified_epsilon <= math.log(3.0) and res.value <= res.upper_bound
    True
    """
    if not isinstance(utility, Utility):
        raise TypeError(
            "`utility` must be an optmech.utilities utility such as MutualInformation(prior) "
            f"or KLDivergence(p0, p1); got {describe(utility)}."
        )
    eps = check_epsilon(epsilon)
    k = utility.num_inputs
    if k > MAX_PATTERN_INPUTS:  # refused before building anything
        raise ProblemTooLargeError(
            f"the staircase-pattern LP over {k} inputs has 2^{k} = {2**k} patterns, more than "
            f"the 2^{MAX_PATTERN_INPUTS} = {2**MAX_PATTERN_INPUTS} it solves exactly; refused "
            "before building anything. Merge inputs (the utility of a merged input is a lower "
            "bound) or use the binary or randomized-response mechanism."
        )
    progress = check_flag("progress", progress)
    with reporting(progress=progress, what="extremal_mechanism"):
        with stage("pattern LP", _log, inputs=k, patterns=2**k) as found:
            policy = Policy(solver=solver, vertex=True, accuracy=accuracy, cross_check=False)
            outcome = certified_solve(_PatternLP(utility, eps), policy)
            found.update(status=outcome.used.info.status)
        with stage("certify", _log) as found:
            mechanism, bits = outcome.best.candidate.mechanism, outcome.best.candidate.patterns
            low, upper = -outcome.best.value, max(-outcome.lower, -outcome.best.value)
            found.update(outputs=bits.shape[1], value=low, upper_bound=upper)
    provenance = outcome.provenance(accuracy=accuracy)
    result = ExtremalMechanism(
        utility=utility,
        epsilon=eps,
        mechanism=mechanism,
        patterns=bits.astype(bool),
        value=low,
        upper_bound=upper,
        certified_epsilon=certify_local(mechanism),
        provenance=provenance,
    )
    warn_if_uncertified(provenance)
    return result


def paper_binary_set(utility: Utility) -> np.ndarray:
    """The set ``T`` of the binary mechanism of Kairouz, Oh & Viswanath (2016): ``{x : p₀(x) ≥
    p₁(x)}`` for hypothesis testing; for mutual information the ``T`` whose prior mass is
    closest to 1/2 (``I = h(q) − h(e^ε/(1 + e^ε))`` with ``q`` the chance of output 1, which is
    largest when ``P(T)`` is closest to 1/2; ties broken by the smallest index set)."""
    if isinstance(utility, KLDivergence):
        return utility.p0 >= utility.p1
    k = utility.num_inputs
    bits = patterns(k)[:, 1:-1].astype(bool)
    mass = utility.prior @ bits  # type: ignore[attr-defined]
    return bits[:, int(np.argmin(np.abs(mass - 0.5)))]


def binary_value(
    utility: Utility, epsilon: float, high: np.ndarray | None = None
) -> tuple[float, float]:
    """Enclosure of the utility of the binary mechanism with set ``high`` (default
    `paper_binary_set`)."""
    t = paper_binary_set(utility) if high is None else np.asarray(high, dtype=bool)
    return utility.value_interval(binary_mechanism(t, epsilon))


def randomized_response_value(utility: Utility, epsilon: float) -> tuple[float, float]:
    """Enclosure of the utility of k-ary randomized response (Warner (1965))."""
    return utility.value_interval(randomized_response(utility.num_inputs, epsilon))
