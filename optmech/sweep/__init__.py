"""Parameter sweeps: thousands of LPs or closed forms, resumable, on one machine or a Dask cluster.

A sweep is a spec (YAML or JSON: a task name, a grid of parameter values, fixed parameters)
expanded into tasks, each identified by a hash of its parameters. Results go to an embedded
SQLite store keyed by that hash, written one committed row per finished task, so a killed
sweep resumes where it stopped with no lost or duplicated rows and a finished task is never
recomputed; several sweeps may run on one store at once, each task claimed in the store before
it is computed. Tasks run through a ``concurrent.futures``-style executor: local processes by
default (they die with the sweep, and ignore Ctrl-C, which stops the sweep with what it kept),
or a Dask distributed cluster given its scheduler address.
"""

from optmech.sweep.runner import SweepInterrupted, SweepSummary, run_sweep
from optmech.sweep.spec import SweepSpec, load_spec, task_key
from optmech.sweep.store import ResultStore
from optmech.sweep.tasks import available_tasks, resolve_task, sweep_task

__all__ = [
    "ResultStore",
    "SweepInterrupted",
    "SweepSpec",
    "SweepSummary",
    "available_tasks",
    "load_spec",
    "resolve_task",
    "run_sweep",
    "sweep_task",
    "task_key",
]
