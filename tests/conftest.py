"""Shared fixtures of the test suite.

- ``lp_solver``: each solver of optmech's policy installed here (HiGHS and Clarabel), so a
  test that takes it runs once per solver.
- ``rng``: a generator with a fixed seed (statistical tests state their own false-failure
  rate; the seed makes a failure reproducible).

Helper modules beside the tests (``_reference``, ``_families``, ``_sweep_helpers``) are
imported by name: pytest puts this folder on ``sys.path`` (rootdir-relative "prepend" import
mode, and this ``conftest.py`` lives here).

Long-running checks carry ``@pytest.mark.slow``; they run by default (CI runs everything), and
``pytest -m "not slow"`` leaves them out for a quick local loop.
"""

from __future__ import annotations

import numpy as np
import pytest

from optmech.lp.solve import MAIN_SOLVERS, available_solvers

#: The solvers optmech's policy chooses from, as installed here.
TUNED_SOLVERS = [s for s in MAIN_SOLVERS if s in available_solvers()]


@pytest.fixture(params=TUNED_SOLVERS)
def lp_solver(request: pytest.FixtureRequest) -> str:
    """Each tuned LP solver installed on this machine, in turn."""
    return str(request.param)


@pytest.fixture
def rng() -> np.random.Generator:
    """A generator with a fixed seed."""
    return np.random.default_rng(20261123)
