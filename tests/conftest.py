"""Shared fixtures and collection rules of the test suite.

- ``lp_solver``: each solver of optmech's policy installed here (HiGHS and Clarabel), so a
  test that takes it runs once per solver.
- ``rng``: a generator with a fixed seed (statistical tests state their own false-failure
  rate; the seed makes a failure reproducible).
- ``no_work``: any LP solve, additive grid or sweep task raises ``_cli_fuzz.WorkStarted``, for the
  tests that show a bad command line is refused before the work begins.

Helper modules beside the tests (``_reference``, ``_families``, ``_sweep_helpers``) are
imported by name: pytest puts this folder on ``sys.path`` (rootdir-relative "prepend" import
mode, and this ``conftest.py`` lives here).

The suite runs on every core (pytest-xdist, ``-n auto --dist loadgroup`` in ``pyproject.toml``;
``-n 0`` runs it in one process). Collection does three things for that:

- marks ``slow`` the tests listed in :data:`SLOW_TESTS` (each took more than about a second
  with ``--durations=0``) and every test using a fixture of :data:`SLOW_FIXTURES`; they run by
  default (CI runs everything), and ``pytest -m "not slow"`` leaves them out for a quick loop
  (the catalogue's slow checks are marked in ``test_verify_full``);
- keeps the tests of a module with a module-scoped fixture on one worker (``xdist_group``), so
  that fixture (a docs build, the experiments) is built once;
- runs the slow tests first, so that no long test starts last while the other workers idle.

:mod:`test_suite` checks that every name listed here is a test that exists.
"""

from __future__ import annotations

import numpy as np
import pytest
from _cli_fuzz import WorkStarted

from optmech.lp.solve import MAIN_SOLVERS, available_solvers

#: The solvers optmech's policy chooses from, as installed here.
TUNED_SOLVERS = [s for s in MAIN_SOLVERS if s in available_solvers()]

#: Tests that take more than about a second: ``path::function`` (every parametrisation) or a
#: full node id (one parametrisation).
SLOW_TESTS: tuple[str, ...] = (
    "optmech/accounting.py::optmech.accounting",
    "tests/test_accounting.py::test_geometric_composition_against_the_binomial_loss[100]",
    "tests/test_additive2d.py::test_a_cost_in_another_norm_beats_the_staircase_of_the_ball",
    "tests/test_additive2d.py::test_the_linf_staircase_is_beaten_for_the_l1_cost_at_large_epsilon",
    "tests/test_additive2d.py::test_vector_custom_cost_with_a_smaller_symmetry_group",
    "tests/test_certify_beyond_designs.py::test_design_certifies_its_own_guarantee[1-GDP]",
    "tests/test_certify_exact.py::test_flint_is_imported_only_on_demand",
    "tests/test_certify_exact.py::test_geometric_pmf_delta_with_infinite_tails",
    "tests/test_certify_noise.py::test_delta_is_never_below_exact_hockey_stick_near_integer_reach",
    "tests/test_certify_noise.py::test_epsilon_is_never_below_brute_force_near_integer_reach",
    "tests/test_cli_design.py::test_plot_is_written",
    "tests/test_costs_norm.py::test_exact_2d_averages_match_nested_quadrature",
    "tests/test_costs_norm.py::test_quadrature_agrees_with_the_closed_forms",
    "tests/test_costs_norm.py::test_quadrature_error_estimate_bounds_the_error_in_2d",
    "tests/test_docs.py::test_code_blocks_run[README.md]",
    "tests/test_docs.py::test_home_and_theory_code_blocks_run",
    "tests/test_exact_samplers.py::test_discrete_staircase_family",
    "tests/test_exact_samplers.py::test_geometric_ratio_against_its_pmf",
    "tests/test_experiments.py::test_cli",
    "tests/test_experiments.py::test_outputs_are_written_with_the_usual_permissions",
    "tests/test_experiments.py::test_seed_reproducible",
    "tests/test_family_battery.py::test_every_concrete_family_has_an_instance_in_the_registry",
    "tests/test_garbage_core.py::test_cost_constructors",
    "tests/test_garbage_epsdp.py::test_staircase_helpers",
    "tests/test_graded.py::test_periodic_partition_window_is_index_distance_m",
    "tests/test_import.py::test_accounting_experiments_and_interop_are_attributes_loaded_on_first_use",
    "tests/test_import.py::test_closed_form_path_loads_no_lp_graph_or_plot_library",
    "tests/test_import.py::test_the_cli_help_and_closed_forms_load_no_lp_graph_or_plot_library",
    "tests/test_layers.py::test_every_top_level_package_has_a_layer",
    "tests/test_lint.py::test_the_package_is_clean_under_its_mypy_configuration",
    "tests/test_lint.py::test_users_strict_mypy_accepts_the_public_names",
    "tests/test_lint.py::test_users_strict_mypy_catches_a_misspelt_name_and_a_wrong_type",
    "tests/test_lp_additive_beyond.py::test_gdp_lattice_design",
    "tests/test_lp_additive_beyond.py::test_renyi_design_at_two_orders",
    "tests/test_lp_additive_beyond.py::test_zcdp_density_design",
    "tests/test_lp_additive_beyond.py::test_zcdp_lattice_design",
    "tests/test_lp_additive_interval.py::test_closed_form_lies_in_the_interval_widened_by_the_grid",
    "tests/test_lp_additive_large_eps.py::test_default_design_is_within_two_percent_of_the_staircase",
    "tests/test_lp_additive_large_eps.py::test_large_epsilon_interval_is_informative",
    "tests/test_lp_additive_large_eps.py::test_very_large_epsilon_gives_a_design_or_names_every_attempt",
    "tests/test_readme.py::test_the_library_example_runs_as_written",
    "tests/test_scipy_parity.py::test_staircase_moments_and_entropy_against_step_quadrature",
    "tests/test_self_description.py::test_no_isinstance_of_a_family_outside_mechanisms",
    "tests/test_solver_output.py::test_a_highs_solve_prints_nothing",
    "tests/test_solver_output.py::test_verify_json_is_valid_json",
    "tests/test_staircase.py::test_costs_equal_quadrature_of_the_density",
    "tests/test_staircase_nd.py::test_optimal_gamma_minimises_the_shell_sum_cost",
    "tests/test_structure.py::test_no_function_is_too_long",
    "tests/test_sweep.py::test_an_unreachable_scheduler_is_one_line_naming_the_address",
    "tests/test_sweep.py::test_dask_path_gives_the_same_results_as_the_local_path",
    "tests/test_sweep.py::test_sigkill_mid_sweep_then_resume_gives_one_row_per_task",
    "tests/test_tails.py::test_sf_matches_reference",
    "tests/test_tails2d.py::test_l2_cost_series_bracket_the_quadrature",
    "tests/test_tails2d.py::test_series_equal_direct_sums",
)

