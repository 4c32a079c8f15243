// claw/blocks/pd_adapter.hpp: gym_jiminy's PD adapter, which turns a position (order 0) or velocity
// (order 1) action into the target acceleration of a PdController by clipped finite differences.
#pragma once

#include <cmath>
#include <cstdint>

#include "claw/blocks/pd_controller.hpp"
#include "claw/core/assert.hpp"
#include "claw/core/fields.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// Which derivative of the target position the adapter's action is.
enum class PdActionOrder : std::uint8_t {
  Position = 0,  ///< action = desired target position at the end of the step
  Velocity = 1,  ///< action = desired target velocity at the end of the step
};

namespace detail {

/// One joint of gym_jiminy's pd_adapter; `deadband` < 0 means "no deadband".
/// Default mode writes `out` (the target acceleration) and leaves the state alone; instantaneous
/// mode rewrites the state's position/velocity and writes out = 0.
template <typename Scalar>
inline void pd_adapter_joint(Scalar action, PdActionOrder order, Scalar& p, Scalar& v, Scalar v_min,
                             Scalar v_max, Scalar a_min, Scalar a_max, bool instantaneous,
                             Scalar deadband, Scalar step_dt, Scalar& out) noexcept {
  if (instantaneous && order == PdActionOrder::Velocity) {
    const Scalar target = (std::fabs(action) <= deadband) ? Scalar(0) : action;
    const Scalar acceleration = clip((target - v) / step_dt, a_min, a_max);
    v = v + acceleration * step_dt;
    out = Scalar(0);
    return;
  }
  Scalar velocity = (order == PdActionOrder::Position) ? (action - p) / step_dt : action;
  velocity = clip(velocity, v_min, v_max);
  if (std::fabs(velocity) < deadband) velocity = Scalar(0);
  if (instantaneous) {  // order 0
    p = p + velocity * step_dt;
    v = Scalar(0);
    out = Scalar(0);
  } else {
    out = (velocity - v) / step_dt;
  }
}

/// pd_adapter_joint on copies of p, v and out, written back only when all three are finite
/// (finite but huge inputs, such as (action - p) / step_dt past the largest float, can overflow).
/// Returns false, touching nothing, when they are not.
template <typename Scalar>
inline bool pd_adapter_joint_or_hold(Scalar action, PdActionOrder order, Scalar& p, Scalar& v,
                                     Scalar v_min, Scalar v_max, Scalar a_min, Scalar a_max,
                                     bool instantaneous, Scalar deadband, Scalar step_dt,
                                     Scalar& out) noexcept {
  Scalar p_new = p, v_new = v, out_new = out;
  pd_adapter_joint(action, order, p_new, v_new, v_min, v_max, a_min, a_max, instantaneous, deadband,
                   step_dt, out_new);
  if (!std::isfinite(p_new) || !std::isfinite(v_new) || !std::isfinite(out_new)) return false;
  p = p_new;
  v = v_new;
  out = out_new;
  return true;
}

}  // namespace detail

/// gym_jiminy's `pd_adapter` function (1.8.12), with checks. Per joint, with vt the target
/// velocity:
///  default mode:  vt = (action - S_p) / dt (order 0) or action (order 1); vt <- clip(vt, vmin,
///  vmax);
///                 vt <- 0 where |vt| < deadband; out = (vt - S_v) / dt (the target acceleration).
///  instantaneous order 0: vt as above; S_p <- S_p + vt dt; S_v <- 0; out = 0.
///  instantaneous order 1: action <- 0 where |action| <= deadband;
///                 S_v <- S_v + clip((action - S_v) / dt, amin, amax) dt; out = 0.
/// Position bounds are not enforced here (the controller's integrator does that); the acceleration
/// row of the state is never touched. `deadband` is a per-joint vector, or pass an empty vector
/// (size 0) for none. step_dt: the one exception to check_time_step (core/time_step.hpp), kept for
/// gym_jiminy's reference outputs: a negative step_dt is used as given (the PdAdapter block refuses
/// it in its settings); |step_dt| < 1e-9 returns Ok touching nothing. NonFiniteInput (nothing
/// touched) when step_dt, the action or the state holds NaN/Inf; InvalidParameter for a NaN or
/// negative deadband; InvalidBounds for a NaN bound or a velocity / acceleration lower bound above
/// its upper one (the rows the law reads); SizeMismatch unless state and bounds are 3xN and action,
/// out (and a deadband) have N entries. NumericalOverflow when finite but huge inputs overflow a
/// joint's output or state: that joint's out and state are held, the others are written.
template <typename DAction, typename DState, typename DLower, typename DUpper, typename DDeadband,
          typename DOut>
