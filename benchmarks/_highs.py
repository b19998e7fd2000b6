"""The LP ``min c·x`` s.t. ``a_eq x = b_eq``, ``a_ub x ≤ b_ub``, ``x ≥ 0`` handed to HiGHS
through ``highspy``, without cvxpy: the direct baseline of the benchmarks.

[`highs_model`][highs_model] imports what it needs itself, so that its source also serves the
benchmarks' subprocess scripts that must not import cvxpy (``benchmarks.startup``).
"""

from __future__ import annotations

__all__ = ["highs_model"]


def highs_model(c, a_eq, b_eq, a_ub, b_ub, options):
    """A ``highspy.Highs`` holding the LP, not yet run: silent, with the solver ``options``
    (name → value), ``x ≥ 0`` as column bounds and the rows in column-wise sparse form.

    ``c``, ``b_eq`` and ``b_ub`` are float arrays, ``a_eq`` and ``a_ub`` scipy sparse
    matrices. No annotations: the subprocess scripts run this source as it stands, without
    ``typing``.
    """
    import highspy
    import numpy as np
    import scipy.sparse as sp

    a = sp.vstack([a_eq, a_ub], format="csc")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for key, val in options.items():
        h.setOptionValue(key, val)
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = c.size, a.shape[0]
    model.col_cost_ = c
    model.col_lower_ = np.zeros(c.size)
    model.col_upper_ = np.full(c.size, highspy.kHighsInf)
    model.row_lower_ = np.concatenate([b_eq, np.full(a_ub.shape[0], -highspy.kHighsInf)])
    model.row_upper_ = np.concatenate([b_eq, b_ub])
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = a.indptr
    model.a_matrix_.index_ = a.indices
    model.a_matrix_.value_ = a.data
    h.passModel(model)
    return h
