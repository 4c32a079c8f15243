// claw/integrators/zoh.hpp: zero-order-hold cascade integrator of a bounded 3xN command state
// S = [p; v; a], in two modes: gym_jiminy 1.8.12's exact algorithm, and a viable (bound-keeping) one.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/assert.hpp"
#include "claw/core/config.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// How integrate_zoh treats the bounds.
enum class ZohMode : std::uint8_t {
  /// gym_jiminy 1.8.12's integrate_zoh, operation for operation (DESIGN.md 3.1). It reproduces the
  /// reference vectors bit for bit when built without FMA contraction (-ffp-contract=off, and no
  /// -ffast-math). It does not guarantee the bounds it names: a fast state near a position bound
  /// may cross it, and the back-computed acceleration may leave [amin, amax].
  JiminyCompatible,
  /// From a viable state (inside the bounds and able to stop inside them braking at the admissible
  /// deceleration) the next state is viable: p, v and a all stay within their bounds. From a
  /// non-viable state it brakes at the largest admissible deceleration toward viability.
  Viable,
};

/// Checks bounds for use with integrate_zoh in `mode`.
/// Refused (Status::InvalidBounds): any NaN; lower > upper in any entry; amax <= 0.
/// Viable mode also needs amin < 0 (a joint must be able to brake) and vmin <= 0 <= vmax.
/// Infinite entries are allowed and mean "unbounded".
template <typename DerivedLower, typename DerivedUpper>
Status validate_state_bounds(const Eigen::MatrixBase<DerivedLower>& lower,
                             const Eigen::MatrixBase<DerivedUpper>& upper,
                             ZohMode mode = ZohMode::JiminyCompatible) noexcept {
  if (lower.rows() != 3 || upper.rows() != 3 || lower.cols() != upper.cols())
    return Status::SizeMismatch;
  using Scalar = typename DerivedLower::Scalar;
  for (Eigen::Index j = 0; j < lower.cols(); ++j) {
    for (Eigen::Index i = 0; i < 3; ++i) {
      const Scalar lo = lower.coeff(i, j);
      const Scalar hi = upper.coeff(i, j);
      if (std::isnan(lo) || std::isnan(hi) || lo > hi) return Status::InvalidBounds;
    }
    if (!(upper.coeff(kAcceleration, j) > Scalar(0))) return Status::InvalidBounds;
    if (mode == ZohMode::Viable) {
      if (!(lower.coeff(kAcceleration, j) < Scalar(0))) return Status::InvalidBounds;
      if (lower.coeff(kVelocity, j) > Scalar(0) || upper.coeff(kVelocity, j) < Scalar(0))
        return Status::InvalidBounds;
    }
  }
  return Status::Ok;
}

