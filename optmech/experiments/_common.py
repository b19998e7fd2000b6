"""Shared plumbing of the experiments: result object, atomic output files, small formatters.

Every experiment writes three files into its output folder: ``results.csv`` (tidy: one row per
measurement), ``figure.png`` and ``summary.md``. Each file is written to a temporary file in the
same folder and renamed into place (atomic on POSIX), and ``summary.md`` is removed at the start
and written last: a folder holding a ``summary.md`` is a complete run, a failed run never looks
like one.
"""

from __future__ import annotations

import csv
import io
import math
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias, TypeVar

__all__ = [
    "COST_COLORS",
    "COST_LABELS",
    "CSV_NAME",
    "FIGURE_NAME",
    "SUMMARY_NAME",
    "ExperimentResult",
    "OutDir",
    "OutputFolder",
    "expect",
    "finish",
    "header_lines",
    "label_axes",
    "markdown_table",
    "new_figure",
    "plot_diagonal",
]

_T = TypeVar("_T")


def expect(kind: type[_T], value: object) -> _T:
    """``value``, checked to be a ``kind``: the narrower class a call returns for the settings
    an experiment gives it (``design_noise`` returns a 1-D or a 2-D design)."""
    if not isinstance(value, kind):
        raise TypeError(f"expected a {kind.__name__}; got {type(value).__name__}.")
    return value


CSV_NAME = "results.csv"
FIGURE_NAME = "figure.png"
SUMMARY_NAME = "summary.md"

#: The ``out_dir`` argument of an experiment: a folder, or None for ``./results/NAME``.
OutDir: TypeAlias = str | os.PathLike[str] | None

#: How the figures and tables name the two costs with closed forms, and their colours.
COST_LABELS = {"abs": "|e|", "squared": "e²"}
COST_COLORS = {"abs": "tab:blue", "squared": "tab:red"}


