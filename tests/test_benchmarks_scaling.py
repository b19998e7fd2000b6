"""The scaling benchmark: its fits and extrapolations against power laws made up here, one real
case in a child process, and its tables."""

from __future__ import annotations

import math

import pytest
from _reference import benchmark_report

from benchmarks import scaling
from benchmarks.__main__ import markdown
from benchmarks._common import run_once


def test_the_fits_recover_a_made_up_power_law() -> None:
    sizes = [100.0, 200.0, 400.0, 800.0]
    seconds = [2e-5 * s**1.5 for s in sizes]
    megabytes = [3e-3 * s**2 for s in sizes]
    cases = [
        {"size": s, "total": t, "solve_mb": m, "baseline_mb": 100.0}
        for s, t, m in zip(sizes, seconds, megabytes, strict=True)
    ]
    row = scaling._summary("made up", "n", cases)
    assert row["time_exponent"] == pytest.approx(1.5, abs=1e-12)
    assert row["memory_exponent"] == pytest.approx(2.0, abs=1e-12)
    # 600 s at s = (600 / 2e-5)^(1/1.5); 7900 MB (8 GB less the baseline) at (7900/3e-3)^(1/2).
    by_time = (600.0 / 2e-5) ** (1 / 1.5)
    by_memory = (7900.0 / 3e-3) ** 0.5
    assert row["largest_estimate"] == pytest.approx(min(by_time, by_memory), rel=1e-9)
    assert row["limited_by"] == ("time" if by_time < by_memory else "memory")
    assert row["largest_solved"] == 800.0


def test_a_size_that_does_not_grow_has_no_limit() -> None:
    assert scaling.largest_within(10.0, 1.0, 0.0, 600.0) == math.inf
    assert scaling.largest_within(10.0, 1.0, None, 600.0) == math.inf
    assert scaling.slope([5.0], [1.0]) is None


def test_one_case_in_a_child_measures_its_own_solve() -> None:
    """The local model at n = 25 (the smallest case of the quick ladder), in a fresh process:
    its size is n, its value is the LP's, and what the solve added to memory is positive and
    far below the process's baseline of imports."""
    out = run_once(scaling.MODULE, "scaling_case", 120.0, designer="local mechanism", parameter=25)
    assert out["status"] == "optimal" and out["size"] == 25
    assert 0.0 < out["solve_mb"] < out["baseline_mb"]
    assert out["interval"] <= 1e-6


def test_the_tables_show_each_ladder_and_its_fit() -> None:
    cases = [
        {
            "section": "scaling",
            "kind": "case",
            "designer": "made up",
            "size": s,
            "total": t,
            "status": "optimal",
            "solve_mb": 10.0 * s,
            "interval": 1e-9,
            "load": 0.5,
        }
        for s, t in ((10, 1.0), (20, 4.0))
    ]
    summary = scaling._summary("made up", "n", cases)
    text = markdown(benchmark_report([*cases, summary]))
    assert "### Scaling of each designer: the ladders" in text
    assert "| made up | n | 2.00 | 1.00 | solver not recorded | 20 |" in text


def test_the_priors_of_a_size_give_its_median_and_worst() -> None:
    """Three priors of one size, one of them 20 times slower: the spread row reports the median
    and the worst with its prior, says the worst is not within 10 times the median, and the fit
    takes the median; a prior over the time limit counts as the limit and keeps the size out of
    the fit."""
    made_up = [(0, 1.0), (1, 2.0), (2, 40.0)]
    cases = [{"size": 100, "total": t, "seed": i, "solve_mb": 5.0} for i, t in made_up]
    row = scaling.spread("made up", "n", cases)
    assert (row["median"], row["worst"], row["worst_seed"]) == (2.0, 40.0, 2)
    assert row["worst_over_median"] == 20.0 and row["within"] is False
    assert row["total"] == 2.0
    timed_out = scaling.spread("made up", "n", [*cases[:2], {"status": "timeout", "seed": 2}])
    assert timed_out["worst"] == scaling.LIMIT_SECONDS and timed_out["total"] is None
    text = markdown(
        benchmark_report(
            [
                {
                    **c,
                    "section": "scaling",
                    "kind": "case",
                    "designer": "made up",
                    "status": "optimal",
                    "load": 0.5,
                }
                for c in cases
            ]
            + [row]
        )
    )
    assert "the priors of each size (median and worst)" in text
    draw, concentration, loss = scaling.PRIOR_SEEDS[2]
    assert f"| 40 | Dirichlet({concentration:g}), {loss}, seed {draw} | 20 | NO |" in text
