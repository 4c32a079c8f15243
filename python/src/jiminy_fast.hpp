// python/src/jiminy_fast.hpp: claw::pd_controller (jiminy-compatible mode) over the plain arrays
// of the Python drop-in, through claw's vectorised kernel (detail::pd_jiminy_contiguous, the one
// PdController::update runs). Same checks in the same order, same status, same bits as
// claw::pd_controller: python/tests/test_jiminy.py compares the two on the reference vectors and
// on random and adversarial batches.
#pragma once

#include <Eigen/Core>
#include <claw/blocks/pd_controller.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace claw_python {

/// Per-thread scratch: the target acceleration (a copy of the acceleration row, which the kernel
/// overwrites), and 1 / fl(amax dt) per joint (detail::jiminy_fast_inverse) with the amax row and
/// dt it was computed from, so that a call with the same bounds and period reuses it (compared
/// bit for bit). The caller sizes target, inverse and a_max to n joints. Eigen's storage is aligned
/// for the widest vector unit (malloc's large blocks are 16 bytes off a page, and the kernel's
/// loads then straddle cache lines: measured 1.5-2x slower for 49152 joints).
struct PdScratch {
  Eigen::VectorXd target, inverse, a_max;
  std::ptrdiff_t cached_joints = -1;
  double cached_dt = 0.0;
};

/// detail::jiminy_fast_inverse(a_max[j], dt) for every joint, from the cache when a_max and dt
/// are those of the last computation.
inline const double* prepare_inverse(std::ptrdiff_t n, const double* a_max, double dt,
                                     PdScratch& scratch) noexcept {
  double* inverse = scratch.inverse.data();
  const std::size_t bytes = sizeof(double) * std::size_t(n);
  if (scratch.cached_joints == n && std::memcmp(&scratch.cached_dt, &dt, sizeof dt) == 0 &&
      std::memcmp(scratch.a_max.data(), a_max, bytes) == 0)
    return inverse;
  for (std::ptrdiff_t j = 0; j < n; ++j)
    inverse[j] = claw::detail::jiminy_fast_inverse(a_max[j], dt);
  std::memcpy(scratch.a_max.data(), a_max, bytes);
  scratch.cached_dt = dt;
  scratch.cached_joints = n;
  return inverse;
}

/// integrate_zoh's refusal test: every horizon count (|w| / amax) / dt finite. Where
/// |w| inverse <= 2^1000 (inverse = 1 / fl(amax dt) within an ulp, not NaN) the count is within a
/// few ulp of it, so finite; the others (rare: a NaN inverse, a huge count) are decided by the
/// exact expression, in a second pass only when some exist.
inline bool horizon_counts_finite(std::ptrdiff_t n, const double* w, const double* a_max,
                                  const double* inverse, double dt) noexcept {
  std::int64_t unsure = 0;
  for (std::ptrdiff_t j = 0; j < n; ++j)
    unsure += (std::fabs(w[j]) * inverse[j] <= 0x1p1000) ? 0 : 1;
  if (unsure == 0) return true;
  for (std::ptrdiff_t j = 0; j < n; ++j)
    if (!(std::fabs(w[j]) * inverse[j] <= 0x1p1000) &&
        !std::isfinite(claw::detail::jiminy_horizon_ratio(w[j], a_max[j], dt)))
      return false;
  return true;
}

/// Count of j in [0, n) where pred(j) fails; no early exit, so the loop vectorises.
template <typename Pred>
inline std::int64_t count_failures(std::ptrdiff_t n, Pred pred) noexcept {
  std::int64_t failures = 0;
  for (std::ptrdiff_t j = 0; j < n; ++j) failures += pred(j) ? 0 : 1;
  return failures;
}

/// integrate_zoh's checks after dt, in its order, on row-major 3 x n state and bounds: a finite
/// state (else NonFiniteInput), no NaN bound and every horizon count finite (else InvalidBounds).
/// On Ok, `inverse` points at 1 / fl(amax dt) per joint (prepare_inverse).
inline claw::Status state_and_bounds_status(std::ptrdiff_t n, const double* state,
                                            const double* lower, const double* upper, double dt,
                                            PdScratch& scratch, const double*& inverse) noexcept {
  constexpr double kMax = std::numeric_limits<double>::max();
  if (count_failures(3 * n, [&](std::ptrdiff_t j) { return std::fabs(state[j]) <= kMax; }) != 0)
    return claw::Status::NonFiniteInput;
  if (count_failures(3 * n, [&](std::ptrdiff_t j) {
        return (lower[j] == lower[j]) & (upper[j] == upper[j]);
      }) != 0)
    return claw::Status::InvalidBounds;
  inverse = prepare_inverse(n, upper + 2 * n, dt, scratch);
  if (!horizon_counts_finite(n, state + n, upper + 2 * n, inverse, dt))
    return claw::Status::InvalidBounds;
  return claw::Status::Ok;
}

