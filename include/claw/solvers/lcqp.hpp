// claw/solvers/lcqp.hpp: QPs with linear complementarity constraints (LCQPs) in LCQPow's form,
// solved by a certified monotone-LCP path, branch and bound, or a penalty homotopy, without
// allocation.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/product.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/lcp.hpp"
#include "claw/solvers/qp.hpp"

namespace claw {

namespace detail {
/// max / min of two numbers the caller knows are not NaN (std::fmax is a library call on most
/// targets; these compile to one instruction).
template <typename Scalar>
inline Scalar max_of(Scalar a, Scalar b) noexcept {
  return b > a ? b : a;
}
template <typename Scalar>
inline Scalar min_of(Scalar a, Scalar b) noexcept {
  return b < a ? b : a;
}
}  // namespace detail

/// An LCQP in LCQPow's dense form (n variables, nc rows of A, m complementarity pairs):
///
///   minimise 1/2 x'Qx + g'x
///   subject to lbA <= A x <= ubA,  lb <= x <= ub,  lbL <= L x <= ubL,  lbR <= R x <= ubR,
///              (L_i x - lbL_i) (R_i x - lbR_i) = 0  for every pair i,
///
/// i.e. 0 <= L x - lbL  perp  R x - lbR >= 0 plus the upper bounds. Q symmetric positive definite
/// (the solver's convex subproblems need it; see LcqpSettings::hessian_regularisation). Infinite
/// entries of lb/ub/lbA/ubA/ubL/ubR mean "no bound"; lbL and lbR must be finite.
/// resize() sets every matrix to zero, lbL = lbR = 0 and every other bound to "none".
/// Sizes: Max* > 0 give inline storage (no heap); Dynamic allocates in resize() only.
template <typename Scalar_, int MaxN_ = Dynamic, int MaxC_ = Dynamic, int MaxP_ = Dynamic>
struct LcqpProblem {
  using Scalar = Scalar_;
  using Index = Eigen::Index;
  using MatrixQ = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::ColMajor, MaxN_, MaxN_>;
  using MatrixA = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::RowMajor, MaxC_, MaxN_>;
  using MatrixLR = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::RowMajor, MaxP_, MaxN_>;
  using VectorN = Vector<Scalar, Dynamic, MaxN_>;
  using VectorC = Vector<Scalar, Dynamic, MaxC_>;
  using VectorP = Vector<Scalar, Dynamic, MaxP_>;

  MatrixQ Q;
  VectorN g, lb, ub;
  MatrixA A;
  VectorC lbA, ubA;
  MatrixLR L, R;
  VectorP lbL, ubL, lbR, ubR;

  LcqpProblem() = default;
  LcqpProblem(Index n, Index nc, Index m) { resize(n, nc, m); }

  void resize(Index n, Index nc, Index m) {
    const Scalar inf = infinity<Scalar>();
    Q.setZero(n, n);
    g.setZero(n);
    lb.setConstant(n, -inf);
    ub.setConstant(n, inf);
    A.setZero(nc, n);
    lbA.setConstant(nc, -inf);
    ubA.setConstant(nc, inf);
    L.setZero(m, n);
    R.setZero(m, n);
    lbL.setZero(m);
    lbR.setZero(m);
    ubL.setConstant(m, inf);
    ubR.setConstant(m, inf);
  }

  Index num_variables() const noexcept { return Q.rows(); }
  Index num_constraints() const noexcept { return A.rows(); }
  Index num_pairs() const noexcept { return L.rows(); }
};

/// How the returned point was found.
enum class LcqpPath : std::uint8_t {
  None = 0,             ///< refused before any work
  Monotone = 1,         ///< the monotone-LCP path (unique feasible point, certified)
  BranchAndBound = 2,   ///< branch and bound over the pairs (certified when it finished)
  PenaltyHomotopy = 3,  ///< LCQPow's penalty homotopy, then a branch-QP polish and local pair flips
};

/// Stationarity type of the returned point (LCQPow's classification over the biactive pairs,
/// where both L_i x - lbL_i and R_i x - lbR_i vanish, from the multipliers nu_L, nu_R of the final
/// branch QP): S when every biactive pair has nu_L, nu_R >= 0; M when each has both > 0 or one
/// = 0; C when each has nu_L nu_R >= 0; W otherwise. Unknown when no branch QP was solved
/// (monotone path: there the feasible set is one point).
enum class LcqpStationarity : std::uint8_t { Unknown = 0, W = 1, C = 2, M = 3, S = 4 };

inline const char* to_string(LcqpStationarity s) noexcept {
  switch (s) {
    case LcqpStationarity::W:
      return "W";
    case LcqpStationarity::C:
      return "C";
    case LcqpStationarity::M:
      return "M";
    case LcqpStationarity::S:
      return "S";
    default:
      return "unknown";
  }
}

/// Settings of an LcqpSolver. Defaults: LCQPow's options where they exist.
template <typename Scalar>
struct LcqpSettings {
  /// Try the monotone-LCP path first (see LcqpSolver). It either certifies an answer or falls
  /// through to the general paths.
  bool use_monotone_path = true;
  /// Branch and bound runs when the number of pairs m is at most this (its worst case is 2^m
  /// QPs); above it, the penalty homotopy. 0 disables branch and bound.
  int max_pairs_for_branch_and_bound = 24;
  /// Hard cap on branch-and-bound nodes (one QP each). Reaching it returns the best point found,
  /// not certified (or MaxIterations when none was found). > 0.
  long max_nodes = 100000;
  /// A node is pruned when its relaxation's objective >= incumbent - prune_tolerance max(1,
  /// |incumbent|).
  Scalar prune_tolerance = sizeof(Scalar) <= 4 ? Scalar(1e-5) : Scalar(1e-9);
  /// Penalty homotopy (LCQPow's algorithm): initial penalty rho0, update factor, the largest
  /// penalty, the total iteration cap, the stationarity tolerance on the penalised problem's
  /// Lagrangian gradient (inf-norm) and the complementarity tolerance on
  /// phi(x) = (Lx - lbL)'(Rx - lbR). LCQPow's defaults: 0.01, 2, 1e8, 1000, 1e6 eps, 1e3 eps.
  Scalar initial_penalty = Scalar(0.01);
  Scalar penalty_update_factor = Scalar(2);
  Scalar max_penalty = Scalar(1e8);
  int max_iterations = 1000;
  Scalar stationarity_tolerance = Scalar(1e6) * std::numeric_limits<Scalar>::epsilon();
  Scalar complementarity_tolerance = Scalar(1e3) * std::numeric_limits<Scalar>::epsilon();
  /// LCQPow's dynamic penalty rule: the penalty also rises when phi did not fall below
  /// eta times each of the last `dynamic_penalty_window` values (0 disables it; at most 8).
  int dynamic_penalty_window = 3;
  Scalar dynamic_penalty_eta = Scalar(0.9);
  /// After the homotopy: at most this many single-pair flips at biactive pairs whose multiplier
  /// shows a descent direction (each one QP; each strictly lowers the objective).
  int max_local_flips = 64;
  /// With t = feasibility_tolerance (1 + |x|_inf): a returned point satisfies every simple bound
  /// within t, every row of A, L and R within t max(1, ||row||), and every pair's natural residual
  /// |min(L_i x - lbL_i, R_i x - lbR_i)| within t max(1, ||L_i||, ||R_i||); branch and bound
  /// counts a pair as complementary when min of the two sides, each divided by its row's norm, is
  /// at most t.
  Scalar feasibility_tolerance = sizeof(Scalar) <= 4 ? Scalar(1e-4) : Scalar(1e-9);
  /// Added to Q's diagonal for every subproblem (default 0).
  Scalar hessian_regularisation = Scalar(0);
  /// When Q (+ hessian_regularisation) does not factorise (positive semidefinite, or definite only
  /// at rounding level), add delta I with delta = 1e-12, 1e-10 or 1e-8 (float: 1e-6, 1e-4) times
  /// max(1, max_i Q_ii), the first that works (LcqpResult::regularisation reports it). A
  /// subproblem that then ends MaxIterations or IllConditioned (the regularised Hessian's
  /// condition 1 / delta is the cause) raises delta a hundredfold, up to 1e-4 times that scale,
  /// and is solved again. The final branch QP is refined by proximal steps
  /// x+ = argmin f(x) + delta/2 ||x - x_k||^2 over its constraints (warm, same factors) until
  /// the unregularised stationarity bound r + delta ||x+ - x_k||_inf (r: the regularised QP's
  /// residual) is within the QP's stationarity limit, so x minimises the branch QP of Q itself;
  /// the reported objective and residual use Q. Regularisation never decides Infeasible: that
  /// verdict rests on constraint certificates alone. When false, such a Q gives InvalidProblem.
  bool auto_regularisation = true;
  /// Settings of the convex subproblem solver.
  QpSettings<Scalar> qp;