@dataclass(frozen=True)
class ExperimentResult:
    """What one experiment run produced.

    Not an optimisation result (no value or optimality interval: see
    `optmech.results.Result`), it shares the protocol's display
    and dict: ``_repr_html_()`` and `summary_text` show the same rows (numbers
    at six significant digits), `to_dict` is JSON-safe, `plot` draws the
    saved figure. ``summary`` stays the path of ``summary.md``.

    Attributes
    ----------
    name : str
        The experiment's registry name.
    out_dir, csv, figure, summary : Path
        The output folder and the three files in it.
    headline : dict
        The key measured numbers (also stated in ``summary.md``).
    seed : int
        The seed of the run.
    quick : bool
        Whether the small version ran.

    Examples
    --------
    >>> from pathlib import Path
    >>> from optmech.experiments import ExperimentResult
    >>> out = Path("results/gamma-star")
    >>> result = ExperimentResult("gamma-star", out, out / "results.csv", out / "figure.png",
    ...                           out / "summary.md", headline={"max_direct_gap": 1e-7})
    >>> result.csv.name, result.quick
    ('results.csv', False)
    """

    name: str
    out_dir: Path
    csv: Path
    figure: Path
    summary: Path
    headline: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    quick: bool = False

    def _display_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [
            ("experiment", self.name),
            ("seed, quick", f"{self.seed}, {'yes' if self.quick else 'no'}"),
            ("folder", str(self.out_dir)),
        ]
        return rows + [(str(k), v) for k, v in self.headline.items()]

    def summary_text(self) -> str:
        """The display as text: the experiment, its seed, folder and headline numbers (six
        significant digits; ``summary`` is the path of ``summary.md``)."""
        from optmech._display import text_summary

        return text_summary(type(self).__name__, self._display_rows())

    def _repr_html_(self) -> str:
        from optmech._display import html_summary

        return html_summary(type(self).__name__, self._display_rows())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: the name, the paths as strings, the headline, seed and quick."""
        from optmech.results import json_safe

        return {
            "result": type(self).__name__,
            "name": self.name,
            "out_dir": str(self.out_dir),
            "csv": str(self.csv),
            "figure": str(self.figure),
            "summary": str(self.summary),
            "headline": json_safe(self.headline),
            "seed": self.seed,
            "quick": self.quick,
        }

    def plot(self, ax: Any = None) -> Any:
        """Draw the saved ``figure.png`` into ``ax`` (a new figure's by default, no ticks);
        returns the Axes."""
        import matplotlib.image
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        ax.imshow(matplotlib.image.imread(self.figure))
        ax.set_axis_off()
        ax.set_title(self.name)
        return ax

    def to_dataframe(self) -> Any:
        """The run's tidy table, ``results.csv``, as a `pandas.DataFrame` (one row per
        measurement, the CSV's columns and values).

        Needs pandas (``pip install 'optmech[pandas]'``).
        """
        try:
            import pandas
        except ImportError:
            raise ImportError(
                "ExperimentResult.to_dataframe() needs pandas, an optional dependency: "
                "pip install 'optmech[pandas]'."
            ) from None
        return pandas.read_csv(self.csv)


def _umask() -> int:
    """The process's file-creation mask (read by setting it and setting it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write through a temporary file renamed into place, with the permissions of an ordinary
    new file (``0o666`` less the umask; `tempfile.mkstemp` alone would leave
    0600)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _cell(value: Any) -> Any:
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    return value


class OutputFolder:
    """The output folder of one run; writes each file atomically (module docstring)."""

    def __init__(self, name: str, out_dir: OutDir) -> None:
        self.name = name
        self.path = Path(out_dir) if out_dir is not None else Path("results") / name
        self.path.mkdir(parents=True, exist_ok=True)
        stale = self.path / SUMMARY_NAME
        if stale.exists():
            stale.unlink()

    def write_csv(self, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Path:
        """Write the tidy table ``results.csv``."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        count = 0
        for row in rows:
            if len(row) != len(header):
                raise ValueError(f"row {row!r} has {len(row)} cells; header has {len(header)}.")
            writer.writerow([_cell(v) for v in row])
            count += 1
        if count == 0:
            raise ValueError(f"experiment {self.name!r} produced no rows.")
        path = self.path / CSV_NAME
        _atomic_write_bytes(path, buf.getvalue().encode())
        return path

    def write_figure(self, fig: Any) -> Path:
        """Save a matplotlib figure as ``figure.png`` and close it."""
        import matplotlib.pyplot as plt

        buf = io.BytesIO()
        try:
            fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
        finally:
            plt.close(fig)
        path = self.path / FIGURE_NAME
        _atomic_write_bytes(path, buf.getvalue())
        return path

    def write_summary(self, text: str) -> Path:
        """Write ``summary.md`` (last: its presence marks a complete run)."""
        path = self.path / SUMMARY_NAME
        _atomic_write_bytes(path, text.rstrip("\n").encode() + b"\n")
        return path

    def result(self, headline: dict[str, Any], *, seed: int, quick: bool) -> ExperimentResult:
        """The `ExperimentResult` of a finished run."""
        return ExperimentResult(
            name=self.name,
            out_dir=self.path,
            csv=self.path / CSV_NAME,
            figure=self.path / FIGURE_NAME,
            summary=self.path / SUMMARY_NAME,
            headline=headline,
            seed=seed,
            quick=quick,
        )


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]], digits: int = 6) -> str:
    """A GitHub-markdown table; floats with ``digits`` significant digits, and ``|`` escaped in
    every cell, the header's included (``|e|`` would otherwise split a column)."""

    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.{digits}g}"
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(fmt(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def new_figure(ncols: int = 1, *, width: float = 6.4, height: float = 4.4) -> tuple[Any, Any]:
    """A figure with ``ncols`` axes side by side, on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, list(axes[0])


def header_lines(title: str, seed: int, quick: bool) -> str:
    """The first lines of a ``summary.md``."""
    mode = "quick (small) version" if quick else "full version"
    return f"# {title}\n\nRun: {mode}, seed {seed}. Produced by `optmech experiment`.\n"


def label_axes(
    ax: Any,
    xlabel: str,
    ylabel: str,
    title: str,
    *,
    log: str = "",
    title_size: float | None = None,
    **legend: Any,
) -> None:
    """Scales, axis labels, title, grid and legend of one panel.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel.
    xlabel, ylabel, title : str
        Its axis labels and title.
    log : str, default ""
        The axes on a log scale: ``""``, ``"y"`` or ``"xy"``. A panel with a log axis gets grid
        lines at the minor ticks too.
    title_size : float, optional
        Font size of the title; matplotlib's default if omitted.
    **legend
        Keyword arguments of ``ax.legend``.
    """
    if "x" in log:
        ax.set_xscale("log")
    if "y" in log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title_size is None:
        ax.set_title(title)
    else:
        ax.set_title(title, fontsize=title_size)
    ax.grid(True, which="both" if log else "major", alpha=0.3)
    ax.legend(**legend)


def plot_diagonal(ax: Any, lows: Sequence[Any], highs: Sequence[Any]) -> None:
    """Draw the diagonal ``y = x`` of a theorem-says-equal scatter plot.

    It runs from half the smallest value in ``lows`` to twice the largest in ``highs`` (arrays).
    """
    lo = float(min(a.min() for a in lows)) / 2
    hi = float(max(a.max() for a in highs)) * 2
    ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, label="diagonal (theorem)")


def finish(
    out: OutputFolder,
    fig: Any,
    title: str,
    body: Sequence[str],
    headline: dict[str, Any],
    *,
    seed: int,
    quick: bool,
) -> ExperimentResult:
    """Write ``figure.png`` and then ``summary.md``, and return the run's result.

    Parameters
    ----------
    out : OutputFolder
        The run's output folder (``results.csv`` already written).
    fig : matplotlib.figure.Figure
        The figure; closed once saved.
    title : str
        Title of ``summary.md``, followed by the run line of `header_lines`.
    body : sequence of str
        The rest of ``summary.md``, one item per line.
    headline : dict
        The key measured numbers.
    seed : int
        The seed of the run.
    quick : bool
        Whether the small version ran.

    Returns
    -------
    ExperimentResult
        The finished run.
    """
    out.write_figure(fig)
    out.write_summary("\n".join([header_lines(title, seed, quick), *body]))
    return out.result(headline, seed=seed, quick=quick)
