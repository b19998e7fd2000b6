"""Every public result keeps the one result protocol of ``optmech.results.Result``.

The result classes are *found*, not listed: every module of optmech is imported (pkgutil) and
each class defined there that carries a provenance, subclasses a result base, or is exported
and looks like a result (a ``value`` beside a mechanism, bounds or a certified ε) must either
have a small instance below or be named, with the reason, among the records that are not
results. A new result type cannot skip the battery: without a factory it fails here.

Each instance is checked for the names of the protocol and their meaning (the optimality
interval holds ``value`` at one end and contains it), a text ``summary()`` whose rows are
those of the HTML display in the same order, a JSON-safe ``to_dict()``, a ``plot()`` that
returns the Axes it drew on, and the deprecated spellings (``optimality_gap``, ``sample``,
``Provenance.certified``) that warn and agree with the new ones.
"""

from __future__ import annotations

import functools
import html
import importlib
import inspect
import json
import pkgutil
import random
import re
from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")

import _small_results as small
import matplotlib.pyplot as plt
import numpy as np
import pytest

import optmech
from optmech.provenance import Provenance
from optmech.results import BaseResult, Result

#: A small instance of each result class, by the class's module and name.
FACTORIES: dict[str, Callable[[], Any]] = {
    "optmech.certify.shuffle.ShuffleGuarantee": small.shuffle_guarantee,
    "optmech.lp.additive.designed.DesignedPiecewiseNoise": small.uniform_design,
    "optmech.lp.additive.designed.DesignedGradedNoise": small.graded_design,
    "optmech.lp.additive.designed.DesignedLatticeNoise": small.lattice_design,
    "optmech.lp.additive2d.designed.DesignedNoise2D": small.plane_design,
    "optmech.lp.dependent_result.DependentNoiseResult": small.dependent_noise,
    "optmech.lp.local.bins.RROnBins": small.rr_on_bins,
    "optmech.lp.local.extremal.ExtremalMechanism": small.extremal,
    "optmech.lp.local.result.LocalMechanism": small.local_mechanism,
    "optmech.lp.remap.RemapResult": small.geometric_remap,
    "optmech.lp.shuffle.result.ShuffleMechanism": small.shuffle_mechanism,
    "optmech.lp.matrix.result.CommonMechanismResult": small.common_mechanism,
    "optmech.lp.matrix.result.UserMechanism": small.bayesian_user,
    "optmech.theorems.dual_certificate.DualCertificate": small.dual_certificate,
    "optmech.theorems.staircase_dual.StaircaseCertificate": small.staircase_certificate,
}

#: Further instances of classes above whose variants display differently.
VARIANTS: dict[str, Callable[[], Any]] = {
    "(ε, δ) design": small.approx_design,
    "zCDP design": small.zcdp_design,
    "minimax user": lambda: optmech.minimax_mechanism("squared", 0.5, n=4),
    "minimax remap (LP)": small.minimax_remap,
}

#: Classes the search finds that are not results, and why.
NOT_RESULTS = {
    "optmech.provenance.Provenance": "the record every result holds",
    "optmech.lp.additive.designed.DesignRecord": "the record a 1-D design holds (`.record`)",
    "optmech.lp.additive2d.designed.DesignRecord2D": "the record a 2-D design holds",
    "optmech.lp.engine.record.Solved": "the engine's internal solve record",
    "optmech.lp.engine.certified.Outcome": "what the certified loop found, before the result",
    "optmech.lp.matrix.objectives.LinearObjective": "an LP objective, not an answer",
    "optmech.lp.matrix.objectives.EpigraphObjective": "an LP objective, not an answer",
    "optmech.theorems.catalogue.CheckResult": "a row of the theorem catalogue (a check)",
    "optmech.lp.shuffle.result.FrontierPoint": "a line of the frontier a shuffle design searched",
    "optmech.lp.shuffle.result.VariationPoint": "a variation line a shuffle design searched",
}

#: The rows every display starts with, in this order (the privacy rows follow "privacy
#: requested" and precede "privacy certified").
COMMON_ROWS = ["model", "value", "optimality interval", "gap", "interval within accuracy"]
TAIL_ROWS = ["privacy certified", "solver, status", "repair"]


