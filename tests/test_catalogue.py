"""Tests of the theorem catalogue machinery: the row builders, CheckResult, registration,
run_checks and the exact-mode selection.

The row builders decide by comparisons of floats given to them (no tolerance of their own), so
the tests below build intervals and references by hand and check the verdicts exactly.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest

from optmech.theorems import catalogue
from optmech.theorems.catalogue import (
    CheckResult,
    agreement_row,
    bound_row,
    certificate_row,
    check,
    compare,
    exact_row,
    guarded,
    registered_checks,
    relative_gap,
    run_checks,
    select_checks,
)


def test_relative_gap() -> None:
    assert relative_gap(1.1, 1.0) == pytest.approx(0.1)
    assert relative_gap(-0.9, -1.0) == pytest.approx(0.1)
    assert relative_gap(3e-9, 0.0) == 3e-9  # absolute when the reference is 0


def test_compare_two_sided() -> None:
    row = compare("thm", "eps=1", 1.0 + 1e-9, 1.0, 1e-8, group="closed-form", detail="why")
    assert row.passed and row.gap == pytest.approx(1e-9)
    assert (row.check, row.instance, row.group, row.detail, row.gap_kind, row.kind) == (
        "thm",
        "eps=1",
        "closed-form",
        "why",
        "rel",
        "tolerance",
    )
    assert "1e-08" in row.rule
    assert not compare("thm", "x", 1.0 - 1e-7, 1.0, 1e-8).passed
    assert not compare("thm", "x", 1.0 + 1e-7, 1.0, 1e-8).passed
    zero = compare("thm", "x", 1e-13, 0.0, 1e-12)
    assert zero.passed and zero.gap_kind == "abs"
    assert not compare("thm", "x", 2e-12, 0.0, 1e-12).passed


def test_compare_one_sided_accepts_any_value_above() -> None:
    assert compare("ub", "x", 5.0, 1.0, 1e-9, one_sided=True).passed
    assert compare("ub", "x", 1.0 - 1e-10, 1.0, 1e-9, one_sided=True).passed
    assert not compare("ub", "x", 1.0 - 1e-8, 1.0, 1e-9, one_sided=True).passed
    assert not compare("ub", "x", 5.0, 1.0, 1e-9).passed


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_compare_non_finite_values_fail(value: float) -> None:
    assert not compare("thm", "x", value, 1.0, 1.0).passed
    assert not compare("thm", "x", value, 1.0, 1.0, one_sided=True).passed


def test_certificate_row_contains_the_reference() -> None:
    row = certificate_row("thm", "x", lower=1 - 1e-9, upper=1 + 1e-9, reference=(1.0, 1.0))
    assert row.passed and row.kind == "certificate"
    assert (row.lower_bound, row.upper_bound, row.allowance) == (1 - 1e-9, 1 + 1e-9, 0.0)
    assert (row.reference_low, row.reference_high, row.value) == (1.0, 1.0, 1 + 1e-9)
    assert row.rule.startswith("lower ≤ ref, ref ≤ upper")
    # The reference just outside either end (by one ulp) fails: no tolerance.
    below = certificate_row("thm", "x", lower=1.0, upper=1.0, reference=math.nextafter(1.0, 0))
    above = certificate_row("thm", "x", lower=1.0, upper=1.0, reference=math.nextafter(1.0, 2))
    assert not below.passed and "outside" in below.detail
    assert not above.passed and "outside" in above.detail
    # The ends themselves are inside.
    assert certificate_row("thm", "x", lower=1.0, upper=1.0, reference=1.0).passed


def test_certificate_row_allowance_widens_only_upward() -> None:
    # The LP may sit up to `allowance` above the reference, never below it.
    ok = certificate_row("thm", "x", lower=1.05, upper=1.05, reference=1.0, allowance=0.1)
    assert ok.passed and "allowance" in ok.rule and ok.allowance == 0.1
    too_high = certificate_row("thm", "x", lower=1.2, upper=1.2, reference=1.0, allowance=0.1)
    assert not too_high.passed
    too_low = certificate_row("thm", "x", lower=0.95, upper=0.95, reference=1.0, allowance=0.1)
    assert not too_low.passed


def test_certificate_row_needs_a_decisive_finite_interval() -> None:
    vacuous = certificate_row("thm", "x", lower=-math.inf, upper=2.0, reference=1.0)
    assert not vacuous.passed and "no finite certificate" in vacuous.detail
    wide = certificate_row("thm", "x", lower=0.5, upper=2.0, reference=1.0)
    assert not wide.passed and "too wide" in wide.detail
    # Width measured relative to max(|upper|, 1): absolute for values below 1.
    assert certificate_row("thm", "x", lower=0.0, upper=5e-7, reference=0.0).passed
    assert not certificate_row("thm", "x", lower=0.0, upper=2e-6, reference=0.0).passed


def test_certificate_row_extra_condition() -> None:
    row = certificate_row(
        "thm", "x", lower=1.0, upper=1.0, reference=1.0, extra_ok=False, extra_rule="private"
    )
    assert not row.passed and "private" in row.rule and "failed: private" in row.detail


def test_agreement_row() -> None:
    assert agreement_row(
        "thm", "x", first=(1.0, 1.0 + 1e-9), second=(1.0 + 1e-9, 1.0 + 2e-9)
    ).passed
    disjoint = agreement_row("thm", "x", first=(1.0, 1.0), second=(math.nextafter(1.0, 2), 1.1))
    assert not disjoint.passed and "disjoint" in disjoint.detail
    assert not agreement_row("thm", "x", first=(-math.inf, 1.0), second=(1.0, 1.0)).passed


def test_bound_row() -> None:
    assert bound_row("neg", "x", value=(0.5, 0.9), reference=(1.0, 1.0), relation="<").passed
    assert not bound_row("neg", "x", value=(0.5, 1.0), reference=(1.0, 1.0), relation="<").passed
    assert bound_row("gt", "x", value=(1.1, 1.2), reference=(1.0, 1.0), relation=">").passed
    assert not bound_row("gt", "x", value=(1.0, 1.2), reference=(1.0, 1.0), relation=">").passed
    with pytest.raises(ValueError, match="relation"):
        bound_row("gt", "x", value=(1.0, 1.0), reference=(1.0, 1.0), relation="=")


def test_exact_and_guarded_rows() -> None:
    assert exact_row("e", "x", 0, 0, True, rule="equal").passed
    row = guarded("g", "x", lambda: 1 / 0)  # type: ignore[arg-type, return-value]
    assert not row.passed and "ZeroDivisionError" in row.detail


def test_to_dict_is_json_safe_and_has_the_certificate_fields() -> None:
    row = CheckResult("c", "i", math.nan, math.inf, math.inf, 0.0, False)
    data = row.to_dict()
    assert data["value"] == "nan" and data["reference"] == "inf"
    assert json.loads(json.dumps(data))["check"] == "c"
    cert = certificate_row("thm", "x", lower=-math.inf, upper=1.0, reference=1.0).to_dict()
    for key in ("lower_bound", "upper_bound", "allowance", "rule", "kind", "exact"):
        assert key in cert
    assert cert["lower_bound"] == "-inf"


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
    assert (entry.group, entry.quick, entry.run, entry.exact) == ("test-group", False, ok, False)
    check("test-catalogue: ok", group="test-group", quick=False)(ok)  # same function: fine
    with pytest.raises(ValueError, match="already registered"):

        @check("test-catalogue: ok", group="test-group")
        def other() -> list[CheckResult]:
            return []


def test_run_checks_filters_and_turns_exceptions_into_failed_rows(
    scratch_checks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    @check("test-catalogue: boom", group="test-group", quick=True)
    def boom() -> list[CheckResult]:
        raise ZeroDivisionError("division by zero in a check")

    @check("test-catalogue: slow", group="test-group", quick=False)
    def slow() -> list[CheckResult]:
        return [compare("slow", "-", 2.0, 2.0, 0.0)]

    scratch_checks.extend(["test-catalogue: boom", "test-catalogue: slow"])
    names = ["test-catalogue: boom", "test-catalogue: slow"]

    ticks = iter([10.0, 12.5])  # a clock read once before and once after the check
    monkeypatch.setattr(catalogue.time, "perf_counter", lambda: next(ticks))
    quick = list(run_checks(quick=True, names=names))
    monkeypatch.undo()
    assert [chk.name for chk, _, _ in quick] == ["test-catalogue: boom"]
    _, rows, seconds = quick[0]
    assert seconds == 2.5  # the time between the two readings
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


def test_exact_checks_run_only_in_the_exact_mode(scratch_checks: list[str]) -> None:
    @check("test-catalogue: exact", group="test-group", exact=True)
    def exact() -> list[CheckResult]:
        return [exact_row("exact", "-", 0, 0, True, rule="equal")]

    scratch_checks.append("test-catalogue: exact")
    assert "test-catalogue: exact" not in [c.name for c in select_checks(quick=False)]
    assert [c.name for c in select_checks(quick=False, exact=True, groups=["test-group"])] == [
        "test-catalogue: exact"
    ]


def test_the_catalogue_has_every_kind_and_no_hand_set_default_rule() -> None:
    """Every registered row builder states its rule; the catalogue uses each kind of rule."""
    checks = select_checks(quick=False) + select_checks(quick=False, exact=True)
    assert len(checks) >= 35
    assert {c.group for c in checks} >= {"closed-form", "additive-lp", "count-lp", "field", "exact"}
