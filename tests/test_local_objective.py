"""``local_mechanism``'s objective is said, never implied by ``None``; the CLI's defaults are the
library's; ``cost`` is the error's cost (``loss`` a deprecated keyword).

Independent truth: the Bayesian value is the prior's expected loss of the returned matrix and
the minimax value its worst row's, both computed here; a uniform prior is the one written out;
the CLI's printed JSON is compared with a library call.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import optmech
from optmech.cli import main

LABELS = [0.0, 1.0, 2.0, 5.0]


def _row_losses(res: optmech.LocalMechanism) -> np.ndarray:
    x, y = np.asarray(LABELS), np.asarray(res.outputs)
    return np.sum(res.mechanism * (y[None, :] - x[:, None]) ** 2, axis=1)


def test_bayesian_is_the_default_and_uniform_is_a_prior() -> None:
    said = optmech.local_mechanism("uniform", "squared", 1.0, inputs=LABELS)
    written = optmech.local_mechanism(np.full(4, 0.25), "squared", 1.0, inputs=LABELS)
    explicit = optmech.local_mechanism(
        np.full(4, 0.25), "squared", 1.0, objective="bayesian", inputs=LABELS
    )
    assert said.value == written.value == explicit.value
    assert said.value == pytest.approx(float(np.mean(_row_losses(said))), rel=1e-9)


def test_minimax_is_said_and_is_the_worst_row() -> None:
    res = optmech.local_mechanism(None, "squared", 1.0, objective="minimax", inputs=LABELS)
    assert res.value == pytest.approx(float(np.max(_row_losses(res))), rel=1e-9)
    bayes = optmech.local_mechanism("uniform", "squared", 1.0, inputs=LABELS)
    # The least worst row is at most the Bayesian optimum's worst row, and at least its mean
    # (the minimax optimum's worst row is at least its own mean, at least the Bayes optimum).
    assert res.value <= float(np.max(_row_losses(bayes))) * (1 + 1e-9)
    assert res.value >= bayes.value * (1 - 1e-9)


def test_none_without_an_objective_is_deprecated_minimax() -> None:
    with pytest.warns(DeprecationWarning, match='objective="minimax"'):
        old = optmech.local_mechanism(None, "squared", 1.0, inputs=LABELS)
    new = optmech.local_mechanism(None, "squared", 1.0, objective="minimax", inputs=LABELS)
    assert old.value == new.value


@pytest.mark.parametrize(
    ("prior", "objective", "named"),
    [
        ([0.25] * 4, "minimax", "`prior` does not apply"),
        ("uniform", "minimax", "`prior` does not apply"),
        (None, "bayesian", "`prior` must be given"),
        (None, "nope", "`objective` must be one of"),
        ("flat", None, "`prior` must be"),
    ],
)
def test_a_prior_that_cannot_apply_is_refused(prior: object, objective: object, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        optmech.local_mechanism(prior, "squared", 1.0, objective=objective, inputs=LABELS)


def test_cost_is_the_keyword_and_loss_its_deprecated_alias() -> None:
    by_cost = optmech.local_mechanism([0.25] * 4, cost="abs", epsilon=1.0, inputs=LABELS)
    with pytest.warns(DeprecationWarning, match="cost="):
        by_loss = optmech.local_mechanism([0.25] * 4, loss="abs", epsilon=1.0, inputs=LABELS)
    positional = optmech.local_mechanism([0.25] * 4, "abs", 1.0, inputs=LABELS)
    assert by_cost.value == by_loss.value == positional.value
    with pytest.raises(TypeError, match="`cost`"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        optmech.local_mechanism([0.25] * 4, cost="abs", loss="abs", epsilon=1.0, inputs=LABELS)


@pytest.mark.parametrize("extra", [[], ["--unbiased"]])
def test_the_cli_defaults_are_the_librarys(
    extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The same problem through the CLI (no --prior, no --objective) and through the library
    (a uniform prior, the default objective) gives the same numbers."""
    argv = ["local", "--inputs", "0,1,2,5", "--epsilon", "1", "--cost", "squared", *extra]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    constraints = [optmech.constraints.Unbiased()] if extra else []
    direct = optmech.local_mechanism(
        "uniform",
        "squared",
        1.0,
        inputs=LABELS,
        outputs=np.asarray(out["outputs"]),
        constraints=constraints,
    )
    assert out["objective"] == "bayesian"
    assert out["value"] == direct.value
    minimax = ["--objective", "minimax"]
    assert main([*argv, *minimax, "--json"]) == 0
    worst = json.loads(capsys.readouterr().out)
    assert main([*argv, "--minimax", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == worst["value"] > out["value"]