/// Not a claw status: "run claw's own function instead" (see the functions below).
constexpr auto kDelegate = static_cast<claw::Status>(0xff);

/// The work of pd_controller_contiguous; kDelegate where the caller must run claw's own path.
inline claw::Status pd_controller_contiguous_status(std::ptrdiff_t n, const double* q,
                                                    const double* v, double* state,
                                                    const double* lower, const double* upper,
                                                    const double* kp, const double* kd,
                                                    const double* limit, double dt, double* out,
                                                    PdScratch& scratch) noexcept {
  using claw::Status;
  using claw::detail::spans_overlap;
  for (const auto& [input, size] : {std::pair<const double*, std::ptrdiff_t>{q, n},
                                    {v, n},
                                    {lower, 3 * n},
                                    {upper, 3 * n},
                                    {kp, n},
                                    {kd, n},
                                    {limit, n}})
    if (spans_overlap(state, 3 * n, input, size) || spans_overlap(out, n, input, size))
      return kDelegate;
  if (spans_overlap(state, 3 * n, out, n)) return kDelegate;
  constexpr double kMax = std::numeric_limits<double>::max();
  const auto finite = [](double x) { return std::fabs(x) <= kMax; };
  // claw::pd_controller's order: measurements, parameters, then integrate_zoh's dt, state, bounds.
  if (count_failures(n, [&](std::ptrdiff_t j) { return finite(q[j]) & finite(v[j]); }) != 0)
    return Status::NonFiniteInput;
  if (count_failures(n, [&](std::ptrdiff_t j) {
        return finite(kp[j]) & (kp[j] >= 0.0) & finite(kd[j]) & (kd[j] >= 0.0) &
               (limit[j] >= 0.0);  // false for NaN
      }) != 0)
    return Status::InvalidParameter;
  bool skip = false;
  const Status dt_status = claw::check_time_step(dt, skip);
  if (dt_status != Status::Ok || skip) return kDelegate;
  const double* inverse = nullptr;
  const Status checked = state_and_bounds_status(n, state, lower, upper, dt, scratch, inverse);
  if (checked != Status::Ok) return checked;
  std::memcpy(scratch.target.data(), state + 2 * n, sizeof(double) * std::size_t(n));
  const bool overflow = claw::detail::pd_jiminy_contiguous<Eigen::Dynamic>(
      n, dt, lower, lower + n, lower + 2 * n, upper, upper + n, upper + 2 * n, inverse, kp, kd,
      limit, q, v, scratch.target.data(), state, state + n, state + 2 * n, out);
  return overflow ? Status::NumericalOverflow : Status::Ok;
}

/// One chunk (m <= kPdJiminyChunk joints) of integrate_zoh through the branch-free fast step
/// (detail::zoh_joint_jiminy_try_fast), written unconditionally; flag[i] = 1 where the joint must
/// be redone exactly (the step was not certain, or gave a non-finite value), with its previous
/// p, w, a in saved. Straight-line code over restrict arrays, as detail::pd_jiminy_chunk.
inline void zoh_chunk(std::ptrdiff_t m, double dt, const double* __restrict p_min,
                      const double* __restrict v_min, const double* __restrict a_min,
                      const double* __restrict p_max, const double* __restrict v_max,
                      const double* __restrict a_max, const double* __restrict inverse,
                      double* __restrict p, double* __restrict w, double* __restrict a,
                      claw::detail::PdJiminySaved<double>* __restrict saved) noexcept {
  constexpr double kMax = std::numeric_limits<double>::max();
  for (std::ptrdiff_t i = 0; i < m; ++i) {
    const double p0 = p[i], w0 = w[i], a0 = a[i];
    double p1, w1, a1;
    const bool certain = claw::detail::zoh_joint_jiminy_try_fast(
        p0, w0, a0,
        claw::detail::JointStateBounds<double>{p_min[i], v_min[i], a_min[i], p_max[i], v_max[i],
                                               a_max[i]},
        dt, inverse[i], p1, w1, a1);
    const bool done =
        (static_cast<int>(certain) & static_cast<int>(std::fabs(p1) <= kMax) &
         static_cast<int>(std::fabs(w1) <= kMax) & static_cast<int>(std::fabs(a1) <= kMax)) != 0;
    p[i] = p1;
    w[i] = w1;
    a[i] = a1;
    saved->p[i] = done ? 0.0 : p0;
    saved->w[i] = done ? 0.0 : w0;
    saved->a[i] = done ? 0.0 : a0;
    saved->flag[i] = done ? 0.0 : 1.0;
  }
}

