"""``shuffle-frontier``: the LP-designed local randomizer against frequency oracles, each
calibrated to the same certified central (ε, δ) of n shuffled reports.

Each of n users holds one of 8 labels ``0..7`` (a uniform prior and a skewed one,
``p(x) ∝ 0.6^x``), applies a local randomizer, and a shuffler releases the histogram of the
reports. For a central target ε at δ = 1e-6, every method is calibrated by the same certificate,
`optmech.shuffle_epsilon` (``method="auto"``), and only certified points are accepted:

* the **LP design**, `optmech.shuffle_mechanism` for the squared error under the prior (its
  own search over the (ε₀, p) frontier; it returns a calibrated baseline when none of its LP
  points beats it on its output grid, and says so in ``source``);
* **GRR** (generalised randomized response), **OUE** (optimised unary encoding) and
  **Hadamard response** (`optmech.GRR`, `optmech.OUE`, `optmech.HadamardResponse`), each at the
  largest local ε₀ whose certified central ε is at most the target, found by bisection on ε₀
  (to 1e-3 relative; ε₀ = target is always certified, since the certificate never exceeds ε₀);
* **RR-on-Bins** (Ghazi et al. 2023), as calibrated by `optmech.shuffle_mechanism`.

Utility is measured on the same task for every method: the Bayes expected squared error of the
channel followed by the Bayes-optimal remap of its outputs, the posterior mean,
``Σ_y Σ_x p(x) Q(y|x) (x − μ_y)²`` with ``μ_y`` the posterior mean of the label given report
y (so an oracle's report is scored by what it reveals, not by its format). For the oracles
the exact variance of the unbiased frequency estimator (Wang et al. 2017, Theorem 2) at the
calibrated ε₀, averaged over the 8 items when the data follow the prior, is a second table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import optmech
from optmech.experiments import ExperimentResult, _common

__all__ = ["bayes_squared_error", "calibrate", "run"]

NAME = "shuffle-frontier"
HEADER = [
    "prior",
    "n",
    "epsilon",
    "method",
    "local_epsilon",
    "certified_epsilon",
    "certificate",
    "bayes_mse",
    "ratio_to_best_oracle",
    "frequency_variance",
    "source",
]
TITLE = "Shuffle model: the LP-designed randomizer vs calibrated frequency oracles"
DELTA = 1e-6
LABELS = np.arange(8.0)
LP = "LP design"
ORACLES: dict[str, Callable[[int, float], Any]] = {
    "GRR": optmech.GRR,
    "OUE": optmech.OUE,
    "Hadamard response": optmech.HadamardResponse,
}
RR_ON_BINS = "RR-on-Bins"
METHODS = (LP, *ORACLES, RR_ON_BINS)
#: Relative width of the bisection on ε₀, and the largest ε₀ the oracles take.
TOLERANCE = 1e-3
MAX_LOCAL_EPSILON = 50.0


def _priors() -> dict[str, np.ndarray]:
    skew = 0.6**LABELS
    return {"uniform": np.full(LABELS.size, 1.0 / LABELS.size), "skewed 0.6^x": skew / skew.sum()}


def bayes_squared_error(matrix: Any, prior: Any, labels: Any) -> float:
    """The Bayes expected squared error of the channel ``matrix`` followed by the posterior
    mean of each output: ``Σ_y Σ_x p(x) Q(y|x) (x − μ_y)²``.

    Parameters
    ----------
    matrix : array_like, shape (k, m)
        ``Q[x, y] = P(report y | label x)``, rows summing to 1.
    prior : array_like, shape (k,)
        Probabilities of the labels.
    labels : array_like, shape (k,)
        The labels' values.

    Returns
    -------
    float

    Examples
    --------
    >>> bayes_squared_error([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], [0.0, 1.0])  # the truth
    0.0
    >>> bayes_squared_error([[0.5, 0.5], [0.5, 0.5]], [0.5, 0.5], [0.0, 1.0])  # the variance
    0.25
    """
    q = np.asarray(matrix, dtype=np.float64)
    p = np.asarray(prior, dtype=np.float64)
    x = np.asarray(labels, dtype=np.float64)
    if q.ndim != 2 or q.shape[0] != p.size or x.shape != p.shape:
        raise ValueError(
            f"`matrix` must have one row per label ({p.size}); got shape {q.shape} for "
            f"{x.size} labels and a prior of {p.size}."
        )
    joint = p[:, None] * q
    mass = joint.sum(axis=0)
    used = mass > 0.0
    mean = (x @ joint[:, used]) / mass[used]
    return float(np.sum(joint[:, used] * (x[:, None] - mean[None, :]) ** 2))


def calibrate(
    central: Callable[[float], float], target: float, *, start: float | None = None
) -> float:
    """The largest local ε₀ (to `TOLERANCE` relative, at most `MAX_LOCAL_EPSILON`) with
    ``central(ε₀) ≤ target``, found by bisection on log ε₀ over certified points only.

    ``central`` must be non-decreasing and at most its argument (a certificate never exceeds
    ε₀), so ε₀ = ``target`` is certified and starts the bracket; ``start`` is a guess of the
    answer (the search steps out from it by factors of 1.5).

    Examples
    --------
    >>> round(calibrate(lambda e0: e0 / 2, 1.0), 2)  # the largest ε₀ with ε₀/2 ≤ 1
    2.0
    """
    low, high = target, None
    guess = min(max(start if start is not None else 2.0 * target, target), MAX_LOCAL_EPSILON)
    while high is None:
        if guess <= low:
            guess = min(1.5 * low, MAX_LOCAL_EPSILON)
        if central(guess) <= target:
            low = guess
            if low >= MAX_LOCAL_EPSILON:
                return low
            guess = min(1.5 * guess, MAX_LOCAL_EPSILON)
        else:
            high = guess
    while high / low > 1.0 + TOLERANCE:
        mid = math.sqrt(low * high)
        if central(mid) <= target:
            low = mid
        else:
            high = mid
    return low


def _oracle_points(
    n: int, eps: float, starts: dict[str, float]
) -> dict[str, tuple[Any, optmech.ShuffleGuarantee]]:
    """Each oracle at its calibrated ε₀ and its certificate (``starts``: last ε₀ found)."""
    out = {}
    k = LABELS.size
    for name, family in ORACLES.items():

        def central(e0: float, family: Any = family) -> float:
            return float(optmech.shuffle_epsilon(family(k, e0), n, DELTA).epsilon)

        eps0 = calibrate(central, eps, start=starts.get(name))
        starts[name] = eps0
        oracle = family(k, eps0)
        out[name] = (oracle, optmech.shuffle_epsilon(oracle, n, DELTA))
    return out


def _rows(
    prior_name: str,
    prior: np.ndarray,
    n: int,
    eps: float,
    oracles: dict[str, tuple[Any, optmech.ShuffleGuarantee]],
    quick: bool,
) -> list[list[Any]]:
    thetas = (0.0, 1.0) if quick else (0.0, 0.25, 0.5, 0.75, 1.0)
    res = optmech.shuffle_mechanism(
        prior, "squared", eps, DELTA, n=n, inputs=LABELS, thetas=thetas, tolerance=TOLERANCE
    )
    mse: dict[str, float] = {}
    rows: list[list[Any]] = []
    for name, (oracle, g) in oracles.items():
        mse[name] = bayes_squared_error(oracle.randomizer.matrix, prior, LABELS)
        variance = float(np.mean(oracle.variance(n, prior)))
        rows.append([name, oracle.epsilon, g.epsilon, g.method, mse[name], variance, name])
    best = min(mse.values())
    mse[LP] = bayes_squared_error(res.mechanism, prior, res.inputs)
    g = res.guarantee
    rows.insert(0, [LP, res.local_epsilon, g.epsilon, g.method, mse[LP], math.nan, res.source])
    base = res.baselines.get(RR_ON_BINS)
    if base is not None:
        value = bayes_squared_error(base.randomizer.matrix, prior, LABELS)
        bg = base.guarantee
        rows.append([RR_ON_BINS, base.local_epsilon, bg.epsilon, bg.method, value, math.nan, ""])
    return [
        [prior_name, n, eps, r[0], r[1], r[2], r[3], r[4], r[4] / best, r[5], r[6]] for r in rows
    ]


def run(out_dir: _common.OutDir = None, *, seed: int = 0, quick: bool = False) -> ExperimentResult:
    """Run the experiment (module docstring); deterministic, ``seed`` is recorded only."""
    out = _common.OutputFolder(NAME, out_dir)
    sizes = [10_000] if quick else [1_000, 10_000, 100_000, 1_000_000]
    epsilons = [1.0] if quick else [0.1, 0.3, 1.0]
    priors = _priors()
    rows: list[list[Any]] = []
    for n in sizes:
        starts: dict[str, float] = {}
        for eps in epsilons:
            oracles = _oracle_points(n, eps, starts)  # the calibration reads no prior
            for prior_name, prior in priors.items():
                rows += _rows(prior_name, prior, n, eps, oracles, quick)
    for row in rows:
        if not row[5] <= row[2]:
            raise RuntimeError(f"a point above its target was accepted: {row}")
    out.write_csv(HEADER, rows)
    fig = _figure(rows, sizes, list(priors))
    lp_rows = [r for r in rows if r[3] == LP]
    ratios = [r[8] for r in lp_rows]
    from_lines = [r[8] for r in lp_rows if r[10].startswith("LP")]
    headline: dict[str, Any] = {
        "lp_over_best_oracle_min": min(ratios),
        "lp_over_best_oracle_max": max(ratios),
        "lp_over_rr_on_bins_min": min(_over_rr_on_bins(rows).values(), default=math.nan),
        "points": len(lp_rows),
        "points_won_by_an_lp_line": len(from_lines),
        "lp_line_over_best_oracle_min": min(from_lines, default=math.nan),
    }
    return _common.finish(
        out, fig, TITLE, _summary(rows, sizes, epsilons), headline, seed=seed, quick=quick
    )


def _over_rr_on_bins(rows: list[list[Any]]) -> dict[tuple[Any, ...], float]:
    """The design's error over the calibrated RR-on-Bins' at each (prior, n, ε) with one."""
    rr = {tuple(r[:3]): r[7] for r in rows if r[3] == RR_ON_BINS}
    return {
        tuple(r[:3]): r[7] / rr[tuple(r[:3])] for r in rows if r[3] == LP and tuple(r[:3]) in rr
    }


def _summary(rows: list[list[Any]], sizes: list[int], epsilons: list[float]) -> list[str]:
    lp = [r for r in rows if r[3] == LP]
    over_rr = _over_rr_on_bins(rows)
    best_name = {}
    for r in lp:
        oracle_rows = [s for s in rows if s[:3] == r[:3] and s[3] in ORACLES]
        best_name[tuple(r[:3])] = min(oracle_rows, key=lambda s: s[7])[3]
    table = [
        [
            r[0],
            r[1],
            r[2],
            r[4],
            r[7],
            best_name[tuple(r[:3])],
            r[8],
            over_rr.get(tuple(r[:3]), math.nan),
            r[10],
        ]
        for r in sorted(lp, key=lambda r: (r[0], r[1], r[2]))
    ]
    variance = [
        [r[1], r[2], r[3], r[4], r[9]] for r in rows if r[3] in ORACLES and r[0] == "uniform"
    ]
    return [
        "Shows: for labels shuffled from n users, the local randomizer designed by "
        "`shuffle_mechanism` for a central (ε, δ = 1e-6) target against GRR, OUE and Hadamard "
        "response, each at the largest ε₀ whose `shuffle_epsilon` certificate meets the same "
        "target; utility is the Bayes expected squared error after the posterior-mean remap "
        "(8 labels 0..7). A ratio below 1 is the design's gain over the best oracle. The design "
        "returns a calibrated baseline (GRR or RR-on-Bins) when none of its LP points beats it "
        "on its output grid; the last column says which. Ratios within about ε₀ · 1e-3 of 1 are "
        "the bisections' tolerance (each method's ε₀ is found to 1e-3 relative, and the error "
        "falls about like e^(−ε₀)).\n",
        f"Measured for n in {sizes} and central ε in {epsilons} (δ = {DELTA:g}); ratio = the "
        "design's error / the best calibrated oracle's (vs RR-on-Bins: / RR-on-Bins'):\n",
        _common.markdown_table(
            [
                "prior",
                "n",
                "ε",
                "design ε₀",
                "design MSE",
                "best oracle",
                "ratio",
                "vs RR-on-Bins",
                "returned",
            ],
            table,
            digits=4,
        ),
        "\nFrequency estimation (uniform data): the exact variance of each oracle's unbiased "
        "estimator at its calibrated ε₀, averaged over the items:\n",
        _common.markdown_table(["n", "ε", "oracle", "ε₀", "variance"], variance, digits=4),
    ]


def _figure(rows: list[list[Any]], sizes: list[int], priors: list[str]) -> Any:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        len(priors), len(sizes), figsize=(4.2 * len(sizes), 3.6 * len(priors)), squeeze=False
    )
    styles = {LP: "ko-", "GRR": "s--", "OUE": "^--", "Hadamard response": "v--", RR_ON_BINS: "d:"}
    for i, prior in enumerate(priors):
        for j, n in enumerate(sizes):
            ax = axes[i][j]
            for method in METHODS:
                sel = [r for r in rows if r[0] == prior and r[1] == n and r[3] == method]
                if sel:
                    ax.plot(
                        [r[2] for r in sel], [r[7] for r in sel], styles[method], ms=4, label=method
                    )
            _common.label_axes(
                ax,
                "central ε (δ = 1e-6)",
                "Bayes MSE after remap",
                f"{prior}, n = {n:,}",
                log="xy",
                fontsize=7,
            )
    fig.tight_layout()
    return fig
