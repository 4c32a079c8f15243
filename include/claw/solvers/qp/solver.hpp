// claw/solvers/qp/solver.hpp: QpSolver, the dense strictly convex QP solver (Goldfarb-Idnani dual
// active set, warm start); every answer's status is decided by the checks of qp/verification.hpp.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/assert.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/numerics.hpp"
#include "claw/solvers/detail/qp_linalg.hpp"
#include "claw/solvers/qp/settings.hpp"
#include "claw/solvers/qp/types.hpp"
#include "claw/solvers/qp/verification.hpp"

namespace claw {

/// Dense strictly convex QP solver:
///
///   minimise 1/2 x'Qx + g'x  subject to  lbA <= A x <= ubA,  lb <= x <= ub
///
/// with x of n variables and A of m rows; Q symmetric positive definite (the objective only sees
/// the symmetric part (Q + Q')/2, which is what is used). Any bound may be +-inf (that side is
/// absent); lbA_i == ubA_i (or lb_i == ub_i, a fixed variable) is an equality.
///
/// Method: the dual active-set method of Goldfarb and Idnani (1983). Q = L L' is factorised once
/// per set_hessian(); the solver keeps J = L^-T Qr and an upper-triangular R with L^-1 N = Qr [R; 0]
/// for the normals N of the working set W, updated by Givens rotations when a constraint enters or
/// leaves W. Each iteration adds the most violated constraint (distance along its unit normal),
/// moving x and the multipliers along the primal and dual directions, dropping any inequality whose
/// multiplier would turn negative first; x is always the minimiser over W with dual-feasible
/// multipliers, so the first x that violates nothing is the solution (x and the multipliers are
/// then computed once more from W directly, free of the rounding the steps accumulated, and the
/// test is repeated on that point, which is the one returned). Equalities enter W first and
/// never leave; a constraint that cannot enter W (linearly dependent on it) and that no multiplier
/// can make room for proves the problem Infeasible (unless its violation is at rounding level,
/// see QpSettings::infeasibility_tolerance). Simple bounds are cheap: their normal is a unit
/// vector, so J'n is a row of J and their violation costs O(1).
///
/// Warm start: solve(..., guess) starts from the working set W0 made of every equality, then every
/// constraint that `guess` marks Lower, Upper (or Equality, for a row that is no longer one: its
/// finite side) whose bound on that side is finite, in index order (bounds before rows), skipping
/// those linearly dependent on the ones before. x and the multipliers are set to the minimiser of
/// the QP with W0 held as equalities; while an inequality of W0 has a negative multiplier, the most
/// negative one is dropped (one iteration each). The Goldfarb-Idnani iteration then runs from there.
/// The answer is the same as a cold solve's (the minimiser is unique); only the path is shorter when
/// the guess is close to the final active set. A warm solve that ends without a verified answer
/// (IllConditioned) is repeated cold within the same call. When `guess` equals this solver's last
/// result().active_set and neither set_hessian() nor set_constraints() was called since, the last
/// factorisation is reused as is (inequalities whose bound became infinite leave W, rows that
/// became equalities join it, released equalities stay in W on their finite side until their
/// multiplier drops them): no refactorisation at all, which is what repeated solves with a changing
/// g and bounds (a homotopy, a branch and bound over bounds) want. Any guess is safe; a bad one only
/// costs iterations.
///
/// Sizes: N_ fixed (> 0), or Dynamic with MaxN_ > 0 (bounded, inline storage) or Dynamic (heap);
/// likewise M_ / MaxM_ (M_ = 0 is allowed: bounds only). Dynamic storage is allocated by the
/// constructor and reserve() only. set_hessian(), set_constraints() and solve() are noexcept,
/// allocate nothing and print nothing.
template <typename Scalar_, int N_, int M_, int MaxN_ = N_, int MaxM_ = M_>
class QpSolver {
 public:
  using Scalar = Scalar_;
  using Index = Eigen::Index;
  using HessianType = Eigen::Matrix<Scalar, N_, N_, Eigen::ColMajor, MaxN_, MaxN_>;
  using ConstraintMatrixType =
      Eigen::Matrix<Scalar, M_, N_, (N_ == 1 ? Eigen::ColMajor : Eigen::RowMajor), MaxM_, MaxN_>;
  using VectorN = Vector<Scalar, N_, MaxN_>;
  using VectorM = Vector<Scalar, M_, MaxM_>;
  using ActiveSet = QpActiveSet<N_, M_, MaxN_, MaxM_>;
  using Result = QpResult<Scalar, N_, M_, MaxN_, MaxM_>;
  using Settings = QpSettings<Scalar>;

  /// Fixed sizes: ready for set_hessian(). Dynamic sizes: empty until reserve().
  QpSolver() : QpSolver(N_ == Dynamic ? 0 : N_, M_ == Dynamic ? 0 : M_) {}

  /// A solver for n variables and m general constraints (allocates here for dynamic sizes).
  QpSolver(Index n, Index m) { reserve(n, m); }

  /// Sets the problem size to n variables and m rows of A, allocating for dynamic sizes (the only
  /// call besides the constructor that may). Forgets the Hessian, A and the last result.
  void reserve(Index n, Index m) {
    CLAW_ASSERT(n >= 0 && m >= 0, "QpSolver::reserve: negative size");
    CLAW_ASSERT(N_ == Dynamic || n == N_, "QpSolver::reserve: n differs from the fixed size");
    CLAW_ASSERT(M_ == Dynamic || m == M_, "QpSolver::reserve: m differs from the fixed size");
    CLAW_ASSERT(MaxN_ == Dynamic || n <= MaxN_, "QpSolver::reserve: n above MaxN");
    CLAW_ASSERT(MaxM_ == Dynamic || m <= MaxM_, "QpSolver::reserve: m above MaxM");
    n_ = n;
    m_ = m;
    for (HessianType* matrix : {&q_, &j0_, &j_, &r_}) matrix->setZero(n, n);
    a_.setZero(m, n);
    for (VectorN* v : {&g_, &lb_, &ub_, &x_, &u_, &d_, &z_, &work_, &work2_}) v->setZero(n);
    for (VectorM* v : {&lba_, &uba_, &ax_, &inv_norm_, &row_norm_}) v->setZero(m);
    inv_norm_.setOnes(m);
    w_index_.setZero(n);
    w_sign_.setZero(n);
    w_equality_.setZero(n);
    in_w_.setZero(n + m);
    refresh_dropped_.setZero(n + m);
    result_.x.setZero(n);
    result_.bound_multipliers.setZero(n);
    result_.constraint_multipliers.setZero(m);
    result_.active_set.resize(n, m);
    result_.residuals = QpResiduals<Scalar>{};
    result_.objective = Scalar(0);
    result_.iterations = 0;
    result_.status = Status::InvalidProblem;
    q_size_ = 0;
    set_aside_ = 0;
    has_hessian_ = false;
    has_constraints_ = (m == 0);
    factor_valid_ = false;
  }

