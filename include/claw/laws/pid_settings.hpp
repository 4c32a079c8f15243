// claw/laws/pid_settings.hpp: PidSettings, every option of the PID law (gains, derivative source
// and filter, integral rule, anti-windup, limits, slew, wrap, input ranges), and their validation.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>

#include "claw/core/interval.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"
#include "claw/laws/anti_windup.hpp"
#include "claw/laws/effort_clamp.hpp"
#include "claw/laws/slew_limiter.hpp"

namespace claw {

/// What the derivative term d of a PID is made of.
enum class DerivativeSource : std::uint8_t {
  VelocityError,    ///< d = v* - v: target minus measured velocity (MuJoCo, Newton, Drake)
  ErrorDifference,  ///< d = (e - e_prev) / h (CoppeliaSim, control_toolbox); first step: see
                    ///< PidSettings::derivative_from_zero_error
  Measurement,      ///< d = -(q - q_prev) / h: on the measurement, no kick on setpoint jumps
                    ///< (Arduino); 0 on the first step unless reset(measurement, output) gave
                    ///< q_prev
};

/// When the integral term enters the output.
enum class IntegralRule : std::uint8_t {
  BackwardEuler,  ///< I+ = I + ki h e, then u uses I+ (MuJoCo plugin, Newton, CoppeliaSim)
  ForwardEuler,   ///< u uses I, then I+ = I + ki h e (control_toolbox, Drake, MuJoCo native)
};

/// Settings of a Pid. Every vector has one entry per joint; units in brackets ("pos" is rad or m,
/// "effort" N m or N). The defaults (fixed sizes; dynamic ones start empty, see resize()) are a
/// zero-gain law with no limits, no slew, no wrap, derivative on the velocity error, backward
/// Euler.
template <typename Scalar, int N = Dynamic, int MaxN = N>
struct PidSettings {
  static constexpr Eigen::Index kDefaultSize = (N == Dynamic) ? 0 : N;  ///< N, or 0 if dynamic
  using VectorType = Vector<Scalar, N, MaxN>;                           ///< one entry per joint
  /// kDefaultSize entries equal to value (the members' defaults).
  static VectorType constant(Scalar value) { return VectorType::Constant(kDefaultSize, value); }

  VectorType kp = constant(Scalar(0));  ///< proportional gain [effort/pos]
  VectorType ki = constant(Scalar(0));  ///< integral gain [effort/(pos s)]
  VectorType kd = constant(Scalar(0));  ///< derivative gain [effort s/pos]
  /// false (default): kp, ki, kd >= 0, a negative gain is refused (InvalidParameter) as a sign
  /// error. true: any finite gains, the same law (Drake's PidController takes any sign; Arduino's
  /// REVERSE direction is all three negated). The devices that read a gain use its magnitude
  /// where a bound is meant (IntegralClamp |I| <= |ki| integral_max, the default tracking time)
  /// and its sign where a direction is (StopAtLimit and Conditional act on z = I / ki).
  bool signed_gains = false;
  VectorType constant_effort = constant(Scalar(0));  ///< c, added to every output [effort]

  DerivativeSource derivative = DerivativeSource::VelocityError;  ///< what d is made of
  /// ErrorDifference only: on the first step use e_prev = 0 (ros control_toolbox after reset,
  /// a derivative kick) instead of skipping the term (CoppeliaSim, the default).
  bool derivative_from_zero_error = false;
  /// First-order low-pass on d with bandwidth N [1/s], discretised by backward Euler:
  /// d_f+ = (d_f + h N d) / (1 + h N), d_f = 0 after reset. 0 or +inf: no filter.
  VectorType derivative_filter = constant(Scalar(0));

  IntegralRule integral_rule = IntegralRule::BackwardEuler;  ///< when I enters u
  AntiWindup anti_windup = AntiWindup::None;                 ///< how I is kept from winding up
  VectorType integral_max = constant(infinity<Scalar>());    ///< IntegralClamp, StopAtLimit [pos s]
  /// I-term bounds [effort]: the state I is clipped into [iterm_min, iterm_max] at the end of
  /// every step, after the anti-windup device's own update (control_toolbox clamps after
  /// back-calculation too); ITermClampInOutput clips only the I the output uses. +-inf: none.
  VectorType iterm_min = constant(-infinity<Scalar>());
  VectorType iterm_max = constant(infinity<Scalar>());  ///< upper I-term bound [effort]
  /// Error deadband [pos] (control_toolbox's error_deadband): a step with |e| <= error_deadband
  /// leaves the integral where it is (no ki e h, no anti-windup correction); the P and D terms
  /// use e as always. 0: off (e = 0 still takes the integral step, e.g. back-calculation's).
  VectorType error_deadband = constant(Scalar(0));
  /// BackCalculation tracking time Tt [s]; 0 picks default_tracking_time(kp, ki, kd). A Tt with
  /// h >= 2 Tt (given or default) is replaced by h: the discrete update would diverge.
  VectorType tracking_time = constant(Scalar(0));
  /// Proportional on measurement (Arduino P_ON_M): no kp e in u; instead I -= kp (q - q_prev).
  bool proportional_on_measurement = false;

  EffortLimits<Scalar, N, MaxN> limits;  ///< applied to u; the anti-windup sees the result

  VectorType slew_rate = constant(infinity<Scalar>());  ///< setpoint rate limit S [pos/s], +inf off
  SlewStart slew_start = SlewStart::FromMeasurement;    ///< where s starts on a first step

