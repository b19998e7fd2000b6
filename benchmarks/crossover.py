"""Where Clarabel overtakes HiGHS on the additive ε-DP LP: the measurement behind the default.

For each cost, ε and resolution m (cells per Δ; the default periods, as ``design_noise``
uses them), ``design_noise(PureDP(ε), sensitivity=1, cost, resolution=m, solver=S)`` runs in a
fresh process for S = HiGHS and S = Clarabel, alternately (HiGHS, Clarabel, HiGHS, Clarabel, ...)
so that the machine's load falls on both alike. Per solver: the design's own seconds (build,
solve, certify, and the cross-check when the first interval is wide; measured inside the
process, no imports) and the whole process's wall time, both min / median over the runs; the
certified value and interval. The two designs solve the same LP, so each certified interval
``[lower_bound, value]`` must contain the other's LP optimum: the rows record the values' gap
and whether the intervals overlap.

The ``crossover`` rows give, per cost, ε and periods, the number of LP variables from which
Clarabel's median design time is below HiGHS's at every larger size measured; the largest of
them (the size from which Clarabel was faster in every group) is what
``optmech.lp.solve.SOLVER_POLICY["additive"]`` is set from.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

from benchmarks._common import fmt_field, run_cases

MODULE = "benchmarks.crossover"
SOLVERS = ("HIGHS", "CLARABEL")


def design_case(
    eps: float, m: int, cost: str, solver: str, periods: int | None = None
) -> dict[str, Any]:
    """One design, timed inside this (fresh) process after the imports (child process)."""
    import optmech
    from optmech.lp.additive import AdditiveSpec, build_additive_lp  # noqa: F401  (imports)
    from optmech.lp.solve import choose_solver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        noise = optmech.design_noise(
            optmech.PureDP(eps),
            sensitivity=1.0,
            cost=cost,
            resolution=m,
            periods=periods,
            solver=solver,
        )
        total = time.perf_counter() - start
    prov = noise.provenance
    return {
        "total": total,
        "solve": prov.solve_time,
        "status": prov.status,
        "solver": prov.solver,
        "attempts": [str(a) for a in prov.attempts],
        "variables": prov.num_variables,
        "periods": noise.record.periods,
        "value": noise.value,
        "lower_bound": noise.lower_bound,
        "certified_epsilon": noise.certified_epsilon,
        "default_solver": choose_solver(prov.num_variables, kind="additive"),
    }


def crossover(rows: list[dict[str, Any]]) -> int | None:
    """Fewest variables from which Clarabel's median time is below HiGHS's at every measured
    size at or above it (None when HiGHS is faster at the largest size)."""
    ordered = sorted(
        (r for r in rows if r.get("clarabel_over_highs") is not None), key=lambda r: r["variables"]
    )
    best = None
    for row in reversed(ordered):
        if row["clarabel_over_highs"] < 1.0:
            best = row["variables"]
        else:
            break
    return best


#: (cost, ε, periods or None for the default, resolutions) of each group of the full mode.
GROUPS: tuple[tuple[str, float, int | None, tuple[int, ...]], ...] = (
    ("abs", 1.0, None, (25, 100, 200, 400)),
    ("abs", 3.0, None, (25, 100, 200, 400)),
    ("squared", 1.0, None, (25, 100, 200, 400)),
    ("squared", 3.0, None, (25, 100, 200, 400)),
    ("abs", 1.0, 20, (5, 25, 50, 100, 200)),
    ("squared", 1.0, 20, (5, 25, 50, 100, 200)),
)
#: The quick mode's groups: |e| at the default and at 20 periods, and e² at 20 periods, where
#: Clarabel stays slower longest (so that a quick page's crossover is the default's too).
QUICK_GROUPS: tuple[tuple[str, float, int | None, tuple[int, ...]], ...] = (
    ("abs", 1.0, None, (25, 100, 200)),
    ("abs", 1.0, 20, (25, 100)),
    ("squared", 1.0, 20, (25, 100)),
)


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """Rows of the crossover section (one per case, one ``crossover`` row per group)."""
    rows: list[dict[str, Any]] = []
    for cost, eps, periods, sizes in QUICK_GROUPS if quick else GROUPS:
        group = [_one(eps, m, cost, periods, timeout) for m in sizes]
        rows += group
        cut = crossover(group)
        rows.append(
            {
                "section": "crossover",
                "kind": "crossover",
                "cost": cost,
                "epsilon": eps,
                "periods": group[0].get("periods"),
                "crossover_variables": cut,
            }
        )
        print(f"[crossover] {cost} eps={eps:g}: Clarabel faster from {cut} variables", flush=True)
    return rows


def _one(eps: float, m: int, cost: str, periods: int | None, timeout: float) -> dict[str, Any]:
    kwargs = {"eps": eps, "m": m, "cost": cost, "periods": periods}
    cases = [(MODULE, "design_case", {**kwargs, "solver": s}) for s in SOLVERS]
    highs, clarabel = run_cases(cases, timeout)
    row: dict[str, Any] = {"section": "crossover", "kind": "case", "cost": cost, "epsilon": eps}
    row["m"] = m
    for name, res in (("highs", highs), ("clarabel", clarabel)):
        for key in ("status", "total_min", "total_median", "wall_with_startup_min"):
            row[f"{name}_{key}"] = res.get(key)
        row[f"{name}_wall_median"] = res.get("wall_with_startup_median")
        row[f"{name}_value"] = res.get("value")
        row[f"{name}_lower_bound"] = res.get("lower_bound")
        row[f"{name}_attempts"] = res.get("attempts")
        row[f"{name}_peak_rss_mb"] = res.get("peak_rss_mb")
    row["variables"] = highs.get("variables") or clarabel.get("variables")
    row["periods"] = highs.get("periods") or clarabel.get("periods")
    row["default_solver"] = highs.get("default_solver") or clarabel.get("default_solver")
    row["runs"] = min(highs.get("runs", 0), clarabel.get("runs", 0))
    row["load"] = max(highs.get("load", 0.0), clarabel.get("load", 0.0))
    if highs.get("total_median") and clarabel.get("total_median"):
        row["clarabel_over_highs"] = clarabel["total_median"] / highs["total_median"]
        row["clarabel_over_highs_wall"] = (
            clarabel["wall_with_startup_median"] / highs["wall_with_startup_median"]
        )
        vh, vc = highs["value"], clarabel["value"]
        row["value_gap"] = (vc - vh) / vh
        row["intervals_overlap"] = bool(
            max(highs["lower_bound"], clarabel["lower_bound"]) <= min(vh, vc)
        )
    f = lambda key, fmt=".2f": fmt_field(row, key, fmt)  # noqa: E731
    print(
        f"[crossover] {cost} eps={eps:g} m={m} K={row['periods']} ({row['variables']} vars, "
        f"default {row['default_solver']}): HiGHS {f('highs_total_median')} s, Clarabel "
        f"{f('clarabel_total_median')} s (ratio {f('clarabel_over_highs')}; whole process "
        f"{f('highs_wall_median')} / {f('clarabel_wall_median')} s), value gap "
        f"{f('value_gap', '+.1e')}, overlap {row.get('intervals_overlap')}, load {f('load')}",
        flush=True,
    )
    return row
