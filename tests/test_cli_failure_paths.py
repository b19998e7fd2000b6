"""The command line's failure paths, each reproduced as a user met it: one line on standard
error naming the option, exit status 2, no traceback, and refused before the work begins
wherever the size or range is known up front (no grid built, no LP solved, no task run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli_fuzz import WorkStarted

from optmech.cli import INTERRUPTED, main


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    """Run ``argv``; it must exit 2 with one line naming every flag of ``flags``."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for flag in flags:
        assert flag in err, err
    return err


# -- design: what the designer cannot serve is refused before any grid is built ------------------
@pytest.mark.parametrize(
    ("argv", "flags"),
    [
        (["--privacy", "gdp=100", "--integer"], ["--privacy"]),  # an OverflowError after building
        (["--privacy", "zcdp=1000", "--integer"], ["--privacy"]),  # ZeroDivisionError after solve
        (["--privacy", "delta=1e-9"], ["--privacy", "--max-memory-gb"]),  # a 149 GiB allocation
        (["--privacy", "eps=1,delta=1e-300", "--unbiased"], ["--privacy"]),  # no ε-DP answer
        (["--privacy", "eps=1", "--resolution", "1000000000"], ["--max-memory-gb"]),
        (
            ["--privacy", "eps=20", "--grid", "graded", "--periods", "100000000"],
            ["--max-memory-gb"],
        ),
    ],
)
def test_a_design_the_designer_cannot_serve_is_refused_up_front(
    argv: list[str], flags: list[str], capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    _fails(["design", *argv], capsys, *flags)


def test_the_design_limits_are_read_from_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusals follow the library's own numbers: its size estimate, and the smallest
    mass its solvers resolve (change either, and the refusal moves with it)."""
    import optmech.lp.additive.cone_bound as cone_bound
    import optmech.lp.additive.spec as spec
    from optmech.cli._limits import check_design_1d
    from optmech.exceptions import ProblemTooLargeError
    from optmech.lp.additive.spec import AdditiveSpec
    from optmech.privacy import ZCDP, ApproxDP

    guarantee = ApproxDP(0.0, 1e-4)
    need = AdditiveSpec(guarantee, 1.0, "abs").size(20)["bytes"] / 1e9
    check_design_1d(guarantee, 1.0, "abs", max_memory_gb=need * 1.001)
    with pytest.raises(ProblemTooLargeError, match="--privacy"):
        check_design_1d(guarantee, 1.0, "abs", max_memory_gb=need * 0.999)
    tiny = ApproxDP(1.0, 1e-13)
    with pytest.raises(ValueError, match=r"`delta` must be .* \[1e-11, 1\]; got 1e-13"):
        check_design_1d(tiny, 1.0, "abs", constrained=True)
    # Without constraints a tiny δ is answered by the ε-DP design, the LP solved at DELTA_MIN.
    assert check_design_1d(tiny, 1.0, "abs").privacy == ApproxDP(1.0, spec.DELTA_MIN)
    # An (ε, δ) design's δ floor is the spec's own (its hockey-stick sums are weighed relative
    # to δ), not the smallest mass resolved: that one governs the guarantees beyond (ε, δ).
    monkeypatch.setattr(spec, "DELTA_MIN", 1e-14)
    monkeypatch.setattr(cone_bound, "RELIABLE", 1e-8)
    assert check_design_1d(tiny, 1.0, "abs", constrained=True).privacy == tiny
    with pytest.raises(ValueError, match=r"at most 18\.42"):  # −ln(1e-8): the Gaussian's floor
        check_design_1d(ZCDP(19.0), 1, "abs", integer=True)


def test_the_served_limits_keep_what_the_designer_serves(no_work: None) -> None:
    """The documented examples and the largest guarantees measured to design well pass."""
    from optmech.cli._limits import check_design_1d
    from optmech.privacy import ZCDP, ApproxDP, GaussianDP, PureDP

    for guarantee, integer in [
        (PureDP(50.0), False),
        (ApproxDP(40.0, 1e-6), False),  # its tails reach e^−53, its δ is resolved
        (ApproxDP(1.0, 1e-9), False),
        (ZCDP(20.0), True),
        (GaussianDP(6.0), True),
    ]:
        check_design_1d(guarantee, 1, "abs", integer=integer)


def test_a_reference_whose_cost_underflows_gives_no_relative_gap() -> None:
    from optmech.cli.design import _relative_gap

    assert _relative_gap(1.5, 1.0) == 0.5
    assert _relative_gap(1e-8, 0.0) is None


def test_a_cost_that_overflows_names_the_cost(capsys: pytest.CaptureFixture[str]) -> None:
    _fails(["staircase", "--epsilon", "1", "--cost", "power:1000"], capsys, "--cost")


# -- user: files, and options another option makes meaningless ------------------------------------
def _user(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_ragged_loss_file_names_the_cost_and_the_row_lengths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    loss = _user(tmp_path, "loss.json", "[[0, 1, 2], [1, 0]]")
    err = _fails(["user", "--n", "1", "--epsilon", "1", "--cost", loss], capsys, "--cost")
    assert "[2, 3]" in err and "inhomogeneous" not in err


def test_normalizing_a_prior_near_the_largest_float_is_the_uniform_prior(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four weights of 1e308 sum past the largest float; normalised, they are uniform."""
    huge = _user(tmp_path, "p.json", "[1e308, 1e308, 1e308, 1e308]")
    base = ["user", "--n", "3", "--epsilon", "1", "--json"]
    assert main([*base, "--prior", huge, "--normalize-prior"]) == 0
    normalised = json.loads(capsys.readouterr().out)
    assert main([*base, "--prior", "uniform"]) == 0
    uniform = json.loads(capsys.readouterr().out)
    assert normalised["value"] == uniform["value"]
    assert normalised["mechanism"] == uniform["mechanism"]
    err = _fails([*base[:-1], "--prior", huge], capsys, "--prior", "--normalize-prior")
    assert "overflow" in err


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--minimax", "--prior", "binomial:0.3"], "--prior"),
        (["--minimax", "--prior", "uniform"], "--prior"),
        (["--minimax", "--normalize-prior"], "--normalize-prior"),
        (["--side-info", "0,1"], "--side-info"),
    ],
)
def test_an_option_a_minimax_user_ignores_is_an_error(
    extra: list[str], flag: str, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    _fails(["user", "--n", "3", "--epsilon", "1", *extra], capsys, flag, "--minimax")


@pytest.mark.parametrize("graph", ["grid:2x2", "king:2x3", "hypercube:2"])
def test_n_with_a_graph_that_fixes_its_inputs_is_an_error(
    graph: str, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    _fails(["user", "--n", "10", "--epsilon", "1", "--graph", graph], capsys, "--n", graph)


def test_a_user_lp_too_large_is_refused_before_its_graph_is_built(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_work: None
) -> None:
    import optmech.graphs as graphs

    def boom(*args: object, **kwargs: object) -> None:
        raise WorkStarted("the graph was built")

    monkeypatch.setattr(graphs, "parse_graph", boom)
    _fails(["user", "--epsilon", "1", "--graph", "grid:3000x3000"], capsys, "--graph")
    _fails(["user", "--n", "1000000", "--epsilon", "1"], capsys, "--n", "--max-memory-gb")


# -- verify ------------------------------------------------------------------------------------
def test_a_group_of_the_exact_mode_needs_exact(capsys: pytest.CaptureFixture[str]) -> None:
    _fails(["verify", "--group", "exact"], capsys, "--group", "--exact")


def test_the_verify_table_fits_a_pipe(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Piped to a file (capsys is no terminal, no COLUMNS), the table fits 100 columns (long
    names are shortened; ``--json`` carries them whole), and a terminal's width still fits."""
    from optmech.cli.verify import _print_rows
    from optmech.theorems.catalogue import CheckResult

    monkeypatch.delenv("COLUMNS", raising=False)
    name = "a check whose name is far longer than ten characters"
    instance = "an instance " + "x" * 200
    row = CheckResult(name, instance, 1.0, 1.0, 0.0, 1e-9, True, rule="|v - r| <= 1e-9")
    _print_rows([row])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "a check" in out and "an instance" in out and "…" in out
    monkeypatch.setenv("COLUMNS", "80")  # a terminal's width, when there is one, still fits
    _print_rows([row])
    assert max(len(line.rstrip()) for line in capsys.readouterr().out.splitlines()[:3]) <= 80


# -- output paths that exist but cannot be written ---------------------------------------------
@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["design", "--privacy", "eps=1", "--plot", "/proc/self/status"], "--plot"),
        (["design", "--privacy", "eps=1", "--plot", "/proc/optmech.png"], "--plot"),
        (["user", "--n", "3", "--epsilon", "1", "--plot", "/proc/optmech.png"], "--plot"),
        (["verify", "--quick", "--report", "/proc/optmech.md"], "--report"),
        (["experiment", "gamma-star", "--quick", "--out", "/proc/optmech"], "--out"),
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_before_the_work(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    """Under /proc the folder exists and, to root, permissions say it is writable; only
    creating the file tells."""
    _fails(argv, capsys, flag)


def test_a_plot_format_matplotlib_cannot_write_is_refused_before_the_solve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    _fails(["design", "--privacy", "eps=1", "--plot", str(tmp_path / "d.x")], capsys, "--plot")


# -- sweep -------------------------------------------------------------------------------------
def _spec(tmp_path: Path, text: str) -> str:
    path = tmp_path / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


GOOD = "name: good\ntask: staircase\ngrid: {epsilon: [1, 2]}\n"


def test_a_store_that_is_not_a_database_is_named_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    store = tmp_path / "notes.sqlite"
    text = b"my notes, not a database\n" * 40
    store.write_bytes(text)
    _fails(["sweep", _spec(tmp_path, GOOD), "--store", str(store)], capsys, "--store")
    assert store.read_bytes() == text


@pytest.mark.parametrize("store", ["/proc/optmech.sqlite", "/proc/self/status", "{tmp}"])
def test_a_store_that_cannot_be_written_is_one_line(
    store: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    argv = ["sweep", _spec(tmp_path, GOOD), "--store", store.format(tmp=tmp_path)]
    _fails(argv, capsys, "--store")


def test_a_csv_path_that_cannot_be_written_is_refused_before_any_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    argv = ["sweep", _spec(tmp_path, GOOD), "--store", str(tmp_path / "s.sqlite")]
    _fails([*argv, "--csv", "/proc/optmech.csv"], capsys, "--csv")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("task: design-noise\ngrid: {resolution: [4, 6]}\n", "'privacy'"),
        ("task: staircase\ngrid: {cost: [abs]}\n", "'epsilon'"),
        ("task: design-noise\ngrid: {privacy: [eps=1]}\nfixed: {resolutoin: 4}\n", "'resolutoin'"),
    ],
)
def test_a_missing_or_misspelt_task_parameter_is_named_before_any_task(
    text: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    store = tmp_path / "s.sqlite"
    err = _fails(["sweep", _spec(tmp_path, text), "--store", str(store)], capsys, named)
    assert "spec" in err
    assert not store.exists()


# -- Ctrl-C and the unexpected -------------------------------------------------------------------
def test_ctrl_c_in_any_command_is_one_line_and_status_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import optmech.cli.staircase as staircase

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(staircase, "compute", interrupted)
    assert main(["staircase", "--epsilon", "1"]) == INTERRUPTED == 130
    err = capsys.readouterr().err
    assert err == "optmech staircase: interrupted: nothing was written\n"


def test_an_unexpected_error_is_one_line_and_the_traceback_is_on_request(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import optmech.cli.staircase as staircase

    def broken(*args: object) -> None:
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(staircase, "compute", broken)
    assert main(["staircase", "--epsilon", "1"]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "ZeroDivisionError: float division by zero" in err
    monkeypatch.setenv("OPTMECH_TRACEBACK", "1")
    with pytest.raises(ZeroDivisionError):
        main(["staircase", "--epsilon", "1"])


def test_a_usage_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["design", "--privacy", "eps=1", "--resolution", "many"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--resolution" in err and "optmech design --help" in err
