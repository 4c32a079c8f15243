// claw/solvers/qp/dual_active_set.hpp: QpDualActiveSet, the problem data and the Goldfarb-Idnani
// iteration on a working set that QpSolver (qp/solver.hpp) runs and then verifies.
#pragma once

#include <Eigen/Core>
#include <cmath>

#include "claw/core/product.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/numerics.hpp"
#include "claw/solvers/qp/factorization.hpp"
#include "claw/solvers/qp/settings.hpp"
#include "claw/solvers/qp/types.hpp"
#include "claw/solvers/qp/verification.hpp"
#include "claw/solvers/qp/working_set.hpp"

namespace claw {
namespace detail {

/// The dual active-set method of Goldfarb and Idnani (1983) for
///   min 1/2 x'Qx + g'x  s.t.  lbA <= A x <= ubA,  lb <= x <= ub
/// on the factors of qp/factorization.hpp and the working set of qp/working_set.hpp. Invariant
/// between steps: x is the minimiser of the objective with W's constraints held as equalities and
/// W's inequality multipliers are >= 0 (dual feasible); each iteration adds the most violated
/// constraint outside W, dropping members whose multiplier would turn negative first, so the
/// first x that violates nothing beyond the threshold is the candidate answer. QpSolver derives
/// from this class (its storage) and decides the answer's status.
template <typename Scalar_, int N_, int MaxN_, int M_, int MaxM_>
class QpDualActiveSet {
 protected:
  using Scalar = Scalar_;
  using Index = Eigen::Index;
  static constexpr int kTotal = (N_ == Dynamic || M_ == Dynamic) ? Dynamic : N_ + M_;
  static constexpr int kMaxTotal = (MaxN_ == Dynamic || MaxM_ == Dynamic) ? Dynamic : MaxN_ + MaxM_;
  using HessianType = Eigen::Matrix<Scalar, N_, N_, Eigen::ColMajor, MaxN_, MaxN_>;
  using ConstraintMatrixType =
      Eigen::Matrix<Scalar, M_, N_, (N_ == 1 ? Eigen::ColMajor : Eigen::RowMajor), MaxM_, MaxN_>;
  using VectorN = Vector<Scalar, N_, MaxN_>;
  using VectorM = Vector<Scalar, M_, MaxM_>;
  using Result = QpResult<Scalar, N_, MaxN_, M_, MaxM_>;

  /// Sizes every buffer for n variables and m rows (zeros; 1 / ||a_i|| = 1).
  void resize(Index n, Index m) {
    n_ = n;
    m_ = m;
    q_.setZero(n, n);
    factors_.resize(n);
    working_set_.resize(n, n + m);
    a_.setZero(m, n);
    for (VectorN* v : {&g_, &lb_, &ub_, &x_, &d_, &z_, &work_, &work2_}) v->setZero(n);
    for (VectorM* v : {&lba_, &uba_, &ax_, &row_norm_}) v->setZero(m);
    inv_norm_.setOnes(m);
  }

  // Constraint c in [0, n + m): c < n is the simple bound on x_c, else row c - n of A.
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
  /// Member k's right-hand side: sign a_c'x >= lower (sign +1) or -upper (sign -1).
  Scalar rhs(Index k) const noexcept {
    const Index c = working_set_.constraint(k);
    return working_set_.sign(k) > 0 ? lower(c) : -upper(c);
  }
  /// sign a_c'x - (its bound on that side): negative when c is violated on that side.
  Scalar slack(Index c, int sign) const noexcept {
    return sign > 0 ? value(c) - lower(c) : upper(c) - value(c);
  }
  /// tolerance (1 + ||x||_inf): the iteration's threshold (QpSettings).
  Scalar threshold(Scalar tolerance) const noexcept {
    const Scalar x_norm = n_ > 0 ? x_.cwiseAbs().maxCoeff() : Scalar(0);
    return tolerance * (Scalar(1) + x_norm);
  }
  void update_ax() noexcept {
    if (m_ > 0) ax_.noalias() = detail::product(a_, x_);
  }

