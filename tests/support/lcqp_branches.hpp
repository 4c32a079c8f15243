// tests/support/lcqp_branches.hpp: an LCQP's 2^m branches (each pair held on its L side or on its R
// side) solved as QPs by QpSolver: the reference the branch-and-bound tests and fuzz_lcqp compare
// with.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <limits>

#include "claw/solvers/lcqp.hpp"
#include "claw/solvers/qp.hpp"

namespace claw_test {

/// What the branch QPs of an LCQP say about it.
template <typename Scalar>
struct LcqpBranches {
  bool hessian_accepted = false;  ///< false: QpSolver refused Q or the rows (nothing else set)
  Scalar best_objective = claw::infinity<Scalar>();  ///< smallest objective of a branch solved Ok
  /// a branch solved Ok with primal residual <= 1e-12 whose point is feasible up to rounding
  /// (16 eps (1 + ||x||_inf) along each unit normal, plus the row products' rounding), or that
  /// still solves Ok with primal residual <= 1e-12 with every inequality side and bound moved
  /// inward by 1e-9 (1 + ||x||_inf)
  bool clearly_feasible = false;
  /// The smallest ||x||_inf among the clearly feasible branch points, each branch's minimiser
  /// (+inf if none). An infeasibility certificate decided at tolerance t covers only ||x||_inf <=
  /// t / eps (its reach, docs/numerics.md), so a point beyond it does not contradict an Infeasible
  /// answer. (A branch whose minimiser lies beyond the reach while other feasible points of it lie
  /// within is not seen here.)
  Scalar nearest_clearly_feasible = claw::infinity<Scalar>();
  /// The value a correct certified optimum may not exceed: the smallest, over the branches whose
  /// point meets QpSolver's own stopping test (meets_stopping_test), of the branch re-solved with
  /// its inequality sides and bounds moved inward by twice its point's largest violation v (along
  /// the unit normal: 2 v ||a_i|| for row i; v doubled until the re-solved point holds the
  /// branch's inequalities exactly), plus sum |multiplier_i| violation_i at the re-solved
  /// point (what the remaining violations, of equalities say, gained to first order). A branch
  /// point's violations within the tolerance can be worth much: v = 5e-11 on a row inactive in the
  /// branch, where the relaxation's multiplier is 8e10, made a branch 2.1 lower than the exact
  /// optimum. A branch that is infeasible once moved inward, or that meets the stopping test only
  /// up to the infeasibility tolerance (a dependent constraint left out of the working set), is not
  /// a reference. With the solver's point x_s given, each branch's value also allows for x_s
  /// missing the rows the branch holds active by rounding: sum |y_i| max(min(d_i, 8 n eps s_i), eps
  /// s_i), s_i = |a_i|'|x_s| and d_i the distance of a_i'x_s from the bound y_i's sign selects
  /// (x_s's own representation fixes a_i'x_s only to about eps s_i; at ||x|| ~ 1.2e9 an equality
  /// row of norm 104 is met to 2e-6 at best, and its multiplier is 5e18: 1e13 of the
  /// objective 1.4e18). +inf if no branch qualifies.
  Scalar certified_ceiling = claw::infinity<Scalar>();
};

/// The relative rounding allowed for a row product a'x of n terms: 8 n eps.
template <typename Scalar>
Scalar row_product_rounding(Eigen::Index n) {
  return Scalar(8) * static_cast<Scalar>(n) * std::numeric_limits<Scalar>::epsilon();
}

/// True when x violates no bound by more than t = tolerance (1 + ||x||_inf) and no row by more than
/// t plus 8 n eps |a_i|'|x| (the rounding of a_i'x) along its unit normal.
template <typename Scalar, typename VectorX, typename VectorN, typename Rows, typename VectorM>
bool meets_stopping_test(Scalar tolerance, const VectorX& x, const VectorN& lb, const VectorN& ub,
                         const Rows& rows, const VectorM& lo, const VectorM& hi) {
  const Scalar t = tolerance * (Scalar(1) + x.template lpNorm<Eigen::Infinity>());
  for (Eigen::Index j = 0; j < x.size(); ++j)
    if (lb(j) - x(j) > t || x(j) - ub(j) > t) return false;
  const Scalar rounding = row_product_rounding<Scalar>(x.size());
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const Scalar norm = rows.row(i).norm();
    if (!(norm > Scalar(0))) continue;
    const Scalar value = rows.row(i).dot(x);
    const Scalar allowed = t * norm + rounding * rows.row(i).cwiseAbs().dot(x.cwiseAbs());
    if (lo(i) - value > allowed || value - hi(i) > allowed) return false;
  }
  return true;
}

