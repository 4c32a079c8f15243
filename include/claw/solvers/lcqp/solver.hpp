// claw/solvers/lcqp/solver.hpp: LcqpSolver, the LCQP solver: the monotone path, then branch and
// bound or the penalty homotopy (one header each) over the shared branch QPs.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>

#include "claw/core/interval.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/lcqp/branch_and_bound.hpp"
#include "claw/solvers/lcqp/branch_qps.hpp"
#include "claw/solvers/lcqp/homotopy.hpp"
#include "claw/solvers/lcqp/monotone.hpp"
#include "claw/solvers/lcqp/problem.hpp"
#include "claw/solvers/lcqp/settings.hpp"
#include "claw/solvers/lcqp/types.hpp"

namespace claw {

/// LCQP solver (see LcqpProblem for the form). Three paths, tried in this order:
///
/// 1. Monotone path (certified). It applies when one side of the pairs selects variables (each
///    row of L, or of R, has one nonzero entry, positive, in distinct columns: lambda_i =
///    L_i x - lbL_i), and the equality rows of A (lbA = ubA) determine the other n - m variables
///    from lambda (exactly n - m of them, nonsingular on those variables). Then every x is affine
///    in lambda, x = x0 + T lambda, and the other side is w = c + M lambda. With one or two
///    pairs, when every M' within M's rounding is a P-matrix (positive principal minors, with
///    margins), the LCP has exactly one solution, found among its at most four complementary
///    bases. Otherwise, when M = S D with S symmetric positive semidefinite and D positive
///    diagonal (detected numerically: FLIQC's matrix when each P_i^inv is a positive multiple of
///    P_i'), 0 <= lambda perp w >= 0 is the monotone LCP(c, S) in mu = D lambda: its w is
///    unique, Lemke's method (on the LCP equilibrated to a unit diagonal) solves it or proves it
///    infeasible with a ray, and lambda is unique when S restricted to the pairs with w_i = 0 (to
///    the rounding of R x - lbR) is nonsingular. The unique complementary point is then the only
///    feasible candidate: it is the global optimum if it satisfies the remaining bounds and rows,
///    and proves infeasibility if not. When any condition fails the solver falls through.
/// 2. Branch and bound (m <= max_pairs_for_branch_and_bound): depth-first over the pairs, each
///    node a convex QP (the relaxation with some pairs fixed on one side, warm-started), branching
///    on the most violated pair, the side closer to zero first; complementary relaxations are
///    polished by fixing every pair on its active side. Certified when it finishes.
/// 3. Penalty homotopy (larger m): LCQPow's method (zero-penalty QP first, then QPs with the
///    penalty rho phi linearised in the gradient and Q constant, LCQPow's exact step on the
///    quadratic merit, rho multiplied on stationarity or by the dynamic rule), then each pair is
///    fixed on its active side and that branch QP is solved (exact complementarity), then pairs
///    that are biactive with a multiplier showing a descent direction are flipped while the
///    objective falls. Not certified.
///
/// The convex QPs are solved by QpSolver (Goldfarb-Idnani, factorisation of Q reused across all QPs
/// of one solve). Sizes: MaxN, MaxC, MaxP > 0 give inline storage (no heap);
/// Dynamic allocates in the constructor / reserve() only. solve() is noexcept and allocation-free.
template <typename Scalar_, int MaxN_ = Dynamic, int MaxC_ = Dynamic, int MaxP_ = Dynamic>
class LcqpSolver {
  using Core = detail::LcqpBranchQps<Scalar_, MaxN_, MaxC_, MaxP_>;

 public:
  using Scalar = Scalar_;                           ///< the scalar type (float or double)
  using Index = Eigen::Index;                       ///< index and size type
  using Problem = typename Core::Problem;           ///< LcqpProblem<Scalar, MaxN, MaxC, MaxP>
  using Settings = typename Core::Settings;         ///< LcqpSettings<Scalar>
  using Result = typename Core::Result;             ///< LcqpResult<Scalar, MaxN, MaxP>
  static constexpr bool kBounded = Core::kBounded;  ///< no size Dynamic: no heap