namespace detail {

/// Bounds of one joint's state, unpacked.
template <typename Scalar>
struct JointStateBounds {
  Scalar p_min, v_min, a_min, p_max, v_max, a_max;
};

template <typename DerivedLower, typename DerivedUpper>
inline JointStateBounds<typename DerivedLower::Scalar> joint_bounds(
    const Eigen::MatrixBase<DerivedLower>& lower, const Eigen::MatrixBase<DerivedUpper>& upper,
    Eigen::Index j) noexcept {
  return {lower.coeff(kPosition, j), lower.coeff(kVelocity, j), lower.coeff(kAcceleration, j),
          upper.coeff(kPosition, j), upper.coeff(kVelocity, j), upper.coeff(kAcceleration, j)};
}

/// gym_jiminy's horizon step count before truncation: (|v0| / amax) / dt, in source order.
template <typename Scalar>
inline Scalar jiminy_horizon_ratio(Scalar v0, Scalar a_max, Scalar dt) noexcept {
  return (std::fabs(v0) / a_max) / dt;
}

/// One joint of gym_jiminy's integrate_zoh (DESIGN.md 3.1 steps 2-6), in its exact evaluation
/// order. Where Python would raise (the horizon count is NaN or overflows), the count saturates at
/// 2^53 instead, so the result stays finite; integrate_zoh() refuses such input before calling this.
template <typename Scalar>
inline void zoh_joint_jiminy(Scalar& p, Scalar& v, Scalar& a, const JointStateBounds<Scalar>& b,
                             Scalar dt) noexcept {
  a = clip(a, b.a_min, b.a_max);
  const Scalar v0 = v;
  Scalar v_new = clip(v0 + a * dt, b.v_min, b.v_max);
  Scalar steps = jiminy_horizon_ratio(v0, b.a_max, dt);
  constexpr Scalar kMaxSteps = Scalar(9007199254740992.0);  // 2^53
  if (!(std::fabs(steps) <= kMaxSteps)) steps = kMaxSteps;
  const Scalar k_dt = std::trunc(steps) * dt;
  const Scalar horizon = (k_dt < dt) ? dt : k_dt;  // max(k dt, dt)
  Scalar delta_min = b.p_min - p;
  Scalar delta_max = b.p_max - p;
  if (horizon > dt) {
    const Scalar drift = Scalar(0.5) * (horizon * (horizon - dt)) * b.a_max;
    delta_min = delta_min - drift;
    delta_max = delta_max + drift;
  }
  v_new = clip(v_new, delta_min / horizon, delta_max / horizon);
  if (std::fabs(v_new) > dt * b.a_max) {
    const Scalar r_min = delta_min / v_new;
    const Scalar r_max = delta_max / v_new;
    const Scalar lo = -((r_min < dt) ? dt : r_min) * b.a_max;
    const Scalar hi = ((r_max < dt) ? dt : r_max) * b.a_max;
    v_new = clip(v_new, lo, hi);
  }
  a = (v_new - v0) / dt;
  v = v_new;
  p = p + dt * v_new;
}

/// Largest speed w >= 0 from which braking at deceleration `decel` (> 0) with semi-implicit Euler
/// steps of `dt` travels at most `margin`, counting the step that reaches w:
///   f(w) = dt * sum_{j=0..n} (w - j decel dt) <= margin,  n = floor(w / (decel dt)).
/// f is piecewise linear and increasing; with c = decel dt^2, f(n decel dt) = c n(n+1)/2, so n is
/// the largest integer with c n(n+1)/2 <= margin and w = (margin/dt + c/dt n(n+1)/2) / (n+1).
/// margin <= 0 (at or past the bound) gives margin / dt: the speed that reaches the bound in one step.
/// For very long horizons it uses the lower bound f(w) <= c ((x^2 + x)/2 + 1/8), x = w/(decel dt),
/// whose root w = decel dt (sqrt(2 margin / c) - 1/2) is safe and within half a step of exact.
template <typename Scalar>
inline Scalar max_stoppable_speed(Scalar margin, Scalar decel, Scalar dt) noexcept {
  if (!(margin > Scalar(0))) return margin / dt;
  if (std::isinf(margin)) return margin;
  if (std::isinf(decel)) return margin / dt;
  const Scalar c = decel * dt * dt;
  const Scalar r = margin / c;
  const Scalar exact_limit = (sizeof(Scalar) >= 8) ? Scalar(1e12) : Scalar(1e5);
  if (!(r <= exact_limit)) return decel * dt * (std::sqrt(Scalar(2) * r) - Scalar(0.5));
  Scalar n = std::floor((std::sqrt(Scalar(1) + Scalar(8) * r) - Scalar(1)) * Scalar(0.5));
  if (n < Scalar(0)) n = Scalar(0);
  // sqrt rounding may put n one off: settle it against the exact condition (at most a step each).
  for (int i = 0; i < 4 && c * ((n + Scalar(1)) * (n + Scalar(2)) * Scalar(0.5)) <= margin; ++i)
    n += Scalar(1);
  for (int i = 0; i < 4 && n > Scalar(0) && c * (n * (n + Scalar(1)) * Scalar(0.5)) > margin; ++i)
    n -= Scalar(1);
  return (margin / dt + decel * dt * (n * (n + Scalar(1)) * Scalar(0.5))) / (n + Scalar(1));
}

/// One joint of the viable mode (DESIGN.md 3.1). Velocity candidates, in priority order:
/// commanded v + clip(a) dt; then the speeds from which the joint can still stop inside the
/// position bounds (max_stoppable_speed toward each bound); then [vmin, vmax]; and last, always,
/// the speeds reachable within [amin, amax] this step. When these conflict (a non-viable state) the
/// reachable limit wins, which is braking at the largest admissible deceleration.
/// The stored acceleration is clip((v+ - v)/dt, amin, amax). A position that passes a bound by a
/// rounding-sized amount (16 ulp of |p| + |dt v+|) from inside is clamped to it.
template <typename Scalar>
inline void zoh_joint_viable(Scalar& p, Scalar& v, Scalar& a, const JointStateBounds<Scalar>& b,
                             Scalar dt) noexcept {
  const Scalar a_cmd = clip(a, b.a_min, b.a_max);
  const Scalar v0 = v;
  const Scalar w_hi = max_stoppable_speed(b.p_max - p, -b.a_min, dt);
  const Scalar w_lo = -max_stoppable_speed(p - b.p_min, b.a_max, dt);
  Scalar v_new = clip(v0 + a_cmd * dt, w_lo, w_hi);
  v_new = clip(v_new, b.v_min, b.v_max);
  v_new = clip(v_new, v0 + b.a_min * dt, v0 + b.a_max * dt);
  a = clip((v_new - v0) / dt, b.a_min, b.a_max);
  v = v_new;
  // From a viable state the exact answer stays within the position bounds; in floating point
  // p + dt v+ may pass a bound by a few ulp. Clamp such rounding-sized overshoots (only those: a
  // non-viable state's real overshoot is left as is).
  const Scalar p_new = p + dt * v_new;
  const Scalar rounding = Scalar(16) * std::numeric_limits<Scalar>::epsilon() *
                          (std::fabs(p) + std::fabs(dt * v_new));
  if (p_new > b.p_max && p <= b.p_max && p_new - b.p_max <= rounding)
    p = b.p_max;
  else if (p_new < b.p_min && p >= b.p_min && b.p_min - p_new <= rounding)
    p = b.p_min;
  else
    p = p_new;
}

/// The integration loop without input checks; callers have validated dt, state and bounds.
template <typename DerivedState, typename DerivedLower, typename DerivedUpper>
inline void integrate_zoh_unchecked(Eigen::MatrixBase<DerivedState>& state,
                                    const Eigen::MatrixBase<DerivedLower>& lower,
                                    const Eigen::MatrixBase<DerivedUpper>& upper,
                                    typename DerivedState::Scalar dt, ZohMode mode) noexcept {
  const Eigen::Index n = state.cols();
  if (mode == ZohMode::JiminyCompatible) {
    for (Eigen::Index j = 0; j < n; ++j)
      zoh_joint_jiminy(state.coeffRef(kPosition, j), state.coeffRef(kVelocity, j),
                       state.coeffRef(kAcceleration, j), joint_bounds(lower, upper, j), dt);
  } else {
    for (Eigen::Index j = 0; j < n; ++j)
      zoh_joint_viable(state.coeffRef(kPosition, j), state.coeffRef(kVelocity, j),
                       state.coeffRef(kAcceleration, j), joint_bounds(lower, upper, j), dt);
  }
}

/// Checks shared by the ZOH entry points: dt, then the state. Ok means "go on"; `skip` is set
/// when |dt| < CLAW_MIN_TIME_STEP (no time passed: nothing to do).
template <typename Scalar>
inline Status check_time_step(Scalar dt, bool& skip) noexcept {
  skip = false;
  if (!std::isfinite(dt)) return Status::NonFiniteInput;
  if (dt < Scalar(0)) return Status::NegativeTimeStep;
  if (std::fabs(dt) < Scalar(CLAW_MIN_TIME_STEP)) skip = true;
  return Status::Ok;
}

}  // namespace detail