/// Solves every branch of `p`: pair i with L_i x = lbL_i (bit i of the mask clear) or
/// R_i x = lbR_i (set), the other side keeping its bounds. m must be small (2^m QPs).
template <typename Scalar, int MaxN, int MaxC, int MaxP>
LcqpBranches<Scalar> solve_lcqp_branches(
    const claw::LcqpProblem<Scalar, MaxN, MaxC, MaxP>& p,
    const claw::Vector<Scalar, claw::Dynamic, MaxN>* solver_x = nullptr) {
  constexpr int kMaxRows =
      (MaxC == claw::Dynamic || MaxP == claw::Dynamic) ? claw::Dynamic : MaxC + 2 * MaxP;
  const Eigen::Index n = p.Q.rows(), nc = p.A.rows(), m = p.L.rows();
  LcqpBranches<Scalar> out;
  claw::QpSolver<Scalar, claw::Dynamic, MaxN, claw::Dynamic, kMaxRows> qp(n, nc + 2 * m);
  if (qp.set_hessian(p.Q) != claw::Status::Ok) return out;
  Eigen::Matrix<Scalar, claw::Dynamic, claw::Dynamic, Eigen::RowMajor, kMaxRows, MaxN> rows(
      nc + 2 * m, n);
  rows << p.A, p.L, p.R;
  if (qp.set_constraints(rows) != claw::Status::Ok) return out;
  out.hessian_accepted = true;
  claw::Vector<Scalar, claw::Dynamic, kMaxRows> lo(nc + 2 * m), hi(nc + 2 * m);
  for (long mask = 0; mask < (1L << m); ++mask) {
    lo << p.lbA, p.lbL, p.lbR;
    hi << p.ubA, p.ubL, p.ubR;
    for (Eigen::Index i = 0; i < m; ++i) {
      if ((mask >> i) & 1) {
        hi(nc + m + i) = p.lbR(i);
      } else {
        hi(nc + i) = p.lbL(i);
      }
    }
    const auto& branch = qp.solve(p.g, p.lb, p.ub, lo, hi);
    if (branch.status != claw::Status::Ok) continue;
    out.best_objective = std::min(out.best_objective, branch.objective);
    auto tighten = [](Scalar& low, Scalar& high, Scalar by) {
      if (!(low < high)) return;  // an equality stays
      if (high - low <= Scalar(2) * by) {
        low = high = low + (high - low) / Scalar(2);
      } else {
        low += by;  // an infinite side stays infinite
        high -= by;
      }
    };
    // Every bound and row side moved inward by `by` along its unit normal (equalities stay).
    auto tighten_all = [&](Scalar by, auto& lb_in, auto& ub_in, auto& lo_in, auto& hi_in) {
      for (Eigen::Index j = 0; j < n; ++j) tighten(lb_in(j), ub_in(j), by);
      for (Eigen::Index i = 0; i < rows.rows(); ++i)
        tighten(lo_in(i), hi_in(i), by * rows.row(i).norm());
    };
    const Scalar x_norm = branch.x.template lpNorm<Eigen::Infinity>();
    if (x_norm < out.nearest_clearly_feasible && branch.residuals.primal <= Scalar(1e-12)) {
      const Scalar rounding_tolerance = Scalar(16) * std::numeric_limits<Scalar>::epsilon();
      if (meets_stopping_test(rounding_tolerance, branch.x, p.lb, p.ub, rows, lo, hi)) {
        // Feasible up to rounding: 16 eps (1 + ||x||) and the row products'.
        out.clearly_feasible = true;
        out.nearest_clearly_feasible = x_norm;
      } else {
        // Otherwise clearly feasible when still solved within 1e-12 with every inequality side and
        // bound moved inward by 1e-9 (1 + ||x||_inf) along its unit normal. A point within 1e-12 of
        // a feasible set that is empty in exact arithmetic is no evidence: rows 3e-5 apart in angle
        // make x1 <= -3.65 for every exactly feasible x, yet x1 = 0 misses them by only 7.6e-13.
        const Scalar margin =
            Scalar(1e-9) * (Scalar(1) + branch.x.template lpNorm<Eigen::Infinity>());
        auto inner_lb = p.lb, inner_ub = p.ub;
        auto inner_lo = lo, inner_hi = hi;
        tighten_all(margin, inner_lb, inner_ub, inner_lo, inner_hi);
        const auto& inner = qp.solve(p.g, inner_lb, inner_ub, inner_lo, inner_hi);
        if (inner.status == claw::Status::Ok && inner.residuals.primal <= Scalar(1e-12)) {
          out.clearly_feasible = true;
          out.nearest_clearly_feasible = x_norm;
        }
        // `branch` refers to the solver's result: a cold solve is deterministic, so this restores
        // it.
        static_cast<void>(qp.solve(p.g, p.lb, p.ub, lo, hi));
        if (branch.status != claw::Status::Ok) continue;
      }
    }
    if (!meets_stopping_test(qp.settings().feasibility_tolerance, branch.x, p.lb, p.ub, rows, lo,
                             hi))
      continue;
    auto outside = [](Scalar v, Scalar low, Scalar high) {
      return std::max({low - v, v - high, Scalar(0)});
    };
    Scalar largest = Scalar(0);  // v: the largest violation along a unit normal
    for (Eigen::Index j = 0; j < n; ++j)
      largest = std::max(largest, outside(branch.x(j), p.lb(j), p.ub(j)));
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
      const Scalar norm = rows.row(i).norm();
      if (norm > Scalar(0))
        largest = std::max(largest, outside(rows.row(i).dot(branch.x), lo(i), hi(i)) / norm);
    }
    const auto held_lo = lo, held_hi = hi;
    auto lb = p.lb, ub = p.ub;
    // The moved point may in turn violate an inequality within QpSolver's threshold, with no
    // multiplier to show what that gained (x3 >= 0 missed by 2.8e-11 before and after a move of
    // 5.6e-11, implied at 1e9 per unit: 0.03 of the objective). The move is doubled until the moved
    // point holds every inequality side and bound of the branch exactly (at most 60 times).
    auto inequality_violation = [&](const auto& x) {
      Scalar worst = Scalar(0);
      for (Eigen::Index j = 0; j < n; ++j)
        if (p.lb(j) < p.ub(j)) worst = std::max(worst, outside(x(j), p.lb(j), p.ub(j)));
      for (Eigen::Index i = 0; i < rows.rows(); ++i)
        if (held_lo(i) < held_hi(i))
          worst = std::max(worst, outside(rows.row(i).dot(x), held_lo(i), held_hi(i)));
      return worst;
    };
    // A branch whose moved set turns empty, or whose point still violates after 60 doublings, is
    // no reference (left out: the ceiling can only rise).
    Scalar by = largest;
    bool holds = false;
    for (int attempt = 0; attempt < 60 && !holds; ++attempt) {
      lb = p.lb;
      ub = p.ub;
      lo = held_lo;
      hi = held_hi;
      tighten_all(Scalar(2) * by, lb, ub, lo, hi);
      const auto& trial = qp.solve(p.g, lb, ub, lo, hi);
      if (trial.status != claw::Status::Ok) break;
      holds = !(inequality_violation(trial.x) > Scalar(0));
      by = by > Scalar(0) ? Scalar(2) * by : std::numeric_limits<Scalar>::epsilon();
    }
    const auto& moved = qp.result();
    if (!holds) continue;
    // The moved point must also meet the branch's equalities to rounding (16 eps (1 + ||x||_inf)
    // along each unit normal, plus the row products' rounding). A point that misses one by more
    // sits near a set that may be empty in exact arithmetic, where its objective means nothing:
    // two R rows equal to -623.5 (1, 1, 1, 1), held at -1 and -0.62, both active in one branch,
    // at ||x|| = 1.6e10 were met to 1.75 (within QpSolver's tolerance 1e-9 (1 + ||x||) along the
    // unit normal), and that point's value, 6e-6 below the clean branches', was taken as a bound.
    if (!meets_stopping_test(Scalar(16) * std::numeric_limits<Scalar>::epsilon(), moved.x, p.lb,
                             p.ub, rows, held_lo, held_hi))
      continue;
    Scalar gained = Scalar(0);
    for (Eigen::Index j = 0; j < n; ++j)
      gained += std::fabs(moved.bound_multipliers(j)) * outside(moved.x(j), lb(j), ub(j));
    for (Eigen::Index i = 0; i < rows.rows(); ++i)
      gained += std::fabs(moved.constraint_multipliers(i)) *
                outside(rows.row(i).dot(moved.x), lo(i), hi(i));
    if (solver_x != nullptr) {
      const Scalar rounding = row_product_rounding<Scalar>(n);
      for (Eigen::Index i = 0; i < rows.rows(); ++i) {
        const Scalar y = moved.constraint_multipliers(i);
        if (y == Scalar(0)) continue;
        const Scalar d =
            std::fabs(rows.row(i).dot(*solver_x) - (y > Scalar(0) ? held_lo(i) : held_hi(i)));
        const Scalar size = rows.row(i).cwiseAbs().dot(solver_x->cwiseAbs());  // |a_i|'|x_s|
        gained += std::fabs(y) * std::max(std::min(d, rounding * size),
                                          std::numeric_limits<Scalar>::epsilon() * size);
      }
    }
    out.certified_ceiling = std::min(out.certified_ceiling, moved.objective + gained);
  }
  return out;
}

}  // namespace claw_test