Status pd_adapter(const Eigen::MatrixBase<DAction>& action, PdActionOrder order,
                  const Eigen::MatrixBase<DState>& command_state,
                  const Eigen::MatrixBase<DLower>& lower, const Eigen::MatrixBase<DUpper>& upper,
                  bool instantaneous, const Eigen::MatrixBase<DDeadband>& deadband,
                  typename DState::Scalar step_dt, const Eigen::MatrixBase<DOut>& out) noexcept {
  using Scalar = typename DState::Scalar;
  auto& state = const_cast<Eigen::MatrixBase<DState>&>(command_state);
  auto& target = const_cast<Eigen::MatrixBase<DOut>&>(out);
  const Eigen::Index n = state.cols();
  if (state.rows() != 3 || lower.rows() != 3 || upper.rows() != 3 || lower.cols() != n ||
      upper.cols() != n || !all_have_size(n, action, target) ||
      (deadband.size() != 0 && deadband.size() != n))
    return Status::SizeMismatch;
  if (!std::isfinite(step_dt)) return Status::NonFiniteInput;
  if (std::fabs(step_dt) < Scalar(CLAW_MIN_TIME_STEP)) return Status::Ok;
  if (!all_finite(action) || !all_finite(state)) return Status::NonFiniteInput;
  const bool has_deadband = deadband.size() != 0;
  if (has_deadband)
    for (Eigen::Index j = 0; j < n; ++j)
      if (!(deadband.coeff(j) >= Scalar(0))) return Status::InvalidParameter;
  // The law reads the velocity and acceleration rows, adjacent in a StateMatrix.
  static_assert(kAcceleration == kVelocity + 1, "velocity and acceleration rows are adjacent");
  if (!none_nan(lower) || !none_nan(upper) ||
      !ordered_bounds(lower.middleRows(kVelocity, 2), upper.middleRows(kVelocity, 2)))
    return Status::InvalidBounds;
  Status status = Status::Ok;
  for (Eigen::Index j = 0; j < n; ++j)
    if (!detail::pd_adapter_joint_or_hold(
            action.coeff(j), order, state.coeffRef(kPosition, j), state.coeffRef(kVelocity, j),
            lower.coeff(kVelocity, j), upper.coeff(kVelocity, j), lower.coeff(kAcceleration, j),
            upper.coeff(kAcceleration, j), instantaneous,
            has_deadband ? deadband.coeff(j) : Scalar(-1), step_dt, target.coeffRef(j)))
      status = Status::NumericalOverflow;
  return status;
}

/// PD adapter block: each agent step of step_dt, turns the action (target position or velocity at
/// the end of the step) into the target acceleration a PdController holds over that step, using the
/// controller's command state and bounds (see pd_adapter() for the law). In instantaneous mode it
/// rewrites the controller's command state and outputs zero acceleration.
/// Settings are validated (step_dt >= 1e-9 finite, deadband >= 0); update() refuses NaN/Inf input
/// with NonFiniteInput and sizes other than size() (or size 0) with SizeMismatch, touching nothing;
/// NumericalOverflow as for pd_adapter(). Allocation-free after construction, noexcept.
/// It keeps no state between steps (the controller's command state is the pair's state), so
/// restarting some joints is PdController::reset_joints alone.
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_>
class PdAdapter : public StatelessBlock<Scalar_> {
 public:
  using Scalar = Scalar_;                              ///< the scalar type (float or double)
  using VectorType = Vector<Scalar, N_, MaxN_>;        ///< a vector of n joints
  using Controller = PdController<Scalar, N_, MaxN_>;  ///< the controller it feeds
  using State = NoState;  ///< the controller's command state is the pair's state
  static constexpr const char* kCommandQuantity = "targetAcceleration";  ///< out, for logging

