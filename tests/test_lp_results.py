"""Every LP result class is a result of the one protocol (``optmech.results``).

The classes are found, not listed: every module of ``optmech.lp`` is imported and every class in
it that carries a provenance (a field, an annotation or a property: the extremal mechanism's is a
field) is checked to be a ``BaseResult`` (or a record a result keeps), and every registered
result class must have a small instance below. The protocol battery itself is
``test_result_protocol``. Each instance is built small (milliseconds to a second).
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
from optmech.provenance import Provenance, Repair
from optmech.results import BaseResult, json_safe, registered_results

#: Small instances of each LP result class (the protocol battery, ``test_result_protocol``,
#: checks every result type found by introspection; these check the LP interval itself).
FACTORIES: dict[str, Callable[[], Any]] = {
    "DesignedPiecewiseNoise": small.uniform_design,
    "DesignedGradedNoise": small.graded_design,
    "DesignedLatticeNoise": small.lattice_design,
    "DesignedNoise2D": small.plane_design,
    "DesignedPiecewiseNoise ((ε, δ))": small.approx_design,
    "UserMechanism": small.bayesian_user,
    "UserMechanism (minimax)": lambda: optmech.minimax_mechanism("squared", 0.5, n=4),
    "CommonMechanismResult": small.common_mechanism,
    "RemapResult": small.geometric_remap,
    "RemapResult (minimax remap)": small.minimax_remap,
    "DependentNoiseResult": small.dependent_noise,
    "LocalMechanism": small.local_mechanism,
    "RROnBins": small.rr_on_bins,
    "ExtremalMechanism": small.extremal,
    "ShuffleMechanism": small.shuffle_mechanism,
}


def _lp_modules() -> list[Any]:
    """Every module of optmech.lp, imported (the deprecated shims too: importing them is
    silent)."""
    names = [m.name for m in pkgutil.walk_packages(optmech.lp.__path__, "optmech.lp.")]
    return [importlib.import_module(name) for name in names]


def test_every_class_with_a_provenance_is_a_result_or_a_record() -> None:
    """A class of optmech.lp that holds a provenance (a field, an annotation or a property) is
    a result, unless it is a record a result keeps (the design records, the engine's
    ``Solved``) or the certified loop's ``Outcome``, which assembles a result's provenance."""
    loose = []
    for module in _lp_modules():
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            names = set(getattr(cls, "__dataclass_fields__", {})) | set(dir(cls))
            if "provenance" not in names or issubclass(cls, BaseResult):
                continue
            if not cls.__name__.startswith(("DesignRecord", "Solved", "Outcome")):
                loose.append(f"{module.__name__}.{cls.__name__}")
    assert not loose, f"LP results outside the result protocol: {loose}"


def test_every_result_class_is_in_the_battery() -> None:
    _lp_modules()
    registered = {
        cls.__name__ for cls in registered_results() if cls.__module__.startswith("optmech.lp.")
    }
    assert registered == {name.split(" ")[0] for name in FACTORIES}
    assert all(not inspect.isabstract(cls) for cls in registered_results())


@pytest.fixture(scope="module", params=sorted(FACTORIES))
def result(request: pytest.FixtureRequest) -> Any:
    made = FACTORIES[request.param]()
    assert type(made).__name__ == request.param.split(" ")[0]
    return made


def test_the_interval(result: BaseResult) -> None:
    assert isinstance(result.provenance, Provenance)
    assert math.isfinite(result.value) and math.isfinite(result.lower_bound)
    assert result.lower_bound <= result.value <= result.upper_bound
    assert isinstance(result.provenance.repair, Repair)


def test_to_dict_nests_the_provenance(result: BaseResult) -> None:
    """Plain JSON, the protocol's numbers at the top, the provenance nested (with the
    deprecated key ``certified`` beside ``within_accuracy``), and a round trip through text
    changes nothing."""
    data = result.to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text) == data
    assert data["value"] == result.value and data["lower_bound"] == result.lower_bound
    prov = data["provenance"]
    assert prov["within_accuracy"] is result.provenance.within_accuracy is prov["certified"]
    assert prov["solver"] in ("HIGHS", "CLARABEL", "none")
    assert set(prov["repair"]) == {"kind", "weight", "cost"}
    assert len(data) > 10  # the result's own fields besides the protocol's


def test_json_safe_converts_what_json_cannot_write() -> None:
    data = json_safe(
        {"a": np.arange(3), "b": (np.float32(0.5), float("-inf")), "c": {1: np.bool_(True)}}
    )
    assert data == {"a": [0, 1, 2], "b": [0.5, "-inf"], "c": {"1": True}}
    json.dumps(data, allow_nan=False)