  /// d_ = J' (sign a_c); returns one past d_'s last nonzero (at least W's size).
  Index compute_d(Index c, int sign) noexcept {
    if constexpr (M_ == 0) {
      return factors_.bound_direction(c, sign, d_);
    } else {
      return c < n_ ? factors_.bound_direction(c, sign, d_)
                    : factors_.row_direction(a_.row(c - n_), sign, d_);
    }
  }

  /// Appends c (d_ computed for it, nonzero up to end) to W with multiplier u.
  void append(Index c, int sign, bool equality, Index end, Scalar u) noexcept {
    working_set_.push(c, sign, equality, u);
    factors_.append(d_, end);
  }

  /// Adds c to W with multiplier 0 when it is independent of W; returns whether it was added.
  bool try_append(Index c, int sign, bool equality) noexcept {
    const Index end = compute_d(c, sign);
    Scalar d2_norm2;
    if (factors_.dependent(d_, end, settings_.dependence_tolerance, d2_norm2)) return false;
    append(c, sign, equality, end, Scalar(0));
    return true;
  }

  void remove(Index k) noexcept {
    working_set_.erase(k);
    factors_.remove(k);
  }

  /// x_ and u for W held as equalities: with y = J'g and R' v = b_W,
  /// x = J1 v - J2 y2 and u = R^-1 (v + y1). O(n^2).
  void compute_primal_dual() noexcept {
    const Index q = factors_.size();
    const auto& j = factors_.j();
    work_.noalias() = detail::product(j.transpose(), g_);
    for (Index k = 0; k < q; ++k) work2_.coeffRef(k) = rhs(k);
    factors_.solve_r_transposed(work2_);
    if (q > 0) {
      x_.noalias() = detail::product(j.leftCols(q), work2_.head(q));
    } else {
      x_.setZero();
    }
    if (q < n_) x_.noalias() -= detail::product(j.rightCols(n_ - q), work_.tail(n_ - q));
    for (Index k = 0; k < q; ++k) work2_.coeffRef(k) += work_.coeff(k);
    factors_.solve_r(work2_, working_set_.multipliers());
    // One step of iterative refinement of x on W's rows (O(n q)): with res_k = b_k - sign_k n_k'x,
    // R' dv = res and x += J1 dv (J2 is orthogonal to W's normals, so x's other part is unchanged).
    // It brings W's residual from eps kappa^2 down to about eps kappa (one step suffices).
    for (Index k = 0; k < q; ++k) {
      const Scalar n_x = value_at_x(working_set_.constraint(k));
      work2_.coeffRef(k) = rhs(k) - (working_set_.sign(k) > 0 ? n_x : -n_x);
    }
    factors_.solve_r_transposed(work2_);
    if (q > 0) x_.noalias() += detail::product(j.leftCols(q), work2_.head(q));
    // A simple bound in W holds exactly: its coordinate is the bound, not the solve's rounding of
    // it (which a tight infeasibility_tolerance would count as a violation).
    for (Index k = 0; k < q; ++k) {
      const Index c = working_set_.constraint(k);
      if (c < n_) x_.coeffRef(c) = working_set_.sign(k) > 0 ? lb_.coeff(c) : ub_.coeff(c);
    }
  }

  /// The verdict on constraint p violated on side `sign` (+1: below its lower bound) while its
  /// normal is dependent on W, n_p = N r (N: W's signed normals, r = R^-1 J' n_p) with no
  /// inequality of W able to make room (r_k <= 0 on W's inequalities): the Farkas vector
  /// y = e_p - sum_k r_k e_{c_k} on the signed constraints, written as row multipliers
  /// (lambda = y sign; W's bounds are left to the box). Infeasible when check_qp_certificate proves
  /// it, IllConditioned otherwise. Every caller that meets such a p asks here. Uses d_, work2_.
  Status infeasibility_verdict(Index p, int sign) noexcept {
    compute_d(p, sign);
    factors_.solve_r(d_, work2_);
    VectorM& y = result_.constraint_multipliers;
    y.setZero();
    if (p >= n_) y.coeffRef(p - n_) += static_cast<Scalar>(sign);
    for (Index k = 0; k < factors_.size(); ++k) {
      const Index c = working_set_.constraint(k);
      if (c >= n_)
        y.coeffRef(c - n_) -= static_cast<Scalar>(working_set_.sign(k)) * work2_.coeff(k);
    }
    const bool certified =
        check_qp_certificate(a_, row_norm_, lb_, ub_, lba_, uba_, y, result_.bound_multipliers,
                             settings_.infeasibility_tolerance);
    return certified ? Status::Infeasible : Status::IllConditioned;
  }

