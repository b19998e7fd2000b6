"""``zero-delta``: optimal (0, δ) additive noise vs δ (Geng, Ding, Guo & Kumar 2019).

For ``|e|^p``, p = 1 and 2 (Δ = 1): the optimal cost within symmetric noise non-increasing in
``|x|`` (uniform + atom, `optmech.UniformAtom`), its atom α*(δ), and the LP
(`optmech.design_noise`) twice: in that class (which must match the closed
form) and without any class restriction (which can go *below* it: the theorem of Geng, Ding, Guo &
Kumar needs its class). The atom appears at δ = p/(p+1) (α* = 0 below, ``(p+1)δ − p`` above); the
threshold is also measured from the LP alone, by bisection on δ of "the LP's optimum has an atom".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import optmech
from optmech.costs import Power
from optmech.experiments import ExperimentResult, _common

__all__ = ["run"]

NAME = "zero-delta"
ATOM_TOL = 1e-6
#: Columns of results.csv: one row per p, method and δ.
HEADER = ["p", "method", "delta", "cost", "atom", "resolution", "certified_delta"]
COLORS = {1: "tab:blue", 2: "tab:red"}
#: Per δ of the LP grid: δ, class LP value, unrestricted LP value, class LP atom.
LPPoint = tuple[float, float, float, float]


def run(out_dir: _common.OutDir = None, *, seed: int = 0, quick: bool = False) -> ExperimentResult:
    """Run the experiment (module docstring); deterministic, ``seed`` is recorded only."""
    out = _common.OutputFolder(NAME, out_dir)
    m = 12 if quick else 24
    deltas = np.linspace(0.05, 0.95, 37 if quick else 91)
    lp_deltas = (
        (0.25, 0.4, 0.6, 0.75, 0.9)
        if quick
        else (0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
    )
    rows = []
    thresholds: dict[int, tuple[float, float]] = {}
    curves: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    lp_pts: dict[int, list[LPPoint]] = {}
    for p in (1, 2):
        class_rows, curves[p] = _closed_form_rows(p, deltas)
        lp_rows, lp_pts[p] = _lp_rows(p, lp_deltas, m)
        rows += class_rows + lp_rows
        thresholds[p] = _lp_threshold(float(p), m, 7 if quick else 12)
    out.write_csv(HEADER, rows)
    fig = _figure(deltas, curves, lp_pts)
    gap_class = _class_gap(lp_pts)
    body = _summary_lines(thresholds, lp_pts, m, gap_class)
    headline = {f"threshold_p{p}": 0.5 * (lo + hi) for p, (lo, hi) in thresholds.items()}
    headline["max_class_gap"] = gap_class
    title = "Optimal (0, δ) noise vs δ (Geng, Ding, Guo & Kumar 2019)"
    return _common.finish(out, fig, title, body, headline, seed=seed, quick=quick)


def _lp(delta: float, p: float, m: int, *, restricted: bool) -> optmech.DesignedPiecewiseNoise:
    periods = max(2, math.ceil(1.0 / (2.0 * delta)) + 1)
    noise = optmech.design_noise(
        optmech.ApproxDP(0.0, delta),
        sensitivity=1.0,
        cost=Power(p),
        resolution=m,
        periods=periods,
        symmetric=restricted,
        monotone=restricted,
    )
    return _common.expect(optmech.DesignedPiecewiseNoise, noise)


def _lp_threshold(p: float, m: int, steps: int) -> tuple[float, float]:
    """Bracket of δ where the class LP's optimum first carries an atom (bisection)."""
    lo, hi = 0.3, 0.95
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if _lp(mid, p, m, restricted=True).atom > ATOM_TOL:
            hi = mid
        else:
            lo = mid
    return lo, hi


def _closed_form_rows(
    p: int, deltas: np.ndarray
) -> tuple[list[list[Any]], tuple[np.ndarray, np.ndarray]]:
    """CSV rows of the uniform + atom optimum for ``|e|^p``, and its cost and atom curves."""
    cost = Power(float(p))
    rows, vals, alphas = [], [], []
    for d in deltas:
        ref = optmech.UniformAtom.optimal(delta=float(d), cost=cost)
        vals.append(ref.expected_cost(cost))
        alphas.append(ref.alpha)
        rows.append([p, "closed form (class)", float(d), vals[-1], ref.alpha, "", ""])
    return rows, (np.asarray(vals), np.asarray(alphas))


