"""Checks of the local model (label DP, extremal LDP mechanisms), group ``local``.

1. **RR-on-Bins is optimal** (Ghazi et al. (2023)): over all ε-label-DP randomizers with real
   outputs, the optimum for the squared and the absolute error is an RR-on-Bins, found by their
   dynamic programme. On a grid that contains the bins' outputs, the complete-graph LP
   (`optmech.local_mechanism`) must therefore *equal* it: its certified
   interval must contain the RR-on-Bins value, enclosed in ball arithmetic from the bins and
   outputs. On a uniform grid without those outputs the LP can only be above it, by at most what
   randomised rounding to the grid costs (``h²/4`` for the squared error, ``h/2`` for the
   absolute error, ``h`` the widest cell): the certificate rule with that allowance.
2. **Unbiased randomizers** (Badanidiyuru et al. (2023)): a vertex of the unbiased LP uses at most
   ``2n`` outputs (their bound of ``2|Y|``); the price of unbiasedness is positive (the unbiased
   optimum's certified lower bound is above RR-on-Bins' value); for two labels the optimum is
   randomized response onto debiased outputs, of variance ``e^ε Δ²/(e^ε − 1)²``.
3. **Extremal mechanisms** (Kairouz, Oh & Viswanath (2016)): for every instance there is an ε*
   below which the binary mechanism is optimal and an ε** above which randomized response is;
   the rows check ε = 0.05 and ε = 12 on k ≤ 6 inputs (their values enclosed in ball arithmetic
   from their closed forms, against the pattern LP's certified interval), and that no random
   ε-LDP mechanism (certified) beats the pattern LP's certified upper bound.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import flint
import numpy as np

from optmech import extremal_mechanism, local_mechanism, rr_on_bins
from optmech.certify import certify_mechanism
from optmech.constraints import Unbiased
from optmech.lp.local.extremal import paper_binary_set
from optmech.theorems import _enclose as enc
from optmech.theorems._support import PRIVACY_RULE, privacy_ok, privacy_terms, timed
from optmech.theorems.catalogue import (
    CheckResult,
    bound_row,
    certificate_row,
    check_cases,
    exact_row,
    guarded,
)
from optmech.utilities import KLDivergence, MutualInformation, Utility

__all__ = ["extremal_rows", "random_mechanism_rows", "rr_on_bins_rows", "unbiased_rows"]

GROUP = "local"
#: The float programme's outputs and bins are optimal to its rounding: the optimum over real
#: outputs lies within this (relative) below RR-on-Bins' value at them.
PROGRAMME_RTOL = 1e-12


def _labels(seed: int, n_range: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, float]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(n_range[0], n_range[1] + 1))
    x = np.sort(rng.choice(np.arange(400), n, replace=False)).astype(float) / 20.0
    return x, rng.dirichlet(np.full(n, 0.8)), float(rng.uniform(0.2, 4.0))


def _rr_value(x: np.ndarray, p: np.ndarray, eps: float, bins: Any, outputs: Any, loss: str) -> Any:
    """RR-on-Bins' expected loss in ball arithmetic (Ghazi et al. (2023): ``(1/(e^ε + k − 1))
    Σ_j Σ_x p(x) c_j(x) ℓ(ŷ_j, x)``, ``c_j = e^ε`` on bin j)."""
    with enc.precision():
        ratio = enc.arb(eps).exp()
        total = flint.arb(0)
        for j, members in enumerate(bins):
            out = enc.arb(float(outputs[j]))
            for xi, pi in zip(x, p, strict=True):
                err = out - enc.arb(float(xi))
                term = err * err if loss == "squared" else abs(err)
                weight = ratio if float(xi) in members else flint.arb(1)
                total += enc.arb(float(pi)) * weight * term
        return total / (ratio + len(bins) - 1)


def _rr_row(seed: int, loss: str, grid: str) -> CheckResult:
    x, p, eps = _labels(seed, (3, 8))
    rr = rr_on_bins(p, loss, eps, inputs=x)
    lo, hi = enc.bounds(_rr_value(x, p, eps, rr.bins, rr.outputs, loss))
    uniform = np.linspace(x[0], x[-1], 2 * x.size + 1)
    outputs = np.union1d(uniform, rr.outputs) if grid == "with" else uniform
    lp = local_mechanism(p, loss, eps, inputs=x, outputs=outputs)
    h = float(np.max(np.diff(outputs)))
    allowance = 0.0 if grid == "with" else (h * h / 4 if loss == "squared" else h / 2)
    name = (
        "RR-on-Bins = complete-graph LP"
        if grid == "with"
        else "complete-graph LP ≥ RR-on-Bins (grid without its outputs)"
    )
    return certificate_row(
        name,
        f"n={x.size}, eps={eps:.4g}, {loss}, seed={seed}",
        lower=lp.lower_bound,
        upper=lp.value,
        reference=(lo * (1 - PROGRAMME_RTOL), hi),
        allowance=allowance,
        group=GROUP,
        detail=(
            f"{len(rr.bins)} bins; LP over {outputs.size} outputs "
            + ("containing the bins' outputs" if grid == "with" else f"(widest cell {h:.3g})")
            + "; reference: RR-on-Bins' value at the programme's outputs in ball arithmetic, "
            f"less {PROGRAMME_RTOL:g} relative for the float programme's rounding"
            + ("" if grid == "with" else "; allowance: the cost of randomised rounding to the grid")
        ),
        **privacy_terms(lp.certified_epsilon, eps),
    )


def _guarded_rows(
    check: str,
    make: Callable[..., CheckResult],
    cases: Iterable[tuple[Any, ...]],
    instance: Callable[..., str],
) -> list[CheckResult]:
    """``make(*case)`` for every case, each `guarded` and timed; ``instance(*case)``
    names the case in a failed row."""
    return [
        guarded(check, instance(*case), functools.partial(timed, make, *case), group=GROUP)
        for case in cases
    ]


def rr_on_bins_rows(seeds: Sequence[int]) -> list[CheckResult]:
    """RR-on-Bins against the LP, both losses, a grid with and one without its outputs."""
    return _guarded_rows(
        "RR-on-Bins = complete-graph LP",
        _rr_row,
        itertools.product(seeds, ("squared", "absolute"), ("with", "without")),
        lambda seed, loss, grid: f"seed={seed}, {loss}, {grid}",
    )


def _debiased_row(eps: float) -> CheckResult:
    x0, x1 = 0.0, 1.0
    ratio = math.exp(eps)
    a, b = x0 - (x1 - x0) / (ratio - 1), x1 + (x1 - x0) / (ratio - 1)
    outputs = np.union1d(np.linspace(a - 1, b + 1, 31), [a, b])
    lp = local_mechanism(
        [0.3, 0.7], "squared", eps, inputs=[x0, x1], outputs=outputs, constraints=Unbiased()
    )
    with enc.precision():
        e = enc.arb(eps).exp()
        closed = e / (e - 1) ** 2
    lo, hi = enc.bounds(closed)
    return certificate_row(
        "unbiased optimum, two labels (debiased randomized response)",
        f"labels 0, 1, eps={eps:g}",
        lower=lp.lower_bound,
        upper=lp.value,
        reference=(lo, hi),
        allowance=PROGRAMME_RTOL * hi,
        group=GROUP,
        detail="randomized response onto a = −1/(e^ε − 1), b = e^ε/(e^ε − 1) is unbiased with "
        "variance e^ε/(e^ε − 1)² for both labels; LP with Unbiased() on a grid containing a and "
        "b (rounded: allowance 1e-12 relative)",
        **privacy_terms(lp.certified_epsilon, eps),
    )


def _unbiased_instance(seed: int) -> list[CheckResult]:
    x, p, eps = _labels(1000 + seed, (2, 6))
    span = x[-1] - x[0]
    outputs = np.linspace(x[0] - 3 * span, x[-1] + 3 * span, 61)
    start = time.perf_counter()
    lp = local_mechanism(
        p, "squared", eps, inputs=x, outputs=outputs, constraints=Unbiased(), vertex=True
    )
    rr = rr_on_bins(p, "squared", eps, inputs=x)
    used = int(lp.support.size)
    instance = f"n={x.size}, eps={eps:.4g}, seed={seed}"
    seconds = time.perf_counter() - start
    support = exact_row(
        "unbiased optimum uses at most 2n outputs",
        instance,
        used,
        2 * x.size,
        used <= 2 * x.size and privacy_ok(lp.certified_epsilon, eps),
        rule=f"outputs used by the simplex vertex ≤ 2n; {PRIVACY_RULE}",
        group=GROUP,
        detail="Badanidiyuru et al. (2023): some optimal unbiased randomizer has at most 2|Y| "
        f"outputs; the vertex of the LP over {outputs.size} outputs uses {used}",
        certified_epsilon=lp.certified_epsilon,
        seconds=seconds,
    )
    with enc.precision():
        lo, hi = enc.bounds(_rr_value(x, p, eps, rr.bins, rr.outputs, "squared"))
    price = bound_row(
        "price of unbiasedness > 0",
        instance,
        value=(lp.lower_bound, lp.value),
        reference=(lo * (1 - PROGRAMME_RTOL), hi),
        relation=">",
        group=GROUP,
        detail=f"unbiased optimum {lp.value:.6g} against RR-on-Bins {rr.value:.6g} "
        f"(ratio {lp.value / rr.value:.3g})",
    )
    return [support, price]


def unbiased_rows(seeds: Sequence[int], epsilons: Sequence[float]) -> list[CheckResult]:
    """The unbiased randomizers' rows (module docstring, item 2)."""
    rows = [
        guarded("unbiased optimum", f"eps={e:g}", functools.partial(_debiased_row, e), group=GROUP)
        for e in epsilons
    ]
    for seed in seeds:
        rows += _unbiased_instance(seed)
    return rows


