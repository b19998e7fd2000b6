"""The command line's census: bad command lines generated systematically (each command × each
option × bad values), and good ones that must work.

Each bad case is a command line that must be refused, and the option (or positional argument)
its error must name. The values are bad by construction: out of range, not numbers, non-finite
or beyond the floats, negative, empty fields, malformed specifications, sizes far beyond the
memory allowed, flags that cannot apply together, output paths that exist but cannot be
written, and a damaged store. Every valid part of a command line is small (a few cells, n = 3),
so a case that wrongly reached a solver would still finish, and the tests would see its exit
status. The good cases ([`good_invocations`][good_invocations]) are command lines users wrote
that must run: negative numbers without ``=``, unbiased local designs up to ε = 50; their
tables must fit 100 columns on a pipe.

``python tests/_cli_fuzz.py`` prints the census per subcommand: cases, refused by name,
tracebacks, "unexpected … (a bug)", flags silently ignored (a bad case that exits 0), other
wrong outcomes, and the good cases that failed (``--subprocess`` runs each case through
``python -m optmech``; ``--good`` runs the good cases too, which solve).
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

    @property
    def command(self) -> str:
        """The subcommand (``local``, ``design``, ...)."""
        return self.argv[0]

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


#: Bad lists of labels of ``local --inputs``.
BAD_LABELS = [
    "",
    ",",
    "0,,1",
    ",0,1",
    "0,1,",
    "a,b",
    "1",
    "0,0",
    "2,1",
    "nan,1",
    "0,inf",
    "-inf,0",
    "1e309,2",
    "-1e309,0",
    "0;1",
    "0 1",
    "0x1,2",
]
#: Bad priors of ``local`` (four labels).
BAD_LOCAL_PRIORS = [
    "",
    ",",
    "1,1,1,1e309",
    "-1,1,1,1",
    "1,1,1",
    "1,1,1,1,1",
    "0,0,0,0",
    "nan,1,1,1",
    "a,b,c,d",
    "1,,1,1",
    "inf,1,1,1",
    "binomial:0.3",
    "uniformly",
]
#: Bad output grids of ``local``.
BAD_OUTPUTS = [
    "",
    ",",
    "a:b:c",
    "0:1",
    "0:1:5:7",
    "1:0:5",
    "0:1:1",
    "0:1:x",
    "0:1:2.5",
    "-1e308:1e308:5",
    "nan:1:5",
    "0:inf:5",
    "0:1e309:5",
    "0,,1",
    "1e309",
    "0,1,nan",
    "0:1:10000000000",
    "0:1:-3",
]


def _local(tmp: Path) -> list[Case]:
    """``optmech local``: every option, its bad values and the flags that cannot apply
    together (at least 100 cases)."""
    base = ["local", "--inputs", "0,1,2,5", "--epsilon", "1"]
    cases = [Case(["local", "--inputs", v, "--epsilon", "1"], "--inputs") for v in BAD_LABELS]
    cases += [Case(["local", f"--inputs={v}", "--epsilon", "1"], "--inputs") for v in ("", ",")]
    cases += [Case([*base, "--prior", v], "--prior") for v in BAD_LOCAL_PRIORS]
    cases += [Case([*base, "--prior=-1,1,1,1"], "--prior")]
    cases += [
        Case(["local", "--inputs", "0,1,2,5", "--epsilon", v], "--epsilon")
        for v in [*BAD_POSITIVE, "51", "1e308", "1e309", "-1e309"]
    ]
    cases += [Case([*base, "--cost", v], "--cost") for v in BAD_COSTS]
    cases += [Case([*base, "--outputs", v], "--outputs") for v in BAD_OUTPUTS]
    cases += [Case([*base, f"--outputs={v}"], "--outputs") for v in ("-1e308:1e308:5", "")]
    cases += [Case([*base, "--max-risk", v], "--max-risk") for v in [*BAD_POSITIVE, "1e309"]]
    cases += [  # (inf is a valid budget of the local LP)
        Case([*base, "--max-memory-gb", v], "--max-memory-gb") for v in BAD_POSITIVE if v != "inf"
    ]
    cases += [Case([*base, "--objective", v], "--objective") for v in ["nope", "", "Bayes"]]
    cases += [Case([*base, "--solver", v], "--solver") for v in ["NOPE", ""]]
    cases += [Case([*base, "--plot", v], "--plot") for v in [*_unwritable(tmp), "m.notaformat"]]
    cases += [
        # flags that cannot apply together are refused by name, never ignored
        Case([*base, "--minimax", "--prior", "1,1,1,1"], "--prior"),
        Case([*base, "--minimax", "--prior", "uniform"], "--prior"),
        Case([*base, "--objective", "minimax", "--prior", "0.4,0.3,0.2,0.1"], "--prior"),
        Case([*base, "--minimax", "--objective", "bayesian"], "--minimax"),
        Case([*base, "--minimax", "--rr-on-bins"], "--rr-on-bins"),
        Case([*base, "--objective", "minimax", "--rr-on-bins"], "--rr-on-bins"),
        Case([*base, "--cost", "zero-one", "--rr-on-bins"], "--cost"),
        Case([*base, "--unbiased", "--outputs", "0,1,2,5"], "--outputs"),
        Case([*base, "--unbiased", "--outputs", "0:5:11"], "--outputs"),
        Case(["local", "--inputs", "0,1e308", "--epsilon", "1", "--unbiased"], "--inputs"),
        Case(["local", "--inputs", "-1e308,1e308", "--epsilon", "1"], "--inputs"),
        Case(["local", "--inputs", "0,1", "--outputs", "0:1:100000000"], "--epsilon"),
        Case(["local", "--epsilon", "1"], "--inputs"),
        Case(["local", "--inputs", "0,1"], "--epsilon"),
        Case([*base, "--bogus"], "--bogus"),
        Case([*base, "--inputs"], "--inputs"),
        Case(
            ["local", "--inputs", "0,1", "--epsilon", "1", "--outputs", "0:1:100000000"],
            "--max-memory-gb",
        ),
    ]
    return cases


def _matrix_files(tmp: Path) -> dict[str, str]:
    """Bad randomizer files of ``shuffle --matrix``."""
    import numpy as np

    texts = {
        "ragged.csv": "0.5,0.5\n1\n",
        "words.csv": "a,b\nc,d\n",
        "negative.csv": "1.5,-0.5\n0.5,0.5\n",
        "unnormalised.csv": "0.5,0.6\n0.5,0.5\n",
        "one-row.csv": "0.5,0.5\n",
        "infinite-eps0.csv": "1,0\n0.5,0.5\n",
        "nan.csv": "nan,1\n0.5,0.5\n",
        "empty.csv": "",
        "broken.npy": "\x93NUMPY garbage",
        "matrix.txt": "0.5,0.5\n0.5,0.5\n",
    }
    out = {}
    for name, text in texts.items():
        path = tmp / name
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        out[name] = str(path)
    np.save(tmp / "cube.npy", np.full((2, 2, 2), 0.5))
    np.save(tmp / "strings.npy", np.array([["a", "b"], ["c", "d"]]))
    np.save(tmp / "huge.npy", np.full((1000, 100), 0.01))
    out |= {name: str(tmp / name) for name in ("cube.npy", "strings.npy", "huge.npy")}
    out["missing.csv"] = str(tmp / "missing.csv")
    out["folder.csv"] = str(tmp)
    return out


def _shuffle(tmp: Path) -> list[Case]:
    """``optmech shuffle``: the guarantee of a randomizer and the design, every option's bad
    values and the options of one mode given in the other."""
    files = _matrix_files(tmp)
    users = ["--n", "100", "--delta", "1e-6"]
    grr = ["shuffle", "--grr", "3", "--eps0", "1", *users]
    design = ["shuffle", "--design", "--inputs", "0,1,2", "--epsilon", "1", *users]
    cases = [
        Case(["shuffle", "--grr", "3", "--eps0", "1", "--n", v, "--delta", "1e-6"], "--n")
        for v in [*BAD_COUNT, "1", *HUGE_COUNT]
    ]
    cases += [
        Case(["shuffle", "--grr", "3", "--eps0", "1", "--n", "100", "--delta", v], "--delta")
        for v in ["0", "1", "2", "-0.5", "nan", "inf", "abc", ""]
    ]
    cases += [
        Case(["shuffle", "--grr", v, "--eps0", "1", *users], "--grr")
        for v in ["1", "0", "-1", "abc", "", "2.5", "301", "1000000000"]
    ]
    cases += [
        Case(["shuffle", "--grr", "3", "--eps0", v, *users], "--eps0")
        for v in ["0", "-1", "nan", "inf", "abc", "", "51", "1e309"]
    ]
    cases += [Case([*grr, "--method", v], "--method") for v in [*BAD_CHOICE, "exact"]]
    cases += [Case(["shuffle", "--matrix", f, *users], "--matrix") for f in files.values()]
    cases += [
        Case(["shuffle", "--matrix", files["matrix.txt"], "--grr", "3", *users], "--matrix"),
        Case(["shuffle", "--matrix", files["cube.npy"], "--eps0", "1", *users], "--eps0"),
        Case(["shuffle", "--eps0", "1", *users], "--eps0"),
        Case(["shuffle", *users], "--matrix"),
        Case(["shuffle", "--grr", "3", *users], "--eps0"),
        Case(["shuffle", "--grr", "3", "--eps0", "1", "--delta", "1e-6"], "--n"),
        Case(["shuffle", "--grr", "3", "--eps0", "1", "--n", "100"], "--delta"),
        Case([*design, "--grr", "3"], "--grr"),
        Case([*design, "--eps0", "1"], "--eps0"),
        Case([*design, "--method", "auto"], "--method"),
        Case([*design, "--matrix", files["matrix.txt"]], "--matrix"),
        Case([*grr, "--inputs", "0,1,2"], "--inputs"),
        Case([*grr, "--epsilon", "1"], "--epsilon"),
        Case([*grr, "--thetas", "0,1"], "--thetas"),
        Case([*grr, "--prior", "uniform"], "--prior"),
        Case([*grr, "--cost", "abs"], "--cost"),
        Case([*grr, "--objective", "minimax"], "--objective"),
        Case([*grr, "--outputs", "0,1"], "--outputs"),
        Case([*grr, "--solver", "HIGHS"], "--solver"),
        Case([*grr, "--max-memory-gb", "2"], "--max-memory-gb"),
        Case([*grr, "--bogus"], "--bogus"),
    ]
    cases += [
        Case(["shuffle", "--design", "--inputs", v, "--epsilon", "1", *users], "--inputs")
        for v in ["", ",", "0,,1", "a,b", "1", "0,0", "2,1", "nan,1", "1e309,2"]
    ]
    cases += [
        Case(["shuffle", "--design", "--inputs", "0,1,2", "--epsilon", v, *users], "--epsilon")
        for v in ["0", "-1", "nan", "inf", "abc", "", "51"]
    ]
    cases += [Case([*design, "--prior", v], "--prior") for v in ["", "1,1", "-1,1,1", "0,0,0"]]
    cases += [Case([*design, "--cost", v], "--cost") for v in BAD_COSTS]
    cases += [Case([*design, "--outputs", v], "--outputs") for v in ["", "a:b:c", "1:0:5", "0,,1"]]
    cases += [
        Case([*design, "--thetas", v], "--thetas") for v in ["", ",", "a", "1.5", "-0.1", "nan"]
    ]
    cases += [Case([*design, "--objective", v], "--objective") for v in BAD_CHOICE]
    cases += [Case([*design, "--solver", v], "--solver") for v in ["NOPE", ""]]
    cases += [
        Case([*design, "--max-memory-gb", v], "--max-memory-gb") for v in BAD_POSITIVE if v != "inf"
    ]
    cases += [
        Case([*design, "--objective", "minimax", "--prior", "1,1,1"], "--prior"),
        Case(["shuffle", "--design", "--epsilon", "1", *users], "--inputs"),
        Case(["shuffle", "--design", "--inputs", "0,1,2", *users], "--epsilon"),
        Case(
            [
                "shuffle",
                "--design",
                "--inputs",
                ",".join(map(str, range(400))),
                "--epsilon",
                "1",
                *users,
            ],
            "--inputs",
        ),
    ]
    return cases


def _regressions(tmp: Path) -> list[Case]:
    """Bad command lines users met, each once ugly or wrong: now refused by name."""
    return [
        Case(["local", "--inputs", "", "--epsilon", "1"], "--inputs"),
        Case(["local", "--inputs", ",", "--epsilon", "1"], "--inputs"),
        Case(["local", "--inputs", "0,,1", "--epsilon", "1"], "--inputs"),
        Case(
            ["local", "--inputs", "0,1,2,5", "--epsilon", "1", "--outputs=-1e308:1e308:5"],
            "--outputs",
        ),
        Case(
            ["local", "--inputs", "0,1,2,5", "--epsilon", "1", "--prior", "1,1,1,1e309"], "--prior"
        ),
        Case(["local", "--inputs", "0,1,2,5", "--epsilon", "1", "--prior", "-1,1,1,1"], "--prior"),
        Case(
            ["local", "--inputs", "0,1,2,5", "--epsilon", "1", "--minimax", "--prior", "1,1,1,1"],
            "--prior",
        ),
        Case(
            [
                "design",
                "--privacy",
                "eps=1",
                "--resolution",
                "4",
                "--periods",
                "2",
                "--tail",
                "-1,0.2",
            ],
            "--tail",
        ),
        Case(
            [
                "design",
                "--privacy",
                "eps=1",
                "--resolution",
                "4",
                "--periods",
                "2",
                "--cost",
                "power:1e9",
            ],
            "--cost",
        ),
        Case(
            ["design", "--privacy", "eps=1,delta=1e-3", "--resolution", "4", "--periods", "2"],
            "--periods",
        ),
        Case(["experiment", "--list", "nosuch"], "name"),
        Case(["sweep", *_damaged_store(tmp)], "--store"),
    ]


def _beyond_the_floats() -> list[Case]:
    """Numbers beyond the floats (``1e309`` reads as inf) and negative values written without
    ``=``, for the options of the other commands: refused by the option's name."""
    design = ["design", "--privacy", "eps=1", "--resolution", "4", "--periods", "2"]
    user = ["user", "--n", "3", "--epsilon", "1"]
    return [
        Case(["staircase", "--epsilon", "1e309"], "--epsilon"),
        Case(["staircase", "--epsilon", "1", "--sensitivity", "1e309"], "--sensitivity"),
        Case(["staircase", "--epsilon", "1", "--sensitivity", "-1e-3"], "--sensitivity"),
        Case([*design, "--sensitivity", "1e309"], "--sensitivity"),
        Case([*design, "--max-memory-gb", "1e309"], "--max-memory-gb"),
        Case([*design, "--tail", "1e309,0.2"], "--tail"),
        Case([*design, "--tail", "1,-0.2"], "--tail"),
        Case([*design, "--resolution", "-4"], "--resolution"),
        Case(["design", "--privacy", "eps=1e309"], "--privacy"),
        Case(["user", "--n", "3", "--epsilon", "1e309"], "--epsilon"),
        Case(["user", "--n", "-3", "--epsilon", "1"], "--n"),
        Case([*user, "--max-risk", "1e309"], "--max-risk"),
        Case([*user, "--max-risk", "-1"], "--max-risk"),
        Case(["experiment", "gamma-star", "--quick", "--seed", "-3"], "--seed"),
    ]


