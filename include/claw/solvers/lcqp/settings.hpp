// claw/solvers/lcqp/settings.hpp: LcqpSettings, the options of LcqpSolver's three paths and of
// its convex subproblems, with their validation.
#pragma once

#include <limits>

#include "claw/core/status.hpp"
#include "claw/solvers/qp/settings.hpp"

namespace claw {

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
  Scalar penalty_update_factor = Scalar(2);  ///< > 1, the factor rho is multiplied by
  Scalar max_penalty = Scalar(1e8);          ///< largest rho, finite, >= initial_penalty
  int max_iterations = 1000;                 ///< cap on homotopy iterations, >= 0
  /// On the penalised problem's Lagrangian gradient (inf-norm), finite, >= 0.
  Scalar stationarity_tolerance = Scalar(1e6) * std::numeric_limits<Scalar>::epsilon();
  /// On phi(x) = (Lx - lbL)'(Rx - lbR), finite, >= 0.
  Scalar complementarity_tolerance = Scalar(1e3) * std::numeric_limits<Scalar>::epsilon();
  /// LCQPow's dynamic penalty rule: the penalty also rises when phi did not fall below
  /// eta times each of the last `dynamic_penalty_window` values (0 disables it; at most 8).
  int dynamic_penalty_window = 3;
  Scalar dynamic_penalty_eta = Scalar(0.9);  ///< eta, in (0, 1)
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

  /// InvalidParameter unless the counts are >= 0 (max_nodes > 0, dynamic_penalty_window <= 8),
  /// the tolerances and hessian_regularisation finite and >= 0, 0 < initial_penalty <=
  /// max_penalty < inf, penalty_update_factor > 1 and 0 < dynamic_penalty_eta < 1; else
  /// qp.validate().
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

}  // namespace claw