# -- extremal mechanisms ----------------------------------------------------------------------
def _utility_ball(utility: Utility, rows: list[list[Any]]) -> Any:
    """``U(Q)`` in ball arithmetic for a matrix of balls (mutual information or KL)."""
    cols = len(rows[0])
    if isinstance(utility, MutualInformation):
        p = [enc.arb(float(v)) for v in utility.prior]
        total = flint.arb(0)
        for y in range(cols):
            law = sum((p[x] * rows[x][y] for x in range(len(p))), flint.arb(0))
            for x, px in enumerate(p):
                total += px * rows[x][y] * (rows[x][y] / law).log()
        return total
    assert isinstance(utility, KLDivergence)
    p0 = [enc.arb(float(v)) for v in utility.p0]
    p1 = [enc.arb(float(v)) for v in utility.p1]
    total = flint.arb(0)
    for y in range(cols):
        m0 = sum((p0[x] * rows[x][y] for x in range(len(p0))), flint.arb(0))
        m1 = sum((p1[x] * rows[x][y] for x in range(len(p1))), flint.arb(0))
        total += m0 * (m0 / m1).log()
    return total


def _closed_form(utility: Utility, eps: float, kind: str) -> tuple[float, float]:
    """The binary mechanism's (or randomized response's) utility from its closed form."""
    k = utility.num_inputs
    with enc.precision():
        e = enc.arb(eps).exp()
        if kind == "binary":
            high = paper_binary_set(utility)
            hi_p, lo_p = e / (1 + e), 1 / (1 + e)
            rows = [[hi_p, lo_p] if t else [lo_p, hi_p] for t in high]
        else:
            diag, off = e / (e + k - 1), 1 / (e + k - 1)
            rows = [[diag if y == x else off for y in range(k)] for x in range(k)]
        return enc.bounds(_utility_ball(utility, rows))


