"""``optmech verify``: run the theorem catalogue and print one row per instance.

Columns: check, instance, value (what optmech computed), reference (the independent closed
form), gap, tolerance, certified ε/δ, seconds, PASS/FAIL. Exit status 1 if any row fails.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from optmech.cli._output import fmt, print_json, print_table
from optmech.theorems.catalogue import CheckResult, load_all, registered_checks, run_checks

__all__ = ["register", "run"]

HEADERS = (
    "check",
    "instance",
    "value",
    "reference",
    "gap",
    "tol",
    "cert. eps",
    "cert. delta",
    "s",
    "result",
)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``verify`` subcommand."""
    parser = sub.add_parser(
        "verify",
        help="check the theorems numerically (closed forms, LP optima) and tabulate the gaps",
        description="Run the theorem catalogue: every closed form and LP optimum is compared with "
        "an independent reference. Exit status 1 if any check fails.",
    )
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
    parser.add_argument("--list", action="store_true", help="list the checks and exit")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        metavar="OUT.md",
        help="also write a markdown report with the table",
    )
    parser.set_defaults(run=run)


def _row(r: CheckResult) -> list[object]:
    return [
        r.check,
        r.instance,
        r.value,
        r.reference,
        r.gap,
        r.tolerance,
        r.certified_epsilon,
        r.certified_delta,
        round(r.seconds, 3),
        r.passed,
    ]


def _validate_selection(args: argparse.Namespace) -> None:
    load_all()
    checks = registered_checks()
    groups = sorted({c.group for c in checks.values()})
    for g in args.group or []:
        if g not in groups:
            raise ValueError(f"`--group` must be one of {groups}; got {g!r}.")
    for name in args.check or []:
        if name not in checks:
            raise ValueError(f"`--check` must name a registered check (see --list); got {name!r}.")


def _markdown(rows: list[CheckResult], seconds: float) -> str:
    lines = [
        "# optmech verify",
        "",
        f"{sum(r.passed for r in rows)} of {len(rows)} rows pass ({seconds:.1f} s).",
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


def run(args: argparse.Namespace) -> int:
    """Run the selected checks; print the table (or JSON); return 1 if any row fails."""
    _validate_selection(args)
    if args.list:
        print_table(
            ("check", "group", "quick"),
            [(c.name, c.group, "yes" if c.quick else "no") for c in registered_checks().values()],
        )
        return 0
    rows: list[CheckResult] = []
    start = time.perf_counter()
    selected = [
        c
        for c in registered_checks().values()
        if (not args.quick or c.quick)
        and (not args.group or c.group in args.group)
        and (not args.check or c.name in args.check)
    ]
    for done, (chk, chk_rows, secs) in enumerate(
        run_checks(quick=args.quick, groups=args.group, names=args.check), start=1
    ):
        rows.extend(chk_rows)
        status = "ok" if all(r.passed for r in chk_rows) else "FAIL"
        print(
            f"[{done}/{len(selected)}] {chk.name}: {len(chk_rows)} rows, {status} ({secs:.2f} s)",
            file=sys.stderr,
            flush=True,
        )
    seconds = time.perf_counter() - start
    n_failed = sum(not r.passed for r in rows)
    if args.json:
        print_json(
            {"passed": n_failed == 0, "rows": [r.to_dict() for r in rows], "seconds": seconds}
        )
    else:
        print_table(HEADERS, [_row(r) for r in rows])
        print(
            f"\n{len(rows) - n_failed} of {len(rows)} rows pass in {seconds:.1f} s"
            + ("" if n_failed == 0 else f"; {n_failed} FAILED")
        )
        for r in rows:
            if not r.passed:
                print(f"FAILED {r.check} ({r.instance}): {r.detail}")
    if args.report is not None:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.report.with_suffix(args.report.suffix + ".partial")
        tmp.write_text(_markdown(rows, seconds), encoding="utf-8")
        tmp.replace(args.report)
    if not rows:
        print("no checks selected", file=sys.stderr)
        return 1
    return 0 if n_failed == 0 else 1
