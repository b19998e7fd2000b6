"""``--json`` of ``design``, ``user`` and ``local`` is the result's own ``to_dict()``.

The library call the command makes is wrapped to keep the result it returned; the printed JSON
must hold that result's ``json_safe(to_dict())`` entry for entry (same keys first, same values
after a JSON round trip), and every other key must be one of the command's documented extras
or a provenance field lifted to the top level with the provenance's own value.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import optmech
import optmech.lp.design
import optmech.lp.user
from optmech.cli import design, local, main, user
from optmech.cli._output import LIFTED_PROVENANCE
from optmech.results import json_safe

DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def _capture(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[Any]:
    """Wrap ``module.name`` so that the results it returns are appended to the list returned."""
    kept: list[Any] = []
    original = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kept.append(original(*args, **kwargs))
        return kept[-1]

    monkeypatch.setattr(module, name, wrapper)
    return kept


def _check(printed: dict[str, Any], result: Any, extras: tuple[str, ...]) -> set[str]:
    """The printed JSON against the result's dictionary; returns the extra keys printed."""
    own = json.loads(json.dumps(json_safe(result.to_dict()), allow_nan=False))
    assert list(printed)[: len(own)] == list(own)  # the result's keys first, in its order
    for key, value in own.items():  # the provenance too: the same run's timings
        assert printed[key] == value, key
    added = set(printed) - set(own)
    lifted = added & set(LIFTED_PROVENANCE)
    for key in lifted:
        assert printed[key] == own["provenance"][key], key
    unknown = added - lifted - set(extras)
    assert not unknown, f"undocumented keys {sorted(unknown)}"
    return added


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    text = capsys.readouterr().out
    return json.loads(text)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "argv",
    [
        ["--privacy", "eps=1", "--resolution", "8", "--periods", "2"],
        ["--privacy", "eps=1,delta=1e-3", "--resolution", "8"],
        ["--privacy", "zcdp=0.5", "--integer"],
        ["--privacy", "eps=2", "--cost", "asym:3,1", "--resolution", "4", "--periods", "16",
         "--unbiased"],
        ["--dimension", "2", "--sensitivity-norm", "linf", "--privacy", "eps=1",
         "--resolution", "2", "--periods", "2"],
    ],
)  # fmt: skip
def test_design_json_is_the_designed_noise_dict(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = _capture(monkeypatch, optmech.lp.design, "design_noise")
    printed = _run(capsys, ["design", *argv])
    (noise,) = kept
    baselines = {key for key in printed if key.endswith(" cost") and key != "repair_cost"}
    residuals = {f"constraint {c['name']}: residual" for c in printed["provenance"]["constraints"]}
    added = _check(printed, noise, (*design.JSON_EXTRAS, *baselines, *residuals))
    assert printed["lp_value"] == printed["value"] == noise.value  # the earlier name kept
    assert {"solver", "status", "lp_value"} <= added
    if "eps=1,delta" in argv[1]:
        assert baselines == {"truncated Laplace cost", "Gaussian (analytic) cost"}
    if "--unbiased" in argv:
        assert residuals == {"constraint Unbiased(): residual"} <= added


@pytest.mark.parametrize(
    ("argv", "library"),
    [
        (["--n", "4", "--epsilon", "1"], "bayesian_mechanism"),
        (["--n", "4", "--epsilon", "1", "--minimax", "--side-info", "0,2"], "minimax_mechanism"),
        (["--epsilon", "1", "--graph", "grid:2x2"], "bayesian_mechanism"),
    ],
)
def test_user_json_is_the_user_mechanism_dict(
    argv: list[str],
    library: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    kept = _capture(monkeypatch, optmech.lp.user, library)
    printed = _run(capsys, ["user", *argv])
    (result,) = kept
    _check(printed, result, user.JSON_EXTRAS)
    assert printed["repair_lambda"] == result.provenance.repair.weight
    assert printed["cost"] == "abs"  # the --cost as given


def test_local_json_is_the_local_mechanism_dict(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = _capture(monkeypatch, optmech, "local_mechanism")
    argv = ["local", "--inputs", "0,1,2", "--epsilon", "1", "--unbiased", "--rr-on-bins"]
    printed = _run(capsys, argv)
    (result,) = kept
    _check(printed, result, local.JSON_EXTRAS)
    assert printed["grid"] == printed["grid_statement"]
    (record,) = printed["constraints"]
    assert record == printed["provenance"]["constraints"][0]
    assert record["name"] == "Unbiased()" and math.isfinite(record["residual"])


def test_every_json_extra_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for name in {*design.JSON_EXTRAS, *user.JSON_EXTRAS, *local.JSON_EXTRAS, *LIFTED_PROVENANCE}:
        assert f"`{name}`" in text, name
