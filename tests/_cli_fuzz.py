"""Bad command lines, generated systematically: each command × each option × bad values.

Each case is a command line that must be refused, and the option (or positional argument) its
error must name. The values are bad by construction: out of range, not numbers, non-finite,
malformed specifications, sizes far beyond the memory allowed, and output paths that exist
but cannot be written. Every valid part of a command line is small (a few cells, n = 3), so a
case that wrongly reached a solver would still finish, and the tests would see its exit
status.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple


class WorkStarted(Exception):
    """Raised where the work would begin, to show that a refusal came first."""


class Case(NamedTuple):
    """One bad command line and the option its error must name (a positional argument's name,
    ``spec`` or ``name``, in any case)."""

    argv: list[str]
    flag: str

    def named_in(self, message: str) -> bool:
        """Whether ``message`` names the option."""
        if self.flag.startswith("--"):
            return self.flag in message
        return self.flag.lower() in message.lower()


#: Bad values of a real option that must be positive and finite.
BAD_POSITIVE = ["-1", "0", "nan", "inf", "-inf", "abc", ""]
#: Bad values of an integer option that must be at least 1.
BAD_COUNT = ["-1", "0", "abc", "", "1.5", "nan"]
#: Bad values of an option that chooses among names.
BAD_CHOICE = ["nope", "", "ABC"]
#: Sizes far beyond any memory allowed.
HUGE_COUNT = ["1000000000", "10000000000000"]
#: Malformed cost specifications.
BAD_COSTS = ["nope", "", "power:", "power:abc", "power:-1", "power:nan", "asym:1", "zero-one:x"]
#: Malformed privacy specifications.
BAD_PRIVACY = [
    "",
    "eps",
    "eps=",
    "eps=abc",
    "eps=-1",
    "eps=nan",
    "eps=inf",
    "eps=1e308",
    "delta=0",
    "delta=1",
    "delta=-0.5",
    "eps=1,delta=2",
    "zcdp=-1",
    "gdp=0",
    "rdp=0.5:1",
    "rdp=2",
    "profile=",
    "profile=1:abc",
    "foo=1",
]
#: Guarantees the designer cannot serve today (see ``optmech.cli._limits``).
UNSERVABLE_PRIVACY = [
    ["--privacy", "gdp=100", "--integer"],
    ["--privacy", "zcdp=1000", "--integer"],
    ["--privacy", "delta=1e-9"],
    ["--privacy", "eps=1,delta=1e-300", "--unbiased"],
    ["--privacy", "gdp=1000"],
    ["--privacy", "zcdp=1e6"],
]
#: Malformed neighbour graphs of ``user``.
BAD_GRAPHS = ["", "nope", "grid:", "grid:axb", "grid:1x1", "grid:0x3", "king:x", "hypercube:0"]
HUGE_GRAPHS = ["grid:100000x100000", "hypercube:60", "king:5000x5000", "sensitivity:0"]


def _unwritable(tmp: Path) -> list[str]:
    """Output paths that cannot be written: in a missing folder, a folder itself, a file under
    /proc (exists or not; the kernel refuses both), and a file under a read-only file."""
    blocker = tmp / "a-file"
    blocker.write_text("x", encoding="utf-8")
    return [
        str(tmp / "missing" / "deeper" / "out.x"),
        str(tmp),
        "/proc/optmech-out.x",
        "/proc/self/status",
        str(blocker / "out.x"),
        "",
    ]


def _files(tmp: Path) -> dict[str, str]:
    """Bad input files of ``user``: loss matrices and priors."""
    contents = {
        "ragged.json": "[[0, 1, 2], [1, 0]]",
        "strings.json": '[["a", "b"], ["c", "d"]]',
        "negative.json": "[[0, -1], [1, 0]]",
        "nonfinite.json": "[[0, 1e999], [1, 0]]",
        "notjson.json": "[[0, 1",
        "scalar.json": "3",
        "empty.json": "[]",
        "huge-prior.json": "[1e308, 1e308, 1e308, 1e308]",
        "inf-prior.json": "[1e999, 1, 1, 1]",
        "neg-prior.json": "[-0.5, 0.5, 0.5, 0.5]",
        "zero-prior.json": "[0, 0, 0, 0]",
        "object-prior.json": '{"a": 1}',
        "nested-prior.json": "[[0.5], [0.5]]",
        "short-prior.json": "[0.5, 0.5]",
        "bin.json": "\udcff\udcfe",
        "bigint.json": "[[0, 1" + "0" * 400 + "], [1, 0]]",
        "bigint-prior.json": "[1" + "0" * 400 + ", 1, 1, 1]",
    }
    out = {}
    for name, text in contents.items():
        path = tmp / name
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        out[name] = str(path)
    return out


def _sweep_specs(tmp: Path) -> dict[str, str]:
    """Bad sweep specs (each refused before any task runs)."""
    specs = {
        "missing-param.yaml": "task: design-noise\ngrid: {resolution: [4, 6]}\n",
        "missing-eps.yaml": "task: staircase\ngrid: {cost: [abs]}\n",
        "misspelt.yaml": "task: staircase\ngrid: {epsilonn: [1]}\n",
        "misspelt-option.yaml": "task: design-noise\ngrid: {privacy: [eps=1]}\n"
        "fixed: {resolutoin: 4}\n",
        "unknown-task.yaml": "task: nope\ngrid: {x: [1]}\n",
        "bad-module.yaml": "task: no.such.module:fn\ngrid: {x: [1]}\n",
        "empty-grid.yaml": "task: staircase\ngrid: {}\n",
        "not-yaml.yaml": "task: [staircase\n",
        "list.yaml": "- 1\n- 2\n",
        "nan.json": json.dumps({"task": "staircase", "grid": {"epsilon": [1]}})[:-1]
        + ', "fixed": {"sensitivity": NaN}}',
        "binary.yaml": "\udcff\udcfe\udc80",
    }
    out = {}
    for name, text in specs.items():
        path = tmp / name
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        out[name] = str(path)
    out["folder"] = str(tmp)
    out["missing"] = str(tmp / "no-such-spec.yaml")
    return out


def _staircase() -> list[Case]:
    base = ["staircase", "--epsilon", "1"]
    cases = [
        Case(["staircase", "--epsilon", v], "--epsilon")
        for v in [*BAD_POSITIVE, "1e308", "1e-300", "701"]
    ]
    cases += [Case([*base, "--sensitivity", v], "--sensitivity") for v in BAD_POSITIVE]
    cases += [Case([*base, "--cost", v], "--cost") for v in [*BAD_COSTS, "power:1000"]]
    cases += [Case(["staircase"], "--epsilon"), Case([*base, "--bogus"], "--bogus")]
    return cases


def _design(tmp: Path) -> list[Case]:
    base = ["design", "--privacy", "eps=1", "--resolution", "4", "--periods", "2"]
    cases = [
        Case(["design", "--privacy", v, "--resolution", "4"], "--privacy") for v in BAD_PRIVACY
    ]
    cases += [Case(["design", *v], "--privacy") for v in UNSERVABLE_PRIVACY]
    cases += [Case([*base, "--sensitivity", v], "--sensitivity") for v in BAD_POSITIVE]
    cases += [Case([*base, "--cost", v], "--cost") for v in BAD_COSTS]
    cases += [Case([*base, "--resolution", v], "--resolution") for v in BAD_COUNT]
    cases += [Case([*base, "--periods", v], "--periods") for v in BAD_COUNT]
    cases += [Case([*base, "--resolution", v], "--max-memory-gb") for v in HUGE_COUNT]
    cases += [Case([*base, "--periods", v], "--max-memory-gb") for v in HUGE_COUNT]
    cases += [Case([*base, "--max-memory-gb", v], "--max-memory-gb") for v in BAD_POSITIVE]
    cases += [Case([*base, "--grid", v], "--grid") for v in BAD_CHOICE]
    cases += [Case([*base, "--dimension", v], "--dimension") for v in ["3", "0", "x"]]
    cases += [Case([*base, "--sensitivity-norm", v], "--sensitivity-norm") for v in BAD_CHOICE]
    cases += [Case([*base, "--solver", v], "--solver") for v in ["NOPE", ""]]
    cases += [Case([*base, "--plot", v], "--plot") for v in [*_unwritable(tmp), "d.notaformat"]]
    cases += [
        Case([*base, "--integer", "--sensitivity", "1.5"], "--sensitivity"),
        Case([*base, "--sensitivity-norm", "l2"], "--sensitivity-norm"),
        Case([*base, "--dimension", "2"], "--sensitivity-norm"),
        Case([*base, "--dimension", "2", "--sensitivity-norm", "l2", "--integer"], "--integer"),
        Case(
            ["design", "--privacy", "eps=1", "--grid", "graded", "--periods", "10000000"],
            "--max-memory-gb",
        ),
        Case(["design", "--resolution", "4"], "--privacy"),
    ]
    # A 2-D grid too fine or too wide is refused by the option that sizes it.
    plane = ["design", "--privacy", "eps=1", "--dimension", "2", "--sensitivity-norm", "l1"]
    cases += [Case([*plane, size, "100000"], size) for size in ("--resolution", "--periods")]
    return cases


def _user(tmp: Path) -> list[Case]:
    files = _files(tmp)
    base = ["user", "--n", "3", "--epsilon", "1"]
    cases = [Case(["user", "--n", v, "--epsilon", "1"], "--n") for v in BAD_COUNT]
    cases += [Case(["user", "--n", v, "--epsilon", "1"], "--max-memory-gb") for v in HUGE_COUNT]
    cases += [
        Case(["user", "--n", "3", "--epsilon", v], "--epsilon")
        for v in [*BAD_POSITIVE, "1e308", "51"]
    ]
    cases += [Case([*base, "--cost", v], "--cost") for v in BAD_COSTS]
    for name in (
        "ragged",
        "strings",
        "negative",
        "nonfinite",
        "notjson",
        "scalar",
        "empty",
        "bin",
        "bigint",
    ):
        cases.append(Case([*base, "--cost", files[f"{name}.json"]], "--cost"))
    cases.append(Case([*base, "--cost", str(tmp / "missing.json")], "--cost"))
    for name in (
        "huge-prior",
        "inf-prior",
        "neg-prior",
        "zero-prior",
        "object-prior",
        "nested-prior",
        "short-prior",
        "notjson",
        "bin",
        "bigint-prior",
    ):
        cases.append(Case([*base, "--prior", files[f"{name}.json"]], "--prior"))
    cases += [Case([*base, "--prior", files["zero-prior.json"], "--normalize-prior"], "--prior")]
    cases += [
        Case([*base, "--prior", v], "--prior")
        for v in ["", "nope", "binomial:", "binomial:2", "binomial:nan", "binomial:x"]
    ]
    cases += [Case([*base, "--graph", v], "--graph") for v in BAD_GRAPHS]
    cases += [Case(["user", "--epsilon", "1", "--graph", v], "--graph") for v in HUGE_GRAPHS[:3]]
    cases += [Case([*base, "--graph", HUGE_GRAPHS[3]], "--graph")]
    cases += [
        Case([*base, "--side-info", v, "--minimax"], "--side-info")
        for v in ["a,b", "0,99", "-1", ","]
    ]
    cases += [  # (inf is a valid budget of the user LPs)
        Case([*base, "--max-memory-gb", v], "--max-memory-gb") for v in BAD_POSITIVE if v != "inf"
    ]
    cases += [Case([*base, "--solver", v], "--solver") for v in ["NOPE", ""]]
    cases += [Case([*base, "--plot", v], "--plot") for v in [*_unwritable(tmp), "m.notaformat"]]
    cases += [
        Case([*base, "--minimax", "--prior", "binomial:0.3"], "--prior"),
        Case([*base, "--minimax", "--prior", "uniform"], "--prior"),
        Case([*base, "--minimax", "--normalize-prior"], "--normalize-prior"),
        Case(["user", "--n", "10", "--epsilon", "1", "--graph", "grid:2x2"], "--n"),
        Case(["user", "--n", "10", "--epsilon", "1", "--graph", "hypercube:2"], "--n"),
        Case([*base, "--side-info", "0,1"], "--side-info"),
        Case(["user", "--epsilon", "1"], "--n"),
    ]
    return cases


def _verify(tmp: Path) -> list[Case]:
    cases = [Case(["verify", "--group", v], "--group") for v in [*BAD_CHOICE, "exact"]]
    cases += [Case(["verify", "--check", v], "--check") for v in ["nope", ""]]
    # (a report's missing folders are created: not a bad path for --report)
    cases += [Case(["verify", "--quick", "--report", v], "--report") for v in _unwritable(tmp)[1:]]
    return cases


def _sweep(tmp: Path) -> list[Case]:
    specs = _sweep_specs(tmp)
    good = tmp / "good.yaml"
    good.write_text("name: good\ntask: staircase\ngrid: {epsilon: [1]}\n", encoding="utf-8")
    store = str(tmp / "s.sqlite")
    notdb = tmp / "not-a-database.sqlite"
    notdb.write_text("hello, I am text\n" * 10, encoding="utf-8")
    cases = [Case(["sweep", path, "--store", store], "spec") for path in specs.values()]
    cases += [  # (a store's missing folders are created: not a bad path for --store)
        Case(["sweep", str(good), "--store", v], "--store")
        for v in [str(notdb), *_unwritable(tmp)[1:]]
    ]
    cases += [
        Case(["sweep", str(good), "--store", store, "--csv", v], "--csv") for v in _unwritable(tmp)
    ]
    cases += [
        Case(["sweep", str(good), "--store", store, "--workers", v], "--workers") for v in BAD_COUNT
    ]
    cases += [
        Case(["sweep", str(good), "--store", store, "--scheduler", v], "--scheduler")
        for v in ["", "not a url"]
    ]
    return cases


def _experiment(tmp: Path) -> list[Case]:
    cases = [Case(["experiment", v], "name") for v in ["nope", ""]]
    cases += [Case(["experiment"], "name")]
    cases += [
        Case(["experiment", "gamma-star", "--quick", "--seed", v], "--seed")
        for v in ["-1", "abc", ""]
    ]
    cases += [
        Case(["experiment", "gamma-star", "--quick", "--out", v], "--out")
        for v in _unwritable(tmp)[2:]  # --out is a folder, created if missing
    ]
    return cases


def bad_invocations(tmp: Path) -> list[Case]:
    """Every bad command line, its files written under ``tmp``."""
    folders = {}
    for name in ("design", "user", "verify", "sweep", "experiment"):
        folders[name] = tmp / name
        folders[name].mkdir(parents=True, exist_ok=True)
    return [
        *_staircase(),
        *_design(folders["design"]),
        *_user(folders["user"]),
        *_verify(folders["verify"]),
        *_sweep(folders["sweep"]),
        *_experiment(folders["experiment"]),
    ]


def _classify(case: Case, status: int | str, err: str) -> str:
    """How a bad command line failed: ``clean`` (exit 2, one line naming the option, no
    traceback) or what is wrong with it."""
    lines = [line for line in err.splitlines() if line.strip()]
    if status == "timeout":
        return "still running after the time allowed"
    if "Traceback" in err:
        return "traceback"
    if status == 0:
        return "accepted (exit status 0)"
    if status != 2:
        return f"exit status {status}"
    if not case.named_in(err):
        return "names no option"
    return "clean" if len(lines) == 1 else "several lines"


def run_console(
    argv: list[str], cwd: str | Path, timeout: float, **options: Any
) -> subprocess.CompletedProcess[str]:
    """``python -m optmech argv`` in a child process run in ``cwd``, as a user runs the console
    command, its output captured as text (``options`` go to ``subprocess.run``)."""
    command = [sys.executable, "-m", "optmech", *argv]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=cwd, timeout=timeout, **options
    )


def measure(timeout: float = 90.0, memory_gb: float = 4.0) -> dict[str, int]:
    """Run every case through ``python -m optmech`` (the optmech on ``sys.path``; put another
    checkout first on ``PYTHONPATH`` to measure it), each in its own process limited to
    ``memory_gb`` of address space and ``timeout`` seconds; count the outcomes."""
    import collections
    import resource
    import tempfile

    def limits() -> None:
        size = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    counts: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for case in bad_invocations(Path(tmp) / "files"):
            try:
                out = run_console(
                    case.argv, tmp, timeout, preexec_fn=limits, stdin=subprocess.DEVNULL
                )
                status: int | str = out.returncode
                err = out.stderr
            except subprocess.TimeoutExpired:
                status, err = "timeout", ""
            counts[_classify(case, status, err)] += 1
    return dict(counts.most_common())


if __name__ == "__main__":  # python tests/_cli_fuzz.py: the outcomes of every case
    for outcome, count in measure().items():
        print(f"{count:5d}  {outcome}")
