"""The Gaussian-DP benchmark section: its case against the Gaussian's closed form (its table
is checked with every other section's in ``test_benchmarks``)."""

from __future__ import annotations

import math

from benchmarks import gdp


def test_gdp_design_case_against_the_gaussian() -> None:
    """Two cells per Δ: the row's gap is the value over √(2/π)/μ, computed here, and positive
    (the grid Gaussian on cells of Δ/2 costs 2% more than the Gaussian); the interval is
    certified and μ = 1 holds."""
    row = gdp.design_case(1.0, 2, 1e-6, None)
    gaussian = math.sqrt(2.0 / math.pi)
    assert row["gap_to_gaussian"] == (row["value"] / gaussian - 1.0)
    assert 0.01 < row["gap_to_gaussian"] < 0.03
    assert row["lower_bound"] <= row["value"] and 0 <= row["interval"] <= 1e-5
    assert row["certified_mu"] <= 1.0 and row["rounds"] >= 1
