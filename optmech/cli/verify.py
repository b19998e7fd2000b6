"""``optmech verify``: check the theorems numerically and print one row per instance.

Runs the theorem catalogue: every closed form and LP optimum is compared with an independent
reference. Columns: check, instance, value (what optmech computed: an LP's certified upper end),
reference (the independent closed form, rounded outward), the certified interval
``[lower, upper]``, the allowance (a derived discretisation bound, 0 where none), the pass rule,
certified ε/δ, seconds, PASS/FAIL. ``--exact`` runs the exact mode instead (rows reproduced in
rational and ball arithmetic); ``--certificates`` proves closed-form candidates optimal by dual
certificates instead (no LP solved, ``--n`` sets the size). Exit status 1 if any row fails.

Examples::

    $ optmech verify --quick
    $ optmech verify --group closed-form --json
    $ optmech verify --exact --report report.md
    $ optmech verify --list
    $ optmech verify --certificates --n 10000
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from optmech.cli._args import add_json, check_output_path
from optmech.cli._output import PIPE_WIDTH, fmt, print_json, print_table
from optmech.theorems.catalogue import (
    CheckResult,
    load_all,
    registered_checks,
    run_checks,
    select_checks,
)

__all__ = ["add_arguments", "run"]

HEADERS = (
    "check",
    "instance",
    "value",
    "reference",
    "certified interval",
    "allowance",
    "pass if",
    "cert. ε",
    "cert. δ",
    "time/s",
    "result",
)
#: Columns shortened, in this order, when the table is wider than the terminal; "pass if"
#: shows a key (R1, R2, …) to a legend printed under the table.
_SHRINKABLE = ("check", "instance", "certified interval")
#: The narrowest a shrunk column gets.
_MIN_WIDTH = 10
#: Width of the legend's lines when the table is not fitted (standard output is no terminal).
_LEGEND_WIDTH = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``verify`` options."""
    parser.add_argument(
        "--quick", action="store_true", help="run only the fast checks (under a minute)"
    )
    parser.add_argument(
        "--group",
        action="append",
        default=None,
        metavar="GROUP",
        help="run only this catalogue section (repeatable), e.g. closed-form",
    )
    parser.add_argument(
        "--check",
        action="append",
        default=None,
        metavar="NAME",
        help="run only the check with this name (repeatable)",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="run the exact mode: small rows reproduced in rational and ball arithmetic",
    )
    parser.add_argument(
        "--certificates",
        action="store_true",
        help="prove closed-form candidates optimal by dual certificates (no LP solved)",
    )
    parser.add_argument(
        "--n",
        type=int,
        default=None,
        metavar="N",
        help="largest query result of the --certificates rows (default 1000; 40 for the "
        "minimax rows), and cells per Δ of the staircase rows",
    )
    parser.add_argument("--list", action="store_true", help="list the checks and exit")
    parser.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar with the running check and an ETA on standard error",
    )
    add_json(parser)
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        metavar="OUT.md",
        help="also write a markdown report with the table",
    )


def _row(r: CheckResult, rule: str | None = None) -> list[object]:
    """The row's cells; ``rule`` replaces the pass rule (a legend key in the terminal table).
    Rows about pure ε-DP carry no δ, and show none."""
    return [
        r.check,
        r.instance,
        r.value,
        r.reference,
        r.interval,
        r.allowance if r.allowance else None,
        r.pass_rule if rule is None else rule,
        r.certified_epsilon,
        r.certified_delta,
        round(r.seconds, 3),
        r.passed,
    ]


def _fit(cells: list[list[str]], width: int) -> list[list[str]]:
    """Drop the columns no row fills (all "-"), then shorten the `_SHRINKABLE` ones
    (with "…") until the table fits ``width``."""
    keep = [j for j in range(len(HEADERS)) if any(row[j] != "-" for row in cells[1:])]
    if not cells[1:]:
        keep = list(range(len(HEADERS)))
    cells = [[row[j] for j in keep] for row in cells]
    names = [HEADERS[j] for j in keep]
    widths = [max(len(c) for c in col) for col in zip(*cells, strict=True)]
    over = sum(widths) + 2 * (len(widths) - 1) - width
    for name in _SHRINKABLE:
        if over <= 0 or name not in names:
            continue
        j = names.index(name)
        cut = min(over, max(widths[j] - _MIN_WIDTH, 0))
        widths[j] -= cut
        over -= cut
        for row in cells:
            if len(row[j]) > widths[j]:
                row[j] = row[j][: widths[j] - 1] + "…"
    return cells


