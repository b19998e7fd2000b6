"""The benchmark cases run (in-process, at the smallest sizes) and measure what they claim.

``python -m benchmarks`` runs each case in a child process and turns an exception into an
``error: …`` status row, so a case broken by a change in the library would otherwise only show
up in a benchmark report. Each value checked here comes from an independent closed form: the
geometric mechanism plus the Bayes remap for the GRS user LP (Ghosh, Roughgarden &
Sundararajan 2012, Thm. 3.1) and the staircase for the additive LP (Geng & Viswanath 2016).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _reference import benchmark_report

import benchmarks
from benchmarks import additive, additive2d, crossover, gdp, grs, page
from benchmarks.__main__ import markdown
from benchmarks._process import run_process
from optmech.mechanisms.staircase import Staircase

SOLVED = ("optimal", "optimal_inaccurate")


@pytest.mark.parametrize("solver", ["HIGHS", "CLARABEL"])
def test_grs_pipeline_case_matches_the_geometric_mechanism_and_remap(solver: str) -> None:
    row = grs.pipeline_case(6, 0.5, solver)
    assert row["status"] in SOLVED
    # The certified value is an upper end of the LP optimum, which G + remap attains.
    assert -1e-9 <= row["gap_to_closed_form"] <= 1e-5
    assert row["certified_epsilon"] <= 0.5 * (1 + 1e-9)
    assert min(row["total"], row["build"], row["solve"]) > 0


@pytest.mark.parametrize(("solver", "solved"), [("HIGHS", "Optimal"), ("CLARABEL", "Solved")])
def test_direct_cases_solve(solver: str, solved: str) -> None:
    for row in (grs.direct_case(6, 0.5, solver), additive.direct_case(6, 6, solver)):
        assert row["status_solver"] == solved
        assert min(row["total"], row["build"], row["solve"]) > 0


@pytest.mark.parametrize("monotone", [False, True])
def test_additive_pipeline_case_is_between_the_staircase_and_its_grid_version(
    monotone: bool,
) -> None:
    m = 6
    row = additive.pipeline_case(m, 6, "HIGHS", monotone=monotone)
    assert row["status"] in SOLVED
    assert row["certified_epsilon"] <= 1 + 1e-9
    # The value is the exact cost of certified 1-DP noise: never below the optimum V*.
    assert row["gap_to_closed_form"] >= -1e-12
    # The staircases whose step γ lies on the grid (γ = j/m) are points of the LP (symmetric,
    # non-increasing, geometric tails), so its optimum is at most their best cost, and the
    # value exceeds the optimum by at most the certified interval's width.
    on_grid = min(
        Staircase(epsilon=1.0, sensitivity=1.0, gamma=j / m).expected_cost("abs")
        for j in range(m + 1)
    )
    assert row["value"] <= on_grid + row["interval"] * row["value"] + 1e-12


def test_additive2d_design_case_is_certified() -> None:
    row = additive2d.design_case("linf", 2, 2)
    assert row["status"] in SOLVED
    assert row["certified_epsilon"] <= 1 + 1e-9
    assert row["value"] > 0 and 0 <= row["interval"] <= 1e-6


def test_markdown_tabulates_every_section() -> None:
    rows = [
        {"section": "grs", "n": 6, **grs.pipeline_case(6, 0.5, "HIGHS"), "load": 0.5},
        {"section": "additive", "m": 6, "periods": 6, "monotone": False, "load": 0.5}
        | additive.pipeline_case(6, 6, "HIGHS"),
        {"section": "gdp", "mu": 1.0, "m": 2, "accuracy": 1e-6, "load": 0.5}
        | gdp.design_case(1.0, 2, 1e-6, None),
    ]
    text = markdown(benchmark_report(rows))
    assert "### GRS user LP" in text and "### Additive ε-DP noise LP" in text
    assert "### Gaussian-DP designs" in text and rows[2]["source"] in text
    assert "error" not in text


# -- peak memory that cannot be inherited --------------------------------------------------------
BIG_PARENT = """
import json, sys
from benchmarks._process import proc_peak_mb, run_process
held = b"\\x01" * (400 * 2**20)  # 419 MB written, so resident
out = {{"parent": proc_peak_mb()}}
for method in ("proc", "launcher"):
    # each child stays 0.3 s at its peak, so the 10 ms polls see it even on a busy machine (a
    # child that exits within one poll is sampled only as it starts)
    for name, code in (("trivial", "import time; time.sleep(0.3)"),
                       ("200MB", "import time; b = b'1' * (200 * 2**20); time.sleep(0.3)")):
        run = run_process([sys.executable, "-c", code], timeout=60, method=method)
        out[f"{{method}} {{name}}"] = [run.returncode, run.peak_rss_mb]
