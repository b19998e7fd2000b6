"""Old names keep working for one release: each warns and resolves to the object at its new home.

The moved modules are imported silently (so that importing the package never warns); reading
one of their names emits a `DeprecationWarning` that names the new module, and returns the very
object the new module holds.
"""

from __future__ import annotations

import importlib

import pytest

MOVED_MODULES = [
    ("optmech.lp.designed", "optmech.lp.additive.designed"),
    ("optmech.lp.windows", "optmech.lp.additive.windows"),
    ("optmech.lp.noise_repair", "optmech.lp.additive.repair"),
    ("optmech.mechanisms.exact", "optmech.mechanisms.exact_sampling"),
    ("optmech.certify.exact", "optmech.certify.exact_arithmetic"),
    ("optmech.theorems.exact", "optmech.theorems.exact_catalogue"),
]


@pytest.mark.parametrize(("old", "new"), MOVED_MODULES)
def test_a_moved_module_still_provides_every_name_with_a_warning(old: str, new: str) -> None:
    old_module = importlib.import_module(old)
    new_module = importlib.import_module(new)
    assert new_module.__all__, new
    for name in new_module.__all__:
        with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
            value = getattr(old_module, name)
        assert value is getattr(new_module, name)


@pytest.mark.parametrize(("old", "new"), MOVED_MODULES)
def test_a_moved_module_refuses_names_it_never_had(old: str, new: str) -> None:
    module = importlib.import_module(old)
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018
