"""A user's ``mypy --strict`` sees optmech as it is installed — by the README's editable install
and from a wheel — and accepts every Python block of the README and of ``docs/``, and a script
that calls each public function of ``optmech.__all__`` the way its docstring does.

Each test installs a copy of the package (``pyproject.toml``, ``README.md``, ``optmech/``) the way
a user would, with pip, and runs mypy from an empty folder so that nothing of the checkout is
on its path: optmech is found only as an installed package (PEP 561: ``py.typed`` and the
``.pyi`` stubs must be installed with it). The two tests share one mypy cache.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

import optmech

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.xdist_group("typing_users")  # on one worker they share the mypy cache

#: The first line of a ```python block that is deliberately not type-checked, in the page itself
#: and followed by the reason (``# mypy: not checked: needs a running Dask cluster``); such
#: blocks are counted in the failure message, never skipped silently.
NOT_CHECKED = "# mypy: not checked"

#: Every public function of ``optmech.__all__``, called as a user would (the types, not the
#: numbers, are what mypy checks; the calls follow the docstrings' examples).
USER_SCRIPT = """
import math

import numpy as np
import numpy.typing as npt

import optmech
from optmech.costs import Absolute
from optmech.utilities import MutualInformation

eps = math.log(3.0)
prior = [0.25] * 4
G: npt.NDArray[np.float64] = optmech.truncated_geometric(3, eps)
T = np.eye(4)
M: npt.NDArray[np.float64] = optmech.apply_remap(G, T)
solvers: list[str] = optmech.available_solvers()
bayes = optmech.bayes_remap(G, prior, "abs")
user = optmech.bayesian_mechanism(prior, "abs", 0.5)
common = optmech.common_mechanism([prior, prior], ["abs", "squared"], 0.5)
minimax = optmech.minimax_mechanism("abs", 1.0, n=3, side_information=[1, 2])
matrix_cert = optmech.certify_mechanism(user.mechanism)
noise_cert = optmech.certify_noise(optmech.Laplace(epsilon=1.0))
holds: bool = optmech.check(optmech.Laplace(epsilon=1.0), optmech.PureDP(1.0))
dp: bool = optmech.check_dp(G, eps)
signs = optmech.constraint_matrix(M, eps)
T_back: npt.NDArray[np.float64] = optmech.remap_from_constraint_matrix(signs)
dependent = optmech.dependent_noise_lp(1.0, period=4, half_width=8)
line = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost=Absolute())
density: float = line.pdf(0.5)
draws: npt.NDArray[np.float64] = line.rvs(5, rng=0)
below: float = line.cdf(0.0)
spent: float = line.expected_cost("abs") + line.value + line.certified_epsilon
lattice = optmech.design_noise(optmech.ZCDP(0.5), sensitivity=1, cost="abs", integer=True)
rho: float = lattice.certified_rho
mass: float = lattice.pmf(0)
exact = lattice.sample_exact(3)
gdp = optmech.design_noise(optmech.GaussianDP(1.0), sensitivity=1.0, cost="abs")
mu: float = gdp.certified_mu
dearer: bool = gdp.worse_than_gaussian
renyi = optmech.design_noise(
    optmech.RenyiDP([2, 8], [0.5, 1.5]), sensitivity=1, cost="abs", integer=True
)
curve: tuple[tuple[float, float], ...] = renyi.certified_renyi
maybe_rho: float | None = line.certified_rho
plane = optmech.design_noise(
    optmech.PureDP(1.0), sensitivity=1.0, cost="l1", dimension=2, sensitivity_norm="l2"
)
points: npt.NDArray[np.float64] = plane.rvs(4, rng=0)
extremal = optmech.extremal_mechanism(MutualInformation([0.5, 0.5]), eps)
geometric = optmech.geometric_bayes(prior, "abs", 0.5)
worst = optmech.geometric_minimax("abs", 0.5, n=3)
gamma = optmech.heuristic_gamma(1.0)
is_remap, remap = optmech.is_remap_of_geometric(M, eps)
ratio = optmech.laplace_staircase_ratio(1.0, "squared")
local = optmech.local_mechanism([0.5, 0.5], "squared", eps, inputs=[0.0, 1.0])
private, achieved = optmech.make_private(M, eps)
remapped = optmech.minimax_remap(G, "abs", [0, 2])
test = optmech.remap_of_geometric(M, eps)
bins = optmech.rr_on_bins([0.5, 0.5], "squared", eps, inputs=[0.0, 1.0])
star = optmech.staircase_gamma_star(1.0)
profile = optmech.PrivacyProfile([0.0, 1.0], [0.5, 0.01])
shuffled = optmech.shuffle_epsilon(bins, 1000, 1e-6)
upper, lower = shuffled.curve([0.1, 0.2])
shuffled_profile: optmech.PrivacyProfile = shuffled.to_profile()
oracle = optmech.shuffle_epsilon(optmech.OLH(1 << 20, 1.0), 1000, 1e-6)
designed = optmech.shuffle_mechanism("uniform", "squared", 1.0, 1e-6, n=1000, inputs=[0.0, 1.0])
estimate: npt.NDArray[np.float64] = optmech.GRR(4, 1.0).estimate([0, 1, 1, 3])
values: list[float] = [
    user.value, common.value, minimax.value, bayes.value, dependent.value, extremal.value,
    geometric.value, worst.value, local.value, remapped.value, bins.value, achieved,
    shuffled.epsilon, shuffled.lower_bound, oracle.epsilon, designed.value,
    designed.guarantee.epsilon,
]
"""


# -- the code a user type-checks ----------------------------------------------------------------
def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


def _user_files(folder: Path) -> tuple[list[str], int]:
    """One module per page (its blocks in order: they share a reader's session) and the user
    script, written into ``folder``; and how many blocks are marked as not type-checked."""
    names: list[str] = []
    marked = 0
    for page in _pages():
        blocks = _blocks(page)
        checked = [b for b in blocks if not b.lstrip().startswith(NOT_CHECKED)]
        for block in blocks:  # a marked block says why
            first = block.lstrip().splitlines()[0]
            assert not first.startswith(NOT_CHECKED) or len(first) > len(NOT_CHECKED) + 3, page
        marked += len(blocks) - len(checked)
        if checked:
            rel = page.relative_to(ROOT).with_suffix("")
            name = "page_" + re.sub(r"\W", "_", str(rel)) + ".py"
            (folder / name).write_text("\n".join(checked), encoding="utf-8")
            names.append(name)
    (folder / "user_script.py").write_text(USER_SCRIPT, encoding="utf-8")
    return [*names, "user_script.py"], marked


def _mypy(folder: Path, cache: Path, python: Path | None, path: Path | None) -> str:
    """``mypy --strict`` on the user's files in ``folder``; optmech is found through the
    interpreter ``python``'s site-packages, or on ``path`` (an install ``--target``)."""
    files, marked = _user_files(folder)
    env = _clean_env()
    if path is not None:
        env["PYTHONPATH"] = str(path)
    args = ["--strict", "--cache-dir", str(cache), "--no-color-output", "--no-error-summary"]
    if python is not None:
        args += ["--python-executable", str(python)]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *args, *files],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 0, f"{len(files)} files ({marked} blocks marked):\n{out}"
    return out


