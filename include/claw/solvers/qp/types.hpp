// claw/solvers/qp/types.hpp: what a QP solve reports: the state of each constraint (QpActivity,
// QpActiveSet), the residuals the answer was checked with (QpResiduals) and the result (QpResult).
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// State of one constraint (a simple bound lb_i <= x_i <= ub_i or a row lbA_i <= a_i'x <= ubA_i)
/// in an active set.
enum class QpActivity : std::int8_t {
  Inactive = 0,  ///< not held at a bound; multiplier 0
  Lower = 1,     ///< held at its lower bound; multiplier >= 0
  Upper = 2,     ///< held at its upper bound; multiplier <= 0
  Equality = 3,  ///< lower == upper: an equality, always active; multiplier of either sign
};

/// An active set: one QpActivity per simple bound (`bounds`, n entries) and per row of A
/// (`constraints`, m entries), stored as std::int8_t. QpResult::active_set reports the solution's;
/// passing one to QpSolver::solve warm-starts it.
template <int N_ = Dynamic, int MaxN_ = N_, int M_ = Dynamic, int MaxM_ = M_>
struct QpActiveSet {
  /// n entries (at most MaxN), a QpActivity each.
  using BoundStates = Eigen::Matrix<std::int8_t, N_, 1, Eigen::ColMajor, MaxN_, 1>;
  /// m entries (at most MaxM), a QpActivity each.
  using ConstraintStates = Eigen::Matrix<std::int8_t, M_, 1, Eigen::ColMajor, MaxM_, 1>;

  /// State of each simple bound lb_j <= x_j <= ub_j, n entries.
  BoundStates bounds = BoundStates::Zero(N_ == Dynamic ? 0 : N_);
  /// State of each row lbA_i <= a_i'x <= ubA_i of A, m entries.
  ConstraintStates constraints = ConstraintStates::Zero(M_ == Dynamic ? 0 : M_);

  /// n bounds and m rows, all Inactive (allocates for dynamic sizes).
  void resize(Eigen::Index n, Eigen::Index m) {
    bounds.setZero(n);
    constraints.setZero(m);
  }
  /// Every entry Inactive.
  void clear() noexcept {
    bounds.setZero();
    constraints.setZero();
  }
  /// State of the bound on x_i.
  QpActivity bound(Eigen::Index i) const noexcept {
    return static_cast<QpActivity>(bounds.coeff(i));
  }
  /// State of row i of A.
  QpActivity constraint(Eigen::Index i) const noexcept {
    return static_cast<QpActivity>(constraints.coeff(i));
  }
  /// Sets the state of the bound on x_i.
  void set_bound(Eigen::Index i, QpActivity activity) noexcept {
    bounds.coeffRef(i) = static_cast<std::int8_t>(activity);
  }
  /// Sets the state of row i of A.
  void set_constraint(Eigen::Index i, QpActivity activity) noexcept {
    constraints.coeffRef(i) = static_cast<std::int8_t>(activity);
  }
  /// Number of entries that are not Inactive.
  Eigen::Index active_count() const noexcept {
    Eigen::Index count = 0;
    for (Eigen::Index i = 0; i < bounds.size(); ++i) count += bounds.coeff(i) != 0 ? 1 : 0;
    for (Eigen::Index i = 0; i < constraints.size(); ++i)
      count += constraints.coeff(i) != 0 ? 1 : 0;
    return count;
  }
  /// Same sizes and the same state in every entry.
  bool operator==(const QpActiveSet& other) const noexcept {
    if (bounds.size() != other.bounds.size() || constraints.size() != other.constraints.size())
      return false;
    for (Eigen::Index i = 0; i < bounds.size(); ++i)
      if (bounds.coeff(i) != other.bounds.coeff(i)) return false;
    for (Eigen::Index i = 0; i < constraints.size(); ++i)
      if (constraints.coeff(i) != other.constraints.coeff(i)) return false;
    return true;
  }
  /// Negation of operator==.
  bool operator!=(const QpActiveSet& other) const noexcept { return !(*this == other); }
};

