"""Exceptions and warnings raised by optmech.

Bad arguments raise the built-in `ValueError` / `TypeError` with a message that
names the parameter, the valid range and the value received. Everything that goes wrong
*after* the arguments were accepted (a solver failing, a mechanism that is not private, a
problem too large to build) raises a subclass of [`OptmechError`][OptmechError].
"""

from __future__ import annotations

__all__ = [
    "InaccurateSolutionWarning",
    "InfeasibleConstraintsError",
    "OptmechError",
    "PrivacyViolationError",
    "ProblemTooLargeError",
    "SolverError",
]


class OptmechError(Exception):
    """Base class of every error optmech raises on its own account."""


class SolverError(OptmechError):
    """An LP solver failed, or returned a status other than optimal.

    Parameters
    ----------
    solver : str
        The solver's name as cvxpy knows it (HiGHS, Clarabel, ...).
    status : str
        The status the solver returned (``"infeasible"``, ``"solver_error"``, ...).
    hint : str, optional
        What the user can do about it.
    attempts : tuple, optional
        Every solver attempt made before giving up
        ([`optmech.provenance.Attempt`][optmech.provenance.Attempt]).
    """

    def __init__(
        self, solver: str, status: str, hint: str = "", *, attempts: tuple[object, ...] = ()
    ) -> None:
        self.solver = solver
        self.status = status
        self.hint = hint
        self.attempts = attempts
        message = f"solver {solver} returned status {status!r}"
        if hint:
            message += f"; {hint}"
        super().__init__(message)


class PrivacyViolationError(OptmechError):
    """A mechanism fails the privacy guarantee it was asked to satisfy, beyond tolerance.

    Raised by the checks of `optmech.certify` with ``debug=True`` (as OpenDP's
    ``check(d_in, d_out, debug=True)`` explains a failure), the message naming where the
    guarantee fails.

    Parameters
    ----------
    message : str
        The explanation.
    report : object, optional
        The certificate behind it (an `optmech.certify.report.PrivacyReport`), or None.
    """

    def __init__(self, message: str = "", *, report: object = None) -> None:
        self.report = report
        super().__init__(message)


class ProblemTooLargeError(OptmechError):
    """A problem would need more memory than allowed; refused before anything was built."""


class InfeasibleConstraintsError(OptmechError):
    """The caller's constraints admit no mechanism at the privacy level asked.

    Parameters
    ----------
    message : str
        The explanation, naming the constraints that cannot all hold.
    constraints : tuple of str
        The names of those constraints.
    """

    def __init__(self, message: str = "", *, constraints: tuple[str, ...] = ()) -> None:
        self.constraints = constraints
        super().__init__(message)


class InaccurateSolutionWarning(UserWarning):
    """A solver reported an inaccurate solution; the result was kept but should be checked."""
