// claw/laws/pid_kernel.hpp: detail::pid_simple, the PID's fast path (derivative on the velocity
// error, no history) as one loop over contiguous arrays, and the helpers that dispatch to it.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <type_traits>

#include "claw/core/types.hpp"

namespace claw {

namespace detail {

// Placed before a loop over arrays that do not overlap: tells the compiler so, since `__restrict`
// on a function's parameters is lost once the function is inlined (GCC 12 then needs a run-time
// overlap test per pair of arrays, gives up above 10 and leaves the loop scalar).
// Under instrumentation (sanitizers, coverage) clang may not vectorise the loop and warns
// (-Wpass-failed); that says nothing about claw, so the warning is off for this header's kernels.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpass-failed"
#endif
#ifndef CLAW_DETAIL_LOOP_NO_ALIAS
#if defined(__clang__)
#define CLAW_DETAIL_LOOP_NO_ALIAS _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define CLAW_DETAIL_LOOP_NO_ALIAS _Pragma("GCC ivdep")
#else
#define CLAW_DETAIL_LOOP_NO_ALIAS
#endif
#endif

/// Calls f(std::bool_constant<b>...) for the run-time booleans b: one instantiation per pattern.
template <bool... kFlags, typename F>
inline decltype(auto) with_bool_flags(F&& f) {
  return f(std::bool_constant<kFlags>{}...);
}
template <bool... kFlags, typename F, typename... Bools>
inline decltype(auto) with_bool_flags(F&& f, bool first, Bools... rest) {
  return first ? with_bool_flags<kFlags..., true>(f, rest...)
               : with_bool_flags<kFlags..., false>(f, rest...);
}

/// Pid's simple path on raw arrays (restrict: no two of them overlap, which holds for distinct
/// vectors; the caller's output must not be one of its inputs). Per joint:
///   e = q* - q;  d = v* - v;  I+ = clip(I + ki (e h), i_lo, i_hi);
///   u = clip(c + ff + kp e + kd d + (kBackward ? I+ : I), u_lo, u_hi)
/// kConstant false: c is +0 for every joint and is not read (nullptr allowed). kIntegralLower
/// false: i_lo = -i_hi for every joint and is not read. Either way the same operations as with the
/// array, so the same bits. A joint whose u or I+ is not finite keeps its out and I. Returns true
/// when that happened.
template <bool kFull, bool kBackward, bool kConstant, bool kIntegralLower, typename Scalar>
inline bool pid_simple(
    Eigen::Index n, const Scalar* __restrict target, const Scalar* __restrict target_velocity,
    const Scalar* __restrict feedforward, const Scalar* __restrict q, const Scalar* __restrict v,
    const Scalar* __restrict kp, const Scalar* __restrict ki, const Scalar* __restrict kd,
    const Scalar* __restrict c, const Scalar* __restrict i_lo, const Scalar* __restrict i_hi,
    const Scalar* __restrict u_lo, const Scalar* __restrict u_hi, Scalar* __restrict integral,
    Scalar* __restrict out, Scalar h, bool backward_at_run_time = false) noexcept {
  constexpr Scalar kMax = std::numeric_limits<Scalar>::max();
  using Count = LaneCount<Scalar>;
  Count failures = 0;
  CLAW_DETAIL_LOOP_NO_ALIAS
  for (Eigen::Index j = 0; j < n; ++j) {
    const Scalar e = target[j] - q[j];
    const Scalar vr = kFull ? target_velocity[j] : Scalar(0);
    const Scalar ff = kFull ? feedforward[j] : Scalar(0);
    const Scalar d = vr - v[j];
    const Scalar previous = integral[j];
    const Scalar hi = i_hi[j];
    const Scalar lo = kIntegralLower ? i_lo[j] : -hi;
    const Scalar advanced = clip(previous + ki[j] * (e * h), lo, hi);
    const Scalar base = (kConstant ? c[j] : Scalar(0)) + ff + kp[j] * e + kd[j] * d;
    const Scalar u =
        clip(base + ((kBackward || backward_at_run_time) ? advanced : previous), u_lo[j], u_hi[j]);
    const bool finite_step = (static_cast<int>(std::fabs(u) <= kMax) &
                              static_cast<int>(std::fabs(advanced) <= kMax)) != 0;
    failures += finite_step ? Count(0) : Count(1);
    const Scalar held = out[j];
    out[j] = finite_step ? u : held;
    integral[j] = finite_step ? advanced : previous;
  }
  return failures != 0;
}

/// pid_simple out of line (CLAW_DETAIL_NOINLINE), for dynamic sizes; short fixed-size vectors keep
/// the inlined kernel (no call).
template <bool kFull, bool kBackward, bool kConstant, bool kIntegralLower, typename... Arguments>
CLAW_DETAIL_NOINLINE bool pid_simple_batch(Arguments... arguments) noexcept {
  return pid_simple<kFull, kBackward, kConstant, kIntegralLower>(arguments...);
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

}  // namespace detail

}  // namespace claw
