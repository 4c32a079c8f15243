// claw/integrators/zoh.hpp: zero-order-hold cascade integrator of a bounded 3xN command state
// S = [p; v; a], in two modes: gym_jiminy 1.8.12's exact algorithm, and a viable (bound-keeping)
// one.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/config.hpp"
#include "claw/core/interval.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// How integrate_zoh treats the bounds.
enum class ZohMode : std::uint8_t {
  /// gym_jiminy 1.8.12's integrate_zoh, operation for operation. It reproduces the
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
/// Refused (Status::InvalidBounds): any NaN; lower > upper in any entry; a lower bound +inf or an
/// upper bound -inf (an empty range); amax <= 0.
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
      // lower = +inf or upper = -inf bounds nothing: an empty range, not an absent bound.
      if (!detail::is_valid_interval(lo, hi)) return Status::InvalidBounds;
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

/// One joint of gym_jiminy's integrate_zoh (its per-joint steps), in its exact evaluation
/// order. Where Python would raise (the horizon count is NaN or overflows), the count saturates at
/// 2^53 instead, so the result stays finite; integrate_zoh() refuses such input before calling
/// this.
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

/// Whether zoh_joint_jiminy_fast has a fast path for Scalar: IEEE 754 binary32 and binary64, the
/// types its error analysis and tests cover. Others (long double, custom scalars) always take
/// zoh_joint_jiminy.
template <typename Scalar>
constexpr bool kJiminyFastSupported = std::numeric_limits<Scalar>::is_iec559 &&
                                      (sizeof(Scalar) == 4 || sizeof(Scalar) == 8);

/// Constants of the fast jiminy kernel, from the unit roundoff u = eps / 2 of Scalar.
template <typename Scalar>
struct JiminyFastConstants {
  static constexpr Scalar kU = std::numeric_limits<Scalar>::epsilon() / Scalar(2);
  /// 2^(digits - 1): below it, for y >= 0.5, y - 0.5, y - floor(y) and 1 - (y - floor(y)) are exact
  /// and (y - 0.5) + 2^(digits-1) rounds to an integer.
  static constexpr Scalar kIntegerLimit =
      Scalar(std::uint64_t(1) << (std::numeric_limits<Scalar>::digits - 1));
  static constexpr Scalar kHorizonMargin = Scalar(16) * kU;
  static constexpr Scalar kOneMinus8U = Scalar(1) - Scalar(8) * kU;  // exact
  static constexpr Scalar kMinNormal = std::numeric_limits<Scalar>::min();
  static constexpr Scalar kMax = std::numeric_limits<Scalar>::max();
  static constexpr Scalar kQuarterMax = kMax / Scalar(4);
  static constexpr Scalar kInf = std::numeric_limits<Scalar>::infinity();
  /// Smallest fl(amax dt) the fast path takes: its square and any v^2 above it stay normal.
  static constexpr Scalar kMinProduct = sizeof(Scalar) >= 8 ? Scalar(0x1p-500) : Scalar(0x1p-60);
};

/// The per-joint constant of zoh_joint_jiminy_fast: 1 / fl(amax dt) where the fast path's error
/// analysis holds (amax > 0, dt in [2^-40, 2^40], fl(amax dt) in [kMinProduct, max] and its inverse
/// normal), 0 for amax = +inf (then |v0| / amax = 0 exactly), NaN otherwise: every call with NaN
/// takes the exact path.
template <typename Scalar>
inline Scalar jiminy_fast_inverse(Scalar a_max, Scalar dt) noexcept {
  const Scalar nan = std::numeric_limits<Scalar>::quiet_NaN();
  if constexpr (!kJiminyFastSupported<Scalar>) {
    (void)a_max;
    (void)dt;
    return nan;  // unused: zoh_joint_jiminy_fast takes the exact path for such types
  } else {
    using C = JiminyFastConstants<Scalar>;
    if (!(dt >= Scalar(0x1p-40) && dt <= Scalar(0x1p40)) || !(a_max > Scalar(0))) return nan;
    if (a_max == C::kInf) return Scalar(0);
    const Scalar a_max_dt = a_max * dt;
    if (!(a_max_dt >= C::kMinProduct && a_max_dt <= C::kMax)) return nan;
    const Scalar inverse = Scalar(1) / a_max_dt;
    return (inverse >= C::kMinNormal) ? inverse : nan;
  }
}

/// The branch-free part of zoh_joint_jiminy_fast. Computes gym_jiminy's step from p, v0, a_in
/// (the command acceleration) into p_out, v_out, a_out and returns true when every data-dependent
/// decision of zoh_joint_jiminy is certain; the outputs are then bit-identical to it. When it
/// returns false the outputs are meaningless and the caller must run zoh_joint_jiminy.
/// `inverse` is jiminy_fast_inverse(b.a_max, dt); NaN makes it return false. Where it is not NaN,
/// amax > 0 and dt >= 2^-40. Each decision is exact by construction (u = eps / 2, fl() rounding to
/// nearest, the claims hold in every binade; tests/test_zoh_fast.cpp checks them adversarially):
///  - Horizon count k = trunc(s), s = fl(fl(|v0| / amax) / dt). y = fl(|v0| inverse) is
///    x = |v0| / (amax dt) within 3.01u x, s is within 2.01u x, so |s - y| < 5.1u y. k = floor(y)
///    is ((y - 0.5) + L) - L (L = 2^(digits-1); y - 0.5 exact), and with frac = y - k it is certain
///    when min(frac, 1 - frac) >= fl(16u y): for 0.5 <= y < L both are exact and s lies strictly
///    between k and k + 1; for y < 0.5, k = 0 and s < 1 (y = 0 passes: s = 0); an integer y, or any
///    y >= L (frac is then an integer), fails. (A subnormal fl(|v0| / amax) or y means x below
///    min_normal 2^40 (dt >= 2^-40): k = 0 in both, and y < 0.5 passes.)
///  - v3 = clip(v2, dmin / h, dmax / h), h >= dt > 0: no margin is needed, rounding being monotone.
///    t = fl(v2 h) > dmin implies v2 h > dmin (were v2 h <= dmin, fl(v2 h) <= fl(dmin) = dmin), so
///    v2 > dmin / h, so v2 >= fl(dmin / h) (v2 is a float): the lower clip leaves v2 alone. The
///    same for t < dmax. Infinite deltas need no special case; NaN ones fail. Both: v3 = v2.
///  - When |v3| > fl(dt amax) (then amax finite, |v3| > kMinProduct, fl(v3 v3) normal): for v3 > 0
///    lo = -fl(max(r, dt) amax) <= -fl(dt amax) <= 0 < v3 (or NaN), so the lower clip never binds;
///    hi = fl(max(fl(dmax / v3), dt) amax) >= v3 when dmax amax (1 - u) >= v3^2, which
///    fl(v3 v3) <= fl(fl(dmax amax) (1 - 8u)) gives ((1+u)^2 (1-8u) / (1-u) < 1 - u) when
///    fl(dmax amax) is finite, and fl(v3 v3) <= max / 4 gives when it overflows (dmax = +inf
///    included). Symmetric for v3 < 0 with -dmin.
/// The drift is added unconditionally (see below). Everything else is the reference's arithmetic
/// in its order: a = (v3 - v0) / dt is its one division. It is written without branches and with
/// only selects GCC if-converts (see pd_jiminy_chunk), so a loop over joints vectorises.
template <typename Scalar>
inline bool zoh_joint_jiminy_try_fast(Scalar p, Scalar v0, Scalar a_in,
                                      const JointStateBounds<Scalar>& b, Scalar dt, Scalar inverse,
                                      Scalar& p_out, Scalar& v_out, Scalar& a_out) noexcept {
  static_assert(kJiminyFastSupported<Scalar>, "zoh_joint_jiminy_try_fast: float or double only");
  using C = JiminyFastConstants<Scalar>;
  const Scalar a = clip(a_in, b.a_min, b.a_max);
  const Scalar v2 = clip(v0 + a * dt, b.v_min, b.v_max);
  // Horizon count. No select or min on y: GCC threads the loop on one into branches it can then
  // not vectorise. For y >= L, k is garbage, and so is all that follows, but k_certain is false.
  const Scalar y = std::fabs(v0) * inverse;
  const Scalar k = ((y - Scalar(0.5)) + C::kIntegerLimit) - C::kIntegerLimit;
  const Scalar frac = y - k;
  const Scalar one_minus_frac = Scalar(1) - frac;
  const Scalar distance = (one_minus_frac < frac) ? one_minus_frac : frac;
  const bool k_certain = distance >= C::kHorizonMargin * y;
  const Scalar k_dt = k * dt;
  const Scalar horizon = (k_dt < dt) ? dt : k_dt;  // max(k dt, dt)
  // The reference adds the drift only when horizon > dt; otherwise horizon - dt = 0 and the drift
  // here is +0 (amax > 0; +inf is replaced by max, which changes nothing when horizon > dt, as
  // then amax is finite), so the deltas are the reference's up to the sign of a zero, to which
  // the checks below are blind.
  const Scalar a_max_finite = (b.a_max < C::kMax) ? b.a_max : C::kMax;  // minpd's operand order
  const Scalar drift = Scalar(0.5) * (horizon * (horizon - dt)) * a_max_finite;
  const Scalar delta_min = (b.p_min - p) - drift;
  const Scalar delta_max = (b.p_max - p) + drift;
  // Position clip v3 = clip(v2, delta_min / h, delta_max / h) leaves v2 alone.
  const Scalar t = v2 * horizon;
  const bool clip_free = (t > delta_min) & (t < delta_max);
  const Scalar v3 = v2;
  // Cancellability clip, when |v3| > dt amax: the bound on the side v3 moves toward leaves it
  // alone.
  const bool cancel_active = std::fabs(v3) > dt * b.a_max;
  const Scalar room = (v3 > Scalar(0)) ? delta_max : -delta_min;
  const Scalar v3_squared = v3 * v3;
  const bool cancel_free =
      (v3_squared <= C::kQuarterMax) & (v3_squared <= (room * b.a_max) * C::kOneMinus8U);
  a_out = (v3 - v0) / dt;
  v_out = v3;
  p_out = p + dt * v3;
  // Bitwise on bools on purpose: no short-circuit branch in the vectorised loop.
  // cppcheck-suppress clarifyCondition
  return k_certain & clip_free & (!cancel_active | cancel_free);
}

/// zoh_joint_jiminy, bit for bit, with one division per joint in the common case: the horizon
/// count and the three clips are decided without dividing when the decision is certain
/// (zoh_joint_jiminy_try_fast), and by zoh_joint_jiminy itself otherwise.
/// `inverse` must be jiminy_fast_inverse(b.a_max, dt) (NaN there sends every call to the exact
/// path).
template <typename Scalar>
inline void zoh_joint_jiminy_fast(Scalar& p, Scalar& v, Scalar& a,
                                  const JointStateBounds<Scalar>& b, Scalar dt,
                                  Scalar inverse) noexcept {
  if constexpr (kJiminyFastSupported<Scalar>) {
    Scalar p_new, v_new, a_new;
    if (zoh_joint_jiminy_try_fast(p, v, a, b, dt, inverse, p_new, v_new, a_new)) {
      p = p_new;
      v = v_new;
      a = a_new;
      return;
    }
  }
  zoh_joint_jiminy(p, v, a, b, dt);
}

/// Largest speed w >= 0 from which braking at deceleration `decel` (> 0) with semi-implicit Euler
/// steps of `dt` travels at most `margin`, counting the step that reaches w:
///   f(w) = dt * sum_{j=0..n} (w - j s) <= margin,  s = decel dt,  n = floor(w / s).
/// f is piecewise linear and increasing; with c = s dt, f(n s) = c n(n+1)/2, so n is the largest
/// integer with c n(n+1)/2 <= margin and w = (margin/dt + s n(n+1)/2) / (n+1).
/// margin <= 0 (at or past the bound) gives margin / dt: the speed that reaches the bound in one
/// step. For very long horizons it uses the lower bound f(w) <= c ((x^2 + x)/2 + 1/8), x = w / s,
/// whose root w = s (sqrt(2 margin / c) - 1/2) is safe and within half a step of exact.
/// Rounding: s is decel * dt as the step computes it (v + amin dt); the plan is made for margin
/// (1 - 16 eps); and each braking step v - s rounds by up to half an ulp of v <= w, so the answer
/// u (1 - eps u / (2 s)), u = min(w, s / eps), is a speed the rounded brake stops from (w is
/// concave in s with w = 0 at s = 0, hence w(s (1 - x)) >= (1 - x) w(s)). A brake that rounds to s
/// = 0 cannot stop anything: 0. An infinite deceleration stops at once, w = margin / dt.
template <typename Scalar>
inline Scalar max_stoppable_speed(Scalar margin, Scalar decel, Scalar dt) noexcept {
  if (!(margin > Scalar(0))) return margin / dt;
  if (std::isinf(margin)) return margin;
  if (std::isinf(decel)) return margin / dt;
  constexpr Scalar kEps = std::numeric_limits<Scalar>::epsilon();
  // The plan keeps 16 eps of the margin in reserve: its speed is a few roundings off the exact
  // one, and a plan that travels even one ulp of w dt too far leaves, steps later, a state whose
  // remaining margin is far smaller than that ulp (no later clamp relative to |p| can hide it).
  margin *= Scalar(1) - Scalar(16) * kEps;
  const Scalar s = decel * dt;
  if (!(s > Scalar(0))) return Scalar(0);
  const Scalar c = s * dt;
  // c past the largest float: margin / c < 1, so n = 0 and w = margin / dt (the formula below
  // would form inf * 0 = NaN, and a NaN limit lets every speed through).
  if (!(c <= std::numeric_limits<Scalar>::max())) return margin / dt;
  const Scalar r = margin / c;
  const Scalar exact_limit = (sizeof(Scalar) >= 8) ? Scalar(1e12) : Scalar(1e5);
  Scalar w;
  if (!(c >= std::numeric_limits<Scalar>::min()) || !(r <= std::numeric_limits<Scalar>::max())) {
    // c below the smallest normal or r past the largest float: r is inaccurate or infinite. The
    // long-horizon root s (sqrt(2 r) - 1/2) is sqrt(2) sqrt(margin) sqrt(s) / sqrt(dt) - s / 2,
    // which needs no r (every factor a square root: no product that could overflow or underflow;
    // sqrt(2 margin) overflows above half the largest float).
    w = std::sqrt(Scalar(2)) * std::sqrt(margin) * std::sqrt(s) / std::sqrt(dt) - Scalar(0.5) * s;
  } else if (!(r <= exact_limit)) {
    // sqrt(2) sqrt(r), not sqrt(2 r): 2 r overflows for r above half the largest float.
    w = s * (std::sqrt(Scalar(2)) * std::sqrt(r) - Scalar(0.5));
  } else {
    // r <= exact_limit: the floor fits an int (truncation is the floor of this non-negative value).
    Scalar n =
        Scalar(static_cast<int>((std::sqrt(Scalar(1) + Scalar(8) * r) - Scalar(1)) * Scalar(0.5)));
    // sqrt rounding may put n one off: settle it against the exact condition (at most a step each).
    for (int i = 0; i < 4 && c * ((n + Scalar(1)) * (n + Scalar(2)) * Scalar(0.5)) <= margin; ++i)
      n += Scalar(1);
    for (int i = 0; i < 4 && n > Scalar(0) && c * (n * (n + Scalar(1)) * Scalar(0.5)) > margin; ++i)
      n -= Scalar(1);
    // w = (margin/dt + s n(n+1)/2) / (n+1), divided before the sum and margin by n + 1 before
    // dt: margin / dt and the sum of two terms near the largest float overflow although w does not.
    w = margin / (n + Scalar(1)) / dt + (Scalar(0.5) * s) * n;
  }
  // (w <= 0, no braking room, gives safe <= 0 below and so 0.)
  // u = min(w, s / eps) and x = eps min(w / s, 1 / eps) / 2 <= 1/2, both safe when w or s / eps
  // overflowed (w = inf: every float speed is stoppable, and u (1 - x) stays inf).
  const Scalar u = w < s / kEps ? w : s / kEps;
  const Scalar steps = w / s < Scalar(1) / kEps ? w / s : Scalar(1) / kEps;
  // Less 2 denorm_min (no change for a normal w): a subnormal w is rounded to a whole number of
  // denorm_min, up to one of them up, and braking from a speed above the plan never gets back
  // under it; the error, (n + 1) dt denorm_min / 2 of travel, passes the bound.
  const Scalar safe = u * (Scalar(1) - (Scalar(0.5) * kEps) * steps) -
                      Scalar(2) * std::numeric_limits<Scalar>::denorm_min();
  return safe > Scalar(0) ? safe : Scalar(0);
}

/// One joint of the viable mode. Velocity candidates, in priority order:
/// commanded v + clip(a) dt; then the speeds from which the joint can still stop inside the
/// position bounds (max_stoppable_speed toward each bound); then [vmin, vmax]; and last, always,
/// the speeds reachable within [amin, amax] this step. When these conflict (a non-viable state) the
/// reachable limit wins, which is braking at the largest admissible deceleration.
/// The stored acceleration is clip((v+ - v)/dt, amin, amax). The stoppable speeds are computed for
/// the margin to each bound less 16 eps of it (rounding reserve). A position that passes a bound by
/// a rounding-sized amount (1024 ulp of |p| + |dt v+|, plus (2 dt + 8) denorm_min for subnormals)
/// from inside is clamped to it: p + dt v+ rounds relative to |p|, which may be far larger than the
/// margin.
template <typename Scalar>
inline void zoh_joint_viable(Scalar& p, Scalar& v, Scalar& a, const JointStateBounds<Scalar>& b,
                             Scalar dt) noexcept {
  const Scalar a_cmd = clip(a, b.a_min, b.a_max);
  const Scalar v0 = v;
  // A finite bound more than the largest float away from p gives an infinite difference, which
  // would mean "no limit": the largest float is used instead (a smaller margin is safe). (An
  // overflow to -inf, p beyond a bound, already gives the most restrictive limit.)
  constexpr Scalar kLargest = std::numeric_limits<Scalar>::max();
  Scalar margin_hi = b.p_max - p;
  Scalar margin_lo = p - b.p_min;
  if (margin_hi > kLargest && b.p_max <= kLargest) margin_hi = kLargest;
  if (margin_lo > kLargest && b.p_min >= -kLargest) margin_lo = kLargest;
  const Scalar w_hi = max_stoppable_speed(margin_hi, -b.a_min, dt);
  const Scalar w_lo = -max_stoppable_speed(margin_lo, b.a_max, dt);
  Scalar v_new = clip(v0 + a_cmd * dt, w_lo, w_hi);
  v_new = clip(v_new, b.v_min, b.v_max);
  v_new = clip(v_new, v0 + b.a_min * dt, v0 + b.a_max * dt);
  a = clip((v_new - v0) / dt, b.a_min, b.a_max);
  v = v_new;
  // From a viable state the exact answer stays within the position bounds; in floating point
  // p + dt v+ may pass a bound by a few ulp. Clamp such rounding-sized overshoots (only those: a
  // non-viable state's real overshoot is left as is).
  const Scalar p_new = p + dt * v_new;
  // Plus (2 dt + 8) times the smallest subnormal: for huge dt the speed limit margin / dt is
  // subnormal, quantised in steps of denorm_min, so dt v+ may pass the margin by up to dt
  // denorm_min; and with subnormal bounds, speeds and accelerations every operation of the plan
  // rounds by up to half a denorm_min, whatever dt (fuzzing measured 2 denorm_min at dt = 0.5).
  const Scalar rounding = Scalar(1024) * std::numeric_limits<Scalar>::epsilon() *
                              (std::fabs(p) + std::fabs(dt * v_new)) +
                          (Scalar(2) * dt + Scalar(8)) * std::numeric_limits<Scalar>::denorm_min();
  if (p_new > b.p_max && p <= b.p_max && p_new - b.p_max <= rounding)
    p = b.p_max;
  else if (p_new < b.p_min && p >= b.p_min && b.p_min - p_new <= rounding)
    p = b.p_min;
  else
    p = p_new;
}

/// True when p, v and a are all finite (no NaN, no Inf).
template <typename Scalar>
inline bool joint_state_finite(Scalar p, Scalar v, Scalar a) noexcept {
  return std::isfinite(p) && std::isfinite(v) && std::isfinite(a);
}

/// Runs one joint's step (a zoh_joint_* kernel) on p, v, a, keeping them as they were when the step
/// leaves a non-finite value (finite but huge inputs overflowed). Returns false in that case.
template <typename Scalar, typename Step>
inline bool zoh_joint_or_hold(Scalar& p, Scalar& v, Scalar& a, Step&& step) noexcept {
  Scalar p_new = p, v_new = v, a_new = a;
  step(p_new, v_new, a_new);
  if (!joint_state_finite(p_new, v_new, a_new)) return false;
  p = p_new;
  v = v_new;
  a = a_new;
  return true;
}

/// The integration loop without input checks; callers have validated dt, state and bounds.
/// A joint whose step overflows (a non-finite p, v or a from finite inputs) keeps its state;
/// returns true when that happened.
template <typename DerivedState, typename DerivedLower, typename DerivedUpper>
inline bool integrate_zoh_unchecked(Eigen::MatrixBase<DerivedState>& state,
                                    const Eigen::MatrixBase<DerivedLower>& lower,
                                    const Eigen::MatrixBase<DerivedUpper>& upper,
                                    typename DerivedState::Scalar dt, ZohMode mode) noexcept {
  using Scalar = typename DerivedState::Scalar;
  const Eigen::Index n = state.cols();
  bool overflow = false;
  for (Eigen::Index j = 0; j < n; ++j) {
    const JointStateBounds<Scalar> b = joint_bounds(lower, upper, j);
    const bool integrated =
        zoh_joint_or_hold(state.coeffRef(kPosition, j), state.coeffRef(kVelocity, j),
                          state.coeffRef(kAcceleration, j), [&](Scalar& p, Scalar& v, Scalar& a) {
                            if (mode == ZohMode::JiminyCompatible)
                              zoh_joint_jiminy(p, v, a, b, dt);
                            else
                              zoh_joint_viable(p, v, a, b, dt);
                          });
    overflow = overflow || !integrated;
  }
  return overflow;
}

}  // namespace detail