def _print_rows(rows: list[CheckResult]) -> None:
    """The table, fitted to the terminal, with the pass rules as a numbered legend."""
    rules: dict[str, str] = {}
    for r in rows:
        rules.setdefault(r.pass_rule, f"R{len(rules) + 1}")
    cells = [list(HEADERS)] + [[fmt(c) for c in _row(r, rules[r.pass_rule])] for r in rows]
    width = _table_width()
    fitted = cells if width is None else _fit(cells, width)
    print_table(fitted[0], fitted[1:])
    if rules:
        print("\npass if:")
        for rule, key in rules.items():
            print(
                textwrap.fill(
                    f"{key}: {rule}",
                    width or _LEGEND_WIDTH,
                    initial_indent="  ",
                    subsequent_indent="      ",
                )
            )


def _table_width() -> int | None:
    """The width to fit the table to: ``COLUMNS`` if set, else the terminal's when standard
    output is one, else (a file or a pipe) `PIPE_WIDTH` (``--json`` has every value whole)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size((160, 24)).columns
    return PIPE_WIDTH


def _validate_selection(args: argparse.Namespace) -> None:
    load_all()
    checks = registered_checks()
    groups = sorted({c.group for c in checks.values()})
    for g in args.group or []:
        if g not in groups:
            raise ValueError(f"`--group` must be one of {groups}; got {g!r}.")
        modes = {c.exact for c in checks.values() if c.group == g}
        if bool(args.exact) not in modes:
            hint = "drop --exact" if args.exact else "add --exact"
            raise ValueError(
                f"`--group` {g!r} holds only checks "
                f"{'of' if True in modes else 'outside'} the exact mode: {hint}."
            )
    for name in args.check or []:
        if name not in checks:
            raise ValueError(f"`--check` must name a registered check (see --list); got {name!r}.")
        if checks[name].exact != bool(args.exact):
            hint = "add --exact" if checks[name].exact else "drop --exact"
            raise ValueError(
                f"`--check` {name!r} is {'' if checks[name].exact else 'not '}a check of the "
                f"exact mode: {hint}."
            )


def _plot_points(
    rows: list[CheckResult],
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """``(group, gap/tolerance)`` of the tolerance rows and ``(group, relative width)`` of the
    certified intervals (rows of other kinds have neither)."""
    tolerance = [
        (r.group, max(r.gap / r.tolerance, 1e-18))
        for r in rows
        if r.kind == "tolerance" and r.tolerance > 0 and math.isfinite(r.gap)
    ]
    widths = []
    for r in rows:
        if r.kind == "certificate" and r.lower_bound is not None and r.upper_bound is not None:
            width = (r.upper_bound - r.lower_bound) / max(abs(r.upper_bound), 1.0)
            if math.isfinite(width):
                widths.append((r.group, max(width, 1e-18)))
    return tolerance, widths


def _scatter(ax: Any, points: list[tuple[str, float]]) -> None:
    for i, group in enumerate(sorted({g for g, _ in points})):
        ys = [y for g, y in points if g == group]
        ax.scatter(
            [i + 0.6 * (k / max(len(ys), 1) - 0.3) for k in range(len(ys))],
            ys,
            s=12,
            label=f"{group} ({len(ys)} rows)",
        )
    ax.set_yscale("log")
    ax.set_xticks([])
    ax.legend(fontsize=8, loc="lower right")


def _plot_gaps(rows: list[CheckResult], path: Path) -> bool:
    """Left: gap / tolerance of every tolerance row; right: relative width of every certified
    interval (the LP rows' decisiveness); both by group on a log scale. False if neither."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tolerance, widths = _plot_points(rows)
    if not tolerance and not widths:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    if tolerance:
        _scatter(left, tolerance)
        left.axhline(1.0, color="black", linestyle="--", linewidth=1, label="tolerance")
    left.set_ylabel("gap / derived tolerance (pass below 1)")
    left.set_title("rows decided by a derived tolerance")
    if widths:
        _scatter(right, widths)
    right.set_ylabel("(upper − lower) / max(|upper|, 1)")
    right.set_title("rows decided by a certified interval")
    tmp = path.with_name(path.stem + ".partial" + path.suffix)
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    tmp.replace(path)
    return True


def _write_report(report: Path, rows: list[CheckResult], seconds: float) -> None:
    """Markdown report with the table, the failures and the gap plot (written atomically)."""
    report.parent.mkdir(parents=True, exist_ok=True)
    text = _markdown(rows, seconds)
    figure = report.with_name(report.stem + "-gaps.png")
    if _plot_gaps(rows, figure):
        text = text.replace("\n\n|", f"\n\n![gaps and certified widths]({figure.name})\n\n|", 1)
    tmp = report.with_suffix(report.suffix + ".partial")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(report)


def _markdown(rows: list[CheckResult], seconds: float) -> str:
    lines = [
        "# optmech verify",
        "",
        f"{sum(r.passed for r in rows)} of {len(rows)} rows pass ({seconds:.1f} s)"
        + (
            f"; {sum(r.exact for r in rows)} reproduced exactly."
            if any(r.exact for r in rows)
            else "."
        ),
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|" + "---|" * len(HEADERS),
    ]
    for r in rows:
        lines.append("| " + " | ".join(fmt(c).replace("|", "\\|") for c in _row(r)) + " |")
    failed = [r for r in rows if not r.passed]
    if failed:
        lines += ["", "## Failures", ""]
        lines += [f"- **{r.check}** ({r.instance}): {r.detail}" for r in failed]
    return "\n".join(lines) + "\n"


def _certificate_rows(args: argparse.Namespace) -> tuple[list[CheckResult], float]:
    """The rows of ``--certificates`` (optmech.theorems.certificate_rows) at ``--n``, and their
    seconds."""
    from optmech.theorems.certificate_rows import certificate_rows

    others = [f for f in ("quick", "exact", "list", "group", "check") if getattr(args, f)]
    if others:
        raise ValueError(f"`--certificates` runs its own rows; drop --{', --'.join(others)}.")
    start = time.perf_counter()
    rows = certificate_rows(args.n)
    return rows, time.perf_counter() - start


def run(args: argparse.Namespace) -> int:
    """Run the selected checks; print the table (or JSON); return 1 if any row fails."""
    check_output_path("--report", args.report, create=True)  # before the checks run
    if args.n is not None and not args.certificates:
        raise ValueError(f"`--n` sets the size of the --certificates rows; got --n {args.n} alone.")
    if args.certificates:
        return _finish(args, *_certificate_rows(args))
    _validate_selection(args)
    selected = select_checks(
        quick=args.quick, groups=args.group, names=args.check, exact=args.exact
    )
    if not selected and not args.list:
        raise ValueError(
            "no check matches --quick, --group and --check together (see --list for which "
            "checks are quick and in which group); got "
            f"{'--quick, ' if args.quick else ''}--group {args.group}, --check {args.check}."
        )
    if args.list:
        print_table(
            ("check", "group", "quick", "exact mode"),
            [
                (c.name, c.group, "yes" if c.quick else "no", "yes" if c.exact else "no")
                for c in registered_checks().values()
            ],
        )
        return 0
    rows: list[CheckResult] = []
    start = time.perf_counter()
    for _, chk_rows, _ in run_checks(
        quick=args.quick,
        groups=args.group,
        names=args.check,
        exact=args.exact,
        progress=args.progress,
    ):
        rows.extend(chk_rows)
    return _finish(args, rows, time.perf_counter() - start)


def _finish(args: argparse.Namespace, rows: list[CheckResult], seconds: float) -> int:
    """Print the rows (or JSON), write the report; 1 if any row fails."""
    n_failed = sum(not r.passed for r in rows)
    if args.json:
        print_json(
            {
                "passed": n_failed == 0,
                "exact": bool(args.exact),
                "rows": [r.to_dict() for r in rows],
                "seconds": seconds,
            }
        )
    else:
        _print_rows(rows)
        exact = sum(r.exact for r in rows)
        print(
            f"\n{len(rows) - n_failed} of {len(rows)} rows pass in {seconds:.1f} s"
            + (f"; {exact} reproduced exactly" if exact else "")
            + ("" if n_failed == 0 else f"; {n_failed} FAILED")
        )
        for r in rows:
            if not r.passed:
                print(f"FAILED {r.check} ({r.instance}): {r.detail}")
    if args.report is not None:
        _write_report(args.report, rows, seconds)
    if not rows:
        print("no checks selected", file=sys.stderr)
        return 1
    return 0 if n_failed == 0 else 1
