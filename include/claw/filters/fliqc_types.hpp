// claw/filters/fliqc_types.hpp: the FLIQC filter's settings (FliqcSettings, with the original
// controller's defaults, and their validation) and the result each cycle returns (FliqcResult).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/lcqp/settings.hpp"
#include "claw/solvers/lcqp/types.hpp"

namespace claw {

/// Quadratic cost on qdot (the lambda part is always k_lambda/2 |lambda|^2).
enum class FliqcCostType : std::uint8_t {
  Identity = 0,                 ///< 1/2 qdot' qdot  (the original's default)
  MassMatrix = 1,               ///< 1/2 qdot' M_w qdot
  VelocityError = 2,            ///< 1/2 |qdot - qdot_guide|^2: minimiser at qdot_guide
  MassMatrixVelocityError = 3,  ///< 1/2 (qdot - qdot_guide)' M_w (qdot - qdot_guide)
};

/// What the filter commands on a cycle it cannot solve (status other than Ok).
enum class FliqcFallback : std::uint8_t {
  Stop = 0,            ///< qdot = 0 (the default; the original's ROS layer stops the robot)
  LeastViolation = 1,  ///< on Infeasible or MaxIterations: the velocity within the joint-velocity
                       ///< bounds that minimises the largest predicted violation
                       ///< max_i (eps - psi_i - dt P_i qdot), closest to the guide among those;
                       ///< on any other failure (refused or overflowing input): Stop
};

/// Settings of a FliqcFilter; defaults are the original controller's.
template <typename Scalar>
struct FliqcSettings {
  FliqcCostType quad_cost_type = FliqcCostType::Identity;  ///< the cost on qdot
  /// The original builds the velocity-error costs with g = -2 Q qdot_guide, whose minimiser is
  /// 2 qdot_guide; true reproduces that, false (default) puts the minimiser at qdot_guide.
  bool velocity_error_as_original = false;
  Scalar lambda_cost_penalty = Scalar(1);      ///< k_lambda > 0
  bool enable_lambda_constraint_in_L = false;  ///< L x = lambda <= lambda_max
  bool enable_lambda_constraint_in_x = true;   ///< lambda <= lambda_max as a variable bound
  bool enable_esc_vel_constraint = false;      ///< dt P_i qdot <= esc_vel_max
  /// P_null = I - pinv(J_pos) J_pos (J_pos: the first 3 rows of J) multiplies the lambda terms;
  /// false: P_null = I.
  bool enable_nullspace_projector_in_A = true;
  /// A distance measured on the point whose Jacobian J is has P_i^inv in the row space of J_pos,
  /// so P_null removes its whole reaction: P_i P_null P_i^inv <= sqrt(machine eps) P_i P_i^inv.
  /// Such a row is reported (FliqcResult::projector_blocked); true: its lambda_i acts through
  /// P_i^inv unprojected, so the filter can push that point away (the original's formulation
  /// otherwise, which cannot and answers Infeasible while the guide approaches).
  bool exempt_blocked_rows_from_projector = false;
  Scalar dt = Scalar(0.02);                 ///< prediction horizon [s], valid_time_step_setting
  Scalar eps = Scalar(0.02);                ///< safety margin [m], finite
  Scalar active_threshold = Scalar(0.05);   ///< only distances psi_i <= this enter
  Scalar lambda_max = infinity<Scalar>();   ///< > 0 (+inf: none)
  Scalar esc_vel_max = infinity<Scalar>();  ///< > 0 (+inf: none)
  /// Bound on |qdot_j| for every joint (+inf: none); FliqcFilter::set_velocity_limits sets one per
  /// joint instead.
  Scalar q_dot_max = infinity<Scalar>();
  FliqcFallback fallback = FliqcFallback::Stop;  ///< what a cycle that is not Ok commands
  /// Settings of the LCQP solver (its defaults).
  LcqpSettings<Scalar> solver;

  /// InvalidParameter unless dt passes valid_time_step_setting, eps is finite, active_threshold is
  /// not NaN, lambda_cost_penalty is finite and > 0 and lambda_max, esc_vel_max, q_dot_max are
  /// > 0; else solver.validate().
  Status validate() const noexcept {
    if (!valid_time_step_setting(dt) || !std::isfinite(eps) || std::isnan(active_threshold) ||
        !(lambda_cost_penalty > Scalar(0)) || !std::isfinite(lambda_cost_penalty) ||
        !(lambda_max > Scalar(0)) || !(esc_vel_max > Scalar(0)) || !(q_dot_max > Scalar(0)))
      return Status::InvalidParameter;
    return solver.validate();
  }
};

/// What FliqcFilter::filter returns (a reference to the filter's own result).
///  - qdot: the command to apply; |qdot_j| <= the joint's velocity bound on every path. Status Ok:
///    the filtered velocity, or, when no distance is active (`solved` false), qdot_guide scaled by
///    min(1, min_j q_dot_max_j / |qdot_guide_j|) (same direction; `velocity_scaled` says whether
///    it was scaled). Any other status: the fallback's velocity (never NaN).
///  - status: Ok; Infeasible (no velocity satisfies the complementarity and the bounds: certified);
///    MaxIterations (the solver gave up: nothing proved); NonFiniteInput, SizeMismatch,
///    InvalidProblem (inputs refused); NumericalOverflow (finite inputs whose problem overflowed).
template <typename Scalar, int N, int MaxN, int MaxM>
struct FliqcResult {
  Status status = Status::InvalidProblem;  ///< see above; before the first cycle: InvalidProblem
  /// The command, n entries (see above).
  Vector<Scalar, N, MaxN> qdot;
  Vector<Scalar, Dynamic, MaxM> lambda;  ///< one per active distance (0 unless solved and Ok)
  /// Index into the caller's psi of each active distance, in order.
  Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, MaxM, 1> active_rows;
  /// Per active distance: 0 lambda_i = 0 (distance constraint slack), 1 the distance constraint
  /// holds with equality, 2 both (degenerate). Also the warm start of the next cycle.
  Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxM, 1> active_set;
  /// m, the number of active distances (0 when refused).
  int active_count = 0;
  bool solved = false;  ///< the LCQP was solved this cycle (false: none active or refused)
  bool certified_global = false;  ///< the LCQP answer (Ok or Infeasible) is proved
  bool fallback_applied = false;  ///< qdot is the fallback's
  bool velocity_scaled = false;   ///< no distance active and qdot_guide scaled into the bounds
  /// Per active distance: 1 when the null-space projector removes its reaction (see
  /// FliqcSettings::exempt_blocked_rows_from_projector), else 0; projector_blocked_count of them.
  Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxM, 1> projector_blocked;
  int projector_blocked_count = 0;  ///< entries of projector_blocked that are 1
  LcqpPath path = LcqpPath::None;   ///< the LCQP solver's path (None when not solved)
  LcqpResiduals<Scalar> residuals;  ///< the LCQP answer's residuals (+inf when not solved)
  int qp_solves = 0;                ///< convex QPs of this cycle's LCQP solve
  int lemke_pivots = 0;             ///< Lemke pivots of this cycle's LCQP solve
  /// Largest predicted violation max_i (eps - psi_i - dt P_i qdot) of the returned qdot over the
  /// active distances (<= 0 when every one holds).
  Scalar predicted_violation = Scalar(0);
};

}  // namespace claw