def _damaged_store(tmp: Path) -> list[str]:
    """``SPEC --store FILE`` with FILE a real sweep store whose results page is overwritten
    (its bytes are kept beside it, ``FILE.bytes``, to show the refusal leaves it untouched)."""
    from optmech.sweep.store import ResultStore

    tmp.mkdir(parents=True, exist_ok=True)
    spec = tmp / "damaged.yaml"
    spec.write_text("name: damaged\ntask: staircase\ngrid: {epsilon: [1, 2]}\n", "utf-8")
    path = tmp / "damaged.sqlite"
    if not path.exists():
        with ResultStore(path) as store:
            for k in range(20):
                store.record(
                    f"k{k}",
                    sweep="damaged",
                    task="staircase",
                    params={"epsilon": k},
                    result={"value": float(k)},
                    seconds=0.0,
                )
        data = bytearray(path.read_bytes())
        page = 4096  # page 2, the results table's root (SQLite's default page size)
        data[page : page + 256] = b"\xde\xad\xbe\xef" * 64
        path.write_bytes(bytes(data))
        (tmp / "damaged.sqlite.bytes").write_bytes(bytes(data))
    return [str(spec), "--store", str(path)]


def good_invocations() -> list[list[str]]:
    """Command lines that must run (exit 0, nothing on standard error, tables within 100
    columns on a pipe): negative numbers without ``=``, unbiased local designs at every ε up
    to 50, the defaults of ``local`` (the library's)."""
    labels = ["--inputs", "0,1,2,5"]
    lines = [
        ["local", "--inputs", "-3,-1,0,2", "--epsilon", "1"],
        ["local", "--inputs", "-3,-1,0,2", "--epsilon", "1", "--outputs", "-5:4:10"],
        ["local", *labels, "--epsilon", "1", "--cost", "squared", "--unbiased"],
        ["local", *labels, "--epsilon", "1", "--prior", "4,3,2,1", "--rr-on-bins"],
        ["local", *labels, "--epsilon", "2", "--objective", "minimax", "--cost", "abs"],
        ["local", *labels, "--epsilon", "1", "--prior", "1e308,1e308,1e308,1e308"],
        ["design", "--privacy", "eps=2", "--resolution", "4", "--periods", "2", "--tail", "1,0.2"],
        ["user", "--n", "20", "--epsilon", "3"],
        ["shuffle", "--grr", "4", "--eps0", "2", "--n", "10000", "--delta", "1e-6"],
        [
            *["shuffle", "--design", "--inputs", "-1,0,2", "--epsilon", "1", "--n", "500"],
            *["--delta", "1e-6", "--thetas", "0,1"],
        ],
        ["experiment", "--list"],
        ["experiment", "--list", "gamma-star"],
    ]
    lines += [
        ["local", *labels, "--unbiased", "--epsilon", eps]
        for eps in ("17", "18", "19", "20", "21", "22", "25", "30", "40", "50")
    ]
    return lines