def _lp_rows(p: int, lp_deltas: tuple[float, ...], m: int) -> tuple[list[list[Any]], list[LPPoint]]:
    """CSV rows of the class and the unrestricted LP for ``|e|^p``, and their points."""
    rows, pts = [], []
    for d in lp_deltas:
        cls = _lp(d, p, m, restricted=True)
        free = _lp(d, p, m, restricted=False)
        pts.append((d, cls.value, free.value, cls.atom))
        class_method = "LP (symmetric non-increasing class)"
        rows.append([p, class_method, d, cls.value, cls.atom, m, cls.certified_delta])
        rows.append([p, "LP (unrestricted)", d, free.value, free.atom, m, free.certified_delta])
    return rows, pts


def _class_gap(lp_pts: dict[int, list[LPPoint]]) -> float:
    """Largest distance of the class LP's value from the closed-form optimum."""
    return max(
        abs(c - optmech.UniformAtom.optimal(delta=d, cost=Power(p)).expected_cost(Power(p)))
        for p in (1, 2)
        for d, c, _, _ in lp_pts[p]
    )


def _figure(
    deltas: np.ndarray,
    curves: dict[int, tuple[np.ndarray, np.ndarray]],
    lp_pts: dict[int, list[LPPoint]],
) -> Any:
    """Optimal cost vs δ (left) and the atom vs δ (right), closed form and LPs, for p = 1, 2."""
    fig, (ax, ax2) = _common.new_figure(2, width=5.6)
    for p in (1, 2):
        vals, alphas = curves[p]
        pts = np.array(lp_pts[p])
        color, threshold = COLORS[p], p / (p + 1)
        ax.plot(deltas, vals, color=color, label=f"uniform+atom optimum, |e|^{p}")
        ax.plot(
            pts[:, 0], pts[:, 1], "o", mfc="none", color=color, label=f"LP in the class, |e|^{p}"
        )
        ax.plot(pts[:, 0], pts[:, 2], "^", ms=4, color=color, label=f"LP unrestricted, |e|^{p}")
        ax.axvline(threshold, color=color, ls=":", alpha=0.7)
        ax2.plot(deltas, alphas, color=color, label=f"α*(δ), |e|^{p}")
        ax2.plot(pts[:, 0], pts[:, 3], "o", mfc="none", color=color, label=f"LP atom, |e|^{p}")
        line_label = f"δ = p/(p+1) = {threshold:.3g}"
        ax2.axvline(threshold, color=color, ls=":", alpha=0.7, label=line_label)
    xlabel = "δ of (0, δ)-DP (Δ = 1)"
    _common.label_axes(
        ax,
        xlabel,
        "optimal expected cost E|X|^p (log)",
        "(0, δ): optimal cost vs δ (Geng et al. 2019)",
        log="y",
        fontsize=7,
    )
    _common.label_axes(
        ax2,
        xlabel,
        "probability of the atom at 0",
        "The atom appears at δ = p/(p+1)",
        fontsize=7,
        loc="upper left",
    )
    return fig


def _summary_lines(
    thresholds: dict[int, tuple[float, float]],
    lp_pts: dict[int, list[LPPoint]],
    m: int,
    gap_class: float,
) -> list[str]:
    """The body of ``summary.md``: the atom thresholds and the class vs unrestricted LPs."""
    table = _common.markdown_table(
        ["p", "paper threshold p/(p+1)", "LP threshold bracket (bisection)", "resolution m"],
        [[p, p / (p + 1), f"[{lo:.4f}, {hi:.4f}]", m] for p, (lo, hi) in thresholds.items()],
    )
    lp_rows = [[p, d, c, f, c - f, a] for p in (1, 2) for d, c, f, a in lp_pts[p]]
    return [
        "Reproduces: within symmetric noise non-increasing in |x| the optimum is uniform + an "
        "atom at 0; for |e|^p the atom is absent for δ ≤ p/(p+1) (cost 1/(2^p (p+1) δ^p)) "
        "and equals (p+1)δ − p above (cost ((p+1)/(2p))^p (1 − δ)).\n",
        table,
        "",
        "LP values (class vs unrestricted; the unrestricted LP is never above the class "
        "optimum and can be strictly below — the theorem needs its class):\n",
        _common.markdown_table(
            ["p", "δ", "LP class", "LP unrestricted", "class − unrestricted", "class LP atom"],
            lp_rows,
        ),
        "",
        f"Measured: largest |class LP − closed form| {gap_class:.2e}; thresholds "
        + ", ".join(f"p={p}: ({lo:.4f}, {hi:.4f}]" for p, (lo, hi) in thresholds.items())
        + ".",
    ]
