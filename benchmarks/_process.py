"""Whole-process measurements: wall time and a peak resident memory that cannot be inherited.

``getrusage(...).ru_maxrss`` of a child is not the child's own peak on Linux: the kernel keeps
the larger of the parent's resident size at ``fork`` and the child's later peaks across
``exec``, so a child launched from a 400 MB driver reports at least 400 MB whatever it does.
Two measurements that do not inherit:

``"proc"`` (Linux, the default where ``/proc/<pid>/status`` has ``VmHWM``)
    ``VmHWM`` is the high-water mark of the process's *own* address space, which ``exec``
    replaces by a new one. The parent reads it every ``poll`` seconds until the child exits;
    a Python case also reads its own at the very end (``_common.run_case``) and the larger is
    kept, so a peak reached after the parent's last read is not lost.
``"launcher"`` (any POSIX system)
    A small Python launcher forks and execs the command and reports the grandchild's
    ``ru_maxrss`` (``os.wait4``). What the grandchild inherits is the *launcher's* resident
    size (about 10 MB), not the driver's, so the figure is the child's own peak or, for a
    trivial child, at most the launcher's size.

Only the standard library: the benchmarks must run on a fresh machine with Python and pip.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ProcessRun", "default_method", "proc_peak_mb", "run_process"]

#: Executed as ``python -S -c _LAUNCHER fd argv...``; writes ``{"maxrss": bytes, "rc": code}``
#: to file descriptor ``fd``. ``ru_maxrss`` is in kilobytes on Linux and bytes on macOS.
_LAUNCHER = """
import json, os, sys
fd, argv = int(sys.argv[1]), sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.close(fd)
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
unit = 1 if sys.platform == "darwin" else 1024
rc = os.waitstatus_to_exitcode(status)
os.write(fd, json.dumps({"maxrss": usage.ru_maxrss * unit, "rc": rc}).encode())
os.close(fd)
"""


@dataclass(frozen=True)
class ProcessRun:
    """One finished (or timed-out) process: its output, wall time and peak memory.

    Attributes
    ----------
    returncode : int or None
        Exit code; None when the process was killed at the time limit.
    stdout, stderr : str
        Its output.
    wall : float
        Seconds from launch to exit, as the parent sees them.
    peak_rss_mb : float or None
        Peak resident memory of the process itself, in MB (10^6 bytes); None if unreadable.
    peak_source : str
        How it was measured: ``"VmHWM"`` or ``"launcher ru_maxrss"``.
    """

    returncode: int | None
    stdout: str
    stderr: str
    wall: float
    peak_rss_mb: float | None
    peak_source: str

    @property
    def timed_out(self) -> bool:
        """Whether the process was killed at the time limit."""
        return self.returncode is None


def proc_peak_mb(pid: int | str = "self") -> float | None:
    """``VmHWM`` of process ``pid`` in MB (10^6 bytes), or None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024 / 1e6
    except (OSError, ValueError):
        return None
    return None


def default_method() -> str:
    """``"proc"`` where this system exposes ``VmHWM``, else ``"launcher"``."""
    return "proc" if proc_peak_mb() is not None else "launcher"


def _reader(stream: object, sink: list[str]) -> threading.Thread:
    def read() -> None:
        sink.append(stream.read())  # type: ignore[attr-defined]

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def run_process(
    argv: Sequence[str],
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    method: str | None = None,
    poll: float = 0.01,
) -> ProcessRun:
    """Run ``argv`` to completion (or kill it after ``timeout`` s); time it and its peak memory.

    ``method`` is ``"proc"`` or ``"launcher"`` (module docstring); default
    [`default_method`][default_method].
    """
    method = method or default_method()
    if method not in ("proc", "launcher"):
        raise ValueError(f"`method` must be 'proc' or 'launcher'; got {method!r}.")
    report_r = report_w = -1
    cmd = list(argv)
    if method == "launcher":
        report_r, report_w = os.pipe()
        cmd = [sys.executable, "-S", "-c", _LAUNCHER, str(report_w), *cmd]
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        pass_fds=(report_w,) if method == "launcher" else (),
        start_new_session=True,  # a time-out kills the whole group (the launcher's child too)
    )
    if method == "launcher":
        os.close(report_w)
    out: list[str] = []
    err: list[str] = []
    threads = [_reader(proc.stdout, out), _reader(proc.stderr, err)]
    peak: float | None = None
    deadline = start + timeout
    timed_out = False
    while proc.poll() is None:
        if method == "proc":
            now = proc_peak_mb(proc.pid)
            if now is not None:
                peak = now if peak is None else max(peak, now)
        if time.perf_counter() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            timed_out = True
            break
        time.sleep(poll)
    proc.wait()
    wall = time.perf_counter() - start
    for thread in threads:
        thread.join()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    source = "VmHWM"
    returncode: int | None = None if timed_out else proc.returncode
    if method == "launcher":
        source = "launcher ru_maxrss"
        with os.fdopen(report_r, "rb") as fh:
            raw = fh.read()
        if raw:
            info = json.loads(raw)
            peak = info["maxrss"] / 1e6
            returncode = None if timed_out else int(info["rc"])
    return ProcessRun(returncode, "".join(out), "".join(err), wall, peak, source)