def bad_invocations(tmp: Path) -> list[Case]:
    """Every bad command line, its files written under ``tmp``."""
    folders = {}
    for name in (
        "design",
        "user",
        "local",
        "shuffle",
        "verify",
        "sweep",
        "experiment",
        "regressions",
    ):
        folders[name] = tmp / name
        folders[name].mkdir(parents=True, exist_ok=True)
    return [
        *_staircase(),
        *_design(folders["design"]),
        *_user(folders["user"]),
        *_local(folders["local"]),
        *_shuffle(folders["shuffle"]),
        *_verify(folders["verify"]),
        *_sweep(folders["sweep"]),
        *_experiment(folders["experiment"]),
        *_regressions(folders["regressions"]),
        *_beyond_the_floats(),
    ]


#: The census's columns, in the order the script prints them.
COLUMNS = ("cases", "refused by name", "traceback", "(a bug)", "ignored", "other", "good failed")


def outcome(case: Case, status: int | str, err: str) -> str:
    """How a bad command line failed: ``refused by name`` (exit 2, one line naming the option,
    no traceback), ``traceback``, ``(a bug)`` (an unexpected error reported as one),
    ``ignored`` (exit 0: a bad value or a flag that cannot apply was silently ignored) or
    ``other`` (another exit status, no option named, several lines, still running)."""
    lines = [line for line in err.splitlines() if line.strip()]
    if "Traceback" in err:
        return "traceback"
    if "(a bug" in err:
        return "(a bug)"
    if status == 0:
        return "ignored"
    if status == 2 and len(lines) == 1 and case.named_in(err):
        return "refused by name"
    return "other"


