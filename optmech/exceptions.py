"""Exceptions and warnings raised by optmech.

Bad arguments raise the built-in `ValueError` / `TypeError` with a message that
names the parameter, the valid range and the value received. Everything that goes wrong
*after* the arguments were accepted (a solver failing, a mechanism that is not private, a
problem too large to build) raises a subclass of `OptmechError`.
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
    """Base class of every error optmech raises on its own account.

    Examples
    --------
    >>> import optmech
    >>> issubclass(optmech.SolverError, optmech.OptmechError)
    True
    >>> try:
    ...     optmech.check_dp([[1.0, 0.0], [0.0, 1.0]], 1.0, debug=True)
    ... except optmech.OptmechError as exc:  # one class catches every optmech failure
    ...     type(exc).__name__
    'PrivacyViolationError'
    """


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
        (`optmech.provenance.Attempt`).

    Examples
    --------
    >>> import optmech
    >>> err = optmech.SolverError("my-solver", "infeasible", "check the constraints")
    >>> err.solver, err.status, isinstance(err, optmech.OptmechError)
    ('my-solver', 'infeasible', True)
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

    Examples
    --------
    >>> import optmech
    >>> try:
    ...     optmech.check(optmech.Laplace(epsilon=1.0), optmech.PureDP(0.5), debug=True)
    ... except optmech.PrivacyViolationError as exc:
    ...     round(exc.report.value, 6)  # the certificate: the achieved ε
    1.0
    """

    def __init__(self, message: str = "", *, report: object = None) -> None:
        self.report = report
        super().__init__(message)


class ProblemTooLargeError(OptmechError):
    """A problem would need more memory than allowed; refused before anything was built.

    Examples
    --------
    >>> import optmech
    >>> try:
    ...     optmech.bayesian_mechanism([1 / 500] * 500, "abs", 1.0, max_memory_gb=0.001)
    ... except optmech.ProblemTooLargeError as exc:
    ...     str(exc)[:22]
    'the user LP would have'
    """


class InfeasibleConstraintsError(OptmechError):
    """The caller's constraints admit no mechanism at the privacy level asked.

    Parameters
    ----------
    message : str
        The explanation, naming the constraints that cannot all hold.
    constraints : tuple of str
        The names of those constraints.

    Examples
    --------
    >>> import optmech
    >>> from optmech.constraints import MaxRisk
    >>> try:
    ...     optmech.local_mechanism([0.5, 0.5], "abs", 1.0, inputs=[0, 1],
    ...                             constraints=[MaxRisk(0.01)])
    ... except optmech.InfeasibleConstraintsError as exc:
    ...     print(exc.constraints)
    ('MaxRisk(bound=0.01)',)
    """

    def __init__(self, message: str = "", *, constraints: tuple[str, ...] = ()) -> None:
        self.constraints = constraints
        super().__init__(message)


class InaccurateSolutionWarning(UserWarning):
    """A solver reported an inaccurate solution; the result was kept but should be checked.

    Examples
    --------
    >>> import warnings
    >>> from optmech import InaccurateSolutionWarning
    >>> import optmech
    >>> with warnings.catch_warnings():  # refuse a result the solver calls inaccurate
    ...     warnings.simplefilter("error", InaccurateSolutionWarning)
    ...     noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs",
    ...                                  resolution=4, periods=2, symmetric=True)
    >>> issubclass(InaccurateSolutionWarning, UserWarning)
    True
    """
