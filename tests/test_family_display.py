"""Notebook display of the families: the staircase summary at the display's six significant
digits (full precision in ``repr``), and the guarantee and sensitivity in every plot title.

Independent truth for the summary: the closed forms of Geng & Viswanath (2016) for γ* and the
optimal cost under |x|, ``γ* = 1/(1 + e^(ε/2))`` and ``V* = Δ e^(ε/2)/(e^ε − 1)``.
"""

from __future__ import annotations

import html
import math
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

import optmech


def _rows(summary: str) -> dict[str, str]:
    pairs = re.findall(r"<th[^>]*>(.*?)</th><td[^>]*>(.*?)</td>", summary)
    return {html.unescape(k): html.unescape(v) for k, v in pairs}


def test_staircase_summary_shows_gamma_and_cost_at_six_digits() -> None:
    """The display rounds to six significant digits, as every result's; ``repr`` keeps γ at
    full precision (it round-trips)."""
    eps, delta = 1.0, 2.0
    s = optmech.Staircase.optimal(epsilon=eps, sensitivity=delta, cost="abs")
    rows = _rows(s._repr_html_())
    gamma = 1.0 / (1.0 + math.exp(eps / 2))
    assert rows["γ"] == f"{gamma:.6g}"
    cost = delta * math.exp(eps / 2) / math.expm1(eps)
    assert rows["expected cost"] == f"{cost:.6g}"
    assert rows["optimal for cost"] == "Absolute()"
    assert float(rows["sensitivity Δ"]) == delta
    assert f"gamma={s.gamma!r}" in repr(s) and float(repr(s.gamma)) == s.gamma


def test_a_staircase_not_from_optimal_shows_no_cost() -> None:
    rows = _rows(optmech.Staircase(epsilon=1.0, gamma=0.3)._repr_html_())
    assert "expected cost" not in rows and rows["γ"] == "0.3"


@pytest.mark.parametrize(
    ("noise", "words"),
    [
        (optmech.Staircase(epsilon=1.5, gamma=0.3, sensitivity=2.0), ["ε = 1.5", "Δ = 2"]),
        (optmech.Geometric(epsilon=0.5, sensitivity=3), ["ε = 0.5", "Δ = 3"]),
        (optmech.UniformAtom(delta=0.7, alpha=0.1), ["ε = 0, δ = 0.7", "Δ = 1"]),
        (optmech.Gaussian(epsilon=0.5, delta=1e-5), ["ε = 0.5, δ = 1e-05", "Δ = 1"]),
    ],
)
def test_plot_titles_name_the_guarantee_and_the_sensitivity(noise, words) -> None:
    fig, ax = plt.subplots()
    try:
        title = noise.plot(ax=ax).get_title()
    finally:
        plt.close(fig)
    assert title.startswith(type(noise).__name__)
    for word in words:
        assert word in title


def test_an_explicit_title_wins() -> None:
    fig, ax = plt.subplots()
    try:
        assert optmech.Laplace(epsilon=1.0).plot(ax=ax, title="mine").get_title() == "mine"
    finally:
        plt.close(fig)
