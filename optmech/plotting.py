"""Figures of noise and mechanisms, for notebooks and the command line (matplotlib).

Every function draws into ``ax`` (a new figure's axes if ``None``) and returns the Axes; the
``plot`` methods of the noise families, the designed noise and the count mechanisms call these,
and ``optmech design|user --plot`` saves what they draw. matplotlib is imported on first use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["plot_mechanism", "plot_noise", "plot_phases", "privacy_title", "save_figure"]


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(8, 4.5))[1]


def privacy_title(privacy: Any, sensitivity: float) -> str:
    """The guarantee and the sensitivity as a figure title: ``"ε = 1, Δ = 2"``.

    (ε, δ) guarantees read ``"ε = 1, δ = 1e-05, Δ = 1"``; guarantees beyond (ε, δ) as their
    ``str`` (e.g. ``"0.5-zCDP, Δ = 1"``).

    Examples
    --------
    >>> from optmech.privacy import ApproxDP
    >>> privacy_title(ApproxDP(1.0, 1e-5), 2.0)
    'ε = 1, δ = 1e-05, Δ = 2'
    """
    from optmech.privacy import ApproxDP, PureDP

    if isinstance(privacy, PureDP):
        head = f"ε = {privacy.epsilon:.6g}"
    elif isinstance(privacy, ApproxDP):
        head = f"ε = {privacy.epsilon:.6g}, δ = {privacy.delta:.6g}"
    else:
        head = str(privacy)
    return f"{head}, Δ = {float(sensitivity):.6g}"


def _span(noise: Any) -> float:
    """Half-width to draw: four sensitivities, or the 99.9% central interval if wider apart."""
    sens = float(getattr(noise, "sensitivity", 1.0) or 1.0)
    try:
        q = float(noise.ppf(0.9995))
    except (NotImplementedError, ValueError, AttributeError):
        q = 0.0
    span = max(4.0 * sens, q if math.isfinite(q) else 0.0)
    return min(span, 40.0 * sens)


def plot_noise(
    noise: Any,
    ax: Any = None,
    *,
    references: Sequence[tuple[str, Any]] = (),
    span: float | None = None,
    label: str | None = None,
    title: str | None = None,
) -> Any:
    """The density (or pmf on ℤ) of ``noise`` on ``[−span, span]``, with named ``references``.

    The title names the family, its guarantee and its sensitivity (e.g. ``"Staircase: ε = 1,
    Δ = 1"``, `privacy_title`) unless ``title`` is given.

    Parameters
    ----------
    noise : NoiseDistribution
        Any continuous or lattice noise of `optmech.mechanisms` (designed ones included).
    ax : matplotlib.axes.Axes, optional
        Where to draw.
    references : sequence of (str, NoiseDistribution)
        Further noises drawn dashed (or as crosses on ℤ), e.g. the theorem's optimum.
    span : float, optional
        Half-width of the window (default: four sensitivities, wider for heavy noise).
    label : str, optional
        Legend entry of ``noise`` (default: its class name).
    title : str, optional
        The title (default: the family, ε (and δ) and Δ).
    """
    ax = _axes(ax)
    half = _span(noise) if span is None else float(span)
    name = label or type(noise).__name__
    if hasattr(noise, "pmf"):
        k = np.arange(-math.floor(half), math.floor(half) + 1, dtype=float)
        ax.stem(k, noise.pmf(k), linefmt="C0-", markerfmt="C0o", basefmt=" ", label=name)
        for i, (ref_name, ref) in enumerate(references, start=1):
            ax.plot(k, ref.pmf(k), f"C{i}x", label=ref_name)
        ax.set_ylabel("pmf")
    else:
        x = np.linspace(-half, half, 4001)
        ax.plot(x, noise.pdf(x), "C0-", lw=1.5, label=name)
        for i, (ref_name, ref) in enumerate(references, start=1):
            ax.plot(x, ref.pdf(x), f"C{i}--", lw=1.0, label=ref_name)
        atom = float(getattr(noise, "atom", 0.0) or 0.0)
        if atom > 0:
            ax.annotate(f"atom {atom:.3g} at 0", (0.0, float(np.max(noise.pdf(x)))), ha="center")
        ax.set_ylabel("density")
    ax.set_xlabel("noise x")
    ax.legend(fontsize=8)
    if title is None:
        sensitivity = float(getattr(noise, "sensitivity", 1.0))
        title = f"{type(noise).__name__}: {privacy_title(noise.privacy, sensitivity)}"
    ax.set_title(title)
    return ax


#: Most ticks on a heat map's axis (evenly spaced indices, labelled with their values).
_MAX_TICKS = 12


def _tick_label(value: Any) -> str:
    """A row's or column's value as a tick label: whole numbers without a point, other numbers
    at four significant digits, anything else (a vector input) as ``str``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(np.asarray(value).tolist()) if not isinstance(value, str) else value
    return str(int(number)) if number.is_integer() else f"{number:.4g}"


def _value_ticks(setter: Any, labels: Sequence[Any] | None, size: int) -> None:
    """At most `_MAX_TICKS` ticks on whole indices (the cells' centres, never ``−0.5``),
    labelled with the values ``labels`` (the indices when None)."""
    positions = np.unique(np.linspace(0, size - 1, min(size, _MAX_TICKS)).round().astype(int))
    names = [_tick_label(labels[i] if labels is not None else i) for i in positions]
    setter(positions.tolist(), names)


def plot_mechanism(
    mechanism: Any,
    ax: Any = None,
    *,
    inputs: Any = None,
    outputs: Any = None,
    title: str | None = None,
    input_label: str = "input",
    output_label: str = "output",
) -> Any:
    """Heat map of a mechanism matrix ``M[i, r] = P(output r | input i)`` (rows: inputs).

    Ticks sit on whole cells (at most twelve per axis) and are labelled with the ``inputs``
    and ``outputs`` values (the row and column indices when None); the title names the model.
    Returns the Axes.
    """
    ax = _axes(ax)
    m = np.asarray(mechanism, dtype=np.float64)
    image = ax.imshow(m, aspect="auto", cmap="viridis", interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, label="P(output | input)")
    ax.set_xlabel(output_label)
    ax.set_ylabel(input_label)
    _value_ticks(ax.set_xticks, None if outputs is None else list(outputs), m.shape[1])
    _value_ticks(ax.set_yticks, None if inputs is None else list(inputs), m.shape[0])
    if title:
        ax.set_title(title)
    return ax


def plot_phases(support: Any, pmfs: Any, ax: Any = None, *, title: str | None = None) -> Any:
    """The pmf of each phase ``t`` of a query-value-dependent noise, one line per phase
    (``pmfs[t, k]`` at the points ``support[k]``); returns the Axes."""
    ax = _axes(ax)
    rows = np.atleast_2d(np.asarray(pmfs, dtype=np.float64))
    k = np.asarray(support, dtype=np.float64)
    for t, row in enumerate(rows):
        ax.plot(k, row, marker="o", ms=3, lw=1, label=f"t ≡ {t}")
    ax.set_xlabel("noise k")
    ax.set_ylabel("pmf")
    if rows.shape[0] <= 12:
        ax.legend(fontsize=8, title="phase")
    if title:
        ax.set_title(title)
    return ax


def save_figure(ax: Any, path: str | Path) -> Path:
    """Save the figure of ``ax`` to ``path`` (PNG) and close it; returns the path."""
    import matplotlib.pyplot as plt

    fig = ax.figure
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