@functools.cache
def _optmech_classes() -> tuple[type, ...]:
    """Every class defined in a module of optmech (all modules imported)."""
    out = []
    for info in pkgutil.walk_packages(optmech.__path__, "optmech."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                out.append(cls)
    return tuple(out)


def _fields(cls: type) -> set[str]:
    names = set(getattr(cls, "__dataclass_fields__", {}))
    for klass in cls.__mro__:
        names |= set(getattr(klass, "__annotations__", {}))
    return names | {n for n in dir(cls) if not n.startswith("__")}


def _looks_like_a_result(cls: type) -> bool:
    """Carries a provenance, is a concrete result, or is exported with a value beside a
    mechanism, bounds or a certified ε."""
    if issubclass(cls, BaseResult):
        return not cls.__dict__.get("_abstract_result", False)
    if cls.__name__ in ("ProvenanceBounds", "ProvenanceFields") or cls is Result:
        return False  # mixins of the flat attributes; the protocol itself
    names = _fields(cls)
    module = importlib.import_module(cls.__module__)
    exported = cls.__name__ in getattr(module, "__all__", ())
    looks = "value" in names and bool({"mechanism", "certified_epsilon", "lower_bound"} & names)
    return "provenance" in names or (exported and looks)


@pytest.mark.slow  # imports every module of optmech (about 3 s)
def test_every_result_type_found_has_a_factory() -> None:
    """A class that looks like a result is either in ``FACTORIES`` or a named non-result;
    the search itself finds the types known today (it is not vacuous)."""
    found = {f"{c.__module__}.{c.__qualname__}" for c in _optmech_classes()}
    candidates = {
        f"{c.__module__}.{c.__qualname__}" for c in _optmech_classes() if _looks_like_a_result(c)
    }
    missing = sorted(candidates - set(FACTORIES) - set(NOT_RESULTS))
    assert not missing, f"result types without a factory in this battery: {missing}"
    assert set(FACTORIES) <= candidates  # each factory's class is found by the search
    assert set(NOT_RESULTS) <= found  # no stale exemption


@pytest.mark.slow  # imports every module of optmech
def test_every_concrete_result_subclasses_the_base() -> None:
    """The old guard looked for the provenance mixin, which the extremal mechanism escaped:
    every factory's class is a concrete ``BaseResult`` and a ``Result``."""
    for name in FACTORIES:
        cls = next(c for c in _optmech_classes() if f"{c.__module__}.{c.__qualname__}" == name)
        assert issubclass(cls, BaseResult), name


_ALL = {**FACTORIES, **VARIANTS}


@pytest.fixture(scope="module", params=sorted(_ALL))
def result(request: pytest.FixtureRequest) -> Any:
    return _ALL[request.param]()


def test_the_names_and_what_they_mean(result: Any) -> None:
    assert isinstance(result, Result)
    assert isinstance(result.provenance, Provenance)
    low, high = result.optimality_interval
    assert (low, high) == (result.lower_bound, result.upper_bound)
    assert low <= result.value <= high
    assert result.value in (low, high)  # the returned point's value is one end
    assert result.gap == pytest.approx(high - low, abs=0.0) and result.gap >= 0.0
    assert isinstance(result.within_accuracy, bool)
    accuracy = result.provenance.accuracy
    assert result.within_accuracy == (result.gap <= accuracy * max(abs(result.value), 1.0))
    assert isinstance(result.certified_epsilon, float)
    assert result.privacy_certified in (True, False, None)
    assert isinstance(result.model, str) and result.model


def test_optimality_gap_is_the_deprecated_gap(result: Any) -> None:
    with pytest.deprecated_call(match=r"optimality_gap.*\.gap"):
        assert result.optimality_gap == result.gap


def test_the_provenance_keeps_certified_as_a_deprecated_name(result: Any) -> None:
    prov = result.provenance
    with pytest.deprecated_call(match="within_accuracy"):
        assert prov.certified is prov.within_accuracy
    assert prov.to_dict()["certified"] is prov.to_dict()["within_accuracy"]


def _html_rows(text: str) -> list[tuple[str, str]]:
    pairs = re.findall(r"<th[^>]*>(.*?)</th><td[^>]*>(.*?)</td>", text)
    return [(html.unescape(k), html.unescape(v)) for k, v in pairs]


def _text_rows(text: str) -> list[tuple[str, str]]:
    return [tuple(re.split(r"\s{2,}", line.strip(), maxsplit=1)) for line in text.split("\n")[1:]]


def test_summary_and_html_show_the_same_rows(result: Any) -> None:
    """One display: the same labels and values, in the same order, in text and HTML; the
    common rows first; numbers at six significant digits."""
    text = result.summary()
    assert isinstance(text, str)
    page = result._repr_html_()
    assert isinstance(page, str) and page.startswith('<table class="optmech-summary">')
    assert len(page) < 4000
    rows = _html_rows(page)
    assert _text_rows(text) == rows
    labels = [k for k, _ in rows]
    assert labels[:5] == COMMON_ROWS
    assert labels[5] == "privacy requested"
    tail = labels.index("privacy certified")
    assert labels[tail : tail + 3] == TAIL_ROWS
    assert all("certified" not in k for k in labels[:5])  # "certified" means privacy
    values = dict(rows)
    assert values["model"] == result.model
    assert values["value"] == f"{result.value:.6g}"
    assert values["optimality interval"] == (
        f"[{result.lower_bound:.6g}, {result.upper_bound:.6g}]"
    )
    assert (
        values["privacy certified"].split(" ")[0]
        == {True: "yes", False: "no", None: "n/a"}[result.privacy_certified]
    )


def test_to_dict_is_json(result: Any) -> None:
    data = result.to_dict()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["result"] == type(result).__name__ and data["model"] == result.model
    for key in ("value", "lower_bound", "upper_bound", "certified_epsilon"):
        assert data[key] == getattr(result, key) or str(getattr(result, key)) == data[key]
    assert data["within_accuracy"] is result.within_accuracy
    assert data["privacy_certified"] is result.privacy_certified
    # The deprecated key lives in the provenance only; a result whose own attribute bears the
    # name (a dual certificate's verdict on optimality) writes that attribute.
    assert "certified" not in data or data["certified"] is result.certified
    assert isinstance(data["provenance"], dict)


def test_plot_returns_the_axes(result: Any) -> None:
    small.assert_draws_on_the_axes_given(result)
    ax = result.plot()
    try:
        assert isinstance(ax, matplotlib.axes.Axes)
    finally:
        plt.close(ax.figure)


def test_sampling_is_rvs_and_sample_is_its_deprecated_name(result: Any) -> None:
    """Results that release answers draw with ``rvs``; ``sample`` warns and draws the same."""
    if not hasattr(result, "sample"):
        assert not hasattr(result, "mechanism") or hasattr(result, "rvs")
        return
    first = 0 if type(result).__name__ == "ExtremalMechanism" else _first_input(result)
    new = result.rvs(first, 5, rng=random.Random(7))
    with pytest.deprecated_call(match=r"\.rvs"):
        old = result.sample(first, 5, rng=random.Random(7))
    np.testing.assert_array_equal(new, old)


def _first_input(result: Any) -> Any:
    inputs = np.asarray(result.inputs)
    return inputs[0].item() if inputs.ndim == 1 else inputs[0]


def test_mechanism_heat_maps_label_values_on_whole_cells() -> None:
    """RR-on-Bins' outputs are the bins' values, not their indices, and its ticks sit on whole
    cells (no −0.5 … 3.5)."""
    res = small.rr_on_bins()
    ax = res.plot()
    try:
        xticks, yticks = ax.get_xticks(), ax.get_yticks()
        xlabels = [t.get_text() for t in ax.get_xticklabels()]
        ylabels = [t.get_text() for t in ax.get_yticklabels()]
        title = ax.get_title()
    finally:
        plt.close(ax.figure)
    assert np.all(xticks == np.round(xticks)) and np.all(yticks == np.round(yticks))
    assert [float(v) for v in xlabels] == pytest.approx(res.outputs.tolist(), rel=1e-3)
    assert [float(v) for v in ylabels] == res.inputs.tolist()
    assert title.startswith("RR-on-Bins")


def test_interval_keeps_scipys_meaning_on_a_design() -> None:
    """``interval(confidence)`` is the central interval of the noise (``ppf`` at the two tail
    halves), not the optimality interval."""
    noise = small.uniform_design()
    low, high = noise.interval(0.5)
    assert (low, high) == pytest.approx((noise.ppf(0.25), noise.ppf(0.75)), rel=1e-12)
    assert noise.optimality_interval == (noise.lower_bound, noise.value)


@pytest.mark.parametrize(
    ("call", "old", "new"),
    [
        (lambda **kw: optmech.bayesian_mechanism(small.PRIOR, epsilon=0.5, **kw), "loss", "cost"),
        (lambda **kw: optmech.minimax_mechanism(epsilon=0.5, n=3, **kw), "loss", "cost"),
        (lambda **kw: optmech.geometric_minimax(epsilon=0.5, n=3, **kw), "loss", "cost"),
        (lambda **kw: optmech.geometric_bayes(small.PRIOR, epsilon=0.5, **kw), "loss", "cost"),
        (
            lambda **kw: optmech.rr_on_bins(small.PRIOR, epsilon=0.5, inputs=range(5), **kw),
            "loss",
            "cost",
        ),
    ],
)
def test_the_cost_keyword_and_its_deprecated_name(call: Any, old: str, new: str) -> None:
    """``cost=`` is the keyword; ``loss=`` still works with a warning and gives the same
    value; both at once is refused by name."""
    name = "squared"
    value = call(**{new: name}).value
    with pytest.deprecated_call(match=rf"{old}=.*{new}="):
        assert call(**{old: name}).value == value
    with pytest.raises(TypeError, match=rf"`{new}` and its deprecated name `{old}`"):
        call(**{old: name, new: name})


def test_common_mechanism_takes_costs() -> None:
    priors = [small.PRIOR, np.array([0.6, 0.1, 0.1, 0.1, 0.1])]
    value = optmech.common_mechanism(priors, ["abs", "squared"], 0.5).value
    with pytest.deprecated_call(match=r"losses=.*costs="):
        assert optmech.common_mechanism(priors, losses=["abs", "squared"], epsilon=0.5).value == (
            value
        )


def test_an_experiment_result_shares_the_display_and_dict(tmp_path: Any) -> None:
    """An experiment run is no optimisation result (no value or interval), but it displays
    itself with the same rows in text and HTML, writes JSON and draws its saved figure."""
    from optmech.experiments._common import ExperimentResult

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    fig.savefig(tmp_path / "figure.png")
    plt.close(fig)
    res = ExperimentResult(
        name="demo",
        out_dir=tmp_path,
        csv=tmp_path / "results.csv",
        figure=tmp_path / "figure.png",
        summary=tmp_path / "summary.md",
        headline={"ratio": 1.234567891, "worst": float("inf")},
        seed=3,
    )
    rows = _html_rows(res._repr_html_())
    assert _text_rows(res.summary_text()) == rows
    assert dict(rows)["ratio"] == "1.23457" and dict(rows)["worst"] == "inf"
    data = res.to_dict()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["headline"]["worst"] == "inf"
    small.assert_draws_on_the_axes_given(res)


def test_a_wide_interval_is_not_a_privacy_failure() -> None:
    """Asked for an interval of width 0 (accuracy 0), the design's
    display says the interval is not within the accuracy asked, and still that its privacy is
    certified: the certified ε (an independent computation) is within rounding of the ε asked."""
    with pytest.warns(optmech.InaccurateSolutionWarning, match="optimality interval"):
        noise = optmech.design_noise(
            optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=6, periods=3, accuracy=0
        )
    rows = dict(_html_rows(noise._repr_html_()))
    if noise.gap > 0.0:  # an exact zero gap would be within any accuracy
        assert not noise.within_accuracy
        assert rows["interval within accuracy"].startswith("no")
    assert noise.certified_epsilon <= 1.0 * (1 + 1e-9)
    assert noise.privacy_certified is True and rows["privacy certified"].startswith("yes")
