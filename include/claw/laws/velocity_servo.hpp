// claw/laws/velocity_servo.hpp: CoppeliaSim's default joint position loop, which turns a position
// error into a target velocity (ctrl / h, clipped to the velocity limit) and a maximum effort.
#pragma once

#include <cmath>

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/laws/pid.hpp"

namespace claw {

/// Settings of a VelocityServo (one entry per joint).
template <typename Scalar, int N = Dynamic, int MaxN = N>
struct VelocityServoSettings {
  static constexpr Eigen::Index kDefaultSize = (N == Dynamic) ? 0 : N;  ///< N, or 0 if dynamic
  using VectorType = Vector<Scalar, N, MaxN>;                           ///< one entry per joint
  VectorType kp = VectorType::Zero(kDefaultSize);  ///< P [1]: ctrl per unit of error [pos]
  VectorType ki = VectorType::Zero(kDefaultSize);  ///< I [1/s]
  VectorType kd = VectorType::Zero(kDefaultSize);  ///< D [s]
  VectorType velocity_limit = VectorType::Constant(kDefaultSize, infinity<Scalar>());  ///< [pos/s]
  VectorType max_effort = VectorType::Constant(kDefaultSize, infinity<Scalar>());      ///< [effort]
  Scalar dt = Scalar(0.005);  ///< the physics step h [s]
};

/// CoppeliaSim's joint position loop ("motor enabled, control loop enabled"), per joint:
///   ctrl = P e + I sum(e h) + D (e - e_prev) / h   (no D term on the first call; the sum is
///   reset while I = 0);  target velocity = clip(ctrl / h, -vmax, vmax);  effort limit = max force.
/// It is a Pid configured with the error-difference derivative and backward-Euler integral whose
/// output is read as ctrl, not a second copy of the law.
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_>
class VelocityServo {
 public:
  using Scalar = Scalar_;                                     ///< the scalar type (float or double)
  using VectorType = Vector<Scalar, N_, MaxN_>;               ///< one entry per joint
  using Settings = VelocityServoSettings<Scalar, N_, MaxN_>;  ///< the options configure() takes
  using State = PidState<Scalar, N_, MaxN_>;                  ///< the state of the Pid it runs
  static constexpr const char* kCommandQuantity = "targetVelocity";  ///< for logging

  VelocityServo() : VelocityServo(N_ == Dynamic ? 0 : N_) {}
  /// A servo for n joints with zero gains and no limits (allocates here for dynamic sizes).
  explicit VelocityServo(Eigen::Index n)
      : pid_(n), zero_(VectorType::Zero(n)), ctrl_(VectorType::Zero(n)) {
    settings_.velocity_limit.setConstant(n, infinity<Scalar>());
    settings_.max_effort.setConstant(n, infinity<Scalar>());
    settings_.kp.setZero(n);
    settings_.ki.setZero(n);
    settings_.kd.setZero(n);
  }

  Eigen::Index size() const noexcept { return pid_.size(); }  ///< joint count n

  /// InvalidParameter (old settings kept) for negative or non-finite gains, a velocity limit or
  /// max effort that is negative or NaN, or dt not a valid
  /// setting (valid_time_step_setting: finite, >= 1e-9 s).
  Status configure(const Settings& settings) noexcept {
    if (settings.velocity_limit.size() != size() || settings.max_effort.size() != size())
      return Status::SizeMismatch;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!(settings.velocity_limit.coeff(j) >= Scalar(0)) ||
          !(settings.max_effort.coeff(j) >= Scalar(0)))
        return Status::InvalidParameter;
    typename Pid<Scalar, N_, MaxN_>::Settings pid_settings = pid_.settings();
    pid_settings.kp = settings.kp;
    pid_settings.ki = settings.ki;
    pid_settings.kd = settings.kd;
    pid_settings.derivative = DerivativeSource::ErrorDifference;
    pid_settings.integral_rule = IntegralRule::BackwardEuler;
    pid_settings.dt = settings.dt;
    const Status status = pid_.configure(pid_settings);
    if (status != Status::Ok) return status;
    settings_ = settings;
    clear_integral_where_ki_is_zero();
    return Status::Ok;
  }

