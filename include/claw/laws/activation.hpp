// claw/laws/activation.hpp: activation dynamics in front of a law (MuJoCo's dyntype integrator,
// filter, filterexact): the setpoint a law tracks and its rate, from the control u, per joint.
#pragma once

#include <cmath>
#include <cstdint>

#include "claw/core/fields.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// How the activation a follows the control u (MuJoCo's actuator dyntype).
enum class ActivationKind : std::uint8_t {
  None,         ///< no state: the setpoint is u, its rate 0
  Integrator,   ///< a' = u (an integrated-velocity command)
  Filter,       ///< a' = (u - a) / tau, Euler: a+ = a + h a'
  FilterExact,  ///< a' = (u - a) / tau, exact over the step: a+ = a + a' tau (1 - exp(-h / tau))
};

/// Settings of ActivationDynamics; every vector has one entry per joint.
template <typename Scalar, int N = Dynamic, int MaxN = N>
struct ActivationSettings {
  using VectorType = Vector<Scalar, N, MaxN>;  ///< one entry per joint
  ActivationKind kind = ActivationKind::None;  ///< how a follows u
  /// Filter time constant tau [s] (Filter, FilterExact: > 0 and finite; not read otherwise).
  VectorType time_constant = VectorType::Constant(N == Dynamic ? 0 : N, Scalar(1));
  /// MuJoCo's actearly: the setpoint is the activation after this step's advance, not before.
  bool early = false;
  Scalar dt = Scalar(0.001);  ///< step h [s], >= CLAW_MIN_TIME_STEP

  /// SizeMismatch (time_constant not n entries) or InvalidParameter (dt, or tau of a filter).
  Status validate(Eigen::Index n) const noexcept {
    if (time_constant.size() != n) return Status::SizeMismatch;
    if (!valid_time_step_setting(dt)) return Status::InvalidParameter;
    if (kind == ActivationKind::Filter || kind == ActivationKind::FilterExact)
      for (Eigen::Index j = 0; j < n; ++j)
        if (!(time_constant.coeff(j) > Scalar(0)) || std::isinf(time_constant.coeff(j)))
          return Status::InvalidParameter;
    return Status::Ok;
  }
};

/// Activation dynamics for N joints: each update reads the control u and writes the setpoint r
/// (a, or a+ when early) and its rate r' = a' for the law behind it (e.g. a Pid's target and
/// target velocity, as MuJoCo's PID plugin reads its last act slot and that slot's act_dot), then
/// advances a. a = 0 after construction and reset(). Hot calls are noexcept and allocate nothing;
/// NaN/Inf in u: NonFiniteInput, nothing touched; a vector of another size: SizeMismatch.
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_>
class ActivationDynamics {
 public:
  using Scalar = Scalar_;                                  ///< the scalar type (float or double)
  using VectorType = Vector<Scalar, N_, MaxN_>;            ///< a vector of n joints
  using Settings = ActivationSettings<Scalar, N_, MaxN_>;  ///< kind, tau, early, dt
  static constexpr const char* kCommandQuantity = "setpoint";  ///< r, for logging

  /// What the dynamics carry between steps: the activation.
  struct State {
    VectorType activation;  ///< a per joint
  };

  ActivationDynamics() : ActivationDynamics(N_ == Dynamic ? 0 : N_) {}
  /// Dynamics for n joints: a = 0, default settings (kind None, tau = 1); allocates here for
  /// dynamic sizes.
  explicit ActivationDynamics(Eigen::Index n) : state_{VectorType::Zero(n)} {
    settings_.time_constant.setConstant(n, Scalar(1));
  }

  Eigen::Index size() const noexcept { return state_.activation.size(); }  ///< joint count n

  /// Validates and installs settings (old ones kept on failure); the activation is kept.
  Status configure(const Settings& settings) noexcept {
    if (size() == 0) return Status::SizeMismatch;
    const Status status = settings.validate(size());
    if (status == Status::Ok) settings_ = settings;
    return status;
  }
  const Settings& settings() const noexcept { return settings_; }  ///< the installed settings

  /// a = 0.
  void reset() noexcept { state_.activation.setZero(); }
  /// The activation a per joint.
  const VectorType& activation() const noexcept { return state_.activation; }

  /// One step of h = settings().dt: r and r' from u, then a advances. NumericalOverflow (finite
  /// u whose activation overflowed): that joint's outputs and activation held.
  template <typename DU, typename DR, typename DRd>
  Status update(const Eigen::MatrixBase<DU>& u, const Eigen::MatrixBase<DR>& setpoint,
                const Eigen::MatrixBase<DRd>& setpoint_rate) noexcept {
    if (size() == 0 || !all_have_size(size(), u, setpoint, setpoint_rate))
      return Status::SizeMismatch;
    if (!all_finite(u)) return Status::NonFiniteInput;
    auto& r = const_cast<Eigen::MatrixBase<DR>&>(setpoint);
    auto& r_dot = const_cast<Eigen::MatrixBase<DRd>&>(setpoint_rate);
    const Scalar h = settings_.dt;
    Status status = Status::Ok;
    for (Eigen::Index j = 0; j < size(); ++j) {
      const Scalar uj = u.coeff(j), a = state_.activation.coeff(j);
      Scalar rate = Scalar(0), next = uj;
      switch (settings_.kind) {
        case ActivationKind::None:
          r.coeffRef(j) = uj;
          r_dot.coeffRef(j) = Scalar(0);
          continue;
        case ActivationKind::Integrator:
          rate = uj;
          next = a + h * rate;
          break;
        case ActivationKind::Filter:
          rate = (uj - a) / settings_.time_constant.coeff(j);
          next = a + h * rate;
          break;
        case ActivationKind::FilterExact: {
          const Scalar tau = settings_.time_constant.coeff(j);
          rate = (uj - a) / tau;
          next = a + rate * tau * (Scalar(1) - std::exp(-h / tau));
          break;
        }
      }
      if (!std::isfinite(next) || !std::isfinite(rate)) {
        status = Status::NumericalOverflow;
        continue;
      }
      r.coeffRef(j) = settings_.early ? next : a;
      r_dot.coeffRef(j) = rate;
      state_.activation.coeffRef(j) = next;
    }
    return status;
  }

  /// Snapshot (rollback, checkpoints): copy it, and set_state() restores the dynamics bit for bit.
  const State& state() const noexcept { return state_; }
  /// Restores a snapshot; SizeMismatch / NonFiniteInput (NaN/Inf) refuse it, nothing touched.
  Status set_state(const State& snapshot) noexcept {
    if (size() == 0 || snapshot.activation.size() != size()) return Status::SizeMismatch;
    if (!all_finite(snapshot.activation)) return Status::NonFiniteInput;
    state_.activation = snapshot.activation;
    return Status::Ok;
  }
  /// Logging (core/fields.hpp): one quantity, a.
  static constexpr int state_quantity_count() noexcept { return 1; }
  /// The one quantity: activation (no slot).
  static StateQuantity state_quantity(int /*q*/) noexcept { return {"activation", -1}; }
  /// a of joint j.
  Scalar state_value(int /*q*/, Eigen::Index j) const noexcept {
    return state_.activation.coeff(j);
  }

 private:
  Settings settings_;
  State state_;
};

}  // namespace claw
