"""The LP results' old names keep working for one release, each with a DeprecationWarning that
names the new one, and give what they gave before."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import optmech
from optmech.lp.additive import AdditiveSpec, build_additive_lp
from optmech.lp.additive.designer import finish_design
from optmech.lp.engine.run import DesignRun
from optmech.lp.solve import SolveInfo, solve
from optmech.provenance import Repair, RepairKind

KW = {"sensitivity": 1.0, "cost": "abs", "resolution": 6, "periods": 3}


@pytest.fixture(scope="module")
def design() -> optmech.DesignedNoise:
    return optmech.design_noise(optmech.PureDP(1.0), **KW)


def test_design_noise_at_its_old_paths_warns_and_is_the_same_function() -> None:
    for module in ("optmech.lp.additive", "optmech.lp.additive.design"):
        with pytest.deprecated_call(match="optmech.design_noise"):
            old = importlib.import_module(module).design_noise
        assert old is optmech.design_noise


@pytest.mark.parametrize(
    ("name", "home"),
    [
        ("finish_design", "optmech.lp.additive.designer"),
        ("PRIVACY_RTOL", "optmech.lp.engine.acceptance"),
        ("within_privacy", "optmech.lp.engine.acceptance"),
        ("design_provenance", "optmech.lp.engine.record"),
        ("CoarseGridWarning", "optmech.lp.additive.diagnostics"),
        ("warn_about", "optmech.lp.additive.diagnostics"),
        ("slack", "optmech.lp.additive.repair"),
    ],
)
def test_the_old_design_module_forwards_each_name(name: str, home: str) -> None:
    old = importlib.import_module("optmech.lp.additive.design")
    with pytest.deprecated_call(match=home):
        value = getattr(old, name)
    assert value is getattr(importlib.import_module(home), name)
    with pytest.raises(AttributeError, match="no attribute"):
        old.no_such_name  # noqa: B018


def test_the_old_interval_module_forwards_to_the_engine() -> None:
    old = importlib.import_module("optmech.lp.additive.interval")
    with pytest.deprecated_call(match="optmech.lp.engine.interval"):
        assert old.lp_interval is importlib.import_module("optmech.lp.engine.interval").lp_interval


def test_the_old_width_test_gives_the_engines_answer(design: optmech.DesignedNoise) -> None:
    from optmech.lp.additive import solving
    from optmech.lp.engine.interval import relatively_wide

    prov = design.provenance
    with pytest.deprecated_call(match="relatively_wide"):
        old = solving.relatively_wide(design)
    assert old == relatively_wide(prov.value, prov.lower_bound, prov.accuracy)


def test_info_warns_and_returns_what_it_returned(design: optmech.DesignedNoise) -> None:
    with pytest.deprecated_call(match=r"\.record"):
        assert design.info is design.record
    user = optmech.bayesian_mechanism(np.full(4, 0.25), "abs", 0.5)
    with pytest.deprecated_call(match="provenance"):
        info = user.info
    assert isinstance(info, SolveInfo) and info.num_variables == user.provenance.num_variables
    dependent = optmech.dependent_noise_lp(1.0, sensitivity=1, period=1)
    with pytest.deprecated_call(match="provenance"):
        assert isinstance(dependent.info, SolveInfo)


def test_the_records_grid_string_is_grid_kind(design: optmech.DesignedNoise) -> None:
    assert design.record.grid_kind == "uniform"
    assert design.grid[0] == pytest.approx(-3.0) and design.grid.size == 2 * 3 * 6 + 1  # edges
    with pytest.deprecated_call(match="grid_kind"):
        assert design.record.grid == "uniform"


def test_summary_is_text_and_the_old_dict_is_the_records(design: optmech.DesignedNoise) -> None:
    """``summary()`` is text, as on every result (its dict, deprecated for a release, is the
    record's ``flat_dict()`` with the same keys)."""
    assert isinstance(design.summary(), str)
    old = design.record.flat_dict()
    assert old["grid"] == "uniform" and old["repair"] == str(design.repair.kind)
    assert old["status"] == design.provenance.status and old["value"] == design.value


def test_repair_is_a_record_and_comparing_it_with_a_kind_warns(
    design: optmech.DesignedNoise,
) -> None:
    rep = design.record.repair
    assert isinstance(rep, Repair) and str(rep) == str(rep.kind)
    with pytest.deprecated_call(match="repair.kind"):
        assert rep == rep.kind
    with pytest.deprecated_call(match="repair.kind"):
        assert rep != "no-such-kind"
    assert Repair(RepairKind.MIXTURE, 0.5) == Repair(RepairKind.MIXTURE, 0.5)
    assert len({Repair(), Repair()}) == 1


def test_repair_flag_is_allow_repair() -> None:
    """``repair=False`` still refuses to repair, with a warning naming ``allow_repair``."""
    with pytest.deprecated_call(match="allow_repair"):
        old = optmech.design_noise(optmech.PureDP(1.0), repair=False, **KW)
    new = optmech.design_noise(optmech.PureDP(1.0), allow_repair=False, **KW)
    assert old.value == new.value and old.repair.kind == RepairKind.NONE
    lp = build_additive_lp(AdditiveSpec(optmech.PureDP(1.0), **KW))
    info = solve(lp.problem, solver="HIGHS", kind="additive")
    with pytest.deprecated_call(match="allow_repair"):
        assert finish_design(lp, info, repair=False).repair.kind == RepairKind.NONE
    with pytest.deprecated_call(match="allow_repair"):
        run = DesignRun(repair=False)
    assert run.allow_repair is False
    with pytest.deprecated_call(match="allow_repair"):
        assert run.repair is False


def test_repair_flag_of_the_2d_finish() -> None:
    from optmech.lp.additive2d import AdditiveSpec2D, build_additive_lp_2d, finish_design_2d

    spec = AdditiveSpec2D(optmech.PureDP(1.0), 1.0, "l1", "linf", resolution=2, periods=2)
    lp = build_additive_lp_2d(spec)
    info = solve(lp.problem, solver="HIGHS", kind="additive2d")
    with pytest.deprecated_call(match="allow_repair"):
        old = finish_design_2d(lp, info, repair=True)
    assert old.value == finish_design_2d(lp, info, allow_repair=True).value
