// claw/solvers/lcqp/solver.hpp: LcqpSolver, the LCQP solver: the monotone path (monotone.hpp),
// then branch and bound or the penalty homotopy over convex QPs solved by QpSolver.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/product.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/lcqp/monotone.hpp"
#include "claw/solvers/lcqp/problem.hpp"
#include "claw/solvers/lcqp/settings.hpp"
#include "claw/solvers/lcqp/types.hpp"
#include "claw/solvers/qp.hpp"

namespace claw {

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
  using Monotone = detail::LcqpMonotonePath<Scalar, MaxN_, MaxC_, MaxP_>;

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
    monotone_.reserve(n, nc, m);
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
      const auto outcome = monotone_.run(problem, guess, l_norm_, r_norm_,
                                         settings_.feasibility_tolerance, x_, result_.lemke_pivots);
      if (outcome == Monotone::Outcome::Point) return certify_unique_point(problem);
      if (outcome == Monotone::Outcome::Infeasible) return infeasible(LcqpPath::Monotone);
    }
    const Status setup = setup_qp(problem);
    if (setup != Status::Ok) return refuse(setup);
    if (static_cast<int>(m_) <= settings_.max_pairs_for_branch_and_bound)
      return branch_and_bound(problem);
    return homotopy(problem);
  }

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

  /// The monotone path's point in x_, the only complementary point of the LCQP: the certified
  /// optimum when it passes acceptable(), a certificate of infeasibility when it does not, nothing
  /// proved when it overflowed (finite data of extreme range).
  const Result& certify_unique_point(const Problem& p) noexcept {
    result_.path = LcqpPath::Monotone;
    Scalar value;
    const bool within = acceptable(p, x_, value);
    if (!all_finite(x_) || !std::isfinite(value)) return refuse(Status::NumericalOverflow);
    if (!within) return infeasible(LcqpPath::Monotone);
    accept(p, x_, value, LcqpPath::Monotone, true);
    return result_;
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
  /// answer that is not settled (see settled(); an Infeasible one included) is repeated cold (one
  /// more QP solve): a warm path can pass through a nearly dependent working set, where rounding
  /// of the order of eps kappa decides a verdict, and a wrong node verdict would prune a feasible
  /// branch; the cold path reaches the vertex through its own, better conditioned sets.
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
  /// take as the node's bound. A node bound must be the minimum of the node's QP, since pruning
  /// compares it with the incumbent; eps^(1/4) separates a minimiser known to the working set's
  /// rounding from a vertex that is not one (whose residual is of the gradient's size).
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
              // the prune tolerance): the tolerance is relative to ||x||, so a free pair within
              // it on both sides can hide a better branch on its other side; then branch on the
              // farthest free pair instead. With no free pair the node is its own branch.
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
  using FixVector = Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxP_, 1>;
  static constexpr int kMaxStack = MaxP_ == Dynamic ? Dynamic : MaxP_ + 1;

  Qp qp_;
  Monotone monotone_;
  Settings settings_;
  Result result_;
  Index n_ = 0, nc_ = 0, m_ = 0;
  bool has_guess_ = false;
  Scalar reg_ = Scalar(0);                   // diagonal added to Q in the subproblems
  Scalar regularisation_scale_ = Scalar(1);  // max(1, max_i |Q_ii|): automatic delta's unit
  Scalar proximal_step_ = Scalar(0);         // delta ||x+ - x_k||_inf of the last refinement
  VectorRows row_lo_, row_hi_;
  VectorN x_, xk_, p_, gk_, gphi_, grad_phi_, tmp_n_, tmp2_n_, best_x_;
  VectorN gradient_;  // Q x + g of a QP answer (settled())
  VectorP lx_, rx_, lp_, rp_, l_norm_, r_norm_;
  FixVector fix_, best_fix_, best_fix_scratch_;
  GuessVector guess_;
  Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, kMaxStack, 1> stack_pair_, stack_state_;
  Vector<Scalar, Dynamic, kMaxStack> stack_bound_;
};

}  // namespace claw
