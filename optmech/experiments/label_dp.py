"""``label-dp``: ε-label-DP randomizers for regression labels, their mean squared error vs ε.

For a label distribution and each ε, the mean squared error of:

* **RR-on-Bins** (Ghazi et al. 2023), the optimum over all real outputs
  (`optmech.rr_on_bins`, its dynamic programme);
* the **LP optimum** on a grid of outputs over the labels' range, with its certified interval
  (`optmech.local_mechanism`); by Ghazi et al. it is at least
  RR-on-Bins', and above it by at most ``h²/4`` for a widest cell h;
* the **unbiased optimum** (Badanidiyuru et al. 2023): the same LP with
  `Unbiased` on a grid widened on each side by
  ``Δ max(1, 3/(e^ε − 1))`` (for two labels the debiased outputs lie ``Δ/(e^ε − 1)`` beyond them);
* **Laplace** and the **staircase** (Geng & Viswanath 2016) added to the label with sensitivity
  the labels' range Δ (every two labels are neighbours): ``2Δ²/ε²`` and the staircase's optimum
  ``Δ²(u*² + b)/(1 − b)²``.

Label distributions: the diabetes targets bundled with scikit-learn (442 disease-progression
scores, rounded to multiples of 10; only when the optional ``data`` extra is installed,
``pip install 'optmech[data]'``), and two synthetic priors on 12 labels (uniform on 0..11 and a
two-peaked mixture).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import optmech
from optmech.constraints import Unbiased
from optmech.experiments import ExperimentResult, _common

__all__ = ["diabetes_labels", "run"]

NAME = "label-dp"
HEADER = ["dataset", "epsilon", "method", "mse", "lower_bound", "outputs_used"]
TITLE = "Label DP for regression: RR-on-Bins, LP, unbiased, Laplace and staircase vs ε"
METHODS = ("RR-on-Bins", "LP optimum (grid)", "unbiased optimum", "Laplace", "staircase")


def diabetes_labels() -> tuple[np.ndarray, np.ndarray] | None:
    """The diabetes targets of scikit-learn rounded to multiples of 10, as ``(labels, prior)``;
    ``None`` when scikit-learn is not installed."""
    try:
        from sklearn.datasets import load_diabetes
    except ImportError:
        return None
    target = np.round(np.asarray(load_diabetes().target, dtype=float) / 10.0) * 10.0
    labels, counts = np.unique(target, return_counts=True)
    return labels, counts / counts.sum()


def _datasets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    x = np.arange(12.0)
    bumps = np.exp(-0.5 * ((x - 2.0) / 1.2) ** 2) + 0.6 * np.exp(-0.5 * ((x - 9.0) / 0.8) ** 2)
    out = {
        "uniform 0..11": (x, np.full(12, 1 / 12)),
        "two peaks 0..11": (x, bumps / bumps.sum()),
    }
    real = diabetes_labels()
    if real is not None:
        out = {"diabetes targets": real, **out}
    return out


def _rows(name: str, x: np.ndarray, p: np.ndarray, eps: float, m: int) -> list[list[Any]]:
    span = float(x[-1] - x[0])
    rr = optmech.rr_on_bins(p, "squared", eps, inputs=x)
    grid = np.linspace(x[0], x[-1], m)
    lp = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=grid)
    reach = span * max(1.0, 3.0 / np.expm1(eps))  # debiased outputs sit Δ/(e^ε − 1) beyond
    wide = np.linspace(x[0] - reach, x[-1] + reach, m)
    unbiased = optmech.local_mechanism(
        p, "squared", eps, inputs=x, outputs=wide, constraints=Unbiased()
    )
    laplace = optmech.Laplace(epsilon=eps, sensitivity=span).expected_cost("squared")
    stair = optmech.Staircase.optimal(epsilon=eps, sensitivity=span, cost="squared")
    nan = float("nan")
    return [
        [name, eps, METHODS[0], rr.value, rr.value, len(rr.bins)],
        [name, eps, METHODS[1], lp.value, lp.lower_bound, int(lp.support.size)],
        [name, eps, METHODS[2], unbiased.value, unbiased.lower_bound, int(unbiased.support.size)],
        [name, eps, METHODS[3], float(laplace), nan, 0],
        [name, eps, METHODS[4], float(stair.expected_cost("squared")), nan, 0],
    ]


def run(out_dir: _common.OutDir = None, *, seed: int = 0, quick: bool = False) -> ExperimentResult:
    """Run the experiment (module docstring); deterministic, ``seed`` is recorded only."""
    out = _common.OutputFolder(NAME, out_dir)
    epsilons = [0.5, 2.0, 8.0] if quick else [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
    m = 41 if quick else 121
    data = _datasets()
    rows: list[list[Any]] = []
    for name, (x, p) in data.items():
        for eps in epsilons:
            rows += _rows(name, x, p, eps, m)
    out.write_csv(HEADER, rows)
    fig = _figure(rows, list(data))
    first = next(iter(data))
    at = 2.0
    pick = {r[2]: r[3] for r in rows if r[0] == first and r[1] == at}
    headline = {
        "dataset": first,
        "unbiased_over_rr_on_bins_eps2": pick[METHODS[2]] / pick[METHODS[0]],
        "laplace_over_rr_on_bins_eps2": pick[METHODS[3]] / pick[METHODS[0]],
        "lp_minus_rr_on_bins_eps2": pick[METHODS[1]] - pick[METHODS[0]],
    }
    body = _summary(rows, data, epsilons, m)
    return _common.finish(out, fig, TITLE, body, headline, seed=seed, quick=quick)


def _figure(rows: list[list[Any]], names: list[str]) -> Any:
    fig, axes = _common.new_figure(len(names), width=4.8)
    for ax, name in zip(axes, names, strict=True):
        for method in METHODS:
            sel = [r for r in rows if r[0] == name and r[2] == method]
            ax.plot([r[1] for r in sel], [r[3] for r in sel], "o-", label=method)
        _common.label_axes(
            ax, "privacy parameter ε", "mean squared error", name, log="xy", fontsize=7
        )
    return fig


def _summary(
    rows: list[list[Any]], data: dict[str, Any], epsilons: list[float], m: int
) -> list[str]:
    table = [
        [r[0], r[1], r[2], r[3], r[4] if r[4] == r[4] else "-", r[5] or "-"]
        for r in rows
        if r[1] in (epsilons[0], epsilons[-1])
    ]
    missing = (
        ""
        if "diabetes targets" in data
        else " (scikit-learn is not installed: the diabetes targets were skipped; "
        "`pip install 'optmech[data]'` adds them)"
    )
    return [
        "Shows: the optimal ε-label-DP randomizer of Ghazi et al. (2023), RR-on-Bins, against "
        "the complete-graph LP on a grid of outputs (never below it), the unbiased optimum of "
        "Badanidiyuru et al. (2023) (the price of unbiasedness), and additive Laplace and "
        "staircase noise with sensitivity the labels' range.\n",
        f"Measured on {len(data)} label distributions{missing}, ε in {epsilons}, LP grids of "
        f"{m} outputs (the unbiased one widened by Δ·max(1, 3/(e^ε − 1)) on each side):\n",
        _common.markdown_table(
            ["dataset", "ε", "method", "MSE", "certified lower bound", "outputs used"],
            table,
            digits=6,
        ),
    ]
