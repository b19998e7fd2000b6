"""``docs/performance.md`` written from one benchmark report (``python -m benchmarks --page``),
with the noise measured by other runs of the same command (``--noise``, `benchmarks.noise`).

Every figure on the page comes from the report's rows: the tables of
[`benchmarks.__main__.markdown`][benchmarks.__main__.markdown], the targets table and the
sentences derived here. The prose around them states method and decisions, never a number of
its own, so the page says nothing the run does not support.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks.__main__ import markdown
from benchmarks.noise import PAGE_RUNS, page_lines

REGENERATE = "python -m benchmarks --out benchmark-results --page docs/performance.md"


def rerun_command(report: dict[str, Any]) -> str:
    """The command of ``report``'s run, writing to ``benchmark-results`` and no page (so that
    rerunning it leaves the page and the committed runs as they are)."""
    words = str(report.get("command") or REGENERATE).split()
    out: list[str] = []
    dropping = False
    for word in words:
        if word.startswith("--"):
            dropping = word in ("--out", "--page", "--noise")
        if not dropping:
            out.append(word)
    return " ".join([*out, "--out", "benchmark-results"])


_INTRO = """# Performance

How fast optmech's LPs, closed forms and samplers are, where the time goes, and how to measure
it yourself. **Every figure on this page comes from one run of the benchmark package**, named
below with its command, date, machine load and package versions; the page itself is written by
that run. Its noise comes from other runs of the same command on the same machine (below).

## Reproduce

On a fresh clone, in a new virtual environment (qif and diffprivlib, the peers compared with,
are in the `bench` extra; they are not dependencies of optmech), run the command of this page's
run, then compare the new run with this page's runs:

```bash
git clone <repository> optmech && cd optmech
python -m venv .venv && .venv/bin/pip install -e ".[bench]"
.venv/bin/{rerun}
.venv/bin/python -m benchmarks.noise --page-runs {page_runs} --new benchmark-results/benchmarks.json
```

The first command runs every section and writes `benchmark-results/benchmarks.json` (every
number, the versions, the load) and `benchmark-results/benchmarks.md` (the tables); the second
lists the figures outside this page's bands of noise, the cases the new run lacks and the
computed values that changed, and exits with 1 if there are any. `--page docs/performance.md`
rewrites this page from a run, and `--noise JSON ...` adds other runs' noise to it. Faster
variants: `python -m benchmarks --quick` (small sizes), `--quick --full SECTION ...` (small
sizes but for the sections named), `--only SECTION ...` and `--repeat N` (runs of every case,
alternated).

## How it measures

- **Whole processes, alternated.** Every LP case runs in a fresh interpreter with a time limit
  (`--timeout`; a case over it is reported as `timeout`, never a hang). Cases that are compared
  with each other (optmech's pipeline and the solver called directly on the same matrices;
  HiGHS and Clarabel on the same design; the commands of the start-up table) run alternately,
  A B A B …, so that a change in the machine's load falls on both.
- **min and median.** Each figure is the median over the runs, with the minimum in
  parentheses; "runs" says how many. The load average (1 minute) is recorded before and after
  every case: the machine is shared, so ratios measured back to back are the numbers to trust,
  and absolute seconds vary with the load shown.
- **Peak memory of the process itself.** `getrusage(...).ru_maxrss` of a child is not its own
  peak on Linux: the kernel carries the parent's resident size across `fork` and `exec`. The
  peak here is `VmHWM` from `/proc/<pid>/status` (the high-water mark of the process's own
  address space, which `exec` replaces), read by the parent while the child runs and by the
  child at its end; where `/proc` is missing, a small launcher process forks the case and
  reads its `ru_maxrss` (`benchmarks/_process.py`; tested with a trivial child of a 419 MB
  parent).
