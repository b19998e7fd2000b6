"""Sweep specifications: a task, a grid of parameter values, fixed parameters.

A spec file (YAML or JSON) looks like:

    name: staircase-gain
    task: staircase            # a built-in task, or "package.module:function"
    grid:                      # the cartesian product of these lists
      epsilon: [0.1, 1, 10]
      cost: [abs, squared]
    fixed:                     # passed to every task unchanged
      sensitivity: 1

Each task's identity is the SHA-256 of its canonical JSON (task name + parameters), so the
same parameters always map to the same row of the store, whatever the order of the grid.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SweepSpec", "load_spec", "task_key"]

_ALLOWED_KEYS = {"name", "task", "grid", "fixed", "store"}


def _canonical(value: Any, where: str) -> Any:
    """JSON-safe canonical form of a parameter value, or a clear error."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"sweep spec: {where} must be finite; got {value!r}.")
        return value
    if isinstance(value, list | tuple):
        return [_canonical(v, where) for v in value]
    if isinstance(value, dict):
        return {str(k): _canonical(v, f"{where}.{k}") for k, v in value.items()}
    raise ValueError(
        f"sweep spec: {where} must be a number, string, boolean, list or mapping; "
        f"got {value!r} of type {type(value).__name__}."
    )


def task_key(task: str, params: dict[str, Any]) -> str:
    """Stable identity of one task: SHA-256 of ``{"task": ..., "params": ...}`` in canonical JSON.

    Examples
    --------
    >>> task_key("staircase", {"epsilon": 1, "cost": "abs"}) == task_key(
    ...     "staircase", {"cost": "abs", "epsilon": 1})
    True

    Examples
    --------
    >>> from optmech.sweep import task_key
    >>> task_key("staircase", {"epsilon": 1.0}) == task_key("staircase", {"epsilon": 1.0})
    True
    >>> task_key("staircase", {"epsilon": 1.0}) == task_key("staircase", {"epsilon": 2.0})
    False
    """
    text = json.dumps({"task": task, "params": params}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: ``task`` run at every point of ``grid`` with ``fixed`` parameters.

    Parameters
    ----------
    task : str
        Built-in task name (see `optmech.sweep.available_tasks`) or ``"module:function"``.
    grid : dict of str to list
        Parameter name → non-empty list of values; the sweep is their cartesian product.
    fixed : dict, optional
        Parameters shared by every task. A name may not be both in ``grid`` and ``fixed``.
    name : str, optional
        Label of the sweep.
    store : str, optional
        Default path of the SQLite store.

    Examples
    --------
    >>> from optmech.sweep import SweepSpec
    >>> spec = SweepSpec(task="staircase", grid={"epsilon": [0.5, 1.0, 2.0]}, fixed={"cost": "abs"})
    >>> len(spec.tasks())
    3
    """

    task: str
    grid: dict[str, list[Any]]
    fixed: dict[str, Any] = field(default_factory=dict)
    name: str = "sweep"
    store: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.task, str) or not self.task.strip():
            raise ValueError(f"sweep spec: `task` must be a non-empty string; got {self.task!r}.")
        if not isinstance(self.grid, dict) or not self.grid:
            raise ValueError(
                "sweep spec: `grid` must be a non-empty mapping of parameter -> list of values; "
                f"got {self.grid!r}."
            )
        grid: dict[str, list[Any]] = {}
        for key, values in self.grid.items():
            if not isinstance(values, list) or not values:
                raise ValueError(
                    f"sweep spec: grid.{key} must be a non-empty list of values; got {values!r}."
                )
            grid[str(key)] = _canonical(values, f"grid.{key}")
        if not isinstance(self.fixed, dict):
            raise ValueError(f"sweep spec: `fixed` must be a mapping; got {self.fixed!r}.")
        fixed = {str(k): _canonical(v, f"fixed.{k}") for k, v in self.fixed.items()}
        both = sorted(set(grid) & set(fixed))
        if both:
            raise ValueError(f"sweep spec: parameters {both} appear in both `grid` and `fixed`.")
        object.__setattr__(self, "grid", grid)
        object.__setattr__(self, "fixed", fixed)

    def tasks(self) -> list[tuple[str, dict[str, Any]]]:
        """Every ``(key, params)`` of the sweep, in grid order, duplicates removed."""
        names = list(self.grid)
        seen: set[str] = set()
        out = []
        for combo in itertools.product(*(self.grid[n] for n in names)):
            params = {**self.fixed, **dict(zip(names, combo, strict=True))}
            key = task_key(self.task, params)
            if key not in seen:
                seen.add(key)
                out.append((key, params))
        return out

    @classmethod
    def from_dict(cls, data: Any) -> SweepSpec:
        """Build from a parsed YAML/JSON mapping, rejecting unknown keys."""
        if not isinstance(data, dict):
            raise ValueError(f"sweep spec must be a mapping at the top level; got {data!r}.")
        unknown = sorted(set(data) - _ALLOWED_KEYS)
        if unknown:
            raise ValueError(
                f"sweep spec: unknown keys {unknown}; allowed keys are {sorted(_ALLOWED_KEYS)}."
            )
        if "task" not in data or "grid" not in data:
            raise ValueError("sweep spec: `task` and `grid` are required.")
        return cls(
            task=data["task"],
            grid=data["grid"],
            fixed=data.get("fixed") or {},
            name=str(data.get("name", "sweep")),
            store=None if data.get("store") is None else str(data["store"]),
        )


def load_spec(path: str | Path) -> SweepSpec:
    """Read a sweep spec from a ``.yaml``/``.yml`` or ``.json`` file, with clear errors.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from optmech.sweep import load_spec
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(tmp.name) / "sweep.json"
    >>> _ = path.write_text(json.dumps({"task": "staircase", "grid": {"epsilon": [0.5, 1.0]}}))
    >>> spec = load_spec(path)
    >>> spec.task, spec.grid
    ('staircase', {'epsilon': [0.5, 1.0]})
    >>> tmp.cleanup()
    """
    p = Path(path)
    if not p.is_file():
        what = "is a folder, not a file" if p.is_dir() else "does not exist"
        raise ValueError(f"sweep spec file {str(p)!r} {what}.")
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"sweep spec file {str(p)!r} cannot be read ({exc.strerror}).") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"sweep spec file {str(p)!r} is not UTF-8 text ({exc.reason}).") from None
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:  # yaml.YAMLError / json.JSONDecodeError, with position
        raise ValueError(f"sweep spec {str(p)!r} is not valid YAML/JSON: {exc}") from exc
    return SweepSpec.from_dict(data)