naive = run_process(
    [sys.executable, "-c", "import resource; print(resource.getrusage(0).ru_maxrss / 1024)"],
    timeout=60,
)
out["naive"] = float(naive.stdout)
print(json.dumps(out))
"""


def test_a_small_child_of_a_large_parent_reports_its_own_peak_memory() -> None:
    """A parent holding 419 MB launches a trivial child and one that writes 210 MB: both
    measurements (``VmHWM`` and the launcher's ``wait4``) report the child's own peak, never the
    parent's size, which the child's own ``ru_maxrss`` inherits on Linux."""
    root = Path(benchmarks.__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", BIG_PARENT.format()],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    peaks = json.loads(out.stdout)
    assert peaks["parent"] >= 400  # the setup: the parent really is large
    assert peaks["naive"] >= 400  # what the old measurement read in the child
    for method in ("proc", "launcher"):
        code, trivial = peaks[f"{method} trivial"]
        assert code == 0 and 1 < trivial < 60, (method, trivial)
        code, written = peaks[f"{method} 200MB"]
        assert code == 0 and 200 * 2**20 / 1e6 <= written < 400, (method, written)


def test_a_process_over_its_time_limit_is_killed_with_its_children() -> None:
    for method in ("proc", "launcher"):
        run = run_process(
            [sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5, method=method
        )
        assert run.timed_out and run.returncode is None
        assert run.wall < 30


# -- the solver crossover -------------------------------------------------------------------------
@pytest.mark.parametrize("solver", ["HIGHS", "CLARABEL"])
def test_crossover_case_certifies_an_interval_around_the_staircase_grid_optimum(
    solver: str,
) -> None:
    row = crossover.design_case(1.0, 6, "abs", solver)
    assert row["solver"] == solver and row["status"] in SOLVED
    assert row["certified_epsilon"] <= 1 + 1e-9
    v_star = Staircase.optimal(epsilon=1.0, cost="abs").expected_cost("abs")
    # An exact cost of 1-DP noise: at least the optimum V* (Geng & Viswanath 2016), and at most
    # the best staircase whose step lies on the grid (those are points of the LP), up to the
    # width of the certified interval.
    on_grid = min(Staircase(epsilon=1.0, gamma=j / 6).expected_cost("abs") for j in range(7))
    assert v_star * (1 - 1e-12) <= row["value"] <= on_grid * (1 + 1e-9)
    assert row["lower_bound"] <= row["value"]


def test_crossover_is_the_size_from_which_clarabel_stays_faster() -> None:
    def rows(*pairs: tuple[int, float]) -> list[dict[str, float]]:
        return [{"variables": v, "clarabel_over_highs": r} for v, r in pairs]

    assert crossover.crossover(rows((100, 1.5), (200, 0.9), (400, 1.1), (800, 0.5))) == 800
    assert crossover.crossover(rows((800, 0.5), (100, 0.9), (200, 0.8))) == 100
    assert crossover.crossover(rows((100, 0.5), (200, 1.2))) is None


def test_crossover_row_pairs_the_two_solvers_on_one_lp() -> None:
    """Both solvers' certified intervals contain the LP's optimum, so they overlap, and the two
    certified values agree to the wider interval's width."""
    row = crossover._one(1.0, 4, "abs", None, 120.0)
    assert row["highs_status"] in SOLVED and row["clarabel_status"] in SOLVED
    assert row["intervals_overlap"] is True
    width = (
        max(row[f"{s}_value"] - row[f"{s}_lower_bound"] for s in ("highs", "clarabel"))
        / row["highs_value"]
    )
    assert abs(row["value_gap"]) <= width + 1e-12
    assert row["variables"] > 0 and row["clarabel_over_highs"] > 0


def test_the_page_states_its_command_and_every_figure_comes_from_the_rows() -> None:
    rows = [
        {"section": "startup", "command": "optmech staircase --epsilon 1", "runs": 3,
         "wall_min": 0.2, "wall_median": 0.25, "peak_rss_mb": 40.0, "load": 1.0},
        {"section": "samplers", "sampler": "Staircase.rvs", "epsilon": 1.0, "runs": 3,
         "samples_per_s": 2e7, "samples_per_s_best": 2.2e7, "limit": "numpy laplace",
         "ours_over_limit_time": 1.25, "load": 1.0},
    ]  # fmt: skip
    report = benchmark_report(rows, load_end=0.7, repeat=3, command="python -m benchmarks")
    text = page.render(report)
    assert "runs per case: 3 (startup, samplers)" in text
    # The page names the command of its own run (to rerun, without rewriting the page) and the
    # check of a new run against it.
    assert ".venv/bin/python -m benchmarks --out benchmark-results\n" in text
    assert f"python -m benchmarks.noise --page-runs {page.PAGE_RUNS}" in text
    assert "Measured from one run only" in text
    # The targets table reads the rows: the closed-form command's median, and "yes" for it.
    assert "< 0.3 s, whole process | 0.25 s (min 0.2) | yes |" in text
    assert "at most 1.25x | yes |" in text
    assert "### Samplers" in text and "### Whole processes of small problems" in text


def _sampler(name: str, eps: float, rate: float) -> dict:
    return {"section": "samplers", "sampler": name, "epsilon": eps, "runs": 3,
            "samples_per_s": rate, "samples_per_s_best": rate, "limit": "its float rvs",
            "ours_over_limit_time": 2.0, "load": 1.0}  # fmt: skip


def test_the_random_random_twin_of_a_sampler_is_the_one_at_its_epsilon() -> None:
    """Two ε, each with its SystemRandom and random.Random rows (made-up rates): each sentence
    quotes the twin measured at its own ε."""
    default, seeded = (
        "G.sample_exact (rng=default: SystemRandom)",
        "G.sample_exact (rng=random.Random)",
    )
    rows = [_sampler(default, 1.0, 1e5), _sampler(seeded, 1.0, 5e5),
            _sampler(default, 0.1, 2e5), _sampler(seeded, 0.1, 7e5)]  # fmt: skip
    text = "\n".join(page.findings(rows))
    assert "(ε = 1): 1e+05 draws/s with the default SystemRandom, 5e+05 with random.Random" in text
    assert (
        "(ε = 0.1): 2e+05 draws/s with the default SystemRandom, 7e+05 with random.Random" in text
    )


def test_the_summary_gives_each_peer_a_figure_or_the_reason_it_has_none(tmp_path) -> None:
    """With qif's GRS ratio and diffprivlib's sampling ratio in the rows, the summary quotes
    both; with a peer not importable in the run's environment, it says so and how to install
    it; the figures are drawn and linked."""
    rows = [
        {"section": "grs", "n": 50, "solver": "HIGHS", "status": "optimal", "runs": 3,
         "total": 0.1, "pipeline_over_qif": 0.04, "qif_status": "ok", "load": 1.0},
        {**_sampler("Staircase.rvs", 1.0, 2e7), "ours_over_peer_rate": 300.0},
        {**_sampler("Staircase.rvs", 5.0, 2e7), "ours_over_peer_rate": 150.0},
    ] + [
        {"section": "scaling", "kind": "case", "designer": "made up", "size": s, "total": t,
         "solver": solver, "status": "optimal", "solve_mb": 1.0, "interval": 0.0, "load": 1.0}
        for s, t, solver in [(10, 1.0, "HIGHS"), (20, 4.0, "HIGHS"), (40, 2.0, "CLARABEL"),
                             (80, 16.0, "CLARABEL")]
    ]  # fmt: skip
    installed = {"qif": "1.6.0", "diffprivlib": "0.6.6"}
    text = page.render(benchmark_report(rows, versions=installed), str(tmp_path))
    assert "0.04x qif's time at n = 50" in text and "150–300x faster" in text
    assert "- **qif** 1.6.0." in text
    assert "![scaling](img/performance/scaling.png)" in text
    assert (tmp_path / "scaling.png").stat().st_size > 0
    missing = page.render(benchmark_report(rows[:1], versions={"qif": "not available"}))
    assert "**qif**: not importable in the environment of this run" in missing
    assert 'pip install -e ".[bench]"' in missing
    assert "**against diffprivlib**: no figure in this run" in missing


def test_a_ladder_is_fitted_within_the_solver_of_its_largest_size() -> None:
    """A made-up ladder whose solver changes (time ∝ size² with each, the second faster): the
    fit takes the sizes of the largest one's solver only and says so."""
    from benchmarks import scaling

    cases = [{"size": s, "total": c * s**2, "solver": solver, "solve_mb": 1.0}
             for s, c, solver in [(10, 1e-2, "HIGHS"), (20, 1e-2, "HIGHS"),
                                  (40, 1e-3, "CLARABEL"), (80, 1e-3, "CLARABEL")]]  # fmt: skip
    row = scaling._summary("made up", "n", cases)
    assert row["time_exponent"] == pytest.approx(2.0, abs=1e-9)
    assert row["fitted_over"] == (
        "fitted over the sizes solved by CLARABEL (not HIGHS, which solved the smaller sizes)"
    )


@pytest.mark.slow
def test_qif_runs_where_the_bench_extra_installed_it() -> None:
    """With qif installed (the ``bench`` extra), the GRS section's peer case runs rather than
    being skipped, and qif's mechanism has the GRS optimum (G + Bayes remap, closed form)."""
    pytest.importorskip("qif")
    from _reference import g_plus_bayes_remap

    n = 10
    out = grs.qif_case(n, 0.5, 60.0)
    assert out["status"] == "ok"
    i = np.arange(n + 1)
    loss = np.abs(i[:, None] - i[None, :]).astype(float)
    assert out["value"] == pytest.approx(
        g_plus_bayes_remap(np.full(n + 1, 1 / (n + 1)), loss, 0.5), rel=1e-9
    )
