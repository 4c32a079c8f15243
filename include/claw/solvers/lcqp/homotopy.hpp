// claw/solvers/lcqp/homotopy.hpp: LcqpSolver's third path for many pairs: LCQPow's penalty
// homotopy, then the branch QP of the active sides and single-pair flips. Not certified.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>

#include "claw/core/product.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/lcqp/branch_qps.hpp"

namespace claw {
namespace detail {

/// The penalty homotopy (LcqpSolver's class comment states the method): QPs with the penalty
/// rho phi(x), phi(x) = (Lx - lbL)'(Rx - lbR) = 1/2 x'Cx + g_phi'x + lbL'lbR, linearised in the
/// gradient with Q constant, LCQPow's exact step on the quadratic merit, rho raised on
/// stationarity or by the dynamic rule. Owns its iterate and the penalty's buffers.
template <typename Scalar, int MaxN, int MaxC, int MaxP>
class LcqpHomotopy {
 public:
  using Index = Eigen::Index;
  using Core = LcqpBranchQps<Scalar, MaxN, MaxC, MaxP>;
  using Problem = typename Core::Problem;
  using Result = typename Core::Result;
  using VectorN = typename Core::VectorN;
  using VectorP = typename Core::VectorP;

  void reserve(Index n, Index m) {
    xk_.resize(n);
    p_.resize(n);
    gphi_.resize(n);
    grad_phi_.resize(n);
    tmp2_n_.resize(n);
    lp_.resize(m);
    rp_.resize(m);
  }

  const Result& run(const Problem& p, Core& c) noexcept {
    c.result_.path = LcqpPath::PenaltyHomotopy;
    // g_phi = -(R' lbL + L' lbR): phi(x) = 1/2 x'Cx + g_phi'x + lbL'lbR.
    gphi_.noalias() = detail::product(p.R.transpose(), p.lbL);
    gphi_.noalias() += detail::product(p.L.transpose(), p.lbR);
    gphi_ = -gphi_;
    Scalar rho = c.settings_.initial_penalty;
    // Zero-penalty QP (the relaxation): infeasible relaxation proves infeasibility.
    c.gk_ = p.g;
    {
      const auto& r = c.solve_qp(p, c.gk_);
      if (r.status == Status::Infeasible) return c.infeasible(LcqpPath::PenaltyHomotopy);
      if (r.status != Status::Ok) return stop(c, rho);
      xk_ = r.x;
    }
    // xk_ is the iterate, c.x_ the last QP solution; the gradient used in c.gk_.
    c.x_ = xk_;
    const bool converged = iterate(p, c, rho);
    c.result_.penalty = rho;
    // Polish: fix each pair on its active side at the homotopy's point and solve that branch QP
    // (even after a stop: the point may still be close enough).
    c.x_ = xk_;
    c.fix_.setConstant(c.m_, Core::kFree);
    Scalar value = Scalar(0);
    if (!c.polish(p, value)) {
      if (converged && c.acceptable(p, xk_, value)) {
        c.accept_assessed(p, xk_, value, LcqpPath::PenaltyHomotopy, false);
        return c.result_;
      }
      return stop(c, rho);
    }
    c.best_x_ = c.x_;
    local_flips(p, c, value);
    static_cast<void>(c.refine_regularised(p, c.best_x_, value));
    c.accept(p, c.best_x_, value, LcqpPath::PenaltyHomotopy, false);
    c.classify(p);
    c.result_.penalty = rho;
    return c.result_;
  }

 private:
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
    for (Index i = 0; i < lp_.size(); ++i)
      v += (lp_.coeff(i) - p.lbL.coeff(i)) * (rp_.coeff(i) - p.lbR.coeff(i));
    return v;
  }

  /// LCQPow's dynamic penalty rule over the last `dynamic_penalty_window` values of phi.
  struct PenaltyHistory {
    Scalar values[8] = {};
    int size = 0;

    /// Records phi; true (and the window restarts) when the window was full, phi is not below
    /// the complementarity tolerance, and phi >= eta times each recorded value (no progress).
    bool stalled(Scalar phi, const typename Core::Settings& s) noexcept {
      const int window = s.dynamic_penalty_window;
      if (window <= 0) return false;
      if (size < window) {
        values[size++] = phi;
        return false;
      }
      bool stall = !(phi < s.complementarity_tolerance);
      for (int i = 0; i < window && stall; ++i)
        if (phi < s.dynamic_penalty_eta * values[i]) stall = false;
      for (int i = 1; i < window; ++i) values[i - 1] = values[i];
      values[window - 1] = phi;
      if (stall) size = 0;
      return stall;
    }
  };

