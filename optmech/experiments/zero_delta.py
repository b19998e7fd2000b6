"""``zero-delta``: optimal (0, δ) additive noise vs δ (seed 004, THEORY.md §3).

For ``|e|^p``, p = 1 and 2 (Δ = 1): the optimal cost within symmetric noise non-increasing in
``|x|`` (uniform + atom, :class:`optmech.UniformAtom`), its atom α*(δ), and the LP
(:func:`optmech.design_noise`) twice: in that class (which must match the closed form) and
without any class restriction (which can go *below* it: seed 004's theorem needs its class).
The atom appears at δ = p/(p+1) (α* = 0 below, ``(p+1)δ − p`` above); the threshold is also
measured from the LP alone, by bisection on δ of "the LP's optimum has an atom".
"""

from __future__ import annotations

import math
import os

import numpy as np

import optmech
from optmech.costs import Power
from optmech.experiments._common import (
    ExperimentResult,
    OutputFolder,
    header_lines,
    markdown_table,
    new_figure,
)

__all__ = ["run"]

NAME = "zero-delta"
ATOM_TOL = 1e-6


def _lp(delta: float, p: float, m: int, *, restricted: bool) -> object:
    periods = max(2, math.ceil(1.0 / (2.0 * delta)) + 1)
    kw = {"symmetric": True, "monotone": True} if restricted else {}
    return optmech.design_noise(
        optmech.ApproxDP(0.0, delta),
        sensitivity=1.0,
        cost=Power(p),
        resolution=m,
        periods=periods,
        **kw,
    )


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


def run(
    out_dir: str | os.PathLike[str] | None = None, *, seed: int = 0, quick: bool = False
) -> ExperimentResult:
    """Run the experiment (module docstring); deterministic, ``seed`` is recorded only."""
    out = OutputFolder(NAME, out_dir)
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
    lp_pts: dict[int, list[tuple[float, float, float, float]]] = {}
    for p in (1, 2):
        cost = Power(float(p))
        vals, alphas = [], []
        for d in deltas:
            ref = optmech.UniformAtom.optimal(delta=float(d), cost=cost)
            vals.append(ref.expected_cost(cost))
            alphas.append(ref.alpha)
            rows.append([p, "closed form (class)", float(d), vals[-1], ref.alpha, "", ""])
        curves[p] = (np.asarray(vals), np.asarray(alphas))
        lp_pts[p] = []
        for d in lp_deltas:
            cls = _lp(d, p, m, restricted=True)
            free = _lp(d, p, m, restricted=False)
            lp_pts[p].append((d, cls.value, free.value, cls.atom))
            rows.append(
                [
                    p,
                    "LP (symmetric non-increasing class)",
                    d,
                    cls.value,
                    cls.atom,
                    m,
                    cls.certified_delta,
                ]
            )
            rows.append([p, "LP (unrestricted)", d, free.value, free.atom, m, free.certified_delta])
        thresholds[p] = _lp_threshold(float(p), m, 7 if quick else 12)
    header = ["p", "method", "delta", "cost", "atom", "resolution", "certified_delta"]
    out.write_csv(header, rows)

    fig, (ax, ax2) = new_figure(2, width=5.6)
    colors = {1: "tab:blue", 2: "tab:red"}
    for p in (1, 2):
        vals, alphas = curves[p]
        pts = np.array(lp_pts[p])
        ax.plot(deltas, vals, color=colors[p], label=f"uniform+atom optimum, |e|^{p}")
        ax.plot(
            pts[:, 0],
            pts[:, 1],
            "o",
            mfc="none",
            color=colors[p],
            label=f"LP in the class, |e|^{p}",
        )
        ax.plot(pts[:, 0], pts[:, 2], "^", ms=4, color=colors[p], label=f"LP unrestricted, |e|^{p}")
        ax.axvline(p / (p + 1), color=colors[p], ls=":", alpha=0.7)
        ax2.plot(deltas, alphas, color=colors[p], label=f"α*(δ), |e|^{p}")
        ax2.plot(pts[:, 0], pts[:, 3], "o", mfc="none", color=colors[p], label=f"LP atom, |e|^{p}")
        ax2.axvline(
            p / (p + 1),
            color=colors[p],
            ls=":",
            alpha=0.7,
            label=f"δ = p/(p+1) = {p / (p + 1):.3g}",
        )
    ax.set_yscale("log")
    ax.set_xlabel("δ of (0, δ)-DP (Δ = 1)")
    ax.set_ylabel("optimal expected cost E|X|^p (log)")
    ax.set_title("(0, δ): optimal cost vs δ (seed 004)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    ax2.set_xlabel("δ of (0, δ)-DP (Δ = 1)")
    ax2.set_ylabel("probability of the atom at 0")
    ax2.set_title("The atom appears at δ = p/(p+1)")
    ax2.grid(True, alpha=0.3)
    ax2.legend(fontsize=7, loc="upper left")
    out.write_figure(fig)

    table = markdown_table(
        ["p", "paper threshold p/(p+1)", "LP threshold bracket (bisection)", "resolution m"],
        [[p, p / (p + 1), f"[{lo:.4f}, {hi:.4f}]", m] for p, (lo, hi) in thresholds.items()],
    )
    lp_rows = [[p, d, c, f, c - f, a] for p in (1, 2) for d, c, f, a in lp_pts[p]]
    gap_class = max(
        abs(c - optmech.UniformAtom.optimal(delta=d, cost=Power(p)).expected_cost(Power(p)))
        for p in (1, 2)
        for d, c, _, _ in lp_pts[p]
    )
    text = "\n".join(
        [
            header_lines("Optimal (0, δ) noise vs δ (seed 004)", seed, quick),
            "Reproduces: within symmetric noise non-increasing in |x| the optimum is uniform + an "
            "atom at 0; for |e|^p the atom is absent for δ ≤ p/(p+1) (cost 1/(2^p (p+1) δ^p)) "
            "and equals (p+1)δ − p above (cost ((p+1)/(2p))^p (1 − δ)).\n",
            table,
            "",
            "LP values (class vs unrestricted; the unrestricted LP is never above the class "
            "optimum and can be strictly below — the theorem needs its class):\n",
            markdown_table(
                ["p", "δ", "LP class", "LP unrestricted", "class − unrestricted", "class LP atom"],
                lp_rows,
            ),
            "",
            f"Measured: largest |class LP − closed form| {gap_class:.2e}; thresholds "
            + ", ".join(f"p={p}: ({lo:.4f}, {hi:.4f}]" for p, (lo, hi) in thresholds.items())
            + ".",
        ]
    )
    out.write_summary(text)
    headline = {f"threshold_p{p}": 0.5 * (lo + hi) for p, (lo, hi) in thresholds.items()}
    headline["max_class_gap"] = gap_class
    return out.result(headline, seed=seed, quick=quick)
