"""`optmech verify`: table, JSON, report, exit status, and clean errors for bad selections."""

import json

import pytest

from optmech.cli import main
from optmech.theorems import catalogue
from optmech.theorems.catalogue import compare


@pytest.fixture
def demo_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = dict(catalogue._REGISTRY)
    monkeypatch.setattr(catalogue, "_REGISTRY", registry)
    catalogue.check("demo-pass", group="demo")(
        lambda: [compare("demo-pass", "x=1", 2.0, 2.0 * (1 + 1e-12), 1e-9, group="demo")]
    )
    catalogue.check("demo-fail", group="demo")(
        lambda: [compare("demo-fail", "x=2", 1.0, 2.0, 1e-9, group="demo", detail="off by 2x")]
    )

    def boom() -> list[catalogue.CheckResult]:
        raise RuntimeError("kaboom")

    catalogue.check("demo-raises", group="demo")(boom)


def test_passing_check_exits_zero(demo_checks: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--check", "demo-pass"]) == 0
    out = capsys.readouterr().out
    assert "demo-pass" in out and "PASS" in out and "1 of 1 rows pass" in out


def test_failing_check_exits_one_and_names_the_failure(
    demo_checks: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--group", "demo"]) == 1
    out = capsys.readouterr().out
    assert "FAILED demo-fail (x=2): off by 2x" in out
    assert "raised RuntimeError: kaboom" in out


def test_json_output_is_strict_json(demo_checks: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--group", "demo", "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["passed"] is False
    by_name = {row["check"]: row for row in payload["rows"]}
    assert by_name["demo-pass"]["passed"] is True
    assert by_name["demo-raises"]["gap"] == "inf"  # non-finite floats become strings


def test_report_is_written(demo_checks: None, tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "sub" / "report.md"
    main(["verify", "--check", "demo-pass", "--check", "demo-fail", "--report", str(report)])
    text = report.read_text()
    assert "1 of 2 rows pass" in text and "## Failures" in text and "off by 2x" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--group", "nope"], "`--group` must be one of"),
        (["verify", "--check", "nope"], "`--check` must name a registered check"),
    ],
)
def test_bad_selection_is_a_clean_error(
    demo_checks: None, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_list(demo_checks: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--list"]) == 0
    assert "demo-raises" in capsys.readouterr().out


def test_report_plot_leaves_out_rows_with_another_pass_rule(
    demo_checks: None, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A negative result: passes because the value EXCEEDS the reference; its tolerance is no
    # bound on the gap, so the table must say so and the gap plot must leave it out.
    catalogue.check("demo-negative", group="demo")(
        lambda: [
            catalogue.CheckResult(
                check="demo-negative",
                instance="x",
                value=2.0,
                reference=1.0,
                gap=1.0,
                tolerance=1e-9,
                passed=True,
                group="demo",
                rule="value > ref",
            )
        ]
    )
    report = tmp_path / "r.md"
    assert main(["verify", "--check", "demo-negative", "--report", str(report)]) == 0
    assert "value > ref" in capsys.readouterr().out
    assert not (tmp_path / "r-gaps.png").exists()  # nothing with the default rule to plot
    assert main(["verify", "--check", "demo-pass", "--report", str(report)]) == 0
    assert (tmp_path / "r-gaps.png").exists() and "r-gaps.png" in report.read_text()