# -- installing as a user does --------------------------------------------------------------------
def _clean_env() -> dict[str, str]:
    """The environment without the paths a test run may add (the checkout on PYTHONPATH)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}


def _source(tmp: Path) -> Path:
    """A copy of what pip builds from (the checkout itself is left untouched)."""
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "optmech", src / "optmech", ignore=shutil.ignore_patterns("__pycache__"))
    return src


def _pip(python: Path | str, *args: str) -> None:
    result = subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=_clean_env(),
    )
    out = result.stdout + result.stderr
    if result.returncode != 0 and "No matching distribution found for setuptools" in out:
        pytest.skip("pip cannot fetch the build backend (setuptools) for an isolated build")
    assert result.returncode == 0, out


def _venv(tmp: Path) -> Path:
    """A fresh virtual environment whose dependencies are this interpreter's (a .pth file)."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(purelib) / "_optmech_test_deps.pth").write_text("\n".join(deps) + "\n")
    return python


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.mark.slow
def test_strict_mypy_after_the_readmes_editable_install(tmp_path: Path, mypy_cache: Path) -> None:
    """``pip install -e`` puts a static path entry (a .pth naming the checkout), which type
    checkers follow, not an import hook, which they cannot."""
    src = _source(tmp_path)
    python = _venv(tmp_path)
    _pip(python, "install", "--no-deps", "-e", str(src))
    entries = [
        line
        for pth in Path(python.parent.parent).rglob("__editable__*.pth")
        for line in pth.read_text().splitlines()
    ]
    assert entries == [str(src)], entries  # a path, not ``import __editable___finder``
    # The checkout comes after site-packages: its other folders (tests, benchmarks) cannot
    # shadow an installed package of the same name.
    where = "import optmech, sys, sysconfig; print(sys.path); print(optmech.__file__)"
    shown = subprocess.run(
        [str(python), "-c", where],
        capture_output=True,
        text=True,
        check=True,
        env=_clean_env(),
        cwd=tmp_path,  # not the checkout, which ``-c`` would put first on the path
    )
    path, found = shown.stdout.splitlines()
    order = [p.rstrip("/") for p in ast.literal_eval(path)]
    purelib = next(p for p in order if p.endswith("site-packages") and "venv" in p)
    assert order.index(purelib) < order.index(str(src))
    assert Path(found) == src / "optmech" / "__init__.py"
    user = tmp_path / "user"
    user.mkdir()
    _mypy(user, mypy_cache, python, None)


@pytest.mark.slow
def test_strict_mypy_on_an_installed_wheel(tmp_path: Path, mypy_cache: Path) -> None:
    """The wheel carries ``py.typed`` and the ``.pyi`` stubs, and only the package."""
    import zipfile

    src = _source(tmp_path)
    wheels = tmp_path / "wheels"
    _pip(sys.executable, "wheel", "--no-deps", "-w", str(wheels), str(src))
    (wheel,) = wheels.glob("optmech-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {
        "optmech",
        wheel.name.split("-py")[0] + ".dist-info",
    }
    stubs = {str(p.relative_to(ROOT)) for p in (ROOT / "optmech").rglob("*.pyi")}
    assert stubs | {"optmech/py.typed"} <= set(names)
    target = tmp_path / "target"
    _pip(sys.executable, "install", "--no-deps", "--target", str(target), str(wheel))
    user = tmp_path / "user"
    user.mkdir()
    _mypy(user, mypy_cache, None, target)


@pytest.mark.slow  # it imports every public name (the whole package)
def test_the_user_script_calls_every_public_function() -> None:
    """A new public function is added to the script (no mypy here)."""
    functions = {n for n in optmech.__all__ if inspect.isfunction(getattr(optmech, n))}
    called = set(re.findall(r"optmech\.(\w+)\(", USER_SCRIPT))
    assert functions - called == set()
    assert sum(len(_blocks(p)) for p in _pages()) >= 9  # the README's and the how-tos' blocks