/// Integrates the command state S = [p; v; a] (3xN) one step of dt in place, holding the
/// acceleration constant over the step (zero-order hold) with semi-implicit Euler:
///   v+ = v + dt a,  p+ = p + dt v+,
/// then clips against `lower` / `upper` (3xN) as `mode` says; a is rewritten to the acceleration
/// actually applied, (v+ - v) / dt.
/// `state` is written in place; it may be a matrix, a block or an Eigen::Map (it is taken by const
/// reference and written through, the idiom Eigen documents for writable expressions).
/// Returns, touching nothing unless Ok (or NumericalOverflow, below):
///  - NonFiniteInput: dt or the state holds NaN/Inf;
///  - NegativeTimeStep: dt < 0 (gym_jiminy asserts);
///  - InvalidBounds: NaN in the bounds; in jiminy mode a joint whose horizon count (|v| / amax) /
///  dt
///    is NaN or infinite (amax = 0: where gym_jiminy raises); in viable mode whatever
///    validate_state_bounds(..., Viable) refuses.
/// And, after integrating: NumericalOverflow when finite but huge inputs made some joint's p, v or
/// a non-finite (e.g. p + dt v past the largest float): those joints keep their state as it was,
/// the others are integrated. A finite state never becomes non-finite.
/// dt follows check_time_step (core/time_step.hpp): 0 <= dt < CLAW_MIN_TIME_STEP (1e-9 s) returns
/// Ok without touching the state (a non-finite state is NonFiniteInput first).
/// SizeMismatch (nothing touched) unless state and bounds are 3xN with the same N; InvalidBounds
/// also when a lower bound exceeds its upper bound, in either mode. Allocation-free, noexcept.
template <typename DerivedState, typename DerivedLower, typename DerivedUpper>
Status integrate_zoh(const Eigen::MatrixBase<DerivedState>& state,
                     const Eigen::MatrixBase<DerivedLower>& lower,
                     const Eigen::MatrixBase<DerivedUpper>& upper, typename DerivedState::Scalar dt,
                     ZohMode mode = ZohMode::JiminyCompatible) noexcept {
  using Scalar = typename DerivedState::Scalar;
  auto& s = const_cast<Eigen::MatrixBase<DerivedState>&>(state);
  if (s.rows() != 3 || lower.rows() != 3 || upper.rows() != 3 || lower.cols() != s.cols() ||
      upper.cols() != s.cols())
    return Status::SizeMismatch;
  bool skip = false;
  const Status dt_status = check_time_step(dt, skip);
  if (dt_status != Status::Ok) return dt_status;
  if (!all_finite(s)) return Status::NonFiniteInput;  // also for a step too short to take
  if (skip) return Status::Ok;
  if (mode == ZohMode::Viable) {
    const Status bounds_status = validate_state_bounds(lower, upper, ZohMode::Viable);
    if (bounds_status != Status::Ok) return bounds_status;
  } else {
    if (!ordered_bounds(lower, upper)) return Status::InvalidBounds;
    for (Eigen::Index j = 0; j < s.cols(); ++j) {
      const Scalar steps =
          detail::jiminy_horizon_ratio(s.coeff(kVelocity, j), upper.coeff(kAcceleration, j), dt);
      if (!std::isfinite(steps)) return Status::InvalidBounds;
    }
  }
  return detail::integrate_zoh_unchecked(s, lower, upper, dt, mode) ? Status::NumericalOverflow
                                                                    : Status::Ok;
}

}  // namespace claw
