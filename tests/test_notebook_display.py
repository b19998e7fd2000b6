"""Notebook display: every result summarises itself in a small HTML table and draws itself into
a matplotlib Axes (Agg backend, nothing shown).

The results are found, not only listed: every public class of ``optmech`` that is an LP result
or a 1-D noise family, or that shows itself in a notebook (``_repr_html_``), must have an
instance below, and every instance must draw itself (``plot``) — so a new public result without
a figure fails here."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")

import _small_results as small
import matplotlib.pyplot as plt
import numpy as np
import pytest

import optmech
from optmech.mechanisms.base import NoiseDistribution
from optmech.results import LPResult
from optmech.utilities import MutualInformation

RESULTS = {
    "design (uniform grid)": small.uniform_design,
    "design ((ε, δ))": small.approx_design,
    "design (lattice)": lambda: optmech.design_noise(
        optmech.PureDP(1.0), sensitivity=2, cost="abs", integer=True
    ),
    "bayesian user": small.bayesian_user,
    "minimax remap": small.geometric_remap,
    "dependent noise": small.dependent_noise,
    "common mechanism": small.common_mechanism,
    "design (graded grid)": small.graded_design,
    "design (2-D)": small.plane_design,
    "local mechanism": small.local_mechanism,
    "extremal mechanism": lambda: optmech.extremal_mechanism(
        MutualInformation(np.array([0.5, 0.3, 0.2])), 1.0
    ),
    "minimax remap (LP)": small.minimax_remap,
    "laplace": lambda: optmech.Laplace(epsilon=1.0),
    "gaussian": lambda: optmech.Gaussian(epsilon=0.5, delta=1e-5),
    "truncated laplace": lambda: optmech.TruncatedLaplace(epsilon=1.0, delta=1e-3),
    "discrete staircase": lambda: optmech.DiscreteStaircase(epsilon=1.0, sensitivity=2, r=1),
    "staircase": lambda: optmech.Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost="abs"),
    "geometric": lambda: optmech.Geometric(epsilon=1.0),
    "staircase in ℝ² (ℓ2 ball)": lambda: optmech.StaircaseND(
        epsilon=1.0, gamma=0.4, dimension=2, norm="l2"
    ),
    "staircase in ℝ³ (ℓ1 ball)": lambda: optmech.StaircaseND(
        epsilon=1.0, gamma=0.4, dimension=3, norm="l1"
    ),
    "rr on bins": lambda: optmech.rr_on_bins(
        np.array([0.1, 0.2, 0.4, 0.2, 0.1]), "squared", 1.0, inputs=np.arange(5.0)
    ),
    "local randomizer": lambda: optmech.LocalRandomizer.randomized_response(
        4, 1.0, inputs=list("abcd")
    ),
    "GRR": lambda: optmech.GRR(4, 1.0),
    "OUE": lambda: optmech.OUE(3, 1.0),
    "OLH": lambda: optmech.OLH(3, 1.0),
    "Hadamard response": lambda: optmech.HadamardResponse(3, 1.0),
    "subset selection": lambda: optmech.SubsetSelection(4, 1.0),
    "uniform + atom": lambda: optmech.UniformAtom.optimal(delta=0.7, sensitivity=1.0, cost="abs"),
    "shuffled guarantee": small.shuffle_guarantee,
    "shuffle mechanism": small.shuffle_mechanism,
}


@pytest.fixture(scope="module", params=sorted(RESULTS))
def named(request: pytest.FixtureRequest) -> tuple[str, Any]:
    return request.param, RESULTS[request.param]()


def _must_display(cls: type) -> bool:
    """An LP result, a 1-D noise family, or a class that shows itself in a notebook (but for
    the provenance, a record that every result shows and that is checked on its own below)."""
    if cls is optmech.Provenance:
        return False
    return issubclass(cls, (LPResult, NoiseDistribution)) or hasattr(cls, "_repr_html_")


def test_every_public_result_has_an_instance_here() -> None:
    """Each public class that must display itself has an instance in ``RESULTS``: a new
    result or family is checked here without a change to the test's logic."""
    public = [getattr(optmech, name) for name in optmech.__all__]
    classes = [obj for obj in public if isinstance(obj, type) and _must_display(obj)]
    assert len(classes) >= 15
    made = [type(make()) for make in RESULTS.values()]
    uncovered = [c.__name__ for c in classes if not any(issubclass(m, c) for m in made)]
    assert uncovered == []


