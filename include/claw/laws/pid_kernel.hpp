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

/// The PID's input rule: q*, q and v finite, and with kFull v* and ff too (Pid::update and the
/// Actuator's one-pass update check this before touching any state).
template <bool kFull, typename DT, typename DTV, typename DFF, typename DQ, typename DV>
inline bool pid_inputs_finite(const Eigen::MatrixBase<DT>& target,
                              const Eigen::MatrixBase<DTV>& target_velocity,
                              const Eigen::MatrixBase<DFF>& feedforward,
                              const Eigen::MatrixBase<DQ>& q,
                              const Eigen::MatrixBase<DV>& v) noexcept {
  if (!vectors_all_finite(target, q, v)) return false;
  return !kFull || (all_finite(target_velocity) && all_finite(feedforward));
}

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

/// A command of the simple path read from the caller's array: joint j's value is at[j].
template <typename Scalar>
struct CommandArray {
  const Scalar* at;
  Scalar operator()(Eigen::Index j) const noexcept { return at[j]; }
};

/// The simple path's output stage when nothing follows the PID: the effort as computed.
struct NoOutputStage {
  template <typename Scalar>
  Scalar operator()(Eigen::Index /*j*/, Scalar u, LaneCount<Scalar>& /*flags*/) const noexcept {
    return u;
  }
};

/// What one pass of pid_simple reports: some joint was held (its u or I+ not finite), and the
/// output stage counted some joint (its meaning is the stage's).
struct PidSimpleFlags {
  bool overflow = false;
  bool stage_flagged = false;
};

/// Pid's simple path on raw arrays (restrict: no two of them overlap, which holds for distinct
/// vectors; the caller's output must not be one of its inputs). Per joint:
///   e = q* - q;  d = v* - v;  I+ = clip(I + ki (e h), i_lo, i_hi);
///   u = clip(c + ff + kp e + kd d + (kBackward ? I+ : I), u_lo, u_hi)
/// The commands q*, v*, ff come from target(j), target_velocity(j), feedforward(j) (each called
/// once per joint, j ascending; the last two only when kFull), e.g. CommandArray, or a block's
/// accessor that moves data in the same pass (a delay line's slot). out[j] = stage(j, u, flags):
/// NoOutputStage, or a block's clamp after the PID. kConstant false: c is +0 for every joint and
/// is not read (nullptr allowed). kIntegralLower false: i_lo = -i_hi for every joint and is not
/// read. Either way the same operations as with the array, so the same bits. A joint whose u or I+
/// is not finite keeps its I, and its out becomes stage(j, out[j], flags).
template <bool kFull, bool kBackward, bool kConstant, bool kIntegralLower, typename Scalar,
          typename Target, typename TargetVelocity, typename Feedforward, typename Stage>
inline PidSimpleFlags pid_simple(Eigen::Index n, Target target, TargetVelocity target_velocity,
                                 Feedforward feedforward, const Scalar* __restrict q,
                                 const Scalar* __restrict v, const Scalar* __restrict kp,
                                 const Scalar* __restrict ki, const Scalar* __restrict kd,
                                 const Scalar* __restrict c, const Scalar* __restrict i_lo,
                                 const Scalar* __restrict i_hi, const Scalar* __restrict u_lo,
                                 const Scalar* __restrict u_hi, Scalar* __restrict integral,
                                 Scalar* __restrict out, Scalar h, Stage stage,
                                 bool backward_at_run_time = false) noexcept {
  constexpr Scalar kMax = std::numeric_limits<Scalar>::max();
  using Count = LaneCount<Scalar>;
  Count failures = 0;
  Count flags = 0;
  CLAW_DETAIL_LOOP_NO_ALIAS
  for (Eigen::Index j = 0; j < n; ++j) {
    const Scalar e = target(j) - q[j];
    const Scalar vr = kFull ? target_velocity(j) : Scalar(0);
    const Scalar ff = kFull ? feedforward(j) : Scalar(0);
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
    out[j] = stage(j, finite_step ? u : held, flags);
    integral[j] = finite_step ? advanced : previous;
  }
  return {failures != 0, flags != 0};
}

/// pid_simple out of line (CLAW_DETAIL_NOINLINE), for dynamic sizes; short fixed-size vectors keep
/// the inlined kernel (no call).
template <bool kFull, bool kBackward, bool kConstant, bool kIntegralLower, typename... Arguments>
CLAW_DETAIL_NOINLINE PidSimpleFlags pid_simple_batch(Arguments... arguments) noexcept {
  return pid_simple<kFull, kBackward, kConstant, kIntegralLower>(arguments...);
}

/// pid_simple in the variant for run-time choices (backward: IntegralRule::BackwardEuler,
/// constant: some c != +0, integral_lower: some i_lo != -i_hi), out of line when kOutOfLine.
/// Under -Os (firmware) one variant only: the integral rule a run-time choice, c and i_lo always
/// read (the same bits; each specialised variant costs ~0.5 KiB of code).
template <bool kFull, bool kOutOfLine, typename... Arguments>
inline PidSimpleFlags dispatch_pid_simple(bool backward, bool constant, bool integral_lower,
                                          Arguments... arguments) noexcept {
  // The run-time integral rule only where it is wanted: a run-time select keeps GCC from
  // vectorising the loop.
  const auto run = [&](auto backward_flag, auto constant_flag, auto lower_flag,
                       auto... at_run_time) {
    constexpr bool kB = decltype(backward_flag)::value, kC = decltype(constant_flag)::value;
    constexpr bool kL = decltype(lower_flag)::value;
    if constexpr (kOutOfLine)
      return pid_simple_batch<kFull, kB, kC, kL>(arguments..., at_run_time...);
    else
      return pid_simple<kFull, kB, kC, kL>(arguments..., at_run_time...);
  };
#if defined(__OPTIMIZE_SIZE__)
  (void)constant;
  (void)integral_lower;
  return run(std::false_type{}, std::true_type{}, std::true_type{}, backward);
#else
  return with_bool_flags([&](auto b, auto c, auto l) { return run(b, c, l); }, backward, constant,
                         integral_lower);
#endif
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

}  // namespace detail

}  // namespace claw
