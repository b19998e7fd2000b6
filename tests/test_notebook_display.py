"""Notebook display: every result summarises itself in a small HTML table and draws itself into
a matplotlib Axes (Agg backend, nothing shown)."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

import optmech

RESULTS = {
    "design (uniform grid)": lambda: optmech.design_noise(
        optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=6, periods=3
    ),
    "design ((ε, δ))": lambda: optmech.design_noise(
        optmech.ApproxDP(1.0, 1e-3), sensitivity=1.0, cost="abs", resolution=6, periods=8
    ),
    "design (lattice)": lambda: optmech.design_noise(
        optmech.PureDP(1.0), sensitivity=2, cost="abs", integer=True
    ),
    "bayesian user": lambda: optmech.bayesian_mechanism(np.full(5, 0.2), "abs", 0.5),
    "minimax remap": lambda: optmech.geometric_minimax("abs", 0.5, n=4),
    "dependent noise": lambda: optmech.dependent_noise_lp(1.0, sensitivity=2, period=2),
    "common mechanism": lambda: optmech.common_mechanism(
        [np.full(4, 0.25), np.array([0.7, 0.1, 0.1, 0.1])], ["abs", "squared"], 0.5
    ),
    "staircase": lambda: optmech.Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost="abs"),
    "geometric": lambda: optmech.Geometric(epsilon=1.0),
    "uniform + atom": lambda: optmech.UniformAtom.optimal(delta=0.7, sensitivity=1.0, cost="abs"),
}


@pytest.fixture(scope="module", params=sorted(RESULTS))
def named(request: pytest.FixtureRequest) -> tuple[str, Any]:
    return request.param, RESULTS[request.param]()


def test_html_summary_is_a_small_table(named: tuple[str, Any]) -> None:
    _, result = named
    html = result._repr_html_()
    assert html.startswith('<table class="optmech-summary">') and html.endswith("</table>")
    assert len(html) < 4000  # a summary, not a dump of the matrices


def test_plot_returns_the_axes_it_drew_on(named: tuple[str, Any]) -> None:
    _, result = named
    fig, ax = plt.subplots()
    try:
        assert result.plot(ax=ax) is ax
        assert ax.has_data()
    finally:
        plt.close(fig)


def test_a_design_is_drawn_beside_its_closed_form() -> None:
    noise = RESULTS["design (uniform grid)"]()
    ax = noise.plot()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(ax.figure)
    assert labels == ["designed (LP)", "staircase optimum (Geng & Viswanath 2016)"]


def test_the_dependent_noise_draws_one_line_per_phase() -> None:
    """The lines are the phases' pmfs on the grid: their heights at each point are the pmf
    values, which sum to at most 1 per phase (the tails hold the rest)."""
    res = RESULTS["dependent noise"]()
    ax = res.plot()
    lines = ax.get_lines()
    plt.close(ax.figure)
    assert len(lines) == res.period
    for t, line in enumerate(lines):
        np.testing.assert_allclose(line.get_xdata(), res.support)
        np.testing.assert_allclose(line.get_ydata(), res.pmf(t, res.support), rtol=1e-15)
        assert 0.5 < float(np.sum(line.get_ydata())) <= 1.0 + 1e-12


def test_the_provenance_summarises_itself() -> None:
    prov = RESULTS["bayesian user"]().provenance
    html = prov._repr_html_()
    assert "certified interval" in html and "<table" in html