  /// Settings of the block. Valid when: step_dt >= CLAW_MIN_TIME_STEP finite; deadband >= 0.
  struct Settings {
    PdActionOrder order = PdActionOrder::Velocity;  ///< gym_jiminy's default order is 1
    bool instantaneous = false;                     ///< rewrite the command state directly
    Scalar step_dt = Scalar(0.04);                  ///< agent step [s]
    bool use_deadband = false;                      ///< apply velocity_deadband
    VectorType velocity_deadband = VectorType::Zero(N_ == Dynamic ? 0 : N_);  ///< [pos/s] >= 0
  };

  PdAdapter() : PdAdapter(N_ == Dynamic ? 0 : N_) {}

  /// An adapter for n joints (allocates here for dynamic sizes, never afterwards).
  explicit PdAdapter(Eigen::Index n) : settings_(default_settings(n)) {}

  Eigen::Index size() const noexcept { return settings_.velocity_deadband.size(); }  ///< n joints

  /// Validates and installs settings; keeps the old ones on failure.
  Status configure(const Settings& settings) noexcept {
    if (settings.velocity_deadband.size() != size()) return Status::SizeMismatch;
    if (!valid_time_step_setting(settings.step_dt)) return Status::InvalidParameter;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!(settings.velocity_deadband.coeff(j) >= Scalar(0))) return Status::InvalidParameter;
    settings_ = settings;
    return Status::Ok;
  }

  /// One agent step: writes the target acceleration for `controller` into `out` (and, in
  /// instantaneous mode, updates the controller's command state and writes zeros).
  template <typename DAction, typename DOut>
  Status update(const Eigen::MatrixBase<DAction>& action, Controller& controller,
                const Eigen::MatrixBase<DOut>& out) const noexcept {
    if (size() == 0 || controller.size() != size() || !all_have_size(size(), action, out))
      return Status::SizeMismatch;
    if (!all_finite(action)) return Status::NonFiniteInput;
    auto& target = const_cast<Eigen::MatrixBase<DOut>&>(out);
    // Written below through state(kPosition, j) and state(kVelocity, j) (Scalar& parameters).
    // cppcheck-suppress constVariable
    auto& state = controller.mutable_command_state();
    const auto& lo = controller.settings().bounds.lower;
    const auto& hi = controller.settings().bounds.upper;
    Status status = Status::Ok;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!detail::pd_adapter_joint_or_hold(
              action.coeff(j), settings_.order, state(kPosition, j), state(kVelocity, j),
              lo(kVelocity, j), hi(kVelocity, j), lo(kAcceleration, j), hi(kAcceleration, j),
              settings_.instantaneous,
              settings_.use_deadband ? settings_.velocity_deadband.coeff(j) : Scalar(-1),
              settings_.step_dt, target.coeffRef(j)))
        status = Status::NumericalOverflow;
    return status;
  }

  const Settings& settings() const noexcept { return settings_; }  ///< the installed settings
  /// The empty snapshot restores trivially: SizeMismatch for an adapter without joints, else Ok.
  Status set_state(const State& /*snapshot*/) const noexcept {
    return size() == 0 ? Status::SizeMismatch : Status::Ok;
  }

 private:
  static Settings default_settings(Eigen::Index n) {
    CLAW_ASSERT(N_ == Dynamic || n == N_, "PdAdapter: size differs from the fixed size");
    CLAW_ASSERT(MaxN_ == Dynamic || n <= MaxN_, "PdAdapter: size above MaxN");
    return Settings{PdActionOrder::Velocity, false, Scalar(0.04), false, VectorType::Zero(n)};
  }

  Settings settings_;
};

using PdAdapter7d = PdAdapter<double, 7>;
using PdAdapter7f = PdAdapter<float, 7>;
using PdAdapterXd = PdAdapter<double, Dynamic>;
using PdAdapterXf = PdAdapter<float, Dynamic>;

}  // namespace claw
