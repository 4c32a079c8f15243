// claw/laws/pid_state.hpp: PidState, everything a Pid carries from one step to the next (integral,
// histories, slew and filter states, first-step flags): what Pid::state() and set_state() move.
#pragma once

#include <cmath>

#include "claw/core/fields.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// A Pid's state between steps. Copying it (into a snapshot of the same size: no allocation) and
/// handing it back through Pid::set_state() restores the controller bit for bit.
template <typename Scalar, int N = Dynamic, int MaxN = N>
struct PidState {
  using VectorType = Vector<Scalar, N, MaxN>;  ///< one entry per joint

  VectorType integral;              ///< I [effort]
  VectorType previous_error;        ///< e of the last step [pos]
  VectorType previous_measurement;  ///< q of the last step, or the one reset(q, u) seeded [pos]
  VectorType slew_state;            ///< the last slew-limited target [pos]
  VectorType filtered_derivative;   ///< the low-passed derivative [pos/s]
  Eigen::Array<bool, N, 1, 0, MaxN, 1> restarted;  ///< restarted by reset_joints, step pending
  bool any_restarted = false;                      ///< some restarted entry is true
  bool first = true;                               ///< the next step is a first step (reset)
  bool measurement_seeded = false;                 ///< reset(q, u): previous_measurement is current
  bool history_valid = true;  ///< previous error / measurement / slew state are current

  PidState() : PidState(N == Dynamic ? 0 : N) {}
  /// n joints, all zero, the next step a first step (allocates here for dynamic sizes).
  explicit PidState(Eigen::Index n)
      : integral(VectorType::Zero(n)),
        previous_error(VectorType::Zero(n)),
        previous_measurement(VectorType::Zero(n)),
        slew_state(VectorType::Zero(n)),
        filtered_derivative(VectorType::Zero(n)) {
    restarted.setConstant(n, false);
  }

  Eigen::Index size() const noexcept { return integral.size(); }  ///< joint count n

  /// Every per-joint member has n entries.
  bool has_size(Eigen::Index n) const noexcept {
    return all_have_size(n, integral, previous_error, previous_measurement, slew_state,
                         filtered_derivative) &&
           restarted.size() == n;
  }

  /// Every scalar is finite.
  bool finite() const noexcept {
    return all_finite(integral) && all_finite(previous_error) && all_finite(previous_measurement) &&
           all_finite(slew_state) && all_finite(filtered_derivative);
  }

  /// The logged quantities, in member order (core/fields.hpp).
  static constexpr int kQuantityCount = 5;
  /// Quantity q, 0 <= q < kQuantityCount: its name, no slot (-1).
  static StateQuantity quantity(int q) noexcept {
    constexpr const char* kNames[kQuantityCount] = {
        "integralTerm", "previousError", "previousMeasurement", "slewState", "filteredDerivative"};
    return {kNames[q], -1};
  }
  /// Quantity q of joint j: the q-th per-joint member, integral to filtered_derivative.
  Scalar value(int q, Eigen::Index j) const noexcept {
    switch (q) {
      case 0:
        return integral.coeff(j);
      case 1:
        return previous_error.coeff(j);
      case 2:
        return previous_measurement.coeff(j);
      case 3:
        return slew_state.coeff(j);
      default:
        return filtered_derivative.coeff(j);
    }
  }
};

}  // namespace claw