def test_html_summary_is_a_small_table(named: tuple[str, Any]) -> None:
    _, result = named
    html = result._repr_html_()
    assert html.startswith('<table class="optmech-summary">') and html.endswith("</table>")
    assert len(html) < 4000  # a summary, not a dump of the matrices


def test_plot_returns_the_axes_it_drew_on(named: tuple[str, Any]) -> None:
    small.assert_draws_on_the_axes_given(named[1])


def test_a_design_is_drawn_beside_its_closed_form() -> None:
    noise = RESULTS["design (uniform grid)"]()
    ax = noise.plot()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(ax.figure)
    assert labels == ["designed (LP)", "staircase optimum (Geng & Viswanath 2016)"]


def test_a_design_takes_the_families_plot_keywords() -> None:
    """``references``, ``label`` and ``title`` mean what they mean for every family: the
    references drawn are the ones given (none for ``()``), the legend and title are the
    caller's; the older ``reference=False`` still works, with a warning."""
    noise = RESULTS["design (uniform grid)"]()
    laplace = optmech.Laplace(epsilon=1.0)
    ax = noise.plot(references=[("Laplace", laplace)], label="mine", title="T")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["mine", "Laplace"] and ax.get_title() == "T"
    plt.close(ax.figure)
    ax = noise.plot(references=())
    assert len(ax.get_lines()) == 1
    plt.close(ax.figure)
    with pytest.deprecated_call(match="references="):
        ax = noise.plot(reference=False)
    assert len(ax.get_lines()) == 1
    plt.close(ax.figure)
    with pytest.raises(ValueError, match=r"`references` must be 'closed-form'.*got 'laplace'"):
        noise.plot(references="laplace")


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
    assert "optimality interval" in html and "<table" in html


def test_a_staircase_in_the_plane_is_drawn_as_its_steps() -> None:
    """The heat map of the ℝ² staircase (γ = 0.4, Δ = 1) drops by exactly ε/ln 10 (log10 units)
    from the centre to the first shell, 0.4 ≤ ‖x‖ < 1.4, and by 2ε/ln 10 to the next one,
    1.4 ≤ ‖x‖ < 2.4 (Geng, Kairouz, Oh & Viswanath 2015: the density is ``a e^(−kε)`` for
    ``(k − 1 + γ)Δ ≤ ‖x‖ < (k + γ)Δ``)."""
    noise = optmech.StaircaseND(epsilon=1.0, gamma=0.4, dimension=2, norm="l2")
    ax = noise.plot(periods=3.0)
    try:
        data = np.asarray(ax.images[0].get_array())
        axis = np.linspace(-3.0, 3.0, data.shape[1])
        column = {r: int(np.argmin(np.abs(axis - r))) for r in (0.0, 0.7, 1.6)}
        row = column[0.0]
        centre, first, second = (data[row, column[r]] for r in (0.0, 0.7, 1.6))
    finally:
        plt.close(ax.figure)
    assert first == pytest.approx(centre - 1.0 / np.log(10.0), abs=1e-12)
    assert second == pytest.approx(centre - 2.0 / np.log(10.0), abs=1e-12)


@pytest.mark.parametrize("periods", [0.0, -1.0, float("nan"), 1e4])
def test_a_view_outside_its_range_is_refused_by_name(periods: float) -> None:
    noise = optmech.StaircaseND(epsilon=1.0, gamma=0.4, dimension=2, norm="l2")
    with pytest.raises(ValueError, match=r"`periods` must be .*\(0, 1000\]"):
        noise.plot(periods=periods)