  Status validate() const noexcept {
    if (max_pairs_for_branch_and_bound < 0 || max_nodes <= 0 || max_iterations < 0 ||
        max_local_flips < 0 || dynamic_penalty_window < 0 || dynamic_penalty_window > 8)
      return Status::InvalidParameter;
    for (Scalar t : {prune_tolerance, stationarity_tolerance, complementarity_tolerance,
                     feasibility_tolerance, hessian_regularisation})
      if (!std::isfinite(t) || t < Scalar(0)) return Status::InvalidParameter;
    if (!(initial_penalty > Scalar(0)) || !(penalty_update_factor > Scalar(1)) ||
        !(max_penalty >= initial_penalty) || !std::isfinite(max_penalty))
      return Status::InvalidParameter;
    if (!(dynamic_penalty_eta > Scalar(0)) || !(dynamic_penalty_eta < Scalar(1)))
      return Status::InvalidParameter;
    return qp.validate();
  }
};

/// Residuals of the returned point, in the problem's units (+inf when not computed).
template <typename Scalar>
struct LcqpResiduals {
  /// Largest violation of any bound or row: box, A, L and R (both sides).
  Scalar primal = infinity<Scalar>();
  /// Natural complementarity residual max_i |min(L_i x - lbL_i, R_i x - lbR_i)|.
  Scalar complementarity = infinity<Scalar>();
  /// ||Q x + g - (multipliers)||_inf of the final branch QP (each pair fixed on its active side);
  /// +inf on the monotone path (it solves no QP).
  Scalar stationarity = infinity<Scalar>();
};

/// What LcqpSolver::solve returns (a reference to the solver's own result).
///  - Ok: x is feasible and complementary within LcqpSettings::feasibility_tolerance; objective
///    1/2 x'Qx + g'x (the Q given, without regularisation); certified_global says whether x is
///    proved a global minimiser (monotone path, or branch and bound that finished).
///  - Infeasible: no point satisfies the constraints and the complementarity. Always certified
///    (certified_global = true): by Lemke's ray or a box violation of the unique LCP point on the
///    monotone path, by an infeasible relaxation, or by branch and bound that finished. x = 0.
///  - MaxIterations: the homotopy (iteration or penalty cap) or branch and bound (node cap, or a
///    subproblem that failed) stopped without a feasible complementary point. Nothing is proved;
///    x = 0. NumericalOverflow: the monotone path's point (or its objective) overflowed (finite
///    data of extreme range); x = 0.
///  - NonFiniteInput, InvalidBounds, SizeMismatch, InvalidProblem (Q not positive definite),
///    InvalidParameter: refused; x = 0.
template <typename Scalar, int MaxN, int MaxP>
struct LcqpResult {
  Status status = Status::InvalidProblem;
  Vector<Scalar, Dynamic, MaxN> x;
  Scalar objective = Scalar(0);
  bool certified_global = false;
  LcqpPath path = LcqpPath::None;
  LcqpStationarity stationarity = LcqpStationarity::Unknown;
  /// Per pair: 0 when the L side is active (L_i x = lbL_i), 1 when the R side is, 2 when both.
  Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxP, 1> active;
  LcqpResiduals<Scalar> residuals;
  int qp_solves = 0;            ///< convex QPs solved
  int homotopy_iterations = 0;  ///< penalty-homotopy inner iterations
  long nodes = 0;               ///< branch-and-bound nodes
  int lemke_pivots = 0;         ///< pivots of the monotone path
  Scalar penalty = Scalar(0);   ///< final homotopy penalty (0 on other paths)
  Scalar regularisation =
      Scalar(0);  ///< delta added by LcqpSettings::auto_regularisation (0: none)
};

/// LCQP solver (see LcqpProblem for the form). Three paths, tried in this order:
///
/// 1. Monotone path (certified). It applies when one side of the pairs selects variables (each
///    row of L, or of R, has one nonzero entry, positive, in distinct columns: lambda_i =
///    L_i x - lbL_i), and the equality rows of A (lbA = ubA) determine the other n - m variables
///    from lambda (exactly n - m of them, nonsingular on those variables). Then every x is affine
///    in lambda, x = x0 + T lambda, and the other side is w = c + M lambda. When M = S D with S
///    symmetric positive semidefinite and D positive diagonal (detected numerically: FLIQC's
///    matrix when each P_i^inv is a positive multiple of P_i'), 0 <= lambda perp w >= 0 is the
///    monotone LCP(c, S) in mu = D lambda: its w is unique, Lemke's method (on the LCP
///    equilibrated to a unit diagonal) solves it or proves it infeasible with a ray, and lambda is
///    unique when S restricted to the pairs with w_i = 0 (to the rounding of R x - lbR) is
///    nonsingular. The unique complementary point is then the only feasible candidate: it is the
///    global optimum if it satisfies the remaining bounds and rows, and proves infeasibility if
///    not. When any condition fails the solver falls through.
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
 public:
  using Scalar = Scalar_;
  using Index = Eigen::Index;
  using Problem = LcqpProblem<Scalar, MaxN_, MaxC_, MaxP_>;
  using Settings = LcqpSettings<Scalar>;
  using Result = LcqpResult<Scalar, MaxN_, MaxP_>;
  static constexpr bool kBounded = MaxN_ != Dynamic && MaxC_ != Dynamic && MaxP_ != Dynamic;
  static constexpr int kMaxRows = kBounded ? MaxC_ + 2 * MaxP_ : Dynamic;
  using Qp = QpSolver<Scalar, Dynamic, MaxN_, Dynamic, kMaxRows>;
  using VectorN = Vector<Scalar, Dynamic, MaxN_>;
  using VectorP = Vector<Scalar, Dynamic, MaxP_>;
  using VectorRows = Vector<Scalar, Dynamic, kMaxRows>;

  /// Bounded sizes: ready for any problem within (MaxN, MaxC, MaxP). Dynamic: sized by reserve() or
  /// by the first solve().
  LcqpSolver() {
    if constexpr (kBounded) reserve(MaxN_, MaxC_, MaxP_);
  }
  LcqpSolver(Index n, Index nc, Index m) { reserve(n, nc, m); }

  /// Sizes the working storage for problems of n variables, nc rows and m pairs. With Dynamic sizes
  /// this is where the solver allocates: solve() never allocates when the problem has the sizes of
  /// the last reserve() or solve() (a problem of other sizes makes solve() call reserve() first).
  /// With bounded sizes nothing is ever allocated (sizes above the bounds: SizeMismatch).
  void reserve(Index n, Index nc, Index m) {
    n_ = n;
    nc_ = nc;
    m_ = m;
    qp_.reserve(n, nc + 2 * m);
    lemke_.reserve(m);
    row_lo_.resize(nc + 2 * m);
    row_hi_.resize(nc + 2 * m);
    x_.resize(n);
    xk_.resize(n);
    p_.resize(n);
    gk_.resize(n);
    gphi_.resize(n);
    grad_phi_.resize(n);
    tmp_n_.resize(n);
    tmp2_n_.resize(n);
    gradient_.resize(n);
    best_x_.resize(n);
    lx_.resize(m);
    rx_.resize(m);
    lp_.resize(m);
    rp_.resize(m);
    fix_.resize(m);
    best_fix_.resize(m);
    best_fix_scratch_.resize(m);
    guess_.resize(m);
    stack_pair_.resize(m + 1);
    stack_state_.resize(m + 1);
    stack_bound_.resize(m + 1);
    sel_col_.resize(m);
    sel_scale_.resize(m);
    free_col_.resize(n);
    col_role_.resize(n);
    lu_.resize(n, n + m + 1);
    t_.resize(n, m);
    x0_.resize(n);
    mm_.resize(m, m);
    ss_.resize(m, m);
    serr_.resize(m, m);
    cvec_.resize(m);
    dvec_.resize(m);
    mu_.resize(m);
    w_.resize(m);
    w_relaxed_.resize(m);
    equil_.resize(m);
    w_noise_.resize(m);
    i0_.resize(m);
    visited_.resize(m);
    queue_.resize(m);
    l_norm_.resize(m);
    r_norm_.resize(m);
    result_.x.resize(n);
    result_.active.resize(m);
  }

  Status set_settings(const Settings& settings) noexcept {
    const Status status = settings.validate();
    if (status != Status::Ok) return status;
    settings_ = settings;
    return qp_.set_settings(settings.qp);
  }
  const Settings& settings() const noexcept { return settings_; }
  const Result& result() const noexcept { return result_; }

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
  /// the guess first and keeps it only when it verifies as a strictly complementary solution (a
  /// wrong guess costs one small linear solve); the other paths ignore it. Wrong size: ignored.
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
  using GuessVector = Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxP_, 1>;

  const Result& solve_impl(const Problem& problem, const GuessVector* guess) noexcept {
    reset_result();
    const Status input = check(problem);
    if (input != Status::Ok) return refuse(input);
    if (problem.num_variables() != n_ || problem.num_constraints() != nc_ ||
        problem.num_pairs() != m_)
      reserve(problem.num_variables(), problem.num_constraints(), problem.num_pairs());
    for (Index i = 0; i < m_; ++i) {
      l_norm_.coeffRef(i) = problem.L.row(i).stableNorm();  // no overflow for huge rows
      r_norm_.coeffRef(i) = problem.R.row(i).stableNorm();
    }
    if (settings_.use_monotone_path && m_ > 0) {
      const MonotoneOutcome outcome = monotone_path(problem, guess);
      if (outcome != MonotoneOutcome::NotApplicable) return result_;
    }
    const Status setup = setup_qp(problem);
    if (setup != Status::Ok) return refuse(setup);
    if (static_cast<int>(m_) <= settings_.max_pairs_for_branch_and_bound)
      return branch_and_bound(problem);
    return homotopy(problem);
  }

  enum class MonotoneOutcome { NotApplicable, Done };
  enum : std::int8_t { kFree = 0, kFixL = 1, kFixR = 2 };

  // --- bookkeeping -----------------------------------------------------------------------------

  void reset_result() noexcept {
    result_.status = Status::InvalidProblem;
    result_.objective = Scalar(0);
    result_.certified_global = false;
    result_.path = LcqpPath::None;
    result_.stationarity = LcqpStationarity::Unknown;
    result_.residuals = LcqpResiduals<Scalar>{};
    result_.qp_solves = 0;
    result_.homotopy_iterations = 0;
    result_.nodes = 0;
    result_.lemke_pivots = 0;
    result_.penalty = Scalar(0);
    result_.regularisation = Scalar(0);
  }

  const Result& refuse(Status status) noexcept {
    result_.status = status;
    result_.x.setZero();
    result_.active.setZero();
    result_.certified_global = false;
    return result_;
  }