def good_failure(status: int | str, out: str, err: str) -> str | None:
    """Why a good command line did not work: an exit status, anything on standard error, or a
    line of its output wider than 100 columns (on a pipe); None when it worked."""
    if status != 0:
        return f"exit status {status}: {err.strip()[-200:]}"
    if err.strip():
        return f"standard error: {err.strip()[-200:]}"
    wide = max((len(line) for line in out.splitlines()), default=0)
    if wide > 100:
        return f"a line of {wide} columns"
    return None


def run_in_process(argv: list[str]) -> tuple[int, str, str]:
    """``optmech argv`` in this process: (exit status, standard output, standard error); an
    exception that escapes ``main`` is its traceback on standard error."""
    import contextlib
    import io
    import traceback
    import warnings

    from optmech.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            try:
                status = main(argv)
            except SystemExit as exc:  # the parser's own errors
                status = int(exc.code or 0)
            except BaseException:
                traceback.print_exc()
                status = 1
    return status, out.getvalue(), err.getvalue()


def run_console(
    argv: list[str], cwd: str | Path, timeout: float, **options: Any
) -> subprocess.CompletedProcess[str]:
    """``python -m optmech argv`` in a child process run in ``cwd``, as a user runs the console
    command, its output captured as text (``options`` go to ``subprocess.run``)."""
    command = [sys.executable, "-m", "optmech", *argv]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=cwd, timeout=timeout, **options
    )