- **In-process phases.** Inside a case: build (the vectorised problem), compile (cvxpy's
  canonicalisation), solve (inside the solver), certify (clip, repair, independent
  certification, the certified interval's bound). The package imports its modules on first
  use; a case's process imports them all before its clock starts (`EAGER_IMPORT=1`), so the
  phases time work, not imports (the start-up table times those).
- **Two checkouts compared.** `python -m benchmarks.compare --before A/benchmarks.json ...
  --after B/benchmarks.json ...` matches the cases of two sets of runs by their parameters and
  prints each case's ratio of median totals, their median and geometric mean, and the cases
  slower by more than 5%.
"""

_SECTIONS = """## Sections

1. **GRS user LP** (uniform prior on {0..n}, |e| loss, ε = 0.5; Ghosh, Roughgarden &
   Sundararajan 2012): `bayesian_mechanism`'s phases, the certified value's gap to the closed
   form G + Bayes remap (GRS Thm. 3.1), pipeline / the same solver on hand-built scipy.sparse
   matrices (the *full* LP, where the pipeline solves the mirror-reduced one on this symmetric
   instance, so the ratio includes the reduction's gain), and pipeline / qif's
   `min_loss_given_d`.
2. **Additive ε-DP noise LP** (|e|, ε = 1, Δ = 1, 20 periods each side; Geng & Viswanath 2016,
   the exact discretisation): the same phases, the gap to the staircase optimum, pipeline /
   direct solver on the same matrices, and the exponent b of solve time ∝ cells^b.
3. **Solver crossover** (`benchmarks/crossover.py`): `design_noise` with HiGHS and with
   Clarabel on the same LP, by cost, ε, resolution m and periods; the default solver of
   additive designs (`SOLVER_POLICY["additive"]`) is set from it.
4. **Whole processes of small problems** (`benchmarks/startup.py`): the closed-form command,
   and per LP kind optmech's pipeline (split into imports, LP work) against the same matrices
   solved through `highspy` in a process that never imports cvxpy, and qif.
5. **Samplers**: samples per second against numpy's vectorised draws (the limit) and
   diffprivlib's `Staircase` (the peer); the exact samplers with the default bit source and
   with a seeded `random.Random`.
6. **Closed form vs LP**: the theorem's answer against the LP that reaches it.
7. **2-D additive ε-DP noise LP** (ℓ1 cost, ε = 1, Δ = 1): the target case, then a ladder of
   resolutions per ball, stopping at the first case over the ladder's time limit.
8. **Scaling of each designer** (`benchmarks/scaling.py`): per designer (1-D ε-DP and (ε, δ)
   noise, 2-D noise, the Bayesian user LP with a general prior, the local model, Gaussian-DP
   noise) a ladder of sizes, time and solve memory against size, the fitted exponents, and the
   largest instance the fit puts within 10 minutes and 8 GB — an extrapolation, for deciding
   when to move to a larger machine or to the Dask sweep.
"""

_DECISIONS = """## Decisions these measurements stand behind

- **The default solver of additive designs** is chosen by the crossover measured above
  (`SOLVER_POLICY["additive"]` in `optmech.lp.solve` records the run). Both solvers' certified
  intervals contain the other's value in every case of the crossover table ("intervals
  overlap"), so the choice changes the time, not what is certified.
- **Exact samplers default to the operating system's entropy** (`secrets.SystemRandom`):
  noise that protects privacy must not be predictable from a seed. A seeded `random.Random`
  is faster (the sampler table gives both) and is the choice for reproducible experiments,
  not for releases.
- **The closed forms import no SciPy.** SciPy's subpackages are imported on first use
  (`optmech._scipy`), and the closed-form command uses numpy only; the start-up table gives
  the command's whole-process time.
- **cvxpy stays the modelling layer.** The start-up table shows what it costs a small LP
  process (its import) against the same matrices solved through `highspy` directly; a
  cvxpy-free path for small LPs is not in optmech yet.

Settings adopted earlier and not re-measured by this run (each is checked for giving the same
certified answers by `tests/test_perf_paths.py`, not for its speed): Clarabel's QDLDL
factorisation (`direct_solve_method="qdldl"`) for every LP kind, and Clarabel's feasibility
tolerance of 1e-10 on the GRS LP (a looser one trades the certified value's accuracy for time).
"""


def _best(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any] | None:
    for row in rows:
        if all(row.get(k) == v for k, v in match.items()):
            return row
    return None


#: The keys of a sampler row that say what was measured (the rest are its parameters).
_MEASURED = frozenset(
    {"sampler", "runs", "samples_per_s", "samples_per_s_best", "limit", "limit_samples_per_s",
     "ours_over_limit_time", "ours_over_peer_rate", "peer_status", "load", "load_min"}
)  # fmt: skip


def _twin(rows: list[dict[str, Any]], row: dict[str, Any], **changed: Any) -> dict | None:
    """The row measured with every parameter of ``row`` (ε, size, …) but ``changed``."""
    same = {k: v for k, v in row.items() if k not in _MEASURED and k not in changed}
    return _best(rows, **same, **changed)


def _secs(row: dict[str, Any] | None, key: str = "total") -> str:
    value = None if row is None else row.get(key, row.get(f"{key}_median"))
    if row is None or not isinstance(value, (int, float)):
        return "not measured in this run" if row is None else str(row.get("status"))
    low = row.get(f"{key}_min")
    tail = f" (min {low:.3g})" if isinstance(low, (int, float)) else ""
    return f"{value:.3g} s{tail}"


def targets(rows: list[dict[str, Any]]) -> list[str]:
    """The targets table: each target, the figure measured, and whether it is met."""
    out = ["| target | measured (median, min over the runs) | met? |", "|---|---|---|"]

    def line(name: str, text: str, ok: bool | None) -> None:
        out.append(f"| {name} | {text} | {'–' if ok is None else 'yes' if ok else 'no'} |")

    grs = [r for r in rows if r["section"] == "grs"]
    big = _best(grs, n=800)
    line("GRS LP n = 800 in < 60 s", _secs(big), big and (big.get("total") or 1e9) < 60)
    add = [r for r in rows if r["section"] == "additive" and r.get("kind") != "scaling"]
    a1000 = _best(add, m=1000, monotone=False)
    line(
        "additive ε-DP LP, m = 1000, 20 periods per side, < 30 s",
        _secs(a1000),
        a1000 and (a1000.get("total") or 1e9) < 30,
    )
    ratios = [
        (f"additive m = {r['m']}", r["pipeline_over_direct"])
        for r in add
        if r.get("pipeline_over_direct") and r["m"] == max(x["m"] for x in add)
    ] + [
        (f"GRS n = {r['n']}", r["pipeline_over_direct"])
        for r in grs
        if r.get("pipeline_over_direct") and r["n"] >= 400
    ]
    line(
        "pipeline within 1.3x of the direct solver call at the largest sizes",
        ", ".join(f"{name}: {val:.2f}" for name, val in ratios) or "not measured",
        bool(ratios) and all(val <= 1.3 for _, val in ratios) if ratios else None,
    )
    stair = [r for r in rows if r["section"] == "samplers" and r["sampler"] == "Staircase.rvs"]
    if stair:
        worst = max(r["ours_over_limit_time"] for r in stair)
        line("Staircase sampling within 3x of numpy's Laplace", f"at most {worst:.2f}x", worst <= 3)
        peer = [r["ours_over_peer_rate"] for r in stair if "ours_over_peer_rate" in r]
        line(
            "≥ 100x diffprivlib's Staircase per value",
            f"{min(peer):.0f}–{max(peer):.0f}x" if peer else stair[0].get("peer_status", "–"),
            min(peer) >= 100 if peer else None,
        )
    peaks = [(r.get("peak_rss_mb") or 0.0, r) for r in rows]
    if peaks:
        top, row = max(peaks, key=lambda p: p[0])
        size = row.get("designer") or row.get("n", row.get("m", ""))
        where = row.get("command") or f"{row['section']} {size}"
        line("largest cases < 8 GiB peak RSS", f"largest {top:.0f} MB ({where})", top < 8 * 1024)
    target = _best([r for r in rows if r["section"] == "additive2d"], kind="target")
    line(
        "2-D LP, ℓ∞ ball, ε = 1, 8 cells per Δ, 6 periods each way, < 60 s",
        _secs(target),
        target and (target.get("total") or 1e9) < 60,
    )
    _scale_targets(rows, line)
    cli = _best([r for r in rows if r["section"] == "startup"], command=_CLI)
    line(
        "closed-form command `optmech staircase --epsilon 1` < 0.3 s, whole process",
        _secs(cli, "wall"),
        cli and (cli.get("wall_median") or 1e9) < 0.3,
    )
    return [*out, ""]


_CLI = "optmech staircase --epsilon 1"


def _scale_targets(rows: list[dict[str, Any]], line: Any) -> None:
    """The targets of the designers at scale: (ε, δ) over its range, GDP against the Gaussian,
    2-D at 20 cells per Δ; each "not measured in this run" where its rows are missing."""
    approx = [r for r in rows if r["section"] == "approx" and "total" in r]
    ok = [
        r["total"] < 30
        and (r.get("peak_rss_mb") or 0) < 1024
        and r["certified_delta"] <= r["delta"]
        and r["value_over_truncated_laplace"] <= 1.0
        for r in approx
    ]
    line(
        "(ε, δ), ε in [0.1, 5], δ in [1e-12, 1e-2], defaults: each < 30 s and 1 GB, δ certified, "
        "≤ the truncated Laplace",
        f"{len(approx)} cases: at most {max(r['total'] for r in approx):.3g} s, "
        f"{max(r.get('peak_rss_mb') or 0 for r in approx):.0f} MB, value / truncated Laplace at "
        f"most {max(r['value_over_truncated_laplace'] for r in approx):.4f}"
        if approx
        else "not measured in this run",
        all(ok) if approx else None,
    )
    gdp = _best([r for r in rows if r["section"] == "gdp"], mu=1.0, m=8, accuracy=1e-6)
    line(
        "Gaussian DP μ = 1, defaults: < 30 s, within 0.1% of the Gaussian mechanism or better",
        f"{_secs(gdp)}, {gdp['gap_to_gaussian']:+.2%} against the Gaussian"
        if gdp
        else "not measured in this run",
        gdp and (gdp.get("total") or 1e9) < 30 and gdp["gap_to_gaussian"] <= 1e-3,
    )
    plane = [r for r in rows if r["section"] == "additive2d" and r.get("m") == 20]
    line(
        "2-D, 20 cells per Δ, 4 periods: < 60 s for each ball",
        ", ".join(f"{r['norm']} {_secs(r)}" for r in plane) or "not measured in this run",
        all((r.get("total") or 1e9) < 60 for r in plane) if plane else None,
    )


def findings(rows: list[dict[str, Any]]) -> list[str]:
    """Sentences derived from the rows (each figure is a row's)."""
    out: list[str] = []
    start = {r["command"]: r for r in rows if r["section"] == "startup"}
    for kind in ("user LP n=30", "additive LP eps=1"):
        pipe = start.get(f"{kind}: optmech")
        direct = start.get(f"{kind}: highspy, no cvxpy")
        if pipe and direct and pipe.get("wall_median") and direct.get("wall_median"):
            share = pipe.get("cvxpy_median", 0.0) / pipe["wall_median"]
            out.append(
                f"- {kind}: optmech's whole process {pipe['wall_median']:.2f} s, of which "
                f"importing cvxpy {pipe.get('cvxpy_median', 0.0):.2f} s ({share:.0%}) and the "
                f"LP work {pipe.get('lp_median', 0.0):.2f} s; the same matrices through "
                f"highspy without cvxpy {direct['wall_median']:.2f} s "
                f"({pipe['wall_median'] / direct['wall_median']:.1f}x less)."
            )
    cuts = [r for r in rows if r["section"] == "crossover" and r.get("kind") == "crossover"]
    if cuts:
        from optmech.lp.solve import SOLVER_POLICY

        limit, small, large = SOLVER_POLICY["additive"]
        known = [r["crossover_variables"] for r in cuts]
        every = "never in every group" if None in known else f"from {max(known):,} variables"
        costs = sorted({r["cost"] for r in cuts})
        follows = (
            ""
            if None in known or max(known) >= limit
            else f" It does not follow this run's crossover (groups measured: "
            f"{', '.join(costs)}): from {max(known):,} to {limit:,} variables it keeps {small}, "
            "which this run measured slower there; the groups the default rests on are "
            'recorded with `SOLVER_POLICY["additive"]`.'
        )
        out.append(
            f"- Additive LP, HiGHS against Clarabel: Clarabel faster in every group measured "
            f"{every} (per group in the list under the crossover table). The default "
            f'(`SOLVER_POLICY["additive"]`) in this run: {small} up to {limit:,} variables, '
            f"{large} above.{follows}"
        )
    qif = start.get("user LP n=30: qif")
    pipe = start.get("user LP n=30: optmech")
    if qif and pipe and qif.get("wall_median") and pipe.get("wall_median"):
        out.append(
            f"- qif's `min_loss_given_d` on the same user LP: {qif['wall_median']:.2f} s whole "
            f"process, optmech {pipe['wall_median']:.2f} s."
        )
    exact = [r for r in rows if r["section"] == "samplers" and "sample_exact" in r["sampler"]]
    for row in exact:
        if "SystemRandom" in row["sampler"]:
            twin = _twin(
                exact, row, sampler=row["sampler"].replace("default: SystemRandom", "random.Random")
            )
            if twin:
                out.append(
                    f"- {row['sampler'].split(' (')[0]} (ε = {row['epsilon']:g}): "
                    f"{row['samples_per_s']:.3g} draws/s with the default SystemRandom, "
                    f"{twin['samples_per_s']:.3g} with random.Random."
                )
    return [*out, ""] if out else []


#: Where the page's figures go, relative to the page (``docs/performance.md``).
IMAGES = "img/performance"

#: The peers compared with: their package, and the rows that compare with them.
_PEERS = {"qif": "qif", "diffprivlib": "diffprivlib"}


def peers(report: dict[str, Any]) -> list[str]:
    """One line per peer: its version in this run, or why it did not run (not installed, or
    the statuses of the cases that compared with it)."""
    versions = report.get("versions", {})
    rows = report["rows"]
    out = []
    for name, package in _PEERS.items():
        version = versions.get(package, "not recorded")
        if version in ("not available", "not recorded"):
            out.append(
                f"- **{name}**: not importable in the environment of this run, so its "
                f'comparisons are missing (`pip install -e ".[bench]"` installs it).'
            )
            continue
        statuses = sorted(
            {
                str(r.get(key))
                for r in rows
                for key in ("qif_status", "peer_status")
                if name in key.replace("peer", "diffprivlib")
                and isinstance(r.get(key), str)
                and r.get(key) != "ok"
            }
        )
        failed = f"; cases that did not compare: {', '.join(statuses)}" if statuses else ""
        out.append(f"- **{name}** {version}{failed}.")
    return out


#: The sections that compare with each peer.
_PEER_SECTIONS = {"qif": ("grs", "startup"), "diffprivlib": ("samplers",)}


def _absent(report: dict[str, Any], peer: str) -> str:
    """Why a peer has no figure: not importable, its sections not run, or its cases' statuses."""
    if report.get("versions", {}).get(peer, "not recorded") in ("not available", "not recorded"):
        return "not importable in this run's environment; see the peers below"
    sections = _PEER_SECTIONS[peer]
    if not any(r["section"] in sections for r in report["rows"]):
        return f"the sections comparing with it ({', '.join(sections)}) were not run"
    return "its cases did not finish; see the peers below"


def summary(report: dict[str, Any], figures: list[str]) -> list[str]:
    """The page's opening: the headline ratio against each peer and the direct solver call,
    which targets this run could not measure, and the figures."""
    rows = report["rows"]
    out = ["## Summary", ""]
    grs_qif = [r for r in rows if r["section"] == "grs" and r.get("pipeline_over_qif")]
    start = {r["command"]: r for r in rows if r["section"] == "startup"}
    qif, ours = start.get("user LP n=30: qif"), start.get("user LP n=30: optmech")
    if grs_qif:
        out.append(
            "- **against qif** (`min_loss_given_d`, the same GRS LP): optmech takes "
            + ", ".join(
                f"{r['pipeline_over_qif']:.2g}x qif's time at n = {r['n']}" for r in grs_qif
            )
            + "."
        )
    elif qif and ours and qif.get("wall_median") and ours.get("wall_median"):
        out.append(
            f"- **against qif** (the user LP at n = 30, whole processes): optmech "
            f"{ours['wall_median']:.2f} s, qif {qif['wall_median']:.2f} s "
            f"({ours['wall_median'] / qif['wall_median']:.2g}x)."
        )
    else:
        out.append(f"- **against qif**: no figure in this run: {_absent(report, 'qif')}.")
    rates = [r["ours_over_peer_rate"] for r in rows if r.get("ours_over_peer_rate")]
    out.append(
        f"- **against diffprivlib** (`Staircase`, samples per second): optmech "
        f"{min(rates):.0f}–{max(rates):.0f}x faster."
        if rates
        else f"- **against diffprivlib**: no figure in this run: {_absent(report, 'diffprivlib')}."
    )
    direct = [r["pipeline_over_direct"] for r in rows if r.get("pipeline_over_direct")]
    if direct:
        out.append(
            f"- **against the solver called directly** on the same matrices: optmech's pipeline "
            f"takes {min(direct):.2f}–{max(direct):.2f}x its time (build, compile and "
            "certification included)."
        )
    out += ["", "Peers in this run:", "", *peers(report), ""]
    if report.get("mode") == "quick":
        full = ", ".join(report.get("full_sections") or []) or "none"
        out += [
            "This is a **quick run** (full sizes only for: "
            f'{full}): a target whose sizes it did not reach reads "not measured in this '
            'run" below; `python -m benchmarks --quick --full SECTION ...` measures it.',
            "",
        ]
    out += [f"![{name[:-4]}]({IMAGES}/{name})" for name in figures]
    return [*out, ""] if figures else out


def render(
    report: dict[str, Any], images: str | None = None, others: Sequence[dict[str, Any]] = ()
) -> str:
    """The whole page for ``report`` (the dict that ``benchmarks.json`` holds); with
    ``images`` (a directory: the page's `IMAGES`) its figures are drawn there and linked;
    ``others``, other runs of the same command, give the section on noise."""
    rows = report["rows"]
    figures: list[str] = []
    if images is not None:
        from benchmarks.plots import draw

        figures = draw(rows, images)
    lines = [
        _INTRO.format(rerun=rerun_command(report), page_runs=PAGE_RUNS),
        *summary(report, figures),
        *page_lines(report, others),
        _SECTIONS,
        "## Results",
        "",
        markdown(report).split("\n", 1)[0],
        "",
        "### Against the targets",
        "",
        *targets(rows),
        "### In short",
        "",
        *findings(rows),
        markdown(report).split("\n", 1)[1],
        "",
        _DECISIONS,
    ]
    return "\n".join(lines).rstrip() + "\n"


def write_page(report: dict[str, Any], page: str, others: Sequence[dict[str, Any]] = ()) -> str:
    """Write the page ``page`` for ``report`` (and the noise of ``others``) and its figures
    beside it (in `IMAGES`, relative to the page's folder); returns that figures folder."""
    import os

    images = os.path.join(os.path.dirname(os.path.abspath(page)), IMAGES)
    with open(page, "w", encoding="utf-8") as fh:
        fh.write(render(report, images, others))
    return images


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.page REPORT.json [--page PATH]``: the page from a report already
    written (its figures under the page's ``img/performance``)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m benchmarks.page")
    parser.add_argument("report", help="a benchmarks.json")
    parser.add_argument("--page", default="docs/performance.md")
    parser.add_argument(
        "--noise", nargs="*", default=(), metavar="JSON", help="other runs of the same command"
    )
    args = parser.parse_args(argv)
    with open(args.report, encoding="utf-8") as fh:
        report = json.load(fh)
    others = [json.loads(open(p, encoding="utf-8").read()) for p in args.noise]
    images = write_page(report, args.page, others)
    print(f"wrote {args.page} and its figures in {images}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