  /// The homotopy's iterations from xk_ (c.x_ the last QP solution, c.gk_ its gradient): rho is
  /// raised when the penalised problem is stationary but phi is not below its tolerance, or by
  /// the dynamic rule. True when stationary and complementary (converged); false at the
  /// iteration or penalty cap or when a QP fails.
  bool iterate(const Problem& p, Core& c, Scalar& rho) noexcept {
    const auto& s = c.settings_;
    PenaltyHistory history;
    for (;;) {
      // phi and its gradient at xk_, once per iteration (xk_ moves only at the end of it).
      const Scalar phi_now = penalty_and_gradient(p, xk_);
      // Stationarity of the penalised problem at xk_: Q(xk - x_qp) + rho (C xk + g_phi) - (gk - g).
      tmp2_n_ = xk_ - c.x_;
      p_.noalias() = detail::product(p.Q, tmp2_n_);
      p_ += c.reg_ * tmp2_n_;
      p_ += rho * grad_phi_;
      p_ -= c.gk_ - p.g;
      const Scalar stat = p_.template lpNorm<Eigen::Infinity>();
      ++c.result_.homotopy_iterations;
      if (history.stalled(phi_now, s)) rho *= s.penalty_update_factor;
      if (stat < s.stationarity_tolerance) {
        if (phi_now < s.complementarity_tolerance) return true;
        rho *= s.penalty_update_factor;
        history.size = 0;
      }
      if (c.result_.homotopy_iterations > s.max_iterations || rho > s.max_penalty) return false;
      if (!step(p, c, rho)) return false;
    }
  }

  /// One step: the QP with the linearised penalty gradient g + rho (C xk + g_phi), then LCQPow's
  /// exact step alpha in (0, 1] along p = x_qp - xk on the merit 1/2 x'(Q + rho C)x +
  /// (g + rho g_phi)'x. False when the QP is not Ok.
  bool step(const Problem& p, Core& c, Scalar rho) noexcept {
    c.gk_ = p.g + rho * grad_phi_;
    const auto& r = c.solve_qp(p, c.gk_);
    if (r.status != Status::Ok) return false;
    c.x_ = r.x;
    p_ = c.x_ - xk_;
    apply_c(p, p_, c.tmp_n_);
    tmp2_n_.noalias() = detail::product(p.Q, p_);
    tmp2_n_ += c.reg_ * p_;
    const Scalar qk = p_.dot(tmp2_n_) + rho * p_.dot(c.tmp_n_);
    // grad at xk: Q xk + g + rho (C xk + g_phi)
    tmp2_n_.noalias() = detail::product(p.Q, xk_);
    tmp2_n_ += c.reg_ * xk_;
    tmp2_n_ += p.g;
    const Scalar lk = p_.dot(tmp2_n_) + rho * p_.dot(grad_phi_);
    Scalar alpha = Scalar(1);
    if (qk > Scalar(0) && lk < Scalar(0)) alpha = detail::min_of(-lk / qk, Scalar(1));
    xk_ += alpha * p_;
    return true;
  }

  /// Local flips at biactive pairs whose fixed side's multiplier is below -1e3
  /// feasibility_tolerance (a descent direction that the other branch allows): the most negative
  /// one is flipped while the flipped branch QP is Ok, acceptable and lower by the prune
  /// tolerance, at most max_local_flips times. c.best_x_ and `value` hold the best branch, c.fix_
  /// its fixings and the QP its multipliers.
  void local_flips(const Problem& p, Core& c, Scalar& value) noexcept {
    for (int flip = 0; flip < c.settings_.max_local_flips; ++flip) {
      const Index pick = flip_candidate(p, c);
      if (pick < 0) return;
      c.best_fix_ = c.fix_;
      c.fix_.coeffRef(pick) = c.fix_.coeff(pick) == Core::kFixL ? Core::kFixR : Core::kFixL;
      const auto& s = c.solve_qp(p, p.g);
      Scalar flipped = Scalar(0);
      const Scalar allowance = c.prune_allowance(value);
      const bool better =
          s.status == Status::Ok && c.acceptable(p, s.x, flipped) && flipped < value - allowance;
      if (!better) {
        c.fix_ = c.best_fix_;
        static_cast<void>(c.solve_qp(p, p.g));  // the multipliers of the accepted branch
        return;
      }
      c.best_x_ = s.x;
      value = flipped;
    }
  }

  /// The biactive pair (both sides within the feasibility threshold at c.best_x_) whose fixed
  /// side's multiplier in the last QP is the most negative below -1e3 feasibility_tolerance; -1
  /// when none.
  Index flip_candidate(const Problem& p, Core& c) noexcept {
    const auto& r = c.qp_.result();
    c.pair_values(p, c.best_x_);
    const Scalar tol = c.feasibility_threshold(c.best_x_);
    const Scalar dual_tol = biactive_dual_tolerance(c.settings_.feasibility_tolerance);
    Index pick = -1;
    Scalar most = -dual_tol;
    for (Index i = 0; i < c.m_; ++i) {
      if (!(std::fabs(c.lx_.coeff(i)) <= tol && std::fabs(c.rx_.coeff(i)) <= tol)) continue;
      const Index row = c.fix_.coeff(i) == Core::kFixL ? c.nc_ + i : c.nc_ + c.m_ + i;
      const Scalar mult = r.constraint_multipliers.coeff(row);
      if (mult < most) {
        most = mult;
        pick = i;
      }
    }
    return pick;
  }

  static const Result& stop(Core& c, Scalar rho) noexcept {
    c.result_.penalty = rho;
    return c.max_iterations();
  }

  VectorN xk_, p_, gphi_, grad_phi_, tmp2_n_;
  VectorP lp_, rp_;
};

}  // namespace detail
}  // namespace claw