  /// Equalities left out of W as dependent, and HeldOut constraints, must hold at x (implied by
  /// W's equalities, constant for a zero row, or swapped in twice as rounding): the first that
  /// misses by more than the infeasibility threshold gets the verdict of infeasibility_verdict.
  /// Ok when every one holds. Needs ax_ current; uses d_, work2_.
  Status held_out_status() noexcept {
    const Scalar tol = threshold(settings_.infeasibility_tolerance);
    for (Index c = 0; c < n_ + m_; ++c) {
      const QpMembership state = working_set_.membership(c);
      const bool held_out =
          is_equality(c) ? state == QpMembership::Outside : state == QpMembership::HeldOut;
      if (!held_out) continue;
      const Scalar v = value(c), lo = lower(c), hi = upper(c);
      const Scalar miss = v < lo ? lo - v : (v > hi ? v - hi : Scalar(0));
      if (!(miss * inv_norm(c) > tol)) continue;
      return infeasibility_verdict(c, v < lo ? 1 : -1);
    }
    return Status::Ok;
  }

  /// The member of W with the most negative multiplier among the inequalities whose multiplier is
  /// below `limit` (and that the refresh has not dropped yet, when `once` is set); -1 if none.
  Index most_negative_multiplier(Scalar limit, bool once) const noexcept {
    Index worst = -1;
    Scalar most_negative = limit;
    const VectorN& u = working_set_.multipliers();
    for (Index k = 0; k < working_set_.size(); ++k) {
      if (working_set_.equality(k) || !(u.coeff(k) < most_negative)) continue;
      if (once && working_set_.dropped_by_refresh(working_set_.constraint(k))) continue;
      most_negative = u.coeff(k);
      worst = k;
    }
    return worst;
  }

  /// x_ and u afresh from W (compute_primal_dual) once steps have been taken. The steps kept
  /// every inequality multiplier >= 0, but they carry rounding: about eps kappa |u|, and more
  /// where W passed through a nearly dependent set (large multipliers cancelling). A fresh
  /// multiplier below -working_set_rounding(kappa) max|u| is real: its constraint leaves W (one
  /// iteration, as in a warm start) and x_, u are computed again; one within that rounding is set
  /// to 0. A constraint leaves this way once per solve: back in W (a vertex that is feasible only
  /// within the tolerance: dropped, violated, added, negative again) its multiplier is set to 0
  /// instead, and the report's stationarity shows it. Then a_i'x. False when the iteration cap
  /// stops it.
  bool refresh_from_working_set(int& iterations) noexcept {
    VectorN& u = working_set_.multipliers();
    for (;;) {
      compute_primal_dual();
      const Index q = working_set_.size();
      const Scalar largest = q > 0 ? u.head(q).cwiseAbs().maxCoeff() : Scalar(0);
      const Index worst =
          most_negative_multiplier(-working_set_rounding(factors_.condition()) * largest, true);
      if (worst < 0) break;
      if (iterations >= settings_.max_iterations) return false;
      ++iterations;
      working_set_.mark_dropped_by_refresh(working_set_.constraint(worst));
      remove(worst);
    }
    for (Index k = 0; k < working_set_.size(); ++k)
      if (!working_set_.equality(k) && u.coeff(k) < Scalar(0)) u.coeffRef(k) = Scalar(0);
    update_ax();
    return true;
  }