def census(
    tmp: Path, *, subprocess_: bool = False, good: bool = False, timeout: float = 90.0
) -> dict[str, dict[str, int]]:
    """The counts of [`COLUMNS`][COLUMNS] per subcommand, every case run in this process (or,
    with ``subprocess_``, through ``python -m optmech`` in a child limited to ``timeout``
    seconds); ``good`` runs the good command lines too."""
    import collections
    import os

    os.environ.pop("COLUMNS", None)  # a pipe's width, whatever the shell exported
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)

    def run(argv: list[str]) -> tuple[int | str, str, str]:
        if not subprocess_:
            return run_in_process(argv)
        try:
            done = run_console(argv, tmp, timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "timeout", "", ""
        return done.returncode, done.stdout, done.stderr

    for case in bad_invocations(tmp / "files"):
        status, _, err = run(case.argv)
        counts[case.command]["cases"] += 1
        counts[case.command][outcome(case, status, err)] += 1
    if good:
        for argv in good_invocations():
            status, out, err = run(argv)
            if good_failure(status, out, err) is not None:
                counts[argv[0]]["good failed"] += 1
    return {name: {column: counts[name][column] for column in COLUMNS} for name in counts}


def print_census(table: dict[str, dict[str, int]]) -> None:
    """The census as a table, one row per subcommand and their total (within 100 columns)."""
    totals = {column: sum(row[column] for row in table.values()) for column in COLUMNS}
    widths = [max(len(c), 5) for c in COLUMNS]
    print(f"{'command':<11}" + "".join(f"  {c:>{w}}" for c, w in zip(COLUMNS, widths, strict=True)))
    for name, row in [*table.items(), ("total", totals)]:
        print(
            f"{name:<11}"
            + "".join(f"  {row[c]:>{w}}" for c, w in zip(COLUMNS, widths, strict=True))
        )


if __name__ == "__main__":  # python tests/_cli_fuzz.py [--subprocess] [--good]
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        os_cwd = Path.cwd()
        import os

        os.chdir(folder)  # a default output (a sweep's store) lands there
        try:
            print_census(
                census(
                    Path(folder), subprocess_="--subprocess" in sys.argv, good="--good" in sys.argv
                )
            )
        finally:
            os.chdir(os_cwd)
