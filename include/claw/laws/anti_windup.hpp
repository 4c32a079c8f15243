// claw/laws/anti_windup.hpp: the anti-windup devices of claw's PID and their parameters: integral
// clamp, I-term clamp, stop-at-limit (MuJoCo native), conditional integration and back-calculation.
#pragma once

#include <cmath>
#include <cstdint>

#include "claw/core/types.hpp"

namespace claw {

/// How the integral term I [effort] of a PID is kept from winding up. I = ki z where z is the
/// integral of the error [pos s]. Every device except ITermClampInOutput also keeps the state I
/// within [iterm_min, iterm_max] after each step (PidSettings; +-inf by default: no bound).
enum class AntiWindup : std::uint8_t {
  None,           ///< I integrates freely (within the I-term bounds)
  IntegralClamp,  ///< z within +-integral_max [pos s]; I within +-ki integral_max (Newton)
  ITermClamp,     ///< I within [iterm_min, iterm_max] [effort] (MuJoCo plugin imax, Arduino, ros):
                  ///< None with the bounds set, named for the presets that mean it
  StopAtLimit,    ///< MuJoCo native: once |z| >= integral_max, only errors that shrink |z| are
                  ///< integrated (z may overshoot by |e| h)
  Conditional,    ///< the step's increment is dropped when the output is saturated and e pushes
                  ///< further into saturation: e (u - u_sat) > 0
  BackCalculation,     ///< I += h (ki e + (u_sat - u) / Tt), Tt the tracking time [s]
  ITermClampInOutput,  ///< the state I integrates freely; the output uses clip(I, iterm_min,
                       ///< iterm_max) (control_toolbox <= 5.5, LEGACY with antiwindup false)
};

/// Default tracking time of back-calculation (control_toolbox's rule): sqrt(kd / ki), or kp / ki
/// when kd = 0. Returns +inf when ki = 0 (nothing to track).
template <typename Scalar>
inline Scalar default_tracking_time(Scalar kp, Scalar ki, Scalar kd) noexcept {
  if (!(ki > Scalar(0))) return infinity<Scalar>();
  return (kd > Scalar(0)) ? std::sqrt(kd / ki) : kp / ki;
}

}  // namespace claw