  /// Runs the iteration from the current W: Ok with a candidate in x_ and u (not yet verified),
  /// Infeasible with a checked certificate in result_, IllConditioned, MaxIterations or
  /// NumericalOverflow.
  Status iterate(int& iterations) noexcept {
    working_set_.forget_history();
    compute_primal_dual();
    update_ax();
    const Status held_out = held_out_status();
    if (held_out != Status::Ok) return held_out;
    // Warm start: restore dual feasibility by dropping the most negative inequality multiplier.
    for (Index worst = most_negative_multiplier(Scalar(0), false); worst >= 0;
         worst = most_negative_multiplier(Scalar(0), false)) {
      if (iterations >= settings_.max_iterations) return Status::MaxIterations;
      ++iterations;
      remove(worst);
      compute_primal_dual();
    }
    update_ax();
    bool fresh = true;  // x_ and u computed from W directly, not by steps
    for (;;) {
      int sign = 0;
      const Index p = most_violated(sign);
      if (p < 0) {
        // Checked again at the answer: the tolerance scales with ||x||, and a warm start may have
        // begun far away (a zero row with 0 outside [lbA, ubA] passed there).
        if (fresh) return held_out_status();
        // Solved up to the rounding the steps accumulated: restart from the fresh minimiser over
        // W (O(n^2)), which must pass the test as well. Constraints set aside at the stepped x come
        // back: their miss was judged at a point that carried the steps' rounding.
        if (!refresh_from_working_set(iterations)) return Status::MaxIterations;
        working_set_.restore_set_aside();
        fresh = true;
        continue;
      }
      const Status status = add_violated(p, sign, fresh, iterations);
      if (status != Status::Ok) return status;
      update_ax();
    }
  }

  /// The most violated constraint outside W and its violated side (+1: below its lower bound),
  /// by the distance along its unit normal, among those whose distance exceeds the iteration's
  /// target min(threshold(feasibility_tolerance), infeasibility_tolerance (1 + |b|) / 2), b the
  /// violated bound (rows: |b| / ||a||); -1 if none. The target is never looser than half the Ok
  /// tolerance of check_qp_answer, so the iteration does not stop at a candidate its own check
  /// rejects (the other half is room for the final refresh's rounding). Equalities outside W are
  /// implied by W's equalities (held_out_status checks them).
  Index most_violated(int& sign) const noexcept {
    const Scalar target = threshold(settings_.feasibility_tolerance);
    const Scalar half_ok = settings_.infeasibility_tolerance / Scalar(2);
    // Only far from the origin can a bound's own limit be below the target; worst starts at the
    // smallest limit any constraint can have and then holds the largest miss taken.
    const bool bound_relative = half_ok < target;
    Scalar worst = bound_relative ? half_ok : target;
    Index p = -1;
    for (Index c = 0; c < n_ + m_; ++c) {
      const Scalar lo = lower(c), hi = upper(c);
      if (working_set_.membership(c) != QpMembership::Outside || lo == hi) continue;
      const Scalar v = value(c), scale = inv_norm(c);
      const Scalar below = (lo - v) * scale;
      const Scalar above = (v - hi) * scale;
      if (below > worst && (!bound_relative || beyond_target(below, lo, scale, target))) {
        worst = below;
        p = c;
        sign = 1;
      }
      if (above > worst && (!bound_relative || beyond_target(above, hi, scale, target))) {
        worst = above;
        p = c;
        sign = -1;
      }
    }
    return p;
  }

  /// Whether a miss of bound b (scale: 1 / ||a||) exceeds min(target, half the Ok tolerance).
  bool beyond_target(Scalar miss, Scalar b, Scalar scale, Scalar target) const noexcept {
    const Scalar ok_half =
        settings_.infeasibility_tolerance / Scalar(2) * (Scalar(1) + std::fabs(b) * scale);
    return miss > (ok_half < target ? ok_half : target);
  }