  Index num_variables() const noexcept { return n_; }
  Index num_constraints() const noexcept { return m_; }

  /// Installs settings; InvalidParameter (old ones kept) when settings.validate() fails.
  Status set_settings(const Settings& settings) noexcept {
    const Status status = settings.validate();
    if (status == Status::Ok) settings_ = settings;
    return status;
  }
  const Settings& settings() const noexcept { return settings_; }

  /// Installs the Hessian Q (n x n; its symmetric part is used) and factorises it: O(n^3 / 3).
  /// SizeMismatch, NonFiniteInput (NaN/Inf entry), or InvalidProblem when Q is not positive
  /// definite (a Cholesky pivot <= n eps max_i Q_ii): the previous Hessian then stays installed,
  /// but the next warm start rebuilds its factorisation.
  template <typename DQ>
  Status set_hessian(const Eigen::MatrixBase<DQ>& q) noexcept {
    if (q.rows() != n_ || q.cols() != n_) return Status::SizeMismatch;
    if (!all_finite(q)) return Status::NonFiniteInput;
    factor_valid_ = false;  // r_ and j_ are the scratch space below
    for (Index c = 0; c < n_; ++c)
      for (Index i = c; i < n_; ++i)
        r_.coeffRef(i, c) = Scalar(0.5) * (q.coeff(i, c) + q.coeff(c, i));
    if (!detail::cholesky_lower_in_place(r_, n_)) return Status::InvalidProblem;
    detail::inverse_factor_reversed(r_, j0_, n_);
    for (Index c = 0; c < n_; ++c)
      for (Index i = 0; i < n_; ++i)
        q_.coeffRef(i, c) = Scalar(0.5) * (q.coeff(i, c) + q.coeff(c, i));
    q_norm_ = qp_matrix_norm1(q_);
    has_hessian_ = true;
    return Status::Ok;
  }

  /// Installs A (m x n). SizeMismatch or NonFiniteInput (old A kept). A zero row is allowed: it is
  /// feasible when lbA_i <= 0 <= ubA_i, else the problem is Infeasible.
  template <typename DA>
  Status set_constraints(const Eigen::MatrixBase<DA>& a) noexcept {
    if (a.rows() != m_ || a.cols() != n_) return Status::SizeMismatch;
    if (!all_finite(a)) return Status::NonFiniteInput;
    a_ = a;
    return constraints_installed();
  }

  /// Installs A = [top; middle; bottom] (row blocks stacked, any of them may have 0 rows) without
  /// forming the stacked matrix: as set_constraints(A) otherwise.
  template <typename D1, typename D2, typename D3>
  Status set_constraints(const Eigen::MatrixBase<D1>& top, const Eigen::MatrixBase<D2>& middle,
                         const Eigen::MatrixBase<D3>& bottom) noexcept {
    const Index r1 = top.rows(), r2 = middle.rows(), r3 = bottom.rows();
    if (r1 + r2 + r3 != m_ || (r1 > 0 && top.cols() != n_) || (r2 > 0 && middle.cols() != n_) ||
        (r3 > 0 && bottom.cols() != n_))
      return Status::SizeMismatch;
    if (!all_finite(top) || !all_finite(middle) || !all_finite(bottom)) return Status::NonFiniteInput;
    if (r1 > 0) a_.topRows(r1) = top;
    if (r2 > 0) a_.middleRows(r1, r2) = middle;
    if (r3 > 0) a_.bottomRows(r3) = bottom;
    return constraints_installed();
  }

  /// Cold solve with the installed Q and A: g (n), lb, ub (n), lbA, ubA (m). See QpResult for what
  /// each status leaves in the result. NaN anywhere or an infinite g: NonFiniteInput; lb_i > ub_i,
  /// lb_i = +inf or ub_i = -inf (same for rows): InvalidBounds; no Hessian (or m > 0 and no A):
  /// InvalidProblem.
  template <typename DG, typename DL, typename DU, typename DLA, typename DUA>
  [[nodiscard]] const Result& solve(const Eigen::MatrixBase<DG>& g, const Eigen::MatrixBase<DL>& lb,
                      const Eigen::MatrixBase<DU>& ub, const Eigen::MatrixBase<DLA>& lba,
                      const Eigen::MatrixBase<DUA>& uba) noexcept {
    return solve_impl(g, lb, ub, lba, uba, nullptr);
  }

  /// Warm-started solve from `guess` (e.g. result().active_set of the previous solve; aliasing the
  /// solver's own result is fine). See the class comment for exactly what the warm start does.
  /// A guess of the wrong size: SizeMismatch.
  template <typename DG, typename DL, typename DU, typename DLA, typename DUA>
  [[nodiscard]] const Result& solve(const Eigen::MatrixBase<DG>& g, const Eigen::MatrixBase<DL>& lb,
                      const Eigen::MatrixBase<DU>& ub, const Eigen::MatrixBase<DLA>& lba,
                      const Eigen::MatrixBase<DUA>& uba, const ActiveSet& guess) noexcept {
    return solve_impl(g, lb, ub, lba, uba, &guess);
  }

  /// Bounds-only cold solve (m must be 0, else SizeMismatch).
  template <typename DG, typename DL, typename DU>
  [[nodiscard]] const Result& solve(const Eigen::MatrixBase<DG>& g, const Eigen::MatrixBase<DL>& lb,
                      const Eigen::MatrixBase<DU>& ub) noexcept {
    return solve_impl(g, lb, ub, lba_.head(0), uba_.head(0), nullptr);
  }

  /// Installs Q and A, then solves cold: the status of a failed set_hessian / set_constraints is
  /// the result's status.
  template <typename DQ, typename DG, typename DA, typename DL, typename DU, typename DLA,
            typename DUA>
  [[nodiscard]] const Result& solve(const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DG>& g,
                      const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DL>& lb,
                      const Eigen::MatrixBase<DU>& ub, const Eigen::MatrixBase<DLA>& lba,
                      const Eigen::MatrixBase<DUA>& uba) noexcept {
    Status status = set_hessian(q);
    if (status == Status::Ok) status = set_constraints(a);
    if (status != Status::Ok) return refuse(status);
    return solve_impl(g, lb, ub, lba, uba, nullptr);
  }

