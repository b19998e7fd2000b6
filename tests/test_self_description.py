"""Families describe themselves: every noise answers ``privacy_source()`` (and, with a table,
``grid_description()``), and nothing outside ``optmech/mechanisms/`` asks which class a noise is.

The descriptions are checked against independent truth: the closed-form pmf of the two-sided
geometric law, the staircase's step edges ``kΔ`` and ``(k + γ)Δ`` (Geng & Viswanath 2016,
Thm. 3), and the exact rational reach ``Δ/h``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import math
import pkgutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import optmech
import optmech.mechanisms
from optmech.certify import certify_noise_epsilon, noise_delta, noise_epsilon
from optmech.mechanisms.description import (
    GridDescription,
    SourceKind,
    grid_of,
    source_of,
)
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.privacy import PureDP

PACKAGE = Path(optmech.__file__).parent


def _family_classes() -> set[str]:
    """Names of the classes of ``optmech/mechanisms/`` that describe a noise
    (``privacy_source``), and of the designed classes built on them."""
    modules = [
        importlib.import_module(f"optmech.mechanisms.{info.name}")
        for info in pkgutil.iter_modules(optmech.mechanisms.__path__)
    ]
    modules += [
        importlib.import_module("optmech.lp.additive.designed"),
        importlib.import_module("optmech.lp.additive2d.designed"),
    ]
    families: set[type] = {
        cls
        for module in modules[:-2]
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__.startswith("optmech.mechanisms") and hasattr(cls, "privacy_source")
    }
    designed = {
        cls
        for module in modules[-2:]
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__ and any(issubclass(cls, f) for f in families)
    }
    return {cls.__name__ for cls in families | designed} | {"DesignedNoise"}


def _named(node: ast.expr) -> set[str]:
    """Class names in the second argument of ``isinstance`` (names, attributes, tuples, ``|``)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Tuple):
        return set().union(*(_named(e) for e in node.elts))
    if isinstance(node, ast.BinOp):
        return _named(node.left) | _named(node.right)
    return set()


def _family_isinstance(families: set[str]) -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "mechanisms" in path.relative_to(PACKAGE).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            if call and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2:
                hit = _named(node.args[1]) & families
                if hit:
                    where = path.relative_to(PACKAGE.parent)
                    found.append(f"{where}:{node.lineno} {sorted(hit)}")
    return found


def test_no_isinstance_of_a_family_outside_mechanisms() -> None:
    families = _family_classes()
    assert {"Laplace", "LatticeNoise", "PiecewiseConstantNoise2D", "StaircaseND"} <= families
    assert {"DesignedLatticeNoise", "DesignedNoise2D"} <= families
    assert _family_isinstance(families) == []


def test_the_scan_finds_an_isinstance_of_a_family(tmp_path: Path) -> None:
    """The scan above can fail: it reads ``isinstance(x, A | B)`` and tuples."""
    tree = ast.parse("isinstance(x, (int, Staircase))\nisinstance(y, m.Laplace | float)")
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert set().union(*(_named(c.args[1]) for c in calls)) >= {"Staircase", "Laplace"}


# -- the descriptions (every family's kind, guarantee and samplers: test_family_battery) -------
def test_geometric_grid_is_its_closed_form_pmf() -> None:
    """P(k) = (1 − b)/(1 + b)·b^|k| with b = e^(−ε/Δ): the table at 0 and one point per tail."""
    eps, delta = 1.3, 2
    b = math.exp(-eps / delta)
    g = optmech.Geometric(epsilon=eps, sensitivity=delta).grid_description()
    p0 = (1 - b) / (1 + b)
    assert g.masses.tolist() == pytest.approx([p0], rel=1e-15)
    assert g.left_tail[0].tolist() == pytest.approx([p0 * b], rel=1e-15)
    assert g.left_tail[1] == pytest.approx(b, rel=1e-15) and g.reach == 2
    assert g.discrete and g.total == pytest.approx(1.0, abs=1e-15)
    # the description certifies like the keyword form it replaces, at the exact ratio b per point
    assert noise_epsilon(g) == noise_epsilon(
        g.masses, reach=2, left_tail=g.left_tail, right_tail=g.right_tail
    )
    assert eps <= noise_epsilon(g) <= eps * (1 + 1e-12)


def test_staircase_pieces_are_its_step_edges() -> None:
    s = optmech.Staircase(epsilon=2.0, gamma=0.25, sensitivity=0.5)
    pieces = source_of(s).pieces
    k = np.arange(8)
    assert np.all(np.isin(np.concatenate([k, k + 0.25]) * 0.5, pieces.edges))
    assert pieces.tail_mass <= 1e-18 and pieces.tail_epsilon == 2.0


def test_tabulated_families_describe_their_stored_numbers() -> None:
    noise = PiecewiseConstantNoise(
        start=-1.0, width=0.3, densities=np.array([1.0, 2.0, 1.0]) / (0.3 * 4.0), period=1,
        sensitivity=0.6000000001, privacy=PureDP(1.0),
    )  # fmt: skip
    src = source_of(noise)
    assert src.tabulated and src.kind == SourceKind.GRID
    g = src.grid
    assert g.reach == Fraction(0.6000000001) / Fraction(0.3) and g.cells == 3
    assert g.masses.tolist() == pytest.approx([0.25, 0.5, 0.25], rel=1e-15)
    lattice = LatticeNoise(start=0, pmf=[0.5, 0.5], period=1, sensitivity=1, privacy=PureDP(1.0))
    assert source_of(lattice).sample_exact is not None and grid_of(lattice).discrete


def test_grid_description_mapping_access_is_deprecated() -> None:
    g = optmech.Geometric(epsilon=1.0).grid_description()
    with pytest.deprecated_call(match=r"grid_description\(\)\.masses"):
        masses = g["masses"]
    assert masses is g.masses
    with pytest.deprecated_call():
        assert dict(g)["reach"] == 1.0
    with pytest.raises(KeyError):
        g["no such key"]


def test_description_validates_and_is_read_by_every_grid_certifier() -> None:
    with pytest.raises(ValueError, match="same length"):
        GridDescription([0.5], ([0.1, 0.1], 0.5), ([0.1], 0.5), reach=1)
    with pytest.raises(ValueError, match="non-negative"):
        GridDescription([-0.5], reach=1)
    with pytest.raises(TypeError, match="either as a description"):
        noise_epsilon(optmech.Geometric(epsilon=1.0).grid_description(), atom=0.1)
    bare = GridDescription(np.array([0.25, 0.5, 0.25]))
    with pytest.raises(TypeError, match="no reach"):
        noise_epsilon(bare)
    rep = certify_noise_epsilon(bare.with_reach(1))
    assert rep.epsilon == math.inf  # finite support: an edge cell faces zero
    # δ(0) at a shift of one cell: (0.5 − 0.25) + (0.25 − 0) = 0.5, rounded up, never below
    assert 0.5 <= noise_delta(bare.with_reach(1), epsilon=0.0) <= 0.5 + 1e-13