  /// Bounded sizes: ready for any problem within (MaxN, MaxC, MaxP). Dynamic: sized by reserve() or
  /// by the first solve().
  LcqpSolver() {
    if constexpr (kBounded) reserve(MaxN_, MaxC_, MaxP_);
  }
  /// Sized for n variables, nc rows of A and m pairs: reserve(n, nc, m).
  LcqpSolver(Index n, Index nc, Index m) { reserve(n, nc, m); }

  /// Sizes the working storage for problems of n variables, nc rows and m pairs. With Dynamic sizes
  /// this is where the solver allocates: solve() never allocates when the problem has the sizes of
  /// the last reserve() or solve() (a problem of other sizes makes solve() call reserve() first).
  /// With bounded sizes nothing is ever allocated (sizes above the bounds: SizeMismatch).
  void reserve(Index n, Index nc, Index m) {
    core_.reserve(n, nc, m);
    monotone_.reserve(n, nc, m);
    branch_and_bound_.reserve(m);
    homotopy_.reserve(n, m);
    guess_.resize(m);
  }

  /// Installs settings; InvalidParameter (old ones kept) when settings.validate() fails.
  Status set_settings(const Settings& settings) noexcept {
    const Status status = settings.validate();
    if (status != Status::Ok) return status;
    core_.settings_ = settings;
    return core_.qp_.set_settings(settings.qp);
  }
  const Settings& settings() const noexcept { return core_.settings_; }  ///< installed settings
  const Result& result() const noexcept { return core_.result_; }  ///< the last solve's result

  /// Solves the problem. Refusals (x = 0, nothing else computed): SizeMismatch (inconsistent sizes,
  /// n = 0, or above the bounded sizes), NonFiniteInput (NaN anywhere, an infinite Q, g, A, L or R
  /// entry, or an infinite lbL/lbR), InvalidBounds (a lower bound above its upper bound, a lower
  /// bound of +inf or an upper bound of -inf), InvalidProblem (Q + regularisation not positive
  /// definite when a QP is needed). m = 0 is allowed: a plain QP.
  [[nodiscard]] const Result& solve(const Problem& problem) noexcept {
    return solve_impl(problem, nullptr);
  }

  /// Solve with a guess of the active sides, one entry per pair as in LcqpResult::active (0: the
  /// L side is active, 1: the R side, 2: both), e.g. the previous result's. The monotone path tries
  /// the guess before Lemke's method and keeps it only when it verifies as a strictly
  /// complementary solution (a wrong guess costs one small linear solve); the closed form of one
  /// or two pairs and the other paths ignore it. Wrong size: ignored.
  template <typename DGuess>
  [[nodiscard]] const Result& solve(const Problem& problem,
                                    const Eigen::MatrixBase<DGuess>& guess) noexcept {
    if (guess.size() != problem.num_pairs()) return solve_impl(problem, nullptr);
    guess_.resize(guess.size());
    for (Index i = 0; i < guess.size(); ++i)
      guess_.coeffRef(i) = static_cast<std::int8_t>(guess.coeff(i));
    return solve_impl(problem, &guess_);
  }

 private:
  using Monotone = detail::LcqpMonotonePath<Scalar, MaxN_, MaxC_, MaxP_>;
  using GuessVector = Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxP_, 1>;

  /// The paths in order: the monotone path when its structure holds (its point is certified
  /// optimal or certifies infeasibility), else branch and bound for m <= max_pairs_for_branch_and_
  /// bound, else the homotopy. Defined below the class, not inline: an explicit instantiation of
  /// the solver then holds every path.
  const Result& solve_impl(const Problem& problem, const GuessVector* guess) noexcept;

