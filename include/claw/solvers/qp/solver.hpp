// claw/solvers/qp/solver.hpp: QpSolver, the dense strictly convex QP solver (Goldfarb-Idnani dual
// active set, warm start); every answer's status is decided by the checks of qp/verification.hpp.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>

#include "claw/core/assert.hpp"
#include "claw/core/interval.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/qp/dual_active_set.hpp"
#include "claw/solvers/qp/settings.hpp"
#include "claw/solvers/qp/types.hpp"
#include "claw/solvers/qp/verification.hpp"
#include "claw/solvers/qp/working_set.hpp"

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
/// per set_hessian(); the solver keeps J = L^-T Qr and an upper-triangular R with
/// L^-1 N = Qr [R; 0] for the normals N of the working set W, updated by Givens rotations when a
/// constraint enters or leaves W. Each iteration adds the most violated constraint (distance along
/// its unit normal), moving x and the multipliers along the primal and dual directions, dropping
/// any inequality whose multiplier would turn negative first; x is always the minimiser over W with
/// dual-feasible multipliers, so the first x that violates nothing is the solution (x and the
/// multipliers are then computed once more from W directly, free of the rounding the steps
/// accumulated, and the test is repeated on that point, which is the one returned). Equalities
/// enter W first and never leave; a violated constraint that cannot enter W (linearly dependent on
/// it) and that no multiplier can make room for yields a Farkas vector, and the answer is
/// Infeasible only when check_qp_certificate accepts it. Simple bounds are cheap: their normal is a
/// unit vector, so J'n is a row of J and their violation costs O(1). Every candidate answer is
/// verified by check_qp_answer before it is Ok (QpResult says what each status guarantees).
///
/// Layout: the iteration is detail::QpDualActiveSet (qp/dual_active_set.hpp) over the factors J, R
/// (qp/factorization.hpp) and the working set (qp/working_set.hpp); this class validates the
/// inputs, builds the warm start's working set, verifies the candidate and writes the result.
///
/// Warm start: solve(..., guess) starts from the working set W0 made of every equality, then every
/// constraint that `guess` marks Lower, Upper (or Equality, for a row that is no longer one: its
/// finite side) whose bound on that side is finite, in index order (bounds before rows), skipping
/// those linearly dependent on the ones before. x and the multipliers are set to the minimiser of
/// the QP with W0 held as equalities; while an inequality of W0 has a negative multiplier, the most
/// negative one is dropped (one iteration each). The Goldfarb-Idnani iteration then runs from
/// there. The answer is the same as a cold solve's (the minimiser is unique); only the path is
/// shorter when the guess is close to the final active set. A warm solve that ends without a
/// verified answer (IllConditioned) is repeated cold within the same call. When `guess` equals this
/// solver's last result().active_set and neither set_hessian() nor set_constraints() was called
/// since, the last factorisation is reused as is (inequalities whose bound became infinite leave W,
/// rows that became equalities join it, released equalities stay in W on their finite side until
/// their multiplier drops them): no refactorisation at all, which is what repeated solves with a
/// changing g and bounds (a homotopy, a branch and bound over bounds) want. Any guess is safe; a
/// bad one only costs iterations.
///
/// Sizes, in claw's one parameter order (core/types.hpp): N_ fixed (> 0, MaxN_ = N_), or Dynamic
/// with MaxN_ > 0 (bounded, inline storage) or Dynamic (heap); likewise M_ / MaxM_ (M_ = 0 is
/// allowed: bounds only). QpSolver<double, 7, 7, 4> is 7 variables and 4 rows; QpSolver<double>
/// is sized at run time. Dynamic storage is allocated by the constructor and reserve() only.
/// set_hessian(), set_constraints() and solve() are noexcept, allocate nothing and print nothing.
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_, int M_ = Dynamic, int MaxM_ = M_>
class QpSolver : private detail::QpDualActiveSet<Scalar_, N_, MaxN_, M_, MaxM_> {
  static_assert(N_ == Dynamic || N_ == MaxN_,
                "QpSolver<Scalar, N, MaxN, M, MaxM>: a fixed N needs MaxN == N");
  static_assert(M_ == Dynamic || M_ == MaxM_,
                "QpSolver<Scalar, N, MaxN, M, MaxM>: a fixed M needs MaxM == M");
  using Base = detail::QpDualActiveSet<Scalar_, N_, MaxN_, M_, MaxM_>;