#: Module-scoped fixtures that take more than about a second to build: every test using one
#: is slow (the mkdocs site, the experiments' outputs).
SLOW_FIXTURES = frozenset({"site", "results"})

_SHARED_SCOPES = frozenset({"module", "class", "package"})


def _listed_slow(item: pytest.Item) -> bool:
    function = item.nodeid.split("[", 1)[0]
    return item.nodeid in SLOW_TESTS or function in SLOW_TESTS


def _shares_a_fixture(item: pytest.Item) -> bool:
    """Whether the test uses a fixture built once per module (or class) of its own file."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    module = item.nodeid.split("::", 1)[0]
    return any(
        defs[-1].scope in _SHARED_SCOPES and defs[-1].baseid.startswith(module)
        for defs in info.name2fixturedefs.values()
        if defs
    )


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shared: set[str] = set()
    for item in items:
        if _listed_slow(item) or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
        if _shares_a_fixture(item):
            module = item.nodeid.split("::", 1)[0]
            item.add_marker(pytest.mark.xdist_group(module))
            shared.add(module)
    # Slow tests first (a module that shares a fixture moves as a whole, in its own order).
    slow_modules = {
        item.nodeid.split("::", 1)[0]
        for item in items
        if item.get_closest_marker("slow") and item.nodeid.split("::", 1)[0] in shared
    }

    def later(item: pytest.Item) -> bool:
        module = item.nodeid.split("::", 1)[0]
        if module in shared:
            return module not in slow_modules
        return item.get_closest_marker("slow") is None

    items.sort(key=later)


@pytest.fixture(params=TUNED_SOLVERS)
def lp_solver(request: pytest.FixtureRequest) -> str:
    """Each tuned LP solver installed on this machine, in turn."""
    return str(request.param)


@pytest.fixture
def rng() -> np.random.Generator:
    """A generator with a fixed seed."""
    return np.random.default_rng(20261123)


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any LP solve, additive grid or sweep task raises ``WorkStarted``."""
    import cvxpy

    import optmech.lp.additive.lp as additive_lp
    import optmech.sweep.runner as runner

    def refuse(*args: object, **kwargs: object) -> None:
        raise WorkStarted("the work began before the refusal")

    monkeypatch.setattr(cvxpy.Problem, "solve", refuse)
    monkeypatch.setattr(additive_lp, "make_grid", refuse)
    monkeypatch.setattr(runner, "run_task", refuse)
