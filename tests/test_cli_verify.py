"""`optmech verify`: table, JSON, report, exit status, the exact mode, and clean errors.

Demo checks registered here decide by hand-built intervals and references, so their verdicts are
known without running an LP. The real catalogue runs once per suite, check by check, in
``test_verify_full``.
"""

from __future__ import annotations

import json

import pytest

from optmech.cli import main
from optmech.theorems import catalogue
from optmech.theorems.catalogue import certificate_row, compare, exact_row


@pytest.fixture
def demo_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    catalogue.load_all()  # the real checks register in the real registry, not in this copy
    registry = dict(catalogue._REGISTRY)
    monkeypatch.setattr(catalogue, "_REGISTRY", registry)
    catalogue.check("demo-pass", group="demo")(
        lambda: [compare("demo-pass", "x=1", 2.0, 2.0 * (1 + 1e-12), 1e-9, group="demo")]
    )
    catalogue.check("demo-fail", group="demo")(
        lambda: [compare("demo-fail", "x=2", 1.0, 2.0, 1e-9, group="demo", detail="off by 2x")]
    )
    catalogue.check("demo-certificate", group="demo")(
        lambda: [
            certificate_row(
                "demo-certificate",
                "lp",
                lower=1.0 - 1e-9,
                upper=1.0 + 1e-9,
                reference=(1.0, 1.0),
                allowance=1e-10,
                group="demo",
            )
        ]
    )
    catalogue.check("demo-exact", group="demo", exact=True)(
        lambda: [exact_row("demo-exact", "q", 0, 0, True, rule="equal", group="demo", exact=True)]
    )

    def boom() -> list[catalogue.CheckResult]:
        raise RuntimeError("kaboom")

    catalogue.check("demo-raises", group="demo")(boom)


def test_passing_check_exits_zero(demo_checks: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--check", "demo-pass"]) == 0
    out = capsys.readouterr().out
    assert "demo-pass" in out and "PASS" in out and "1 of 1 rows pass" in out


def test_table_shows_the_certified_interval_and_allowance(
    demo_checks: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # printed whole on a wide terminal
    assert main(["verify", "--check", "demo-certificate"]) == 0
    out = capsys.readouterr().out
    assert "certified interval" in out and "allowance" in out
    assert "[0.999999999, 1.000000001]" in out and "1e-10" in out


def test_failing_check_exits_one_and_names_the_failure(
    demo_checks: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--group", "demo"]) == 1
    out = capsys.readouterr().out
    assert "FAILED demo-fail (x=2): off by 2x" in out
    assert "raised RuntimeError: kaboom" in out
    assert "demo-exact" not in out  # exact-mode checks run only with --exact


def test_json_output_has_the_certificate_fields(
    demo_checks: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--group", "demo", "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["passed"] is False and payload["exact"] is False
    by_name = {row["check"]: row for row in payload["rows"]}
    assert by_name["demo-pass"]["passed"] is True
    assert by_name["demo-raises"]["gap"] == "inf"  # non-finite floats become strings
    cert = by_name["demo-certificate"]
    assert cert["kind"] == "certificate" and cert["allowance"] == 1e-10
    assert cert["lower_bound"] == 1.0 - 1e-9 and cert["upper_bound"] == 1.0 + 1e-9
    assert cert["reference_low"] == cert["reference_high"] == 1.0
    assert cert["rule"] == cert["pass_rule"] and "allowance" in cert["rule"]


def test_exact_flag_runs_the_exact_mode(
    demo_checks: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--exact", "--group", "demo", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["exact"] is True
    assert [row["check"] for row in payload["rows"]] == ["demo-exact"]
    assert payload["rows"][0]["exact"] is True
    assert main(["verify", "--exact", "--check", "demo-exact"]) == 0
    assert "1 reproduced exactly" in capsys.readouterr().out


def test_report_is_written(demo_checks: None, tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "sub" / "report.md"
    main(["verify", "--check", "demo-pass", "--check", "demo-fail", "--report", str(report)])
    text = report.read_text()
    assert "1 of 2 rows pass" in text and "## Failures" in text and "off by 2x" in text
    assert "certified interval" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--group", "nope"], "`--group` must be one of"),
        (["verify", "--check", "nope"], "`--check` must name a registered check"),
        (["verify", "--check", "demo-exact"], "add --exact"),
        (["verify", "--exact", "--check", "demo-pass"], "drop --exact"),
    ],
)
def test_bad_selection_is_a_clean_error(
    demo_checks: None, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_list(demo_checks: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--list"]) == 0
    out = capsys.readouterr().out
    assert "demo-raises" in out and "exact mode" in out


def test_report_plot_has_both_panels(
    demo_checks: None, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A negative result (kind "bound") has no tolerance and no interval to plot.
    catalogue.check("demo-negative", group="demo")(
        lambda: [
            catalogue.bound_row(
                "demo-negative",
                "x",
                value=(2.0, 2.0),
                reference=(1.0, 1.0),
                relation=">",
                group="demo",
            )
        ]
    )
    report = tmp_path / "r.md"
    assert main(["verify", "--check", "demo-negative", "--report", str(report)]) == 0
    assert "lower > ref_high" in capsys.readouterr().out
    assert not (tmp_path / "r-gaps.png").exists()  # nothing to plot
    argv = ["verify", "--check", "demo-pass", "--check", "demo-certificate", "--report"]
    assert main([*argv, str(report)]) == 0
    assert (tmp_path / "r-gaps.png").exists() and "r-gaps.png" in report.read_text()
