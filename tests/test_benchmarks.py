"""The benchmark cases run (in-process, at the smallest sizes) and measure what they claim.

``python -m benchmarks`` runs each case in a child process and turns an exception into an
``error: …`` status row, so a case broken by a change in the library would otherwise only show
up in a benchmark report. Each value checked here comes from an independent closed form: the
geometric mechanism plus the Bayes remap for the GRS user LP (Ghosh, Roughgarden &
Sundararajan 2012, Thm. 3.1) and the staircase for the additive LP (Geng & Viswanath 2016).
"""

from __future__ import annotations

import pytest

from benchmarks import additive, additive2d, grs
from benchmarks.__main__ import markdown
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
    ]
    report = {
        "started": "now",
        "mode": "quick",
        "load_start": 0.5,
        "load_end": 0.5,
        "versions": {"optmech": "test"},
        "rows": rows,
    }
    text = markdown(report)
    assert "### GRS user LP" in text and "### Additive ε-DP noise LP" in text
    assert "error" not in text