  /// Restart (Pid::reset()): the error sum is 0 and the next call has no D term.
  void reset() noexcept { pid_.reset(); }

  /// One physics step from the position error e = q* - q [pos]: writes the target velocity
  /// [pos/s] and the effort limit [effort]. NonFiniteInput (nothing touched) on NaN/Inf.
  template <typename DE, typename DVel, typename DEff>
  Status update(const Eigen::MatrixBase<DE>& error, const Eigen::MatrixBase<DVel>& target_velocity,
                const Eigen::MatrixBase<DEff>& effort_limit) noexcept {
    if (size() == 0 || !all_have_size(size(), error, target_velocity, effort_limit))
      return Status::SizeMismatch;
    auto& velocity = const_cast<Eigen::MatrixBase<DVel>&>(target_velocity);
    auto& limit = const_cast<Eigen::MatrixBase<DEff>&>(effort_limit);
    // The PID sees q* = e and q = 0, so its error is e; its output is ctrl.
    const Status status = pid_.update(error, zero_, zero_, ctrl_);
    if (status != Status::Ok) return status;
    for (Eigen::Index j = 0; j < size(); ++j) {
      const Scalar vmax = settings_.velocity_limit.coeff(j);
      velocity.coeffRef(j) = clip(ctrl_.coeff(j) / settings_.dt, -vmax, vmax);
      limit.coeffRef(j) = settings_.max_effort.coeff(j);
    }
    return Status::Ok;
  }

  /// Real-time-safe gain change; where I becomes 0 the error sum is reset, as CoppeliaSim does.
  template <typename DP, typename DI, typename DD>
  Status set_gains(const Eigen::MatrixBase<DP>& kp, const Eigen::MatrixBase<DI>& ki,
                   const Eigen::MatrixBase<DD>& kd) noexcept {
    const Status status = pid_.set_gains(kp, ki, kd);
    if (status != Status::Ok) return status;
    settings_.kp = kp;
    settings_.ki = ki;
    settings_.kd = kd;
    clear_integral_where_ki_is_zero();
    return Status::Ok;
  }

  const Settings& settings() const noexcept { return settings_; }      ///< the installed settings
  const Pid<Scalar, N_, MaxN_>& pid() const noexcept { return pid_; }  ///< the Pid giving ctrl

  /// Snapshot (rollback, checkpoints): the Pid's state; set_state() restores it bit for bit and
  /// refuses it as Pid::set_state does.
  const State& state() const noexcept { return pid_.state(); }
  /// Restores a snapshot taken by state(); refused as by Pid::set_state (nothing touched).
  Status set_state(const State& snapshot) noexcept { return pid_.set_state(snapshot); }
  /// Logging (core/fields.hpp): the Pid's quantities.
  static constexpr int state_quantity_count() noexcept { return State::kQuantityCount; }
  /// Name of quantity q, 0 <= q < state_quantity_count() (PidState::quantity).
  static StateQuantity state_quantity(int q) noexcept { return State::quantity(q); }
  /// Value of quantity q at joint j (Pid::state_value).
  Scalar state_value(int q, Eigen::Index j) const noexcept { return pid_.state_value(q, j); }

 private:
  void clear_integral_where_ki_is_zero() noexcept {
    for (Eigen::Index j = 0; j < size(); ++j)
      if (settings_.ki.coeff(j) == Scalar(0))  // j in range and 0 finite: Ok
        static_cast<void>(pid_.set_integral_term(j, Scalar(0)));
  }

  Pid<Scalar, N_, MaxN_> pid_;
  Settings settings_;
  VectorType zero_;
  VectorType ctrl_;  // the PID output, ctrl
};

}  // namespace claw
