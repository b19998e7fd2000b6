"""The closed-form path is light: ``import optmech`` and the staircase's formulas, costs and
sampler load no LP modelling, solver, graph or plotting library (they are imported on first use
of an LP entry point). Checked in a fresh interpreter, where nothing else has loaded them."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import optmech

HEAVY = ("cvxpy", "networkx", "matplotlib", "clarabel", "highspy")

CLOSED_FORM_PATH = """
import sys
import optmech
s = optmech.Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost=optmech.costs.Absolute())
s.expected_cost("abs")
s.rvs(10, rng=0)
optmech.Geometric(epsilon=1.0).pmf([0, 1])
optmech.PureDP(1.0)
print(",".join(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def test_closed_form_path_loads_no_lp_graph_or_plot_library() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CLOSED_FORM_PATH.format(heavy=HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == ""


def test_every_public_name_resolves_and_is_listed_in_dir() -> None:
    for name in optmech.__all__:
        assert getattr(optmech, name) is not None
        assert name in dir(optmech)


def test_unknown_name_raises_attribute_error() -> None:
    try:
        optmech.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


@pytest.mark.parametrize("package", ["optmech", "optmech.certify", "optmech.mechanisms"])
def test_the_stub_names_what_the_package_serves(package: str) -> None:
    """Each name the type stub imports (``X as X``: re-exported for type checkers) is in
    ``__all__`` and resolves at run time to the very object the stub's import names."""
    module = importlib.import_module(package)
    stub = Path(module.__file__).with_suffix(".pyi")
    names = []
    for node in ast.parse(stub.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.ImportFrom):
            continue
        assert node.level == 1, ast.unparse(node)
        for alias in node.names:
            assert alias.asname == alias.name, ast.unparse(node)
            names.append(alias.name)
            source = f"{package}.{node.module}" if node.module else f"{package}.{alias.name}"
            want = importlib.import_module(source)
            if node.module:
                want = getattr(want, alias.name)
            assert getattr(module, alias.name) is want, alias.name
    assert sorted(set(module.__all__) - {"__version__"}) == sorted(names)


CLI_PATH = """
import sys
from optmech.cli import main
for argv in {argvs!r}:
    try:
        main(argv)
    except SystemExit:
        pass
print(",".join(sorted(m for m in {heavy!r} if m in sys.modules)), file=sys.stderr)
"""


def test_the_cli_help_and_closed_forms_load_no_lp_graph_or_plot_library() -> None:
    argvs = [
        ["--help"],
        ["staircase", "--epsilon", "1", "--cost", "abs"],
        *([name, "--help"] for name in ("staircase", "design", "user", "verify", "sweep")),
        ["experiment", "--list"],
    ]
    out = subprocess.run(
        [sys.executable, "-c", CLI_PATH.format(argvs=argvs, heavy=HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stderr.splitlines()[-1] == ""  # the names of the heavy modules loaded: none


SUBPACKAGES_PATH = """
import sys
import optmech
names = [optmech.accounting.__name__, optmech.experiments.__name__, optmech.interop.__name__]
print(",".join(names))
print(",".join(m for m in ("cvxpy", "highspy", "clarabel") if m in sys.modules))
"""


def test_accounting_experiments_and_interop_are_attributes_loaded_on_first_use() -> None:
    """``import optmech`` loads none of them; reading one loads it, still without cvxpy."""
    probe = "import sys, optmech\nprint([m for m in sys.modules if m.startswith('optmech.')])"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    for name in ("accounting", "experiments", "interop"):
        assert f"optmech.{name}'" not in loaded
    out = subprocess.run(
        [sys.executable, "-c", SUBPACKAGES_PATH], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "optmech.accounting,optmech.experiments,optmech.interop"
    assert out[1] == ""


def test_dir_lists_the_public_names_only() -> None:
    listed = dir(optmech)
    assert listed == sorted(optmech.__all__)
    for helper in ("Any", "importlib", "annotations", "TYPE_CHECKING", "_EXPORTS"):
        assert helper not in listed
    assert {"accounting", "experiments", "interop", "Staircase", "__version__"} <= set(listed)


SCIPY_HEAVY = ("scipy.integrate", "scipy.optimize", "scipy.special")

SCIPY_PATH = """
import sys
import optmech
from optmech.cli import main
s = optmech.Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost=optmech.costs.Absolute())
s.expected_cost("abs")
optmech.Laplace(epsilon=1.0).expected_cost("abs")
for argv in {argvs!r}:
    main(argv)
print(",".join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)
"""


def test_the_closed_form_command_loads_no_scipy_quadrature_special_or_optimize() -> None:
    """``optmech staircase`` (|e| and e²) and the staircase's and Laplace's exact costs for
    power costs use closed forms only: SciPy's quadrature, special functions and optimisers
    (``optmech._scipy``, imported on first use) stay unloaded."""
    argvs = [["staircase", "--epsilon", "1"], ["staircase", "--epsilon", "2", "--cost", "abs"]]
    out = subprocess.run(
        [sys.executable, "-c", SCIPY_PATH.format(argvs=argvs, heavy=SCIPY_HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "staircase cost" in out.stdout
    assert out.stderr.splitlines()[-1] == ""  # the names of those loaded: none


def test_scipy_subpackages_load_on_first_use() -> None:
    """The stand-ins of ``optmech._scipy`` import their subpackage on the first attribute read
    and then give SciPy's own objects."""
    probe = (
        "import sys\n"
        "from optmech._scipy import integrate\n"
        "before = 'scipy.integrate' in sys.modules\n"
        "quad = integrate.quad\n"
        "import scipy.integrate\n"
        "print(before, quad is scipy.integrate.quad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False", "True"]