/// claw::integrate_zoh(state, lower, upper, dt) (jiminy mode) on row-major 3 x n arrays, the
/// same checks in the same order, the same status and bits; kDelegate where the caller must run
/// claw::integrate_zoh itself (dt not finite, negative or below CLAW_MIN_TIME_STEP, or the state
/// sharing memory with the bounds).
inline claw::Status integrate_zoh_contiguous(std::ptrdiff_t n, double* state, const double* lower,
                                             const double* upper, double dt,
                                             PdScratch& scratch) noexcept {
  using claw::Status;
  if (claw::detail::spans_overlap(state, 3 * n, lower, 3 * n) ||
      claw::detail::spans_overlap(state, 3 * n, upper, 3 * n))
    return kDelegate;
  bool skip = false;
  if (claw::check_time_step(dt, skip) != Status::Ok || skip) return kDelegate;
  const double* inverse = nullptr;
  const Status checked = state_and_bounds_status(n, state, lower, upper, dt, scratch, inverse);
  if (checked != Status::Ok) return checked;
  double* p = state;
  double* w = state + n;
  double* a = state + 2 * n;
  constexpr std::ptrdiff_t kChunk = claw::detail::kPdJiminyChunk;
  claw::detail::PdJiminySaved<double> saved;
  bool overflow = false;
  for (std::ptrdiff_t base = 0; base < n; base += kChunk) {
    const std::ptrdiff_t m = (n - base < kChunk) ? n - base : kChunk;
    zoh_chunk(m, dt, lower + base, lower + n + base, lower + 2 * n + base, upper + base,
              upper + n + base, upper + 2 * n + base, inverse + base, p + base, w + base, a + base,
              &saved);
    if (!claw::detail::any_flag_set(saved.flag, m)) continue;
    for (std::ptrdiff_t i = 0; i < m; ++i) {
      if (saved.flag[i] == 0.0) continue;
      const std::ptrdiff_t j = base + i;
      p[j] = saved.p[i];
      w[j] = saved.w[i];
      a[j] = saved.a[i];
      const auto b = claw::detail::joint_bounds(
          Eigen::Map<const claw::StateMatrix<double, Eigen::Dynamic>>(lower, 3, n),
          Eigen::Map<const claw::StateMatrix<double, Eigen::Dynamic>>(upper, 3, n), j);
      if (!claw::detail::zoh_joint_or_hold(p[j], w[j], a[j],
                                           [&](double& pj, double& wj, double& aj) {
                                             claw::detail::zoh_joint_jiminy(pj, wj, aj, b, dt);
                                           }))
        overflow = true;
    }
  }
  return overflow ? Status::NumericalOverflow : Status::Ok;
}

/// claw::pd_controller(q, v, state, lower, upper, kp, kd, limit, dt, out) for row-major 3 x n
/// state and bounds and unit-stride vectors. Returns false, touching nothing, where the caller
/// must run claw::pd_controller itself: dt not finite, negative or below CLAW_MIN_TIME_STEP, or
/// state or out sharing memory with another argument (the kernel's arrays are restrict).
inline bool pd_controller_contiguous(std::ptrdiff_t n, const double* q, const double* v,
                                     double* state, const double* lower, const double* upper,
                                     const double* kp, const double* kd, const double* limit,
                                     double dt, double* out, PdScratch& scratch,
                                     claw::Status& status) noexcept {
  status = pd_controller_contiguous_status(n, q, v, state, lower, upper, kp, kd, limit, dt, out,
                                           scratch);
  return status != kDelegate;
}

}  // namespace claw_python