  /// Continuous joints: e is wrapped to the shortest angle in [-P/2, P/2] for period P (2 pi for
  /// an unbounded revolute joint); 0 means not wrapped.
  VectorType wrap_period = constant(Scalar(0));

  VectorType target_min = constant(-infinity<Scalar>());  ///< q* clipped first (MuJoCo ctrlrange)
  VectorType target_max = constant(infinity<Scalar>());   ///< upper bound of q* [pos]
  VectorType target_velocity_min = constant(-infinity<Scalar>());  ///< v* clip (MuJoCo velrange)
  VectorType target_velocity_max = constant(infinity<Scalar>());   ///< upper bound of v* [pos/s]
  VectorType feedforward_min = constant(-infinity<Scalar>());      ///< ff clip (MuJoCo ffrange)
  VectorType feedforward_max = constant(infinity<Scalar>());       ///< upper bound of ff [effort]

  /// Control period h [s] of Pid::update without h (the overloads with h use theirs instead);
  /// >= CLAW_MIN_TIME_STEP.
  Scalar dt = Scalar(0.001);

  /// Sets every vector to n joints of the defaults above (allocates for dynamic sizes).
  void resize(Eigen::Index n) {
    for (VectorType* v : {&kp, &ki, &kd, &constant_effort, &derivative_filter, &error_deadband,
                          &tracking_time, &wrap_period})
      v->setZero(n);
    for (VectorType* v : {&integral_max, &iterm_max, &slew_rate, &target_max, &target_velocity_max,
                          &feedforward_max})
      v->setConstant(n, infinity<Scalar>());
    for (VectorType* v : {&iterm_min, &target_min, &target_velocity_min, &feedforward_min})
      v->setConstant(n, -infinity<Scalar>());
    limits.resize(n);
  }

  /// A gain kp, ki or kd these settings accept: finite, and >= 0 unless signed_gains (validate()
  /// and Pid::set_gains apply this one rule).
  bool accepts_gain(Scalar gain) const noexcept {
    return std::isfinite(gain) && (signed_gains || gain >= Scalar(0));
  }

  /// The bounds [lower, upper] of the state I of joint j under the integral gain ki_j: the I-term
  /// bounds [iterm_min, iterm_max], under IntegralClamp intersected with [-|ki_j| z_max, |ki_j|
  /// z_max] (z_max = integral_max; ki_j = 0 with z_max = +inf clamps nothing). lower > upper when
  /// the two intervals do not meet: validate() and Pid::set_gains refuse such settings.
  Interval<Scalar> integral_bounds(Eigen::Index j, Scalar ki_j) const noexcept {
    Interval<Scalar> b{iterm_min.coeff(j), iterm_max.coeff(j)};
    if (anti_windup == AntiWindup::IntegralClamp) {
      const Scalar z_max = integral_max.coeff(j);
      Scalar bound = std::fabs(ki_j) * z_max;
      if (std::isnan(bound)) bound = z_max;  // 0 * inf
      b.lower = b.lower > -bound ? b.lower : -bound;
      b.upper = b.upper < bound ? b.upper : bound;
    }
    return b;
  }

  /// Validates for n joints. SizeMismatch, or InvalidParameter when: a gain is not accepted
  /// (accepts_gain); c not finite; N, integral_max, Tt negative or NaN; a [min, max] pair not an
  /// interval of reals (detail::is_valid_interval: min > max, NaN, min = +inf or max = -inf); the
  /// I-term bounds disjoint from IntegralClamp's (integral_bounds empty); a
  /// slew rate <= 0 or NaN; a wrap period negative or not finite; dt not a valid setting
  /// (valid_time_step_setting: finite, >= 1e-9 s); limits invalid (validate_effort_limits).
  Status validate(Eigen::Index n) const noexcept {
    for (const VectorType* v : {&kp, &ki, &kd, &constant_effort, &derivative_filter, &integral_max,
                                &iterm_min, &iterm_max, &error_deadband, &tracking_time, &slew_rate,
                                &wrap_period, &target_min, &target_max, &target_velocity_min,
                                &target_velocity_max, &feedforward_min, &feedforward_max})
      if (v->size() != n) return Status::SizeMismatch;
    if (!valid_time_step_setting(dt)) return Status::InvalidParameter;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (!accepts_gain(kp.coeff(j)) || !accepts_gain(ki.coeff(j)) || !accepts_gain(kd.coeff(j)) ||
          !std::isfinite(constant_effort.coeff(j)))
        return Status::InvalidParameter;
      for (const VectorType* v :
           {&derivative_filter, &integral_max, &error_deadband, &tracking_time})
        if (!(v->coeff(j) >= Scalar(0))) return Status::InvalidParameter;
      if (!(slew_rate.coeff(j) > Scalar(0))) return Status::InvalidParameter;
      if (!std::isfinite(wrap_period.coeff(j)) || wrap_period.coeff(j) < Scalar(0))
        return Status::InvalidParameter;
      if (!detail::is_valid_interval(iterm_min.coeff(j), iterm_max.coeff(j)) ||
          !detail::is_valid_interval(target_min.coeff(j), target_max.coeff(j)) ||
          !detail::is_valid_interval(target_velocity_min.coeff(j), target_velocity_max.coeff(j)) ||
          !detail::is_valid_interval(feedforward_min.coeff(j), feedforward_max.coeff(j)))
        return Status::InvalidParameter;
      const Interval<Scalar> i_bounds = integral_bounds(j, ki.coeff(j));
      if (!(i_bounds.lower <= i_bounds.upper)) return Status::InvalidParameter;
    }
    return validate_effort_limits(limits, n);
  }
};

}  // namespace claw