/// The measures an answer is checked with (check_qp_answer, qp/verification.hpp), on the
/// unscaled problem. All >= 0; +inf when the status is not Ok. Ok holds exactly when primal and
/// complementarity are <= QpSettings::infeasibility_tolerance, stationarity <= stationarity_limit
/// and dual == 0.
template <typename Scalar>
struct QpResiduals {
  /// Largest relative violation: over every bound and row, its violation along the unit normal
  /// relative to 1 + |the violated bound| along it: (lbA_i - a_i'x) / (||a_i|| + |lbA_i|),
  /// (x_j - ub_j) / (1 + |ub_j|), ... (a violated zero row: 1).
  Scalar primal = infinity<Scalar>();
  /// ||Q x + g - A' lambda - mu||_inf (lambda, mu: QpResult multipliers).
  Scalar stationarity = infinity<Scalar>();
  /// stationarity_tolerance (1 + S), with
  /// S = max_j (||Q||_1 ||x||_inf + |g_j| + |A_j|'|lambda| + |mu_j|) over the columns j of A: a
  /// bound on the magnitude of the terms stationarity sums.
  Scalar stationarity_limit = infinity<Scalar>();
  /// Largest multiplier of the wrong sign: mu_i > 0 with lb_i = -inf, or mu_i < 0 with
  /// ub_i = +inf, likewise for lambda.
  Scalar dual = infinity<Scalar>();
  /// Largest relative distance (as for primal) between a constraint with a nonzero multiplier and
  /// the bound its sign selects (lbA_i for lambda_i > 0, ubA_i for lambda_i < 0).
  Scalar complementarity = infinity<Scalar>();
  /// The constraint primal is measured at (c < n: the bound on x_c; else row c - n); -1 when none
  /// is violated.
  Eigen::Index most_violated = -1;
};

/// What QpSolver::solve returns (a reference to the solver's own result: valid until the next call
/// that changes the solver).
///
/// Multiplier sign convention (that of qpOASES): at the solution
///   Q x + g = A' lambda + mu,
/// lambda_i >= 0 when row i is held at lbA_i, <= 0 when held at ubA_i, 0 when inactive, any sign
/// for an equality; mu likewise for the simple bounds.
///
/// Every status is decided by a check anyone can repeat from the problem and this result:
///  - Ok: x, multipliers, objective, residuals and active_set of the solution; the residuals pass
///    check_qp_answer (see QpResiduals). An answer of the iteration that fails the check is solved
///    again cold when it came from a warm start; if it still fails, the status is IllConditioned.
///  - Infeasible: constraint_multipliers hold a Farkas certificate y that check_qp_certificate
///    accepts (its inequality is written there: no point within the Ok tolerance exists), and
///    bound_multipliers the box part mu = -A'y where it counts; a user re-checks it from the
///    problem and y alone. x and objective hold the last Ok solution (zeros before the first).
///  - IllConditioned, MaxIterations, NumericalOverflow (the iteration ended on a point or
///    multipliers that overflowed: finite data of extreme range): neither an optimum nor
///    infeasibility is proved. x and objective hold the last Ok solution of this solver (zeros
///    before the first); multipliers 0; residuals +inf; active_set is the working set at the stop
///    (after MaxIterations, warm-starting from it with a larger cap continues the iteration).
///  - NonFiniteInput, InvalidBounds, InvalidProblem, SizeMismatch (input refused before any work):
///    nothing changes but status, iterations (0) and residuals (+inf).
template <typename Scalar, int N_ = Dynamic, int MaxN_ = N_, int M_ = Dynamic, int MaxM_ = M_>
struct QpResult {
  Status status = Status::InvalidProblem;       ///< before the first solve: InvalidProblem
  Vector<Scalar, N_, MaxN_> x;                  ///< the minimiser (see above for non-Ok statuses)
  Vector<Scalar, N_, MaxN_> bound_multipliers;  ///< mu, one per variable
  Vector<Scalar, M_, MaxM_> constraint_multipliers;  ///< lambda, one per row of A
  QpActiveSet<N_, MaxN_, M_, MaxM_> active_set;      ///< see QpActiveSet
  QpResiduals<Scalar> residuals;                     ///< see QpResiduals
  Scalar objective = Scalar(0);                      ///< 1/2 x'Qx + g'x at x
  int iterations = 0;  ///< active-set changes made by this solve (see QpSettings::max_iterations)
};
}  // namespace claw
