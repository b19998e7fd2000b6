"""The tree passes ruff (lint: pyflakes, pycodestyle, isort, bugbear, pyupgrade; and format) and
mypy (the package under its configuration; a user's code using the public names under
``--strict``)."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import optmech

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_check_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# -- mypy: the package under its configuration, and a user's code under --strict ---------------
USER_CODE = """
import numpy as np
import numpy.typing as npt

import optmech
from optmech import Staircase, design_noise

s: Staircase = optmech.Staircase.optimal(epsilon=1.0, cost="abs")
one: float = s.pdf(0.3)
many: npt.NDArray[np.float64] = s.pdf(np.array([0.1, 0.2]))
listed: npt.NDArray[np.float64] = s.cdf([0.1, 0.2])
draw: float = s.rvs(rng=0)
draws: npt.NDArray[np.float64] = s.rvs(10, rng=0)
mass: float = optmech.Geometric(epsilon=1.0).pmf(1)
tail: float = optmech.Laplace(epsilon=1.0).isf(1e-20)
low, high = s.interval(0.9)
spread: float = s.std() + s.var() + s.moment(4) + s.entropy() + high - low
cost: float = optmech.StaircaseND(epsilon=1.0, gamma=0.5).expected_cost("l1")
guarantee: optmech.PureDP = optmech.PureDP(1.0)
designer = design_noise
plain = design_noise(guarantee, sensitivity=1.0, cost="abs")
delta: float = plain.certified_delta + plain.record.value
plane = design_noise(guarantee, sensitivity=1.0, cost="l1", dimension=2, sensitivity_norm="l1")
fine = design_noise(guarantee, sensitivity=1.0, cost="abs", resolution=20, periods=3, solver=None)
options: dict[str, object] = {"resolution": 20}
forwarded = design_noise(guarantee, sensitivity=1.0, cost="abs", dimension=1 + 0, **options)
plane_epsilon: float = plane.certified_epsilon
modules = (optmech.accounting, optmech.experiments, optmech.interop, optmech.certify)
"""


def _mypy(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    return f"exit {result.returncode}\n{result.stdout}{result.stderr}"


def _user_check(tmp_path: Path, code: str) -> str:
    """``mypy --strict`` on a user's file that imports optmech, with optmech's own modules
    followed silently (as for an installed package: only the user's file is reported)."""
    (tmp_path / "user.py").write_text(code, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nstrict = True\n\n[mypy-optmech.*]\nfollow_imports = silent\n", encoding="utf-8"
    )
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    args = ["--config-file", "mypy.ini", "--cache-dir", str(tmp_path / "cache"), "user.py"]
    return _mypy(args, tmp_path, env)


def test_users_strict_mypy_accepts_the_public_names(tmp_path: Path) -> None:
    names = "\n".join(f"_{i} = optmech.{name}" for i, name in enumerate(optmech.__all__))
    out = _user_check(tmp_path, USER_CODE + names + "\n")
    assert out.startswith("exit 0"), out


def test_users_strict_mypy_catches_a_misspelt_name_and_a_wrong_type(tmp_path: Path) -> None:
    """The lazy ``__getattr__`` is hidden from type checkers, and the overloads are narrow."""
    code = (
        "import optmech\nx = optmech.Stiarcase\ny: str = optmech.Laplace(epsilon=1.0).pdf(0.0)\n"
        "z = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost='abs', resoluton=9)\n"
        "w = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost='abs', periods='3')\n"
    )
    out = _user_check(tmp_path, code)
    assert out.startswith("exit 1"), out
    assert 'has no attribute "Stiarcase"' in out
    assert 'expression has type "float", variable has type "str"' in out
    lines = {ln.split(":")[1] for ln in out.splitlines() if ln.startswith("user.py:")}
    assert {"4", "5"} <= lines, out  # the misspelt option and the option of the wrong type


def test_the_package_is_clean_under_its_mypy_configuration() -> None:
    """``mypy`` with the ``[tool.mypy]`` section of pyproject.toml (packages not yet clean are
    listed there, with their counts)."""
    out = _mypy([], ROOT)
    assert out.startswith("exit 0") and "Success" in out, out


def test_the_package_ships_its_type_hints() -> None:
    """PEP 561: ``py.typed`` sits in the package and is declared as package data."""
    assert (ROOT / "optmech" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["optmech"]
