// claw/laws/effort_clamp.hpp: effort limits applied after a control law: symmetric, asymmetric, or
// the DC-motor torque-speed envelope, per joint, with validation.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "claw/core/interval.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// Which envelope bounds the effort u of a joint.
enum class EffortLimitKind : std::uint8_t {
  None,     ///< u is passed through
  Bounds,   ///< u in [lower, upper] (symmetric when lower = -upper); infinities allowed
  DcMotor,  ///< the torque-speed envelope of a DC motor, evaluated at the measured velocity v
};

/// Effort limits of N joints. For DcMotor, with tsat the stall effort [effort] (> 0), tmax the
/// peak effort the drive allows [effort] (> 0) and vlim the no-load speed [pos/s] (> 0):
///   vh = clip(v, -vlim (1 + tmax/tsat), vlim (1 + tmax/tsat)),
///   upper = min(tsat (1 - vh/vlim), tmax),  lower = max(tsat (-1 - vh/vlim), -tmax),
/// and, where that overflows (extreme tmax/tsat or v/vlim), as the equal
/// upper = clip(tsat - tsat v/vlim, -tmax, tmax) (lower likewise), which does not.
/// The anti-windup of a PID sees the limited effort.
/// A limit cannot be half set: the fields a kind does not read must stay infinite (the defaults),
/// so `kind` left at None with finite bounds is refused (validate_effort_limits), never ignored.
/// The factories none(), symmetric(), bounds() and dc_motor() state the intent in one call.
template <typename Scalar, int N = Dynamic, int MaxN = N>
struct EffortLimits {
  static constexpr Eigen::Index kDefaultSize = (N == Dynamic) ? 0 : N;  ///< N (0 if Dynamic)
  using VectorType = Vector<Scalar, N, MaxN>;                           ///< one entry per joint
  EffortLimitKind kind = EffortLimitKind::None;  ///< the envelope; unread fields stay +-inf
  VectorType lower = VectorType::Constant(kDefaultSize, -infinity<Scalar>());         ///< [effort]
  VectorType upper = VectorType::Constant(kDefaultSize, infinity<Scalar>());          ///< [effort]
  VectorType stall_effort = VectorType::Constant(kDefaultSize, infinity<Scalar>());   ///< tsat
  VectorType peak_effort = VectorType::Constant(kDefaultSize, infinity<Scalar>());    ///< tmax
  VectorType no_load_speed = VectorType::Constant(kDefaultSize, infinity<Scalar>());  ///< vlim

  /// Sets every size-dependent vector to n entries of "no limit" (allocates for dynamic sizes).
  void resize(Eigen::Index n) {
    lower.setConstant(n, -infinity<Scalar>());
    upper.setConstant(n, infinity<Scalar>());
    stall_effort.setConstant(n, infinity<Scalar>());
    peak_effort.setConstant(n, infinity<Scalar>());
    no_load_speed.setConstant(n, infinity<Scalar>());
  }

  /// No limit on n joints (kind None, every field infinite).
  static EffortLimits none(Eigen::Index n = kDefaultSize) {
    EffortLimits limits;
    limits.resize(n);
    return limits;
  }
  /// |u| <= limit on each of n joints (kind Bounds; limit >= 0, +inf allowed).
  static EffortLimits symmetric(Scalar limit, Eigen::Index n = kDefaultSize) {
    return bounds(-limit, limit, n);
  }
  /// lower <= u <= upper on each of n joints (kind Bounds; lower <= upper, lower < +inf,
  /// upper > -inf; -inf / +inf mean that side is open).
  static EffortLimits bounds(Scalar lower, Scalar upper, Eigen::Index n = kDefaultSize) {
    EffortLimits limits = none(n);
    limits.kind = EffortLimitKind::Bounds;
    limits.lower.setConstant(n, lower);
    limits.upper.setConstant(n, upper);
    return limits;
  }
  /// The DC-motor envelope above on each of n joints (kind DcMotor; tsat > 0 finite, tmax > 0,
  /// vlim > 0; tmax and vlim may be +inf).
  static EffortLimits dc_motor(Scalar stall, Scalar peak, Scalar no_load_speed_value,
                               Eigen::Index n = kDefaultSize) {
    EffortLimits limits = none(n);
    limits.kind = EffortLimitKind::DcMotor;
    limits.stall_effort.setConstant(n, stall);
    limits.peak_effort.setConstant(n, peak);
    limits.no_load_speed.setConstant(n, no_load_speed_value);
    return limits;
  }
};

namespace detail {
/// True when every coefficient of v is +-inf: a field left unset (NaN counts as set: refused).
template <typename V>
bool no_finite_entry(const V& v) noexcept {
  for (Eigen::Index j = 0; j < v.size(); ++j)
    if (!std::isinf(v.coeff(j))) return false;
  return true;
}
}  // namespace detail