  /// The result of the last solve.
  const Result& result() const noexcept { return result_; }
  /// True once a Hessian is installed.
  bool has_hessian() const noexcept { return has_hessian_; }

 private:
  /// After A changed: ||a_i|| and 1 / ||a_i|| (stableNorm: no overflow for huge rows; 1 for a zero row).
  Status constraints_installed() noexcept {
    for (Index i = 0; i < m_; ++i) {
      const Scalar norm = a_.row(i).stableNorm();
      row_norm_.coeffRef(i) = norm;
      inv_norm_.coeffRef(i) = norm > Scalar(0) ? Scalar(1) / norm : Scalar(1);
    }
    has_constraints_ = true;
    factor_valid_ = false;
    return Status::Ok;
  }

  // Constraint c in [0, n + m): c < n is the simple bound on x_c, else row c - n of A. In the
  // working set W (positions 0..q_size_-1) each entry has the normal sign * a_c and the right-hand
  // side b = lower (sign +1) or -upper (sign -1), as the inequality sign * a_c'x >= b; u_ holds its
  // multiplier (>= 0 for inequalities).

  Scalar lower(Index c) const noexcept { return c < n_ ? lb_.coeff(c) : lba_.coeff(c - n_); }
  Scalar upper(Index c) const noexcept { return c < n_ ? ub_.coeff(c) : uba_.coeff(c - n_); }
  bool is_equality(Index c) const noexcept { return lower(c) == upper(c); }
  Scalar inv_norm(Index c) const noexcept { return c < n_ ? Scalar(1) : inv_norm_.coeff(c - n_); }
  /// a_c'x at the current x_ (rows read ax_, which must be current).
  Scalar value(Index c) const noexcept { return c < n_ ? x_.coeff(c) : ax_.coeff(c - n_); }
  /// a_c'x computed afresh from x_ (for when ax_ is not current).
  Scalar value_at_x(Index c) const noexcept {
    if constexpr (M_ == 0) {
      return x_.coeff(c);
    } else {
      return c < n_ ? x_.coeff(c) : a_.row(c - n_).dot(x_);
    }
  }
  Scalar rhs(Index position) const noexcept {
    const Index c = w_index_.coeff(position);
    return w_sign_.coeff(position) > 0 ? lower(c) : -upper(c);
  }

  const Result& refuse(Status status) noexcept {
    result_.status = status;
    result_.iterations = 0;
    result_.residuals = QpResiduals<Scalar>{};
    return result_;
  }

  template <typename DG, typename DL, typename DU, typename DLA, typename DUA>
  const Result& solve_impl(const Eigen::MatrixBase<DG>& g, const Eigen::MatrixBase<DL>& lb,
                           const Eigen::MatrixBase<DU>& ub, const Eigen::MatrixBase<DLA>& lba,
                           const Eigen::MatrixBase<DUA>& uba, const ActiveSet* guess) noexcept {
    if (g.size() != n_ || lb.size() != n_ || ub.size() != n_ || lba.size() != m_ ||
        uba.size() != m_)
      return refuse(Status::SizeMismatch);
    if (guess != nullptr &&
        (guess->bounds.size() != n_ || guess->constraints.size() != m_))
      return refuse(Status::SizeMismatch);
    if (!has_hessian_ || !has_constraints_) return refuse(Status::InvalidProblem);
    if (!all_finite(g) || !none_nan(lb) || !none_nan(ub) || !none_nan(lba) || !none_nan(uba))
      return refuse(Status::NonFiniteInput);
    for (Index i = 0; i < n_; ++i)
      if (!valid_interval(lb.coeff(i), ub.coeff(i))) return refuse(Status::InvalidBounds);
    for (Index i = 0; i < m_; ++i)
      if (!valid_interval(lba.coeff(i), uba.coeff(i))) return refuse(Status::InvalidBounds);
    g_ = g;
    lb_ = lb;
    ub_ = ub;
    lba_ = lba;
    uba_ = uba;

    const bool reused = guess != nullptr && factor_valid_ && *guess == result_.active_set &&
                        reuse_factorisation();
    if (!reused) rebuild_working_set(guess);
    factor_valid_ = true;  // from here on j_, r_ always describe W

    int iterations = 0;
    Status status = iterate_and_verify(iterations);
    // A warm start that ends without a verified answer is repeated cold: the warm path's rounding
    // (a working set reached through nearly dependent members) is not the problem's.
    if (status == Status::IllConditioned && guess != nullptr) {
      rebuild_working_set(nullptr);
      status = iterate_and_verify(iterations);
    }
    result_.iterations = iterations;
    result_.status = status;
    write_active_set();
    if (status == Status::Ok) {
      result_.x = x_;
      result_.objective = objective_;
    } else {
      result_.residuals = QpResiduals<Scalar>{};
      if (status != Status::Infeasible) {
        result_.bound_multipliers.setZero();
        result_.constraint_multipliers.setZero();
      }
    }
    return result_;
  }

  /// Runs the iteration from the current W and decides the status: Ok only when the candidate
  /// passes check_qp_answer (its multipliers and residuals are then in result_), Infeasible only
  /// with a checked certificate (infeasibility_verdict), NumericalOverflow when the candidate or
  /// its residuals overflowed (finite data of extreme range), IllConditioned when it fails its check.
  Status iterate_and_verify(int& iterations) noexcept {
    Status status = iterate(iterations);
    clear_set_aside();
    if (status != Status::Ok) return status;
    if (!(all_finite(x_) && all_finite(u_.head(q_size_)))) return Status::NumericalOverflow;
    write_multipliers();
    QpResiduals<Scalar>& res = result_.residuals;
    if (check_qp_answer(q_, q_norm_, g_, a_, row_norm_, lb_, ub_, lba_, uba_, x_, result_.bound_multipliers,
                        result_.constraint_multipliers, settings_.infeasibility_tolerance,
                        settings_.stationarity_tolerance, res, objective_))
      return Status::Ok;
    const bool finite = std::isfinite(res.primal) && std::isfinite(res.stationarity) &&
                        std::isfinite(res.stationarity_limit);
    if (!finite) return Status::NumericalOverflow;
    // A candidate that misses a constraint outside W beyond the Ok tolerance: the iteration took
    // that miss for rounding (it was within its own threshold t (1 + ||x||)); what W says about it
    // is asked the same way as for a miss beyond the threshold.
    const Index worst = res.most_violated;
    if (res.primal > settings_.infeasibility_tolerance && in_w_.coeff(worst) != 1 &&
        infeasibility_verdict(worst, value(worst) < lower(worst) ? 1 : -1) == Status::Infeasible)
      return Status::Infeasible;
    return Status::IllConditioned;
  }

