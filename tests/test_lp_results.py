"""Every LP result class keeps the one result interface of ``optmech.results.LPResult``.

The classes are found, not listed: every module of ``optmech.lp`` is imported and every class in
it that carries a provenance is checked to be an ``LPResult`` (or a design record), and every
registered result class must have a small instance below — so a new result cannot skip the
battery. Each instance is built small (milliseconds to a second).
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
import pkgutil
from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")

import _small_results as small
import numpy as np
import pytest

import optmech
import optmech.lp
from optmech.lp.additive.designed import DesignedNoise
from optmech.provenance import Provenance, ProvenanceBounds, Repair
from optmech.results import LPResult, json_safe, registered_results

#: Small instances of each result class, by class name (and variant).
FACTORIES: dict[str, Callable[[], Any]] = {
    "DesignedPiecewiseNoise": small.uniform_design,
    "DesignedGradedNoise": small.graded_design,
    "DesignedLatticeNoise": lambda: optmech.design_noise(
        optmech.ApproxDP(1.0, 1e-3), sensitivity=2, cost="abs", integer=True, periods=10
    ),
    "DesignedNoise2D": small.plane_design,
    "DesignedPiecewiseNoise ((ε, δ))": small.approx_design,
    "UserMechanism": small.bayesian_user,
    "UserMechanism (minimax)": lambda: optmech.minimax_mechanism("squared", 0.5, n=4),
    "CommonMechanismResult": small.common_mechanism,
    "RemapResult": small.geometric_remap,
    "RemapResult (minimax remap)": small.minimax_remap,
    "DependentNoiseResult": small.dependent_noise,
    "LocalMechanism": small.local_mechanism,
}


def _lp_modules() -> list[Any]:
    """Every module of optmech.lp, imported (the deprecated shims too: importing them is
    silent)."""
    names = [m.name for m in pkgutil.walk_packages(optmech.lp.__path__, "optmech.lp.")]
    return [importlib.import_module(name) for name in names]


def test_every_class_with_a_provenance_is_a_result_or_a_record() -> None:
    """A class of optmech.lp that holds a provenance is an LPResult, unless it is the record a
    designed noise keeps (whose result is the noise)."""
    loose = []
    for module in _lp_modules():
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or not issubclass(cls, ProvenanceBounds):
                continue
            if not issubclass(cls, LPResult) and not cls.__name__.startswith("DesignRecord"):
                loose.append(f"{module.__name__}.{cls.__name__}")
    assert not loose, f"LP results outside the result interface: {loose}"


def test_every_result_class_is_in_the_battery() -> None:
    _lp_modules()
    registered = {cls.__name__ for cls in registered_results()}
    assert registered == {name.split(" ")[0] for name in FACTORIES}
    assert all(not inspect.isabstract(cls) for cls in registered_results())


@pytest.fixture(scope="module", params=sorted(FACTORIES))
def result(request: pytest.FixtureRequest) -> Any:
    made = FACTORIES[request.param]()
    assert type(made).__name__ == request.param.split(" ")[0]
    return made


def test_the_interval(result: LPResult) -> None:
    assert isinstance(result, LPResult)
    assert isinstance(result.provenance, Provenance)
    assert math.isfinite(result.value) and math.isfinite(result.lower_bound)
    assert result.lower_bound <= result.value
    assert isinstance(result.repair, Repair)


def test_to_dict_is_json_and_complete(result: LPResult) -> None:
    """Plain JSON (no NaN or inf, no numpy types), the protocol's numbers at the top, the
    provenance nested, and a round trip through text changes nothing."""
    data = result.to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text) == data
    assert data["result"] == type(result).__name__
    assert data["value"] == result.value and data["lower_bound"] == result.lower_bound
    assert data["certified"] is result.provenance.within_accuracy
    prov = data["provenance"]
    assert prov["solver"] in ("HIGHS", "CLARABEL", "none") and prov["attempts"]
    assert set(prov["repair"]) == {"kind", "weight", "cost"}
    assert len(data) > 5  # the result's own fields besides the protocol's


def test_summary_is_text(result: LPResult) -> None:
    """``summary()`` is text with the interval (a 1-D design's dict is deprecated: it gives the
    text of every other result from the next release on)."""
    if isinstance(result, DesignedNoise):
        with pytest.deprecated_call():
            assert result.summary() == result.record.flat_dict()
        text = LPResult.summary(result)
    else:
        text = result.summary()
    assert isinstance(text, str)
    assert f"{result.lower_bound:.10g}" in text and f"{result.value:.10g}" in text


def test_html_summary_is_a_small_table(result: LPResult) -> None:
    html = result._repr_html_()
    assert html.startswith('<table class="optmech-summary">') and html.endswith("</table>")
    assert f"{result.value:.10g}" in html
    assert len(html) < 4000


def test_plot_draws_into_the_axes_given(result: LPResult) -> None:
    small.assert_draws_on_the_axes_given(result)


def test_json_safe_converts_what_json_cannot_write() -> None:
    data = json_safe(
        {"a": np.arange(3), "b": (np.float32(0.5), float("-inf")), "c": {1: np.bool_(True)}}
    )
    assert data == {"a": [0, 1, 2], "b": [0.5, "-inf"], "c": {"1": True}}
    json.dumps(data, allow_nan=False)