  /// Adds the violated constraint p (side `sign`) to W, taking partial steps (each drops the
  /// member whose multiplier reaches 0 first) until it enters W. Ok when p entered W, was set
  /// aside, or holds after a refresh (the caller then chooses the next p); any other status ends
  /// the solve. `fresh` tells whether x_ was computed from W directly (no step since).
  Status add_violated(Index p, int sign, bool& fresh, int& iterations) noexcept {
    Scalar s = slack(p, sign);  // sign a_p'x - b_p < 0
    Scalar u_p = Scalar(0);
    VectorN& u = working_set_.multipliers();
    bool first_step = true;
    for (;;) {
      const Index end = compute_d(p, sign);
      Scalar d2_norm2;
      const bool is_dependent =
          factors_.dependent(d_, end, settings_.dependence_tolerance, d2_norm2);
      factors_.solve_r(d_, work2_);  // r = R^-1 d1: how W's multipliers change per unit of u_p
      // A dependent p whose miss is within the infeasibility threshold is headed for the set-aside
      // (x does not move in its dual step, so the miss is known now). On that path an r_k within
      // r's rounding, working_set_rounding(kappa) max|r|, is 0 in exact arithmetic and blocks
      // nothing (as a block it would drop a member that the refresh finds violated again: a
      // cycle). A miss beyond the threshold keeps every positive r_k as a block: the drops lead
      // to room for p or to infeasibility_verdict.
      const bool beyond = -s * inv_norm(p) > threshold(settings_.infeasibility_tolerance);
      const Scalar r_largest = r_magnitude(false);
      const Scalar r_rounding = is_dependent && !beyond
                                    ? working_set_rounding(factors_.condition()) * r_largest
                                    : Scalar(0);
      Scalar t_dual = infinity<Scalar>();
      const Index blocking = blocking_member(r_rounding, t_dual);
      if (blocking < 0 && is_dependent) {
        // n_p = N r with r <= 0 on W's inequalities: every point satisfying W violates p by -s.
        // x has drifted by rounding over the steps: s is measured again at the fresh minimiser
        // over W (when x is not fresh already and no partial step for p moved x off it).
        // Constraints set aside at the stepped x come back (each restore needs a step since the
        // last one: no loop without iterations).
        if (u_p == Scalar(0) && !fresh) {
          if (!refresh_from_working_set(iterations)) return Status::MaxIterations;
          working_set_.restore_set_aside();
          fresh = true;
          s = slack(p, sign);
          // The drift may have been all of it: p holds on this side at the fresh point. Else p's
          // direction, dependence, r and the set-aside test afresh (W may have changed).
          if (!(s < Scalar(0))) return Status::Ok;
          continue;
        }
        // Beyond the threshold: every point satisfying W (x up to rounding) misses p, so the
        // problem is infeasible when the certificate this gives holds; else nothing is proved.
        if (beyond) return infeasibility_verdict(p, sign);
        set_aside(p, u_p, r_largest);
        return Status::Ok;
      }
      // A dependent p missed within the threshold that enters by dropping a member swaps the two
      // at one vertex up to rounding; the second such entry of p in a solve holds p out instead
      // (checked at the answer), so swaps within rounding cannot cycle.
      if (first_step && is_dependent && !beyond && held_out_as_second_swap(p)) return Status::Ok;
      first_step = false;
      if (iterations >= settings_.max_iterations) return Status::MaxIterations;
      ++iterations;
      fresh = false;  // a step follows (also after a refresh above): the answer is refreshed again
      const Scalar t_primal = is_dependent ? infinity<Scalar>() : -s / d2_norm2;
      const bool full = !is_dependent && t_primal <= t_dual;
      // Neither step exists: the primal step is NaN (x or s overflowed on extreme data).
      if (!full && blocking < 0) return Status::NumericalOverflow;
      const Scalar t = full ? t_primal : t_dual;
      if (!is_dependent) {
        // z = J2 d2: the primal direction (Q z = n_p - N r).
        const Index q = factors_.size();
        z_.noalias() = detail::product(factors_.j().middleCols(q, end - q), d_.segment(q, end - q));
        x_.noalias() += t * z_;
        s += t * d2_norm2;
      }
      step_multipliers(-t);
      u_p += t;
      if (full) {
        append(p, sign, false, end, u_p);
        return Status::Ok;
      }
      u.coeffRef(blocking) = Scalar(0);
      remove(blocking);
    }
  }