  /// The verdict on constraint p violated on side `sign` (+1: below its lower bound) while its
  /// normal is dependent on W, n_p = N r (N: W's signed normals, r = R^-1 J' n_p) with no
  /// inequality of W able to make room (r_k <= 0 on W's inequalities): the Farkas vector
  /// y = e_p - sum_k r_k e_{c_k} on the signed constraints, written as row multipliers
  /// (lambda = y sign; W's bounds are left to the box). Infeasible when check_qp_certificate proves
  /// it, IllConditioned otherwise. Every caller that meets such a p asks here. Uses d_, work2_.
  Status infeasibility_verdict(Index p, int sign) noexcept {
    compute_d(p, sign);
    solve_r(d_, work2_);
    VectorM& y = result_.constraint_multipliers;
    y.setZero();
    if (p >= n_) y.coeffRef(p - n_) += static_cast<Scalar>(sign);
    for (Index k = 0; k < q_size_; ++k) {
      const Index c = w_index_.coeff(k);
      if (c >= n_) y.coeffRef(c - n_) -= static_cast<Scalar>(w_sign_.coeff(k)) * work2_.coeff(k);
    }
    const bool certified = check_qp_certificate(a_, row_norm_, lb_, ub_, lba_, uba_, y, result_.bound_multipliers,
                                settings_.infeasibility_tolerance);
    return certified ? Status::Infeasible : Status::IllConditioned;
  }

  static bool valid_interval(Scalar lo, Scalar hi) noexcept {
    return lo <= hi && lo < infinity<Scalar>() && hi > -infinity<Scalar>();
  }

  // --- factorisation updates --------------------------------------------------------------------

  /// d_ = J' (sign a_c); returns the index one past the last nonzero of d_ (at least q_size_).
  Index compute_d(Index c, int sign) noexcept {
    if constexpr (M_ == 0) {
      d_ = j_.row(c).transpose();
    } else if (c < n_) {
      d_ = j_.row(c).transpose();
    } else {
      d_.noalias() = j_.transpose() * a_.row(c - n_).transpose();
    }
    if (sign < 0) d_ = -d_;
    Index end = n_;
    while (end > q_size_ && d_.coeff(end - 1) == Scalar(0)) --end;
    return end;
  }

  /// W's conditioning kappa = max_k ||R(0..k, k)|| / |R_kk| (1 for an empty W): one over the
  /// smallest sine with which a member of W joined the members before it. O(q^2).
  Scalar working_set_condition() const noexcept {
    Scalar kappa2 = Scalar(1);
    for (Index k = 0; k < q_size_; ++k) {
      const Scalar rkk2 = r_.coeff(k, k) * r_.coeff(k, k);
      const Scalar column2 = r_.col(k).head(k + 1).squaredNorm();
      if (column2 > kappa2 * rkk2) kappa2 = column2 / rkk2;
    }
    return std::sqrt(kappa2);
  }

  /// Whether the normal of d_ (computed for the current W) is dependent on W's normals; also
  /// returns ||d2||^2, the squared norm of the part of d_ outside W.
  /// The test is on the sine of the angle between the new normal and W's span (in the metric of Q),
  /// against two allowances: dependence_tolerance, and W's rounding 16 eps kappa, where kappa >= 1
  /// is W's own conditioning, kappa = max_k ||R(0..k, k)|| / |R_kk| (one over the smallest sine
  /// with which a member of W joined the members before it; column k of R is J' n_k, so this holds
  /// after removals too). The complement basis J2 is computed to about eps kappa: a smaller ||d2||
  /// is W's rounding, not a new direction. (The product dependence_tolerance * kappa would be too
  /// wide: it drops real directions of moderately conditioned working sets; docs/numerics.md.)
  /// Dependent: sine <= the larger allowance (a miss of a dependent constraint beyond the
  /// threshold goes to infeasibility_verdict, whose certificate check decides).
  bool dependent(Index end, Scalar& d2_norm2) const noexcept {
    d2_norm2 = Scalar(0);
    if (q_size_ >= n_ || end <= q_size_) return true;
    d2_norm2 = d_.segment(q_size_, end - q_size_).squaredNorm();
    if (!(d2_norm2 > Scalar(0))) return true;
    const Scalar d_norm2 = d2_norm2 + d_.head(q_size_).squaredNorm();
    const Scalar rounding = detail::working_set_rounding(working_set_condition());
    const Scalar rounding2 = rounding * rounding;
    const Scalar tol2 = settings_.dependence_tolerance * settings_.dependence_tolerance;
    return !(d2_norm2 > (tol2 > rounding2 ? tol2 : rounding2) * d_norm2);
  }

  /// Appends constraint c (normal sign a_c, d_ = J' sign a_c already computed, nonzero up to end)
  /// to W with multiplier u: rotates d_'s tail into position q and J's columns alike.
  void append(Index c, int sign, bool equality, Index end, Scalar u) noexcept {
    restore_set_aside();
    const Index q = q_size_;
    for (Index k = end - 1; k > q; --k) {
      if (d_.coeff(k) == Scalar(0)) continue;
      Scalar cs, sn;
      d_.coeffRef(k - 1) = detail::make_givens(d_.coeff(k - 1), d_.coeff(k), cs, sn);
      d_.coeffRef(k) = Scalar(0);
      detail::rotate_columns(j_, n_, k - 1, k, cs, sn);
    }
    for (Index i = 0; i <= q; ++i) r_.coeffRef(i, q) = d_.coeff(i);
    w_index_.coeffRef(q) = c;
    w_sign_.coeffRef(q) = static_cast<std::int8_t>(sign);
    w_equality_.coeffRef(q) = static_cast<std::int8_t>(equality ? 1 : 0);
    u_.coeffRef(q) = u;
    in_w_.coeffRef(c) = 1;
    q_size_ = q + 1;
  }

