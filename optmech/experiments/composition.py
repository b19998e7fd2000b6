"""``composition``: δ(ε) after k-fold composition for classical and designed noises.

Five noises for Δ = 1, all 0.5-zCDP (ε-DP gives ε²/2-zCDP; Bun & Steinke 2016): the Laplace
and the staircase (Geng & Viswanath 2016, the |e|-optimal γ) at ε = 1; the Gaussian N(0, 1);
the designed lattice noises for |e| under 1-DP (the discrete staircase optimum) and under
0.5-zCDP (`optmech.design_noise`). Each is composed k = 1, 10 and 100 times
through `optmech.accounting.compose` (privacy loss distributions of
dp_accounting, pessimistic; exact profiles of each noise: closed forms, the staircase's pieces, the
lattice pmfs).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import optmech
from optmech.accounting import compose
from optmech.experiments import ExperimentResult, _common
from optmech.mechanisms import DiscreteStaircase, Laplace, Staircase

__all__ = ["run"]

NAME = "composition"
#: Columns of results.csv: one row per noise, k and ε.
HEADER = ["noise", "k", "epsilon", "delta", "expected_abs_error"]
#: δ at which the summary reads off ε.
TARGET = 1e-6
COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]


def _noises() -> list[tuple[str, Any]]:
    # N(0, 1) up to the calibration's rounding: (1, δ_μ(1))-DP with μ = 1 is exactly σ = 1
    # (Balle & Wang 2018), and N(0, 1) is 0.5-zCDP, as its designed rival.
    gaussian = optmech.Gaussian(
        epsilon=1.0, delta=float(optmech.GaussianDP(1.0).delta(1.0)), calibration="analytic"
    )
    return [
        ("Laplace, 1-DP", Laplace(epsilon=1.0)),
        ("staircase, 1-DP", Staircase.optimal(epsilon=1.0, cost="abs")),
        ("Gaussian N(0, 1), 0.5-zCDP", gaussian),
        ("designed on ℤ, 1-DP", DiscreteStaircase.optimal(epsilon=1.0, sensitivity=1, cost="abs")),
        (
            "designed on ℤ, 0.5-zCDP",
            optmech.design_noise(optmech.ZCDP(0.5), sensitivity=1, cost="abs", integer=True),
        ),
    ]


def run(out_dir: _common.OutDir = None, *, seed: int = 0, quick: bool = False) -> ExperimentResult:
    """Run the experiment (module docstring); deterministic, ``seed`` is recorded only."""
    out = _common.OutputFolder(NAME, out_dir)
    ks = (1, 10) if quick else (1, 10, 100)
    noises = _noises()
    rows: list[list[Any]] = []
    curves: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
    for k in ks:
        # All are 0.5-zCDP: k uses are 0.5k-zCDP, δ ≤ 1e-8 from ε = ρk + 2√(ρk ln 1e8) on.
        top = 0.5 * k + 2.0 * math.sqrt(0.5 * k * math.log(1e8)) + 1.0
        eps = np.linspace(0.0, top, 13 if quick else 241)
        for name, noise in noises:
            delta = np.asarray(compose(noise, k, eps, discretization=1e-3 if quick else 1e-4))
            curves[(name, k)] = (eps, delta)
            cost = float(noise.expected_cost("abs"))
            rows += [[name, k, float(e), float(d), cost] for e, d in zip(eps, delta, strict=True)]
    out.write_csv(HEADER, rows)
    at = {(n, k): _epsilon_at(*curves[(n, k)], TARGET) for n, _ in noises for k in ks}
    keys = ("laplace", "staircase", "gaussian", "discrete_staircase", "zcdp_design")
    headline = {
        f"epsilon_at_1e-6_{key}_k{k}": at[(n, k)]
        for key, (n, _) in zip(keys, noises, strict=True)
        for k in ks
    }
    title = "δ(ε) after k-fold composition: classical and designed noise"
    body = _summary(noises, ks, at)
    return _common.finish(
        out, _figure(noises, ks, curves), title, body, headline, seed=seed, quick=quick
    )


def _epsilon_at(eps: np.ndarray, delta: np.ndarray, target: float) -> float:
    """The smallest grid ε with δ ≤ target: an upper bound of the crossing (δ is pessimistic
    and non-increasing), as fine as the grid."""
    below = np.flatnonzero(delta <= target)
    return float(eps[below[0]]) if below.size else math.inf


def _figure(noises: list[tuple[str, Any]], ks: tuple[int, ...], curves: dict) -> Any:
    fig, axes = _common.new_figure(len(ks), width=4.6)
    for ax, k in zip(axes, ks, strict=True):
        for (name, _), color in zip(noises, COLORS, strict=True):
            eps, delta = curves[(name, k)]
            ax.plot(eps, np.maximum(delta, 1e-16), color=color, label=name)
        _common.label_axes(ax, "ε", "δ(ε) (log)", f"k = {k} compositions", log="y", fontsize=6)
    return fig


def _summary(noises: list[tuple[str, Any]], ks: tuple[int, ...], at: dict) -> list[str]:
    table = _common.markdown_table(
        ["noise", "expected absolute error", *[f"ε at δ = 1e-6, k = {k}" for k in ks]],
        [[n, float(x.expected_cost("abs")), *[at[(n, k)] for k in ks]] for n, x in noises],
    )
    return [
        "Shows: how the privacy profiles of classical noise (Laplace, staircase, Gaussian) and "
        "of designed noise (the discrete staircase, the 0.5-zCDP optimum on ℤ) degrade under "
        "composition, read off dp_accounting's privacy loss distributions built from each "
        "noise's certified profile (pessimistic).\n",
        table,
        "",
        "Measured: the first ε of the grid (in results.csv) at which δ is at most 1e-6 after k "
        "compositions (table), and the whole curves in the figure (the floor near 3e-14 is "
        "compose's allowance for the floating point of the FFT composition).",
    ]