  /// The swap rule of add_violated for p, a dependent constraint missed within the threshold
  /// that is about to enter by dropping a member: its first such entry in the solve is recorded,
  /// the second holds p out instead (HeldOut). True when p was held out.
  bool held_out_as_second_swap(Index p) noexcept {
    if (working_set_.swapped_in_before(p)) {
      working_set_.set_aside(p, true);
      return true;
    }
    working_set_.mark_swapped_in(p);
    return false;
  }

  /// max |r_k| over W (inequalities_only: over W's inequalities), r = work2_.
  Scalar r_magnitude(bool inequalities_only) const noexcept {
    Scalar largest = Scalar(0);
    for (Index k = 0; k < working_set_.size(); ++k) {
      if (inequalities_only && working_set_.equality(k)) continue;
      const Scalar rk = std::fabs(work2_.coeff(k));
      largest = rk > largest ? rk : largest;
    }
    return largest;
  }

  /// The dual step's blocking member: the inequality of W with r_k > r_rounding whose multiplier
  /// reaches 0 first, u_k / r_k = t_dual; -1 (t_dual = inf) if none.
  Index blocking_member(Scalar r_rounding, Scalar& t_dual) const noexcept {
    Index blocking = -1;
    const VectorN& u = working_set_.multipliers();
    for (Index k = 0; k < working_set_.size(); ++k) {
      const Scalar rk = work2_.coeff(k);
      if (working_set_.equality(k) || !(rk > r_rounding)) continue;
      const Scalar ratio = u.coeff(k) / rk;
      if (ratio < t_dual) {
        t_dual = ratio;
        blocking = k;
      }
    }
    return blocking;
  }

  /// u += t r over W (r = work2_), inequality multipliers kept >= 0.
  void step_multipliers(Scalar t) noexcept {
    VectorN& u = working_set_.multipliers();
    for (Index k = 0; k < working_set_.size(); ++k) {
      Scalar uk = u.coeff(k) + t * work2_.coeff(k);
      if (!working_set_.equality(k) && uk < Scalar(0)) uk = Scalar(0);
      u.coeffRef(k) = uk;
    }
  }

  /// A dependent p violated within rounding at a degenerate vertex: folds u_p n_p = N (u_p r)
  /// into W's multipliers and sets p aside. A normal in the span of W's equalities alone (r on
  /// the inequalities below dependence_tolerance max|r|) stays dependent for the rest of the
  /// solve: HeldOut, checked at the answer (bringing it back with every change of W would only
  /// repeat add, drop, set aside).
  void set_aside(Index p, Scalar u_p, Scalar r_largest) noexcept {
    step_multipliers(u_p);
    const bool implied = !(r_magnitude(true) > settings_.dependence_tolerance * r_largest);
    working_set_.set_aside(p, implied);
  }

  Index n_ = 0;
  Index m_ = 0;
  QpSettings<Scalar> settings_;
  HessianType q_;  // symmetric part of Q
  QpFactors<Scalar, N_, MaxN_> factors_;
  QpWorkingSet<Scalar, N_, MaxN_, kTotal, kMaxTotal> working_set_;
  ConstraintMatrixType a_;
  VectorM inv_norm_;  // 1 / ||a_i|| (1 for a zero row; inf for a row of subnormal norm)
  VectorM row_norm_;  // ||a_i||, what the checks measure with
  VectorN g_, lb_, ub_;
  VectorM lba_, uba_, ax_;
  VectorN x_, d_, z_, work_, work2_;
  Scalar objective_ = Scalar(0);  // of the last candidate checked
  Scalar q_norm_ = Scalar(0);     // ||Q||_1 of the installed Hessian
  Result result_;
};

}  // namespace detail
}  // namespace claw
