"""``ldp-extremal``: the ε-LDP randomizer maximising mutual information or a KL divergence, vs
the binary mechanism and randomized response across ε (Kairouz, Oh & Viswanath 2016).

For a prior over 6 inputs (mutual information ``I(X; Y)``) and for two hypotheses over 6 inputs
(``D(p₀Q ‖ p₁Q)``, the error exponent of a test on the released data), at each ε: the optimum of
the staircase-pattern LP with its certified interval
(`optmech.extremal_mechanism`), the binary mechanism (two outputs;
``T = {x : p₀(x) ≥ p₁(x)}`` for the test, the set whose prior mass is closest to 1/2 for mutual
information) and k-ary randomized response (Warner 1965). Kairouz, Oh & Viswanath (2016) show
that the binary mechanism is optimal for small ε and randomized response for large ε; the figure
shows each one's fraction of the optimum and where it reaches 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import optmech
from optmech.experiments import ExperimentResult, _common
from optmech.lp.local.extremal import binary_value, randomized_response_value
from optmech.utilities import KLDivergence, MutualInformation

__all__ = ["run"]

NAME = "ldp-extremal"
HEADER = ["utility", "epsilon", "method", "value_nats", "upper_bound", "fraction_of_optimum"]
TITLE = "Extremal LDP mechanisms: optimum vs binary and randomized response (Kairouz et al. 2016)"
#: A mechanism counts as optimal when its value is within this (relative) of the LP's upper bound.
OPTIMAL_RTOL = 1e-9


def _utilities() -> dict[str, Any]:
    prior = np.array([0.05, 0.1, 0.15, 0.2, 0.22, 0.28])
    p0 = np.array([0.3, 0.25, 0.2, 0.1, 0.1, 0.05])
    p1 = np.array([0.1, 0.12, 0.15, 0.18, 0.2, 0.25])  # distinct likelihood ratios
    return {"mutual information": MutualInformation(prior), "KL divergence": KLDivergence(p0, p1)}


def _rows(name: str, utility: Any, eps: float) -> list[list[Any]]:
    res = optmech.extremal_mechanism(utility, eps)
    binary = binary_value(utility, eps)[0]
    rr = randomized_response_value(utility, eps)[0]
    top = res.upper_bound
    return [
        [name, eps, "optimum (pattern LP)", res.value, top, res.value / top],
        [name, eps, "binary mechanism", binary, float("nan"), binary / top],
        [name, eps, "randomized response", rr, float("nan"), rr / top],
    ]


def _regimes(rows: list[list[Any]], name: str) -> tuple[float, float]:
    """The largest ε on the grid where the binary mechanism is optimal, the smallest where
    randomized response is (NaN if none)."""

    def optimal(method: str) -> list[float]:
        return [r[1] for r in rows if r[0] == name and r[2] == method and r[5] >= 1 - OPTIMAL_RTOL]

    binary, rr = optimal("binary mechanism"), optimal("randomized response")
    return (max(binary) if binary else float("nan"), min(rr) if rr else float("nan"))


def run(out_dir: _common.OutDir = None, *, seed: int = 0, quick: bool = False) -> ExperimentResult:
    """Run the experiment (module docstring); deterministic, ``seed`` is recorded only."""
    out = _common.OutputFolder(NAME, out_dir)
    epsilons = np.geomspace(0.05, 12.0, 8 if quick else 30).tolist()
    rows: list[list[Any]] = []
    utilities = _utilities()
    for name, utility in utilities.items():
        for eps in epsilons:
            rows += _rows(name, utility, eps)
    out.write_csv(HEADER, rows)
    fig = _figure(rows, list(utilities))
    headline: dict[str, Any] = {}
    lines = []
    for name in utilities:
        low, high = _regimes(rows, name)
        key = name.split()[0].lower()
        headline[f"{key}_binary_optimal_up_to_eps"] = low
        headline[f"{key}_rr_optimal_from_eps"] = high
        lines.append([name, low, high])
    body = [
        "Shows: Kairouz, Oh & Viswanath (2016): the binary mechanism is optimal in the "
        "high-privacy regime (small ε) and randomized response in the low-privacy regime (large "
        "ε); in between the pattern LP's optimum beats both. (For a test, randomized response "
        "can only be optimal when no two inputs share a likelihood ratio p0/p1: merging such "
        "inputs loses nothing.)\n",
        f"Measured on a grid of {len(epsilons)} values of ε in [0.05, 12] (a mechanism counts as "
        f"optimal within {OPTIMAL_RTOL:g} of the LP's certified upper bound):\n",
        _common.markdown_table(
            ["utility", "binary optimal up to ε (grid)", "randomized response optimal from ε"],
            lines,
            digits=4,
        ),
    ]
    return _common.finish(out, fig, TITLE, body, headline, seed=seed, quick=quick)


def _figure(rows: list[list[Any]], names: list[str]) -> Any:
    fig, axes = _common.new_figure(len(names), width=5.2)
    for ax, name in zip(axes, names, strict=True):
        for method in ("binary mechanism", "randomized response"):
            sel = [r for r in rows if r[0] == name and r[2] == method]
            ax.plot([r[1] for r in sel], [r[5] for r in sel], "o-", ms=3, label=method)
        ax.axhline(1.0, color="k", lw=0.8, label="optimum (pattern LP)")
        _common.label_axes(
            ax, "privacy parameter ε", "fraction of the optimal utility", name, log="x", fontsize=8
        )
    return fig
