// claw/solvers/lcqp/branch_qps.hpp: what LcqpSolver's paths share: the result being written,
// the acceptance test of a point, and the convex branch QPs (pair fixings, regularisation, warm).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/product.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/numerics.hpp"
#include "claw/solvers/lcqp/problem.hpp"
#include "claw/solvers/lcqp/settings.hpp"
#include "claw/solvers/lcqp/types.hpp"
#include "claw/solvers/qp.hpp"

namespace claw {
namespace detail {

/// The workspace LcqpSolver and its paths share (an internal type: its members are public to
/// the paths). Invariants: n_, nc_, m_ are the sizes of the last reserve(); fix_ holds each pair's
/// fixing in the branch QP (kFree: both sides free; kFixL: L_i x = lbL_i; kFixR: R_i x = lbR_i);
/// row_lo_/row_hi_ are the QP's row bounds [A; L; R] for fix_ once apply_fixings() ran; reg_ is
/// the diagonal added to Q in every branch QP, result_.regularisation its automatic part.
template <typename Scalar_, int MaxN_, int MaxC_, int MaxP_>
class LcqpBranchQps {
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
  using MatrixNN = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::ColMajor, MaxN_, MaxN_>;
  using FixVector = Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxP_, 1>;
  enum : std::int8_t { kFree = 0, kFixL = 1, kFixR = 2 };

  void reserve(Index n, Index nc, Index m) {
    n_ = n;
    nc_ = nc;
    m_ = m;
    qp_.reserve(n, nc + 2 * m);
    row_lo_.resize(nc + 2 * m);
    row_hi_.resize(nc + 2 * m);
    x_.resize(n);
    gk_.resize(n);
    tmp_n_.resize(n);
    gradient_.resize(n);
    best_x_.resize(n);
    lx_.resize(m);
    rx_.resize(m);
    fix_.resize(m);
    best_fix_.resize(m);
    l_norm_.resize(m);
    r_norm_.resize(m);
    result_.x.resize(n);
    result_.active.resize(m);
  }

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

  const Result& max_iterations() noexcept {
    result_.status = Status::MaxIterations;
    result_.x.setZero(n_);
    result_.active.setZero(m_);
    return result_;
  }

  /// How far an objective must fall to count as lower: prune_tolerance max(1, |value|) (the
  /// pruning of branch and bound and the homotopy's local flips).
  Scalar prune_allowance(Scalar value) const noexcept {
    return settings_.prune_tolerance * detail::max_of(Scalar(1), std::fabs(value));
  }

  // --- acceptance of a point -------------------------------------------------------------------

  Scalar objective(const Problem& p, const VectorN& x) noexcept {
    tmp_n_.noalias() = detail::product(p.Q, x);
    return Scalar(0.5) * x.dot(tmp_n_) + p.g.dot(x);
  }

  /// Row i of a (A, L or R) times x, summed in column order (a plain loop: at these sizes a
  /// vectorised reduction's set-up costs more than the sum).
  template <typename Rows>
  Scalar row_dot(const Rows& a, Index i, const VectorN& x) const noexcept {
    Scalar sum = Scalar(0);
    for (Index k = 0; k < n_; ++k) sum += a.coeff(i, k) * x.coeff(k);
    return sum;
  }

  Scalar feasibility_threshold(const VectorN& x) const noexcept {
    return settings_.feasibility_tolerance * (Scalar(1) + x.template lpNorm<Eigen::Infinity>());
  }

  /// The acceptance test of a returned point: finite with a finite objective (returned in `value`
  /// whatever the verdict), every bound within feasibility_threshold(x), every row (A, L, R) within
  /// feasibility_threshold(x) max(1, ||row||), and every pair's natural residual within
  /// feasibility_threshold(x) max(1, ||L_i||, ||R_i||). A row's norm is computed only for a
  /// violation above feasibility_threshold(x) (the scaled limit is never below it). On true,
  /// assessed_primal_ holds x's largest violation of the box and the rows of A, for
  /// accept_assessed().
  bool acceptable(const Problem& p, const VectorN& x, Scalar& value) noexcept {
    value = objective(p, x);
    if (!all_finite(x) || !std::isfinite(value)) return false;
    const Scalar tol = feasibility_threshold(x);
    Scalar primal = Scalar(0);
    for (Index i = 0; i < n_; ++i) {
      const Scalar below = p.lb.coeff(i) - x.coeff(i), above = x.coeff(i) - p.ub.coeff(i);
      if (below > tol || above > tol) return false;
      primal = detail::max_of(primal, detail::max_of(below, above));
    }
    for (Index i = 0; i < nc_; ++i) {
      const Scalar ax = row_dot(p.A, i, x);
      const Scalar below = p.lbA.coeff(i) - ax, above = ax - p.ubA.coeff(i);
      if (below > tol || above > tol) {
        const Scalar row_tol = tol * detail::max_of(Scalar(1), detail::euclidean_norm(p.A.row(i)));
        if (below > row_tol || above > row_tol) return false;
      }
      primal = detail::max_of(primal, detail::max_of(below, above));
    }
    for (Index i = 0; i < m_; ++i) {
      const Scalar lx = row_dot(p.L, i, x), rx = row_dot(p.R, i, x);
      const Scalar l_tol = tol * detail::max_of(Scalar(1), l_norm_.coeff(i));
      const Scalar r_tol = tol * detail::max_of(Scalar(1), r_norm_.coeff(i));
      if (p.lbL.coeff(i) - lx > l_tol || lx - p.ubL.coeff(i) > l_tol) return false;
      if (p.lbR.coeff(i) - rx > r_tol || rx - p.ubR.coeff(i) > r_tol) return false;
      const Scalar natural = std::fabs(detail::min_of(lx - p.lbL.coeff(i), rx - p.lbR.coeff(i)));
      if (natural > detail::max_of(l_tol, r_tol)) return false;
    }
    assessed_primal_ = primal;
    return true;
  }