  /// Adds c to W with multiplier 0 when it is independent of W; returns whether it was added.
  bool try_append(Index c, int sign, bool equality) noexcept {
    const Index end = compute_d(c, sign);
    Scalar d2_norm2;
    if (dependent(end, d2_norm2)) return false;
    append(c, sign, equality, end, Scalar(0));
    return true;
  }

  /// Removes position k from W: shifts R's columns left and restores its triangle by rotations
  /// of rows (k, k+1), (k+1, k+2), ... applied to J's columns alike.
  void remove(Index k) noexcept {
    restore_set_aside();
    const Index q = q_size_;
    in_w_.coeffRef(w_index_.coeff(k)) = 0;
    for (Index col = k; col + 1 < q; ++col) {
      for (Index i = 0; i <= col + 1; ++i) r_.coeffRef(i, col) = r_.coeff(i, col + 1);
      w_index_.coeffRef(col) = w_index_.coeff(col + 1);
      w_sign_.coeffRef(col) = w_sign_.coeff(col + 1);
      w_equality_.coeffRef(col) = w_equality_.coeff(col + 1);
      u_.coeffRef(col) = u_.coeff(col + 1);
    }
    for (Index col = k; col + 1 < q; ++col) {
      Scalar cs, sn;
      r_.coeffRef(col, col) = detail::make_givens(r_.coeff(col, col), r_.coeff(col + 1, col), cs, sn);
      r_.coeffRef(col + 1, col) = Scalar(0);
      detail::rotate_rows(r_, col + 1, q - 1, col, col + 1, cs, sn);
      detail::rotate_columns(j_, n_, col, col + 1, cs, sn);
    }
    q_size_ = q - 1;
  }

  /// Solves R(0:q, 0:q) out = rhs (upper triangular, back substitution); out may alias rhs.
  template <typename DIn, typename DOut>
  void solve_r(const DIn& rhs, DOut& out) const noexcept {
    for (Index j = q_size_ - 1; j >= 0; --j) {
      Scalar s = rhs.coeff(j);
      for (Index i = j + 1; i < q_size_; ++i) s -= r_.coeff(j, i) * out.coeff(i);
      out.coeffRef(j) = s / r_.coeff(j, j);
    }
  }

  /// Solves R(0:q, 0:q)' v = v in place (lower triangular, forward substitution).
  template <typename D>
  void solve_r_transposed(D& v) const noexcept {
    for (Index j = 0; j < q_size_; ++j) {
      Scalar s = v.coeff(j);
      for (Index i = 0; i < j; ++i) s -= r_.coeff(i, j) * v.coeff(i);
      v.coeffRef(j) = s / r_.coeff(j, j);
    }
  }

  // --- working set ------------------------------------------------------------------------------

  /// W0 from scratch: every equality, then the guess's active constraints (see the class comment).
  void rebuild_working_set(const ActiveSet* guess) noexcept {
    j_ = j0_;
    q_size_ = 0;
    in_w_.setZero();
    const Index total = n_ + m_;
    for (Index c = 0; c < total; ++c)
      if (is_equality(c)) try_append(c, 1, true);
    if (guess == nullptr) return;
    for (Index c = 0; c < total; ++c) {
      if (is_equality(c) || q_size_ >= n_) continue;
      const auto state = static_cast<QpActivity>(c < n_ ? guess->bounds.coeff(c)
                                                        : guess->constraints.coeff(c - n_));
      const bool lower_finite = lower(c) > -infinity<Scalar>();
      const bool upper_finite = upper(c) < infinity<Scalar>();
      int sign = 0;
      if (state == QpActivity::Lower && lower_finite) sign = 1;
      if (state == QpActivity::Upper && upper_finite) sign = -1;
      if (state == QpActivity::Equality) sign = lower_finite ? 1 : (upper_finite ? -1 : 0);
      if (sign != 0) try_append(c, sign, false);
    }
  }

  /// Adapts the last factorisation (W = result_.active_set) to the new bounds: an inequality whose
  /// bound became infinite leaves W; a row that became an equality turns into one in W, or joins
  /// W; an equality that became an inequality stays in W on its finite side (pointing the normal
  /// that way is a sign change of R's column), to be dropped later if its multiplier says so.
  /// A new equality dependent on W takes the place of the inequality of W it leans on most. False
  /// when adapting is not possible (an equality released while another one is held out of W as
  /// dependent): then W is rebuilt.
  bool reuse_factorisation() noexcept {
    const Index total = n_ + m_;
    const auto was_equality = [&](Index c) {
      return (c < n_ ? result_.active_set.bounds.coeff(c)
                     : result_.active_set.constraints.coeff(c - n_)) ==
             static_cast<std::int8_t>(QpActivity::Equality);
    };
    bool released = false, held_out = false;
    for (Index c = 0; c < total; ++c) {
      if (!was_equality(c)) continue;
      released |= !is_equality(c);
      held_out |= in_w_.coeff(c) == 0;
    }
    if (released && held_out) return false;  // the held-out one may depend on the released one
    for (Index k = q_size_ - 1; k >= 0; --k) {
      const Index c = w_index_.coeff(k);
      if (is_equality(c)) {
        w_equality_.coeffRef(k) = 1;
        continue;
      }
      const bool lower_finite = lower(c) > -infinity<Scalar>();
      const bool upper_finite = upper(c) < infinity<Scalar>();
      int sign = w_sign_.coeff(k);
      if (w_equality_.coeff(k) != 0) {  // released: keep its finite side, lower first
        w_equality_.coeffRef(k) = 0;
        sign = lower_finite ? 1 : (upper_finite ? -1 : 0);
      } else if (!(sign > 0 ? lower_finite : upper_finite)) {
        sign = 0;
      }
      if (sign == 0) {
        remove(k);
      } else if (sign != w_sign_.coeff(k)) {
        w_sign_.coeffRef(k) = static_cast<std::int8_t>(sign);
        for (Index i = 0; i <= k; ++i) r_.coeffRef(i, k) = -r_.coeff(i, k);
      }
    }
    for (Index c = 0; c < total; ++c) {
      if (!is_equality(c) || in_w_.coeff(c) != 0 || was_equality(c)) continue;  // in W, or held out
      if (try_append(c, 1, true)) continue;
      // Its normal is N r: make room by dropping the inequality of W with the largest |r_k|;
      // none (r on equalities only): it is held out, dependent on W's equalities, like a rebuild
      // would do.
      solve_r(d_, work2_);
      Index widest = -1;
      Scalar widest_r = Scalar(0), largest_r = Scalar(0);
      for (Index k = 0; k < q_size_; ++k) {
        const Scalar rk = std::fabs(work2_.coeff(k));
        largest_r = rk > largest_r ? rk : largest_r;
        if (w_equality_.coeff(k) == 0 && rk > widest_r) {
          widest_r = rk;
          widest = k;
        }
      }
      if (widest < 0 || widest_r <= settings_.dependence_tolerance * largest_r) continue;
      remove(widest);
      if (!try_append(c, 1, true)) return false;
    }
    return true;
  }

