"""Tests of the theorem catalogue machinery: compare(), CheckResult, registration, run_checks."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest

from optmech.theorems import catalogue
from optmech.theorems.catalogue import (
    CheckResult,
    check,
    compare,
    registered_checks,
    relative_gap,
    run_checks,
)


def test_relative_gap() -> None:
    assert relative_gap(1.1, 1.0) == pytest.approx(0.1)
    assert relative_gap(-0.9, -1.0) == pytest.approx(0.1)
    assert relative_gap(3e-9, 0.0) == 3e-9  # absolute when the reference is 0


def test_compare_two_sided() -> None:
    row = compare("thm", "eps=1", 1.0 + 1e-9, 1.0, 1e-8, group="closed-form", detail="why")
    assert row.passed and row.gap == pytest.approx(1e-9)
    assert (row.check, row.instance, row.group, row.detail, row.gap_kind) == (
        "thm",
        "eps=1",
        "closed-form",
        "why",
        "rel",
    )
    assert not compare("thm", "x", 1.0 - 1e-7, 1.0, 1e-8).passed
    assert not compare("thm", "x", 1.0 + 1e-7, 1.0, 1e-8).passed
    zero = compare("thm", "x", 1e-13, 0.0, 1e-12)
    assert zero.passed and zero.gap_kind == "abs"
    assert not compare("thm", "x", 2e-12, 0.0, 1e-12).passed


def test_compare_one_sided_accepts_any_value_above() -> None:
    # An LP upper bound far above the reference passes; one below (beyond tolerance) fails.
    assert compare("ub", "x", 5.0, 1.0, 1e-9, one_sided=True).passed
    assert compare("ub", "x", 1.0 - 1e-10, 1.0, 1e-9, one_sided=True).passed
    assert not compare("ub", "x", 1.0 - 1e-8, 1.0, 1e-9, one_sided=True).passed
    # The same values two-sided.
    assert not compare("ub", "x", 5.0, 1.0, 1e-9).passed


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_compare_non_finite_values_fail(value: float) -> None:
    assert not compare("thm", "x", value, 1.0, 1.0).passed
    assert not compare("thm", "x", value, 1.0, 1.0, one_sided=True).passed


def test_compare_passes_extra_fields() -> None:
    row = compare("thm", "x", 1.0, 1.0, 0.0, certified_epsilon=0.5, certified_delta=1e-9, seconds=2)
    assert (row.certified_epsilon, row.certified_delta, row.seconds) == (0.5, 1e-9, 2)


def test_to_dict_is_json_safe() -> None:
    row = CheckResult("c", "i", math.nan, math.inf, math.inf, 0.0, False)
    data = row.to_dict()
    assert data["value"] == "nan" and data["reference"] == "inf"
    assert json.loads(json.dumps(data))["check"] == "c"


@pytest.fixture
def scratch_checks() -> Iterator[list[str]]:
    """Names registered by a test, removed afterwards so the global registry stays clean."""
    names: list[str] = []
    yield names
    for name in names:
        catalogue._REGISTRY.pop(name, None)


def test_registration_and_duplicates(scratch_checks: list[str]) -> None:
    @check("test-catalogue: ok", group="test-group", quick=False)
    def ok() -> list[CheckResult]:
        return [compare("ok", "-", 1.0, 1.0, 0.0)]

    scratch_checks.append("test-catalogue: ok")
    entry = registered_checks()["test-catalogue: ok"]
    assert (entry.group, entry.quick, entry.run) == ("test-group", False, ok)
    check("test-catalogue: ok", group="test-group", quick=False)(ok)  # same function: fine
    with pytest.raises(ValueError, match="already registered"):

        @check("test-catalogue: ok", group="test-group")
        def other() -> list[CheckResult]:
            return []


def test_run_checks_filters_and_turns_exceptions_into_failed_rows(
    scratch_checks: list[str],
) -> None:
    @check("test-catalogue: boom", group="test-group", quick=True)
    def boom() -> list[CheckResult]:
        raise ZeroDivisionError("division by zero in a check")

    @check("test-catalogue: slow", group="test-group", quick=False)
    def slow() -> list[CheckResult]:
        return [compare("slow", "-", 2.0, 2.0, 0.0)]

    scratch_checks.extend(["test-catalogue: boom", "test-catalogue: slow"])
    names = ["test-catalogue: boom", "test-catalogue: slow"]

    quick = list(run_checks(quick=True, names=names))
    assert [chk.name for chk, _, _ in quick] == ["test-catalogue: boom"]
    _, rows, seconds = quick[0]
    assert seconds >= 0
    (row,) = rows
    assert not row.passed
    assert row.check == "test-catalogue: boom" and row.group == "test-group"
    assert row.detail == "raised ZeroDivisionError: division by zero in a check"
    assert math.isnan(row.value) and row.gap == math.inf

    everything = {chk.name: rows for chk, rows, _ in run_checks(quick=False, names=names)}
    assert set(everything) == set(names)
    assert everything["test-catalogue: slow"][0].passed

    assert list(run_checks(quick=False, groups=["no-such-group"], names=names)) == []
    only = [chk.name for chk, _, _ in run_checks(quick=False, groups=["test-group"], names=names)]
    assert sorted(only) == sorted(names)
