"""``lp-convergence``: the LP-vs-closed-form gap as the resolution m grows.

ε-DP, costs ``|e|`` and ``e²``, Δ = 1: `optmech.design_noise` with m cells
per Δ (the symmetric non-increasing class, whose window rows collapse) against the staircase optimum
``V*``. With cell-averaged costs the LP value is an exact upper bound, ``≥ V*`` (see the docs'
theory page on exact discretisation); the best grid density is the staircase with γ rounded to
a multiple of 1/m, so the gap is that staircase's excess cost, quadratic in the distance of γ*
to the grid (≤ 1/(2m)) — on average the gap falls like ``m^-2``, oscillating with the grid's
phase. The fitted log-log slope is reported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import optmech
from optmech.experiments import ExperimentResult, _common

__all__ = ["run"]

NAME = "lp-convergence"
#: Columns of results.csv: one row per cost and resolution.
HEADER = [
    "cost",
    "epsilon",
    "resolution",
    "lp_value",
    "closed_form",
    "gap",
    "relative_gap",
    "rounded_staircase_gap",
    "solve_time_s",
]
#: Per cost: the resolutions, the LP gaps and the rounded-staircase gaps (both floored at 1e-16).
Curves = dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]


def run(out_dir: _common.OutDir = None, *, seed: int = 0, quick: bool = False) -> ExperimentResult:
    """Run the experiment (module docstring); deterministic, ``seed`` is recorded only."""
    out = _common.OutputFolder(NAME, out_dir)
    eps = 1.0
    ms = np.unique(np.geomspace(5, 160 if quick else 640, 8 if quick else 16).round().astype(int))
    rows = []
    fits: dict[str, tuple[float, float]] = {}
    data: Curves = {}
    for cost in ("abs", "squared"):
        cost_rows = _cost_rows(cost, eps, ms)
        rows += cost_rows
        data[cost], fits[cost] = _gap_fit(ms, cost_rows)
    out.write_csv(HEADER, rows)
    fig = _figure(eps, data, fits)
    min_gap = min(r[5] for r in rows)
    body = _summary_lines(rows, data, fits, min_gap)
    headline = {
        "slope_abs": fits["abs"][0],
        "slope_squared": fits["squared"][0],
        "min_gap": min_gap,
    }
    title = "LP convergence to the closed form (exact discretisation)"
    return _common.finish(out, fig, title, body, headline, seed=seed, quick=quick)


def _cost_rows(cost: str, eps: float, ms: np.ndarray) -> list[list[Any]]:
    """CSV rows of one cost: the LP at each resolution against ``V*`` and the rounded staircase."""
    best = optmech.Staircase.optimal(epsilon=eps, cost=cost)
    v_star = best.expected_cost(cost)
    rows = []
    for m in ms:
        noise = optmech.design_noise(
            optmech.PureDP(eps),
            sensitivity=1.0,
            cost=cost,
            resolution=int(m),
            periods=2,
            symmetric=True,
            monotone=True,
        )
        grid = min(
            optmech.Staircase(epsilon=eps, gamma=g).expected_cost(cost)
            for g in (np.floor(best.gamma * m) / m, np.ceil(best.gamma * m) / m)
        )
        gap = noise.value - v_star
        row = [cost, eps, int(m), noise.value, v_star, gap, gap / v_star, grid - v_star]
        rows.append([*row, noise.solve_time])
    return rows


def _gap_fit(
    ms: np.ndarray, cost_rows: list[list[Any]]
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], tuple[float, float]]:
    """The gap curves of one cost (floored at 1e-16 for the log) and the fitted log-log line."""
    g_arr = np.maximum(np.asarray([r[5] for r in cost_rows]), 1e-16)
    slope, intercept = np.polyfit(np.log(ms), np.log(g_arr), 1)
    rounded = np.maximum(np.asarray([r[7] for r in cost_rows]), 1e-16)
    return (ms, g_arr, rounded), (float(slope), float(intercept))


def _figure(eps: float, data: Curves, fits: dict[str, tuple[float, float]]) -> Any:
    """Gap vs m on log-log axes: LP gaps, rounded-staircase gaps and the fitted power law."""
    fig, (ax,) = _common.new_figure()
    for cost, (m_arr, g_arr, r_arr) in data.items():
        slope, intercept = fits[cost]
        color, label = _common.COST_COLORS[cost], _common.COST_LABELS[cost]
        ax.plot(m_arr, g_arr, "o", color=color, label=f"LP − V*, cost {label}")
        rounded_label = f"staircase with γ* rounded to grid, {label}"
        ax.plot(m_arr, r_arr, "x", color=color, ms=8, label=rounded_label)
        fitted = np.exp(intercept) * m_arr**slope
        ax.plot(m_arr, fitted, "-", color=color, alpha=0.6, label=f"fit, slope {slope:.2f}")
    _common.label_axes(
        ax,
        "resolution m (cells per sensitivity Δ)",
        "gap: LP value − closed-form V* (cost units)",
        f"LP convergence to the staircase optimum (ε = {eps:g}, Δ = 1)",
        log="xy",
        fontsize=8,
    )
    return fig


def _summary_lines(
    rows: list[list[Any]], data: Curves, fits: dict[str, tuple[float, float]], min_gap: float
) -> list[str]:
    """The body of ``summary.md``: fitted slopes, gaps at both ends and the bound checks."""
    table = _common.markdown_table(
        ["cost", "fitted slope of log gap vs log m", "gap at smallest m", "gap at largest m"],
        [
            [_common.COST_LABELS[c], fits[c][0], float(data[c][1][0]), float(data[c][1][-1])]
            for c in data
        ],
    )
    return [
        "Reproduces: the discretised LP (cell-averaged costs, geometric tail; see the docs' "
        "theory page on exact discretisation) is an exact upper bound on the staircase optimum "
        "V* and converges to it; the gap equals the excess cost of the staircase with γ* rounded "
        "to the grid, ≈ m^-2 on average (~20 cells on the top step give ≈ 3e-4).\n",
        table,
        "",
        f"Measured: smallest LP − V* over all runs {min_gap:.3e} (≥ 0 up to solver tolerance); "
        f"largest |LP gap − rounded-staircase gap| "
        f"{max(abs(r[5] - r[7]) for r in rows):.2e}. Timings are on a shared 2-core machine "
        "(noisy).",
    ]