/// Checks limits for n joints. Every kind: the fields it does not read hold no finite value
/// (InvalidParameter: a limit set but not switched on, or set for another kind; NaN counts as
/// set). Bounds: sizes, no NaN, lower <= upper, lower < +inf, upper > -inf (a clamp to +-inf is
/// no effort). DcMotor: sizes, tsat > 0 finite, tmax > 0, vlim > 0 (tmax and vlim may
/// be +inf).
template <typename Scalar, int N, int MaxN>
Status validate_effort_limits(const EffortLimits<Scalar, N, MaxN>& limits,
                              Eigen::Index n) noexcept {
  const bool bounds_unset =
      detail::no_finite_entry(limits.lower) && detail::no_finite_entry(limits.upper);
  const bool motor_unset = detail::no_finite_entry(limits.stall_effort) &&
                           detail::no_finite_entry(limits.peak_effort) &&
                           detail::no_finite_entry(limits.no_load_speed);
  if (limits.kind == EffortLimitKind::None)
    return (bounds_unset && motor_unset) ? Status::Ok : Status::InvalidParameter;
  if (limits.kind == EffortLimitKind::Bounds) {
    if (limits.lower.size() != n || limits.upper.size() != n) return Status::SizeMismatch;
    if (!motor_unset) return Status::InvalidParameter;
    return detail::all_valid_intervals(limits.lower, limits.upper) ? Status::Ok
                                                                   : Status::InvalidParameter;
  }
  if (limits.stall_effort.size() != n || limits.peak_effort.size() != n ||
      limits.no_load_speed.size() != n)
    return Status::SizeMismatch;
  if (!bounds_unset) return Status::InvalidParameter;
  for (Eigen::Index j = 0; j < n; ++j) {
    const Scalar tsat = limits.stall_effort.coeff(j), tmax = limits.peak_effort.coeff(j);
    const Scalar vlim = limits.no_load_speed.coeff(j);
    if (!(tsat > Scalar(0)) || !std::isfinite(tsat) || !(tmax > Scalar(0)) || !(vlim > Scalar(0)))
      return Status::InvalidParameter;
  }
  return Status::Ok;
}