def _utility(seed: int, kind: str) -> Utility:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 7))
    if kind == "MI":
        return MutualInformation(rng.dirichlet(np.ones(k)))
    return KLDivergence(rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k)))


def _extremal_row(seed: int, kind: str, mechanism: str, eps: float) -> CheckResult:
    utility = _utility(seed, kind)
    res = extremal_mechanism(utility, eps)
    ref = _closed_form(utility, eps, mechanism)
    name = (
        "binary mechanism optimal (high privacy)"
        if mechanism == "binary"
        else "randomized response optimal (low privacy)"
    )
    return certificate_row(
        name,
        f"{kind}, k={utility.num_inputs}, eps={eps:g}, seed={seed}",
        lower=res.value,
        upper=res.upper_bound,
        reference=ref,
        group=GROUP,
        detail=(
            f"pattern LP over 2^{utility.num_inputs} staircase patterns, certified "
            f"[{res.value:.12g}, {res.upper_bound:.12g}] nats; reference: the "
            + (
                "binary mechanism (T = {x : p0(x) ≥ p1(x)} for KL; the T whose prior mass is "
                "closest to 1/2 for mutual information)"
                if mechanism == "binary"
                else "k-ary randomized response"
            )
            + " in ball arithmetic. Kairouz, Oh & Viswanath (2016) prove a threshold exists "
            "for every instance; ε is chosen inside that regime"
        ),
        **privacy_terms(res.certified_epsilon, eps),
    )


