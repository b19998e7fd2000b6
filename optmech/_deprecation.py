"""Deprecations: old names and module paths that keep working for one release, with a warning.

A public name that is renamed or moved stays importable under its old name; using it emits a
`DeprecationWarning` that names the replacement. Nothing inside optmech uses a deprecated path
(the tests run with warnings as errors).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any, TypeVar

__all__ = ["moved_module", "renamed_keyword", "warn_deprecated"]

_F = TypeVar("_F", bound=Callable[..., Any])


def warn_deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated in favour of ``new``.

    Parameters
    ----------
    old, new : str
        How the user wrote it and what to write instead (e.g. ``"check_dp(..., debug=True)"``).
    stacklevel : int
        Passed to `warnings.warn`; the default points at the caller of the deprecated function.
    """
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new} instead.",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def moved_module(old: str, new: ModuleType, names: Iterable[str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for a module that moved from ``old`` to ``new``.

    Importing the old module is silent; reading one of ``names`` from it warns and returns the
    object from its new home, and any other name is an `AttributeError`.

    Parameters
    ----------
    old : str
        The old module's dotted name.
    new : module
        The module the names now live in.
    names : iterable of str
        The names the old module provided.

    Returns
    -------
    callable
        To assign to the old module's ``__getattr__``.
    """
    provided = frozenset(names)

    def __getattr__(name: str) -> Any:
        if name not in provided:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warn_deprecated(f"`{old}.{name}`", f"`{new.__name__}.{name}`")
        return getattr(new, name)

    return __getattr__


def renamed_keyword(old: str, new: str) -> Callable[[_F], _F]:
    """Decorator: the function's keyword ``new`` may still be passed as ``old``, with a
    `DeprecationWarning` (positional use is unchanged); both at once is a `TypeError`.

    Examples
    --------
    >>> import warnings
    >>> @renamed_keyword("loss", "cost")
    ... def f(cost):
    ...     return cost
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f(loss="abs"), caught[0].category.__name__
    ('abs', 'DeprecationWarning')
    """

    def decorate(func: _F) -> _F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if old in kwargs:
                name = func.__name__
                if new in kwargs:
                    raise TypeError(
                        f"{name}() got `{new}` and its deprecated name `{old}`; pass `{new}` only."
                    )
                warn_deprecated(f"`{name}({old}=...)`", f"`{name}({new}=...)`")
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