  /// x_ and u_ for W held as equalities: with y = J'g and R' v = b_W,
  /// x = J1 v - J2 y2 and u = R^-1 (v + y1). O(n^2).
  void compute_primal_dual() noexcept {
    const Index q = q_size_;
    work_.noalias() = j_.transpose() * g_;
    for (Index j = 0; j < q; ++j) work2_.coeffRef(j) = rhs(j);
    solve_r_transposed(work2_);
    if (q > 0) {
      x_.noalias() = j_.leftCols(q) * work2_.head(q);
    } else {
      x_.setZero();
    }
    if (q < n_) x_.noalias() -= j_.rightCols(n_ - q) * work_.tail(n_ - q);
    for (Index j = 0; j < q; ++j) work2_.coeffRef(j) += work_.coeff(j);
    solve_r(work2_, u_);
    // One step of iterative refinement of x on W's rows (O(n q)): with res_k = b_k - sign_k n_k'x,
    // R' dv = res and x += J1 dv (J2 is orthogonal to W's normals, so x's other part is unchanged).
    // It brings W's residual from eps kappa^2 down to about eps kappa (one step suffices).
    for (Index j = 0; j < q; ++j) {
      const Scalar n_x = value_at_x(w_index_.coeff(j));
      work2_.coeffRef(j) = rhs(j) - (w_sign_.coeff(j) > 0 ? n_x : -n_x);
    }
    solve_r_transposed(work2_);
    if (q > 0) x_.noalias() += j_.leftCols(q) * work2_.head(q);
    // A simple bound in W holds exactly: its coordinate is the bound, not the solve's rounding of
    // it (which a tight infeasibility_tolerance would count as a violation).
    for (Index k = 0; k < q; ++k) {
      const Index c = w_index_.coeff(k);
      if (c < n_) x_.coeffRef(c) = w_sign_.coeff(k) > 0 ? lb_.coeff(c) : ub_.coeff(c);
    }
  }

  /// tolerance (1 + ||x||_inf).
  Scalar threshold(Scalar tolerance) const noexcept {
    const Scalar x_norm = n_ > 0 ? x_.cwiseAbs().maxCoeff() : Scalar(0);
    return tolerance * (Scalar(1) + x_norm);
  }

  /// sign a_c'x - (its bound on that side): negative when c is violated on that side.
  Scalar slack(Index c, int sign) const noexcept { return sign > 0 ? value(c) - lower(c) : upper(c) - value(c); }

  /// Equalities left out of W as dependent, and constraints set aside as implied by W's
  /// equalities (in_w_ 3), must hold at x (implied by W's equalities, or constant for a zero
  /// row): the first that misses by more than the infeasibility threshold gets the verdict of
  /// infeasibility_verdict. Ok when every one holds. Needs ax_ current; uses d_, work2_.
  Status held_out_status() noexcept {
    const Scalar tol = threshold(settings_.infeasibility_tolerance);
    const Index total = n_ + m_;
    for (Index c = 0; c < total; ++c) {
      const bool held_out = is_equality(c) ? in_w_.coeff(c) == 0 : in_w_.coeff(c) == 3;
      if (!held_out) continue;
      const Scalar v = value(c), lo = lower(c), hi = upper(c);
      const Scalar miss = v < lo ? lo - v : (v > hi ? v - hi : Scalar(0));
      if (!(miss * inv_norm(c) > tol)) continue;
      return infeasibility_verdict(c, v < lo ? 1 : -1);
    }
    return Status::Ok;
  }

  /// Ends a solve: constraints set aside (2, 3) are outside W again.
  void clear_set_aside() noexcept {
    const Index total = n_ + m_;
    for (Index c = 0; c < total; ++c)
      if (in_w_.coeff(c) >= 2) in_w_.coeffRef(c) = 0;
    set_aside_ = 0;
  }

  /// Constraints set aside at a degenerate vertex (in_w_ == 2) come back once W changes.
  void restore_set_aside() noexcept {
    if (set_aside_ == 0) return;
    const Index total = n_ + m_;
    for (Index c = 0; c < total; ++c)
      if (in_w_.coeff(c) == 2) in_w_.coeffRef(c) = 0;
    set_aside_ = 0;
  }

  void update_ax() noexcept {
    if (m_ > 0) ax_.noalias() = a_ * x_;
  }

  /// x_ and u_ afresh from W (compute_primal_dual) once steps have been taken. The steps kept
  /// every inequality multiplier >= 0, but they carry rounding: about eps kappa |u|, and more
  /// where W passed through a nearly dependent set (large multipliers cancelling). A fresh
  /// multiplier below -16 eps kappa max|u| is real: its constraint leaves W (one iteration, as in a warm start) and x_, u_ are computed again; one
  /// within that rounding is set to 0. A constraint leaves this way once per solve: back in W
  /// (a vertex that is feasible only within the tolerance: dropped, violated, added, negative
  /// again) its multiplier is set to 0 instead, and the report's stationarity shows it. Then
  /// a_i'x. False when the iteration cap stops it; `dropped` says whether W changed.
  bool refresh_from_working_set(int& iterations, bool& dropped) noexcept {
    dropped = false;
    for (;;) {
      compute_primal_dual();
      Scalar largest = Scalar(0);
      for (Index k = 0; k < q_size_; ++k) {
        const Scalar uk = std::fabs(u_.coeff(k));
        largest = uk > largest ? uk : largest;
      }
      Scalar most_negative =
          -detail::working_set_rounding(working_set_condition()) * largest;
      Index worst = -1;
      for (Index k = 0; k < q_size_; ++k)
        if (w_equality_.coeff(k) == 0 && u_.coeff(k) < most_negative &&
            refresh_dropped_.coeff(w_index_.coeff(k)) == 0) {
          most_negative = u_.coeff(k);
          worst = k;
        }
      if (worst < 0) break;
      if (iterations >= settings_.max_iterations) return false;
      ++iterations;
      refresh_dropped_.coeffRef(w_index_.coeff(worst)) = 1;
      remove(worst);
      dropped = true;
    }
    for (Index k = 0; k < q_size_; ++k)
      if (w_equality_.coeff(k) == 0 && u_.coeff(k) < Scalar(0)) u_.coeffRef(k) = Scalar(0);
    update_ax();
    return true;
  }

