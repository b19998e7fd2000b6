"""Sweeps as processes: workers die with a SIGKILLed sweep, Ctrl-C stops a sweep with one line
saying what was kept, two sweeps on one store compute each task once, and the claims that make
that so (taken atomically, left to live owners, taken over from dead ones)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from optmech.sweep import ResultStore, SweepSpec, load_spec, run_sweep
from optmech.sweep.store import STALE_AFTER, ClaimOwner

HERE = Path(__file__).resolve().parent
#: How long a test waits for something that takes well under a second (it polls; a slow,
#: shared machine only makes it wait longer, never fail).
PATIENCE = 60.0


@pytest.fixture(autouse=True)
def _helpers_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }


def _spec_file(tmp_path: Path, n: int, delay: float, log: Path, name: str = "sq") -> Path:
    spec = tmp_path / f"{name}.json"
    spec.write_text(
        json.dumps(
            {
                "name": name,
                "task": "_sweep_helpers:logged_square",
                "grid": {"x": list(range(n))},
                "fixed": {"delay": delay, "log": str(log)},
            }
        ),
        encoding="utf-8",
    )
    return spec


def _as_from_a_terminal() -> None:
    """In the child before ``exec``: Ctrl-C delivered and handled as in an interactive shell.
    A process inherits its signal mask and ignored signals; a test runner's worker may block or
    ignore SIGINT (a background job does), and then no sweep could see a Ctrl-C."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _sweep(spec: Path, store: Path, workers: int, *extra: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "optmech", "sweep", str(spec), "--store", str(store)]
    return subprocess.Popen(
        [*argv, "--workers", str(workers), *extra],
        env=_env(),
        start_new_session=True,  # its own process group: signals reach it and its workers only
        preexec_fn=_as_from_a_terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _sigint_reaches(pid: int) -> bool:
    """Whether SIGINT is neither blocked nor ignored in process ``pid`` (from /proc)."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    bit = 1 << (signal.SIGINT - 1)
    return not any(int(fields[name].strip(), 16) & bit for name in ("SigBlk", "SigIgn"))


def _children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie awaiting its reaper is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _wait_for(predicate: object, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {PATIENCE} s for {what}")
        time.sleep(0.1)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_workers_die_when_the_sweep_is_killed(tmp_path: Path) -> None:
    """SIGKILL of the driving process alone (not its group): its workers, busy with 60 s
    tasks, end too."""
    log = tmp_path / "log"
    proc = _sweep(_spec_file(tmp_path, 4, 60.0, log), tmp_path / "s.sqlite", 2)
    _wait_for(lambda: log.exists() and len(log.read_text().splitlines()) >= 2, "2 tasks started")
    workers = _children(proc.pid)
    assert len(workers) >= 2
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=PATIENCE)
    _wait_for(lambda: not any(_alive(pid) for pid in workers), "the workers to end")


def test_ctrl_c_stops_the_sweep_with_one_line_saying_what_was_kept(tmp_path: Path) -> None:
    log = tmp_path / "log"
    store = tmp_path / "s.sqlite"
    proc = _sweep(_spec_file(tmp_path, 40, 0.3, log), store, 2)

    def some_stored() -> bool:
        if not store.exists():
            return False
        with sqlite3.connect(store) as con:
            try:
                return con.execute("SELECT COUNT(*) FROM results").fetchone()[0] >= 3
            except sqlite3.OperationalError:
                return False

    _wait_for(some_stored, "3 rows")
    workers = _children(proc.pid) if Path("/proc/self/stat").exists() else set()
    if Path("/proc/self/status").exists():
        assert _sigint_reaches(proc.pid)  # as from a terminal: Ctrl-C is seen
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole group
    _, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    with ResultStore(store) as db:
        stored = len(db.done_keys())
        assert db.claims() == []  # released
    assert 3 <= stored < 40
    assert err.strip() == f"optmech sweep: interrupted: {stored} of 40 tasks stored in {store}"
    _wait_for(lambda: not any(_alive(pid) for pid in workers), "the workers to end")


def test_two_sweeps_on_one_store_compute_each_task_once(tmp_path: Path) -> None:
    n = 16
    log = tmp_path / "log"
    spec = _spec_file(tmp_path, n, 0.2, log)
    store = tmp_path / "shared.sqlite"
    ResultStore(store).close()  # both start on an existing store
    first = _sweep(spec, store, 2, "--json")
    second = _sweep(spec, store, 2, "--json")
    outputs = [p.communicate(timeout=5 * PATIENCE) for p in (first, second)]
    assert [p.returncode for p in (first, second)] == [0, 0], outputs
    computed = Counter(float(line) for line in log.read_text().splitlines())
    assert computed == Counter({float(x): 1 for x in range(n)})  # each task once, all of them
    summaries = [json.loads(out) for out, _ in outputs]
    assert sum(s["completed"] for s in summaries) == n
    for s in summaries:  # each saw every task finished, by itself or by the other
        assert s["completed"] + s["done_elsewhere"] + s["already_done"] == n
    with ResultStore(store) as db:
        rows = db.rows()
        assert db.claims() == []
    assert sorted(r["result"]["square"] for r in rows) == [float(x * x) for x in range(n)]


# -- claims ---------------------------------------------------------------------------------------
def _dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_claim_is_taken_once_left_to_a_live_owner_and_taken_over_from_a_dead_one(
    tmp_path: Path,
) -> None:
    with ResultStore(tmp_path / "c.sqlite") as db:
        me, other = ClaimOwner(), ClaimOwner()
        since = time.time()
        assert db.claim("k", me, since=since) == "claimed"
        assert db.claim("k", me, since=since) == "claimed"  # ours already
        assert db.claim("k", other, since=since) == "busy"  # this process is alive
        dead = ClaimOwner(pid=_dead_pid())
        assert db.claim("j", dead, since=since) == "claimed"
        assert db.claim("j", me, since=since) == "claimed"  # its owner died: taken over
        far = ClaimOwner(host="another-host")
        assert db.claim("h", far, since=since) == "claimed"
        assert db.claim("h", me, since=since) == "busy"  # fresh heartbeat elsewhere
        db._conn.execute(
            "UPDATE claims SET heartbeat = ? WHERE key = 'h'", (since - 2 * STALE_AFTER,)
        )
        assert db.claim("h", me, since=since) == "claimed"  # its heartbeat stopped
        db.record("k", sweep="s", task="t", params={}, result={}, seconds=0.0, owner=me)
        assert db.claim("k", other, since=since) == "done"
        assert {c["key"] for c in db.claims()} == {"j", "h"}  # recording released "k"
        assert db.release_claims(me) == 2 and db.claims() == []


def test_a_task_failed_by_a_concurrent_sweep_is_not_retried_at_once(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "c.sqlite") as db:
        before = time.time()
        db.record("old", sweep="s", task="t", params={}, result=None, seconds=0.0, error="E: x")
        since = time.time()
        db.record("new", sweep="s", task="t", params={}, result=None, seconds=0.0, error="E: y")
        owner = ClaimOwner()
        assert db.claim("new", owner, since=since) == "done"  # failed during this run
        assert db.claim("old", owner, since=since) == "claimed"  # failed before: retried
        assert before <= since


def test_a_sweep_takes_over_the_claims_of_a_dead_sweep(tmp_path: Path) -> None:
    log = tmp_path / "log"
    spec = load_spec(_spec_file(tmp_path, 4, 0.0, log))
    store = tmp_path / "s.sqlite"
    dead = ClaimOwner(pid=_dead_pid())
    with ResultStore(store) as db:
        for key, _ in spec.tasks():
            assert db.claim(key, dead, since=time.time()) == "claimed"
    summary = run_sweep(spec, store=store, workers=1)
    assert (summary.completed, summary.elsewhere) == (4, 0)
    assert sorted(float(x) for x in log.read_text().splitlines()) == [0.0, 1.0, 2.0, 3.0]


def test_a_sweep_waits_for_a_live_owner_and_counts_its_results(tmp_path: Path) -> None:
    """Tasks claimed by another live sweep are not computed here; once that sweep records
    them, this one counts them as done elsewhere."""
    spec = SweepSpec(task="_sweep_helpers:slow_square", grid={"x": [1, 2, 3]}, name="w")
    store = tmp_path / "w.sqlite"
    other = ClaimOwner(host="another-host")
    (first_key, first_params), *_ = spec.tasks()
    with ResultStore(store) as db:
        db.claim(first_key, other, since=time.time())
    finisher = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from optmech.sweep import ResultStore; "
            "from optmech.sweep.store import ClaimOwner; time.sleep(1.0); "
            f"db = ResultStore({str(store)!r}); "
            f"db.record({first_key!r}, sweep='w', task='t', params={first_params!r}, "
            "result={'square': -1.0}, seconds=0.0)",
        ],
        env=_env(),
    )
    summary = run_sweep(spec, store=store, workers=1)
    finisher.wait(timeout=PATIENCE)
    assert (summary.completed, summary.elsewhere) == (2, 1)
    with ResultStore(store) as db:
        squares = {r["key"]: r["result"]["square"] for r in db.rows()}
    assert squares[first_key] == -1.0  # the other sweep's result, not recomputed here


def test_stopping_a_pool_whose_worker_died_first_raises_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Ctrl-C can kill a worker still starting (before it ignores SIGINT); the executor's
    wake-up pipe is then closed and its shutdown raises BrokenPipeError. Stopping the pool (what
    the sweep does on Ctrl-C) must not raise it in place of the interrupt: the command would
    then exit 0, as for a closed output pipe, instead of 130."""
    from optmech.sweep.runner import _timed
    from optmech.sweep.workers import ProcessPool

    pool = ProcessPool(_timed, "_sweep_helpers:logged_square", 1)

    def closed_pipe(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    real = pool._pool.shutdown
    monkeypatch.setattr(pool._pool, "shutdown", closed_pipe)
    pool.stop()  # raises nothing
    real(wait=True)
