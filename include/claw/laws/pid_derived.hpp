// claw/laws/pid_derived.hpp: PidDerived, what a Pid derives from its settings at each configure:
// per-joint tracking times and bounds of I and of the effort, and which options are on.
#pragma once

#include <cmath>

#include "claw/core/bits.hpp"
#include "claw/core/interval.hpp"
#include "claw/core/types.hpp"
#include "claw/laws/anti_windup.hpp"
#include "claw/laws/effort_clamp.hpp"
#include "claw/laws/pid_settings.hpp"

namespace claw {

/// The quantities a Pid reads every step instead of recomputing them from PidSettings: refresh()
/// runs at construction, configure() and set_gains(), never in update().
template <typename Scalar, int N = Dynamic, int MaxN = N>
struct PidDerived {
  using VectorType = Vector<Scalar, N, MaxN>;  ///< one entry per joint

  VectorType tracking_time;   ///< Tt per joint (set or default), before the bound Tt >= h / 2
  VectorType integral_lower;  ///< bounds of I [effort]: the I-term bounds within IntegralClamp's
  VectorType integral_upper;  ///< (under ITermClampInOutput: the bounds of the I the output uses)
  VectorType effort_lower;    ///< lower Bounds effort limit, or -inf (the simple path's) [effort]
  VectorType effort_upper;    ///< upper Bounds effort limit, or +inf (the simple path's) [effort]
  bool simple = false;        ///< the fast path applies (Pid's class comment)
  bool zero_constant_effort = false;  ///< every c is +0: the simple path adds a constant +0
  bool symmetric_integral = false;    ///< integral_lower is -integral_upper, bit for bit
  bool has_target_range = false,      ///< some target_min or target_max is finite
      has_velocity_range = false,     ///< some target_velocity_min or target_velocity_max is finite
      has_feedforward_range = false;  ///< some feedforward_min or feedforward_max is finite
  bool has_slew = false,              ///< some slew_rate is finite
      has_wrap = false,               ///< some wrap_period is > 0
      has_filter = false,             ///< some derivative_filter is in (0, +inf)
      has_deadband = false;           ///< some error_deadband is > 0

  /// n joints (allocates here for dynamic sizes).
  void resize(Eigen::Index n) {
    for (VectorType* v :
         {&tracking_time, &integral_lower, &integral_upper, &effort_lower, &effort_upper})
      v->setZero(n);
  }

  /// Recomputes everything from valid settings of size() joints.
  void refresh(const PidSettings<Scalar, N, MaxN>& s) noexcept {
    const Eigen::Index n = tracking_time.size();
    const AntiWindup aw = s.anti_windup;
    has_target_range = has_velocity_range = has_feedforward_range = false;
    has_slew = has_wrap = has_filter = has_deadband = false;
    // The simple path skips the arrays these make redundant (fewer streams from memory).
    zero_constant_effort = symmetric_integral = true;
    for (Eigen::Index j = 0; j < n; ++j) {
      const Scalar tt = s.tracking_time.coeff(j);
      // The step's h bounds it further (update_impl).
      tracking_time.coeffRef(j) =
          tt > Scalar(0) ? tt
                         : default_tracking_time(std::fabs(s.kp.coeff(j)), std::fabs(s.ki.coeff(j)),
                                                 std::fabs(s.kd.coeff(j)));
      has_target_range |= !std::isinf(s.target_min.coeff(j)) || !std::isinf(s.target_max.coeff(j));
      has_velocity_range |= !std::isinf(s.target_velocity_min.coeff(j)) ||
                            !std::isinf(s.target_velocity_max.coeff(j));
      has_feedforward_range |=
          !std::isinf(s.feedforward_min.coeff(j)) || !std::isinf(s.feedforward_max.coeff(j));
      has_slew |= !std::isinf(s.slew_rate.coeff(j));
      has_wrap |= s.wrap_period.coeff(j) > Scalar(0);
      const Scalar n_filter = s.derivative_filter.coeff(j);
      has_filter |= n_filter > Scalar(0) && !std::isinf(n_filter);
      has_deadband |= s.error_deadband.coeff(j) > Scalar(0);
      // Bounds of I (ITermClampInOutput: of its use); validated as non-empty.
      const Interval<Scalar> i_bounds = s.integral_bounds(j, s.ki.coeff(j));
      const Scalar lo = i_bounds.lower, hi = i_bounds.upper;
      integral_lower.coeffRef(j) = lo;
      integral_upper.coeffRef(j) = hi;
      const bool bounded = s.limits.kind == EffortLimitKind::Bounds;
      effort_lower.coeffRef(j) = bounded ? s.limits.lower.coeff(j) : -infinity<Scalar>();
      effort_upper.coeffRef(j) = bounded ? s.limits.upper.coeff(j) : infinity<Scalar>();
      zero_constant_effort &= detail::same_bits(s.constant_effort.coeff(j), Scalar(0));
      symmetric_integral &= detail::same_bits(lo, Scalar(-hi));
    }
    simple = !has_target_range && !has_velocity_range && !has_feedforward_range && !has_slew &&
             !has_wrap && !has_filter && !has_deadband && !s.proportional_on_measurement &&
             s.derivative == DerivativeSource::VelocityError &&
             (aw == AntiWindup::None || aw == AntiWindup::IntegralClamp ||
              aw == AntiWindup::ITermClamp) &&
             s.limits.kind != EffortLimitKind::DcMotor;
  }
};

}  // namespace claw