  Status check(const Problem& p) const noexcept {
    const Index n = p.Q.rows(), nc = p.A.rows(), m = p.L.rows();
    if (p.Q.cols() != n || p.g.size() != n || p.lb.size() != n || p.ub.size() != n ||
        p.A.cols() != n || p.lbA.size() != nc || p.ubA.size() != nc || p.L.cols() != n ||
        p.R.rows() != m || p.R.cols() != n || p.lbL.size() != m || p.ubL.size() != m ||
        p.lbR.size() != m || p.ubR.size() != m)
      return Status::SizeMismatch;
    if (n == 0) return Status::SizeMismatch;
    if constexpr (kBounded) {
      if (n > MaxN_ || nc > MaxC_ || m > MaxP_) return Status::SizeMismatch;
    }
    if (!all_finite(p.Q) || !all_finite(p.g) || !all_finite(p.A) || !all_finite(p.L) ||
        !all_finite(p.R) || !all_finite(p.lbL) || !all_finite(p.lbR))
      return Status::NonFiniteInput;
    return detail::bound_pairs_status(p.lb, p.ub, p.lbA, p.ubA, p.lbL, p.ubL, p.lbR, p.ubR);
  }

  /// The monotone path's point in core_.x_, the only complementary point of the LCQP: the certified
  /// optimum when it passes core_.acceptable(), a certificate of infeasibility when it does not,
  /// nothing proved when it overflowed (finite data of extreme range).
  const Result& certify_unique_point(const Problem& p) noexcept {
    core_.result_.path = LcqpPath::Monotone;
    Scalar value;
    const bool within = core_.acceptable(p, core_.x_, value);
    if (!all_finite(core_.x_) || !std::isfinite(value))
      return core_.refuse(Status::NumericalOverflow);
    if (!within) return core_.infeasible(LcqpPath::Monotone);
    core_.accept_assessed(p, core_.x_, value, LcqpPath::Monotone, true);
    return core_.result_;
  }

  // Members that may carry Eigen's 16-byte alignment first, the 4-byte aligned ones last: no
  // padding between them (FliqcFilter<float, 7, 7, 8> holds this solver in its 16 KiB budget).
  Core core_;
  Monotone monotone_;
  detail::LcqpHomotopy<Scalar, MaxN_, MaxC_, MaxP_> homotopy_;
  detail::LcqpBranchAndBound<Scalar, MaxN_, MaxC_, MaxP_> branch_and_bound_;
  GuessVector guess_;
};

template <typename Scalar_, int MaxN_, int MaxC_, int MaxP_>
const typename LcqpSolver<Scalar_, MaxN_, MaxC_, MaxP_>::Result&
LcqpSolver<Scalar_, MaxN_, MaxC_, MaxP_>::solve_impl(const Problem& problem,
                                                     const GuessVector* guess) noexcept {
  Core& c = core_;
  c.reset_result();
  const Status input = check(problem);
  if (input != Status::Ok) return c.refuse(input);
  if (problem.num_variables() != c.n_ || problem.num_constraints() != c.nc_ ||
      problem.num_pairs() != c.m_)
    reserve(problem.num_variables(), problem.num_constraints(), problem.num_pairs());
  for (Index i = 0; i < c.m_; ++i) {
    c.l_norm_.coeffRef(i) = detail::euclidean_norm(problem.L.row(i));  // no overflow
    c.r_norm_.coeffRef(i) = detail::euclidean_norm(problem.R.row(i));
  }
  if (c.settings_.use_monotone_path && c.m_ > 0) {
    const auto outcome =
        monotone_.run(problem, guess, c.l_norm_, c.r_norm_, c.settings_.feasibility_tolerance, c.x_,
                      c.result_.lemke_pivots);
    if (outcome == Monotone::Outcome::Point) return certify_unique_point(problem);
    if (outcome == Monotone::Outcome::Infeasible) return c.infeasible(LcqpPath::Monotone);
  }
  const Status setup = c.setup_qp(problem);
  if (setup != Status::Ok) return c.refuse(setup);
  if (static_cast<int>(c.m_) <= c.settings_.max_pairs_for_branch_and_bound)
    return branch_and_bound_.run(problem, c);
  return homotopy_.run(problem, c);
}

}  // namespace claw