  // --- the iteration ----------------------------------------------------------------------------

  Status iterate(int& iterations) noexcept {
    const int cap = settings_.max_iterations;
    refresh_dropped_.setZero();
    compute_primal_dual();
    update_ax();
    const Status held_out = held_out_status();
    if (held_out != Status::Ok) return held_out;
    // Warm start: restore dual feasibility by dropping the most negative inequality multiplier.
    for (;;) {
      Index worst = -1;
      Scalar most_negative = Scalar(0);
      for (Index k = 0; k < q_size_; ++k)
        if (w_equality_.coeff(k) == 0 && u_.coeff(k) < most_negative) {
          most_negative = u_.coeff(k);
          worst = k;
        }
      if (worst < 0) break;
      if (iterations >= cap) return Status::MaxIterations;
      ++iterations;
      remove(worst);
      compute_primal_dual();
    }
    update_ax();

    bool fresh = true;  // x_ and u_ computed from W directly, not by steps
    for (;;) {
      // The most violated constraint (distance along its unit normal) outside W.
      Scalar worst = threshold(settings_.feasibility_tolerance);
      Index p = -1;
      int sign = 0;
      const auto consider = [&](Index c, Scalar lo, Scalar hi, Scalar v, Scalar scale) {
        // In W (1), set aside (2), or an equality (in W or implied by W's equalities).
        if (in_w_.coeff(c) != 0 || lo == hi) return;
        const Scalar below = (lo - v) * scale;
        const Scalar above = (v - hi) * scale;
        if (below > worst) {
          worst = below;
          p = c;
          sign = 1;
        }
        if (above > worst) {
          worst = above;
          p = c;
          sign = -1;
        }
      };
      for (Index i = 0; i < n_; ++i)
        consider(i, lb_.coeff(i), ub_.coeff(i), x_.coeff(i), Scalar(1));
      for (Index i = 0; i < m_; ++i)
        consider(n_ + i, lba_.coeff(i), uba_.coeff(i), ax_.coeff(i), inv_norm_.coeff(i));
      if (p < 0) {
        // Checked again at the answer: the tolerance scales with ||x||, and a warm start may have
        // begun far away (a zero row with 0 outside [lbA, ubA] passed there).
        if (fresh) return held_out_status();
        // Solved up to the rounding the steps accumulated: restart from the fresh minimiser over
        // W (O(n^2)), which must pass the test as well. Constraints set aside at the stepped x come
        // back: their miss was judged at a point that carried the steps' rounding.
        bool dropped = false;
        if (!refresh_from_working_set(iterations, dropped)) return Status::MaxIterations;
        restore_set_aside();
        fresh = true;
        continue;
      }
      // fresh stays true until a step: a p set aside or found to hold leaves x as computed from W.

      // s = sign a_p'x - b_p < 0; add p, taking partial steps (drops) until it enters W.
      Scalar s = slack(p, sign);
      Scalar u_p = Scalar(0);
      for (;;) {
        const Index end = compute_d(p, sign);
        Scalar d2_norm2;
        const bool is_dependent = dependent(end, d2_norm2);
        // r = R^-1 d1: how the multipliers of W change per unit of u_p.
        solve_r(d_, work2_);
        // max |r_k| over W, and over W's inequalities (the set-aside below uses both).
        Scalar r_largest = Scalar(0), r_inequalities = Scalar(0);
        for (Index k = 0; k < q_size_; ++k) {
          const Scalar rk = std::fabs(work2_.coeff(k));
          r_largest = rk > r_largest ? rk : r_largest;
          if (w_equality_.coeff(k) == 0) r_inequalities = rk > r_inequalities ? rk : r_inequalities;
        }
        // A dependent p whose miss is within infeasibility_tolerance is headed for the set-aside
        // below (x does not move in its dual step, so the miss is known now). On that path an r_k
        // within r's rounding, 16 eps kappa max|r|, is 0 in exact arithmetic and blocks nothing
        // (as a block it would drop a member that the refresh then finds violated again: a cycle).
        // A miss beyond the tolerance keeps every positive r_k as a block: the drops lead to room
        // for p or to infeasibility_verdict.
        const bool headed_for_set_aside =
            is_dependent && !(-s * inv_norm(p) > threshold(settings_.infeasibility_tolerance));
        const Scalar r_rounding =
            headed_for_set_aside ? detail::working_set_rounding(working_set_condition()) * r_largest : Scalar(0);
        Scalar t_dual = infinity<Scalar>();
        Index blocking = -1;
        for (Index k = 0; k < q_size_; ++k) {
          const Scalar rk = work2_.coeff(k);
          if (w_equality_.coeff(k) != 0 || !(rk > r_rounding)) continue;
          const Scalar ratio = u_.coeff(k) / rk;
          if (ratio < t_dual) {
            t_dual = ratio;
            blocking = k;
          }
        }
        if (blocking < 0 && is_dependent) {
          // n_p = N r with r <= 0 on W's inequalities: every point satisfying W violates p by -s.
          // x has drifted by rounding over the steps: s is measured again at the fresh minimiser
          // over W (when x is not fresh already and no partial step for p moved x off it).
          // Constraints set aside at the stepped x come back, as at the final refresh (each
          // restore needs a step since the last one: no loop without iterations).
          if (u_p == Scalar(0) && !fresh) {
            bool dropped = false;
            if (!refresh_from_working_set(iterations, dropped)) return Status::MaxIterations;
            restore_set_aside();
            fresh = true;
            s = slack(p, sign);
            // The drift may have been all of it: at the fresh point p holds on this side (it may
            // be violated on the other one). Choose the most violated constraint again.
            if (!(s < Scalar(0))) break;
            // p's direction, dependence, r and the set-aside test afresh: W may have changed, the
            // recomputation used work2_, and the miss at the fresh x decides which r_k may block.
            continue;
          }
          // Beyond the threshold: every point satisfying W (x up to rounding) misses p, so the
          // problem is infeasible when the certificate this gives holds; else nothing is proved.
          if (-s * inv_norm(p) > threshold(settings_.infeasibility_tolerance))
            return infeasibility_verdict(p, sign);
          // Rounding at a degenerate vertex: fold u_p n_p = N (u_p r) into W, set p aside.
          for (Index k = 0; k < q_size_; ++k) {
            Scalar uk = u_.coeff(k) + u_p * work2_.coeff(k);
            if (w_equality_.coeff(k) == 0 && uk < Scalar(0)) uk = Scalar(0);
            u_.coeffRef(k) = uk;
          }
          // A normal in the span of W's equalities alone stays dependent while they are in W,
          // that is for the rest of the solve: set aside for good (3), checked at the answer
          // (bringing it back with every change of W would only repeat add, drop, set aside).
          const bool implied = !(r_inequalities > settings_.dependence_tolerance * r_largest);
          in_w_.coeffRef(p) = implied ? 3 : 2;
          if (!implied) ++set_aside_;
          break;
        }
        if (iterations >= cap) return Status::MaxIterations;
        ++iterations;
        fresh = false;  // a step follows (also after a refresh above): the answer is refreshed again
        const Scalar t_primal = is_dependent ? infinity<Scalar>() : -s / d2_norm2;
        const bool full = !is_dependent && t_primal <= t_dual;
        // Neither step exists: the primal step is NaN (x or s overflowed on extreme data).
        if (!full && blocking < 0) return Status::NumericalOverflow;
        const Scalar t = full ? t_primal : t_dual;
        if (!is_dependent) {
          // z = J2 d2: the primal direction (Q z = n_p - N r).
          z_.noalias() = j_.middleCols(q_size_, end - q_size_) * d_.segment(q_size_, end - q_size_);
          x_.noalias() += t * z_;
          s += t * d2_norm2;
        }
        for (Index k = 0; k < q_size_; ++k) {
          Scalar uk = u_.coeff(k) - t * work2_.coeff(k);
          if (w_equality_.coeff(k) == 0 && uk < Scalar(0)) uk = Scalar(0);
          u_.coeffRef(k) = uk;
        }
        u_p += t;
        if (full) {
          append(p, sign, false, end, u_p);
          break;
        }
        u_.coeffRef(blocking) = Scalar(0);
        remove(blocking);
      }
      update_ax();
    }
  }