/// Integrates the command state S = [p; v; a] (3xN) one step of dt in place, holding the
/// acceleration constant over the step (zero-order hold) with semi-implicit Euler:
///   v+ = v + dt a,  p+ = p + dt v+,
/// then clips against `lower` / `upper` (3xN) as `mode` says; a is rewritten to the acceleration
/// actually applied, (v+ - v) / dt.
/// `state` is written in place; it may be a matrix, a block or an Eigen::Map (it is taken by const
/// reference and written through, the idiom Eigen documents for writable expressions).
/// Returns, touching nothing unless Ok:
///  - NonFiniteInput: dt or the state holds NaN/Inf;
///  - NegativeTimeStep: dt < 0 (gym_jiminy asserts);
///  - InvalidBounds: NaN in the bounds; in jiminy mode a joint whose horizon count (|v| / amax) / dt
///    is NaN or infinite (amax = 0: where gym_jiminy raises); in viable mode whatever
///    validate_state_bounds(..., Viable) refuses.
/// |dt| < CLAW_MIN_TIME_STEP (1e-9 s) returns Ok without touching the state.
/// Allocation-free, noexcept. Sizes must agree (3 rows, same columns): checked by CLAW_ASSERT.
template <typename DerivedState, typename DerivedLower, typename DerivedUpper>
Status integrate_zoh(const Eigen::MatrixBase<DerivedState>& state,
                     const Eigen::MatrixBase<DerivedLower>& lower,
                     const Eigen::MatrixBase<DerivedUpper>& upper,
                     typename DerivedState::Scalar dt,
                     ZohMode mode = ZohMode::JiminyCompatible) noexcept {
  using Scalar = typename DerivedState::Scalar;
  auto& s = const_cast<Eigen::MatrixBase<DerivedState>&>(state);
  CLAW_ASSERT(s.rows() == 3 && lower.rows() == 3 && upper.rows() == 3,
              "integrate_zoh: state and bounds must have 3 rows");
  CLAW_ASSERT(lower.cols() == s.cols() && upper.cols() == s.cols(),
              "integrate_zoh: state and bounds must have the same number of joints");
  bool skip = false;
  const Status dt_status = detail::check_time_step(dt, skip);
  if (dt_status != Status::Ok) return dt_status;
  if (skip) return Status::Ok;
  if (!all_finite(s)) return Status::NonFiniteInput;
  if (mode == ZohMode::Viable) {
    const Status bounds_status = validate_state_bounds(lower, upper, ZohMode::Viable);
    if (bounds_status != Status::Ok) return bounds_status;
  } else {
    if (!none_nan(lower) || !none_nan(upper)) return Status::InvalidBounds;
    for (Eigen::Index j = 0; j < s.cols(); ++j) {
      const Scalar steps =
          detail::jiminy_horizon_ratio(s.coeff(kVelocity, j), upper.coeff(kAcceleration, j), dt);
      if (!std::isfinite(steps)) return Status::InvalidBounds;
    }
  }
  detail::integrate_zoh_unchecked(s, lower, upper, dt, mode);
  return Status::Ok;
}

}  // namespace claw