namespace detail {

/// tsat v / vlim for tsat > 0, vlim > 0 (not +inf), v finite: 0 for v = 0, else (tsat v) / vlim,
/// tsat (v / vlim) or (tsat / vlim) v, the first whose intermediate product or quotient is a finite
/// normal number; the last otherwise (then |w| overflows or underflows in every order). A zero
/// intermediate is an underflow here (all three factors are nonzero), not an exact answer.
template <typename Scalar>
inline Scalar detail_dc_motor_speed_term(Scalar tsat, Scalar v, Scalar vlim) noexcept {
  if (v == Scalar(0)) return Scalar(0);
  const auto normal = [](Scalar x) {
    return std::fabs(x) >= std::numeric_limits<Scalar>::min() && std::isfinite(x);
  };
  const Scalar tsat_v = tsat * v;
  if (normal(tsat_v)) return tsat_v / vlim;
  const Scalar ratio = v / vlim;
  if (normal(ratio)) return tsat * ratio;
  return (tsat / vlim) * v;
}

/// The [lower, upper] effort interval of joint j at measured velocity v.
template <typename Scalar, int N, int MaxN>
inline void effort_interval(const EffortLimits<Scalar, N, MaxN>& limits, Eigen::Index j, Scalar v,
                            Scalar& lower, Scalar& upper) noexcept {
  switch (limits.kind) {
    case EffortLimitKind::None:
      lower = -infinity<Scalar>();
      upper = infinity<Scalar>();
      return;
    case EffortLimitKind::Bounds:
      lower = limits.lower.coeff(j);
      upper = limits.upper.coeff(j);
      return;
    case EffortLimitKind::DcMotor: {
      const Scalar tsat = limits.stall_effort.coeff(j);
      const Scalar tmax = limits.peak_effort.coeff(j);
      const Scalar vlim = limits.no_load_speed.coeff(j);
      // Clipping vh at +-vlim (1 + tmax/tsat) is clipping both ends of the envelope to
      // [-tmax, tmax]: at vh = vlim (1 + tmax/tsat) the upper end is exactly -tmax (and the lower
      // end tmax at the other edge). So the ends are formed at v itself and clipped to
      // [-tmax, tmax]: beyond the edges the answer is then exactly -+tmax, where the edge speed,
      // subnormal for a subnormal vlim, would have cost precision.
      const Scalar ratio = std::isinf(vlim) ? Scalar(0) : v / vlim;
      const Scalar up = tsat * (Scalar(1) - ratio);
      const Scalar lo = tsat * (Scalar(-1) - ratio);
      if (std::isfinite(up) && std::isfinite(lo)) {
        upper = clip(up, -tmax, tmax);
        lower = clip(lo, -tmax, tmax);
        return;
      }
      // Overflow (v / vlim past the largest float, from a tiny vlim): w = tsat v / vlim is formed
      // in an order whose intermediate is a finite normal number where one is (full precision),
      // so it overflows only when w itself does, and the ends then saturate at -+tmax.
      const Scalar w = detail_dc_motor_speed_term(tsat, v, vlim);
      upper = clip(tsat - w, -tmax, tmax);
      lower = clip(-tsat - w, -tmax, tmax);
      return;
    }
  }
  lower = -infinity<Scalar>();
  upper = infinity<Scalar>();
}

/// One joint of the DcMotor clamp: clip(u, lower, upper) with effort_interval's interval at v, in
/// its first branch's operations (so the same bits). When the interval's ends overflow (the rare
/// second branch) u is returned unclamped and `fallbacks` counts the joint for effort_interval.
template <typename Scalar>
inline Scalar dc_motor_clip(Scalar u, Scalar v, Scalar tsat, Scalar tmax, Scalar vlim,
                            LaneCount<Scalar>& fallbacks) noexcept {
  constexpr Scalar kMax = std::numeric_limits<Scalar>::max();
  const Scalar ratio = std::fabs(vlim) > kMax ? Scalar(0) : v / vlim;
  const Scalar up = tsat * (Scalar(1) - ratio);
  const Scalar lo = tsat * (Scalar(-1) - ratio);
  const bool finite =
      (static_cast<int>(std::fabs(up) <= kMax) & static_cast<int>(std::fabs(lo) <= kMax)) != 0;
  const Scalar clipped = clip(u, clip(lo, -tmax, tmax), clip(up, -tmax, tmax));
  fallbacks += finite ? LaneCount<Scalar>(0) : LaneCount<Scalar>(1);
  return finite ? clipped : u;
}

/// u[j] <- dc_motor_clip(u[j], v[j], ...) as one loop over distinct arrays that the compiler
/// vectorises. Returns true when the caller must clamp some joint through effort_interval.
template <typename Scalar>
CLAW_DETAIL_NOINLINE bool dc_motor_clamp_contiguous(Eigen::Index n, Scalar* __restrict u,
                                                    const Scalar* __restrict v,
                                                    const Scalar* __restrict tsat,
                                                    const Scalar* __restrict tmax,
                                                    const Scalar* __restrict vlim) noexcept {
  LaneCount<Scalar> fallbacks = 0;
  for (Eigen::Index j = 0; j < n; ++j)
    u[j] = dc_motor_clip(u[j], v[j], tsat[j], tmax[j], vlim[j], fallbacks);
  return fallbacks != 0;
}

/// The DcMotor clamp as the output stage of a PID pass (Pid::update_unchecked): joint j's
/// effort through dc_motor_clip at v[j]; flags counts the joints left for effort_interval.
template <typename Scalar>
struct DcMotorStage {
  const Scalar* v;
  const Scalar* tsat;
  const Scalar* tmax;
  const Scalar* vlim;
  Scalar operator()(Eigen::Index j, Scalar u, LaneCount<Scalar>& flags) const noexcept {
    return dc_motor_clip(u, v[j], tsat[j], tmax[j], vlim[j], flags);
  }
};

/// clamp_effort without its checks (valid limits, sizes and finite u, v are the caller's).
template <typename Scalar, int N, int MaxN, typename DU, typename DV>
void clamp_effort_unchecked(const EffortLimits<Scalar, N, MaxN>& limits, Eigen::MatrixBase<DU>& u,
                            const Eigen::MatrixBase<DV>& v) noexcept {
  for (Eigen::Index j = 0; j < u.size(); ++j) {
    Scalar lower, upper;
    effort_interval(limits, j, v.coeff(j), lower, upper);
    u.coeffRef(j) = clip(u.coeff(j), lower, upper);
  }
}

}  // namespace detail

/// Clamps efforts u (in place) to the limits at the measured velocities v, like the laws do:
/// SizeMismatch when u and v differ in size, the limits' status when they are invalid for
/// u.size() joints (validate_effort_limits), NonFiniteInput when u or v holds NaN/Inf; u is
/// untouched unless the result is Ok.
template <typename Scalar, int N, int MaxN, typename DU, typename DV>
Status clamp_effort(const EffortLimits<Scalar, N, MaxN>& limits,
                    const Eigen::MatrixBase<DU>& u_inout, const Eigen::MatrixBase<DV>& v) noexcept {
  auto& u = const_cast<Eigen::MatrixBase<DU>&>(u_inout);
  if (v.size() != u.size()) return Status::SizeMismatch;
  const Status limits_status = validate_effort_limits(limits, u.size());
  if (limits_status != Status::Ok) return limits_status;
  if (!all_finite(u) || !all_finite(v)) return Status::NonFiniteInput;
  detail::clamp_effort_unchecked(limits, u, v);
  return Status::Ok;
}

}  // namespace claw