  // --- output -----------------------------------------------------------------------------------

  void write_active_set() noexcept {
    ActiveSet& set = result_.active_set;
    const Index total = n_ + m_;
    for (Index c = 0; c < total; ++c) {
      const std::int8_t state =
          is_equality(c) ? static_cast<std::int8_t>(QpActivity::Equality) : std::int8_t{0};
      if (c < n_) {
        set.bounds.coeffRef(c) = state;
      } else {
        set.constraints.coeffRef(c - n_) = state;
      }
    }
    for (Index k = 0; k < q_size_; ++k) {
      const Index c = w_index_.coeff(k);
      if (is_equality(c)) continue;
      const auto state = static_cast<std::int8_t>(w_sign_.coeff(k) > 0 ? QpActivity::Lower
                                                                       : QpActivity::Upper);
      if (c < n_) {
        set.bounds.coeffRef(c) = state;
      } else {
        set.constraints.coeffRef(c - n_) = state;
      }
    }
  }

  /// The candidate's multipliers from W's u (sign convention of QpResult).
  void write_multipliers() noexcept {
    result_.bound_multipliers.setZero();
    result_.constraint_multipliers.setZero();
    for (Index k = 0; k < q_size_; ++k) {
      const Index c = w_index_.coeff(k);
      const Scalar multiplier = w_sign_.coeff(k) > 0 ? u_.coeff(k) : -u_.coeff(k);
      if (c < n_) {
        result_.bound_multipliers.coeffRef(c) = multiplier;
      } else {
        result_.constraint_multipliers.coeffRef(c - n_) = multiplier;
      }
    }
  }

  // --- data -------------------------------------------------------------------------------------

  static constexpr int kTotal = (N_ == Dynamic || M_ == Dynamic) ? Dynamic : N_ + M_;
  static constexpr int kMaxTotal =
      (MaxN_ == Dynamic || MaxM_ == Dynamic) ? Dynamic : MaxN_ + MaxM_;

  Index n_ = 0;
  Index m_ = 0;
  Settings settings_;
  HessianType q_;   // symmetric part of Q
  HessianType j0_;  // L^-T P (reversed columns): J for the empty working set
  HessianType j_;   // J = L^-T Qr for the working set
  HessianType r_;   // R (upper triangle of the top-left q x q block); scratch in set_hessian
  ConstraintMatrixType a_;
  VectorM inv_norm_;  // 1 / ||a_i|| (1 for a zero row; inf for a row of subnormal norm)
  VectorM row_norm_;  // ||a_i||, what the checks measure with
  VectorN g_, lb_, ub_;
  VectorM lba_, uba_, ax_;
  VectorN x_, u_, d_, z_, work_, work2_;
  Eigen::Matrix<Index, N_, 1, Eigen::ColMajor, MaxN_, 1> w_index_;
  Eigen::Matrix<std::int8_t, N_, 1, Eigen::ColMajor, MaxN_, 1> w_sign_;
  Eigen::Matrix<std::int8_t, N_, 1, Eigen::ColMajor, MaxN_, 1> w_equality_;
  Eigen::Matrix<std::int8_t, kTotal, 1, Eigen::ColMajor, kMaxTotal, 1> in_w_;
  Eigen::Matrix<std::int8_t, kTotal, 1, Eigen::ColMajor, kMaxTotal, 1> refresh_dropped_;  // this solve
  Scalar objective_ = Scalar(0);  // of the last candidate checked
  Scalar q_norm_ = Scalar(0);     // ||Q||_1 of the installed Hessian
  Index q_size_ = 0;
  Index set_aside_ = 0;  // constraints with in_w_ == 2 (3: set aside until the solve ends)
  bool has_hessian_ = false;
  bool has_constraints_ = false;
  bool factor_valid_ = false;
  Result result_;
};

/// Dynamic-size solvers (allocate in the constructor / reserve() only).
using QpSolverXd = QpSolver<double, Dynamic, Dynamic>;
using QpSolverXf = QpSolver<float, Dynamic, Dynamic>;

}  // namespace claw