  /// Fills result_ with an accepted point x (status Ok), its objective `value` (from acceptable()),
  /// residuals (primal: the largest violation of the box, A, L and R bounds; complementarity: the
  /// largest |min(L_i x - lbL_i, R_i x - lbR_i)|), the pair values lx_, rx_ and the sides.
  void accept(const Problem& p, const VectorN& x, Scalar value, LcqpPath path,
              bool certified) noexcept {
    Scalar primal = Scalar(0);
    for (Index i = 0; i < n_; ++i)
      primal = detail::max_of(
          primal, detail::max_of(p.lb.coeff(i) - x.coeff(i), x.coeff(i) - p.ub.coeff(i)));
    for (Index i = 0; i < nc_; ++i) {
      const Scalar ax = row_dot(p.A, i, x);
      primal = detail::max_of(primal, detail::max_of(p.lbA.coeff(i) - ax, ax - p.ubA.coeff(i)));
    }
    accept_with(p, x, value, path, certified, primal);
  }

  /// accept() for the x that acceptable() has just passed: its box and A residual is reused. Call
  /// it only right after acceptable(p, x, value) returned true, with the same p and x.
  void accept_assessed(const Problem& p, const VectorN& x, Scalar value, LcqpPath path,
                       bool certified) noexcept {
    accept_with(p, x, value, path, certified, assessed_primal_);
  }

  /// accept()'s pair part, given the largest violation of the box and of A's rows: the L and R
  /// bounds join the primal residual; the natural residual, pair values and sides in one pass.
  void accept_with(const Problem& p, const VectorN& x, Scalar value, LcqpPath path, bool certified,
                   Scalar primal) noexcept {
    result_.status = Status::Ok;
    result_.path = path;
    result_.certified_global = certified;
    result_.x = x;
    result_.objective = value;
    Scalar natural = Scalar(0);
    const Scalar tol = feasibility_threshold(x);
    for (Index i = 0; i < m_; ++i) {
      const Scalar lx = row_dot(p.L, i, x), rx = row_dot(p.R, i, x);
      primal = detail::max_of(primal, detail::max_of(p.lbL.coeff(i) - lx, lx - p.ubL.coeff(i)));
      primal = detail::max_of(primal, detail::max_of(p.lbR.coeff(i) - rx, rx - p.ubR.coeff(i)));
      const Scalar a = lx - p.lbL.coeff(i), b = rx - p.lbR.coeff(i);
      natural = detail::max_of(natural, std::fabs(detail::min_of(a, b)));
      set_pair_values(i, a, b);
      const bool la = std::fabs(lx_.coeff(i)) <= tol, ra = std::fabs(rx_.coeff(i)) <= tol;
      result_.active.coeffRef(i) =
          static_cast<std::int8_t>(la && ra ? 2 : (la || lx_.coeff(i) <= rx_.coeff(i) ? 0 : 1));
    }
    result_.residuals.primal = primal;
    result_.residuals.complementarity = natural;
  }

  // --- the convex branch QPs -------------------------------------------------------------------

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
      for (int k = 0; k < regularisation_step_count<Scalar>() && status == Status::InvalidProblem;
           ++k) {
        const Scalar delta = regularisation_step<Scalar>(k) * scale;
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
    const Scalar cap = regularisation_cap<Scalar>() * regularisation_scale_;
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
    return r.residuals.stationarity <= settled_stationarity_fraction<Scalar>() * scale;
  }

  /// Per pair (row-norm scaled) values of the two sides at x: lx_, rx_.
  void pair_values(const Problem& p, const VectorN& x) noexcept {
    for (Index i = 0; i < m_; ++i)
      set_pair_values(i, row_dot(p.L, i, x) - p.lbL.coeff(i), row_dot(p.R, i, x) - p.lbR.coeff(i));
  }

  /// lx_i = a / ||L_i||, rx_i = b / ||R_i||. A zero row's norm is floored at the smallest normal
  /// number of Scalar (a constant side: 0 stays 0, any other value keeps its sign, as a huge or
  /// infinite value; never 0 / 0).
  void set_pair_values(Index i, Scalar a, Scalar b) noexcept {
    const Scalar floor = std::numeric_limits<Scalar>::min();
    lx_.coeffRef(i) = a / detail::max_of(l_norm_.coeff(i), floor);
    rx_.coeffRef(i) = b / detail::max_of(r_norm_.coeff(i), floor);
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
    const Scalar dual_tol = biactive_dual_tolerance(settings_.feasibility_tolerance);
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

  // --- storage ---------------------------------------------------------------------------------

  Qp qp_;
  Settings settings_;
  Result result_;
  Index n_ = 0, nc_ = 0, m_ = 0;
  bool has_guess_ = false;
  Scalar reg_ = Scalar(0);                   // diagonal added to Q in the subproblems
  Scalar regularisation_scale_ = Scalar(1);  // max(1, max_i |Q_ii|): automatic delta's unit
  Scalar proximal_step_ = Scalar(0);         // delta ||x+ - x_k||_inf of the last refinement
  Scalar assessed_primal_ = Scalar(0);       // box and A residual of acceptable()'s last pass
  VectorRows row_lo_, row_hi_;
  VectorN x_, gk_, tmp_n_, best_x_;
  VectorN gradient_;  // Q x + g of a QP answer (settled())
  VectorP lx_, rx_, l_norm_, r_norm_;
  FixVector fix_, best_fix_;
};

}  // namespace detail
}  // namespace claw