  const Result& infeasible(LcqpPath path) noexcept {
    result_.status = Status::Infeasible;
    result_.path = path;
    result_.certified_global = true;
    result_.x.setZero(n_);
    result_.active.setZero(m_);
    return result_;
  }

  static bool valid_interval(Scalar lo, Scalar hi) noexcept {
    return lo <= hi && lo < infinity<Scalar>() && hi > -infinity<Scalar>();
  }

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
    if (!none_nan(p.lb) || !none_nan(p.ub) || !none_nan(p.lbA) || !none_nan(p.ubA) ||
        !none_nan(p.ubL) || !none_nan(p.ubR))
      return Status::NonFiniteInput;
    for (Index i = 0; i < n; ++i)
      if (!valid_interval(p.lb.coeff(i), p.ub.coeff(i))) return Status::InvalidBounds;
    for (Index i = 0; i < nc; ++i)
      if (!valid_interval(p.lbA.coeff(i), p.ubA.coeff(i))) return Status::InvalidBounds;
    for (Index i = 0; i < m; ++i)
      if (!valid_interval(p.lbL.coeff(i), p.ubL.coeff(i)) ||
          !valid_interval(p.lbR.coeff(i), p.ubR.coeff(i)))
        return Status::InvalidBounds;
    return Status::Ok;
  }

  Scalar objective(const Problem& p, const VectorN& x) noexcept {
    tmp_n_.noalias() = detail::product(p.Q, x);
    return Scalar(0.5) * x.dot(tmp_n_) + p.g.dot(x);
  }

  Scalar feasibility_threshold(const VectorN& x) const noexcept {
    return settings_.feasibility_tolerance * (Scalar(1) + x.template lpNorm<Eigen::Infinity>());
  }

  /// Largest violation of box, A, L and R bounds at x.
  Scalar primal_violation(const Problem& p, const VectorN& x) const noexcept {
    Scalar v = Scalar(0);
    for (Index i = 0; i < n_; ++i) {
      v = detail::max_of(v, p.lb.coeff(i) - x.coeff(i));
      v = detail::max_of(v, x.coeff(i) - p.ub.coeff(i));
    }
    for (Index i = 0; i < nc_; ++i) {
      const Scalar ax = p.A.row(i).dot(x);
      v = detail::max_of(v, p.lbA.coeff(i) - ax);
      v = detail::max_of(v, ax - p.ubA.coeff(i));
    }
    for (Index i = 0; i < m_; ++i) {
      const Scalar lx = p.L.row(i).dot(x);
      const Scalar rx = p.R.row(i).dot(x);
      v = detail::max_of(v, detail::max_of(p.lbL.coeff(i) - lx, lx - p.ubL.coeff(i)));
      v = detail::max_of(v, detail::max_of(p.lbR.coeff(i) - rx, rx - p.ubR.coeff(i)));
    }
    return v;
  }

  Scalar natural_residual(const Problem& p, const VectorN& x) const noexcept {
    Scalar v = Scalar(0);
    for (Index i = 0; i < m_; ++i) {
      const Scalar a = p.L.row(i).dot(x) - p.lbL.coeff(i);
      const Scalar b = p.R.row(i).dot(x) - p.lbR.coeff(i);
      v = detail::max_of(v, std::fabs(detail::min_of(a, b)));
    }
    return v;
  }

  /// The acceptance test of a returned point: finite with a finite objective (returned in `value`
  /// whatever the verdict), every bound within feasibility_threshold(x), every row (A, L, R) within
  /// feasibility_threshold(x) max(1, ||row||), and every pair's natural residual within
  /// feasibility_threshold(x) max(1, ||L_i||, ||R_i||).
  bool acceptable(const Problem& p, const VectorN& x, Scalar& value) noexcept {
    value = objective(p, x);
    if (!all_finite(x) || !std::isfinite(value)) return false;
    const Scalar tol = feasibility_threshold(x);
    for (Index i = 0; i < n_; ++i)
      if (p.lb.coeff(i) - x.coeff(i) > tol || x.coeff(i) - p.ub.coeff(i) > tol) return false;
    for (Index i = 0; i < nc_; ++i) {
      const Scalar ax = p.A.row(i).dot(x);
      const Scalar row_tol = tol * detail::max_of(Scalar(1), p.A.row(i).stableNorm());
      if (p.lbA.coeff(i) - ax > row_tol || ax - p.ubA.coeff(i) > row_tol) return false;
    }
    for (Index i = 0; i < m_; ++i) {
      const Scalar lx = p.L.row(i).dot(x), rx = p.R.row(i).dot(x);
      const Scalar l_tol = tol * detail::max_of(Scalar(1), l_norm_.coeff(i));
      const Scalar r_tol = tol * detail::max_of(Scalar(1), r_norm_.coeff(i));
      if (p.lbL.coeff(i) - lx > l_tol || lx - p.ubL.coeff(i) > l_tol) return false;
      if (p.lbR.coeff(i) - rx > r_tol || rx - p.ubR.coeff(i) > r_tol) return false;
      const Scalar natural = std::fabs(detail::min_of(lx - p.lbL.coeff(i), rx - p.lbR.coeff(i)));
      if (natural > detail::max_of(l_tol, r_tol)) return false;
    }
    return true;
  }

  /// Fills result_ with an accepted point x (status Ok), its objective `value` (from acceptable()),
  /// residuals and sides.
  void accept(const Problem& p, const VectorN& x, Scalar value, LcqpPath path,
              bool certified) noexcept {
    result_.status = Status::Ok;
    result_.path = path;
    result_.certified_global = certified;
    result_.x = x;
    result_.objective = value;
    result_.residuals.primal = primal_violation(p, x);
    result_.residuals.complementarity = natural_residual(p, x);
    const Scalar tol = feasibility_threshold(x);
    pair_values(p, x);
    for (Index i = 0; i < m_; ++i) {
      const Scalar a = lx_.coeff(i), b = rx_.coeff(i);
      const bool la = std::fabs(a) <= tol, ra = std::fabs(b) <= tol;
      result_.active.coeffRef(i) = static_cast<std::int8_t>(la && ra ? 2 : (la || a <= b ? 0 : 1));
    }
  }

  // --- 1. the monotone path --------------------------------------------------------------------

  /// Tries the monotone path; Done when it wrote a certified result (Ok or Infeasible).
  MonotoneOutcome monotone_path(const Problem& p, const GuessVector* guess) noexcept {
    const Index n = n_, m = m_;
    if (m > n) return MonotoneOutcome::NotApplicable;
    // Which side selects variables? side 0: L, side 1: R.
    int side = -1;
    for (int s = 0; s < 2 && side < 0; ++s)
      if (selects_variables(s == 0 ? p.L : p.R)) side = s;
    if (side < 0) return MonotoneOutcome::NotApplicable;
    const auto& oth = side == 0 ? p.R : p.L;
    const auto& lb_sel = side == 0 ? p.lbL : p.lbR;
    const auto& lb_oth = side == 0 ? p.lbR : p.lbL;
    // Equality rows must be exactly n - m and determine the free variables.
    const Index ny = n - m;
    Index eq = 0;
    for (Index i = 0; i < nc_; ++i)
      if (p.lbA.coeff(i) == p.ubA.coeff(i)) ++eq;
    if (eq != ny) return MonotoneOutcome::NotApplicable;
    Index k = 0;
    for (Index j = 0; j < n; ++j)
      if (col_role_.coeff(j) < 0) free_col_.coeffRef(k++) = static_cast<int>(j);
    // Augmented system [E_y | E_lambda | b] (ny x (ny + m + 1)), eliminated with partial pivoting.
    Index r = 0;
    for (Index i = 0; i < nc_; ++i) {
      if (p.lbA.coeff(i) != p.ubA.coeff(i)) continue;
      for (Index c = 0; c < ny; ++c) lu_.coeffRef(r, c) = p.A.coeff(i, free_col_.coeff(c));
      for (Index c = 0; c < m; ++c) lu_.coeffRef(r, ny + c) = p.A.coeff(i, sel_col_.coeff(c));
      lu_.coeffRef(r, ny + m) = p.lbA.coeff(i);
      ++r;
    }
    if (ny > 0 && !eliminate(ny, ny + m + 1)) return MonotoneOutcome::NotApplicable;
    // x = x0 + T lambda: selected columns x_j = (lambda_i + lb_sel_i) / a_i; free ones
    // y = Y_b - Y_lambda x_sel.
    x0_.setZero(n);
    t_.setZero(n, m);
    for (Index i = 0; i < m; ++i) {
      const Index j = sel_col_.coeff(i);
      const Scalar a = sel_scale_.coeff(i);
      x0_.coeffRef(j) = lb_sel.coeff(i) / a;
      t_.coeffRef(j, i) = Scalar(1) / a;
    }
    for (Index c = 0; c < ny; ++c) {
      const Index j = free_col_.coeff(c);
      Scalar v = lu_.coeff(c, ny + m);
      for (Index i = 0; i < m; ++i) {
        const Scalar yl = lu_.coeff(c, ny + i);
        v -= yl * x0_.coeff(sel_col_.coeff(i));
        t_.coeffRef(j, i) = -yl / sel_scale_.coeff(i);
      }
      x0_.coeffRef(j) = v;
    }
    // w = c + M lambda.
    mm_.noalias() = detail::product(oth, t_);
    // An entry of M that is a cancellation, |M_ij| <= sqrt(eps) (|oth| |T|)_ij, is known to no
    // digit (T carries the elimination's rounding): the LCP's shape, and with it the uniqueness
    // this path certifies, is then unknown. Three equalities made R x constant along the line
    // x = x0 + T lambda: M = 0 in exact arithmetic, 1e-17 computed, and Lemke's "unique" point
    // (objective 8504.6) was certified where every lambda >= 0 is complementary (optimum 2501.4).
    // serr_ holds |oth| |T| (the size of each M entry's terms) until S's error bound replaces it.
    const Scalar noise = std::sqrt(std::numeric_limits<Scalar>::epsilon());
    serr_.setZero(m, m);
    for (Index j = 0; j < m; ++j)
      for (Index row = 0; row < n; ++row) {
        const Scalar t = std::fabs(t_.coeff(row, j));
        if (t == Scalar(0)) continue;  // T's selected rows hold one entry each
        for (Index i = 0; i < m; ++i) serr_.coeffRef(i, j) += std::fabs(oth.coeff(i, row)) * t;
      }
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < m; ++j) {
        const Scalar v = std::fabs(mm_.coeff(i, j));
        if (v != Scalar(0) && v <= noise * serr_.coeff(i, j)) return MonotoneOutcome::NotApplicable;
      }
    cvec_.noalias() = detail::product(oth, x0_);
    cvec_ -= lb_oth;
    // Likewise c: an entry within 64 n eps (|oth| |x0| + |lb|)_i of 0 is 0 (the LCP is scaled by
    // |c|_inf below, which would blow such rounding up to 1). Two equalities put both R rows
    // exactly on their bounds at lambda = 0; c came out 1e-17, Lemke took lambda = 0 as the unique
    // solution (0.0086657) where S is singular and the optimum is 0.0086643.
    const Scalar product_unit = product_rounding();
    for (Index i = 0; i < m; ++i) {
      const Scalar size = std::fabs(lb_oth.coeff(i)) + oth.row(i).cwiseAbs().dot(x0_.cwiseAbs());
      if (std::fabs(cvec_.coeff(i)) <= product_unit * size) cvec_.coeffRef(i) = Scalar(0);
    }
    // M = S D with S symmetric PSD, D > 0 diagonal?
    if (!symmetric_scaling(m)) return MonotoneOutcome::NotApplicable;
    for (Index j = 0; j < m; ++j)
      for (Index i = 0; i < m; ++i) ss_.coeffRef(i, j) = mm_.coeff(i, j) / dvec_.coeff(j);
    // S is taken symmetric, (S_ij + S_ji) / 2; serr_ bounds how far that is from the exact S:
    // half the asymmetry (symmetric_scaling accepts d up to its ratio tolerance) plus the rounding
    // of M = oth T, 64 n eps (|oth_i| |T_j|) / d_j. Lemke's w and the uniqueness test allow for it.
    Scalar s_max = Scalar(0);
    for (Index j = 0; j < m; ++j)
      for (Index i = 0; i <= j; ++i) {
        const Scalar v = Scalar(0.5) * (ss_.coeff(i, j) + ss_.coeff(j, i));
        const Scalar rounding = product_unit * detail::max_of(serr_.coeff(i, j) / dvec_.coeff(j),
                                                              serr_.coeff(j, i) / dvec_.coeff(i));
        const Scalar bound = Scalar(0.5) * std::fabs(ss_.coeff(i, j) - ss_.coeff(j, i)) + rounding;
        ss_.coeffRef(i, j) = v;
        ss_.coeffRef(j, i) = v;
        serr_.coeffRef(i, j) = bound;
        serr_.coeffRef(j, i) = bound;
      }
    // Symmetric diagonal equilibration, e_i = 1 / sqrt(S_ii) (1 where S_ii <= 0): the LCP in
    // nu = E^-1 mu, 0 <= nu perp E w = E c + (E S E) nu >= 0, has the same solutions, and E S E has
    // a unit diagonal, so Lemke's relative pivot tolerance means the same in every column. D is
    // fixed only up to one factor per linked group of pairs (d = 1 at each group's first pair):
    // with R rows 858.8 (1, 1, 1, 1) and 0.00106 (1, 1, 1, 1), S's diagonal spanned 858.8 to
    // 1.3e-9, Lemke ended on a ray, and a feasible LCQP (x = (100, 0, 0, 0)) was certified
    // Infeasible.
    for (Index i = 0; i < m; ++i) {
      const Scalar d = ss_.coeff(i, i);
      equil_.coeffRef(i) = d > Scalar(0) ? Scalar(1) / std::sqrt(d) : Scalar(1);
    }
    for (Index j = 0; j < m; ++j) {
      for (Index i = 0; i < m; ++i) {
        ss_.coeffRef(i, j) *= equil_.coeff(i) * equil_.coeff(j);
        serr_.coeffRef(i, j) *= equil_.coeff(i) * equil_.coeff(j);
        s_max = detail::max_of(s_max, std::fabs(ss_.coeff(i, j)));
      }
      cvec_.coeffRef(j) *= equil_.coeff(j);
      dvec_.coeffRef(j) /= equil_.coeff(j);  // lambda = D^-1 mu = (E^-1 D)^-1 nu
    }
    if (!std::isfinite(s_max) || !all_finite(cvec_) || !all_finite(serr_))
      return MonotoneOutcome::NotApplicable;
    if (!positive_semidefinite(m, s_max)) return MonotoneOutcome::NotApplicable;
    // From here on S, c and mu stand for E S E, E c and nu. Lemke on the scaled LCP(c / alpha,
    // S / beta) in mu' = mu beta / alpha.
    const Scalar alpha = cvec_.template lpNorm<Eigen::Infinity>();
    const Scalar beta = s_max;
    cvec_scale_ = alpha;
    cvec_beta_ = beta;
    if (!(beta > Scalar(0))) return MonotoneOutcome::NotApplicable;
    if (alpha > Scalar(0)) {
      w_ = cvec_ / alpha;
      ss_ /= beta;
      if (guess != nullptr && try_guess(*guess, side, oth, lb_oth)) {
        mu_ *= alpha / beta;
        ss_ *= beta;
        return finish_monotone(p);
      }
      const auto& lemke = lemke_.solve(w_, ss_);
      result_.lemke_pivots = lemke.pivots;
      // Lemke's ray proves the LCP infeasible for the c it was given, but c = R x0 - lbR carries
      // rounding: a c of -1e-17 where the exact one is 0 (a solution at lambda = 0 with w = 0)
      // ended in a ray, and a feasible LCQP was certified Infeasible. The ray is believed only
      // when it persists with every w_i allowed down to -t_i, t_i = max(feasibility_tolerance,
      // 16 eps) (1 + ||x0||_inf) max(1, ||row_i||) (the acceptance test's margin, taken at the
      // lambda = 0 point x0): the LCP is solved again on c + t.
      // When that one is solvable, nothing is proved here: such a c sits at a degenerate point
      // whose solution need not be unique (the relaxed solution, taken as the answer, was 0.0015%
      // above the optimum), and branch and bound decides.
      if (lemke.status == Status::Infeasible) {
        const auto& oth_norm = side == 0 ? r_norm_ : l_norm_;
        const Scalar margin = detail::max_of(settings_.feasibility_tolerance,
                                             Scalar(16) * std::numeric_limits<Scalar>::epsilon()) *
                              (Scalar(1) + x0_.template lpNorm<Eigen::Infinity>());
        for (Index i = 0; i < m; ++i)
          w_relaxed_.coeffRef(i) = w_.coeff(i) + margin *
                                                     detail::max_of(Scalar(1), oth_norm.coeff(i)) *
                                                     equil_.coeff(i) / alpha;
        const auto& relaxed = lemke_.solve(w_relaxed_, ss_);
        result_.lemke_pivots += relaxed.pivots;
        if (relaxed.status == Status::Infeasible) return done_infeasible();
        ss_ *= beta;
        return MonotoneOutcome::NotApplicable;
      }
      if (lemke.status != Status::Ok) {
        ss_ *= beta;
        return MonotoneOutcome::NotApplicable;
      }
      // I0: basic z, plus degenerate pairs (basic w at rounding level). w = c + S z with
      // |c| <= 1 and |S_ij| <= 1 here, so Lemke's own rounding scales with 1 + m |z|_inf; c and S
      // carry the rounding of R x - lbR on top (scaled_w_rounding).
      Scalar z_max = Scalar(0);
      for (Index i = 0; i < m; ++i) z_max = detail::max_of(z_max, lemke.z.coeff(i));
      const Scalar w_tol = Scalar(64) * std::numeric_limits<Scalar>::epsilon() *
                           (Scalar(1) + static_cast<Scalar>(m) * z_max);
      mu_ = lemke.z;
      scaled_w_rounding(oth, lb_oth);
      Index n0 = 0;
      for (Index i = 0; i < m; ++i) {
        if (lemke.z_basic.coeff(i) != 0 || lemke.w.coeff(i) <= w_tol + w_noise_.coeff(i))
          i0_.coeffRef(n0++) = static_cast<int>(i);
      }
      // mu'_I0 from S[I0,I0] mu' = -c[I0] (unique when S[I0,I0] is nonsingular).
      mu_.setZero(m);
      if (n0 > 0 && !solve_i0(n0, Scalar(1) / beta)) {
        ss_ *= beta;
        return MonotoneOutcome::NotApplicable;
      }
      for (Index i = 0; i < m; ++i) {
        if (mu_.coeff(i) < -w_tol) {
          ss_ *= beta;
          return MonotoneOutcome::NotApplicable;
        }
        mu_.coeffRef(i) = detail::max_of(mu_.coeff(i), Scalar(0));
      }
      mu_ *= alpha / beta;
      ss_ *= beta;
    } else {
      // c = 0: mu = 0 is a solution; it is the only one when S is nonsingular on all pairs.
      for (Index i = 0; i < m; ++i) i0_.coeffRef(i) = static_cast<int>(i);
      w_.setZero(m);
      mu_.setZero(m);
      if (!nonsingular_all(m)) return MonotoneOutcome::NotApplicable;  // S unscaled here
    }
    return finish_monotone(p);
  }

  /// The relative rounding the monotone path allows for a sum of n products (a row of M = oth T,
  /// of c = oth x0 - lb_oth, of w): 64 n eps.
  Scalar product_rounding() const noexcept {
    return Scalar(64) * static_cast<Scalar>(n_) * std::numeric_limits<Scalar>::epsilon();
  }

  /// The rounding of each w_i = oth_i x - lb_oth_i at the point of the scaled solution in mu_
  /// (x = x0 + T lambda, lambda_j = mu_j (alpha / beta) / d_j), in the scaled LCP's units, into
  /// w_noise_: 64 n eps (|lb_oth_i| + |oth_i| (|x0| + |T| |lambda|)) e_i / alpha. A w_i that is 0
  /// in exact arithmetic can come out as large as this (c = R x0 - lbR cancels), plus S's error
  /// bound serr_ times |mu| (S is known only to it): at c = (-7e-4, 0.024), terms of 0.65, a w_i
  /// of 2.5e-13 (scaled) was 0, and lambda, not unique, was certified. Uses x_ as scratch.
  template <typename OtherRows, typename OtherBounds>
  void scaled_w_rounding(const OtherRows& oth, const OtherBounds& lb_oth) noexcept {
    const Index m = m_;
    const Scalar alpha = cvec_scale_;
    const Scalar to_lambda = alpha / cvec_beta_;
    x_ = x0_.cwiseAbs();
    for (Index j = 0; j < m; ++j)
      x_ += t_.col(j).cwiseAbs() * (std::fabs(mu_.coeff(j)) * to_lambda / dvec_.coeff(j));
    const Scalar unit = product_rounding();
    for (Index i = 0; i < m; ++i) {
      // Plus S's error carried through the solution: sum_j serr_ij / beta |mu_j|.
      Scalar from_s = Scalar(0);
      for (Index j = 0; j < m; ++j) from_s += serr_.coeff(i, j) * std::fabs(mu_.coeff(j));
      const Scalar noise = unit * (std::fabs(lb_oth.coeff(i)) + oth.row(i).cwiseAbs().dot(x_)) *
                               equil_.coeff(i) / alpha +
                           from_s / cvec_beta_;
      // An overflowed bound (lambda beyond the range) knows nothing: the pair counts as degenerate.
      w_noise_.coeffRef(i) = std::isfinite(noise) ? noise : infinity<Scalar>();
    }
  }

  /// Verifies a guessed index set I0 (pairs whose w side is active) on the scaled LCP in w_, ss_:
  /// mu_I0 from S[I0,I0] mu = -c[I0] must be > 0 on I0 and w = c + S mu > 0 off I0 beyond its
  /// rounding (strict, so the solution is unique exactly when Lemke's would be). True: mu_ holds
  /// the scaled solution.
  template <typename OtherRows, typename OtherBounds>
  bool try_guess(const GuessVector& guess, int side, const OtherRows& oth,
                 const OtherBounds& lb_oth) noexcept {
    const Index m = m_;
    const std::int8_t w_active = side == 0 ? 1 : 0;
    Index n0 = 0;
    for (Index i = 0; i < m; ++i)
      if (guess.coeff(i) == w_active || guess.coeff(i) == 2)
        i0_.coeffRef(n0++) = static_cast<int>(i);
    mu_.setZero(m);
    if (n0 > 0 && !solve_i0(n0, Scalar(1) / cvec_beta_)) return false;
    Scalar mu_max = Scalar(0);
    for (Index i = 0; i < m; ++i) mu_max = detail::max_of(mu_max, std::fabs(mu_.coeff(i)));
    const Scalar tol = Scalar(64) * std::numeric_limits<Scalar>::epsilon() *
                       (Scalar(1) + static_cast<Scalar>(m) * mu_max);
    for (Index a = 0; a < n0; ++a)
      if (!(mu_.coeff(i0_.coeff(a)) > tol)) return false;
    scaled_w_rounding(oth, lb_oth);
    for (Index i = 0; i < m; ++i) {
      if (mu_.coeff(i) != Scalar(0)) continue;
      Scalar wi = w_.coeff(i);
      for (Index a = 0; a < n0; ++a) wi += ss_.coeff(i, i0_.coeff(a)) * mu_.coeff(i0_.coeff(a));
      if (!(wi > tol + w_noise_.coeff(i))) return false;
    }
    return true;
  }

  /// lambda = D^-1 mu, x = x0 + T lambda: the unique complementary point; certified Ok when it
  /// satisfies every bound and row, certified Infeasible otherwise.
  MonotoneOutcome finish_monotone(const Problem& p) noexcept {
    const Index m = m_;
    for (Index i = 0; i < m; ++i) mu_.coeffRef(i) /= dvec_.coeff(i);
    x_.noalias() = detail::product(t_, mu_);
    x_ += x0_;
    result_.path = LcqpPath::Monotone;
    Scalar value;
    const bool within = acceptable(p, x_, value);
    if (!all_finite(x_) || !std::isfinite(value)) {
      // Finite data of extreme range: the unique point overflowed; nothing is proved.
      result_.path = LcqpPath::Monotone;
      refuse(Status::NumericalOverflow);
      return MonotoneOutcome::Done;
    }
    if (!within) return done_infeasible();
    accept(p, x_, value, LcqpPath::Monotone, true);
    return MonotoneOutcome::Done;
  }

  MonotoneOutcome done_infeasible() noexcept {
    infeasible(LcqpPath::Monotone);
    return MonotoneOutcome::Done;
  }

  /// True when every row of `s` has exactly one nonzero entry, positive, in distinct columns;
  /// records the columns (sel_col_), the entries (sel_scale_) and col_role_ (pair or -1).
  template <typename MatrixType>
  bool selects_variables(const MatrixType& s) noexcept {
    col_role_.setConstant(n_, -1);
    for (Index i = 0; i < m_; ++i) {
      Index col = -1;
      for (Index j = 0; j < n_; ++j) {
        if (s.coeff(i, j) == Scalar(0)) continue;
        if (col >= 0) return false;
        col = j;
      }
      if (col < 0 || !(s.coeff(i, col) > Scalar(0)) || col_role_.coeff(col) >= 0) return false;
      col_role_.coeffRef(col) = static_cast<int>(i);
      sel_col_.coeffRef(i) = static_cast<int>(col);
      sel_scale_.coeffRef(i) = s.coeff(i, col);
    }
    return true;
  }

  /// Gauss-Jordan elimination with partial pivoting on lu_ (rows x cols, the first `rows` columns
  /// square): afterwards lu_ = [I | E^-1 rest]. False when E is singular (pivot below 1e-12 of
  /// its largest entry).
  bool eliminate(Index rows, Index cols) noexcept {
    Scalar scale = Scalar(0);
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < rows; ++j) scale = detail::max_of(scale, std::fabs(lu_.coeff(i, j)));
    if (!(scale > Scalar(0))) return false;
    const Scalar tiny = Scalar(1e3) * std::numeric_limits<Scalar>::epsilon() * scale;
    for (Index k = 0; k < rows; ++k) {
      Index piv = k;
      for (Index i = k + 1; i < rows; ++i)
        if (std::fabs(lu_.coeff(i, k)) > std::fabs(lu_.coeff(piv, k))) piv = i;
      if (!(std::fabs(lu_.coeff(piv, k)) > tiny)) return false;
      if (piv != k)
        for (Index j = 0; j < cols; ++j) std::swap(lu_.coeffRef(k, j), lu_.coeffRef(piv, j));
      const Scalar inv = Scalar(1) / lu_.coeff(k, k);
      for (Index j = k; j < cols; ++j) lu_.coeffRef(k, j) *= inv;
      for (Index i = 0; i < rows; ++i) {
        if (i == k) continue;
        const Scalar f = lu_.coeff(i, k);
        if (f == Scalar(0)) continue;
        for (Index j = k; j < cols; ++j) lu_.coeffRef(i, j) -= f * lu_.coeff(k, j);
      }
    }
    return true;
  }

  /// Finds d > 0 with M D^-1 symmetric (d_i / d_j = M_ji / M_ij over every coupled pair), by
  /// propagation along the coupling graph; false when no such d exists (within 1e-9 relative).
  bool symmetric_scaling(Index m) noexcept {
    Scalar m_max = Scalar(0);
    for (Index j = 0; j < m; ++j)
      for (Index i = 0; i < m; ++i) m_max = detail::max_of(m_max, std::fabs(mm_.coeff(i, j)));
    const Scalar zero_tol = Scalar(1e-12) * m_max;
    const Scalar ratio_tol = sizeof(Scalar) <= 4 ? Scalar(1e-4) : Scalar(1e-9);
    visited_.setZero(m);
    for (Index root = 0; root < m; ++root) {
      if (visited_.coeff(root) != 0) continue;
      visited_.coeffRef(root) = 1;
      dvec_.coeffRef(root) = Scalar(1);
      Index head = 0, tail = 0;
      queue_.coeffRef(tail++) = static_cast<int>(root);
      while (head < tail) {
        const Index u = queue_.coeff(head++);
        for (Index v = 0; v < m; ++v) {
          if (v == u) continue;
          const Scalar a = mm_.coeff(u, v), b = mm_.coeff(v, u);
          const bool za = std::fabs(a) <= zero_tol, zb = std::fabs(b) <= zero_tol;
          if (za && zb) continue;
          if (za || zb || !(a * b > Scalar(0))) return false;
          const Scalar dv = dvec_.coeff(u) * a / b;  // d_v / d_u = M_uv / M_vu
          if (visited_.coeff(v) == 0) {
            visited_.coeffRef(v) = 1;
            dvec_.coeffRef(v) = dv;
            queue_.coeffRef(tail++) = static_cast<int>(v);
          } else if (std::fabs(dvec_.coeff(v) - dv) > ratio_tol * dvec_.coeff(v)) {
            return false;
          }
        }
      }
    }
    return true;
  }

  /// Pivoted LDL' of S (copy in mm_): true when S is positive semidefinite within rounding.
  bool positive_semidefinite(Index m, Scalar s_max) noexcept {
    mm_.topLeftCorner(m, m) = ss_.topLeftCorner(m, m);
    const Scalar tol =
        Scalar(1e3) * std::numeric_limits<Scalar>::epsilon() * s_max * static_cast<Scalar>(m);
    for (Index i = 0; i < m; ++i) visited_.coeffRef(i) = 0;
    for (Index k = 0; k < m; ++k) {
      Index piv = -1;
      Scalar best = -infinity<Scalar>();
      for (Index i = 0; i < m; ++i)
        if (visited_.coeff(i) == 0 && mm_.coeff(i, i) > best) {
          best = mm_.coeff(i, i);
          piv = i;
        }
      if (best <= tol) {
        // The rest must vanish: any remaining diagonal below -tol or off-diagonal above tol is not
        // PSD.
        for (Index i = 0; i < m; ++i) {
          if (visited_.coeff(i) != 0) continue;
          if (mm_.coeff(i, i) < -tol) return false;
          for (Index j = 0; j < m; ++j)
            if (visited_.coeff(j) == 0 && j != i && std::fabs(mm_.coeff(i, j)) > tol) return false;
        }
        return true;
      }
      visited_.coeffRef(piv) = 1;
      for (Index i = 0; i < m; ++i) {
        if (visited_.coeff(i) != 0) continue;
        const Scalar f = mm_.coeff(i, piv) / best;
        for (Index j = 0; j < m; ++j)
          if (visited_.coeff(j) == 0) mm_.coeffRef(i, j) -= f * mm_.coeff(piv, j);
      }
    }
    return true;
  }

  /// Solves S[I0,I0] mu_I0 = -w_[I0] (w_ holds the scaled c) by eliminate() on [S[I0,I0] | I | -c]
  /// in lu_ (free once x = x0 + T lambda is built), which leaves S[I0,I0]^-1 and mu_I0 beside I.
  /// False when S[I0,I0] may be singular: a pivot at rounding level, or ||S^-1||_inf ||dS||_inf >
  /// 1/2 with dS the bound serr_ on S's error times err_scale (S's current scaling). S + dS is
  /// nonsingular for every such dS when ||S^-1|| ||dS|| < 1; the 1/2 leaves room for the inverse's
  /// own rounding. (A pivot test alone let an exactly singular S, known to 1e-12 of its entries,
  /// pass as unique.)
  bool solve_i0(Index n0, Scalar err_scale) noexcept {
    Scalar err_norm = Scalar(0);
    for (Index a = 0; a < n0; ++a) {
      Scalar row_err = Scalar(0);
      for (Index b = 0; b < n0; ++b) {
        lu_.coeffRef(a, b) = ss_.coeff(i0_.coeff(a), i0_.coeff(b));
        lu_.coeffRef(a, n0 + b) = a == b ? Scalar(1) : Scalar(0);
        row_err += serr_.coeff(i0_.coeff(a), i0_.coeff(b));
      }
      err_norm = detail::max_of(err_norm, row_err * err_scale);
      lu_.coeffRef(a, 2 * n0) = -w_.coeff(i0_.coeff(a));
    }
    if (!eliminate(n0, 2 * n0 + 1)) return false;
    Scalar inv_norm = Scalar(0);
    for (Index a = 0; a < n0; ++a)
      inv_norm = detail::max_of(inv_norm, lu_.row(a).segment(n0, n0).cwiseAbs().sum());
    if (!(inv_norm * err_norm <= Scalar(0.5))) return false;
    for (Index a = 0; a < n0; ++a) mu_.coeffRef(i0_.coeff(a)) = lu_.coeff(a, 2 * n0);
    return true;
  }

  bool nonsingular_all(Index m) noexcept {
    for (Index i = 0; i < m; ++i) w_.coeffRef(i) = Scalar(0);
    return solve_i0(m, Scalar(1));
  }

  // --- the convex subproblems ------------------------------------------------------------------

  Status setup_qp(const Problem& p) noexcept {
    // Q + reg I is passed as an expression (no copy of Q is kept).
    reg_ = settings_.hessian_regularisation;
    proximal_step_ = Scalar(0);
    Status status = qp_.set_hessian(p.Q + reg_ * MatrixNN::Identity(n_, n_));
    if (status == Status::InvalidProblem && settings_.auto_regularisation) {
      // Positive semidefinite Q (or numerically so): add delta I, delta = 1e-12, 1e-10, 1e-8
      // (float: 1e-6, 1e-4) times max(1, max_i Q_ii), the first that factorises.
      Scalar scale = Scalar(1);
      for (Index i = 0; i < n_; ++i) scale = detail::max_of(scale, std::fabs(p.Q.coeff(i, i)));
      regularisation_scale_ = scale;
      const Scalar steps[3] = {Scalar(1e-12), Scalar(1e-10), Scalar(1e-8)};
      const Scalar float_steps[2] = {Scalar(1e-6), Scalar(1e-4)};
      const bool single = sizeof(Scalar) <= 4;
      for (int k = 0; k < (single ? 2 : 3) && status == Status::InvalidProblem; ++k) {
        const Scalar delta = (single ? float_steps[k] : steps[k]) * scale;
        result_.regularisation = delta;
        status = qp_.set_hessian(p.Q + (settings_.hessian_regularisation + delta) *
                                           MatrixNN::Identity(n_, n_));
        if (status != Status::InvalidProblem) reg_ = settings_.hessian_regularisation + delta;
      }
    }
    if (status != Status::Ok) return status;
    const Index rows = nc_ + 2 * m_;
    status = qp_.set_constraints(p.A, p.L, p.R);
    if (status != Status::Ok) return status;
    row_lo_.resize(rows);
    row_hi_.resize(rows);
    row_lo_.head(nc_) = p.lbA;
    row_hi_.head(nc_) = p.ubA;
    has_guess_ = false;
    fix_.setConstant(m_, kFree);
    return Status::Ok;
  }

  /// Writes the QP row bounds for the pair fixings in fix_.
  void apply_fixings(const Problem& p) noexcept {
    for (Index i = 0; i < m_; ++i) {
      const std::int8_t f = fix_.coeff(i);
      row_lo_.coeffRef(nc_ + i) = p.lbL.coeff(i);
      row_hi_.coeffRef(nc_ + i) = f == kFixL ? p.lbL.coeff(i) : p.ubL.coeff(i);
      row_lo_.coeffRef(nc_ + m_ + i) = p.lbR.coeff(i);
      row_hi_.coeffRef(nc_ + m_ + i) = f == kFixR ? p.lbR.coeff(i) : p.ubR.coeff(i);
    }
  }

  /// Solves the QP with gradient `g` and the current fixings, warm-started from the last QP. A warm
  /// solve that fails is repeated cold (one more QP solve): the warm path may pass through a nearly
  /// dependent working set (kappa 2e9) where a constraint in its span is violated by x's rounding
  /// (6e-6, beyond the infeasibility threshold), and a feasible node was taken for Infeasible and
  /// pruned; the cold path reached the same vertex through a better conditioned set.
  /// A warm answer that is Ok but not settled (see settled()) is repeated cold as well.
  template <typename DG>
  const typename Qp::Result& solve_qp(const Problem& p, const Eigen::MatrixBase<DG>& g) noexcept {
    apply_fixings(p);
    ++result_.qp_solves;
    if (has_guess_) {
      const auto& warm = qp_.solve(g, p.lb, p.ub, row_lo_, row_hi_, qp_.result().active_set);
      if (settled(p, g, warm)) return warm;
      ++result_.qp_solves;
    }
    has_guess_ = true;
    for (;;) {
      const auto& cold = qp_.solve(g, p.lb, p.ub, row_lo_, row_hi_);
      const bool undecided =
          cold.status == Status::MaxIterations || cold.status == Status::IllConditioned;
      if (!undecided || !raise_regularisation(p)) return cold;
      ++result_.qp_solves;
    }
  }

  /// With automatic regularisation in use, delta <- 100 delta (at most 1e-4 max(1, max_i Q_ii))
  /// and Q + (hessian_regularisation + delta) I refactorised; false (nothing changed) when no
  /// delta is in use, it is at its cap, or the new matrix does not factorise. The next QP is cold
  /// (has_guess_ stays as the caller left it; a warm guess would rebuild its factors anyway).
  bool raise_regularisation(const Problem& p) noexcept {
    const Scalar delta = result_.regularisation;
    const Scalar cap = Scalar(1e-4) * regularisation_scale_;
    if (!(delta > Scalar(0)) || !(delta < cap)) return false;
    const Scalar raised = detail::min_of(Scalar(100) * delta, cap);
    const Scalar total = settings_.hessian_regularisation + raised;
    // On failure QpSolver keeps the previous Hessian installed.
    if (qp_.set_hessian(p.Q + total * MatrixNN::Identity(n_, n_)) != Status::Ok) return false;
    result_.regularisation = raised;
    reg_ = total;
    return true;
  }

  /// Proximal refinement of the branch QP last solved (Ok, its fixings in fix_) when automatic
  /// regularisation delta is in use: x+ = argmin f(x) + delta/2 ||x - x_k||^2 (gradient
  /// g - delta x_k, warm), each step decreasing f, until r + delta ||x+ - x_k||_inf, a bound on
  /// the unregularised stationarity residual, is within the QP's limit (proximal_step_ keeps
  /// delta ||x+ - x_k||_inf for the report). x_k and its objective are in `x` and `value`;
  /// returns whether the bound was reached within max_iterations steps (x keeps the last
  /// acceptable point either way).
  bool refine_regularised(const Problem& p, VectorN& x, Scalar& value) noexcept {
    const Scalar delta = result_.regularisation;
    proximal_step_ = Scalar(0);
    if (!(delta > Scalar(0))) return true;
    for (int k = 0; k < settings_.max_iterations; ++k) {
      gk_ = p.g - delta * x;
      const auto& r = solve_qp(p, gk_);
      Scalar next = Scalar(0);
      if (r.status != Status::Ok || !acceptable(p, r.x, next)) return false;
      proximal_step_ = delta * (r.x - x).template lpNorm<Eigen::Infinity>();
      x = r.x;
      value = next;
      if (r.residuals.stationarity + proximal_step_ <= r.residuals.stationarity_limit) return true;
    }
    return false;
  }

  /// An Ok QP answer whose stationarity residual is small beside the objective's gradient,
  /// ||Qx + g - A'lambda - mu||_inf <= eps^(1/4) max(1, ||Qx + g||_inf): one branch and bound can
  /// take as the node's bound. After a pass through a nearly dependent working set the QP can
  /// answer Ok at a vertex that is not the minimiser (residuals of 8 to 768 beside gradients of
  /// 50, objectives 10% to 8x too high): such a node bound pruned the optimum.
  template <typename DG>
  bool settled(const Problem& p, const Eigen::MatrixBase<DG>& g,
               const typename Qp::Result& r) noexcept {
    if (r.status != Status::Ok) return false;
    gradient_.noalias() = detail::product(p.Q, r.x);
    gradient_ += g;
    const Scalar scale = detail::max_of(Scalar(1), gradient_.template lpNorm<Eigen::Infinity>());
    return r.residuals.stationarity <=
           std::sqrt(std::sqrt(std::numeric_limits<Scalar>::epsilon())) * scale;
  }

  /// Per pair (row-norm scaled) values of the two sides at x: lx_, rx_. A zero row's norm is
  /// floored at the smallest normal number of Scalar (a constant side: 0 stays 0, any other value
  /// keeps its sign, as a huge or infinite value; never 0 / 0).
  void pair_values(const Problem& p, const VectorN& x) noexcept {
    const Scalar floor = std::numeric_limits<Scalar>::min();
    for (Index i = 0; i < m_; ++i) {
      lx_.coeffRef(i) =
          (p.L.row(i).dot(x) - p.lbL.coeff(i)) / detail::max_of(l_norm_.coeff(i), floor);
      rx_.coeffRef(i) =
          (p.R.row(i).dot(x) - p.lbR.coeff(i)) / detail::max_of(r_norm_.coeff(i), floor);
    }
  }

  /// Fixes every free pair on its smaller side and solves that branch QP; on success (Ok and
  /// feasible) returns true with the point in x_ and its objective in `value`.
  bool polish(const Problem& p, Scalar& value) noexcept {
    pair_values(p, x_);
    for (Index i = 0; i < m_; ++i)
      if (fix_.coeff(i) == kFree) fix_.coeffRef(i) = lx_.coeff(i) <= rx_.coeff(i) ? kFixL : kFixR;
    const auto& r = solve_qp(p, p.g);
    if (r.status != Status::Ok) return false;
    x_ = r.x;
    return acceptable(p, x_, value);
  }

  /// Stationarity type and residual from the last (branch) QP's multipliers at x_.
  void classify(const Problem& p) noexcept {
    const auto& r = qp_.result();
    result_.residuals.stationarity = r.residuals.stationarity + proximal_step_;
    pair_values(p, result_.x);
    const Scalar tol = feasibility_threshold(result_.x);
    const Scalar dual_tol = Scalar(1e3) * settings_.feasibility_tolerance;
    bool s_stat = true, m_stat = true;
    for (Index i = 0; i < m_; ++i) {
      if (!(std::fabs(lx_.coeff(i)) <= tol && std::fabs(rx_.coeff(i)) <= tol)) continue;
      const Scalar a = r.constraint_multipliers.coeff(nc_ + i);
      const Scalar b = r.constraint_multipliers.coeff(nc_ + m_ + i);
      const Scalar prod = a * b, lo = detail::min_of(a, b);
      if (lo < -dual_tol) s_stat = false;
      if (std::fabs(prod) >= dual_tol && lo <= Scalar(0)) {
        if (prod <= dual_tol) {
          result_.stationarity = LcqpStationarity::W;
          return;
        }
        m_stat = false;
      }
    }
    result_.stationarity =
        s_stat ? LcqpStationarity::S : (m_stat ? LcqpStationarity::M : LcqpStationarity::C);
  }

  // --- 2. branch and bound ---------------------------------------------------------------------

  const Result& branch_and_bound(const Problem& p) noexcept {
    result_.path = LcqpPath::BranchAndBound;
    bool have_incumbent = false;
    bool exhausted = true;
    Scalar incumbent = infinity<Scalar>();
    Index depth = 0;      // number of stacked branchings
    bool descend = true;  // process the node defined by fix_
    for (;;) {
      if (descend) {
        descend = false;
        if (result_.nodes >= settings_.max_nodes) {
          exhausted = false;
          break;
        }
        ++result_.nodes;
        const auto& r = solve_qp(p, p.g);
        bool expand = false;
        Index branch = -1;
        std::int8_t first_side = kFixL;  // of the branching pair: the side closer to zero first
        Scalar node_value = Scalar(0);
        if (settled(p, p.g, r)) {
          node_value = r.objective;
          const Scalar cut = incumbent - settings_.prune_tolerance *
                                             detail::max_of(Scalar(1), std::fabs(incumbent));
          if (!have_incumbent || node_value < cut) {
            x_ = r.x;
            pair_values(p, x_);
            // The free pair farthest from complementarity, and its side closer to zero (judged at
            // the node's point, before polish moves x_).
            Index farthest = -1;
            Scalar farthest_value = -infinity<Scalar>();
            for (Index i = 0; i < m_; ++i) {
              if (fix_.coeff(i) != kFree) continue;
              const Scalar v = detail::min_of(lx_.coeff(i), rx_.coeff(i));
              if (v > farthest_value) {
                farthest_value = v;
                farthest = i;
              }
            }
            if (farthest >= 0 && !(lx_.coeff(farthest) <= rx_.coeff(farthest))) first_side = kFixR;
            if (farthest >= 0 && farthest_value > feasibility_threshold(x_)) {
              branch = farthest;
              expand = true;
            } else {
              // Complementary within tolerance: polish on the active sides, keep the better.
              // The polished branch closes the node only when it meets the node's bound (up to
              // the prune tolerance). Otherwise a free pair near zero on both sides (the
              // tolerance is relative to ||x||: 1.25 at x ~ 1e9) hides a better branch on its
              // other side, found 1e-3 below the polished one: branch on the farthest free pair
              // instead. With no free pair the node is its own branch.
              best_fix_scratch_ = fix_;  // polish fixes the free pairs: restored below
              Scalar value = node_value;
              const bool polished = polish(p, value);
              if (polished && (!have_incumbent || value < incumbent)) {
                incumbent = value;
                have_incumbent = true;
                best_x_ = x_;
                best_fix_ = fix_;
              }
              fix_ = best_fix_scratch_;
              const bool closed = polished && !(value - node_value >
                                                settings_.prune_tolerance *
                                                    detail::max_of(Scalar(1), std::fabs(value)));
              if (!closed && farthest >= 0) {
                branch = farthest;
                expand = true;
              } else if (!polished) {
                exhausted = false;  // a branch QP that could not be confirmed: nothing is proved
              }
            }
          }
        } else if (r.status != Status::Infeasible) {
          exhausted = false;  // a QP failure: this subtree is not explored
        }
        if (expand) {
          stack_pair_.coeffRef(depth) = static_cast<int>(branch);
          stack_state_.coeffRef(depth) = 0;
          stack_bound_.coeffRef(depth) = node_value;
          fix_.coeffRef(branch) = first_side;
          ++depth;
          descend = true;
          continue;
        }
      }
      // Backtrack: the deepest branching whose second child is untried.
      while (depth > 0) {
        const Index level = depth - 1;
        const Index pair = stack_pair_.coeff(level);
        if (stack_state_.coeff(level) == 0) {
          stack_state_.coeffRef(level) = 1;
          const Scalar bound = stack_bound_.coeff(level);
          const Scalar cut = incumbent - settings_.prune_tolerance *
                                             detail::max_of(Scalar(1), std::fabs(incumbent));
          if (have_incumbent && !(bound < cut)) {
            fix_.coeffRef(pair) = kFree;
            --depth;
            continue;
          }
          fix_.coeffRef(pair) = fix_.coeff(pair) == kFixL ? kFixR : kFixL;
          descend = true;
          break;
        }
        fix_.coeffRef(pair) = kFree;
        --depth;
      }
      if (!descend) break;
    }
    if (!have_incumbent) {
      if (exhausted) return infeasible(LcqpPath::BranchAndBound);
      result_.status = Status::MaxIterations;
      result_.x.setZero(n_);
      result_.active.setZero(m_);
      return result_;
    }
    // Re-solve the incumbent's branch QP so the reported multipliers belong to it.
    fix_ = best_fix_;
    const auto& r = solve_qp(p, p.g);
    Scalar value;
    bool refined = true;
    if (r.status == Status::Ok && acceptable(p, r.x, value) &&
        value <= incumbent +
                     settings_.prune_tolerance * detail::max_of(Scalar(1), std::fabs(incumbent))) {
      best_x_ = r.x;
      incumbent = value;
      refined = refine_regularised(p, best_x_, incumbent);
    }
    accept(p, best_x_, incumbent, LcqpPath::BranchAndBound, exhausted && refined);
    classify(p);
    return result_;
  }

  // --- 3. penalty homotopy -----------------------------------------------------------------------

  /// C v = L'(R v) + R'(L v) into out.
  void apply_c(const Problem& p, const VectorN& v, VectorN& out) noexcept {
    lp_.noalias() = detail::product(p.L, v);
    rp_.noalias() = detail::product(p.R, v);
    out.noalias() = detail::product(p.L.transpose(), rp_);
    out.noalias() += detail::product(p.R.transpose(), lp_);
  }

  /// The penalty phi(x) = (Lx - lbL)'(Rx - lbR), and its gradient C x + g_phi into grad_phi_.
  Scalar penalty_and_gradient(const Problem& p, const VectorN& x) noexcept {
    apply_c(p, x, grad_phi_);  // leaves lp_ = L x, rp_ = R x
    grad_phi_ += gphi_;
    Scalar v = Scalar(0);
    for (Index i = 0; i < m_; ++i)
      v += (lp_.coeff(i) - p.lbL.coeff(i)) * (rp_.coeff(i) - p.lbR.coeff(i));
    return v;
  }

  const Result& homotopy(const Problem& p) noexcept {
    result_.path = LcqpPath::PenaltyHomotopy;
    // g_phi = -(R' lbL + L' lbR): phi(x) = 1/2 x'Cx + g_phi'x + lbL'lbR.
    gphi_.noalias() = detail::product(p.R.transpose(), p.lbL);
    gphi_.noalias() += detail::product(p.L.transpose(), p.lbR);
    gphi_ = -gphi_;
    Scalar rho = settings_.initial_penalty;
    // Zero-penalty QP (the relaxation): infeasible relaxation proves infeasibility.
    gk_ = p.g;
    {
      const auto& r = solve_qp(p, gk_);
      if (r.status == Status::Infeasible) return infeasible(LcqpPath::PenaltyHomotopy);
      if (r.status != Status::Ok) return stop_homotopy(rho);
      xk_ = r.x;
    }
    // xk_ is the iterate, x_ the last QP solution; g_used in gk_.
    x_ = xk_;
    Scalar history[8] = {};
    int hist_size = 0;
    bool converged = false;
    for (;;) {
      // phi and its gradient at xk_, once per iteration (xk_ moves only at the end of it).
      const Scalar phi_now = penalty_and_gradient(p, xk_);
      // Stationarity of the penalised problem at xk_: Q(xk - x_qp) + rho (C xk + g_phi) - (gk - g).
      tmp2_n_ = xk_ - x_;
      p_.noalias() = detail::product(p.Q, tmp2_n_);
      p_ += reg_ * tmp2_n_;
      p_ += rho * grad_phi_;
      p_ -= gk_ - p.g;
      const Scalar stat = p_.template lpNorm<Eigen::Infinity>();
      ++result_.homotopy_iterations;
      if (settings_.dynamic_penalty_window > 0) {
        const int window = settings_.dynamic_penalty_window;
        if (hist_size < window) {
          history[hist_size++] = phi_now;
        } else if (phi_now < settings_.complementarity_tolerance) {
          for (int i = 1; i < window; ++i) history[i - 1] = history[i];
          history[window - 1] = phi_now;
        } else {
          bool stalled = true;
          for (int i = 0; i < window; ++i)
            if (phi_now < settings_.dynamic_penalty_eta * history[i]) stalled = false;
          for (int i = 1; i < window; ++i) history[i - 1] = history[i];
          history[window - 1] = phi_now;
          if (stalled) {
            rho *= settings_.penalty_update_factor;
            hist_size = 0;
          }
        }
      }
      if (stat < settings_.stationarity_tolerance) {
        if (phi_now < settings_.complementarity_tolerance) {
          converged = true;
          break;
        }
        rho *= settings_.penalty_update_factor;
        hist_size = 0;
      }
      if (result_.homotopy_iterations > settings_.max_iterations || rho > settings_.max_penalty)
        break;
      // Linearised penalty gradient and the QP step.
      gk_ = p.g + rho * grad_phi_;
      const auto& r = solve_qp(p, gk_);
      if (r.status != Status::Ok) break;
      x_ = r.x;
      p_ = x_ - xk_;
      // LCQPow's step on the merit 1/2 x'(Q + rho C)x + (g + rho g_phi)'x along p.
      apply_c(p, p_, tmp_n_);
      tmp2_n_.noalias() = detail::product(p.Q, p_);
      tmp2_n_ += reg_ * p_;
      const Scalar qk = p_.dot(tmp2_n_) + rho * p_.dot(tmp_n_);
      // grad at xk: Q xk + g + rho (C xk + g_phi)
      tmp2_n_.noalias() = detail::product(p.Q, xk_);
      tmp2_n_ += reg_ * xk_;
      tmp2_n_ += p.g;
      const Scalar lk = p_.dot(tmp2_n_) + rho * p_.dot(grad_phi_);
      Scalar alpha = Scalar(1);
      if (qk > Scalar(0) && lk < Scalar(0)) alpha = detail::min_of(-lk / qk, Scalar(1));
      xk_ += alpha * p_;
    }
    result_.penalty = rho;
    // Polish: fix each pair on its active side at the homotopy's point and solve that branch QP
    // (even after a stop: the point may still be close enough).
    x_ = xk_;
    fix_.setConstant(m_, kFree);
    Scalar value = Scalar(0);
    if (!polish(p, value)) {
      if (converged && acceptable(p, xk_, value)) {
        accept(p, xk_, value, LcqpPath::PenaltyHomotopy, false);
        return result_;
      }
      return stop_homotopy(rho);
    }
    best_x_ = x_;
    // Local flips at biactive pairs whose fixed side's multiplier is negative (a descent
    // direction that the other branch allows).
    for (int flip = 0; flip < settings_.max_local_flips; ++flip) {
      const auto& r = qp_.result();
      pair_values(p, best_x_);
      const Scalar tol = feasibility_threshold(best_x_);
      const Scalar dual_tol = Scalar(1e3) * settings_.feasibility_tolerance;
      Index pick = -1;
      Scalar most = -dual_tol;
      for (Index i = 0; i < m_; ++i) {
        if (!(std::fabs(lx_.coeff(i)) <= tol && std::fabs(rx_.coeff(i)) <= tol)) continue;
        const Index row = fix_.coeff(i) == kFixL ? nc_ + i : nc_ + m_ + i;
        const Scalar mult = r.constraint_multipliers.coeff(row);
        if (mult < most) {
          most = mult;
          pick = i;
        }
      }
      if (pick < 0) break;
      best_fix_ = fix_;
      fix_.coeffRef(pick) = fix_.coeff(pick) == kFixL ? kFixR : kFixL;
      const auto& s = solve_qp(p, p.g);
      Scalar flipped = Scalar(0);
      const bool better =
          s.status == Status::Ok && acceptable(p, s.x, flipped) &&
          flipped < value - settings_.prune_tolerance * detail::max_of(Scalar(1), std::fabs(value));
      if (!better) {
        fix_ = best_fix_;
        solve_qp(p, p.g);  // restore the multipliers of the accepted branch
        break;
      }
      best_x_ = s.x;
      value = flipped;
    }
    static_cast<void>(refine_regularised(p, best_x_, value));
    accept(p, best_x_, value, LcqpPath::PenaltyHomotopy, false);
    classify(p);
    result_.penalty = rho;
    return result_;
  }

  const Result& stop_homotopy(Scalar rho) noexcept {
    result_.status = Status::MaxIterations;
    result_.penalty = rho;
    result_.x.setZero(n_);
    result_.active.setZero(m_);
    return result_;
  }

  // --- storage ---------------------------------------------------------------------------------

  using MatrixNN = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::ColMajor, MaxN_, MaxN_>;
  using MatrixPP = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::ColMajor, MaxP_, MaxP_>;
  using MatrixNP = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::ColMajor, MaxN_, MaxP_>;
  static constexpr int kMaxLuCols = kBounded ? MaxN_ + MaxP_ + 1 : Dynamic;
  using MatrixLu = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::RowMajor, MaxN_, kMaxLuCols>;
  using FixVector = Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxP_, 1>;
  static constexpr int kMaxStack = MaxP_ == Dynamic ? Dynamic : MaxP_ + 1;
  using IntP = Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, MaxP_, 1>;
  using IntN = Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, MaxN_, 1>;

  Qp qp_;
  LemkeSolver<Scalar, MaxP_> lemke_;
  Settings settings_;
  Result result_;
  Index n_ = 0, nc_ = 0, m_ = 0;
  bool has_guess_ = false;
  Scalar reg_ = Scalar(0);                   // diagonal added to Q in the subproblems
  Scalar regularisation_scale_ = Scalar(1);  // max(1, max_i |Q_ii|): automatic delta's unit
  Scalar proximal_step_ = Scalar(0);         // delta ||x+ - x_k||_inf of the last refinement
  Scalar cvec_scale_ = Scalar(1);            // alpha = |E c|_inf of the monotone path's LCP
  Scalar cvec_beta_ = Scalar(1);             // beta = max |E S E| of the monotone path's LCP
  VectorRows row_lo_, row_hi_;
  VectorN x_, xk_, p_, gk_, gphi_, grad_phi_, tmp_n_, tmp2_n_, best_x_, x0_;
  VectorN gradient_;  // Q x + g of a QP answer (settled())
  VectorP lx_, rx_, lp_, rp_, cvec_, dvec_, equil_, mu_, w_, w_relaxed_, w_noise_, l_norm_, r_norm_,
      sel_scale_;
  FixVector fix_, best_fix_, best_fix_scratch_;
  GuessVector guess_;
  Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, kMaxStack, 1> stack_pair_, stack_state_;
  Vector<Scalar, Dynamic, kMaxStack> stack_bound_;
  IntP sel_col_, i0_, visited_, queue_;
  IntN free_col_, col_role_;
  MatrixLu lu_;
  MatrixNP t_;
  MatrixPP mm_, ss_, serr_;  // serr_: bound on S's error, entrywise
};

}  // namespace claw
