"""The shuffle rows of the catalogue: their exact reference, and that they can fail."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest

from optmech.theorems import shuffle_amplification as rows


def brute_force_delta(eps0: float, n: int, eps: float) -> float:
    """δ(ε) of n shuffled binary-RR reports by enumerating every report vector (n ≤ 6)."""
    a = 1.0 / (1.0 + math.exp(-eps0))
    worst = 0.0
    for others in itertools.product((0, 1), repeat=n - 1):
        for first, second in ((0, 1), (1, 0)):
            law = {0: {}, 1: {}}
            for x1, inputs in ((first, law[0]), (second, law[1])):
                for reports in itertools.product((0, 1), repeat=n):
                    p = 1.0
                    for x, y in zip((x1, *others), reports, strict=True):
                        p *= a if x == y else 1.0 - a
                    inputs[sum(reports)] = inputs.get(sum(reports), 0.0) + p
            d = sum(max(law[0][s] - math.exp(eps) * law[1][s], 0.0) for s in law[0])
            worst = max(worst, d)
    return worst


@pytest.mark.parametrize(("eps0", "n", "eps"), [(1.0, 2, 0.3), (2.0, 4, 0.5), (0.5, 6, 0.1)])
def test_the_exact_curve_is_the_brute_force_one(eps0: float, n: int, eps: float) -> None:
    got = rows.exact_binary_curve(eps0, n)(eps)
    assert got == pytest.approx(brute_force_delta(eps0, n, eps), rel=1e-12, abs=1e-15)


def test_a_bound_below_the_exact_curve_fails_its_row(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = rows.shuffle_epsilon

    def too_small(*args: object, **kwargs: object) -> object:
        g = honest(*args, **kwargs)  # type: ignore[arg-type]
        halved = {m: e / 2 for m, e in g.bounds.items()}
        return dataclasses.replace(g, bounds=halved, epsilon=g.epsilon / 2)

    monkeypatch.setattr(rows, "shuffle_epsilon", too_small)
    (row,) = rows.binary_exact_rows([(1.0, 100)])
    assert not row.passed and "exact δ" in row.detail


def test_a_lower_bound_above_the_exact_curve_fails_its_row(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = rows.shuffle_epsilon

    def too_large(*args: object, **kwargs: object) -> object:
        g = honest(*args, **kwargs)  # type: ignore[arg-type]
        return dataclasses.replace(g, lower_bound=g.epsilon * 1.5)

    monkeypatch.setattr(rows, "shuffle_epsilon", too_large)
    (row,) = rows.binary_exact_rows([(1.0, 100)])
    assert not row.passed and "lower bound" in row.detail


def test_fmt_closed_form_applies_only_in_its_regime() -> None:
    # ε₀ > log(n / (16 log(2/δ))): the theorem says nothing, ε₀ itself is returned.
    assert rows.fmt_closed_form(5.0, 1000, 1e-6) == 5.0
    # Inside: a + c by hand at ε₀ = 1, n = 1e6, δ = 1e-6, and the coefficient with ε₁.
    a = 8 * math.sqrt(math.e * math.log(4e6) / 1e6)
    c = 8 * math.e / 1e6
    coefficient = (1 - math.exp(-1)) / (1 + math.exp(-1) / (1 + a + c))
    assert rows.fmt_closed_form(1.0, 10**6, 1e-6) == pytest.approx(
        math.log(1 + coefficient * (a + c)), rel=1e-14
    )


def test_the_rows_pass_on_the_package() -> None:
    checked = [
        *rows.binary_exact_rows([(1.0, 50)]),
        *rows.fmt_closed_form_rows([(2, 1.0, 10**5)]),
        *rows.monotone_rows([(2, 2.0)]),
    ]
    assert all(r.passed for r in checked), [r.detail for r in checked if not r.passed]