 public:
  using Scalar = Scalar_;                          ///< the scalar type (float or double)
  using Index = Eigen::Index;                      ///< index and size type
  using HessianType = typename Base::HessianType;  ///< type of Q, n x n
  using ConstraintMatrixType = typename Base::ConstraintMatrixType;  ///< type of A, m x n
  using VectorN = typename Base::VectorN;                            ///< n entries
  using VectorM = typename Base::VectorM;                            ///< m entries
  using ActiveSet = QpActiveSet<N_, MaxN_, M_, MaxM_>;               ///< see QpActiveSet
  using Result = QpResult<Scalar, N_, MaxN_, M_, MaxM_>;             ///< see QpResult
  using Settings = QpSettings<Scalar>;                               ///< see QpSettings

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
    Base::resize(n, m);
    result_.x.setZero(n);
    result_.bound_multipliers.setZero(n);
    result_.constraint_multipliers.setZero(m);
    result_.active_set.resize(n, m);
    result_.residuals = QpResiduals<Scalar>{};
    result_.objective = Scalar(0);
    result_.iterations = 0;
    result_.status = Status::InvalidProblem;
    has_hessian_ = false;
    has_constraints_ = (m == 0);
    factor_valid_ = false;
  }

  Index num_variables() const noexcept { return n_; }    ///< n, the number of variables
  Index num_constraints() const noexcept { return m_; }  ///< m, the number of rows of A

  /// Installs settings; InvalidParameter (old ones kept) when settings.validate() fails.
  Status set_settings(const Settings& settings) noexcept {
    const Status status = settings.validate();
    if (status == Status::Ok) settings_ = settings;
    return status;
  }
  const Settings& settings() const noexcept { return settings_; }  ///< the installed settings

  /// Installs the Hessian Q (n x n; its symmetric part is used) and factorises it: O(n^3 / 3).
  /// SizeMismatch, NonFiniteInput (NaN/Inf entry), or InvalidProblem when Q is not positive
  /// definite (a Cholesky pivot <= n eps max_i Q_ii): the previous Hessian then stays installed,
  /// but the next warm start rebuilds its factorisation.
  template <typename DQ>
  Status set_hessian(const Eigen::MatrixBase<DQ>& q) noexcept {
    if (q.rows() != n_ || q.cols() != n_) return Status::SizeMismatch;
    if (!all_finite(q)) return Status::NonFiniteInput;
    factor_valid_ = false;  // factorize() overwrites J and R
    if (!factors_.factorize(q)) return Status::InvalidProblem;
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
    if (!all_finite(top) || !all_finite(middle) || !all_finite(bottom))
      return Status::NonFiniteInput;
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
                                    const Eigen::MatrixBase<DU>& ub,
                                    const Eigen::MatrixBase<DLA>& lba,
                                    const Eigen::MatrixBase<DUA>& uba) noexcept {
    return solve_impl(g, lb, ub, lba, uba, nullptr);
  }

  /// Warm-started solve from `guess` (e.g. result().active_set of the previous solve; aliasing the
  /// solver's own result is fine). See the class comment for exactly what the warm start does.
  /// A guess of the wrong size: SizeMismatch.
  template <typename DG, typename DL, typename DU, typename DLA, typename DUA>
  [[nodiscard]] const Result& solve(const Eigen::MatrixBase<DG>& g, const Eigen::MatrixBase<DL>& lb,
                                    const Eigen::MatrixBase<DU>& ub,
                                    const Eigen::MatrixBase<DLA>& lba,
                                    const Eigen::MatrixBase<DUA>& uba,
                                    const ActiveSet& guess) noexcept {
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
                                    const Eigen::MatrixBase<DU>& ub,
                                    const Eigen::MatrixBase<DLA>& lba,
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
  // The storage and the iteration (qp/dual_active_set.hpp) this class drives.
  using Base::a_, Base::factors_, Base::g_, Base::inv_norm_, Base::lb_, Base::lba_, Base::m_,
      Base::n_, Base::objective_, Base::q_, Base::q_norm_, Base::result_, Base::row_norm_,
      Base::settings_, Base::ub_, Base::uba_, Base::work2_, Base::work_, Base::working_set_,
      Base::x_, Base::d_;
  using Base::is_equality, Base::lower, Base::upper, Base::value, Base::try_append, Base::remove,
      Base::infeasibility_verdict;
  using Membership = detail::QpMembership;

  /// After A changed: ||a_i|| and 1 / ||a_i|| (detail::euclidean_norm: no overflow for huge rows; 1
  /// for a zero row).
  Status constraints_installed() noexcept {
    for (Index i = 0; i < m_; ++i) {
      const Scalar norm = detail::euclidean_norm(a_.row(i));
      row_norm_.coeffRef(i) = norm;
      inv_norm_.coeffRef(i) = norm > Scalar(0) ? Scalar(1) / norm : Scalar(1);
    }
    has_constraints_ = true;
    factor_valid_ = false;
    return Status::Ok;
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
    if (guess != nullptr && (guess->bounds.size() != n_ || guess->constraints.size() != m_))
      return refuse(Status::SizeMismatch);
    if (!has_hessian_ || !has_constraints_) return refuse(Status::InvalidProblem);
    if (!all_finite(g)) return refuse(Status::NonFiniteInput);
    const Status bounds = detail::bound_pairs_status(lb, ub, lba, uba);
    if (bounds != Status::Ok) return refuse(bounds);
    g_ = g;
    lb_ = lb;
    ub_ = ub;
    lba_ = lba;
    uba_ = uba;

    int iterations = 0;
    const Status status = solve_from(guess, iterations);
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

  /// Solves the installed problem from W0 (the last factorisation adapted when the guess repeats
  /// its active set, else rebuilt from the guess) and decides the status (iterate_and_verify). A
  /// warm start that ends without a verified answer is repeated cold: the warm path's rounding (a
  /// working set reached through nearly dependent members) is not the problem's. Defined below the
  /// class, not inline: an explicit instantiation of the solver then holds the whole iteration.
  Status solve_from(const ActiveSet* guess, int& iterations) noexcept;

  /// Runs the iteration from the current W and decides the status: Ok only when the candidate
  /// passes check_qp_answer (its multipliers and residuals are then in result_), Infeasible only
  /// with a checked certificate (infeasibility_verdict), NumericalOverflow when the candidate or
  /// its residuals overflowed (finite data of extreme range), IllConditioned when it fails its
  /// check.
  Status iterate_and_verify(int& iterations) noexcept {
    Status status = Base::iterate(iterations);
    working_set_.end_solve();
    if (status != Status::Ok) return status;
    write_multipliers();
    QpResiduals<Scalar>& res = result_.residuals;
    if (check_qp_answer(q_, q_norm_, g_, a_, row_norm_, lb_, ub_, lba_, uba_, x_,
                        result_.bound_multipliers, result_.constraint_multipliers,
                        settings_.infeasibility_tolerance, settings_.stationarity_tolerance, res,
                        objective_, work_, work2_))
      return Status::Ok;
    // A NaN or Inf in x or a multiplier makes the stationarity residual NaN or Inf.
    const bool finite = std::isfinite(res.primal) && std::isfinite(res.stationarity) &&
                        std::isfinite(res.stationarity_limit);
    if (!finite) return Status::NumericalOverflow;
    // A candidate that misses a constraint outside W beyond the Ok tolerance: the iteration took
    // that miss for rounding (it was within its own threshold t (1 + ||x||)); what W says about it
    // is asked the same way as for a miss beyond the threshold.
    const Index worst = res.most_violated;
    if (res.primal > settings_.infeasibility_tolerance &&
        working_set_.membership(worst) != Membership::Active &&
        infeasibility_verdict(worst, value(worst) < lower(worst) ? 1 : -1) == Status::Infeasible)
      return Status::Infeasible;
    return Status::IllConditioned;
  }

  // --- warm start -----------------------------------------------------------------------------

  /// W0 from scratch: every equality, then the guess's active constraints (see the class comment).
  void rebuild_working_set(const ActiveSet* guess) noexcept {
    factors_.reset();
    working_set_.clear();
    const Index total = n_ + m_;
    for (Index c = 0; c < total; ++c)
      if (is_equality(c)) try_append(c, 1, true);
    if (guess == nullptr) return;
    for (Index c = 0; c < total; ++c) {
      if (is_equality(c) || working_set_.size() >= n_) continue;
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
    bool released = false, held_out = false;
    for (Index c = 0; c < total; ++c) {
      if (!was_equality(c)) continue;
      released |= !is_equality(c);
      held_out |= working_set_.membership(c) == Membership::Outside;
    }
    if (released && held_out) return false;  // the held-out one may depend on the released one
    adapt_members();
    return admit_new_equalities();
  }

  /// Whether the last result held constraint c as an equality.
  bool was_equality(Index c) const noexcept {
    const QpActiveSet<N_, MaxN_, M_, MaxM_>& last = result_.active_set;
    return (c < n_ ? last.bound(c) : last.constraint(c - n_)) == QpActivity::Equality;
  }

  /// W's members under the new bounds: equalities are marked so, a released equality keeps its
  /// finite side (lower first), an inequality whose side became infinite leaves W.
  void adapt_members() noexcept {
    for (Index k = working_set_.size() - 1; k >= 0; --k) {
      const Index c = working_set_.constraint(k);
      if (is_equality(c)) {
        working_set_.set_equality(k, true);
        continue;
      }
      const bool lower_finite = lower(c) > -infinity<Scalar>();
      const bool upper_finite = upper(c) < infinity<Scalar>();
      int sign = working_set_.sign(k);
      if (working_set_.equality(k)) {  // released
        working_set_.set_equality(k, false);
        sign = lower_finite ? 1 : (upper_finite ? -1 : 0);
      } else if (!(sign > 0 ? lower_finite : upper_finite)) {
        sign = 0;
      }
      if (sign == 0) {
        remove(k);
      } else if (sign != working_set_.sign(k)) {
        working_set_.set_sign(k, sign);
        factors_.flip(k);
      }
    }
  }

  /// Rows that became equalities join W. One dependent on W takes the place of the inequality of
  /// W it leans on most (its normal is N r: the largest |r_k| over W's inequalities); none (r on
  /// equalities only): it is held out, dependent on W's equalities, as a rebuild would do. False
  /// when it still cannot join.
  bool admit_new_equalities() noexcept {
    for (Index c = 0; c < n_ + m_; ++c) {
      if (!is_equality(c) || working_set_.membership(c) != Membership::Outside || was_equality(c))
        continue;  // in W, or held out
      if (try_append(c, 1, true)) continue;
      factors_.solve_r(d_, work2_);
      Index widest = -1;
      Scalar widest_r = Scalar(0), largest_r = Scalar(0);
      for (Index k = 0; k < working_set_.size(); ++k) {
        const Scalar rk = std::fabs(work2_.coeff(k));
        largest_r = rk > largest_r ? rk : largest_r;
        if (!working_set_.equality(k) && rk > widest_r) {
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
    for (Index k = 0; k < working_set_.size(); ++k) {
      const Index c = working_set_.constraint(k);
      if (is_equality(c)) continue;
      const auto state = static_cast<std::int8_t>(working_set_.sign(k) > 0 ? QpActivity::Lower
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
    const VectorN& u = working_set_.multipliers();
    for (Index k = 0; k < working_set_.size(); ++k) {
      const Index c = working_set_.constraint(k);
      const Scalar multiplier = working_set_.sign(k) > 0 ? u.coeff(k) : -u.coeff(k);
      if (c < n_) {
        result_.bound_multipliers.coeffRef(c) = multiplier;
      } else {
        result_.constraint_multipliers.coeffRef(c - n_) = multiplier;
      }
    }
  }

  bool has_hessian_ = false;
  bool has_constraints_ = false;
  bool factor_valid_ = false;  // factors_ and working_set_ describe result_.active_set
};

template <typename Scalar_, int N_, int MaxN_, int M_, int MaxM_>
Status QpSolver<Scalar_, N_, MaxN_, M_, MaxM_>::solve_from(const ActiveSet* guess,
                                                           int& iterations) noexcept {
  const bool reused =
      guess != nullptr && factor_valid_ && *guess == result_.active_set && reuse_factorisation();
  if (!reused) rebuild_working_set(guess);
  factor_valid_ = true;  // from here on factors_ always describe W
  Status status = iterate_and_verify(iterations);
  if (status == Status::IllConditioned && guess != nullptr) {
    rebuild_working_set(nullptr);
    status = iterate_and_verify(iterations);
  }
  return status;
}

/// Dynamic-size solvers (allocate in the constructor / reserve() only).
using QpSolverXd = QpSolver<double>;
using QpSolverXf = QpSolver<float>;

}  // namespace claw