def extremal_rows(seeds: Sequence[int]) -> list[CheckResult]:
    """Binary at ε = 0.05 and randomized response at ε = 12, for MI and KL instances."""
    return _guarded_rows(
        "extremal mechanisms",
        _extremal_row,
        (
            (seed, kind, mechanism, eps)
            for seed, kind in itertools.product(seeds, ("MI", "KL"))
            for mechanism, eps in (("binary", 0.05), ("rr", 12.0))
        ),
        lambda seed, kind, mechanism, _: f"{kind}, {mechanism}, seed={seed}",
    )


def _random_vertex(rng: np.random.Generator, k: int, eps: float) -> np.ndarray | None:
    """A random vertex of the pattern polytope: k random staircase patterns, their weights
    solving ``Σ_j θ_j S_j = 1`` (``None`` unless they are all positive), as a mechanism whose
    ratio is ``e^ε (1 − 2^-36)`` (room for the rows' normalisation)."""
    bits = rng.integers(0, 2, size=(k, k)).astype(float)
    cols = 1.0 + (math.exp(eps) - 1.0) * bits
    try:
        theta = np.linalg.solve(cols, np.ones(k))
    except np.linalg.LinAlgError:
        return None
    if not np.all(theta > 0):
        return None
    q = (1.0 + (math.exp(eps) * (1 - 2.0**-36) - 1.0) * bits) * theta[None, :]
    return q / q.sum(axis=1, keepdims=True)


def _random_row(seed: int, kind: str, eps: float, count: int) -> CheckResult:
    utility = _utility(seed, kind)
    res = extremal_mechanism(utility, eps)
    rng = np.random.default_rng(seed + 17)
    k = utility.num_inputs
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)])
    best = -math.inf
    private = True
    tried = vertices = 0
    while tried < count:
        tried += 1
        q = _random_vertex(rng, k, eps) if tried % 2 else None
        if q is None:
            m = int(rng.integers(2, 2 * k + 1))
            a = np.exp(rng.uniform(0.0, eps / 2, size=(k, m)))
            q = a / a.sum(axis=1, keepdims=True)  # row sums in [m, m e^(ε/2)]: ε-LDP
        else:
            vertices += 1
        private &= certify_mechanism(q, pairs).epsilon <= eps
        best = max(best, utility.value_interval(q)[1])
    return exact_row(
        "no random ε-LDP mechanism beats the pattern LP",
        f"{kind}, k={k}, eps={eps:g}, seed={seed}",
        best,
        res.upper_bound,
        private and best <= res.upper_bound,
        rule="every random mechanism certified ε-LDP; max of their utilities (upper "
        "enclosures) ≤ the LP's certified upper bound",
        group=GROUP,
        detail=f"{count} random mechanisms: {vertices} random staircase vertices (k random "
        "patterns, weights solving Σ θ_j S_j = 1, all positive) and the rest with entries in "
        f"[1, e^(ε/2)] before row normalisation; best {best:.10g} nats against the LP's "
        f"[{res.value:.10g}, {res.upper_bound:.10g}]",
    )


def random_mechanism_rows(seeds: Sequence[int], count: int) -> list[CheckResult]:
    """[`_random_row`] for MI and KL instances at ε ∈ {0.5, 2}."""
    return _guarded_rows(
        "no random ε-LDP mechanism beats the pattern LP",
        _random_row,
        itertools.product(seeds, ("MI", "KL"), (0.5, 2.0), (count,)),
        lambda seed, kind, eps, _: f"{kind}, eps={eps:g}, seed={seed}",
    )


check_cases(
    "RR-on-Bins = complete-graph LP",
    "RR-on-Bins = complete-graph LP (sweep)",
    group=GROUP,
    rows=rr_on_bins_rows,
    quick=[0, 1],
    sweep=list(range(2, 14)),
)
check_cases(
    "unbiased randomizers",
    "unbiased randomizers (sweep)",
    group=GROUP,
    rows=unbiased_rows,
    quick={"seeds": [0, 1], "epsilons": [1.0]},
    sweep={"seeds": list(range(2, 10)), "epsilons": [0.3, 2.0, 5.0]},
)
check_cases(
    "extremal mechanisms (binary, randomized response)",
    "extremal mechanisms (sweep)",
    group=GROUP,
    rows=extremal_rows,
    quick=[0],
    sweep=list(range(1, 8)),
)
check_cases(
    "no random ε-LDP mechanism beats the pattern LP",
    "no random ε-LDP mechanism beats the pattern LP (sweep)",
    group=GROUP,
    rows=random_mechanism_rows,
    quick={"seeds": [0], "count": 100},
    sweep={"seeds": list(range(1, 5)), "count": 1000},
)
