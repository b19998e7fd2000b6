"""The performance page's figures, drawn from one benchmark report (PNG files).

* ``scaling.png`` — each designer's ladder (``benchmarks/scaling.py``): time against size on
  log–log axes, with the fitted growth ``size^b`` drawn over the sizes it was fitted to (one
  solver's: [`one_solver`][benchmarks.scaling.one_solver]) and ``b`` in the legend;
* ``grs.png`` — the GRS user LP with a general prior (``benchmarks/grs_scaling.py``): time
  against n by method, with each series' fitted exponent.

Each figure is drawn only when the report has its rows; the page links the files written.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["draw"]


def _axes(title: str, xlabel: str) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 4.2), dpi=110)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("seconds (median run)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def _fit_line(ax: Any, sizes: list[float], times: list[float], color: Any) -> float | None:
    """Least-squares ``log t = a + b log s`` over the points, drawn dashed; returns ``b``."""
    if len(sizes) < 2:
        return None
    b, a = np.polyfit(np.log(sizes), np.log(times), 1)
    xs = np.geomspace(min(sizes), max(sizes), 20)
    ax.plot(xs, np.exp(a) * xs**b, "--", color=color, linewidth=1)
    return float(b)


def _scaling(rows: list[dict[str, Any]], path: str) -> bool:
    from benchmarks.scaling import one_solver

    designers = list(
        dict.fromkeys(r["designer"] for r in rows if r["section"] == "scaling" and "designer" in r)
    )
    if not designers:
        return False
    fig, ax = _axes("Scaling of each designer (fit: dashed, within one solver)", "size")
    for k, designer in enumerate(designers):
        spread = [r for r in rows if r.get("kind") == "spread" and r["designer"] == designer]
        cases = spread or [
            r
            for r in rows
            if r["section"] == "scaling" and r.get("kind") == "case" and r["designer"] == designer
        ]
        solved = [c for c in cases if isinstance(c.get("total"), (int, float))]
        if not solved:
            continue
        color = f"C{k % 10}"
        ax.plot([c["size"] for c in solved], [c["total"] for c in solved], "o-", color=color)
        kept, _ = one_solver(cases)
        b = _fit_line(ax, [c["size"] for c in kept], [c["total"] for c in kept], color)
        unit = next(
            (r["unit"] for r in rows if r.get("designer") == designer and r.get("unit")), "size"
        )
        label = f"{designer}: ∝ {unit}^{b:.2f}" if b is not None else designer
        ax.plot([], [], "o-", color=color, label=label)
        worst = [(r["size"], r["worst"]) for r in spread if r.get("size")]
        if worst:
            ax.plot(*zip(*worst, strict=True), "v", color=color, markersize=4, alpha=0.7)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    return True


def _grs(rows: list[dict[str, Any]], path: str) -> bool:
    from benchmarks.grs_scaling import fit_series

    cases = [r for r in rows if r["section"] == "grs-scaling" and "total_median" in r]
    if not cases:
        return False
    fig, ax = _axes("GRS user LP, general prior (ε = 0.5): time against n", "n")
    keys = list(dict.fromkeys((r["method"], r["objective"], r["prior"]) for r in cases))
    for k, key in enumerate(keys):
        series = sorted(
            (r for r in cases if (r["method"], r["objective"], r["prior"]) == key),
            key=lambda r: r["n"],
        )
        color = f"C{k % 10}"
        ax.plot([r["n"] for r in series], [r["total_median"] for r in series], "o-", color=color)
        fit = fit_series(*key, series)
        fitted = [r for r in series if r["n"] in fit["sizes"]]
        _fit_line(ax, [r["n"] for r in fitted], [r["total_median"] for r in fitted], color)
        b = fit["time_exponent"]
        label = " ".join(key) + (f": ∝ n^{b:.2f}" if b is not None else "")
        ax.plot([], [], "o-", color=color, label=label)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    return True


def draw(rows: list[dict[str, Any]], directory: str) -> list[str]:
    """Draw the figures the rows support into ``directory``; returns the file names written."""
    import matplotlib.pyplot as plt

    os.makedirs(directory, exist_ok=True)
    written = []
    for name, figure in (("scaling.png", _scaling), ("grs.png", _grs)):
        if figure(rows, os.path.join(directory, name)):
            written.append(name)
        plt.close("all")
    return written
