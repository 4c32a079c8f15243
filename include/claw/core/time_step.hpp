// claw/core/time_step.hpp: the one contract every claw entry point applies to a time step:
// check_time_step() for a step passed to a call, valid_time_step_setting() for one in settings.
#pragma once

#include <cmath>

#include "claw/core/config.hpp"
#include "claw/core/status.hpp"

namespace claw {

/// A time step h [s] passed to a call (integrate_zoh, pd_controller, SlewLimiter::update; the
/// jiminy adapter pd_adapter keeps jiminy's own rule for a negative step, see pd_adapter.hpp):
///   h NaN or +-Inf                 -> NonFiniteInput, nothing touched;
///   h < 0                          -> NegativeTimeStep, nothing touched;
///   0 <= h < CLAW_MIN_TIME_STEP    -> Ok with `skip` set: no time passes, no state advances;
///   h >= CLAW_MIN_TIME_STEP        -> Ok, the step is taken.
template <typename Scalar>
inline Status check_time_step(Scalar h, bool& skip) noexcept {
  skip = false;
  if (!std::isfinite(h)) return Status::NonFiniteInput;
  if (h < Scalar(0)) return Status::NegativeTimeStep;
  if (h < Scalar(CLAW_MIN_TIME_STEP)) skip = true;
  return Status::Ok;
}

/// A time step h [s] held in settings (a control period, a physics step, a horizon): valid when
/// finite and h >= CLAW_MIN_TIME_STEP; configure() refuses any other with InvalidParameter.
template <typename Scalar>
inline bool valid_time_step_setting(Scalar h) noexcept {
  return std::isfinite(h) && h >= Scalar(CLAW_MIN_TIME_STEP);
}

}  // namespace claw
